#!/usr/bin/env python3
"""Write the seed corpus of the AM and control fuzz targets.

    python3 tests/fuzz/seeds.py [CORPUS_DIR]   (default: tests/fuzz/corpus)

The seeds are checked in; run this again when the AM header
(libam/am_int.h), the shm transport's records and hello (libam/tr_shm.h),
the fuzz targets' input layout (tests/fuzz/fuzz_am_*.c, fuzz_ctrl.c) or
pvmam's control messages (pvmam/link.c, pvmam/init.c) change.  Every AM carries the fuzz interfaces' secret (FZ_KEY,
tests/fuzz/fuzz_am.h), so the seeds reach the protocol and the handlers;
a few carry a wrong one or none.
"""
import os
import struct
import sys

MAGIC = 0x414D3033           # "AM03", libam/am_int.h
KEY = 0x0123456789ABCDEF     # FZ_KEY, tests/fuzz/fuzz_am.h
WRONG = 0x0123456789ABCDEE
REQ, REP, HELLO, BLANK = 1, 2, 3, 0xFFFF


def am(kind, payload=b"", seq=0, inst=0, handler=0, pb=None, key=KEY, host=False):
    """An AM: network order with the magic, or (host: shm) struct amx_hdr as
    it is in memory on this little-endian host (libam/am_int.h, host_order)."""
    pb_seq, pb_word = 0, 0
    if pb is not None:
        pb_word = 0x100 | pb[0]
        pb_seq = pb[1]
    if host:
        return struct.pack("<IIBBHBBxxIBBxxQ", len(payload), seq, kind, inst, handler,
                           pb is not None, pb_word & 0xFF, pb_seq, 0, 0, key) + payload
    hdr = struct.pack(">IIIIIIQ", len(payload), seq, kind << 24 | inst << 16 | handler,
                      MAGIC, pb_seq, pb_word, key)
    return hdr + payload


def udp_input(*datagrams):
    """fuzz_am_udp: 2-byte length (top bit: from a stranger's port) + datagram."""
    out = b""
    for d, stranger in datagrams:
        out += struct.pack(">H", len(d) | (0x8000 if stranger else 0)) + d
    return out


def xdr_int(*v):
    return b"".join(struct.pack(">i", x) for x in v)


def xdr_counted(s):
    """{int n, n bytes padded to 4}: pvmi_put_counted (pvm3/core/xbuf.c)."""
    b = s.encode()
    return xdr_int(len(b)) + b + b"\0" * ((4 - len(b) % 4) % 4)


TAGS = ["REQ", "CONN", "SWITCH", "HELLO", "TABLE", "DONE", "GO", "READY", "NAK", "EXIT"]
SRC = {0x40001: 0, 0x40009: 1, 0x40005: 2, 0x40007: 3}


def ctrl(tag, src, body=b"", flags=0):
    """fuzz_ctrl: u8 what (tag index | flags), u8 src, u16 len, body."""
    return struct.pack(">BBH", TAGS.index(tag) | flags, SRC[src], len(body)) + body


# fuzz_am_shm (tests/fuzz/fuzz_am_shm.c), libam/tr_shm.h; native (little endian) words
RING = 64 << 10               # RING_MIN: the ring the target offers
DATA_OFF = 1152               # sizeof(struct seg), whole lines: ring 0 follows in its page
SEG_SIZE = DATA_OFF + 2 * RING
SEG_MAGIC, SEG_VERSION = 0x414D5348, 7
REC_AM, REC_BIG, REC_CHUNK, REC_PAD, REC_SHORT = 1, 2, 3, 4, 5
BIG_CMA, BIG_STREAM = 1, 2
SHM_SRC = 0x2A0000000000         # the target's source buffer for BIG_CMA spans
PLACED = 1                    # the target's handler with a placer (head 16 bytes)


def rec_len(size):
    """REC_LEN (libam/tr_shm.h): the 24-byte stamped header and the body, whole lines."""
    return (24 + size + 63) & ~63


