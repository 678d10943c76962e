# console: pvmam, the PVM console over libpvm3am (man/pvmam.1).
bin_PROGRAMS += console/pvmam
console_pvmam_SOURCES = console/cons.h console/main.c console/input.c console/cmdtab.c \
	console/util.c console/jobs.c console/cmd_host.c console/cmd_task.c \
	console/cmd_spawn.c console/cmd_env.c console/cmd_mbox.c console/cmd_trace.c \
	console/cmd_am.c console/trace.h console/trace_jobs.c console/trace_print.c
console_pvmam_CPPFLAGS = $(AM_CPPFLAGS) -DPVMAM_LIBDIR='"$(libdir)"'
console_pvmam_LDADD = libpvm3am.la $(READLINE_LIBS)

# pvmam-run: unmodified stock-linked programs with libpvm3am preloaded.
bin_SCRIPTS = console/pvmam-run
console/pvmam-run: $(srcdir)/console/pvmam-run.in Makefile
	$(AM_V_GEN)sed -e 's|@libdir[@]|$(libdir)|g' $(srcdir)/console/pvmam-run.in > $@ && chmod +x $@
CLEANFILES += console/pvmam-run
EXTRA_DIST += console/pvmam-run.in
