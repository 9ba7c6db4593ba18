/*
 * hacc.c -- HACC (CORAL-2) short-range force test, ForceTreeTest with the
 * RCB force tree and the GPU short-range kernel (Step10): particles are
 * sorted into the leaves of a recursive-coordinate-bisection tree; for each
 * leaf the tree walk collects the interaction list (every particle of every
 * leaf within the cut-off distance rmax of the leaf), and one kernel per
 * leaf computes the leaf's short-range forces against its list. Table II
 * "0.5 0.1 512 0.1 2 N 12 rcb" is read as opening angle 0.5, cut-off 0.1,
 * 512 particles, smoothing 0.1, 2 force evaluations, no multipoles, at most
 * 12 particles per leaf, RCB tree (docs/workloads/hacc.md).
 *
 * Modelled: particle positions drawn uniformly in the unit box from the
 * seed; the tree and the lists built in create(); per leaf a kernel of
 * ceil(count / BLOCKY) work-groups of BLOCKX x BLOCKY threads: row y of a
 * work-group owns one particle, the BLOCKX lanes of the row stride over the
 * interaction list (index list, then position and mass gathers), reduce
 * their partial forces across the row, and lane 0 adds them to the
 * particle's velocity arrays.
 * Abstracted: no data values; the list is read through an index list where
 * HACC copies the listed particles into staging arrays on the host; the row
 * reduction (cross-lane shuffles) is counted as compute.
 */
#include <stdlib.h>

#include "workload/wl.h"

static const struct cfg_key hacc_keys[] = {
    {"oa", CFG_FLOAT, "0.5", 0, 10, "tree opening angle (argument 1; unused without multipoles)",
     NULL},
    {"rmax", CFG_FLOAT, "0.1", 1e-9, 1, "short-range cut-off radius, box units (argument 2)", NULL},
    {"np", CFG_INT, "512", 1, 16777216, "particles (argument 3)", NULL},
    {"rsm", CFG_FLOAT, "0.1", 0, 1, "force smoothing length (argument 4; compute only)", NULL},
    {"steps", CFG_INT, "2", 1, 100000, "force evaluations (argument 5)", NULL},
    {"mono", CFG_ENUM, "N", 0, 0, "multipole approximation (argument 6): N = direct sums only",
     "N"},
    {"leaf", CFG_INT, "12", 1, 1000000, "largest leaf of the tree, particles (argument 7)", NULL},
    {"tree", CFG_ENUM, "rcb", 0, 0, "tree type (argument 8)", "rcb"},
    {"blockx", CFG_INT, "32", 1, 1024, "BLOCKX: lanes per particle row", NULL},
    {"blocky", CFG_INT, "4", 1, 1024, "BLOCKY: particle rows per work-group", NULL},
    CFG_END,
};

/* Estimates per list entry (lane): dx, dy, dz (3), r2 (3 fma), the cut-off
 * select (2), (r2 + rsm2)^-1.5 as rsqrt and two muls (4), the 5th-order
 * polynomial (6 fma), the force and the three accumulations (6): 24, plus
 * the loop step and compare (3). Per particle row: the index arithmetic
 * (8) and the log2(BLOCKX)-step shuffle reduction of three sums (6 per
 * step). */
enum { H_PROLOGUE = 8, H_PAIR = 24, H_LOOP = 3, H_RED_STEP = 6, H_UPDATE = 3 };

struct hleaf {
    uint32_t first, count; /* particles [first, first + count) in tree order */
    uint32_t ioff, icount; /* interaction list entries */
    float lo[3], hi[3];
};

struct hacc {
    const struct kernel_buf *pos[3], *mass, *vel[3], *ilist;
    struct hleaf *leaf;
    uint32_t *ient;
    uint32_t np, nleaf, bx, by, steps, launched;
};

/* RCB: split [a, b) of idx at the median of the longest side until a node
 * holds at most `leaf` particles. */
struct rcb {
    float *x[3];
    uint32_t *idx;
    struct hleaf *out;
    uint32_t n, leaf;
};

struct kv {
    float key;
    uint32_t idx;
};

static int kv_cmp(const void *a, const void *b)
{
    const struct kv *u = a, *v = b;
    if (u->key != v->key)
        return u->key < v->key ? -1 : 1;
    return (u->idx > v->idx) - (u->idx < v->idx);
}

