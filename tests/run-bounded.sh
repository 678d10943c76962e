#!/bin/sh
# Test driver helper: run one test under a hard wall-clock limit so no test can hang CI.
# usage: run-bounded.sh SECONDS PROGRAM [ARGS...]
limit=$1; shift
exec timeout --kill-after=10 "$limit" "$@"
