/*
 * bitonic.c -- bitonic sort as the AMD APP SDK's BitonicSort sample writes
 * it (DUALOPT's bs, spec dualopt.md 9.1): log2(n) stages of 1, 2, ...
 * passes; pass p of stage s is one launch of n / 2 threads, thread t
 * comparing the pair at distance d = 2^(s - p): leftId = (t mod d) +
 * (t / d) * 2d, rightId = leftId + d; it loads both keys and stores them
 * back in the order of its block's direction (ascending or descending by
 * t / 2^s).
 *
 * leftId is gid + d * floor(gid / d), which an index expression cannot
 * hold: the host computes d * floor(gid / d) per work-group (d at least the
 * block: a table indexed by bx) or per thread of a block (d below the block:
 * bx * blockDim.x + a table indexed by tx), and the description reads it
 * from an array (sdk_floor_table). Accesses through an array give no
 * per-work-group ranges (the whole array).
 *
 * Default: 2^20 keys (4 MiB): MGPUSim's 1024 (spec dualopt.md 9.2) scaled
 * up to span many pages on every GPU, as 9.2 asks. ALU counts from nvcc 13
 * -arch=sm_90 PTX (docs/workloads/bitonic.md). Abstracted: no key values
 * (every thread stores both keys, as the kernel does).
 */
#include <stdlib.h>

#include "workload/sdk/sdk.h"

#define BS_MAX_LOG 30

static const struct cfg_key bsort_keys[] = {
    {"n", CFG_INT, "1048576", 4, 1073741824, "keys (uint32, a power of two)", NULL},
    {"block", CFG_INT, "256", 2, 1024, "threads per work-group (a power of two)", NULL},
    CFG_END,
};

/* bitonicSort's PTX: the entry (parameters, gid, the pair distance, both
 * indices and the first address) 19, 2 between the loads, 10 (the
 * direction, the compare and both selects) before the two stores. The
 * index of the left key: gid + s * bx + off[cb * bx + ct * tx], with (s,
 * cb, ct) = (0, 1, 0) for d >= blockDim.x and (blockDim.x, 0, 1) below. */
#define BS_LEFT "gid + s*bx + @off[cb*bx + ct*tx]"
static const struct kd_desc bsort_kd = {
    .name = "bitonicSort",
    .params = (const char *const[]){"d", "s", "cb", "ct", NULL},
    .bufs = (const char *const[]){"theArray", NULL},
    .arrays = (const char *const[]){"off", NULL},
    .body = "alu 19\n"
            "load theArray[" BS_LEFT "] 4 -> r1\n"
            "alu 2\n"
            "load theArray[" BS_LEFT " + d] 4 -> r2\n"
            "alu 10 < r1 r2\n"
            "store theArray[" BS_LEFT "] 4 < r1 r2\n"
            "store theArray[" BS_LEFT " + d] 4 < r1 r2\n",
};

struct bsort {
    struct kdw w;
    unsigned log_n;
    uint32_t block, grid;
    uint32_t *off[BS_MAX_LOG]; /* [k]: the table for d = 2^k */
    const struct kernel_buf *a;
};

static int bsort_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    struct bsort *b = (struct bsort *)w;
    uint64_t n = cfg_uint(sec, "n"), block = cfg_uint(sec, "block");
    if (sdk_pow2(sec, "n", n, e) || sdk_pow2(sec, "block", block, e))
        return -1;
    if (n / 2 < block)
        return cfg_err(e, sec, "n", "fewer than two keys a thread of one work-group (block %llu)",
                       (unsigned long long)block);
    if (n / 2 / block > 65536)
        return cfg_err(e, sec, "n", "needs more than 65536 work-groups of %llu threads",
                       (unsigned long long)block);
    while (n >> (b->log_n + 1))
        b->log_n++;
    b->block = (uint32_t)block;
    b->grid = (uint32_t)(n / 2 / block);
    for (unsigned k = 0; k < b->log_n; k++) {
        uint32_t d = 1u << k, len = d < block ? b->block : b->grid;
        b->off[k] = xcalloc(len, sizeof *b->off[k]);
        sdk_floor_table(b->off[k], len, d < block ? 1 : b->block, d);
    }
    b->a = wl_alloc(w->env, "theArray", n * 4);
    return 0;
}

/* Launch i: stage s, pass p, in order. */
static bool bsort_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct bsort *b = (const struct bsort *)w;
    unsigned s = 0;
    while (s < b->log_n && i > s) /* stage s has s + 1 passes */
        i -= ++s;
    if (s == b->log_n)
        return false;
    unsigned k = s - (unsigned)i; /* d = 2^k */
    bool wide = (1u << k) >= b->block;
    sdk_launch(l, 0, b->grid, 1, b->block, 1);
    l->params[0] = 1ll << k;
    l->params[1] = wide ? 0 : b->block;
    l->params[2] = wide;
    l->params[3] = !wide;
    l->bufs[0] = b->a;
    l->arrays[0] = (struct kd_array){b->off[k], wide ? b->grid : b->block};
    return true;
}

static uint64_t bsort_count(const struct kdw *w)
{
    const struct bsort *b = (const struct bsort *)w;
    return (uint64_t)b->log_n * (b->log_n + 1) / 2;
}

static void bsort_release(struct kdw *w)
{
    struct bsort *b = (struct bsort *)w;
    for (unsigned k = 0; k < b->log_n; k++)
        free(b->off[k]);
}

static const struct kd_desc *const bsort_descs[] = {&bsort_kd, NULL};
static const struct kdw_model bsort_model = {
    .size = sizeof(struct bsort), .descs = bsort_descs, .setup = bsort_setup,
    .plan = bsort_plan, .count = bsort_count, .release = bsort_release};

static void *bsort_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&bsort_model, env, sec, e);
}

static const char *const bsort_small[] = {"n=512", "block=64", NULL};

const struct wl_ops wl_bitonic = {
    .name = "bitonic",
    .suite = "CUDA SDK",
    .desc = "bitonic sort (AMD APP SDK style): one launch per pass, pairs compared and swapped",
    .keys = bsort_keys,
    .small = bsort_small,
    .create = bsort_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
    .kernels = kdw_kernels,
};
