/*
 * lulesh_wg.c -- the LULESH kernels whose threads work together through LDS
 * (docs/workloads/lulesh.md), as kernel descriptions (src/workload/kd.h).
 * CalcHourglassControlForElems and CalcFBHourglassForceForElems run eight
 * threads per element: a work-group of `block` threads holds E = block / 8
 * elements, node-major, a block of E x 8 threads (tx the element, ty the
 * node; threads past the last element take the last one, as the real
 * kernels do, and stay for the barriers). The first exchanges the node
 * coordinates in LDS for the volume derivatives, the second sums over the
 * eight nodes 24 times with an LDS reduction. The time constraints
 * (CalcCourant/HydroConstraintForElems, a thread per element) end in the
 * port's minimum reduction: a barrier per halving step down to 64 threads,
 * then the first 32 threads without barriers.
 *
 * ALU counts are the PTX counts of the real kernels' basic blocks; a block
 * that only some nodes take (the switch on the node, the hourglass sign
 * tests) counts if a lane of the warp takes it: the sign tests through the
 * node sets of @sets, the switch (thirteen node sets) through a count per
 * warp the host computes (@sw, its bits at each warp's first thread).
 * Abstracted: no data values (data-dependent branches take the path of an
 * element the blast has not reached).
 */
#include "workload/coral2/lulesh.h"

/* The hourglass kernels' element, clamped at the last where the elements
 * do not fill the last work-group (EL: bx * E + tx, or @elc of the thread's
 * slot), its node's slot of an 8-plane array (IDX), its mesh node (@nlc:
 * nodelist per thread slot, ty * s + bx * E + tx, the slots past the last
 * element holding its nodes) and LDS slots: 8 bytes each, region R at
 * R * block. */
#define EL_ALL "bx*bdx + tx"
#define EL_CLAMPED "@elc[bx*bdx + tx]"
#define NODE "@nlc[ty*s + bx*bdx + tx]"
#define TID "ty*bdx + tx"
#define R1 "bdx*bdy + "
#define SW(b, m) " + " #m " [0 < @sw[" #b "*bdx*bdy + " TID "]]"

/* The six other nodes of the hexahedron whose coordinates the volume
 * derivative at node n reads (the LDS slots each thread loads), @nbn[6 n + k]. */
const uint32_t lulesh_nb_node[48] = {
    1, 2, 3, 4, 5, 7, 2, 3, 0, 5, 6, 4, 3, 0, 1, 6, 7, 5, 0, 1, 2, 7, 4, 6,
    7, 6, 5, 0, 3, 1, 4, 7, 6, 1, 0, 2, 5, 4, 7, 2, 1, 3, 6, 5, 4, 3, 2, 0,
};

/* One pair of a VOLUDER of CalcElemVolumeDerivative: the LDS loads of two
 * neighbours' coordinates (volatile: each operand is loaded where it is
 * used) from region R (R1 or ""), pre instructions before them. */
#define NB(r, k, d) "lds_load lds[" r "@nbn[6*ty + " #k "]*bdx + tx] 8 -> r" #d "\n"
#define VP(pre, r, k0, k1) "alu " #pre " < r7\n" NB(r, k0, 6) NB(r, k1, 7)
/* The 12 pairs, a from region ra, b from rb; p0 the first pair's count (with
 * no operand), post after the last. */
#define VOLUDER(ra, rb, p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11)                  \
    p0 NB(ra, 1, 6) NB(ra, 2, 7) VP(p1, rb, 0, 1) VP(p2, ra, 0, 1) VP(p3, rb, 1, 2)          \
    VP(p4, ra, 0, 4) VP(p5, rb, 3, 4) VP(p6, ra, 3, 4) VP(p7, rb, 0, 4) VP(p8, ra, 2, 5)     \
    VP(p9, rb, 3, 5) VP(p10, ra, 3, 5) VP(p11, rb, 2, 5) "alu 3 < r7\n"
#define IDX(el) "ty*n + " el
#define HG_OUT(el, n, b) "alu " #n "\nstore " #b "[" IDX(el) "] 8\n"