static void bbox(const struct rcb *r, uint32_t a, uint32_t b, float lo[3], float hi[3])
{
    for (int d = 0; d < 3; d++) {
        lo[d] = 2;
        hi[d] = -1;
        for (uint32_t i = a; i < b; i++) {
            float v = r->x[d][r->idx[i]];
            lo[d] = v < lo[d] ? v : lo[d];
            hi[d] = v > hi[d] ? v : hi[d];
        }
    }
}

static void rcb_split(struct rcb *r, uint32_t a, uint32_t b, struct kv *tmp)
{
    float lo[3], hi[3];
    bbox(r, a, b, lo, hi);
    if (b - a <= r->leaf) {
        struct hleaf *l = &r->out[r->n++];
        *l = (struct hleaf){.first = a, .count = b - a};
        for (int d = 0; d < 3; d++) {
            l->lo[d] = lo[d];
            l->hi[d] = hi[d];
        }
        return;
    }
    int d = 0;
    for (int e = 1; e < 3; e++)
        if (hi[e] - lo[e] > hi[d] - lo[d])
            d = e;
    for (uint32_t i = a; i < b; i++)
        tmp[i - a] = (struct kv){r->x[d][r->idx[i]], r->idx[i]};
    qsort(tmp, b - a, sizeof *tmp, kv_cmp);
    for (uint32_t i = a; i < b; i++)
        r->idx[i] = tmp[i - a].idx;
    uint32_t m = a + (b - a) / 2;
    rcb_split(r, a, m, tmp);
    rcb_split(r, m, b, tmp);
}

/* Distance between two boxes (0 when they overlap). */
static float box_dist2(const struct hleaf *p, const struct hleaf *q)
{
    float s = 0;
    for (int d = 0; d < 3; d++) {
        float g = p->lo[d] > q->hi[d]   ? p->lo[d] - q->hi[d]
                  : q->lo[d] > p->hi[d] ? q->lo[d] - p->hi[d]
                                        : 0;
        s += g * g;
    }
    return s;
}

/* Each leaf's interaction list: the particles (tree order) of every leaf
 * whose box lies within rmax of its own. */
static void hacc_lists(struct hacc *h, float rmax)
{
    uint64_t n = 0, cap = 0;
    for (uint32_t a = 0; a < h->nleaf; a++) {
        struct hleaf *l = &h->leaf[a];
        l->ioff = (uint32_t)n;
        for (uint32_t b = 0; b < h->nleaf; b++) {
            const struct hleaf *q = &h->leaf[b];
            if (box_dist2(l, q) >= rmax * rmax)
                continue;
            h->ient = xgrow(h->ient, sizeof *h->ient, &cap, n + q->count);
            for (uint32_t i = 0; i < q->count; i++)
                h->ient[n++] = q->first + i;
        }
        l->icount = (uint32_t)(n - l->ioff);
    }
}

static void hacc_tree(struct hacc *h, uint64_t seed, uint32_t leaf, float rmax)
{
    struct rng g;
    rng_seed(&g, seed);
    struct rcb r = {.idx = xmalloc(h->np * sizeof *r.idx), .leaf = leaf};
    for (int d = 0; d < 3; d++)
        r.x[d] = xmalloc(h->np * sizeof *r.x[d]);
    for (uint32_t i = 0; i < h->np; i++) {
        r.idx[i] = i;
        for (int d = 0; d < 3; d++)
            r.x[d][i] = (float)rng_unit(&g);
    }
    r.out = h->leaf = xmalloc(h->np * sizeof *h->leaf);
    struct kv *tmp = xmalloc(h->np * sizeof *tmp);
    rcb_split(&r, 0, h->np, tmp);
    h->nleaf = r.n;
    free(tmp);
    free(r.idx);
    for (int d = 0; d < 3; d++)
        free(r.x[d]);
    hacc_lists(h, rmax);
}

