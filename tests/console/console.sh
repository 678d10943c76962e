#!/bin/sh
# console.sh - pvmam, the console over libpvm3am, against a
# private real pvmd, each part with its own VM:
#  1. one command script through the stock pvm console and through pvmam:
#     the transcripts must be the same once tids, host names and the
#     known error-text difference are normalised; the trace file of its
#     spawn -@file has the same event kinds and counts; help spawn and help
#     trace list the same options as stock's (our extra -! aside);
#  2. transport udp, shm and default (shm,tcp), a libpvm3am job exchanging
#     data, amstat: AM bytes > 0 and daemon-route bytes near 0, each peer's
#     link over the expected transport (VIA); after transport off the reverse;
#     ps marks the libpvm3am tasks;
#  3. bad input: each is one clear line and the console goes on; a task
#     that cannot answer amstat shows as such; end of input leaves the
#     pvmd running.
set -u
. "$top_srcdir/tests/lib/pvmvm.sh"
. "$top_srcdir/tests/console/lib.sh"
CONSOLE=$top_builddir/console/pvmam
AMJOB=$top_builddir/tests/console/amjob
STOCK=$(command -v pvm || echo /usr/bin/pvm)
[ -x "$STOCK" ] || { echo "no stock pvm console"; exit 77; }
[ -x /usr/bin/hello.pvm ] || { echo "no pvm-examples"; exit 77; }
command -v stdbuf >/dev/null || { echo "no stdbuf"; exit 77; }
cons_test pvmcons
# /bin/sleep under a name of our own, so its processes can be counted
cp /bin/sleep "$W/sleeper"

