/*
 * random_loc.c -- Random-loc, the random-access microbenchmark of Young et
 * al. that spec ladm.md 10 (Table 3.4) runs: every thread reads one element
 * of a 64 MB table at a pseudo-random position and writes its own element
 * of an output array; 41013 work-groups of 256 threads.
 *
 * Modelled (kernel descriptions, kd.h): the index hash (multiply, shifts,
 * xors, the modulo: in registers), the gather from `data` and the coalesced
 * store to out[gid]. The positions are drawn on the host from sim.seed, one
 * per thread, and bound to the description as an array: the kernel's hash
 * is replaced by the host's generator (same uniform spread, no clustering).
 * ALU counts from nvcc 13 -arch=sm_90 PTX of a CUDA version (see
 * docs/workloads/random-loc.md).
 * Abstracted: no data values. A substitute: the benchmark's code is not
 * public; this is our reading of "reads random locations".
 */
#include <stdlib.h>
#include <string.h>

#include "workload/kdw.h"

static const struct cfg_key rl_keys[] = {
    {"n", CFG_INT, "16777216", 1, 4294967295.0, "table elements (float; 64 MiB by default)",
     NULL},
    {"blocks", CFG_INT, "41013", 1, 2147483647.0, "work-groups (the LADM paper's launch)", NULL},
    {"block", CFG_INT, "256", 1, 1024, "threads per work-group", NULL},
    {"iterations", CFG_INT, "1", 1, 1000000, "kernel launches", NULL},
    CFG_END,
};

/* PTX: parameters, the thread id, the hash and the modulo, the gather's
 * address (17); after the load the address of out[gid] (2). */
static const char *const rl_bufs[] = {"data", "out", NULL};
static const char *const rl_arrays[] = {"pos", NULL};
static const struct kd_desc rl_kd = {
    .name = "random_loc",
    .bufs = rl_bufs,
    .arrays = rl_arrays,
    .body = "alu 17                     # id, hash, modulo, &data[x]\n"
            "load data[@pos[gid]] 4 -> r1\n"
            "alu 2                      # &out[gid]\n"
            "store out[gid] 4 < r1\n",
};

struct rl {
    struct kdw w;
    const struct kernel_buf *bufs[2];
    uint32_t *pos;
    uint64_t threads;
    uint32_t blocks, block;
    unsigned iterations;
};

static int rl_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    struct rl *r = (struct rl *)w;
    uint64_t n = cfg_uint(sec, "n");
    r->blocks = (uint32_t)cfg_uint(sec, "blocks");
    r->block = (uint32_t)cfg_uint(sec, "block");
    r->iterations = (unsigned)cfg_uint(sec, "iterations");
    r->threads = (uint64_t)r->blocks * r->block;
    if (r->threads > UINT32_MAX)
        return cfg_err(e, sec, "blocks", "%llu threads: at most %u", (unsigned long long)r->threads,
                       UINT32_MAX);
    struct rng g;
    rng_seed(&g, w->env->seed);
    r->pos = xmalloc(r->threads * sizeof *r->pos);
    for (uint64_t i = 0; i < r->threads; i++)
        r->pos[i] = (uint32_t)rng_below(&g, n);
    r->bufs[0] = wl_alloc(w->env, "data", n * 4);
    r->bufs[1] = wl_alloc(w->env, "out", r->threads * 4);
    return 0;
}

static bool rl_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct rl *r = (const struct rl *)w;
    if (i == r->iterations)
        return false;
    l->grid = (struct kernel_dim){r->blocks, 1, 1};
    l->block = (struct kernel_dim){r->block, 1, 1};
    l->arrays[0] = (struct kd_array){r->pos, r->threads};
    memcpy(l->bufs, r->bufs, sizeof r->bufs);
    return true;
}

static void rl_release(struct kdw *w)
{
    free(((struct rl *)w)->pos);
}

static const struct kd_desc *const rl_descs[] = {&rl_kd, NULL};
static const struct kdw_model rl_model = {.size = sizeof(struct rl), .descs = rl_descs,
                                          .setup = rl_setup, .plan = rl_plan,
                                          .release = rl_release};

static void *rl_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&rl_model, env, sec, e);
}

static const char *const rl_small[] = {"n=16384", "blocks=8", "iterations=2", NULL};

const struct wl_ops wl_random_loc = {
    .name = "random-loc",
    .suite = "micro",
    .desc = "Random-loc: each thread reads one random element of a table (substitute: our "
            "reading of Young et al.)",
    .keys = rl_keys,
    .small = rl_small,
    .create = rl_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
};
