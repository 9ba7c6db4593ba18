#!/usr/bin/env python3
"""Figures of an Accel-Sim trace computed straight from its files, independently of
chipsim's reader: thread blocks, warps, instruction lines, global and local load and
store instructions, and the L1 requests a warp-wide coalescer makes for given line
sizes (one request per distinct line the active lanes touch, per memory instruction).
Local memory is laid out as docs/trace.md says chipsim does: word w of thread t of the
grid at (w * threads + t) * 4.

    tools/trace_stats.py DIR/kernelslist.g [LINE_B ...]

The golden tests (tests/unit/test_trace_run.c) quote its output. It handles what the
shared traces use: base+stride, base+delta and list addresses, plain .traceg files.
"""
import os
import re
import sys


def width(opcode):
    for tok in opcode.split('.')[1:]:
        if tok.isdigit():
            return int(tok) // 8
        if tok[:1] in 'US' and tok[1:].isdigit():
            return int(tok[1:]) // 8
    return 4


def lanes(mask, form, vals):
    """Addresses of the lanes that carry one, in lane order."""
    active = [l for l in range(32) if mask >> l & 1]
    if form == 0:
        return [int(v, 16) for v in vals[:len(active)]]
    base = int(vals[0], 16)
    if form == 1:
        stride = int(vals[1])
        out = []
        for i, l in enumerate(range(active[0], 32) if active else []):
            if not mask >> l & 1:
                break
            out.append(base + i * stride)
        return out
    out = [base]
    for d in vals[1:len(active)]:
        out.append(out[-1] + int(d))
    return out


def dim(raw):
    return [int(x) for x in raw.split('=')[1].strip(' ()\n').split(',')]


def kernel(path, line_sizes, tot):
    lineinfo = False
    grid = block = None
    tb = warp = 0
    for raw in open(path):
        s = raw.split()
        if not s:
            continue
        if raw.startswith('-enable lineinfo'):
            lineinfo = raw.split('=')[1].strip() == '1'
        if raw.startswith('-grid dim'):
            grid = dim(raw)
        if raw.startswith('-block dim'):
            block = dim(raw)
        if s[0] == 'thread' and s[1] == 'block':
            tot['tbs'] += 1
            x, y, z = dim(raw)
            tb = x + y * grid[0] + z * grid[0] * grid[1]
        elif s[0] == 'warp':
            tot['warps'] += 1
            warp = int(s[2])
        elif re.fullmatch(r'[0-9a-f]+', s[0]) and len(s) > 4 and not raw.startswith('-'):
            if lineinfo:
                s = s[1:]
            tot['insts'] += 1
            mask = int(s[1], 16)
            nd = int(s[2])
            op = s[3 + nd]
            ns = int(s[4 + nd])
            memw = int(s[5 + nd + ns])
            base = op.split('.')[0]
            if base not in ('LDG', 'STG', 'LDL', 'STL') or not memw:
                continue
            tot[{'LDG': 'loads', 'STG': 'stores', 'LDL': 'local_loads',
                 'STL': 'local_stores'}[base]] += 1
            form = int(s[6 + nd + ns])
            addrs = lanes(mask, form, s[7 + nd + ns:])
            w = width(op)
            tpb = block[0] * block[1] * block[2]
            threads = grid[0] * grid[1] * grid[2] * tpb
            active = [l for l in range(32) if mask >> l & 1]
            for lb in line_sizes:
                lines = set()
                for lane, a in zip(active, addrs):
                    if base in ('LDL', 'STL'):
                        t = tb * tpb + warp * 32 + lane
                        for j in range(max(1, w // 4)):
                            o = (a % (1 << 24)) + 4 * j
                            p = ((o >> 2) * threads + t) * 4 + (o & 3)
                            lines.update(range(p // lb, (p + min(w, 4) - 1) // lb + 1))
                    else:
                        lines.update(range(a // lb, (a + w - 1) // lb + 1))
                tot['lines%d' % lb] += len(lines)


def main():
    lst = sys.argv[1]
    sizes = [int(x) for x in sys.argv[2:]] or [64, 128]
    tot = {'kernels': 0, 'tbs': 0, 'warps': 0, 'insts': 0, 'loads': 0, 'stores': 0,
           'local_loads': 0, 'local_stores': 0}
    for lb in sizes:
        tot['lines%d' % lb] = 0
    d = os.path.dirname(lst)
    for raw in open(lst):
        name = raw.strip()
        if name.startswith('kernel'):
            tot['kernels'] += 1
            kernel(os.path.join(d, name), sizes, tot)
    for k, v in tot.items():
        print(k, v)


main()
