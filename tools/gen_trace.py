#!/usr/bin/env python3
"""Write a large synthetic Accel-Sim trace (tracer version 5) for benchmarks:
kernelslist.g and kernel-1.traceg in OUTDIR, optionally also kernel-1.traceg.xz
with its own list (kernelslist-xz.g).

    tools/gen_trace.py OUTDIR [--blocks N] [--iters K] [--xz]

Each of N thread blocks of 256 threads (8 warps) runs a tiled loop K times:
two coalesced global loads (base+stride), a gather (base+delta), a shared-memory
store, a barrier, shared-memory loads, a chain of FFMAs, and finally a store
and EXIT. About 50 bytes per line (real traces: about 40); the default (4096
blocks, K = 24) gives 460 MB and 8.8 M instruction lines. The output is the
same for the same arguments.
"""
import argparse
import lzma
import os


def warp_lines(tb, w, iters):
    out = []
    pc = 0

    def emit(text):
        nonlocal pc
        out.append('%04x %s\n' % (pc, text))
        pc += 16

    emit('ffffffff 1 R1 MOV 0 0 0')
    emit('ffffffff 1 R0 S2R 0 0 0')
    emit('ffffffff 1 R2 IMAD.WIDE 2 R0 R1 0 0')
    gid = (tb * 8 + w) * 32
    a = 0x7f0000000000 + gid * 4
    b = 0x7f2000000000 + gid * 4
    for k in range(iters):
        emit('ffffffff 1 R4 LDG.E 1 R2 4 1 0x%x 4 0' % (a + k * 0x100000))
        emit('ffffffff 1 R5 LDG.E 1 R2 4 1 0x%x 4 0' % (b + k * 0x100000))
        deltas = ' '.join(str(64 if (i * 7 + k) % 5 else -192) for i in range(31))
        emit('ffffffff 1 R6 LDG.E 1 R2 4 2 0x%x %s 0' % (0x7f4000000000 + (gid * 64 + k * 4096) % (1 << 26), deltas))
        emit('ffffffff 0 STS 2 R0 R4 4 1 0x%x 4 0' % (w * 128))
        emit('ffffffff 0 BAR.SYNC.DEFER_BLOCKING 0 0 0')
        emit('ffffffff 1 R7 LDS 1 R0 4 1 0x%x 4 0' % (((w + 1) % 8) * 128))
        emit('ffffffff 1 R8 FFMA 3 R4 R5 R8 0 0')
        emit('ffffffff 1 R8 FFMA 3 R6 R7 R8 0 0')
        emit('ffffffff 1 R9 IADD3 3 R9 R1 RZ 0 0')
        emit('ffffffff 0 ISETP.GE.AND 2 R9 R1 0 0')
        emit('ffffffff 0 BRA 0 0 0')
    emit('ffffffff 0 STG.E 2 R2 R8 4 1 0x%x 4 0' % (0x7f6000000000 + gid * 4))
    emit('ffffffff 0 EXIT 0 0 0')
    return out


HEADER = """-kernel name = _Z9syntheticPfS_S_S_
-kernel id = 1
-grid dim = ({blocks},1,1)
-block dim = (256,1,1)
-shmem = 1024
-nregs = 16
-binary version = 70
-cuda stream id = 0
-shmem base_addr = 0x00007f1000000000
-local mem base_addr = 0x00007f0800000000
-nvbit version = 1.5.5
-accelsim tracer version = 5
-enable lineinfo = 0

#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width [adrrescompress?] [mem_addresses] immediate

"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('outdir')
    ap.add_argument('--blocks', type=int, default=4096)
    ap.add_argument('--iters', type=int, default=24)
    ap.add_argument('--xz', action='store_true')
    args = ap.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    path = os.path.join(args.outdir, 'kernel-1.traceg')
    xz = lzma.open(path + '.xz', 'wb', preset=1) if args.xz else None
    with open(path, 'w') as f:
        def put(s):
            f.write(s)
            if xz:
                xz.write(s.encode())
        put(HEADER.format(blocks=args.blocks))
        for tb in range(args.blocks):
            parts = ['#BEGIN_TB\n\nthread block = %d,0,0\n\n' % tb]
            for w in range(8):
                lines = warp_lines(tb, w, args.iters)
                parts.append('warp = %d\ninsts = %d\n' % (w, len(lines)))
                parts.extend(lines)
                parts.append('\n')
            parts.append('#END_TB\n\n')
            put(''.join(parts))
    if xz:
        xz.close()
    copies = 'MemcpyHtoD,0x00007f0000000000,%d\n' % (args.blocks * 256 * 4)
    with open(os.path.join(args.outdir, 'kernelslist.g'), 'w') as f:
        f.write(copies + 'kernel-1.traceg\n')
    if args.xz:
        with open(os.path.join(args.outdir, 'kernelslist-xz.g'), 'w') as f:
            f.write(copies + 'kernel-1.traceg.xz\n')


main()
