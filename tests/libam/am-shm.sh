#!/bin/sh
# The libam tests over shm: big AMs streamed through the ring (the
# default, libam/shm/shm.h CMA_FROM); then every big AM by descriptor,
# copied by the receiver with cross-memory attach where the kernel allows
# it (LIBAM_SHM_CMA_FROM=0), and again where it does not (the ring copy
# it falls back to); by descriptor twice more, a big AM's sender never
# writing the part its receiver asks it to (the receiver takes it back),
# then failing to (the receiver copies it after all); none may leave
# anything in /dev/shm (tests/lib/devshm.sh: entries other programs make
# and remove meanwhile are theirs).  The echo tests check every byte.
. "$top_srcdir/tests/lib/devshm.sh"
"$top_builddir/tests/libam/test_am" shm || exit 1
LIBAM_SHM_CMA_FROM=0 "$top_builddir/tests/libam/test_am" shm || exit 1
LIBAM_SHM_CMA_FROM=0 LIBAM_SHM_NO_CMA=1 "$top_builddir/tests/libam/test_am" shm || exit 1
LIBAM_SHM_CMA_FROM=0 LIBAM_SHM_NO_HELP=1 "$top_builddir/tests/libam/test_am" shm || exit 1
LIBAM_SHM_CMA_FROM=0 LIBAM_SHM_HELP_FAILS=1 "$top_builddir/tests/libam/test_am" shm || exit 1
devshm_check
