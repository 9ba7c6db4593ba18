/*
 * lulesh_wg.c -- the LULESH kernels whose threads work together through LDS
 * (docs/workloads/lulesh.md). CalcHourglassControlForElems and
 * CalcFBHourglassForceForElems run eight threads per element: a work-group
 * of `block` threads holds E = block / 8 elements, node-major (thread t is
 * node t / E of element t % E; threads past the last element take the last
 * one, as the real kernels do, and stay for the barriers). The first
 * exchanges the node coordinates in LDS for the volume derivatives, the
 * second sums over the eight nodes 24 times with an LDS reduction. The time
 * constraints (CalcCourant/HydroConstraintForElems, a thread per element)
 * end in the port's minimum reduction: a barrier per halving step down to
 * 64 threads, then the first 32 threads without barriers.
 *
 * Each kernel is a list of ops built once per run (the LDS loops unrolled)
 * and interpreted per warp. Compute ops carry the PTX counts of the real
 * kernels' basic blocks; a block that only some nodes take (the switch on
 * the node, the hourglass sign tests) counts if a lane of the warp takes it,
 * and a branch body that no lane takes is skipped. Abstracted: no data
 * values (data-dependent branches take the path of an element the blast has
 * not reached).
 */
#include <stdlib.h>

#include "workload/coral2/lulesh.h"

/* Where an op's lanes go. Global: the thread's element, its element and
 * node (8-plane arrays), its node's mesh node (through nodelist), the
 * work-group (thread 0). LDS, 8-byte slots of region `buf`: the thread's
 * own, tid + off, neighbour k of the thread's node (volume derivative), the
 * element's slot e (node 0's), slot 0 (thread 0). */
enum { X_ELEM, X_IDX, X_NODE, X_WG, X_TID, X_UP, X_NB, X_E, X_ZERO };

enum { F_VALID = 1 }; /* only lanes with an element (a thread per element) */

struct lw_op {
    uint8_t kind, ix, buf, k, flags, dst, src0, src1;
    uint8_t tab;          /* compute: node-dependent blocks (below), 0: none */
    uint16_t n, lim, off; /* compute count; lanes with tid < lim (0: all); X_UP offset */
};

/* Blocks that only some nodes run: (instructions, node set). The switch of
 * CalcElemVolumeDerivative (a tree of tests, then the six neighbours of the
 * node); the sign tests of the four hourglass modes (negation where the
 * mode's base vector is -1, a jump elsewhere). */
struct nblk {
    uint8_t n, set;
};
enum { T_NONE, T_SWITCH, T_SIGN0, T_SIGN1, T_SIGN2, T_SIGN3, T_N };
static const struct nblk tabs[T_N][18] = { /* each ends with {0, 0} */
    [T_SWITCH] = {{2, 0x0f}, {2, 0x03}, {2, 0x02}, {7, 0x02}, {2, 0x0c}, {7, 0x04},
                  {2, 0x08}, {7, 0x08}, {2, 0xf0}, {2, 0x30}, {7, 0x10}, {2, 0x20},
                  {7, 0x20}, {2, 0xc0}, {7, 0x40}, {2, 0x80}, {7, 0x80}},
    [T_SIGN0] = {{4, 0x3c}},
    [T_SIGN1] = {{4, 0x96}, {1, 0x69}},
    [T_SIGN2] = {{4, 0xaa}, {1, 0x55}},
    [T_SIGN3] = {{4, 0xa5}, {1, 0x5a}},
};

/* The six other nodes of the hexahedron whose coordinates the volume
 * derivative at node n reads (the LDS slots each thread loads). */
static const uint8_t nb_node[8][6] = {
    {1, 2, 3, 4, 5, 7}, {2, 3, 0, 5, 6, 4}, {3, 0, 1, 6, 7, 5}, {0, 1, 2, 7, 4, 6},
    {7, 6, 5, 0, 3, 1}, {4, 7, 6, 1, 0, 2}, {5, 4, 7, 2, 1, 3}, {6, 5, 4, 3, 2, 0},
};

/* ---- building the op lists ---------------------------------------------- */

struct lwb {
    struct lw_kernel *k;
    unsigned cap;
};

