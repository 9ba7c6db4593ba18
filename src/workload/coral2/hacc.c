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
 * PTX (nvcc 13, -arch=sm_90; see the page). The kernel is a kernel
 * description (src/workload/kd.h) run by the driver of src/workload/kdw.h,
 * launched per leaf with the leaf's particles and list as parameters and
 * the lists as an array; the velocities' per-work-group ranges and the
 * arguments' same_pattern are derived from it.
 * Abstracted: no data values; the particles are read in place where HACC
 * copies the leaf and its list into staging arrays on the host (a list tile
 * is read as the 16 bytes at its first entry).
 */
#include <stdlib.h>
#include <string.h>

#include "workload/kdw.h"

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

/* ---- Step10 ------------------------------------------------------------------ */

/* Step10's PTX per basic block (docs/workloads/hacc.md): the prologue with
 * the second loop's test (32) and the set-up of either loop (6, 15); per
 * tile of the leaf, the addresses (10) and the zeroed sums with the
 * remainder's test (17, 2 more with the tile loop's set-up); per tile of the
 * list the addresses (6) and 16 pair forces with the loop test (857); per
 * remaining entry 5 and 4 pair forces (213); per particle and axis the
 * shuffle reduction and the atomic's address (23 to 34, the last with the
 * loop test). The second loop: the same per particle of the leaf's rest.
 *
 * Thread (x, y) = (bx*bdx + tx, by*bdy + ty) takes the leaf's tiles
 * m0 = y, y + stride ... below n4 = count / 4 (particles first + 4 m0 ..
 * + 3), then its last particles first + 4 n4 + m1, m1 = y ... below nr =
 * count % 4; inside each, the list's tiles m2 = x ... below c4 = list / 4
 * (entries ient[ioff + 4 m2] on: a tile is read as the 16 bytes at its
 * first entry), then its last entries 4 c4 + m3, m3 = x ... below cr. The
 * row's lane 0 of each 32 adds the sums: tx < 1 where BLOCKX <= 32, else
 * the columns @lead marks (one description per test, HACC_KD). */
#define H_Y "by*bdy + ty"
#define H_X "bx*bdx + tx"
#define H_LIST(ix, sz)                                                                      \
    "    load xx[@ient[" ix "]] " sz " -> r1\n    load yy[@ient[" ix "]] " sz " -> r1\n"  \
    "    load zz[@ient[" ix "]] " sz " -> r1\n    load mass[@ient[" ix "]] " sz " -> r1\n"
#define H_LISTS(tile, rest)                                                                 \
    "  for m2 = " H_X " .. c4 step gdx*bdx\n    alu 6\n" H_LIST("ioff + 4*m2", "16/4")      \
    "    alu " tile " < r1 r3\n  end\n"                                                       \
    "  for m3 = " H_X " .. cr step gdx*bdx\n    alu 5\n" H_LIST("ioff + 4*c4 + m3", "4")     \
    "    alu " rest " < r1 r3\n  end\n"
#define H_ATOM(n, v, ix) "  alu " n "\n  if " LEAD "\n    atomic " v "[" ix "] 4\n  end\n"
#define H_TILE_ATOMS(u, a, b, c)                                                            \
    H_ATOM(a, "vx", "first + 4*m0 + " u) H_ATOM(b, "vy", "first + 4*m0 + " u)              \
        H_ATOM(c, "vz", "first + 4*m0 + " u)
#define H_OWN "first + 4*n4 + m1"
static const char *const hacc_params[] = {"first", "ioff", "n4", "nr", "c4", "cr", NULL};
static const char *const hacc_bufs[] = {"xx", "yy", "zz", "mass", "vx", "vy", "vz", NULL};
static const char *const hacc_arrays[] = {"ient", "lead", NULL};
#define HACC_KD                                                                             \
    {.name = "Step10_kernel", .params = hacc_params, .bufs = hacc_bufs, .arrays = hacc_arrays, \
     .body = "alu 32 + 6 [" H_Y " < n4] + 15 [" H_Y " < nr]\n"                                 \
             "for m0 = " H_Y " .. n4 step gdy*bdy\n"                                          \
             "  alu 10\n"                                                                     \
             "  load xx[first + 4*m0] 16/4 -> r3\n"                                           \
             "  load yy[first + 4*m0] 16/4 -> r3\n"                                           \
             "  load zz[first + 4*m0] 16/4 -> r3\n"                                           \
             "  alu 17 + 2 [" H_X " < c4]\n" H_LISTS("857", "213")                            \
             H_TILE_ATOMS("0", "34", "23", "30") H_TILE_ATOMS("1", "23", "30", "23")          \
             H_TILE_ATOMS("2", "30", "23", "30") H_TILE_ATOMS("3", "23", "30", "27")          \
             "end\n"                                                                          \
             "for m1 = " H_Y " .. nr step gdy*bdy\n"                                          \
             "  alu 8\n"                                                                      \
             "  load xx[" H_OWN "] 4 -> r3\n"                                                 \
             "  alu 5\n"                                                                      \
             "  load yy[" H_OWN "] 4 -> r3\n"                                                 \
             "  alu 5\n"                                                                      \
             "  load zz[" H_OWN "] 4 -> r3\n"                                                 \
             "  alu 6 + 4 [" H_X " < c4] + 1 [" H_X " < cr]\n" H_LISTS("207", "54")           \
             H_ATOM("33", "vx", H_OWN) H_ATOM("24", "vy", H_OWN) H_ATOM("34", "vz", H_OWN)    \
             "end\n"}
