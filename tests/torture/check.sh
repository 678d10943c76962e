#!/bin/sh
# make check: the short torture (tests/torture/README.md): fixed seeds
# that cover each pattern, ending and transport, a few fresh random ones
# (their first seed is printed), and three halt scenarios.
exec sh "$top_srcdir/tests/torture/torture.sh" --check
