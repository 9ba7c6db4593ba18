/*
 * chase.c -- pointer-chase microbenchmark: the unloaded load-to-use latency
 * of one level of the hierarchy (L1, local L2, remote L2, L3, DRAM).
 *
 * Modelled: one warp follows a single random cycle through a buffer, one
 * node per line (Sattolo's algorithm), with one-lane 8-byte loads that each
 * wait for the previous one (dst = src = r1), so exactly one load is in
 * flight. Which level serves the loads is arranged by footprint, warm-up
 * passes, kernel boundaries (which empty the L2s under viper), work-group
 * placement (static partitioning: with at most one WG per chiplet, WG i on
 * chiplet i; l2_remote chases from chiplet `peer`, by default 1) and
 * first-touch homing; see docs/microbench.md.
 * Abstracted: the node contents are not simulated; the generator knows the
 * permutation and issues the address the loaded pointer would hold. The
 * l2_remote target relies on a fixed wait (ALU) for WG0's first touches to
 * finish before WG1 starts chasing.
 */
#include <stdlib.h>

#include "workload/wl.h"

enum chase_target { CHASE_L1, CHASE_L2, CHASE_L2_REMOTE, CHASE_L3, CHASE_DRAM };

/* Automatic footprints (KiB) per target, in enum order. */
static const uint64_t chase_auto_kib[] = {8, 4096, 1024, 2048, 262144};

#define CHASE_ALU_CYCLES 4        /* cycles per ALU instruction assumed for the wait */
#define CHASE_WAIT_MARGIN 2000    /* cycles added to the l2_remote wait */

static const struct cfg_key chase_keys[] = {
    {"target", CFG_ENUM, "l2", 0, 0, "level whose load-to-use latency is measured",
     "l1|l2|l2_remote|l3|dram"},
    {"footprint_kib", CFG_INT, "0", 0, 4194304,
     "chain size in KiB (0 = per target: l1 8, l2 4096, l2_remote 1024, l3 2048, dram 262144)",
     NULL},
    {"passes", CFG_INT, "2", 1, 1000000, "measured passes over the chain (l3: one kernel each)",
     NULL},
    {"line_b", CFG_INT, "64", 8, 1024, "line size in bytes (one chain node per line)", NULL},
    {"touch_op_cycles", CFG_INT, "600", 1, 1000000,
     "l2_remote: cycles WG1 waits per first-touch load of WG0 (plus 2000)", NULL},
    {"peer", CFG_INT, "1", 1, 4095,
     "l2_remote: the chiplet that chases (global index; the data is homed on chiplet 0), e.g. "
     "a chiplet of another GPU", NULL},
    CFG_END,
};

struct chase {
    const struct kernel_buf *chain;
    uint32_t *next;        /* next[i]: the node line i points to */
    uint64_t lines, line_b;
    unsigned target, passes, touch_op_cycles, warp_size, peer;
    unsigned kernels;      /* kernels handed out so far */
};

static int chase_params(struct chase *c, const struct wl_env *env, const struct cfg_sec *sec,
                        struct err *e)
{
    c->warp_size = env->warp_size;
    c->target = cfg_enum(sec, "target");
    c->passes = (unsigned)cfg_uint(sec, "passes");
    c->line_b = cfg_uint(sec, "line_b");
    c->touch_op_cycles = (unsigned)cfg_uint(sec, "touch_op_cycles");
    c->peer = (unsigned)cfg_uint(sec, "peer");
    uint64_t kib = cfg_uint(sec, "footprint_kib");
    if (!kib)
        kib = chase_auto_kib[c->target];
    if (!is_pow2(c->line_b))
        return cfg_err(e, sec, "line_b", "not a power of two");
    c->lines = kib * 1024 / c->line_b;
    if (c->lines < 2)
        return cfg_err(e, sec, "footprint_kib", "the chain needs at least 2 lines of %llu B",
                       (unsigned long long)c->line_b);
    if (c->target == CHASE_L2_REMOTE && env->nchiplets < 2)
        return cfg_err(e, sec, "target", "needs at least 2 chiplets (the system has %u)",
                       env->nchiplets);
    if (c->target == CHASE_L2_REMOTE && c->peer >= env->nchiplets)
        return cfg_err(e, sec, "peer", "not a chiplet of the system (0..%u)", env->nchiplets - 1);
    return 0;
}

/* Sattolo's algorithm: a uniformly random permutation that is one cycle. */
static void chase_build(struct chase *c, uint64_t seed)
{
    struct rng r;
    rng_seed(&r, seed);
    c->next = xmalloc(c->lines * sizeof *c->next);
    for (uint64_t i = 0; i < c->lines; i++)
        c->next[i] = (uint32_t)i;
    for (uint64_t i = c->lines - 1; i > 0; i--) {
        uint64_t j = rng_below(&r, i);
        uint32_t t = c->next[i];
        c->next[i] = c->next[j];
        c->next[j] = t;
    }
}

static void *chase_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    struct chase *c = xcalloc(1, sizeof *c);
    if (chase_params(c, env, sec, e)) {
        free(c);
        return NULL;
    }
    c->chain = wl_alloc(env, "chain", c->lines * c->line_b);
    chase_build(c, env->seed);
    return c;
}

static void chase_destroy(void *self)
{
    struct chase *c = self;
    free(c->next);
    free(c);
}

/* One dependent chase load of the warp's current node (r[1]); r[0] counts loads. */
static void chase_load(const struct chase *c, struct kernel_warp *w, struct kernel_op *op,
                       bool measured)
{
    op->kind = KOP_LOAD;
    op->size = 8;
    op->dst = 1;
    op->src[0] = 1;
    op->mask = 1;
    op->base = c->chain->base + w->r[1] * c->line_b;
    op->flags = measured ? KOP_F_MEASURE : 0;
    w->r[1] = c->next[w->r[1]];
    w->r[0]++;
}

