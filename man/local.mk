# man: our manual pages (troff man macros), installed by make install and
# checked by tests/man.sh.
dist_man_MANS = man/pvmam.1 man/pvmam-run.1 man/libpvm3am.7 man/pvmam_init.3 \
	man/pvmam_stats.3 man/pvmam_report.3 man/pvmam_is_amtask.3 man/pvmam_transport.3 \
	man/pvmam_dead_reason.3