static void *hacc_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    uint64_t bx = cfg_uint(sec, "blockx"), by = cfg_uint(sec, "blocky");
    if (bx * by > 1024) {
        cfg_err(e, sec, "blocky", "blockx x blocky = %llu threads, more than 1024",
                (unsigned long long)(bx * by));
        return NULL;
    }
    if (env->warp_size % bx) {
        cfg_err(e, sec, "blockx", "must divide the warp size (%u): a row stays in one warp",
                env->warp_size);
        return NULL;
    }
    struct hacc *h = xcalloc(1, sizeof *h);
    h->np = (uint32_t)cfg_uint(sec, "np");
    h->bx = (uint32_t)bx;
    h->by = (uint32_t)by;
    h->steps = (uint32_t)cfg_uint(sec, "steps");
    hacc_tree(h, env->seed, (uint32_t)cfg_uint(sec, "leaf"), (float)cfg_float(sec, "rmax"));
    static const char *const pn[] = {"xx", "yy", "zz"}, *const vn[] = {"vx", "vy", "vz"};
    for (int d = 0; d < 3; d++)
        h->pos[d] = wl_alloc(env, pn[d], h->np * 4ull);
    h->mass = wl_alloc(env, "mass", h->np * 4ull);
    for (int d = 0; d < 3; d++)
        h->vel[d] = wl_alloc(env, vn[d], h->np * 4ull);
    uint64_t nent = h->nleaf ? h->leaf[h->nleaf - 1].ioff + h->leaf[h->nleaf - 1].icount : 0;
    h->ilist = wl_alloc(env, "ilist", nent * 4);
    return h;
}

static void hacc_destroy(void *self)
{
    struct hacc *h = self;
    free(h->leaf);
    free(h->ient);
    free(h);
}

/* Lanes of the warp whose row has a particle, and whose list entry
 * t * BLOCKX + x exists (t < 0: only the row test; x0: only lane x = 0). */
static uint64_t hacc_mask(const struct hacc *h, const struct hleaf *l, const struct kernel_warp *w,
                          int64_t t, bool x0)
{
    uint64_t m = 0;
    for (unsigned ln = 0; ln < w->nlanes; ln++) {
        uint32_t tid = kernel_tid(w, ln), x = tid % h->bx, y = tid / h->bx;
        uint64_t i = (uint64_t)w->wg * h->by + y;
        if (i >= l->count || (x0 && x) || (t >= 0 && (uint64_t)t * h->bx + x >= l->icount))
            continue;
        m |= 1ull << ln;
    }
    return m;
}

static void hacc_particle_op(const struct hacc *h, const struct hleaf *l, struct kernel_warp *w,
                             struct kernel_op *op, uint8_t kind, const struct kernel_buf *b,
                             uint64_t mask)
{
    op->kind = kind;
    op->size = 4;
    op->lanes = true;
    op->mask = mask;
    for (uint64_t m = mask; m; m &= m - 1) {
        unsigned ln = (unsigned)__builtin_ctzll(m);
        uint32_t y = kernel_tid(w, ln) / h->bx;
        w->lane_addr[ln] = b->base + (l->first + (uint64_t)w->wg * h->by + y) * 4;
    }
}

/* One list iteration (r[0] = t): pc 1 index, 2-5 xx, yy, zz, mass of the
 * listed particle, 6 the pair force. */
static void hacc_pair_op(const struct hacc *h, const struct hleaf *l, struct kernel_warp *w,
                         struct kernel_op *op, uint64_t mask)
{
    unsigned sub = w->pc - 1;
    if (sub == 5) {
        op->kind = KOP_ALU;
        op->n = H_PAIR + H_LOOP;
        op->src[0] = 2;
        return;
    }
    const struct kernel_buf *b = sub == 0 ? h->ilist : sub < 4 ? h->pos[sub - 1] : h->mass;
    op->kind = KOP_LOAD;
    op->size = 4;
    op->lanes = true;
    op->mask = mask;
    op->dst = sub == 0 ? 1 : 2;
    op->src[0] = sub == 0 ? 0 : 1;
    for (uint64_t m = mask; m; m &= m - 1) {
        unsigned ln = (unsigned)__builtin_ctzll(m);
        uint64_t j = w->r[0] * h->bx + kernel_tid(w, ln) % h->bx;
        uint64_t e = l->ioff + j;
        w->lane_addr[ln] = b->base + (sub == 0 ? e : h->ient[e]) * 4;
    }
}

/* pc: 0 prologue; 1-6 list iterations; 7-9 own position loads; 10 row
 * reduction; 11-13 lane 0 loads vx, vy, vz; 14 update; 15-17 stores; exit. */