static struct lw_op *put(struct lwb *b, uint8_t kind)
{
    struct lw_kernel *k = b->k;
    if (k->nops == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 256;
        k->ops = xrealloc(k->ops, b->cap * sizeof *k->ops);
    }
    struct lw_op *o = &k->ops[k->nops++];
    *o = (struct lw_op){.kind = kind};
    return o;
}

static struct lw_op *alu(struct lwb *b, unsigned n, uint8_t src)
{
    struct lw_op *o = put(b, KOP_ALU);
    o->n = (uint16_t)n;
    o->src0 = src;
    return o;
}

static void bar(struct lwb *b) { put(b, KOP_BARRIER); }

static struct lw_op *mem(struct lwb *b, uint8_t kind, uint8_t buf, uint8_t ix, uint8_t dst,
                         uint8_t src)
{
    struct lw_op *o = put(b, kind);
    o->buf = buf;
    o->ix = ix;
    o->dst = dst;
    o->src0 = src;
    return o;
}

/* LDS access of region r by the lanes with tid < lim. */
static struct lw_op *lds(struct lwb *b, uint8_t kind, uint8_t r, uint8_t ix, uint16_t lim,
                         uint8_t reg)
{
    struct lw_op *o = mem(b, kind, r, ix, kind == KOP_LDS_LOAD ? reg : 0,
                          kind == KOP_LDS_STORE ? reg : 0);
    o->lim = lim;
    return o;
}

/* One VOLUDER of CalcElemVolumeDerivative: 12 pairs of LDS loads of the
 * neighbours' coordinates, a from region ra, b from rb (volatile: each
 * operand is loaded where it is used); pre[p] instructions before pair p,
 * post after the last. */
static void voluder(struct lwb *b, uint8_t ra, uint8_t rb, const uint8_t pre[12], unsigned post)
{
    static const uint8_t pairs[12][2] = {{1, 2}, {0, 1}, {0, 1}, {1, 2}, {0, 4}, {3, 4},
                                         {3, 4}, {0, 4}, {2, 5}, {3, 5}, {3, 5}, {2, 5}};
    for (unsigned p = 0; p < 12; p++) {
        if (pre[p])
            alu(b, pre[p], p ? 7 : 0);
        for (unsigned i = 0; i < 2; i++)
            lds(b, KOP_LDS_LOAD, p % 2 ? rb : ra, X_NB, 0, (uint8_t)(6 + i))->k = pairs[p][i];
    }
    alu(b, post, 7);
}

static void build_hg_control(struct lwb *b)
{
    static const uint8_t v1[12] = {6, 5, 3, 2, 6, 5, 3, 1, 6, 2, 3, 1};
    static const uint8_t v23[12] = {0, 1, 2, 1, 3, 1, 2, 1, 3, 1, 3, 1};
    static const uint8_t out[6] = {B_DVDX, B_DVDY, B_DVDZ, B_X8N, B_Y8N, B_Z8N};
    alu(b, 25, 0); /* parameters, ids, the clamped element, idx */
    mem(b, KOP_LOAD, B_NODELIST, X_IDX, 1, 0);
    alu(b, 2, 0);
    mem(b, KOP_LOAD, B_X, X_NODE, 2, 1);
    alu(b, 1, 0);
    mem(b, KOP_LOAD, B_Y, X_NODE, 3, 1);
    alu(b, 1, 0);
    mem(b, KOP_LOAD, B_Z, X_NODE, 4, 1);
    alu(b, 8, 0)->tab = T_SWITCH;
    bar(b);
    alu(b, 3, 0);
    lds(b, KOP_LDS_STORE, 0, X_TID, 0, 3); /* y, z */
    alu(b, 2, 0);
    lds(b, KOP_LDS_STORE, 1, X_TID, 0, 4);
    bar(b);
    voluder(b, 0, 1, v1, 3); /* dvdx */
    bar(b);
    lds(b, KOP_LDS_STORE, 0, X_TID, 0, 2); /* x */
    bar(b);
    voluder(b, 1, 0, v23, 3); /* dvdy */
    bar(b);
    bar(b);
    lds(b, KOP_LDS_STORE, 1, X_TID, 0, 3); /* y */
    bar(b);
    voluder(b, 0, 1, v23, 3); /* dvdz */
    bar(b);
    for (unsigned i = 0; i < 6; i++) {
        alu(b, i ? 1 : 2, 0);
        mem(b, KOP_STORE, out[i], X_IDX, 0, 0);
    }
    alu(b, 3, 0);
    mem(b, KOP_LOAD, B_V, X_ELEM, 5, 0);
    mem(b, KOP_LOAD, B_VOLO, X_ELEM, 5, 0);
    alu(b, 2, 5);
    mem(b, KOP_STORE, B_DETERM, X_ELEM, 0, 0);
}

