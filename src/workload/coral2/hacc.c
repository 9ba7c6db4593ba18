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
 * seed; the tree and the lists built in create(); per leaf a Step10 kernel
 * as HACC launches it: a grid of min(ceil(list / BLOCKX), 32) x
 * min(ceil(leaf / BLOCKY), 256) work-groups of BLOCKX x BLOCKY threads;
 * thread (x, y) takes tiles of 4 of the leaf's particles (i = y, y + stride
 * ...) against tiles of 4 list entries (j = x, x + stride ...), with 16-byte
 * loads, then the list's last count % 4 entries and the leaf's last
 * count % 4 particles one at a time; each particle's three sums are reduced
 * across the row (shuffles, compute) and added to its velocities by an
 * atomic of the row's lane 0. ALU counts per basic block from the kernel's
 * PTX (nvcc 13, -arch=sm_90; see the page).
 * Abstracted: no data values; the particles are read in place where HACC
 * copies the leaf and its list into staging arrays on the host (a list tile
 * is read as the 16 bytes at its first entry).
 */
#include <stdlib.h>
#include <string.h>

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

struct hleaf {
    uint32_t first, count; /* particles [first, first + count) in tree order */
    uint32_t ioff, icount; /* interaction list entries */
    float lo[3], hi[3];
};

struct hacc {
    const struct kernel_buf *pos[3], *mass, *vel[3];
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
    return h;
}

static void hacc_destroy(void *self)
{
    struct hacc *h = self;
    free(h->leaf);
    free(h->ient);
    free(h);
}

/* ---- Step10 ------------------------------------------------------------------ */

enum { H_TILE = 4, H_MAXX = 32, H_MAXY = 256 };

/* The kernel's loops: over the leaf, tiles i (H_I) then its last count % 4
 * particles (H_K); inside each, over the list, tiles j (H_J) then its last
 * count1 % 4 entries (H_R). Lane (x, y) runs H_I and H_K from y, H_J and H_R
 * from x, with the grid's stride. */
enum { H_I, H_K, H_J, H_R };

/* One kernel's geometry: the leaf, the grid, the loop strides. */
struct hgeo {
    const struct hacc *h;
    const struct hleaf *l;
    uint32_t gx, gy;
    uint64_t sx, sy;
};

static void hgeo_of(const struct hacc *h, uint32_t leaf, struct hgeo *g)
{
    g->h = h;
    g->l = &h->leaf[leaf];
    g->gx = (uint32_t)min_u64(div_ceil(g->l->icount, h->bx), H_MAXX);
    g->gy = (uint32_t)min_u64(div_ceil(g->l->count, h->by), H_MAXY);
    g->sx = (uint64_t)h->bx * g->gx;
    g->sy = (uint64_t)h->by * g->gy;
}

/* Loop `loop`'s limit (the lane's first index must be below it) and stride. */
static uint64_t loop_lim(const struct hgeo *g, unsigned loop, uint64_t *stride)
{
    *stride = loop <= H_K ? g->sy : g->sx;
    uint32_t n = loop <= H_K ? g->l->count : g->l->icount;
    return loop == H_I || loop == H_J ? n / H_TILE : n % H_TILE;
}

/* Lane ln's position: x (list side) and y (leaf side). */
static void lane_xy(const struct kernel_warp *w, unsigned ln, uint64_t *x, uint64_t *y)
{
    const struct hacc *h = w->k->ctx;
    uint32_t tid = kernel_tid(w, ln);
    *x = (uint64_t)w->wg_id.x * h->bx + tid % h->bx;
    *y = (uint64_t)w->wg_id.y * h->by + tid / h->bx;
}

/* Iterations of `loop` lane ln runs. */
static uint64_t lane_trips(const struct hgeo *g, const struct kernel_warp *w, unsigned ln,
                           unsigned loop)
{
    uint64_t x, y, stride, lim = loop_lim(g, loop, &stride);
    lane_xy(w, ln, &x, &y);
    uint64_t v = loop <= H_K ? y : x;
    return v < lim ? div_ceil(lim - v, stride) : 0;
}

