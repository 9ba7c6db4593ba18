/*
 * wgs_policies.c -- the built-in work-group scheduling policies (wgsched.h).
 * n work-groups, k chiplets used (global 0 .. k-1), C chiplets per GPU, K
 * CUs per chiplet; "balanced" blocks give part c floor(n/k) + (c < n mod k)
 * consecutive ids, parts in order (spec cpelide 2.3).
 *
 *   static        balanced blocks over the k chiplets (cpelide 2.3)
 *   round_robin   i on chiplet i mod k (ladm 2, L13)
 *   batched       i on chiplet (i / batch) mod k (ladm 2: Batch+FT, 4-8)
 *   hierarchical  balanced blocks over the GPUs used; inside GPU g's block,
 *                 the j-th work-group on its chiplet (j / hier_batch) mod C_g
 *                 (ladm 7: hierarchical affinity round-robin)
 *   partition     GPU g runs ids with id / ceil(n / G_used) == g; inside, CU u
 *                 of the GPU (chiplet-major) runs the u-th chunk of
 *                 ceil(n_g / (C_g K)) ids (dualopt 2.2, MGPUSim)
 *
 *   ladm          LASP (ladm 7, ladm.h): the top-level node (a GPU, or on one
 *                 GPU a chiplet) by the class of the buffer the kernel
 *                 follows (L11): row classes, a contiguous chunk of work-group
 *                 rows per node (rows: y and z linearised, L6); column
 *                 classes, of columns; no locality, the node and chiplet that
 *                 ladm_home() gives the first byte of its first datablock
 *                 (offset + i x datablock: batches of g / datablock work-groups
 *                 round-robin, g the granule of Eq. 3.1, MinTBBatch for a
 *                 page, aligned as the data are); else,
 *                 and a row (column) binding with fewer rows (columns) than
 *                 nodes, one contiguous chunk per node (kernel-wide). Inside
 *                 GPU g, its j-th work-group on chiplet (j / MinTBBatch) mod C_g
 *
 *   coda          batches of max(1, u / datablock) work-groups round-robin over
 *                 the chiplets used, u the placement's interleave unit (ladm 2:
 *                 CODA's alignment-aware batching; datablock of the largest
 *                 buffer, ladm.h), so batch b's data is in unit b
 *   hcoda         the same batches round-robin over the GPUs used, GPU g's k-th
 *                 batch on its chiplet k mod C_g (ladm L12: H-CODA; with
 *                 [place] interleave_order = hier, batch and unit agree)
 *
 * C_g is the number of GPU g's chiplets among those used.
 */
#include <stdlib.h>

#include "ladm.h"
#include "wgsched.h"

static uint32_t block_start(uint32_t n, unsigned k, unsigned c)
{
    return c * (n / k) + (c < n % k ? c : n % k);
}

static struct wgs_target any_cu(unsigned ch)
{
    return (struct wgs_target){(uint16_t)ch, WGS_ANY_CU};
}

static void map_static(void *self, const struct wgs_ctx *x, struct wgs_target *out)
{
    (void)self;
    for (unsigned c = 0; c < x->used; c++)
        for (uint32_t i = block_start(x->n, x->used, c); i < block_start(x->n, x->used, c + 1); i++)
            out[i] = any_cu(c);
}

static void map_round_robin(void *self, const struct wgs_ctx *x, struct wgs_target *out)
{
    (void)self;
    for (uint32_t i = 0; i < x->n; i++)
        out[i] = any_cu(i % x->used);
}

static void map_batched(void *self, const struct wgs_ctx *x, struct wgs_target *out)
{
    (void)self;
    for (uint32_t i = 0; i < x->n; i++)
        out[i] = any_cu((i / x->p->batch) % x->used);
}

/* GPUs with a chiplet among those used, and how many of GPU g's are. */
static unsigned gpus_used(const struct wgs_ctx *x)
{
    return (x->used + x->t->chiplets - 1) / x->t->chiplets;
}

