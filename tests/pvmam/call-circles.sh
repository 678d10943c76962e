#!/bin/sh
# No call circle of more than two files in pvmam/ (tests/lib/call-circles.sh).
# usage: call-circles.sh [objdir]   (default: pvmam/ of the build tree)
dir=${1:-pvmam}
exec sh "$(dirname "$0")/../lib/call-circles.sh" "$dir"/libpvm3am_la-*.o
