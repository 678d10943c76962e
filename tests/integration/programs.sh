#!/bin/sh
# programs.sh [LIST] - the automake definitions of the integration tests'
# programs, from tests/integration/programs.list (its head says the form),
# on stdout.  automake must see every program's _SOURCES literally, so the
# definitions are made here, once, and the result is committed:
#     sh tests/integration/programs.sh > tests/integration/programs.mk
# (or make programs-mk); tests/integration/programs-mk.sh checks it.
set -eu
list=${1:-$(dirname "$0")/programs.list}
echo "# Made by tests/integration/programs.sh from tests/integration/programs.list:"
echo "# edit that list, not this file (make programs-mk)."
sed -e 's/#.*//' -e 's/[[:space:]]*|[[:space:]]*/|/g' -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' "$list" |
awk -F'|' '
NF == 0 { next }
NF != 5 { printf "programs.list:%d: %d fields, want 5\n", NR, NF > "/dev/stderr"; bad = 1; exit 1 }
{
    name = $1; nb = split($2, builds, " "); stockld = $4 == "" ? "-lpvm3" : $4; amcpp = $5
    pair = nb > 1
    srcs = "tests/integration/" name ".c"
    nm = split($3, more, " ")
    for (i = 1; i <= nm; i++) srcs = srcs " tests/integration/" more[i]
    progs = ""
    for (i = 1; i <= nb; i++) progs = progs " tests/integration/" name "_" builds[i]
    print ""
    print "check_PROGRAMS +=" progs
    for (i = 1; i <= nb; i++) {
        v = "tests_integration_" name "_" builds[i]
        print v "_SOURCES = " srcs
        if (builds[i] == "stock") {
            print v "_CPPFLAGS ="
            print v "_LDADD = " stockld
        } else if (builds[i] == "am") {
            if (pair || amcpp != "") print v "_CPPFLAGS =" (amcpp == "" ? "" : " " amcpp)
            print v "_LDADD = libpvm3am.la"
            print v "_LDFLAGS = -no-install"
        } else {
            printf "programs.list: %s: build %s is neither stock nor am\n", name, builds[i] > "/dev/stderr"
            bad = 1; exit 1
        }
    }
}
END { exit bad }'
