/*
 * vecadd.c -- c[i] = a[i] + b[i] over float arrays, one thread per element,
 * launched `iterations` times.
 *
 * Modelled: grid = ceil(n / block) work-groups; each warp loads a[gid] into
 * r1 and b[gid] into r2 (coalesced, 4 B per lane), adds (one ALU instruction
 * that waits for both), stores c[gid] (the store also waits for r1 and r2,
 * standing for the sum register) and exits. Lanes with gid >= n are inactive;
 * a warp with no active lane exits at once. Each work-group declares its
 * slice of a (R), b (R) and c (RW).
 * Abstracted: no data values; the bounds check and index arithmetic are not
 * issued as instructions.
 */
#include <stdlib.h>

#include "workload/wl.h"

static const struct cfg_key vecadd_keys[] = {
    {"n", CFG_INT, "1048576", 1, 17179869184.0, "elements per array (float)", NULL},
    {"block", CFG_INT, "256", 1, 1024, "threads per work-group", NULL},
    {"iterations", CFG_INT, "1", 1, 1000000, "kernel launches", NULL},
    CFG_END,
};

struct vecadd {
    const struct kernel_buf *a, *b, *c;
    uint64_t n;
    uint32_t block, grid;
    unsigned iterations, kernels;
};

static void *vecadd_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    uint64_t n = cfg_uint(sec, "n"), block = cfg_uint(sec, "block");
    if (div_ceil(n, block) > UINT32_MAX) {
        cfg_err(e, sec, "n", "needs more than %u work-groups of %llu threads", UINT32_MAX,
                (unsigned long long)block);
        return NULL;
    }
    struct vecadd *v = xcalloc(1, sizeof *v);
    v->n = n;
    v->block = (uint32_t)block;
    v->grid = (uint32_t)div_ceil(n, block);
    v->iterations = (unsigned)cfg_uint(sec, "iterations");
    v->a = wl_alloc(env, "a", n * 4);
    v->b = wl_alloc(env, "b", n * 4);
    v->c = wl_alloc(env, "c", n * 4);
    return v;
}

static void vecadd_destroy(void *self)
{
    free(self);
}

/* Active lanes of the warp: those whose element is below n. */
static uint64_t vecadd_mask(const struct vecadd *v, const struct kernel_warp *w)
{
    uint64_t gid0 = kernel_gid(w, 0);
    uint64_t n = gid0 >= v->n ? 0 : min_u64(w->nlanes, v->n - gid0);
    return n >= 64 ? ~0ull : (1ull << n) - 1;
}

static void vecadd_mem(struct kernel_op *op, uint8_t kind, const struct kernel_buf *b,
                       const struct kernel_warp *w, uint64_t mask)
{
    op->kind = kind;
    op->size = 4;
    op->stride = 4;
    op->base = b->base + kernel_gid(w, 0) * 4;
    op->mask = mask;
}

/* pc: 0 load a, 1 load b, 2 add, 3 store c, 4 exit. */
static void vecadd_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    const struct vecadd *v = k->ctx;
    uint64_t mask = vecadd_mask(v, w);
    if (!mask)
        w->pc = 4;
    switch (w->pc) {
    case 0:
        vecadd_mem(op, KOP_LOAD, v->a, w, mask);
        op->dst = 1;
        break;
    case 1:
        vecadd_mem(op, KOP_LOAD, v->b, w, mask);
        op->dst = 2;
        break;
    case 2:
        op->kind = KOP_ALU;
        op->n = 1;
        break;
    case 3:
        vecadd_mem(op, KOP_STORE, v->c, w, mask);
        break;
    default:
        op->kind = KOP_EXIT;
        return;
    }
    if (w->pc >= 2) { /* the add and the store of the sum wait for both loads */
        op->src[0] = 1;
        op->src[1] = 2;
    }
    w->pc++;
}

/* A work-group's slice of any of the three arrays. */
static unsigned vecadd_ranges(const struct kernel *k, uint32_t wg, unsigned arg,
                              struct kernel_range *out, unsigned max)
{
    const struct vecadd *v = k->ctx;
    if (arg >= k->nargs || max < 1)
        return 0;
    uint64_t first = (uint64_t)wg * v->block;
    addr_t base = k->args[arg].buf->base;
    out[0].lo = base + first * 4;
    out[0].hi = base + min_u64(first + v->block, v->n) * 4;
    return 1;
}

static bool vecadd_next_kernel(void *self, struct kernel *k)
{
    struct vecadd *v = self;
    if (v->kernels == v->iterations)
        return false;
    wl_kernel_init(k, "vecadd", v->grid, 1, v->block, 1, vecadd_next);
    wl_kernel_arg(k, v->a, KERNEL_R);
    wl_kernel_arg(k, v->b, KERNEL_R);
    wl_kernel_arg(k, v->c, KERNEL_RW);
    for (unsigned i = 0; i < k->nargs; i++)
        k->args[i].same_pattern = v->kernels > 0;
    k->ranges = vecadd_ranges;
    k->ctx = v;
    v->kernels++;
    return true;
}

static const char *const vecadd_small[] = {"n=8192", "iterations=2", NULL};

const struct wl_ops wl_vecadd = {
    .name = "vecadd",
    .desc = "c[i] = a[i] + b[i] over float arrays, one thread per element",
    .keys = vecadd_keys,
    .small = vecadd_small,
    .create = vecadd_create,
    .next_kernel = vecadd_next_kernel,
    .destroy = vecadd_destroy,
};