/*
 * Warp state: r[0], r[1] the outer loop's iteration and trip count, r[2],
 * r[3] the inner loop's, r[4], r[5] the open outer and inner loop (+1; 0
 * none), r[6], r[7] their first steps.
 */
static bool lane_in_outer(const struct hgeo *g, const struct kernel_warp *w, unsigned ln)
{
    return w->r[4] && w->r[0] < lane_trips(g, w, ln, (unsigned)w->r[4] - 1);
}

static bool lane_active(const struct hgeo *g, const struct kernel_warp *w, unsigned ln,
                        bool inner)
{
    return lane_in_outer(g, w, ln) &&
           (!inner || w->r[2] < lane_trips(g, w, ln, (unsigned)w->r[5] - 1));
}

/* Iterations the warp runs of `loop`: its lanes' most (an inner loop: of the
 * lanes in the outer loop's current iteration). */
static uint64_t warp_trips(const struct hgeo *g, const struct kernel_warp *w, unsigned loop)
{
    uint64_t m = 0;
    for (unsigned ln = 0; ln < w->nlanes; ln++)
        if (loop <= H_K || lane_in_outer(g, w, ln))
            m = max_u64(m, lane_trips(g, w, ln, loop));
    return m;
}

/* The particle (tree order) lane ln reads or updates: the leaf's (`own`,
 * plus u within a tile) or the list's. */
static uint64_t lane_particle(const struct hgeo *g, const struct kernel_warp *w, unsigned ln,
                              bool own, unsigned u)
{
    uint64_t x, y, stride;
    lane_xy(w, ln, &x, &y);
    unsigned loop = (unsigned)w->r[own ? 4 : 5] - 1;
    uint64_t n4 = loop_lim(g, own ? H_I : H_J, &stride) * H_TILE;
    uint64_t v = own ? y + w->r[0] * g->sy : x + w->r[2] * g->sx;
    uint64_t e = loop == H_I || loop == H_J ? v * H_TILE + u : n4 + v;
    return own ? g->l->first + e : g->h->ient[g->l->ioff + e];
}

enum { HS_ALU, HS_LOAD, HS_ATOM, HS_LOOP, HS_END };

/* A step of the per-thread program. HS_LOAD: arg 0-3 = xx, yy, zz, mass,
 * own = the leaf's particles (else the list's); HS_ATOM: arg 0-2 = vx, vy,
 * vz, u the particle of the tile; HS_LOOP: arg the loop. HS_ALU: n, plus
 * x1 (x2) if the warp enters loop if1 - 1 (if2 - 1) in the current
 * iteration of the enclosing loop. */
struct hstep {
    uint8_t kind, arg, own, u, dst, src0, src1;
    uint8_t if1, x1, if2, x2;
    uint16_t n;
};

#define HALU(n_) {.kind = HS_ALU, .n = (n_)}
#define HALUX(n_, l1, a1) {.kind = HS_ALU, .n = (n_), .if1 = (l1) + 1, .x1 = (a1)}
#define HALUXX(n_, l1, a1, l2, a2) \
    {.kind = HS_ALU, .n = (n_), .if1 = (l1) + 1, .x1 = (a1), .if2 = (l2) + 1, .x2 = (a2)}
#define HPAIR(n_) {.kind = HS_ALU, .n = (n_), .src0 = 1, .src1 = 3}
#define HOWN(a) {.kind = HS_LOAD, .arg = (a), .own = 1, .dst = 3}
#define HLIST(a) {.kind = HS_LOAD, .arg = (a), .dst = 1}
#define HLIST4 HLIST(0), HLIST(1), HLIST(2), HLIST(3)
#define HATOM(n_, d, u_) HALU(n_), {.kind = HS_ATOM, .arg = (d), .u = (u_)}
#define HLOOP(l) {.kind = HS_LOOP, .arg = (l)}
#define HEND {.kind = HS_END}

