# pvmam: the Active Messages route of libpvm3am (sources go into libpvm3am,
# see pvm3/local.mk).  Only this folder includes both pvm3 and libam.
PVMAM_SOURCES = pvmam/pvmam.h pvmam/pvmam_int.h pvmam/config.c pvmam/peer.c \
	pvmam/state.c pvmam/linkstate.c pvmam/ctrl.c pvmam/link.c pvmam/frag.c pvmam/short.c pvmam/am_route.c pvmam/init.c pvmam/stats.c \
	pvmam/amstat.c pvmam/settle.c pvmam/addrs.c
include_HEADERS += pvmam/pvmam.h

# The routes pvm3 asks before its daemon route, in order (pvm3/core/route.h):
# each names a `const struct pvm_route_ops` of this folder.  A new route is
# its file in PVMAM_SOURCES plus its name here; the table is generated so
# that a static link keeps every route.
PVM3_ROUTES = pvmx_am_route pvmx_amstat_route
nodist_libpvm3am_la_SOURCES = pvmam/route_table.c
BUILT_SOURCES += pvmam/route_table.c
CLEANFILES += pvmam/route_table.c
pvmam/route_table.c: $(srcdir)/pvmam/local.mk
	$(AM_V_GEN)$(MKDIR_P) pvmam && { \
	  echo '/* Generated from PVM3_ROUTES in pvmam/local.mk: do not edit. */'; \
	  echo '#include "route_int.h"'; \
	  for r in $(PVM3_ROUTES); do echo "extern const struct pvm_route_ops $$r;"; done; \
	  echo 'const struct pvm_route_ops *const pvmi_route_table[] = {'; \
	  for r in $(PVM3_ROUTES); do echo "    &$$r,"; done; \
	  echo '    0'; echo '};'; \
	} > $@-t && mv $@-t $@
