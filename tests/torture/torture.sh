#!/bin/sh
# torture.sh - randomized, seeded, replayable torture of PVM messaging
# (tests/torture/README.md).  One private pvmd per transport block; the
# runner (torture_am RUN) plays many scenarios in it, fresh tasks each.
#
#   torture.sh --seed S [--transport T]      replay one scenario alone
#   torture.sh --halt --seed S               one halt scenario (own pvmd)
#   torture.sh --seeds S1,S2,... [--transport T]  several, in one pvmd
#   torture.sh --minutes M [--from S]        cycle transports for M minutes
#   torture.sh --check                       the short run of make check
#
# Transports: shm tcp udp default (PVMAM_TRANSPORT unset) off.  Exit
# status 1 if any scenario failed; every failure prints its replay command.
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
export top_srcdir top_builddir
: "${PVMD:=pvmd}"; export PVMD
PVM_ALLOW_ROOT=1; export PVM_ALLOW_ROOT
B=$top_builddir/tests/torture
AM=$B/torture_am STOCK=$B/torture_stock
[ -x "$AM" ] && [ -x "$STOCK" ] || { echo "torture: build first (make check or make torture)"; exit 99; }
case " ${CFLAGS:-} " in *-fsanitize=*)
    : "${TORTURE_SLOW:=4}" ;;
esac
export TORTURE_SLOW
# Stock tasks pass these on to the tasks they spawn too.
PVM_EXPORT=PVMAM_TRANSPORT:PVMAM_TIMEOUT:TORTURE_SLOW; export PVM_EXPORT

seed="" seeds="" transport="" minutes="" from="" halt=0 check=0 count=""
while [ $# -gt 0 ]; do
    case $1 in
    --seed) seed=$2; shift ;;
    --seeds) seeds=$2; shift ;;
    --transport) transport=$2; shift ;;
    --minutes) minutes=$2; shift ;;
    --from) from=$2; shift ;;
    --count) count=$2; shift ;;
    --halt) halt=1 ;;
    --check) check=1 ;;
    *) echo "torture: unknown option $1"; exit 2 ;;
    esac
    shift
done

. "$top_srcdir/tests/lib/pvmvm.sh"
. "$top_srcdir/tests/lib/devshm.sh"
out=$(mktemp "${TMPDIR:-/tmp}/torture.XXXXXX") || exit 99
fails=$(mktemp "${TMPDIR:-/tmp}/torture-fails.XXXXXX") || exit 99
vm_cleanup() { rm -f "$out" "$fails" "$out".pids "$out".pids.returned; }
rc=0

set_transport() {
    if [ "$1" = default ]; then unset PVMAM_TRANSPORT; else PVMAM_TRANSPORT=$1; export PVMAM_TRANSPORT; fi
}

# Alive and not a zombie.
alive() { st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) && [ "$st" != Z ]; }

# run TRANSPORT ARGS...: the runner over a fresh pvmd; tallies into $fails.
run() {
    t=$1; shift
    set_transport "$t"
    vm_start || { echo "torture: pvmd did not start"; rc=1; return; }
    # The collective phases' group server: stock libgpvm3 spawns it by
    # its bare name (the runner starts it before any scenario).
    ln -s "${PVMGS:-/usr/bin/pvmgs}" "$VM_BIN/pvmgs"
    # The runner stops itself (--minutes, --count); this is the backstop.
    timeout -k 10 "${TORTURE_LIMIT:-3600}" "$AM" RUN --am "$AM" --stock "$STOCK" \
        --transport "$t" "$@" >"$out" 2>&1
    r=$?
    cat "$out"
    next_seed=$(sed -n 's/^torture: transport.*seeds [0-9]*\.\.\([0-9]*\).*/\1/p' "$out")
    grep '^torture: transport' "$out" >>"$fails"
    grep '^replay:' "$out" >>"$fails"
    if [ $r -ne 0 ]; then
        rc=1
        grep -q '^FAIL' "$out" || { echo "torture: the runner failed (status $r), transport $t, args $*";
            echo "replay: tests/torture/torture.sh --transport $t $*" >>"$fails"; }
    fi
    vm_stop
}

