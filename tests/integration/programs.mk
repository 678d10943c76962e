# Made by tests/integration/programs.sh from tests/integration/programs.list:
# edit that list, not this file (make programs-mk).

check_PROGRAMS += tests/integration/interop_stock tests/integration/interop_am
tests_integration_interop_stock_SOURCES = tests/integration/interop.c
tests_integration_interop_stock_CPPFLAGS =
tests_integration_interop_stock_LDADD = -lpvm3
tests_integration_interop_am_SOURCES = tests/integration/interop.c
tests_integration_interop_am_CPPFLAGS =
tests_integration_interop_am_LDADD = libpvm3am.la
tests_integration_interop_am_LDFLAGS = -no-install

check_PROGRAMS += tests/integration/badinput_stock tests/integration/badinput_am
tests_integration_badinput_stock_SOURCES = tests/integration/badinput.c
tests_integration_badinput_stock_CPPFLAGS =
tests_integration_badinput_stock_LDADD = -lpvm3
tests_integration_badinput_am_SOURCES = tests/integration/badinput.c
tests_integration_badinput_am_CPPFLAGS = -DPVMAM_BUILD -I$(top_srcdir)/pvmam
tests_integration_badinput_am_LDADD = libpvm3am.la
tests_integration_badinput_am_LDFLAGS = -no-install

check_PROGRAMS += tests/integration/ampath_am
tests_integration_ampath_am_SOURCES = tests/integration/ampath.c
tests_integration_ampath_am_LDADD = libpvm3am.la
tests_integration_ampath_am_LDFLAGS = -no-install

check_PROGRAMS += tests/integration/pvmloss_am
tests_integration_pvmloss_am_SOURCES = tests/integration/pvmloss.c
tests_integration_pvmloss_am_LDADD = libpvm3am.la
tests_integration_pvmloss_am_LDFLAGS = -no-install

check_PROGRAMS += tests/integration/svc_stock tests/integration/svc_am
tests_integration_svc_stock_SOURCES = tests/integration/svc.c
tests_integration_svc_stock_CPPFLAGS =
tests_integration_svc_stock_LDADD = -lgpvm3 -lpvm3
tests_integration_svc_am_SOURCES = tests/integration/svc.c
tests_integration_svc_am_CPPFLAGS =
tests_integration_svc_am_LDADD = libpvm3am.la
tests_integration_svc_am_LDFLAGS = -no-install

check_PROGRAMS += tests/integration/linkstress_stock tests/integration/linkstress_am
tests_integration_linkstress_stock_SOURCES = tests/integration/linkstress.c
tests_integration_linkstress_stock_CPPFLAGS =
tests_integration_linkstress_stock_LDADD = -lpvm3
tests_integration_linkstress_am_SOURCES = tests/integration/linkstress.c
tests_integration_linkstress_am_CPPFLAGS = -DPVMAM_BUILD -I$(top_srcdir)/pvmam
tests_integration_linkstress_am_LDADD = libpvm3am.la
tests_integration_linkstress_am_LDFLAGS = -no-install

check_PROGRAMS += tests/integration/frozen_stock tests/integration/frozen_am
tests_integration_frozen_stock_SOURCES = tests/integration/frozen.c
tests_integration_frozen_stock_CPPFLAGS =
tests_integration_frozen_stock_LDADD = -lgpvm3 -lpvm3
tests_integration_frozen_am_SOURCES = tests/integration/frozen.c
tests_integration_frozen_am_CPPFLAGS =
tests_integration_frozen_am_LDADD = libpvm3am.la
tests_integration_frozen_am_LDFLAGS = -no-install

check_PROGRAMS += tests/integration/stocknames_stock tests/integration/stocknames_am
tests_integration_stocknames_stock_SOURCES = tests/integration/stocknames.c
tests_integration_stocknames_stock_CPPFLAGS =
tests_integration_stocknames_stock_LDADD = -lpvm3
tests_integration_stocknames_am_SOURCES = tests/integration/stocknames.c
tests_integration_stocknames_am_CPPFLAGS =
tests_integration_stocknames_am_LDADD = libpvm3am.la
tests_integration_stocknames_am_LDFLAGS = -no-install

check_PROGRAMS += tests/integration/churn_am tests/integration/churn_stock
tests_integration_churn_am_SOURCES = tests/integration/churn.c tests/integration/selfstat.h
tests_integration_churn_am_CPPFLAGS =
tests_integration_churn_am_LDADD = libpvm3am.la
tests_integration_churn_am_LDFLAGS = -no-install
tests_integration_churn_stock_SOURCES = tests/integration/churn.c tests/integration/selfstat.h
tests_integration_churn_stock_CPPFLAGS =
tests_integration_churn_stock_LDADD = -lpvm3

check_PROGRAMS += tests/integration/crowd_am
tests_integration_crowd_am_SOURCES = tests/integration/crowd.c
tests_integration_crowd_am_LDADD = libpvm3am.la
tests_integration_crowd_am_LDFLAGS = -no-install

