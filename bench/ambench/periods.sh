#!/bin/bash
# periods.sh [RUNS [GAP_SECONDS]] - the shm ping-pong target (libam at most 2x the bare
# cache line) run after run, sorted by how fast the bare line was.
#
# On a VM the two vCPUs move between host cores: a bare cache-line ping-pong takes
# about 0.03 us in some minutes, 0.045 in others and 0.19 when they are far apart
# (docs/performance.md, 2026-11-25).  Each message's own work, from seeing a record to
# publishing the answer, costs about the same time whatever the line does, so whether
# a path stays within 2x depends on the minute.  This runs `ambench 3 shm 8` RUNS times
# (default 20), GAP_SECONDS apart (default 10), prints each run's fastest-round times
# (bare line, protocol floor of bench/ambench/floor.c, libam) and then, per class of
# bare line, how many runs each path kept within 2x, by fastest rounds and by medians.
# A run whose three figures disagree on the class (the VM moved during it) is counted
# apart.
#
# Run from the build tree: bench/ambench/periods.sh 30 (or set AMBENCH)
set -u
runs=${1:-20}
gap=${2:-10}
case "$runs$gap" in *[!0-9]*|'') echo "periods.sh: RUNS and GAP_SECONDS are whole numbers" >&2; exit 2;; esac
here=$(cd "$(dirname "$0")" && pwd)
bench=${AMBENCH:-$here/ambench}   # AMBENCH: the build tree's, when it is not beside this
[ -x "$bench" ] || { echo "periods.sh: $bench is not built (make bench/ambench/ambench)" >&2; exit 2; }
out=$(mktemp) || exit 2
trap 'rm -f "$out"' EXIT
for i in $(seq "$runs"); do
    # the last line is the 8-byte row of the bare/floor/libam table
    line=$(timeout 120 "$bench" 3 shm 8 2>/dev/null | tail -1)
    case "$line" in
        shm:*) echo "$line" >> "$out" ;;
        *) echo "periods.sh: run $i gave no shm row (timed out or failed)" >&2 ;;
    esac
    [ "$i" -lt "$runs" ] && sleep "$gap"
done
# columns of that row: 8 bare_best, 9 floor_best, 10 libam_best (us)
awk '
{
    b = $8; f = $9; l = $10
    # far: the two vCPUs on distant host cores; all three figures must agree on it
    far = b >= 0.12
    if ((f >= 0.15) != far || (l >= 0.15) != far) c = "moved"
    else c = far ? "far" : b >= 0.040 ? "mid" : "near"
    printf "bare %.4f  floor %.4f (%.2fx)  libam %.4f (%.2fx)  %s\n", b, f, f / b, l, l / b, c
    # $6, $7: the medians of rounds as ratios ("1.88x", which awk reads as 1.88)
    n[c]++; nf[c] += f / b <= 2; nl[c] += l / b <= 2; mnf[c] += $6 + 0 <= 2; mnl[c] += $7 + 0 <= 2
}
END {
    print ""
    print "runs within 2x of the bare line:    fastest rounds    medians of rounds"
    print "bare line class (fastest round)   runs   floor   libam     floor   libam"
    split("near mid far moved", order, " ")
    label["near"] = "near (below 0.040 us)"; label["mid"] = "mid (0.040 to 0.120 us)"
    label["far"] = "far (0.120 us and more)"; label["moved"] = "moved during the run"
    for (k = 1; k <= 4; k++) {
        c = order[k]
        if (!n[c])
            continue
        if (c == "moved")   # its ratios compare different minutes
            printf "%-33s %5d   %5s   %5s     %5s   %5s\n", label[c], n[c], "-", "-", "-", "-"
        else
            printf "%-33s %5d   %5d   %5d     %5d   %5d\n", label[c], n[c], nf[c], nl[c], mnf[c], mnl[c]
    }
}' "$out"
