/*
 * streamcluster.c -- Rodinia StreamCluster (CUDA): online k-median
 * clustering; its GPU part is pgain's cost kernel, launched once per
 * candidate centre x: each thread takes one point, computes its distance
 * to x (a loop over the dimensions of the column-major coordinates), and
 * either marks the point to switch to x and adds the saving to its row of
 * work_mem at column K, or adds the loss to the column of its current
 * centre (spec ladm.md 10 "StreamCluster": unclassified, 512 threads per
 * work-group, 1024 work-groups).
 *
 * Modelled (kernel descriptions, kd.h): that kernel, one launch per pgain
 * call. The host runs the clustering the calls need, in C: random points
 * (as Rodinia makes them), `kmin` random first centres with every point
 * assigned to its nearest, then per call a random candidate x; a point
 * switches where x is nearer than its centre, and x is opened (the
 * switching points move to it) while fewer than `kmax` centres are open.
 * The switch flags, each point's centre and that centre's column are bound
 * to each launch as arrays. ALU counts from nvcc 13 -arch=sm_90 PTX of a
 * CUDA version (docs/workloads/streamcluster.md).
 * Abstracted: no data values in the simulated memory; Rodinia's facility
 * cost test and its closing of centres (the host side of pgain), and the
 * copies around each launch.
 */
#include <stdlib.h>
#include <string.h>

#include "workload/kdw.h"

static const struct cfg_key sc_keys[] = {
    {"points", CFG_INT, "65536", 1, 1048576, "points (Rodinia: 65536)", NULL},
    {"dim", CFG_INT, "256", 1, 4096, "dimensions per point", NULL},
    {"kmin", CFG_INT, "10", 1, 1000, "centres opened first", NULL},
    {"kmax", CFG_INT, "20", 1, 1000, "most centres", NULL},
    {"calls", CFG_INT, "8", 1, 100000, "pgain calls = launches", NULL},
    {"block", CFG_INT, "512", 32, 1024, "threads per work-group (Rodinia: 512)", NULL},
    CFG_END,
};

/* PTX: the entry (parameters, ids, test, &work_mem[tid * stride]: 24), the
 * distance loop's set-up (7); per dimension after the two loads (8); the
 * weight's address (4), after it the cost's (1), the compare (3); switching
 * lanes: 2, the flag's store, lower[K]'s load, 5, the cost's reload (the
 * store may alias it), 1, the store; others: 1, the assign load, 2, the
 * center_table load, 3, lower[...]'s load, 1, the store. Point is 32 bytes:
 * weight at 0, assign (8 bytes) at 16, cost at 24. */
static const char *const sc_params[] = {"num", "dim", "x", "K", "stride", NULL};
static const char *const sc_bufs[] = {"p", "coord_d", "work_mem_d", "center_table_d",
                                      "switch_membership_d", NULL};
static const char *const sc_arrays[] = {"sw", "asg", "col", NULL};
static const struct kd_desc sc_kd = {
    .name = "kernel_compute_cost",
    .params = sc_params,
    .bufs = sc_bufs,
    .arrays = sc_arrays,
    .body = "alu 24\n"
            "if gid < num\n"
            "  alu 7\n"
            "  for m0 = 0 .. dim\n"
            "    load coord_d[m0*num + gid] 4 -> r1\n"
            "    load coord_d[m0*num + x] 4 -> r2\n"
            "    alu 8 < r1 r2\n"
            "  end\n"
            "  alu 4\n"
            "  load p[8*gid] 4 -> r3                      # weight\n"
            "  alu 1\n"
            "  load p[8*gid + 6] 4 -> r4                  # cost\n"
            "  alu 3 < r3 r4\n"
            "  if 0 < @sw[gid]                            # x_cost < cost\n"
            "    alu 2\n"
            "    store switch_membership_d[gid] 1\n"
            "    load work_mem_d[gid*stride + K] 4 -> r5\n"
            "    alu 5\n"
            "    load p[8*gid + 6] 4 -> r6\n"
            "    alu 1 < r5 r6\n"
            "    store work_mem_d[gid*stride + K] 4\n"
            "  end\n"
            "  if @sw[gid] < 1\n"
            "    alu 1\n"
            "    load p[4*gid + 2] 8 -> r7                # assign\n"
            "    alu 2 < r7\n"
            "    load center_table_d[@asg[gid]] 4 -> r8\n"
            "    alu 3 < r8\n"
            "    load work_mem_d[gid*stride + @col[gid]] 4 -> r9\n"
            "    alu 1 < r9\n"
            "    store work_mem_d[gid*stride + @col[gid]] 4\n"
            "  end\n"
            "end\n",
};

struct sc {
    struct kdw w;
    uint32_t n, dim, kmin, kmax, calls, block;
    float *coord;             /* [dim][n] */
    float *cost;              /* [n] */
    uint32_t *centre, ncentre; /* open centres' points, kmax of them */
    uint32_t *assign;          /* [n]: the index of each point's centre */
    uint32_t *x, *k;           /* per call: the candidate, the open centres */
    uint32_t *sw, *asg, *col;  /* per call, n each */
    const struct kernel_buf *bufs[5];
};

static float sc_dist(const struct sc *s, uint32_t a, uint32_t b)
{
    float d = 0;
    for (uint32_t i = 0; i < s->dim; i++) {
        float t = s->coord[(size_t)i * s->n + a] - s->coord[(size_t)i * s->n + b];
        d += t * t;
    }
    return d;
}

/* Random points, kmin distinct random first centres, every point assigned
 * to its nearest (weights 1: a point's cost is its distance). */
