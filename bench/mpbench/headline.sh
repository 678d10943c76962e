#!/bin/bash
# headline.sh - one paragraph of the headline ratios of an MPBench run, for
# the end of a log: ours (the fastest AM configuration that ran) against
# stock PVM's routes, Open MPI and UCX itself, latency at the smallest size
# and the largest streaming bandwidth, from metrics.dat (report.sh).
#   headline.sh METRICS_DAT "FAILED CONFIGS"
set -u
[ -s "$1" ] || { echo "Headline: no figures (no configuration produced data)."; exit 0; }
awk -v failed="${2:-}" '
{ k = $1 " " $2; t0[k] = $4; sz[k] = $3; r[k] = $5; have[$1] = 1 }
function ok(x) { return x != "" && x != "-" && x + 0 > 0 }
function us(x) { return x < 10 ? sprintf("%.2f", x) : sprintf("%.1f", x) }
# "stock direct 30.2 us (201x slower)" or "... (1.2x faster)", seen from ours
function x(q) { return q >= 10 ? sprintf("%.0fx", q) : sprintf("%.2fx", q) }
function vs_t(name, o, v) {
    if (!ok(v) || !ok(o)) return ""
    return sprintf("%s %s us (%s our time)", name, us(v), x(v / o))
}
function vs_r(name, o, v) {
    if (!ok(v) || !ok(o)) return ""
    return sprintf("%s %.0f MB/s (ours %s that)", name, v, x(o / v))
}
function join(a, b) { return a == "" ? b : (b == "" ? a : a ", " b) }
END {
    n = split("am-shm am-default am-tcp am-udp am-off", pref, " ")
    for (i = 1; i <= n; i++) if ((pref[i] " psend") in t0 || (pref[i] " pack") in r) { us_cfg = pref[i]; break }
    line = "Headline of this run (medians; ratios within the run):"
    if (us_cfg == "") {
        line = line " no libpvm3am configuration produced figures."
    } else {
        k = us_cfg " psend"
        if (ok(t0[k])) {
            s = ""
            s = join(s, vs_t("stock PVM direct route", t0[k], t0["stock-direct psend"]))
            s = join(s, vs_t("stock default route", t0[k], t0["stock-default psend"]))
            s = join(s, vs_t("Open MPI", t0[k], t0["mpi psend"]))
            line = line sprintf(" %s-byte pvm_psend half round trip, %s %s us", sz[k], us_cfg, us(t0[k]))
            line = line (s == "" ? "." : "; " s ".")
        }
        if (ok(r[k])) {
            s = ""
            s = join(s, vs_r("stock direct", r[k], r["stock-direct psend"]))
            s = join(s, vs_r("stock default", r[k], r["stock-default psend"]))
            s = join(s, vs_r("Open MPI", r[k], r["mpi psend"]))
            s = join(s, vs_r("raw TCP", r[k], r["raw-tcp psend"]))
            line = line sprintf(" Largest pvm_psend streaming bandwidth, %s %.0f MB/s", us_cfg, r[k])
            line = line (s == "" ? "." : "; " s ".")
        }
        # UCX itself (ucp active messages, bench/mpbench/ucx.c), as ours / ucx
        u = "ucx psend"
        if (ok(t0[k]) && ok(t0[u]) || ok(r[k]) && ok(r[u])) {
            line = line sprintf(" Against UCX itself (ucx), %s/ucx:", us_cfg)
            if (ok(t0[k]) && ok(t0[u]))
                line = line sprintf(" %s-byte latency %s us vs %s us, %s (above 1x ours is slower)%s", sz[k], us(t0[k]),
                                    us(t0[u]), x(t0[k] / t0[u]), ok(r[k]) && ok(r[u]) ? ";" : ".")
            if (ok(r[k]) && ok(r[u]))
                line = line sprintf(" largest bandwidth %.0f vs %.0f MB/s, %s (above 1x ours is faster).", r[k], r[u], x(r[k] / r[u]))
        }
        k = us_cfg " pack"
        if (ok(r[k]) && ok(r["stock-direct pack"]))
            line = line sprintf(" Packed messages: %.0f MB/s against stock direct %.0f (%s).", r[k], r["stock-direct pack"], x(r[k] / r["stock-direct pack"]))
    }
    line = line " Failed configurations: " (failed == "" ? "none." : failed "; the figures use every run that finished.")
    print line
}' "$1"