#define HG_CONTROL(EL, ARR)                                                                   \
    {.name = "CalcHourglassControlForElems",                                                  \
     .params = (const char *const[]){"n", "s", NULL},                                         \
     .bufs = (const char *const[]){"nodelist", "x", "y", "z", "determ", "volo", "v", "dvdx",  \
                                   "dvdy", "dvdz", "x8n", "y8n", "z8n", NULL},                \
     .arrays = ARR,                                                                            \
     .body = "alu 25\n" /* parameters, ids, the clamped element, idx */                        \
            "load nodelist[" IDX(EL) "] 4 -> r1\n"                                             \
            "alu 2\nload x[" NODE "] 8 -> r2 < r1\n"                                           \
            "alu 1\nload y[" NODE "] 8 -> r3 < r1\n"                                           \
            "alu 1\nload z[" NODE "] 8 -> r4 < r1\n"                                           \
            "alu 8" SW(0, 1) SW(1, 2) SW(2, 4) SW(3, 8) SW(4, 16) SW(5, 32) SW(6, 64) "\n"     \
            "barrier\nalu 3\nlds_store lds[" TID "] 8 < r3\n" /* y, z */                       \
            "alu 2\nlds_store lds[" R1 TID "] 8 < r4\nbarrier\n"                               \
            VOLUDER("", R1, "alu 6\n", 5, 3, 2, 6, 5, 3, 1, 6, 2, 3, 1) /* dvdx */             \
            "barrier\nlds_store lds[" TID "] 8 < r2\nbarrier\n"         /* x */                \
            VOLUDER(R1, "", "", 1, 2, 1, 3, 1, 2, 1, 3, 1, 3, 1)        /* dvdy */             \
            "barrier\nbarrier\nlds_store lds[" R1 TID "] 8 < r3\nbarrier\n" /* y */            \
            VOLUDER("", R1, "", 1, 2, 1, 3, 1, 2, 1, 3, 1, 3, 1)        /* dvdz */             \
            "barrier\n" HG_OUT(EL, 2, dvdx) HG_OUT(EL, 1, dvdy) HG_OUT(EL, 1, dvdz)            \
            HG_OUT(EL, 1, x8n) HG_OUT(EL, 1, y8n) HG_OUT(EL, 1, z8n)                           \
            "alu 3\nload v[" EL "] 8 -> r5\nload volo[" EL "] 8 -> r5\nalu 2 < r5\n"           \
            "store determ[" EL "] 8\n"}

#define HG_ARR (const char *const[]){"nlc", "nbn", "sw", NULL}
#define HG_ARR_ELC (const char *const[]){"nlc", "nbn", "sw", "elc", NULL}
const struct kd_desc lulesh_hg_control_kd[2] = {HG_CONTROL(EL_ALL, HG_ARR),
                                                HG_CONTROL(EL_CLAMPED, HG_ARR_ELC)};

/* SumOverNodes: the element's eight node values summed in LDS: a store,
 * three halving steps by the nodes below 4, 2 and 1 (each after `test`
 * instructions, the tid tests), the sum read back from the element's slot;
 * pre before the store, rd before the read, post after it (strings). */
#define HALVE(test, k)                                                                       \
    "alu " #test "\nif ty < " #k "\nlds_load lds[" TID "] 8 -> r14\n"                        \
    "lds_load lds[(ty + " #k ")*bdx + tx] 8 -> r15\nalu 1 < r14 r15\n"                       \
    "lds_store lds[" TID "] 8\nend\nbarrier\n"
#define SUM(pre, test, rd, post)                                                              \
    "barrier\n" pre "lds_store lds[" TID "] 8\nbarrier\n" HALVE(test, 4) HALVE(test, 2)      \
    HALVE(test, 1) rd "lds_load lds[tx] 8 -> r16\n" post "barrier\n"
#define SUM1 SUM("", 1, "", "")
/* hourmodx, y, z of a mode after the previous mode's hourgam and the sign
 * test: 4 more instructions where a node's base vector is -1 (set a),
 * 1 where it is 1 (set b) */
