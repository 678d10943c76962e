#!/bin/sh
# No call circle of more than two files: one file per job only stays so if
# the files call each other in layers.  From nm of each object: file A
# calls file B when A's undefined symbols include one B defines.  The
# strongly connected parts of that graph bigger than two fail.  A file is
# named by its object's directory and source name (libtool's "NAME_la-" or
# "la-" in front of it dropped).  Used by tests/pvmam/call-circles.sh and
# tests/libam/call-circles.sh.
# usage: call-circles.sh OBJECT...
[ $# -gt 0 ] && [ -e "$1" ] || { echo "no objects given (build first)" >&2; exit 99; }
for o in "$@"; do
  f=$(basename "$o" .o); f=${f#*la-}; d=$(dirname "$o"); f=${d#./}/$f
  nm "$o" | awk -v f="$f" '$2 ~ /^[TDBR]$/ { print "D", f, $3 } $1 == "U" { print "U", f, $2 }'
done | awk '
  $1 == "D" {
    # two objects defining one name: a stale object of a renamed file
    if (($3 in def) && def[$3] != $2) { print "defined twice: " $3 " (" def[$3] ", " $2 ")"; dup = 1 }
    def[$3] = $2; ndef++; next
  }
  { use[++n] = $2 " " $3 }
  END {
    if (dup) exit 99
    # objects without a symbol table (LTO-only) would pass unchecked
    if (!ndef) { print "no symbols read from the objects: cannot check"; exit 99 }
    for (i = 1; i <= n; i++) {
      split(use[i], a, " ")
      if ((a[2] in def) && def[a[2]] != a[1]) edge[a[1] "," def[a[2]]] = 1
    }
    for (e in edge) { split(e, a, ","); node[a[1]]; node[a[2]]; reach[a[1] "," a[2]] = 1 }
    for (k in node) for (i in node) if ((i "," k) in reach)
      for (j in node) if ((k "," j) in reach) reach[i "," j] = 1
    bad = 0
    for (i in node) {
      c = i; m = 1; o = ""
      for (j in node) if (j != i && ((i "," j) in reach) && ((j "," i) in reach)) { c = c " " j; m++; o = j }
      if (m > 2) { print "call circle: " c; bad = 1 }
      else if (m == 2 && i < o) print "two-file circle (allowed): " c
    }
    exit bad
  }'
