#!/usr/bin/env python3
# Circles of calls between pvm3's files, from the built objects' symbols
# (nm): file A -> file B when A uses a symbol B defines; prints every group
# of files that reach each other (strongly connected components).
# usage: scripts/circles.py DIR [-f] [-v] [--only=conn,wire,...]
#   DIR   searched for libpvm3am_la-*.o (pvm3 after a build)
#   -f    functions only (without it, pvm3's state `pvmi` in conn.c ties
#         nearly every file to conn)
#   -v    each file's edges inside its circle
#   --only  just these files (say, the core's), the rest left out
import subprocess, sys, glob, os
KINDS = 'T' if '-f' in sys.argv else 'TDBRCGS'  # -f: functions only
objs = sorted(glob.glob(sys.argv[1] + '/**/libpvm3am_la-*.o', recursive=True))
defs, undef = {}, {}
for o in objs:
    name = os.path.basename(o)[len('libpvm3am_la-'):-2]
    out = subprocess.run(['nm', o], capture_output=True, text=True).stdout
    d, u = set(), set()
    for line in out.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in KINDS: d.add(p[2])
        elif len(p) == 2 and p[0] == 'U': u.add(p[1])
    defs[name], undef[name] = d, u
owner = {s: n for n, d in defs.items() for s in d}
only = next((a.split('=',1)[1].split(',') for a in sys.argv if a.startswith('--only=')), None)
if only:
    defs = {n: d for n, d in defs.items() if n in only}
g = {n: sorted({owner[s] for s in undef[n] if s in owner and owner[s] != n and owner[s] in defs}) for n in defs}
# Tarjan
idx, low, st, on, res, c = {}, {}, [], set(), [], [0]
sys.setrecursionlimit(10000)
def sc(v):
    idx[v] = low[v] = c[0]; c[0] += 1; st.append(v); on.add(v)
    for w in g[v]:
        if w not in idx: sc(w); low[v] = min(low[v], low[w])
        elif w in on: low[v] = min(low[v], idx[w])
    if low[v] == idx[v]:
        comp = []
        while True:
            w = st.pop(); on.discard(w); comp.append(w)
            if w == v: break
        if len(comp) > 1: res.append(sorted(comp))
for v in g:
    if v not in idx: sc(v)
for comp in res:
    print(len(comp), 'in a circle:', ' '.join(comp))
    if '-v' in sys.argv:
        for n in comp:
            print('  ', n, '->', ' '.join(x for x in g[n] if x in comp))