class Ring:
    """A peer's record stream as fuzz_am_shm takes it: flags, start, pieces."""

    def __init__(self, flags=0, start=0, hello=b""):
        self.pos = rec_len(start * 8 % RING) % RING
        self.out = struct.pack(">BH", flags, start) + hello

    def piece(self, raw, poll=True):
        """A record without its stamp (kind, size, ack, body): the target stamps it."""
        self.out += struct.pack(">H", len(raw) | (0 if poll else 0x8000)) + raw
        self.pos += rec_len(max(len(raw) - 16, 0))
        return self

    def rec(self, kind, body, poll=True, ack=0):
        """As libam's producer writes it: a PAD first where it would not fit.
        ack: how far we have read the target's ring (0: nothing yet)."""
        need = rec_len(len(body))
        left = RING - self.pos % RING
        if left < need:
            self.piece(struct.pack("<IIQ", REC_PAD, left - 24, 0), False)
        return self.piece(struct.pack("<IIQ", kind, len(body), ack) + body, poll)


def short(kind, payload=b"", seq=0, inst=0, handler=0, pb=None, key=KEY, acknow=False):
    """A REC_SHORT body (libam/tr_shm.h, SHORT_*): the AM header's fields in 22
    bytes, then the payload (at most 18 bytes in a well-formed one)."""
    flags = (0x2 if acknow else 0) | (0x10 if pb is not None else 0) | (0x20 if kind == REP else 0)
    pb_inst, pb_seq = pb if pb is not None else (0, 0)
    return struct.pack("<QIIHBBBB", key, seq, pb_seq, handler, inst, pb_inst, 0, flags) + payload


def big(h, mode, head, seq=0, spans=()):
    """A REC_BIG body: the AM header (h, payload excluded), struct big, spans."""
    b = struct.pack("<IIQII", mode, len(head), seq, len(spans), 0) + head.ljust(64, b"\0")
    return h + b + b"".join(struct.pack("<QQ", a, n) for a, n in spans)


def shm_hello(key=KEY, addr=b"", ring=RING, seg=SEG_SIZE, magic=SEG_MAGIC):
    return (struct.pack("<IIQ", magic, SEG_VERSION, key) + addr.ljust(64, b"\0") +
            struct.pack("<QQQQ", seg, ring, 0, 0))