/* Step10's PTX per basic block (docs/workloads/hacc.md): the prologue with
 * the second loop's test (32) and the set-up of either loop (6, 15); per
 * tile of the leaf, the addresses (10) and the zeroed sums with the
 * remainder's test (17, 2 more with the tile loop's set-up); per tile of the
 * list the addresses (6) and 16 pair forces with the loop test (857); per
 * remaining entry 5 and 4 pair forces (213); per particle and axis the
 * shuffle reduction and the atomic's address (23 to 34, the last with the
 * loop test). The second loop: the same per particle of the leaf's rest. */
static const struct hstep h_prog[] = {
    HALUXX(32, H_I, 6, H_K, 15),
    HLOOP(H_I),
        HALU(10), HOWN(0), HOWN(1), HOWN(2), HALUX(17, H_J, 2),
        HLOOP(H_J), HALU(6), HLIST4, HPAIR(857), HEND,
        HLOOP(H_R), HALU(5), HLIST4, HPAIR(213), HEND,
        HATOM(34, 0, 0), HATOM(23, 1, 0), HATOM(30, 2, 0), HATOM(23, 0, 1), HATOM(30, 1, 1),
        HATOM(23, 2, 1), HATOM(30, 0, 2), HATOM(23, 1, 2), HATOM(30, 2, 2), HATOM(23, 0, 3),
        HATOM(30, 1, 3), HATOM(27, 2, 3),
    HEND,
    HLOOP(H_K),
        HALU(8), HOWN(0), HALU(5), HOWN(1), HALU(5), HOWN(2), HALUXX(6, H_J, 4, H_R, 1),
        HLOOP(H_J), HALU(6), HLIST4, HPAIR(207), HEND,
        HLOOP(H_R), HALU(5), HLIST4, HPAIR(54), HEND,
        HATOM(33, 0, 0), HATOM(24, 1, 0), HATOM(34, 2, 0),
    HEND,
};
#define H_NSTEPS (unsigned)(sizeof h_prog / sizeof h_prog[0])

/* Past the HS_END that closes the loop opened at pc. */
static uint32_t loop_exit(uint32_t pc)
{
    for (int depth = 0; ++pc < H_NSTEPS;) {
        if (h_prog[pc].kind == HS_LOOP)
            depth++;
        else if (h_prog[pc].kind == HS_END && !depth--)
            return pc + 1;
    }
    return pc;
}

static void loop_begin(const struct hgeo *g, struct kernel_warp *w, const struct hstep *s)
{
    bool inner = s->arg >= H_J;
    uint64_t n = warp_trips(g, w, s->arg);
    if (!n) {
        w->pc = loop_exit(w->pc);
        return;
    }
    w->r[inner ? 2 : 0] = 0;
    w->r[inner ? 3 : 1] = n;
    w->r[inner ? 5 : 4] = s->arg + 1u;
    w->r[inner ? 7 : 6] = w->pc;
    w->pc++;
}

static void loop_end(struct kernel_warp *w)
{
    bool inner = w->r[5] != 0;
    uint64_t *t = &w->r[inner ? 2 : 0];
    if (++*t < w->r[inner ? 3 : 1]) {
        w->pc = (uint32_t)w->r[inner ? 7 : 6] + 1;
        return;
    }
    w->r[inner ? 5 : 4] = 0;
    w->pc++;
}

/* A load or atomic of the lanes it applies to; false if none (the warp
 * branches over it). */
static bool hacc_mem(const struct hgeo *g, struct kernel_warp *w, const struct hstep *s,
                     struct kernel_op *op)
{
    bool atom = s->kind == HS_ATOM, own = atom || s->own;
    const struct kernel_buf *b = atom ? g->h->vel[s->arg] : s->arg < 3 ? g->h->pos[s->arg]
                                                                       : g->h->mass;
    unsigned loop = (unsigned)w->r[own ? 4 : 5] - 1;
    uint64_t mask = 0;
    for (unsigned ln = 0; ln < w->nlanes; ln++) {
        if (!lane_active(g, w, ln, !own) || (atom && kernel_tid(w, ln) % g->h->bx % 32))
            continue;
        mask |= 1ull << ln;
        w->lane_addr[ln] = b->base + lane_particle(g, w, ln, own, s->u) * 4;
    }
    op->kind = atom ? KOP_ATOMIC : KOP_LOAD;
    op->size = !atom && (loop == H_I || loop == H_J) ? 16 : 4;
    op->lanes = true;
    op->mask = mask;
    op->dst = s->dst;
    return mask != 0;
}