/* SumOverNodes: the element's eight node values summed in LDS region 0: a
 * store, three halving steps by the threads below 4E, 2E and E, the sum
 * read back from slot e. st instructions before the store, test before each
 * step (the tid tests, computed in the first call), rd before the read and
 * post after it. */
static void sum_over_nodes(struct lwb *b, unsigned st, unsigned test, unsigned rd, unsigned post)
{
    uint16_t e = (uint16_t)b->k->per;
    bar(b);
    if (st)
        alu(b, st, 16);
    lds(b, KOP_LDS_STORE, 0, X_TID, 0, 0);
    bar(b);
    for (uint16_t off = 4 * e; off >= e; off /= 2) {
        alu(b, test, 0);
        lds(b, KOP_LDS_LOAD, 0, X_TID, off, 14);
        lds(b, KOP_LDS_LOAD, 0, X_UP, off, 15)->off = off;
        struct lw_op *o = alu(b, 1, 14);
        o->src1 = 15;
        o->lim = off;
        lds(b, KOP_LDS_STORE, 0, X_TID, off, 0);
        bar(b);
    }
    if (rd)
        alu(b, rd, 0);
    lds(b, KOP_LDS_LOAD, 0, X_E, 0, 16);
    if (post)
        alu(b, post, 0);
    bar(b);
}

static void build_fb_hourglass(struct lwb *b)
{
    static const uint8_t hg[6] = {B_X8N, B_Y8N, B_Z8N, B_DVDX, B_DVDY, B_DVDZ};
    /* before each mode's sign test: the previous mode's hourgam and the test */
    static const uint8_t mode[4] = {6, 19, 18, 12};
    alu(b, 29, 0);
    mem(b, KOP_LOAD, B_DETERM, X_ELEM, 1, 0);
    for (unsigned i = 0; i < 6; i++) {
        alu(b, i ? 1 : 6, 0);
        mem(b, KOP_LOAD, hg[i], X_IDX, 2, 0);
    }
    for (unsigned m = 0; m < 4; m++) { /* hourmodx, y, z of each mode */
        alu(b, mode[m], m ? 16 : 2)->tab = (uint8_t)(T_SIGN0 + m);
        for (unsigned c = 0; c < 3; c++)
            sum_over_nodes(b, m + c ? 0 : 3, m + c ? 1 : 2, m + c ? 0 : 2, m == 3 && c == 2);
    }
    alu(b, 7, 16);
    mem(b, KOP_LOAD, B_SS, X_ELEM, 4, 0);
    alu(b, 1, 0);
    mem(b, KOP_LOAD, B_EMASS, X_ELEM, 4, 0);
    mem(b, KOP_LOAD, B_DETERM, X_ELEM, 4, 0);
    alu(b, 49, 4); /* CBRT of a normal number (its subnormal block not taken), coefficient */
    mem(b, KOP_LOAD, B_NODELIST, X_IDX, 5, 0);
    alu(b, 3, 0);
    mem(b, KOP_LOAD, B_YD, X_NODE, 6, 5);
    alu(b, 1, 0);
    mem(b, KOP_LOAD, B_ZD, X_NODE, 6, 5);
    alu(b, 3, 0);
    mem(b, KOP_LOAD, B_XD, X_NODE, 6, 5);
    alu(b, 1, 6);
    for (unsigned i = 0; i < 12; i++) { /* hgfx, hgfy, hgfz: four modes each */
        if (i)
            alu(b, i == 4 ? 2 : 1, 16);
        sum_over_nodes(b, i ? 1 : 0, 1, 0, 0);
    }
    alu(b, 5, 16);
    mem(b, KOP_STORE, B_FXE, X_IDX, 0, 0);
    alu(b, 2, 0);
    mem(b, KOP_STORE, B_FYE, X_IDX, 0, 0);
    alu(b, 1, 0);
    mem(b, KOP_STORE, B_FZE, X_IDX, 0, 0);
}