def shm_seeds(seeds):
    req = am(REQ, b"\x01abcd", host=True)
    req2 = am(REQ, b"\x00xy", seq=1, inst=1, host=True)
    seeds["fuzz_am_shm/req"] = Ring().rec(REC_AM, req).out
    seeds["fuzz_am_shm/short_req"] = Ring().rec(REC_SHORT, short(REQ, b"\x01abcd")).out
    seeds["fuzz_am_shm/short_mixed"] = (Ring().rec(REC_SHORT, short(REQ, b"\x01ab"), False)
                                        .rec(REC_AM, req2.replace(b"\x00xy", b"\x00xy"))
                                        .rec(REC_SHORT, short(REQ, b"", seq=2, inst=2, pb=(0, 0)))
                                        .rec(REC_SHORT, short(REP, handler=BLANK)).out)
    seeds["fuzz_am_shm/short_wrong_key"] = (Ring().rec(REC_SHORT, short(REQ, b"\x01abcd", key=WRONG))
                                            .rec(REC_SHORT, short(REQ, b"\x01abcd")).out)
    seeds["fuzz_am_shm/short_too_long"] = Ring().rec(REC_SHORT, short(REQ, b"\x01" * 19)).out
    seeds["fuzz_am_shm/two_one_poll"] = Ring().rec(REC_AM, req, False).rec(REC_AM, req2).out
    seeds["fuzz_am_shm/reply_blank"] = Ring().rec(REC_AM, am(REP, handler=BLANK, host=True)).out
    seeds["fuzz_am_shm/wrong_key"] = Ring().rec(REC_AM, am(REQ, b"\x01abcd", key=WRONG, host=True)).rec(REC_AM, req).out
    w = Ring(start=8190)
    for i in range(6):
        w.rec(REC_AM, am(REQ, b"\x01wrap", seq=i, inst=i % 8, host=True))
    seeds["fuzz_am_shm/wrap"] = w.out
    seeds["fuzz_am_shm/straddle"] = Ring(start=8190).piece(struct.pack("<IIQ", REC_AM, len(req), 0) + req).out
    # acks: A's first reply read (A may start its ring over), and one past all it wrote
    seeds["fuzz_am_shm/ack_start_over"] = Ring().rec(REC_AM, req).rec(REC_AM, req2, ack=64).out
    seeds["fuzz_am_shm/ack_bogus"] = Ring().rec(REC_AM, req).rec(REC_AM, req2, ack=1 << 40).out
    seeds["fuzz_am_shm/pad_only"] = Ring(start=4).rec(REC_PAD, b"\0" * 64).rec(REC_AM, req).out
    n = 300
    seeds["fuzz_am_shm/big_stream"] = (Ring().rec(REC_BIG, big(hdr(REQ, n), BIG_STREAM, b"\x01" * 64))
                                       .rec(REC_CHUNK, b"c" * 100).rec(REC_CHUNK, b"d" * (n - 64 - 100)).out)
    n = 16 + 16384 + 100
    r = Ring().rec(REC_BIG, big(hdr(REQ, n, handler=PLACED), BIG_STREAM, b"p" * 64))
    rest = n - 64
    while rest:
        k = min(rest, 8000)
        r.rec(REC_CHUNK, b"q" * k)
        rest -= k
    seeds["fuzz_am_shm/big_stream_placed"] = r.out
    n = 20000
    spans = ((SHM_SRC, 10000), (SHM_SRC + 10000, n - 64 - 10000))
    seeds["fuzz_am_shm/big_cma"] = Ring(flags=1).rec(REC_BIG, big(hdr(REQ, n), BIG_CMA, b"\x01" * 64, 1, spans)).out
    seeds["fuzz_am_shm/big_cma_placed"] = Ring(flags=1).rec(
        REC_BIG, big(hdr(REQ, n, handler=PLACED), BIG_CMA, b"h" * 64, 1, spans)).rec(REC_AM, req2).out
    seeds["fuzz_am_shm/big_cma_refused"] = Ring(flags=0).rec(REC_BIG, big(hdr(REQ, n), BIG_CMA, b"\x01" * 64, 1, spans)).out
    seeds["fuzz_am_shm/big_cma_unmapped"] = Ring(flags=1).rec(REC_BIG, big(hdr(REQ, n), BIG_CMA, b"\x01" * 64, 1,
                                                                           ((4096, n - 64),))).out
    seeds["fuzz_am_shm/peer_gone"] = Ring(flags=8).rec(REC_AM, req, False).rec(REC_AM, req2, False).out
    seeds["fuzz_am_shm/unsealed_shrunk"] = Ring(flags=16).rec(REC_AM, req).out
    seeds["fuzz_am_shm/hello"] = Ring(flags=2, hello=shm_hello()).rec(REC_AM, req).out
    seeds["fuzz_am_shm/hello_no_key"] = Ring(flags=2, hello=shm_hello(key=0)).rec(REC_AM, req).out
    seeds["fuzz_am_shm/hello_wrong_key"] = Ring(flags=2, hello=shm_hello(key=WRONG)).rec(REC_AM, req).out
    seeds["fuzz_am_shm/hello_bad_ring"] = Ring(flags=2, hello=shm_hello(ring=RING // 2)).rec(REC_AM, req).out
    seeds["fuzz_am_shm/hello_bad_magic"] = Ring(flags=2, hello=shm_hello(magic=0)).rec(REC_AM, req).out
    seeds["fuzz_am_shm/hello_other_name"] = Ring(flags=6, hello=shm_hello(addr=b"shm:elsewhere:1:1")).rec(REC_AM, req).out


def hdr(kind, length, handler=0, seq=0, inst=0):
    """An shm AM header announcing length payload bytes (which follow elsewhere)."""
    return am(kind, b"\0" * length, seq=seq, inst=inst, handler=handler, host=True)[:32]


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus")
    seeds = {}
    req = am(REQ, b"\x01abcd")
    seeds["fuzz_am_udp/req"] = udp_input((req, False))
    seeds["fuzz_am_udp/early"] = udp_input((am(REQ, b"\x00xy", seq=1, inst=1), False), (req, False))
    seeds["fuzz_am_udp/req2_dup"] = udp_input((req, False), (am(REQ, b"\x00xy", seq=1, inst=1), False),
                                              (req, False))
    seeds["fuzz_am_udp/piggyback"] = udp_input((am(REQ, b"\x01z", pb=(0, 0)), False))
    seeds["fuzz_am_udp/reply_blank"] = udp_input((am(REP, handler=BLANK), False))
    seeds["fuzz_am_udp/stranger"] = udp_input((req, True))
    seeds["fuzz_am_udp/wrong_key"] = udp_input((am(REQ, b"\x01abcd", key=WRONG), False), (req, False))
    seeds["fuzz_am_udp/no_key"] = udp_input((am(REQ, b"\x01abcd", key=0), True), (req, False))

    name = b"tcp:7f000001:0002\0"
    seeds["fuzz_am_tcp/hello_only"] = b"\x01" + am(HELLO, name)
    seeds["fuzz_am_tcp/hello_wrong_key"] = b"\x01" + am(HELLO, name, key=WRONG) + req
    seeds["fuzz_am_tcp/reply"] = b"\x00" + am(REP, handler=BLANK) + req
    seeds["fuzz_am_tcp/split_big"] = b"\x00" + am(REQ, b"\x01" * 40)
    seeds["fuzz_am_tcp/two_reqs"] = b"\x00" + req + am(REQ, b"\x00xy", seq=1, inst=1)
    seeds["fuzz_am_tcp/wrong_key"] = b"\x00" + am(REQ, b"\x01abcd", key=WRONG) + req

    addr = "udp:7f000001:9999#0123456789abcdef"
    small, big, big2 = 0x40001, 0x40009, 0x40007
    seeds["fuzz_ctrl/conn_ready"] = (ctrl("CONN", small, xdr_int(small) + xdr_counted(addr)) +
                                     ctrl("READY", small))
    seeds["fuzz_ctrl/conn_from_larger"] = ctrl("CONN", big, xdr_int(big) + xdr_counted(addr))
    seeds["fuzz_ctrl/req_switch_nak"] = (ctrl("REQ", big, xdr_int(big) + xdr_counted(addr)) +
                                         ctrl("SWITCH", big) + ctrl("NAK", big))
    seeds["fuzz_ctrl/early_conn"] = (ctrl("CONN", small, xdr_int(small) + xdr_counted(addr), 0x10) +
                                     ctrl("READY", small, b"", 0x20))
    seeds["fuzz_ctrl/refused"] = ctrl("CONN", small, xdr_int(small) + xdr_counted(addr), 0x40)
    seeds["fuzz_ctrl/exit"] = (ctrl("CONN", small, xdr_int(small) + xdr_counted(addr)) +
                               ctrl("EXIT", 0x40005, xdr_int(small)))
    seeds["fuzz_ctrl/init"] = (ctrl("HELLO", big, xdr_int(big, 3) + xdr_counted(addr)) +
                               ctrl("TABLE", 0x40001, xdr_int(3, small, 0x40005, big2) +
                                    xdr_counted(addr) + xdr_counted(addr) + xdr_counted("")) +
                               ctrl("DONE", big) + ctrl("GO", small))
    seeds["fuzz_ctrl/bad_addr"] = ctrl("CONN", small, xdr_int(small) + xdr_counted("udp:7f000001:9999"))
    shm_seeds(seeds)
    for path, data in sorted(seeds.items()):
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