# halt SEED: its own pvmd; it and every task must be gone, pvm_halt must
# not return to its caller.
halt() {
    hs=$1
    unset PVMAM_TRANSPORT
    [ -n "$transport" ] && set_transport "$transport"
    vm_start || { echo "torture: pvmd did not start"; rc=1; return; }
    pidf=$out.pids
    rm -f "$pidf" "$pidf.returned"
    : >"$pidf"
    timeout -k 5 60 "$AM" HALT --am "$AM" --stock "$STOCK" --seed "$hs" --pidfile "$pidf" >"$out" 2>&1
    r=$?
    cat "$out"
    why=""
    grep -q 'pvm_halt returned' "$out" "$pidf.returned" 2>/dev/null &&
        why="$why pvm_halt returned to its caller ($(cat "$pidf.returned" "$out" | grep -m1 'pvm_halt returned'));"
    [ $r -eq 143 ] || [ -n "$why" ] || why="$why the runner ended with status $r, not 143 (SIGTERM from the pvmd);"
    i=0
    while [ $i -lt 100 ]; do
        left=""
        alive "$VM_PID" && left="pvmd($VM_PID)"
        for p in $(cat "$pidf"); do alive "$p" && left="$left $p"; done
        [ -z "$left" ] && break
        sleep 0.1; i=$((i + 1))
    done
    [ -n "$left" ] && why="$why still alive 10 s after the halt: $left;"
    for p in $(cat "$pidf"); do   # ours: spawned by our pvmd from our binary
        alive "$p" && grep -q torture_ "/proc/$p/cmdline" 2>/dev/null && kill -KILL "$p"
    done
    vm_stop
    if [ -n "$why" ]; then
        rc=1
        echo "FAIL halt seed $hs:$why"
        echo "replay: tests/torture/torture.sh --halt --seed $hs" | tee -a "$fails"
    else
        echo "ok: halt seed $hs: every task and the pvmd gone, pvm_halt did not return"
    fi
    echo "torture: halt: 1 scenario(s), $([ -n "$why" ] && echo 1 || echo 0) failed" >>"$fails"
}

summary() {
    echo "== torture summary"
    awk '/^torture: transport/ { t=$3; sub(":", "", t); n[t]+=$4; f[t]+=$6; s[t]+=$8 }
         /^torture: halt/ { n["halt"]+=$3; f["halt"]+=$5 }
         END { for (t in n) printf "%-8s %6d scenario(s), %d failed%s\n", t, n[t], f[t],
               (s[t] > 0 ? sprintf(", %.0f per minute", n[t] * 60 / s[t]) : "") }' "$fails"
    grep '^replay:' "$fails" | sort -u
    devshm_check || rc=1
}

if [ -n "$seed" ] && [ $halt = 1 ]; then
    halt "$seed"
elif [ -n "$seed" ]; then
    run "${transport:-default}" --seed "$seed"
elif [ -n "$seeds" ]; then   # a comma list, in one pvmd
    run "${transport:-default}" --seeds "$seeds"
elif [ $check = 1 ]; then
    # Fixed seeds covering each pattern x ending and the other classes,
    # spread over the transports, then a few fresh ones per transport.
    fixed=$("$AM" FIND 1)
    set -- shm tcp udp default off
    for t in "$@"; do eval "list_$t=''"; done
    k=0
    for s in $fixed; do
        eval "t=\${$((k % 5 + 1))}"
        eval "list_$t=\"\$list_$t \$s\""
        k=$((k + 1))
    done
    # Fan-in send-then-exit (pattern 6) on every transport; the floods
    # (pattern 7) seeds 1030 and 1047 hung shm (two-way 64 KiB streams).
    race=$("$AM" FIND 1 6 8 | tr '\n' ,)
    # Seed 5 lost a multicast on every transport: a receiver that had
    # gone stopped pvm_mcast before the others (tests/integration/mcastgone.c).
    race="${race}5,"
    list_shm="$list_shm 1030 1047 $("$AM" FIND 1 7 8 | tr '\n' ' ')"
    fresh=${from:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
    echo "torture: fixed seeds:" $fixed
    echo "torture: fresh seeds from $fresh"
    for t in ${transport:-shm tcp udp default off}; do
        eval "l=\$list_$t"
        run "$t" --seeds "$race$(echo $l | tr ' ' ,)"
        run "$t" --from "$fresh" --count "${count:-30}"
        fresh=$((fresh + ${count:-30}))
    done
    for s in 1 2 3; do halt "$s"; done
    summary
else
    # Long: blocks of BLOCK minutes per transport, in turn.
    start=${from:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
    minutes=${minutes:-10}
    echo "torture: $minutes minute(s), seeds from $start"
    end=$(($(date +%s) + $(awk -v m="$minutes" 'BEGIN { printf "%d", m * 60 }')))
    block=${TORTURE_BLOCK:-2}
    hseed=$start
    while [ "$(date +%s)" -lt "$end" ]; do
        for t in ${transport:-shm tcp udp default off}; do
            left=$((end - $(date +%s)))
            [ $left -gt 5 ] || break
            m=$(awk -v l="$left" -v b="$block" 'BEGIN { x = l / 60; printf "%.2f", x < b ? x : b }')
            next_seed=""
            run "$t" --from "$start" --minutes "$m"
            start=$((${next_seed:-$start} + 1))
        done
        halt "$hseed"
        hseed=$((hseed + 1))
    done
    summary
fi
exit $rc