/* After the last load: consume registers (two per ALU op; r[2] counts the
 * ops) so that the warp, and so the kernel, ends only when its loads have
 * returned, as a real kernel that uses what it loads; then exit. */
static void chase_drain(struct kernel_warp *w, struct kernel_op *op, unsigned regs)
{
    if (w->r[2] == div_ceil(regs, 2)) {
        op->kind = KOP_EXIT;
        return;
    }
    op->kind = KOP_ALU;
    op->n = 1;
    op->src[0] = (uint8_t)(1 + 2 * w->r[2]);
    op->src[1] = (uint8_t)(regs > 2 * w->r[2] + 1 ? 2 + 2 * w->r[2] : 0);
    w->r[2]++;
}

/* k->p[0] warm-up passes (unmeasured), k->p[1] measured passes. */
static void chase_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    const struct chase *c = k->ctx;
    if (w->r[0] == (k->p[0] + k->p[1]) * c->lines) {
        chase_drain(w, op, 1); /* the final pointer */
        return;
    }
    chase_load(c, w, op, w->r[0] / c->lines >= k->p[0]);
}

/* l2_remote WG0: read every line once, warp_size lines per load (r[0] = op index). */
static void chase_touch(const struct chase *c, struct kernel_warp *w, struct kernel_op *op)
{
    uint64_t first = w->r[0] * w->warp_size;
    if (first >= c->lines) {
        chase_drain(w, op, 8);
        return;
    }
    unsigned n = (unsigned)min_u64(w->warp_size, c->lines - first);
    for (unsigned l = 0; l < n; l++)
        w->lane_addr[l] = c->chain->base + (first + l) * c->line_b;
    op->kind = KOP_LOAD;
    op->size = 8;
    op->lanes = true;
    op->mask = low_bits(n);
    op->dst = (uint8_t)(1 + w->r[0] % 8);
    w->r[0]++;
}

/* ALU instructions WG1 spends so that WG0's touch loads are done: touch_op_cycles
 * per touch op plus a margin, at CHASE_ALU_CYCLES per instruction. */
static uint32_t chase_wait_insts(const struct chase *c, unsigned warp_size)
{
    uint64_t ops = div_ceil(c->lines, warp_size);
    uint64_t cycles = ops * c->touch_op_cycles + CHASE_WAIT_MARGIN;
    return (uint32_t)min_u64(div_ceil(cycles, CHASE_ALU_CYCLES), UINT32_MAX);
}

/* l2_remote: WG0 touches; the last WG (the peer's) waits (pc 0), then chases
 * k->p[1] passes, all measured; the WGs between them only place it there. */
static void chase_remote_next(const struct kernel *k, struct kernel_warp *w,
                              struct kernel_op *op)
{
    const struct chase *c = k->ctx;
    if (w->wg == 0) {
        chase_touch(c, w, op);
    } else if (w->wg != c->peer) {
        op->kind = KOP_EXIT;
    } else if (w->pc == 0) {
        op->kind = KOP_ALU;
        op->n = chase_wait_insts(c, w->warp_size);
        w->pc = 1;
    } else {
        chase_next(k, w, op);
    }
}

static void chase_kernel(const struct chase *c, struct kernel *k, const char *name,
                         uint32_t wgs, uint64_t warm, uint64_t measured, kernel_next_fn fn)
{
    /* one full warp per work-group: l2_remote's WG0 uses every lane */
    wl_kernel_init(k, name, wgs, 1, c->warp_size, 1, fn);
    wl_kernel_arg(k, c->chain, KERNEL_R);
    k->ctx = c;
    k->p[0] = warm;
    k->p[1] = measured;
}

static const char *const chase_names[] = {"chase_l1", "chase_l2", "chase_l2_remote",
                                           "chase_l3", "chase_dram"};

static bool chase_next_kernel(void *self, struct kernel *k)
{
    struct chase *c = self;
    /* l3: a warm-up kernel, then one kernel per measured pass, because a pass
     * refills the L2 and only a kernel boundary empties it again */
    unsigned nk = c->target == CHASE_L3 ? 1 + c->passes : 1;
    if (c->kernels == nk)
        return false;
    const char *name = chase_names[c->target];
    if (c->target == CHASE_L2_REMOTE)
        chase_kernel(c, k, name, c->peer + 1, 0, c->passes, chase_remote_next);
    else if (c->target == CHASE_L3 && c->kernels == 0)
        chase_kernel(c, k, "chase_l3_warm", 1, 1, 0, chase_next);
    else if (c->target == CHASE_L3)
        chase_kernel(c, k, name, 1, 0, 1, chase_next);
    else if (c->target == CHASE_DRAM)
        chase_kernel(c, k, name, 1, 0, c->passes, chase_next);
    else
        chase_kernel(c, k, name, 1, 1, c->passes, chase_next);
    /* l3's later kernels run on the same chiplet over the same chain */
    k->args[0].same_pattern = c->kernels > 0;
    c->kernels++;
    return true;
}

static const char *const chase_small[] = {"target=l2", "footprint_kib=64", "passes=1", NULL};

const struct wl_ops wl_chase = {
    .name = "chase",
    .suite = "micro",
    .desc = "pointer chase: load-to-use latency of L1, local/remote L2, L3 or DRAM",
    .keys = chase_keys,
    .small = chase_small,
    .create = chase_create,
    .next_kernel = chase_next_kernel,
    .destroy = chase_destroy,
};
