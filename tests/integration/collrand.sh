#!/bin/sh
# Randomized group collectives (collrand.c): pvm_reduce, pvm_gather,
# pvm_scatter and the root's pvm_bcast or pvm_mcast (big ones too, the root
# overwriting its array at once) among stock and libpvm3am members in one private VM, in
# PHASES groups of random size (2..10 tasks, more than this machine's
# cores), random mixes of stock and libpvm3am members and masters, each
# ROUNDS rounds of random operations, types, counts and roots.  The seed
# is printed; COLLRAND_SEED=N repeats a run.  Each phase is bounded by a
# timeout; a hang or a wrong item fails the test.
. "$top_srcdir/tests/lib/pvmvm.sh"
B=$top_builddir/tests/integration
SEED=${COLLRAND_SEED:-$(od -An -N3 -tu4 /dev/urandom | tr -d ' ')}
PHASES=${COLLRAND_PHASES:-4} ROUNDS=${COLLRAND_ROUNDS:-10}
echo "collrand: seed $SEED (COLLRAND_SEED=$SEED repeats this run), $PHASES phases of $ROUNDS rounds"
vm_start || exit 99
cp "$B/collrand_stock" "$B/collrand_am" "$VM_BIN/"
ln -s "${PVMGS:-/usr/bin/pvmgs}" "$VM_BIN/pvmgs"
rc=0
# one line per phase: master kind, task count, the others' kinds, its seed
awk -v seed="$SEED" -v phases="$PHASES" 'BEGIN { srand(seed)
    for (p = 0; p < phases; p++) {
        n = 2 + int(rand() * 9); k = ""
        for (i = 1; i < n; i++) k = k (rand() < 0.4 ? "s" : "a")
        print (rand() < 0.3 ? "stock" : "am"), n, k, int(rand() * 2147483647) } }' > "$VM_DIR/phases"
while read -r master n kinds pseed; do
    out=$(timeout 60 "$VM_BIN/collrand_$master" "$pseed" "$n" "$ROUNDS" "$kinds" 2>&1)
    r=$?
    echo "$out" | sed 's/^/  /'
    if [ $r != 0 ] || ! echo "$out" | grep -q '^PASS$'; then
        echo "FAIL: master $master, $n tasks ($kinds), seed $pseed: exit $r"
        rc=1
    fi
done < "$VM_DIR/phases"
[ $rc = 0 ] && echo "collrand: all $PHASES phases pass (seed $SEED)"
exit $rc
