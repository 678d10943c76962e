#!/bin/sh
# Real packet loss: libam over udp between two network namespaces joined by
# a veth pair, each dropping 10% of incoming UDP with nftables.  10,000
# requests must all arrive, once, in order, bit-exact, and the sender must
# have retransmitted.  Traffic stays inside the namespaces made here.
# Exits 77 (skipped) where namespaces or nftables cannot be made.
set -u
prog=$top_builddir/tests/libam/amloss
for t in ip nft; do
    command -v $t >/dev/null 2>&1 || { echo "SKIP: '$t' not installed"; exit 77; }
done
A=amlA$$ B=amlB$$ VA=amvA$$ VB=amvB$$
DIR=$(mktemp -d)
cleanup() {
    [ -n "${SPID:-}" ] && kill "$SPID" 2>/dev/null
    ip netns del "$A" 2>/dev/null
    ip netns del "$B" 2>/dev/null
    rm -rf "$DIR"
}
trap cleanup EXIT
if ! ip netns add "$A" 2>/dev/null || ! ip netns add "$B" 2>/dev/null; then
    echo "SKIP: cannot create network namespaces here"; exit 77
fi
ip link add "$VA" type veth peer name "$VB" &&
ip link set "$VA" netns "$A" && ip link set "$VB" netns "$B" &&
ip -n "$A" addr add 10.213.7.1/30 dev "$VA" && ip -n "$B" addr add 10.213.7.2/30 dev "$VB" &&
ip -n "$A" link set "$VA" up && ip -n "$B" link set "$VB" up &&
ip -n "$A" link set lo up && ip -n "$B" link set lo up ||
    { echo "SKIP: cannot set up the veth pair"; exit 77; }
for ns in "$A" "$B"; do
    printf 'table inet amloss {\n chain in {\n  type filter hook input priority 0;\n  meta l4proto udp numgen random mod 10 0 drop\n }\n}\n' |
        ip netns exec "$ns" nft -f - || { echo "SKIP: nftables not usable here"; exit 77; }
done
ip netns exec "$A" timeout 200 "$prog" server 10.213.7.1 "$DIR" 10000 > "$DIR/server.out" 2>&1 &
SPID=$!
ip netns exec "$B" timeout 200 "$prog" client 10.213.7.2 "$DIR" 10000; crc=$?
wait "$SPID"; src=$?
SPID=
cat "$DIR/server.out"
echo "nftables drop counters were active in both namespaces (10% of input UDP)"
[ $crc = 0 ] && [ $src = 0 ]