/* MINEQ(s[tid], s[tid + off]) by the threads below lim: two loads, the
 * compare and select, the selected slot loaded again (volatile), the store. */
static void min_step(struct lwb *b, uint16_t off, uint16_t lim)
{
    lds(b, KOP_LDS_LOAD, 0, X_TID, lim, 14);
    lds(b, KOP_LDS_LOAD, 0, X_UP, lim, 15)->off = off;
    struct lw_op *o = alu(b, 5, 14);
    o->src1 = 15;
    o->lim = lim;
    lds(b, KOP_LDS_LOAD, 0, X_UP, lim, 14)->off = off;
    lds(b, KOP_LDS_STORE, 0, X_TID, lim, 14);
}

/* reduceMin of the port over region 0, then thread 0 stores the work-group's
 * minimum into out[wg]; each test before a step is 2 instructions. */
static void reduce_min(struct lwb *b, uint8_t out)
{
    for (uint16_t off = (uint16_t)(b->k->mk.block / 2); off >= 64; off /= 2) {
        bar(b);
        alu(b, 2, 0);
        min_step(b, off, off);
    }
    bar(b);
    alu(b, 2, 0);
    for (uint16_t off = 32; off >= 1; off /= 2)
        min_step(b, off, 32);
    bar(b);
    alu(b, 2, 0);
    lds(b, KOP_LDS_LOAD, 0, X_ZERO, 1, 14);
    alu(b, 2, 14)->lim = 1;
    mem(b, KOP_STORE, out, X_WG, 0, 14);
}

/* The element part of a time constraint: `first` instructions (parameters,
 * index, bounds test), then for the lanes with an element the loads through
 * matElemlist (the identity: indx = i), 2 instructions before each and
 * `tail` after the last; then every thread's value into its LDS slot. */
static void constraint(struct lwb *b, unsigned first, const uint8_t *bufs, unsigned nb,
                       unsigned tail)
{
    alu(b, first, 0);
    alu(b, 2, 0)->flags = F_VALID;
    mem(b, KOP_LOAD, B_MATEL, X_ELEM, 1, 0)->flags = F_VALID;
    for (unsigned i = 0; i < nb; i++) {
        alu(b, 2, 0)->flags = F_VALID;
        mem(b, KOP_LOAD, bufs[i], X_ELEM, 2, 1)->flags = F_VALID;
    }
    alu(b, tail, 2)->flags = F_VALID;
    alu(b, 3, 0);
    lds(b, KOP_LDS_STORE, 0, X_TID, 0, 0);
}

void lw_build(struct lw_kernel *k, int which, const int32_t *nl, uint32_t nelem,
              const uint32_t *part8)
{
    static const uint8_t courant[3] = {B_SS, B_VDOV, B_AREALG}, hydro[1] = {B_VDOV};
    struct lwb b = {.k = k};
    uint32_t block = k->mk.block;
    k->nl = nl;
    k->nelem = nelem;
    k->per = which == LW_HG_CONTROL || which == LW_FB_HOURGLASS ? block / 8 : block;
    k->mk.lds_b = (which == LW_HG_CONTROL ? 2 : 1) * block * 8;
    if (k->per < block) {
        k->mk.nwg = (uint32_t)div_ceil(nelem, k->per);
        k->mk.wg_first = part8;
    }
    if (which == LW_HG_CONTROL)
        build_hg_control(&b);
    else if (which == LW_FB_HOURGLASS)
        build_fb_hourglass(&b);
    else if (which == LW_COURANT)
        constraint(&b, 14, courant, 3, 11);
    else
        constraint(&b, 12, hydro, 1, 2);
    if (which == LW_COURANT || which == LW_HYDRO)
        reduce_min(&b, which == LW_COURANT ? B_DTCOUR : B_DTHYDRO);
}

void lw_free(struct lw_kernel *k)
{
    free(k->ops);
}

/* ---- running them --------------------------------------------------------- */

struct lane {
    uint32_t tid, e, node, elem;
    bool valid;
};

