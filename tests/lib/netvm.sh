#!/bin/sh
# netvm.sh - a virtual machine of several hosts on this one machine, for one
# test.  Source it (it sources pvmvm.sh), then:
#
#   nvm_start H [pvmd args]   H namespace hosts on one bridge, the master pvmd
#                             on host 1 (VM_PID), PVM_RSH exported so that
#                             pvm_addhosts and hostfiles start real pvmds on
#                             the others.  Exits 77 where namespaces cannot be
#                             made.
#   nvm_addhosts              add hosts 2..H (the stock console's `add`)
#   nvm_on N cmd [args]       run cmd on host N (its network, host name and
#                             /etc/hosts, PVM_TMP)
#   nvm_name N                host N's name; NVM_NAMES lists them all
#   nvm_pvmd_pid N            pid of host N's pvmd (0 if none)
#   nvm_partition N on|off    drop (nftables) / pass all of host N's traffic
#   nvm_link N down|up        unplug host N's cable from the bridge / plug it
#   nvm_log N                 host N's pvmd log
# NVM_DECOY=1 before nvm_start gives every host a second interface, listed
# first and reaching no other host (10.88.0.N on a veth pair of its own), as a multi-homed
# machine may have (a bridge for containers, a VPN).
# Everything is torn down at exit, on failure too (vm_atexit).
#
# Each host is a network namespace with one veth, 10.77.0.N/24, plugged into
# a bridge that lives in a namespace of its own: nothing is added to the
# machine's own network.  A host's processes also get a private mount
# namespace in which the test's hosts file is bind-mounted on /etc/hosts, and
# a UTS namespace with the host's name: the pvmd takes its name and address
# from gethostname() as on a real host.  A mount namespace rather than
# `ip netns exec`'s /etc/netns/<ns>/hosts, because it writes nothing outside
# the test's own directory (nothing left under /etc when a run is killed).
#
# PVM_RSH is $NVM_DIR/rsh, called by the pvmd as `rsh HOST [-l USER]
# COMMAND` as it would call ssh: COMMAND runs under sh on HOST, in a fresh
# environment (HOME, PATH, PVM_ROOT, PVM_ALLOW_ROOT, LD_LIBRARY_PATH, the
# sanitizers' options and the names in NVM_RSH_ENV, as a login's rc files
# would set them; PVM_TMP is the host's own).

. "$top_srcdir/tests/lib/pvmvm.sh"

NVM_H=0
NVM_DIR=""
NVM_TAG="nv$$"
NVM_NAMES=""

nvm_name() { echo "node$1"; }
nvm_addr() { echo "10.77.0.$1"; }
nvm_ns() { echo "${NVM_TAG}h$1"; }

nvm_skip() { echo "SKIP: $*"; nvm_teardown; trap - EXIT; exit 77; }

# Make the namespaces, the bridge, the hosts file and the scripts.
nvm_make() {
    NVM_H=$1
    for t in ip unshare nft awk; do
        command -v $t >/dev/null 2>&1 || nvm_skip "'$t' not installed"
    done
    NVM_DIR=$(mktemp -d "${TMPDIR:-/tmp}/netvm.XXXXXX") || return 1
    trap 'nvm_teardown' EXIT
    trap 'nvm_teardown; exit 130' INT TERM
    sw="${NVM_TAG}sw"
    ip netns add "$sw" 2>/dev/null || nvm_skip "cannot create network namespaces here"
    ip -n "$sw" link add br0 type bridge && ip -n "$sw" link set br0 up &&
        ip -n "$sw" link set lo up || nvm_skip "cannot make a bridge"
    printf '127.0.0.1\tlocalhost\n' >"$NVM_DIR/hosts"
    n=1
    while [ $n -le "$NVM_H" ]; do
        ns=$(nvm_ns $n)
        ip netns add "$ns" || nvm_skip "cannot create network namespace $ns"
        if [ -n "${NVM_DECOY:-}" ]; then   # listed before eth0, reaching nobody
            ip -n "$ns" link add decoy0 type veth peer name decoy1 &&
                ip -n "$ns" addr add "10.88.0.$n/24" dev decoy0 &&
                ip -n "$ns" link set decoy0 up && ip -n "$ns" link set decoy1 up ||
                nvm_skip "cannot make a decoy interface"
        fi
        ip -n "$sw" link add "p$n" type veth peer name eth0 netns "$ns" &&
            ip -n "$sw" link set "p$n" master br0 && ip -n "$sw" link set "p$n" up &&
            ip -n "$ns" addr add "$(nvm_addr $n)/24" dev eth0 &&
            ip -n "$ns" link set eth0 up && ip -n "$ns" link set lo up ||
            nvm_skip "cannot set up host $n's veth"
        printf '%s\t%s\n' "$(nvm_addr $n)" "$(nvm_name $n)" >>"$NVM_DIR/hosts"
        mkdir -p "$NVM_DIR/h$n"
        NVM_NAMES="$NVM_NAMES $(nvm_name $n)"
        n=$((n + 1))
    done
    NVM_NAMES=${NVM_NAMES# }
    nvm_write_scripts
    nvm_on "$NVM_H" true 2>"$NVM_DIR/probe.err" ||
        nvm_skip "cannot make mount/UTS namespaces: $(cat "$NVM_DIR/probe.err")"
}

# Run "$@" on host N.  A script rather than a function, so that it can be
# VM_WRAP: ip netns exec, unshare and sh all exec, so its pid is the
# command's.
nvm_on() { "$NVM_DIR/on" "$@"; }

nvm_write_scripts() {
    {
        echo '#!/bin/sh'
        echo "# on N CMD...: run CMD on host N of the netvm VM in $NVM_DIR"
        echo "dir=$NVM_DIR tag=$NVM_TAG"
        cat <<'EOF'
n=$1; shift
# host 1's PVM_TMP is pvmvm.sh's VM_DIR, exported by vm_start
[ "$n" = 1 ] && [ -n "${PVM_TMP:-}" ] || PVM_TMP=$dir/h$n
export PVM_TMP
exec ip netns exec "${tag}h$n" unshare --mount --uts --propagation private \
    sh -c 'mount --bind "$0" /etc/hosts && hostname "$1" && shift && exec "$@"' \
    "$dir/hosts" "node$n" "$@"
EOF
    } >"$NVM_DIR/on"
    {
        echo '#!/bin/sh'
        echo "# PVM_RSH of the netvm VM in $NVM_DIR: rsh HOST [-l USER] COMMAND,"
        echo '# run as ssh would: by sh, on HOST, in a fresh environment.'
        echo "dir=$NVM_DIR"
        cat <<'EOF'
host=$1; shift
[ "$1" = -l ] && shift 2
n=$(awk -v h="$host" '$1 == h || $2 == h { sub("node", "", $2); print $2 }' "$dir/hosts")
case $n in
''|*[!0-9]*) echo "netvm rsh: $host: unknown host" >&2; exit 255 ;;
esac
cmd=$*
set -- PVM_TMP="$dir/h$n" "$dir/on" "$n" sh -c "$cmd"
for v in HOME PATH PVM_ROOT PVM_ALLOW_ROOT LD_LIBRARY_PATH ASAN_OPTIONS UBSAN_OPTIONS \
         LSAN_OPTIONS ${NVM_RSH_ENV:-}; do
    eval "isset=\${$v+y} val=\${$v-}"
    [ "$isset" = y ] && set -- "$v=$val" "$@"
done
exec env -i "$@"
EOF
    } >"$NVM_DIR/rsh"
    chmod +x "$NVM_DIR/on" "$NVM_DIR/rsh"
    PVM_RSH=$NVM_DIR/rsh; export PVM_RSH
}