static unsigned gpu_chiplets(const struct wgs_ctx *x, unsigned g)
{
    unsigned first = g * x->t->chiplets;
    return x->used - first < x->t->chiplets ? x->used - first : x->t->chiplets;
}

static void map_hierarchical(void *self, const struct wgs_ctx *x, struct wgs_target *out)
{
    (void)self;
    unsigned ng = gpus_used(x);
    for (unsigned g = 0; g < ng; g++) {
        uint32_t lo = block_start(x->n, ng, g), hi = block_start(x->n, ng, g + 1);
        unsigned cg = gpu_chiplets(x, g);
        for (uint32_t i = lo; i < hi; i++)
            out[i] = any_cu(g * x->t->chiplets + ((i - lo) / x->p->hier_batch) % cg);
    }
}

static void map_partition(void *self, const struct wgs_ctx *x, struct wgs_target *out)
{
    (void)self;
    unsigned ng = gpus_used(x), K = x->t->cus;
    uint32_t per_gpu = (uint32_t)div_ceil(x->n, ng);
    for (unsigned g = 0; g < ng; g++) {
        uint32_t lo = g * per_gpu, hi = (uint32_t)min_u64(x->n, (uint64_t)(g + 1) * per_gpu);
        if (lo >= hi)
            continue;
        uint32_t chunk = (uint32_t)div_ceil(hi - lo, (uint64_t)gpu_chiplets(x, g) * K);
        for (uint32_t i = lo; i < hi; i++) {
            uint32_t u = (i - lo) / chunk;
            out[i] = (struct wgs_target){(uint16_t)(g * x->t->chiplets + u / K), (uint16_t)(u % K)};
        }
    }
}

const struct wgs_ops wgs_static = {
    .name = "static",
    .desc = "one contiguous block of work-groups per chiplet (spec cpelide 2.3)",
    .map = map_static,
};

const struct wgs_ops wgs_round_robin = {
    .name = "round_robin",
    .desc = "work-group i on chiplet i mod k (spec ladm 2)",
    .map = map_round_robin,
};

const struct wgs_ops wgs_batched = {
    .name = "batched",
    .desc = "batches of `batch` consecutive work-groups round-robin over the chiplets (spec "
            "ladm 2, Batch+FT)",
    .map = map_batched,
};

const struct wgs_ops wgs_hierarchical = {
    .name = "hierarchical",
    .desc = "a contiguous block per GPU, then batches of `hier_batch` round-robin over its "
            "chiplets (spec ladm 7)",
    .map = map_hierarchical,
};

const struct wgs_ops wgs_partition = {
    .name = "partition",
    .desc = "a contiguous block per GPU, then one contiguous chunk per CU (spec dualopt 2.2)",
    .map = map_partition,
};

/* Rows, columns or work-groups per node. */
static uint64_t ladm_per(enum ladm_sched sch, const struct wgs_ctx *x, unsigned N)
{
    const struct sched_launch *l = x->l;
    switch (sch) {
    case LADM_ROW_BINDING:
        return div_ceil((uint64_t)l->grid.y * l->grid.z, N);
    case LADM_COL_BINDING:
        return div_ceil(l->grid.x, N);
    default:
        return div_ceil(x->n, N);
    }
}

/* The chiplet of work-group i when it binds rows or columns or takes a
 * kernel-wide chunk: its top-level node, then on several GPUs its GPU's
 * chiplets in turn, MinTBBatch at a time (seen[g]: work-groups GPU g has). */
static unsigned ladm_bound(enum ladm_sched sch, uint64_t per, uint64_t batch,
                           const struct wgs_ctx *x, unsigned ng, uint32_t i, uint32_t *seen)
{
    const struct sched_launch *l = x->l;
    uint64_t node = sch == LADM_ROW_BINDING   ? i / l->grid.x / per
                    : sch == LADM_COL_BINDING ? i % l->grid.x / per
                                              : i / per;
    unsigned top = (unsigned)node;
    if (ng == 1)
        return top;
    return top * x->t->chiplets + (unsigned)((seen[top]++ / batch) % gpu_chiplets(x, top));
}