static void sc_start(struct sc *s, struct rng *g)
{
    s->coord = xmalloc((size_t)s->dim * s->n * sizeof *s->coord);
    for (size_t i = 0; i < (size_t)s->dim * s->n; i++)
        s->coord[i] = (float)rng_unit(g);
    s->centre = xmalloc(s->kmax * sizeof *s->centre);
    for (s->ncentre = 0; s->ncentre < s->kmin;) {
        uint32_t c = (uint32_t)rng_below(g, s->n);
        bool dup = false;
        for (uint32_t j = 0; j < s->ncentre; j++)
            dup |= s->centre[j] == c;
        if (!dup)
            s->centre[s->ncentre++] = c;
    }
    s->cost = xmalloc(s->n * sizeof *s->cost);
    s->assign = xmalloc(s->n * sizeof *s->assign);
    for (uint32_t p = 0; p < s->n; p++) {
        s->assign[p] = 0;
        s->cost[p] = sc_dist(s, p, s->centre[0]);
        for (uint32_t j = 1; j < s->ncentre; j++) {
            float d = sc_dist(s, p, s->centre[j]);
            if (d < s->cost[p])
                s->cost[p] = d, s->assign[p] = j;
        }
    }
}

/* pgain call c with candidate x: what each point's thread sees, then x
 * opened while fewer than kmax centres are. */
static void sc_call(struct sc *s, uint32_t c, uint32_t x)
{
    uint32_t *sw = s->sw + (size_t)c * s->n, *asg = s->asg + (size_t)c * s->n,
             *col = s->col + (size_t)c * s->n;
    bool open = s->ncentre < s->kmax, any = false;
    s->x[c] = x;
    s->k[c] = s->ncentre;
    for (uint32_t p = 0; p < s->n; p++) {
        float d = sc_dist(s, p, x);
        sw[p] = d < s->cost[p];
        asg[p] = s->centre[s->assign[p]];
        col[p] = s->assign[p];
        if (sw[p] && open)
            s->cost[p] = d, s->assign[p] = s->ncentre, any = true;
    }
    if (any)
        s->centre[s->ncentre++] = x;
}

static int sc_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    struct sc *s = (struct sc *)w;
    s->n = (uint32_t)cfg_uint(sec, "points");
    s->dim = (uint32_t)cfg_uint(sec, "dim");
    s->kmin = (uint32_t)cfg_uint(sec, "kmin");
    s->kmax = (uint32_t)cfg_uint(sec, "kmax");
    s->calls = (uint32_t)cfg_uint(sec, "calls");
    s->block = (uint32_t)cfg_uint(sec, "block");
    if (s->kmin > s->kmax)
        return cfg_err(e, sec, "kmin", "must be at most kmax (%u)", s->kmax);
    if (s->kmin > s->n)
        return cfg_err(e, sec, "kmin", "must be at most points (%u)", s->n);
    if ((uint64_t)s->calls * s->n > (1u << 28))
        return cfg_err(e, sec, "calls", "calls x points must be at most %u", 1u << 28);
    struct rng g;
    rng_seed(&g, w->env->seed);
    sc_start(s, &g);
    size_t per = (size_t)s->calls * s->n;
    s->sw = xmalloc(per * sizeof *s->sw), s->asg = xmalloc(per * sizeof *s->asg);
    s->col = xmalloc(per * sizeof *s->col);
    s->x = xmalloc(s->calls * sizeof *s->x), s->k = xmalloc(s->calls * sizeof *s->k);
    for (uint32_t c = 0; c < s->calls; c++)
        sc_call(s, c, (uint32_t)rng_below(&g, s->n));
    const uint64_t size[] = {s->n * 32ull, (uint64_t)s->dim * s->n * 4,
                             (uint64_t)s->n * (s->kmax + 1) * 4, s->n * 4ull, s->n};
    for (unsigned i = 0; i < 5; i++)
        s->bufs[i] = wl_alloc(w->env, sc_bufs[i], size[i]);
    return 0;
}

static bool sc_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct sc *s = (const struct sc *)w;
    if (i == s->calls)
        return false;
    l->grid = (struct kernel_dim){(uint32_t)div_ceil(s->n, s->block), 1, 1};
    l->block = (struct kernel_dim){s->block, 1, 1};
    l->params[0] = s->n;
    l->params[1] = s->dim;
    l->params[2] = s->x[i];
    l->params[3] = s->k[i];
    l->params[4] = s->k[i] + 1;
    l->arrays[0] = (struct kd_array){s->sw + i * s->n, s->n};
    l->arrays[1] = (struct kd_array){s->asg + i * s->n, s->n};
    l->arrays[2] = (struct kd_array){s->col + i * s->n, s->n};
    memcpy(l->bufs, s->bufs, sizeof s->bufs);
    return true;
}

static void sc_release(struct kdw *w)
{
    struct sc *s = (struct sc *)w;
    free(s->coord), free(s->cost), free(s->centre), free(s->assign);
    free(s->x), free(s->k), free(s->sw), free(s->asg), free(s->col);
}

static const struct kd_desc *const sc_descs[] = {&sc_kd, NULL};
static const struct kdw_model sc_model = {.size = sizeof(struct sc), .descs = sc_descs,
                                          .setup = sc_setup, .plan = sc_plan,
                                          .release = sc_release};

static void *sc_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&sc_model, env, sec, e);
}

static const char *const sc_small[] = {"points=256", "dim=4", "kmin=2", "kmax=4", "calls=3",
                                       "block=128", NULL};

const struct wl_ops wl_streamcluster = {
    .name = "streamcluster",
    .suite = "Rodinia",
    .desc = "Rodinia StreamCluster: pgain's cost kernel per candidate centre, the clustering "
            "run on the host",
    .keys = sc_keys,
    .small = sc_small,
    .create = sc_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
};
