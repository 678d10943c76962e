#!/usr/bin/env python3
"""Write the seed corpus of the AM and control fuzz targets.

    python3 tests/fuzz/seeds.py [CORPUS_DIR]   (default: tests/fuzz/corpus)

The seeds are checked in; run this again when the AM header
(libam/am_int.h), the fuzz targets' input layout (tests/fuzz/fuzz_am_*.c,
fuzz_ctrl.c) or pvmam's control messages (pvmam/link.c, pvmam/init.c)
change.  Every AM carries the fuzz interfaces' secret (FZ_KEY,
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


def am(kind, payload=b"", seq=0, inst=0, handler=0, pb=None, key=KEY):
    pb_seq, pb_word = 0, 0
    if pb is not None:
        pb_word = 0x100 | pb[0]
        pb_seq = pb[1]
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
    """{int n, n bytes padded to 4}: pvmi_put_counted (pvm3/xbuf.c)."""
    b = s.encode()
    return xdr_int(len(b)) + b + b"\0" * ((4 - len(b) % 4) % 4)


TAGS = ["REQ", "CONN", "SWITCH", "HELLO", "TABLE", "DONE", "GO", "READY", "NAK", "EXIT"]
SRC = {0x40001: 0, 0x40009: 1, 0x40005: 2, 0x40007: 3}


def ctrl(tag, src, body=b"", flags=0):
    """fuzz_ctrl: u8 what (tag index | flags), u8 src, u16 len, body."""
    return struct.pack(">BBH", TAGS.index(tag) | flags, SRC[src], len(body)) + body


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
    for path, data in sorted(seeds.items()):
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
