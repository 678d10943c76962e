#!/bin/sh
# No call circle of more than two files in libam/ (tests/lib/call-circles.sh),
# over the objects of libam/ and its transports' folders (shm/, ucx/).
# The static library's member list picks them where it is built, so that
# an object left behind by a renamed file is not read.
# usage: call-circles.sh [objdir]   (default: libam/ of the build tree)
dir=${1:-libam}
lib=$(dirname "$dir")/.libs/libam.a
if [ -e "$lib" ]; then
  set --
  for m in $(ar t "$lib"); do
    for o in "$dir/$m" "$dir"/*/"$m"; do [ -e "$o" ] && set -- "$@" "$o"; done
  done
else
  set -- "$dir"/la-*.o
  for o in "$dir"/*/la-*.o; do [ -e "$o" ] && set -- "$@" "$o"; done
fi
exec sh "$(dirname "$0")/../lib/call-circles.sh" "$@"