#define MODE(n, a, b) \
    "alu " #n " + 4 [0 < @sets[" #a "*8 + ty]] + 1 [0 < @sets[" #b "*8 + ty]] < r16\n"
#define HG_LD(el, n, b) "alu " #n "\nload " #b "[" IDX(el) "] 8 -> r2\n"
#define FB_LD(n, b) "alu " #n "\nload " #b "[" NODE "] 8 -> r6 < r5\n"
#define HGF(n) "alu " #n " < r16\n" SUM("alu 1 < r16\n", 1, "", "")

#define FB_HOURGLASS(EL, ARR)                                                                 \
    {.name = "CalcFBHourglassForceForElems",                                                  \
     .params = (const char *const[]){"n", "s", NULL},                                         \
     .bufs = (const char *const[]){"determ", "x8n", "y8n", "z8n", "dvdx", "dvdy", "dvdz",     \
                                   "nodelist", "ss", "elemMass", "xd", "yd", "zd", "fx_elem", \
                                   "fy_elem", "fz_elem", NULL},                               \
     .arrays = ARR,                                                                            \
     .body = "alu 29\nload determ[" EL "] 8 -> r1\n" HG_LD(EL, 6, x8n)                         \
            HG_LD(EL, 1, y8n) HG_LD(EL, 1, z8n) HG_LD(EL, 1, dvdx) HG_LD(EL, 1, dvdy) HG_LD(EL, 1, dvdz) \
            "alu 6 + 4 [0 < @sets[ty]] < r2\n"                                                 \
            SUM("alu 3 < r16\n", 2, "alu 2\n", "") SUM1 SUM1                                   \
            MODE(19, 1, 2) SUM1 SUM1 SUM1 MODE(18, 3, 4) SUM1 SUM1 SUM1                        \
            MODE(12, 5, 6) SUM1 SUM1 SUM("", 1, "", "alu 1\n")                                 \
            "alu 7 < r16\nload ss[" EL "] 8 -> r4\nalu 1\nload elemMass[" EL "] 8 -> r4\n"     \
            "load determ[" EL "] 8 -> r4\n"                                                    \
            "alu 49 < r4\n" /* CBRT of a normal number (its subnormal block not taken) */      \
            "load nodelist[" IDX(EL) "] 4 -> r5\n" FB_LD(3, yd) FB_LD(1, zd) FB_LD(3, xd)      \
            "alu 1 < r6\n" SUM1 HGF(1) HGF(1) HGF(1) HGF(2) HGF(1) HGF(1) HGF(1) HGF(1) HGF(1) \
            HGF(1) HGF(1)                                                                      \
            "alu 5 < r16\nstore fx_elem[" IDX(EL) "] 8\nalu 2\nstore fy_elem[" IDX(EL) "] 8\n" \
            "alu 1\nstore fz_elem[" IDX(EL) "] 8\n"}

#define FB_ARR (const char *const[]){"nlc", "sets", NULL}
#define FB_ARR_ELC (const char *const[]){"nlc", "sets", "elc", NULL}
const struct kd_desc lulesh_fb_hourglass_kd[2] = {FB_HOURGLASS(EL_ALL, FB_ARR),
                                                  FB_HOURGLASS(EL_CLAMPED, FB_ARR_ELC)};

/* MINEQ(s[tid], s[tid + off]) by the threads below lim: two loads, the
 * compare and select, the selected slot loaded again (volatile), the store. */
#define MIN_STEP(off, lim)                                                                    \
    "if tx < " #lim "\nlds_load lds[tx] 8 -> r14\nlds_load lds[tx + " #off "] 8 -> r15\n"     \
    "alu 5 < r14 r15\nlds_load lds[tx + " #off "] 8 -> r14\nlds_store lds[tx] 8 < r14\nend\n"
/* a step of the barriers' part, where the block has 2 off threads or more
 * (lt = 2 off - 1) */