#define LEAD "tx < 1"
static const struct kd_desc hacc_kd_32 = HACC_KD; /* BLOCKX <= 32 */
#undef LEAD
#define LEAD "0 < @lead[tx]"
static const struct kd_desc hacc_kd_64 = HACC_KD;
#undef LEAD

enum { H_TILE = 4, H_MAXX = 32, H_MAXY = 256 };

struct hleaf {
    uint32_t first, count; /* particles [first, first + count) in tree order */
    uint32_t ioff, icount; /* interaction list entries */
    float lo[3], hi[3];
};

struct hacc {
    struct kdw w;
    const struct kernel_buf *bufs[7]; /* xx, yy, zz, mass, vx, vy, vz */
    struct hleaf *leaf;
    uint32_t *ient, *lead; /* the lists; lead[t]: column t adds its row's sums */
    uint64_t nient;
    uint32_t np, nleaf, bx, by, steps;
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
    h->nient = n;
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

static int hacc_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    struct hacc *h = (struct hacc *)w;
    uint64_t bx = cfg_uint(sec, "blockx"), by = cfg_uint(sec, "blocky");
    if (bx * by > 1024)
        return cfg_err(e, sec, "blocky", "blockx x blocky = %llu threads, more than 1024",
                       (unsigned long long)(bx * by));
    if (w->env->warp_size % bx)
        return cfg_err(e, sec, "blockx", "must divide the warp size (%u): a row stays in one warp",
                       w->env->warp_size);
    h->np = (uint32_t)cfg_uint(sec, "np");
    h->bx = (uint32_t)bx;
    h->by = (uint32_t)by;
    h->steps = (uint32_t)cfg_uint(sec, "steps");
    hacc_tree(h, w->env->seed, (uint32_t)cfg_uint(sec, "leaf"), (float)cfg_float(sec, "rmax"));
    for (int b = 0; b < 7; b++)
        h->bufs[b] = wl_alloc(w->env, hacc_bufs[b], h->np * 4ull);
    h->lead = xmalloc(bx * sizeof *h->lead);
    for (uint32_t t = 0; t < bx; t++)
        h->lead[t] = t % 32 == 0; /* the shuffle reduction's lane 0 of each 32 */
    return 0;
}

static void hacc_release(struct kdw *w)
{
    struct hacc *h = (struct hacc *)w;
    free(h->leaf);
    free(h->ient);
    free(h->lead);
}

/* Launch i: Step10 on leaf i % leaves, with its particles and list. */
static bool hacc_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct hacc *h = (const struct hacc *)w;
    if (i == (uint64_t)h->steps * h->nleaf)
        return false;
    const struct hleaf *f = &h->leaf[i % h->nleaf];
    l->prog = h->bx <= 32 ? 0 : 1;
    l->grid = (struct kernel_dim){(uint32_t)min_u64(div_ceil(f->icount, h->bx), H_MAXX),
                                  (uint32_t)min_u64(div_ceil(f->count, h->by), H_MAXY), 1};
    l->block = (struct kernel_dim){h->bx, h->by, 1};
    int64_t p[] = {f->first,          f->ioff,             f->count / H_TILE,
                   f->count % H_TILE, f->icount / H_TILE, f->icount % H_TILE};
    memcpy(l->params, p, sizeof p);
    memcpy(l->bufs, h->bufs, sizeof h->bufs);
    l->arrays[0] = (struct kd_array){h->ient, h->nient};
    l->arrays[1] = (struct kd_array){h->lead, h->bx};
    return true;
}

static uint64_t hacc_count(const struct kdw *w)
{
    const struct hacc *h = (const struct hacc *)w;
    return (uint64_t)h->steps * h->nleaf;
}

static const struct kd_desc *const hacc_descs[] = {&hacc_kd_32, &hacc_kd_64, NULL};
static const struct kdw_model hacc_model = {
    .size = sizeof(struct hacc), .descs = hacc_descs, .setup = hacc_setup, .plan = hacc_plan,
    .count = hacc_count, .release = hacc_release};

static void *hacc_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&hacc_model, env, sec, e);
}

static const char *const hacc_small[] = {"np=256", "steps=1", "leaf=64", "rmax=0.05", NULL};

const struct wl_ops wl_hacc = {
    .name = "hacc",
    .suite = "CORAL-2",
    .desc = "HACC (CORAL-2) ForceTreeTest: RCB tree, one short-range force kernel per leaf",
    .keys = hacc_keys,
    .small = hacc_small,
    .create = hacc_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
    .kernels = kdw_kernels,
};