static void hacc_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    const struct hacc *h = k->ctx;
    const struct hleaf *l = &h->leaf[k->p[0]];
    uint64_t rows = hacc_mask(h, l, w, -1, false);
    if (!rows || w->pc > 17) {
        op->kind = KOP_EXIT;
        return;
    }
    if (w->pc == 0) {
        op->kind = KOP_ALU;
        op->n = H_PROLOGUE;
        w->pc = 7;
        return;
    }
    if (w->pc >= 7 && w->pc <= 9) {
        hacc_particle_op(h, l, w, op, KOP_LOAD, h->pos[w->pc - 7], rows);
        op->dst = 3;
        w->pc = w->pc == 9 ? 1 : w->pc + 1;
        return;
    }
    if (w->pc >= 1 && w->pc <= 6) {
        uint64_t mask = hacc_mask(h, l, w, (int64_t)w->r[0], false);
        if (mask) {
            hacc_pair_op(h, l, w, op, mask);
            if (w->pc == 6)
                op->src[1] = 3;
            w->pc = w->pc == 6 ? 1 : w->pc + 1;
            w->r[0] += w->pc == 1;
            return;
        }
        w->pc = 10;
    }
    uint64_t lane0 = hacc_mask(h, l, w, -1, true);
    if (w->pc == 10) {
        op->kind = KOP_ALU;
        op->n = H_RED_STEP * ilog2(h->bx);
    } else if (w->pc <= 13) {
        hacc_particle_op(h, l, w, op, KOP_LOAD, h->vel[w->pc - 11], lane0);
        op->dst = 4;
    } else if (w->pc == 14) {
        op->kind = KOP_ALU;
        op->n = H_UPDATE;
        op->src[0] = 4;
    } else {
        hacc_particle_op(h, l, w, op, KOP_STORE, h->vel[w->pc - 15], lane0);
        op->src[0] = 4;
    }
    w->pc++;
}

/* Argument order: xx, yy, zz, mass (gathers: no ranges), ilist (the leaf's
 * list), vx, vy, vz (the work-group's particles). */
static unsigned hacc_ranges(const struct kernel *k, uint32_t wg, unsigned arg,
                            struct kernel_range *out, unsigned max)
{
    const struct hacc *h = k->ctx;
    const struct hleaf *l = &h->leaf[k->p[0]];
    if (arg < 4 || arg >= k->nargs || !max)
        return 0;
    addr_t base = k->args[arg].buf->base;
    uint64_t lo = arg == 4 ? l->ioff : l->first + (uint64_t)wg * h->by;
    uint64_t hi = arg == 4 ? lo + l->icount : min_u64(lo + h->by, l->first + l->count);
    out[0] = (struct kernel_range){base + lo * 4, base + hi * 4};
    return 1;
}

static bool hacc_next_kernel(void *self, struct kernel *k)
{
    struct hacc *h = self;
    if (h->launched == h->steps * h->nleaf)
        return false;
    uint32_t leaf = h->launched % h->nleaf;
    wl_kernel_init(k, "Step10_kernel", (uint32_t)div_ceil(h->leaf[leaf].count, h->by), 1, h->bx,
                   h->by, hacc_next);
    for (int d = 0; d < 3; d++)
        wl_kernel_arg(k, h->pos[d], KERNEL_R);
    wl_kernel_arg(k, h->mass, KERNEL_R);
    wl_kernel_arg(k, h->ilist, KERNEL_R);
    for (int d = 0; d < 3; d++)
        wl_kernel_arg(k, h->vel[d], KERNEL_RW);
    k->p[0] = leaf;
    k->ranges = hacc_ranges;
    k->ctx = h;
    h->launched++;
    return true;
}

static const char *const hacc_small[] = {"np=256", "steps=1", "leaf=64", "rmax=0.05", NULL};

const struct wl_ops wl_hacc = {
    .name = "hacc",
    .desc = "HACC (CORAL-2) ForceTreeTest: RCB tree, one short-range force kernel per leaf",
    .keys = hacc_keys,
    .small = hacc_small,
    .create = hacc_create,
    .next_kernel = hacc_next_kernel,
    .destroy = hacc_destroy,
};