# wait (at most 10 s) until N processes run exactly COMMAND LINE
nproc_is() {
    i=0
    while [ "$(pgrep -fx "$2" | wc -l)" != "$1" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
}
# the output since marker @@N (exclusive) up to the end
since() { sed -n "/^@@$1\$/,\$p" "$CONS_OUT" | sed 1d; }

# ---- 1. the same script through both consoles -------------------------
script() {  # out console...
    out=$1; shift
    vm_start || exit 99
    cp /usr/bin/hello_other "$VM_BIN/hello_other"
    cons_start "$out" "$@" || exit 99
    { cons_cmd "conf" &&
      cons_cmd "ps -a" &&
      cons_cmd "add bogus.invalid" &&
      cons_cmd "delete bogus.invalid" &&
      cons_cmd "spawn -> /usr/bin/hello.pvm" &&
      cons_wait "^\[1\] finished" &&
      cons_cmd "spawn --host=127.0.0.1 -> /usr/bin/hello.pvm" &&
      cons_cmd "spawn --host=127.0.0.1:/tmp -> /usr/bin/hello.pvm" &&
      cons_cmd "kill t7ffff" &&
      rm -f "$VM_BIN/hello_other" &&   # a traced job of one task, which ends
      cons_cmd "spawn -@$W/job.trc /usr/bin/hello.pvm" &&
      cons_wait "\[4\] finished" &&   # jobs 1-3 are the hello.pvm above
      cons_cmd "spawn -2 $W/sleeper 67"; } || fail "$out: script stopped"
    tid=$(sed -n 's/^\(t[0-9a-f]*\)$/\1/p' "$out" | tail -1)
    cons_cmd "ps -a"
    cons_cmd "kill $tid"
    nproc_is 1 "$W/sleeper 67"
    cons_cmd "ps -a"
    cons_cmd "version"
    printf 'halt\n' >&3
    cons_stop || fail "$out: console did not leave after halt"
    i=0
    while kill -0 "$VM_PID" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    kill -0 "$VM_PID" 2>/dev/null && fail "$out: halt left the pvmd running"
    vm_stop
}
host=$(uname -n)
norm() {
    sed -e 's/\bt\{0,1\}4[0-9a-f]\{4\}\b/TID/g' -e "s/\b$host\b/HOST/g" -e "s|$W|W|g" \
        -e 's/Master Host IP Address is Loopback! (See pvm3\/Readme)/ERR_LOOPBACK/' \
        -e 's/Master host uses loopback address/ERR_LOOPBACK/' \
        -e '/^Console: exit handler called$/d' -e '/^pvmd already running\.$/d' \
        -e '/^$/d' "$1"
}
script "$W/stock.out" "$STOCK"
mv "$W/job.trc" "$W/stock.trc"
script "$W/am.out" "$CONSOLE"
mv "$W/job.trc" "$W/am.trc"
# the trace files: records per event kind (times and tids differ)
for c in stock am; do
    trc_kinds < "$W/$c.trc" > "$W/$c.trck"
done
if [ "$(wc -l < "$W/stock.trck")" -lt 5 ]; then
    fail "the stock console's trace file has only $(wc -l < "$W/stock.trck") kinds"
elif diff "$W/stock.trck" "$W/am.trck" > "$W/trcdiff"; then
    echo "same trace file events as the stock console ($(wc -l < "$W/am.trck") kinds)"
else
    fail "spawn -@file: trace files differ (stock <, pvmam >):"; cat "$W/trcdiff"
fi
# Job output lines of different tasks come in any order: compared as a
# sorted list, apart from the rest of the transcript.
split_jobs() {  # in -> body, sorted job lines
    norm "$1" | sed 's/^pvm> \(\[[0-9]*:\)/pvm> \
\1/' > "$1.n"
    grep -v '^\[[0-9]*:TID\] ' "$1.n" > "$2"
    grep '^\[[0-9]*:TID\] ' "$1.n" | sort >> "$2"
}
split_jobs "$W/stock.out" "$W/stock.norm"
split_jobs "$W/am.out" "$W/am.norm"
if diff "$W/stock.norm" "$W/am.norm" > "$W/diff"; then
    echo "same transcript as the stock console ($(wc -l < "$W/am.norm") lines)"
else
    fail "transcripts differ (stock <, pvmam >):"; cat "$W/diff"
fi
[ "$(grep -c 'hello, world' "$W/am.out")" = 1 ] || fail "hello's output did not reach the console"

# help spawn and help trace: the same options, one for one
helps() {  # out console
    vm_start || exit 99
    cons_start "$1" "$2" || exit 99
    cons_cmd "help spawn" && cons_cmd "help trace" || fail "$1: help stopped"
    printf 'halt\n' >&3
    cons_stop
    vm_stop
}
helps "$W/stock.help" "$STOCK"
helps "$W/am.help" "$CONSOLE"
for c in stock am; do
    # spawn: the option words; trace: its syntax lines, without stock's remarks
    sed -n 's/^\(Options:\)\{0,1\}  *\(-[^ ]*\) .*/\2/p' "$W/$c.help" | grep -vx -- '-!' > "$W/$c.sopt"
    sed -n 's/^\(Syntax:\)\{0,1\}  *\(trace.*\)/\2/p' "$W/$c.help" |
        sed 's/ *(.*)$//' > "$W/$c.topt"
done
[ "$(wc -l < "$W/stock.sopt")" -ge 14 ] && [ "$(wc -l < "$W/stock.topt")" -ge 10 ] ||
    fail "stock's help shows too few options"
diff "$W/stock.sopt" "$W/am.sopt" || fail "help spawn: options differ from stock's (<)"
diff "$W/stock.topt" "$W/am.topt" || fail "help trace: syntax differs from stock's (<)"
echo "help spawn: $(wc -l < "$W/am.sopt") options, help trace: $(wc -l < "$W/am.topt") forms, as stock"

# ---- 2. amstat: AM against the daemon route ---------------------------
unset PVMAM_TRANSPORT   # "transport default" must mean the library's default
vm_start || exit 99
cp "$AMJOB" "$VM_BIN/amjob"
cons_start "$W/amstat.out" "$CONSOLE" || exit 99
NMSG=200 SIZE=4096
# check_amstat MARK WANT [VIA]: every libpvm3am task's total row after MARK
# must show AM bytes > 0 and pvmd bytes near 0 (WANT=am), or the reverse;
# with VIA, each task's one peer row must say route am, transport VIA
check_amstat() {
    since "$1" > "$W/part"
    n=$(grep -c 'libpvm3am, transport' "$W/part")
    [ "$n" = 2 ] || { fail "amstat ($2): $n libpvm3am tasks answered, want 2"; cat "$W/part"; return; }
    # total rows: total - VIA AMMSGS AMBYTES PVMDMSGS PVMDBYTES ...
    awk -v want="$2" -v min=$((NMSG * SIZE)) '
        $1 == "total" { n++
            am = $5; pd = $7
            if (want == "am" && !(am >= min && pd * 20 < am)) bad++
            if (want == "pvmd" && !(am == 0 && pd >= min)) bad++ }
        END { exit (n == 2 && !bad) ? 0 : 1 }' "$W/part" ||
        { fail "amstat ($2): wrong figures"; cat "$W/part"; return; }
    if [ -n "${3:-}" ]; then
        # peer rows: tNNN ROUTE VIA ...
        awk -v via="$3" '$1 ~ /^t[0-9a-f]+$/ && NF == 11 { n++; if ($2 != "am" || $3 != via) bad++ }
            END { exit (n == 2 && !bad) ? 0 : 1 }' "$W/part" ||
            { fail "amstat ($2): peer links not over $3"; cat "$W/part"; return; }
    fi
    echo "amstat over $2${3:+ via $3}: ok"; grep -E 'total|transport|^ *t[0-9a-f]' "$W/part"
}
cons_cmd "transport udp"
cons_cmd "spawn -> amjob master 1 $NMSG $SIZE"
cons_wait "done $NMSG x $SIZE" 60 || fail "the udp job did not finish its exchange"
cons_cmd "ps -a"
[ "$(since $((CONS_N - 1)) | grep -c 'amjob.*$' )" -ge 2 ] &&
    [ "$(since $((CONS_N - 1)) | grep 'amjob' | grep -vc ',am ')" = 0 ] ||
    { fail "ps does not mark both libpvm3am tasks"; since $((CONS_N - 1)); }
mark=$CONS_N
cons_cmd "amstat"
check_amstat "$mark" am udp
cons_cmd "reset"
nproc_is 0 "$VM_BIN/amjob slave"
cons_cmd "transport shm"
cons_cmd "spawn -> amjob master 1 $NMSG $SIZE"
cons_wait "\[2:t[0-9a-f]*\] done $NMSG" 60 || fail "the shm job did not finish its exchange"
mark=$CONS_N
cons_cmd "amstat"
check_amstat "$mark" am shm
cons_cmd "reset"
nproc_is 0 "$VM_BIN/amjob slave"
cons_cmd "transport default"   # shm,tcp: every task is on this host, so shm
cons_cmd "spawn -> amjob master 1 $NMSG $SIZE"
cons_wait "\[3:t[0-9a-f]*\] done $NMSG" 60 || fail "the default job did not finish its exchange"
mark=$CONS_N
cons_cmd "amstat"
check_amstat "$mark" am shm
grep -c 'libpvm3am, transport shm,tcp' "$W/part" | grep -qx 2 ||
    { fail "amstat: the default job does not report shm,tcp"; cat "$W/part"; }
cons_cmd "reset"
nproc_is 0 "$VM_BIN/amjob slave"
cons_cmd "transport off"
cons_cmd "spawn -> amjob master 1 $NMSG $SIZE"
cons_wait "\[4:t[0-9a-f]*\] done $NMSG" 60 || fail "the off job did not finish its exchange"
mark=$CONS_N
cons_cmd "amstat"
check_amstat "$mark" pvmd
cons_cmd "reset"
nproc_is 0 "$VM_BIN/amjob slave"

# ---- 3. bad input -----------------------------------------------------
# expect "COMMAND" "PATTERN": the command's output has a line matching it
expect() {
    mark=$CONS_N
    cons_cmd "$1" || { fail "console stopped at: $1"; return; }
    since "$mark" | grep -v '^@@' | grep -q -- "$2" ||
        { fail "$1: want a line like '$2', got:"; since "$mark"; }
}
expect "nosuchcommand" "^nosuchcommand: not found$"
expect "kill" "^kill: wrong #args$"
expect "sig 9" "^sig: wrong #args$"
expect "spawn" "^spawn: wrong #args$"
expect "pstat" "^pstat: wrong #args$"
expect "kill zz" "^kill: zz: not a task id$"
expect "sig x 40001" "^sig: x: not a signal number$"
expect "pstat 7ffff" "No such task"
expect "sig 9 7ffff" "^sig: t7ffff: No such task$"
expect "amstat 7ffff" "^amstat: t7ffff: No such task$"
expect "amstat q" "^amstat: q: not a task id$"
expect "amstat -w x" "milliseconds"
expect "transport bogus" "^transport: bogus: not a transport"
expect "transport shm,shm" "^transport: shm,shm: not a transport"
expect "transport shm,tcp,udp" "^transport: shm,tcp,udp: not a transport"
expect "transport shm," "^transport: shm,: not a transport"
expect "transport shm,udp" "^PVMAM_TRANSPORT=shm,udp for spawned tasks$"
expect "transport default" "use shm,tcp$"
expect "setopt PvmNoSuch 1" 'Unknown'
expect "setopt PvmRoute x" "not a number"
expect "echo 'open" "^unmatched '$"
expect "spawn -> /nonexistent/prog" "No such file"
expect "spawn -0 /bin/true" "not a task count"
expect "put" "^put: wrong #args$"
expect "help nosuch" "no command nosuch"
expect "mstat nosuch.invalid" "No such host"
# a stock task shows as stock; a busy libpvm3am task as not answering
cons_cmd "spawn $W/sleeper 30"
cons_cmd "spawn -> amjob busy 30"
cons_wait "busy$" 20
expect "amstat -w 500" "no answer within 500 ms"
expect "amstat" "(.*sleeper) stock task: no AM"
expect "id" "^t[0-9a-f]*$"
cons_cmd "reset"
# end of input quits without halting the virtual machine
cons_stop || fail "the console did not leave at end of input"
kill -0 "$VM_PID" 2>/dev/null || fail "end of input halted the pvmd"
grep -q "^pvmd still running" "$W/amstat.out" || fail "no 'pvmd still running' at the end"
vm_stop
[ $rc = 0 ] || { echo "--- transcript"; cat "$W/amstat.out"; }
exit $rc