static struct lane lane_of(const struct lw_kernel *k, const struct kernel_warp *w, unsigned l)
{
    struct lane a = {.tid = kernel_tid(w, l)};
    a.e = a.tid % k->per;
    a.node = a.tid / k->per;
    uint64_t elem = (uint64_t)w->wg * k->per + a.e;
    a.valid = elem < k->nelem;
    a.elem = (uint32_t)(a.valid ? elem : k->nelem - 1);
    return a;
}

static bool lane_on(const struct lw_op *o, const struct lane *a)
{
    if (o->lim && a->tid >= o->lim)
        return false;
    if (o->flags & F_VALID && !a->valid)
        return false;
    return (o->ix != X_WG && o->ix != X_ZERO) || a->tid == 0;
}

static addr_t lane_addr(const struct lw_kernel *k, const struct lw_op *o, const struct lane *a,
                        uint32_t wg)
{
    if (o->kind == KOP_LDS_LOAD || o->kind == KOP_LDS_STORE) {
        uint64_t slot = o->ix == X_TID   ? a->tid
                        : o->ix == X_UP  ? a->tid + o->off
                        : o->ix == X_NB  ? (uint64_t)nb_node[a->node][o->k] * k->per + a->e
                        : o->ix == X_E   ? a->e
                                         : 0;
        return ((uint64_t)o->buf * k->mk.block + slot) * 8;
    }
    const struct mk_buf *b = &k->mk.ctx->buf[o->buf];
    uint64_t x = o->ix == X_ELEM  ? a->elem
                 : o->ix == X_IDX ? a->elem + a->node * b->plane
                 : o->ix == X_NODE
                     ? (uint64_t)k->nl[(uint64_t)a->node * k->nelem + a->elem]
                     : wg;
    return b->b->base + x * b->esize;
}

/* Whether the active lanes' addresses are base + lane * stride; if so,
 * set them so in op. */
static bool strided(const struct kernel_warp *w, struct kernel_op *op)
{
    uint64_t rest = op->mask & (op->mask - 1);
    unsigned l0 = (unsigned)__builtin_ctzll(op->mask);
    int64_t stride = op->size;
    if (rest) {
        unsigned l1 = (unsigned)__builtin_ctzll(rest);
        int64_t d = (int64_t)(w->lane_addr[l1] - w->lane_addr[l0]);
        if (d % (int64_t)(l1 - l0))
            return false;
        stride = d / (int64_t)(l1 - l0);
    }
    for (uint64_t r = rest; r; r &= r - 1) {
        unsigned l = (unsigned)__builtin_ctzll(r);
        if (w->lane_addr[l] != w->lane_addr[l0] + (uint64_t)((int64_t)(l - l0) * stride))
            return false;
    }
    op->base = w->lane_addr[l0] - (uint64_t)((int64_t)l0 * stride);
    op->stride = stride;
    return true;
}

static unsigned alu_count(const struct lw_op *o, unsigned nodes)
{
    unsigned n = o->n;
    for (const struct nblk *t = tabs[o->tab]; o->tab && t->n; t++)
        n += t->set & nodes ? t->n : 0;
    return n;
}

void lw_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    const struct lw_kernel *lk = k->ctx;
    while (w->pc < lk->nops) {
        const struct lw_op *o = &lk->ops[w->pc++];
        uint64_t mask = 0;
        unsigned nodes = 0;
        for (unsigned l = 0; l < w->nlanes; l++) {
            struct lane a = lane_of(lk, w, l);
            if (!lane_on(o, &a))
                continue;
            mask |= 1ull << l;
            nodes |= 1u << a.node;
            if (o->kind != KOP_ALU && o->kind != KOP_BARRIER)
                w->lane_addr[l] = lane_addr(lk, o, &a, w->wg);
        }
        if (!mask || (o->kind == KOP_ALU && !(op->n = alu_count(o, nodes))))
            continue;
        op->kind = o->kind;
        op->dst = o->dst;
        op->src[0] = o->src0;
        op->src[1] = o->src1;
        if (o->kind != KOP_ALU && o->kind != KOP_BARRIER) {
            op->size = o->kind == KOP_LDS_LOAD || o->kind == KOP_LDS_STORE
                           ? 8
                           : (uint8_t)lk->mk.ctx->buf[o->buf].esize;
            op->mask = mask;
            op->lanes = !strided(w, op);
        }
        return;
    }
    op->kind = KOP_EXIT;
}
