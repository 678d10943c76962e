#!/bin/sh
# Debian pvm-examples that use services, built against stock (libpvm3 +
# libgpvm3) and against libpvm3am, run in private VMs, all of one kind and
# mixed; the output must be the same (task ids normalised).
#   gexample        groups: freezegroup, reduce (PvmSum, user function), barrier
#   inherit*        contexts inherited by children
#   lmbi + gmbi     mailbox entries put by one program, listed by another
#   mhf_server +    message handlers added, hit and reported; the server
#   mhf_tickle      found through the mailbox
set -u
tarball=/usr/share/doc/pvm-examples/examples.tar.gz
[ -f "$tarball" ] || { echo "no $tarball (package pvm-examples)"; exit 77; }
. "$top_srcdir/tests/lib/pvmvm.sh"
W=$(mktemp -d "${TMPDIR:-/tmp}/pvmexs.XXXXXX")
vm_cleanup() { [ -n "${KEEP:-}" ] || rm -rf "$W"; }
tar xzf "$tarball" -C "$W" || exit 99
S=$W/examples
CC=${CC:-cc}
AMLIB=$top_builddir/.libs
GS=${PVMGS:-/usr/bin/pvmgs}
[ -x "$GS" ] || GS=/usr/bin/pvmgs
build() {  # NAME [extra sources]: both kinds
    n=$1; shift
    $CC -w ${CFLAGS:-} -o "$W/$n.stock" "$S/$n.c" "$@" ${LDFLAGS:-} -lgpvm3 -lpvm3 || return 1
    $CC -w ${CFLAGS:-} -o "$W/$n.am" "$S/$n.c" "$@" ${LDFLAGS:-} -L"$AMLIB" -lpvm3am \
        -Wl,-rpath,"$AMLIB" || return 1
}
for p in gexample inherita inheritb inherit1 inherit2 inherit3 mhf_server mhf_tickle; do
    build $p || { echo "build of $p failed"; exit 99; }
done
for p in lmbi gmbi; do build $p "$S/taskf.c" || { echo "build of $p failed"; exit 99; }; done

norm() { sed -e 's/t[0-9a-f]\{5,8\}/tX/g'; }
rc=0
compare() {  # label file-a file-b
    if norm < "$2" | diff - "$(norm < "$3" > "$W/n"; echo "$W/n")" > "$W/d"; then
        echo "same: $1 ($(wc -l < "$3") lines)"
    else
        echo "DIFFERENT: $1"; cat "$W/d"; rc=1
    fi
}

# gexample: master of one kind, children of another; pvmgs in the exec path
# (stock needs it there); ours also without it (we start the installed one).
gex() {  # out master-kind child-kind pvmgs-in-path
    vm_start || exit 99
    cp "$W/gexample.$3" "$VM_BIN/gexample"
    [ "$4" = yes ] && ln -s "$GS" "$VM_BIN/pvmgs"
    printf '20\n4\n' | ( cd "$W" && timeout 60 "$W/gexample.$2" ) > "$1" 2>&1
    echo "exit $?" >> "$1"
    vm_stop
}
gex "$W/gex.ss" stock stock yes
for c in "am am yes" "am am no" "am stock yes" "stock am yes"; do
    set -- $c
    gex "$W/gex.$1$2$3" $1 $2 $3
    compare "gexample master $1, children $2, pvmgs in path $3" "$W/gex.ss" "$W/gex.$1$2$3"
done
grep -q 'The 1-Norm is 210' "$W/gex.amamno" || { echo "gexample: no result"; rc=1; }

# contexts and mailbox: one program after another in one VM
ctxmb() {  # out kind-of-masters kind-of-children gmbi-kind
    vm_start || exit 99
    for p in inherit1 inherit2 inherit3; do cp "$W/$p.$3" "$VM_BIN/$p"; done
    ( cd "$W"
      for a in inherit1 inherit3; do echo "== inherita $a"; timeout 30 ./inherita.$2 $a; done
      echo "== inheritb"; timeout 30 ./inheritb.$2
      echo "== lmbi"; timeout 30 ./lmbi.$2 3 pm e
      echo "== gmbi"; timeout 30 ./gmbi.$4 '*' ) > "$1" 2>&1
    vm_stop
}
ctxmb "$W/cm.s" stock stock stock
for c in "am am am" "am stock stock" "stock am am"; do
    set -- $c
    ctxmb "$W/cm.$1$2$3" $1 $2 $3
    compare "inherit*, lmbi/gmbi: masters $1, children $2, gmbi $3" "$W/cm.s" "$W/cm.$1$2$3"
done
grep -q 'with context 262147' "$W/cm.amamam" && grep -q 'lmbi2' "$W/cm.amamam" || {
    echo "inherit/mbox: unexpected output"; cat "$W/cm.amamam"; rc=1; }

# message handlers: the server registers in the mailbox; the tickler loads
# a string and an int handler, hits each, then stops the server.
mhf() {  # server-kind tickle-kind
    vm_start || exit 99
    ( cd "$W" && timeout 40 ./mhf_server.$1 ) > "$W/srv.$1$2" 2>&1 &
    sp=$!
    sleep 0.5
    { printf '1\n77\n262145\n1\n'; sleep 0.3
      printf '4\n77\n262145\n1\nhello there\n'; sleep 0.3
      printf '1\n78\n262145\n6\n'; sleep 0.3
      printf '4\n78\n262145\n6\n42\n'; sleep 0.3
      printf '9\n'; sleep 0.3; printf '8\n'; } |
        ( cd "$W" && timeout 40 ./mhf_tickle.$2 ) > "$W/tic.$1$2" 2>&1
    echo "tickle exit $?" >> "$W/tic.$1$2"
    wait $sp; echo "server exit $?" >> "$W/srv.$1$2"
    vm_stop
    # the handler-table dumps are library internals: keep the handlers' output
    grep -e catcher -e 'exit' "$W/srv.$1$2" > "$W/srvh.$1$2"
}
mhf stock stock
for c in "am am" "am stock" "stock am"; do
    set -- $c
    mhf $1 $2
    compare "mhf_server $1 + mhf_tickle $2 (handlers)" "$W/srvh.stockstock" "$W/srvh.$1$2"
    compare "mhf_tickle $2 with server $1" "$W/tic.stockstock" "$W/tic.$1$2"
done
[ "$(grep -c 'received' "$W/srvh.amam")" = 2 ] || { echo "mhf: handlers did not run"; cat "$W/srv.amam"; rc=1; }
exit $rc
