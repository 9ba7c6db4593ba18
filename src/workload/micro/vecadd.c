/*
 * vecadd.c -- c[i] = a[i] + b[i] over float arrays, one thread per element,
 * launched `iterations` times.
 *
 * Modelled (a kernel description, src/workload/kd.h): grid = ceil(n / block)
 * work-groups; each warp loads a[gid] into r1 and b[gid] into r2 (coalesced,
 * 4 B per lane), adds (one ALU instruction that waits for both), stores
 * c[gid] (the store also waits for r1 and r2, standing for the sum register)
 * and exits. Lanes with gid >= n are inactive; a warp with no active lane
 * exits at once. Each work-group's slice of a (R), b (R) and c (RW) is
 * derived from the description.
 * Abstracted: no data values; the bounds check and index arithmetic are not
 * issued as instructions.
 */
#include <string.h>

#include "workload/kdw.h"

static const struct cfg_key vecadd_keys[] = {
    {"n", CFG_INT, "1048576", 1, 17179869184.0, "elements per array (float)", NULL},
    {"block", CFG_INT, "256", 1, 1024, "threads per work-group", NULL},
    {"iterations", CFG_INT, "1", 1, 1000000, "kernel launches", NULL},
    CFG_END,
};

/* The kernel as HIP writes it: if (i < n) c[i] = a[i] + b[i]. */
static const char *const vecadd_params[] = {"n", NULL};
static const char *const vecadd_bufs[] = {"a", "b", "c", NULL};
static const struct kd_desc vecadd_kd = {
    .name = "vecadd",
    .params = vecadd_params,
    .bufs = vecadd_bufs,
    .body = "if gid < n\n"
            "  load a[gid] 4 -> r1\n"
            "  load b[gid] 4 -> r2\n"
            "  alu 1 < r1 r2\n"
            "  store c[gid] 4 < r1 r2   # the sum register stands in for r1 and r2\n"
            "end\n",
};

struct vecadd {
    struct kdw w;
    const struct kernel_buf *bufs[3];
    uint64_t n;
    uint32_t block;
    unsigned iterations;
};

static int vecadd_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    struct vecadd *v = (struct vecadd *)w;
    v->n = cfg_uint(sec, "n");
    uint64_t block = cfg_uint(sec, "block");
    if (div_ceil(v->n, block) > UINT32_MAX)
        return cfg_err(e, sec, "n", "needs more than %u work-groups of %llu threads", UINT32_MAX,
                       (unsigned long long)block);
    v->block = (uint32_t)block;
    v->iterations = (unsigned)cfg_uint(sec, "iterations");
    for (unsigned i = 0; i < 3; i++)
        v->bufs[i] = wl_alloc(w->env, vecadd_bufs[i], v->n * 4);
    return 0;
}

static bool vecadd_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct vecadd *v = (const struct vecadd *)w;
    if (i == v->iterations)
        return false;
    l->grid = (struct kernel_dim){(uint32_t)div_ceil(v->n, v->block), 1, 1};
    l->block = (struct kernel_dim){v->block, 1, 1};
    l->params[0] = (int64_t)v->n;
    memcpy(l->bufs, v->bufs, sizeof v->bufs);
    return true;
}

static const struct kd_desc *const vecadd_descs[] = {&vecadd_kd, NULL};
static const struct kdw_model vecadd_model = {
    .size = sizeof(struct vecadd), .descs = vecadd_descs, .setup = vecadd_setup,
    .plan = vecadd_plan};

static void *vecadd_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&vecadd_model, env, sec, e);
}

static const char *const vecadd_small[] = {"n=8192", "iterations=2", NULL};

const struct wl_ops wl_vecadd = {
    .name = "vecadd",
    .suite = "micro",
    .desc = "c[i] = a[i] + b[i] over float arrays, one thread per element",
    .keys = vecadd_keys,
    .small = vecadd_small,
    .create = vecadd_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
};