# Build H hosts and start the master pvmd on host 1.
nvm_start() {
    nvm_make "$1" || return 1
    shift
    VM_WRAP="$NVM_DIR/on 1"
    vm_start "$@" || return 1
    VM_WRAP=""
    trap 'vm_atexit' EXIT
    trap 'vm_atexit; exit 130' INT TERM
}

# Add hosts 2..H with the stock console (pvm_addhosts in the master pvmd);
# 0 when every host is in the VM's configuration.
nvm_addhosts() {
    _n=2 _add="add"
    while [ $_n -le "$NVM_H" ]; do
        _add="$_add $(nvm_name $_n)"
        _n=$((_n + 1))
    done
    printf '%s\nconf\nquit\n' "$_add" | nvm_on 1 timeout 60 pvm >"$NVM_DIR/add.out" 2>&1
    _n=1
    while [ $_n -le "$NVM_H" ]; do
        if [ "$(nvm_pvmd_pid $_n)" = 0 ]; then
            echo "netvm: host $_n has no pvmd; the console said:" >&2
            cat "$NVM_DIR/add.out" >&2
            return 1
        fi
        _n=$((_n + 1))
    done
}

# Pid of host N's pvmd (0 if none): the pvmd process in its namespace.
nvm_pvmd_pid() {
    for _p in $(ip netns pids "$(nvm_ns "$1")" 2>/dev/null); do
        [ "$(cat /proc/"$_p"/comm 2>/dev/null)" = pvmd ] && { echo "$_p"; return; }
    done
    echo 0
}

nvm_partition() {
    if [ "$2" = on ]; then
        printf 'table inet netvm {\n chain in {\n  type filter hook input priority 0;\n  iif != lo drop\n }\n chain out {\n  type filter hook output priority 0;\n  oif != lo drop\n }\n}\n' |
            ip netns exec "$(nvm_ns "$1")" nft -f -
    else
        ip netns exec "$(nvm_ns "$1")" nft delete table inet netvm
    fi
}

nvm_link() { ip -n "${NVM_TAG}sw" link set "p$1" "$2"; }

nvm_log() {
    if [ "$1" = 1 ]; then vm_log; else cat "$NVM_DIR/h$1/pvml.$(id -u)" 2>/dev/null; fi
}

# Every process in our namespaces is one this test started.
nvm_teardown() {
    [ -n "$NVM_DIR" ] || return 0
    _n=1
    while [ $_n -le "$NVM_H" ]; do
        for _p in $(ip netns pids "$(nvm_ns $_n)" 2>/dev/null); do
            kill -KILL "$_p" 2>/dev/null
        done
        _n=$((_n + 1))
    done
    _n=1
    while [ $_n -le "$NVM_H" ]; do
        ip netns del "$(nvm_ns $_n)" 2>/dev/null
        _n=$((_n + 1))
    done
    ip netns del "${NVM_TAG}sw" 2>/dev/null
    rm -rf "$NVM_DIR"
    NVM_DIR=""
}

vm_atexit() { vm_stop; vm_cleanup; nvm_teardown; }