static void map_ladm(void *self, const struct wgs_ctx *x, struct wgs_target *out)
{
    uint32_t *seen = self; /* [GPUs]: work-groups given to each so far */
    const struct sched_launch *l = x->l;
    unsigned ng = gpus_used(x), N = ladm_nodes(ng, x->used);
    int d = ladm_decider(l);
    const struct sched_buf *b = d < 0 ? NULL : &l->bufs[d];
    enum ladm_sched sch = ladm_schedule(l, N);
    uint64_t per = ladm_per(sch, x, N), batch = b ? ladm_min_batch(l, b) : 1;
    for (unsigned g = 0; g < ng; g++)
        seen[g] = 0;
    if (sch != LADM_ALIGN_AWARE) {
        for (uint32_t i = 0; i < x->n; i++)
            out[i] = any_cu(ladm_bound(sch, per, batch, x, ng, i, seen));
        return;
    }
    /* alignment-aware: where the page of the work-group's first datablock is */
    unsigned C = ng > 1 ? x->t->chiplets : N;
    uint64_t g = ladm_granule_b(l, b, ladm_nodes(ng, C)), db = ladm_datablock_b(l, b);
    uint64_t off = b->loc.offset_b > 0 ? (uint64_t)b->loc.offset_b : 0;
    for (uint32_t i = 0; i < x->n; i++)
        out[i] = any_cu(ladm_home(g, l->page_b, off + i * db, ng, C) % x->used);
}

static void *ladm_create(const struct cfg_sec *sec, const struct topo *t, struct err *e)
{
    (void)sec;
    (void)e;
    return xcalloc(t->gpus, sizeof(uint32_t));
}

const struct wgs_ops wgs_ladm = {
    .name = "ladm",
    .desc = "LASP: by the locality of the kernel's largest buffer, row or column binding, "
            "alignment-aware batches or kernel-wide chunks over the GPUs (one GPU: its "
            "chiplets), then batches of MinTBBatch round-robin over a GPU's chiplets (spec "
            "ladm 7)",
    .create = ladm_create,
    .destroy = free,
    .map = map_ladm,
};

/* CODA's batch: the work-groups whose datablocks fill one interleave unit. */
static uint64_t coda_batch(const struct sched_launch *l)
{
    int d = ladm_largest(l);
    uint64_t db = ladm_datablock_b(l, d < 0 ? NULL : &l->bufs[d]);
    return l->unit_b > db ? l->unit_b / db : 1;
}

static void map_coda(void *self, const struct wgs_ctx *x, struct wgs_target *out)
{
    (void)self;
    uint64_t batch = coda_batch(x->l);
    for (uint32_t i = 0; i < x->n; i++)
        out[i] = any_cu((unsigned)((i / batch) % x->used));
}

static void map_hcoda(void *self, const struct wgs_ctx *x, struct wgs_target *out)
{
    (void)self;
    uint64_t batch = coda_batch(x->l), ng = gpus_used(x);
    for (uint32_t i = 0; i < x->n; i++) {
        uint64_t b = i / batch;
        unsigned g = (unsigned)(b % ng);
        out[i] = any_cu(g * x->t->chiplets + (unsigned)((b / ng) % gpu_chiplets(x, g)));
    }
}

const struct wgs_ops wgs_coda = {
    .name = "coda",
    .desc = "CODA: batches of work-groups whose datablocks fill one interleave unit, "
            "round-robin over the chiplets (spec ladm 2)",
    .map = map_coda,
};

const struct wgs_ops wgs_hcoda = {
    .name = "hcoda",
    .desc = "H-CODA: CODA's batches round-robin over the GPUs, then over each GPU's chiplets "
            "(spec ladm L12)",
    .map = map_hcoda,
};