static uint32_t alu_n(const struct hgeo *g, const struct kernel_warp *w, const struct hstep *s)
{
    uint32_t n = s->n;
    if (s->if1 && warp_trips(g, w, s->if1 - 1u))
        n += s->x1;
    if (s->if2 && warp_trips(g, w, s->if2 - 1u))
        n += s->x2;
    return n;
}

static void hacc_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    struct hgeo g;
    hgeo_of(k->ctx, (uint32_t)k->p[0], &g);
    while (w->pc < H_NSTEPS) {
        const struct hstep *s = &h_prog[w->pc];
        if (s->kind == HS_LOOP) {
            loop_begin(&g, w, s);
            continue;
        }
        if (s->kind == HS_END) {
            loop_end(w);
            continue;
        }
        w->pc++;
        if (s->kind != HS_ALU) {
            if (hacc_mem(&g, w, s, op))
                return;
            memset(op, 0, sizeof *op);
            continue;
        }
        op->kind = KOP_ALU;
        op->n = alu_n(&g, w, s);
        op->src[0] = s->src0;
        op->src[1] = s->src1;
        return;
    }
    op->kind = KOP_EXIT;
}

/* Particles [lo, hi) of the leaf that work-group row wy updates in loop
 * `loop` (one iteration per thread: an uncapped grid). */
static void rows_range(const struct hgeo *g, unsigned loop, uint64_t wy, uint64_t *lo,
                       uint64_t *hi)
{
    uint64_t stride, lim = loop_lim(g, loop, &stride), n4 = g->l->count / H_TILE * H_TILE;
    uint64_t a = min_u64(wy * g->h->by, lim), b = min_u64(a + g->h->by, lim);
    *lo = loop == H_I ? a * H_TILE : n4 + a;
    *hi = loop == H_I ? b * H_TILE : n4 + b;
}

/* Argument order: xx, yy, zz, mass (the leaf's and the listed particles':
 * no ranges), vx, vy, vz (the particles of the work-group's rows). */
static unsigned hacc_ranges(const struct kernel *k, uint32_t wg, unsigned arg,
                            struct addr_range *out, unsigned max)
{
    if (arg < 4 || arg >= k->nargs)
        return 0;
    struct hgeo g;
    hgeo_of(k->ctx, (uint32_t)k->p[0], &g);
    addr_t base = k->args[arg].buf->base + g.l->first * 4ull;
    struct range_list l;
    range_list_init(&l, out, max, 0);
    bool whole = g.sy < g.l->count / H_TILE; /* rows loop: the whole leaf */
    for (unsigned i = 0; i < 2; i++) {
        uint64_t lo = 0, hi = g.l->count;
        if (!whole)
            rows_range(&g, i ? H_K : H_I, wg / g.gx, &lo, &hi);
        range_list_add(&l, base + lo * 4, base + hi * 4);
    }
    return range_list_done(&l, base);
}

static bool hacc_next_kernel(void *self, struct kernel *k)
{
    struct hacc *h = self;
    if (h->launched == h->steps * h->nleaf)
        return false;
    uint32_t leaf = h->launched % h->nleaf;
    struct hgeo g;
    hgeo_of(h, leaf, &g);
    wl_kernel_init(k, "Step10_kernel", g.gx, g.gy, h->bx, h->by, hacc_next);
    for (int d = 0; d < 3; d++)
        wl_kernel_arg(k, h->pos[d], KERNEL_R);
    wl_kernel_arg(k, h->mass, KERNEL_R);
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
    .suite = "CORAL-2",
    .desc = "HACC (CORAL-2) ForceTreeTest: RCB tree, one short-range force kernel per leaf",
    .keys = hacc_keys,
    .small = hacc_small,
    .create = hacc_create,
    .next_kernel = hacc_next_kernel,
    .destroy = hacc_destroy,
};