#define MIN_BAR(off, lt) "if " #lt " < bdx\nbarrier\nalu 2\n" MIN_STEP(off, off) "end\n"
/* The element part of a time constraint: `first` instructions (parameters,
 * index, bounds test), then for the lanes with an element the loads through
 * matElemlist (the identity), 2 instructions before each and `tail` after
 * the last; every thread's value into its LDS slot; reduceMin of the port,
 * then thread 0 stores the work-group's minimum. */
#define CONSTRAINT(first, loads, tail, out)                                                   \
    "alu " #first "\nif gid < n\nalu 2\nload matElemlist[gid] 4 -> r1\n" loads               \
    "alu " #tail " < r2\nend\nalu 3\nlds_store lds[tx] 8\n" MIN_BAR(512, 1023)                \
    MIN_BAR(256, 511) MIN_BAR(128, 255) MIN_BAR(64, 127) "barrier\nalu 2\n" MIN_STEP(32, 32) MIN_STEP(16, 32)              \
    MIN_STEP(8, 32) MIN_STEP(4, 32) MIN_STEP(2, 32) MIN_STEP(1, 32)                            \
    "barrier\nalu 2\nif tx < 1\nlds_load lds[0] 8 -> r14\nalu 2 < r14\n"                      \
    "store " #out "[bx] 8 < r14\nend\n"
#define CLD(b) "alu 2\nload " #b "[gid] 8 -> r2 < r1\n"

const struct kd_desc lulesh_courant_kd = {
    .name = "CalcCourantConstraintForElems",
    .params = (const char *const[]){"n", NULL},
    .bufs = (const char *const[]){"matElemlist", "ss", "vdov", "arealg", "dtcourant_blk", NULL},
    .body = CONSTRAINT(14, CLD(ss) CLD(vdov) CLD(arealg), 11, dtcourant_blk),
};

const struct kd_desc lulesh_hydro_kd = {
    .name = "CalcHydroConstraintForElems",
    .params = (const char *const[]){"n", NULL},
    .bufs = (const char *const[]){"matElemlist", "vdov", "dthydro_blk", NULL},
    .body = CONSTRAINT(12, CLD(vdov), 2, dthydro_blk),
};

/* Blocks that only some nodes run: (instructions, node set). The switch of
 * CalcElemVolumeDerivative (a tree of tests, then the six neighbours of the
 * node); the sign tests of the four hourglass modes (@sets: the nodes whose
 * base vector is -1, 4 instructions, and 1, 1 instruction). */
static const struct {
    uint8_t n, set;
} sw_blocks[] = {{2, 0x0f}, {2, 0x03}, {2, 0x02}, {7, 0x02}, {2, 0x0c}, {7, 0x04},
                 {2, 0x08}, {7, 0x08}, {2, 0xf0}, {2, 0x30}, {7, 0x10}, {2, 0x20},
                 {7, 0x20}, {2, 0xc0}, {7, 0x40}, {2, 0x80}, {7, 0x80}};
static const uint8_t sign_sets[LULESH_SETS] = {0x3c, 0x96, 0x69, 0xaa, 0x55, 0xa5, 0x5a};

void lulesh_hg_tables(uint32_t block, unsigned warp, uint32_t *sw, uint32_t *sets)
{
    uint32_t per = block / 8;
    for (uint32_t t = 0; t < block; t += warp) {
        unsigned nodes = 0, n = 0;
        for (uint32_t l = t; l < t + warp && l < block; l++)
            nodes |= 1u << (l / per);
        for (size_t i = 0; i < sizeof sw_blocks / sizeof sw_blocks[0]; i++)
            n += sw_blocks[i].set & nodes ? sw_blocks[i].n : 0;
        for (unsigned b = 0; b < LULESH_SW_BITS; b++)
            sw[b * block + t] = n >> b & 1;
    }
    for (unsigned k = 0; k < LULESH_SETS; k++)
        for (unsigned n = 0; n < 8; n++)
            sets[8 * k + n] = sign_sets[k] >> n & 1;
}