check_PROGRAMS += tests/integration/bistream_am
tests_integration_bistream_am_SOURCES = tests/integration/bistream.c tests/integration/guard.h
tests_integration_bistream_am_LDADD = libpvm3am.la
tests_integration_bistream_am_LDFLAGS = -no-install

check_PROGRAMS += tests/integration/shortmix_am
tests_integration_shortmix_am_SOURCES = tests/integration/shortmix.c tests/integration/guard.h
tests_integration_shortmix_am_LDADD = libpvm3am.la
tests_integration_shortmix_am_LDFLAGS = -no-install

check_PROGRAMS += tests/integration/mcastgone_am
tests_integration_mcastgone_am_SOURCES = tests/integration/mcastgone.c tests/integration/guard.h
tests_integration_mcastgone_am_LDADD = libpvm3am.la
tests_integration_mcastgone_am_LDFLAGS = -no-install

check_PROGRAMS += tests/integration/stranger_am
tests_integration_stranger_am_SOURCES = tests/integration/stranger.c tests/integration/stranger.h
tests_integration_stranger_am_LDADD = libpvm3am.la
tests_integration_stranger_am_LDFLAGS = -no-install

check_PROGRAMS += tests/integration/spawnstream_am tests/integration/spawnstream_stock
tests_integration_spawnstream_am_SOURCES = tests/integration/spawnstream.c
tests_integration_spawnstream_am_CPPFLAGS = -DSS_AM -I$(top_srcdir)/pvmam
tests_integration_spawnstream_am_LDADD = libpvm3am.la
tests_integration_spawnstream_am_LDFLAGS = -no-install
tests_integration_spawnstream_stock_SOURCES = tests/integration/spawnstream.c
tests_integration_spawnstream_stock_CPPFLAGS =
tests_integration_spawnstream_stock_LDADD = -lpvm3

check_PROGRAMS += tests/integration/mixed_am
tests_integration_mixed_am_SOURCES = tests/integration/mixed.c
tests_integration_mixed_am_LDADD = libpvm3am.la
tests_integration_mixed_am_LDFLAGS = -no-install

check_PROGRAMS += tests/integration/meshinit_am
tests_integration_meshinit_am_SOURCES = tests/integration/meshinit.c
tests_integration_meshinit_am_CPPFLAGS = -I$(top_srcdir)/pvmam
tests_integration_meshinit_am_LDADD = libpvm3am.la
tests_integration_meshinit_am_LDFLAGS = -no-install

check_PROGRAMS += tests/integration/scale_am
tests_integration_scale_am_SOURCES = tests/integration/scale.c tests/integration/selfstat.h
tests_integration_scale_am_CPPFLAGS = -I$(top_srcdir)/pvmam
tests_integration_scale_am_LDADD = libpvm3am.la
tests_integration_scale_am_LDFLAGS = -no-install

check_PROGRAMS += tests/integration/hosts_stock tests/integration/hosts_am
tests_integration_hosts_stock_SOURCES = tests/integration/hosts.c
tests_integration_hosts_stock_CPPFLAGS =
tests_integration_hosts_stock_LDADD = -lgpvm3 -lpvm3
tests_integration_hosts_am_SOURCES = tests/integration/hosts.c
tests_integration_hosts_am_CPPFLAGS = -DPVMAM_BUILD -I$(top_srcdir)/pvmam
tests_integration_hosts_am_LDADD = libpvm3am.la
tests_integration_hosts_am_LDFLAGS = -no-install

check_PROGRAMS += tests/integration/hostfail_am
tests_integration_hostfail_am_SOURCES = tests/integration/hostfail.c
tests_integration_hostfail_am_CPPFLAGS = -I$(top_srcdir)/pvmam
tests_integration_hostfail_am_LDADD = libpvm3am.la
tests_integration_hostfail_am_LDFLAGS = -no-install

check_PROGRAMS += tests/integration/halt_stock tests/integration/halt_am
tests_integration_halt_stock_SOURCES = tests/integration/halt.c
tests_integration_halt_stock_CPPFLAGS =
tests_integration_halt_stock_LDADD = -lpvm3
tests_integration_halt_am_SOURCES = tests/integration/halt.c
tests_integration_halt_am_CPPFLAGS =
tests_integration_halt_am_LDADD = libpvm3am.la
tests_integration_halt_am_LDFLAGS = -no-install

check_PROGRAMS += tests/integration/exitloss_am
tests_integration_exitloss_am_SOURCES = tests/integration/exitloss.c
tests_integration_exitloss_am_LDADD = libpvm3am.la
tests_integration_exitloss_am_LDFLAGS = -no-install

check_PROGRAMS += tests/integration/collrand_stock tests/integration/collrand_am
tests_integration_collrand_stock_SOURCES = tests/integration/collrand.c
tests_integration_collrand_stock_CPPFLAGS =
tests_integration_collrand_stock_LDADD = -lgpvm3 -lpvm3
tests_integration_collrand_am_SOURCES = tests/integration/collrand.c
tests_integration_collrand_am_CPPFLAGS =
tests_integration_collrand_am_LDADD = libpvm3am.la
tests_integration_collrand_am_LDFLAGS = -no-install
