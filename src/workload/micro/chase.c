/*
 * chase.c -- pointer-chase microbenchmark: the unloaded load-to-use latency
 * of one level of the hierarchy (L1, local L2, remote L2, L3, DRAM).
 *
 * Modelled (a kernel description, src/workload/kd.h): one warp follows a
 * single random cycle through a buffer, one node per line (Sattolo's
 * algorithm), with one-lane 8-byte loads that each wait for the previous one
 * (dst = src = r1), so exactly one load is in flight. Which level serves the loads is arranged by footprint, warm-up
 * passes, kernel boundaries (which empty the L2s under viper), work-group
 * placement (static partitioning: with at most one WG per chiplet, WG i on
 * chiplet i; l2_remote chases from chiplet `peer`, by default 1) and
 * first-touch homing; see docs/microbench.md.
 * Abstracted: the node contents are not simulated; the host walks the cycle
 * once and binds the order of its nodes to the description as an array
 * (@order), whose loads issue the address the loaded pointer would hold. The
 * l2_remote target relies on a fixed wait (ALU) for WG0's first touches to
 * finish before WG1 starts chasing.
 */
#include <stdio.h>
#include <stdlib.h>

#include "workload/kd.h"
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

/* The kernel. l2_remote: work-group 0 reads every line once, a warp's lanes
 * at a time (touch = 1), then uses what it loaded so that it ends only when
 * its loads are back; the chasing work-group (chaser: the peer's, else 0)
 * first waits for those loads, then follows the cycle from node 0, `warm`
 * unmeasured passes and `meas` measured ones, and uses the final pointer. */
static const char *const chase_params[] = {"lines", "L", "touch", "touches", "chaser",
                                           "wait", "warm", "meas", NULL};
static const char *const chase_bufs[] = {"chain", NULL};
static const char *const chase_arrays[] = {"order", NULL};
static const struct kd_desc chase_kd = {
    .name = "chase",
    .params = chase_params,
    .bufs = chase_bufs,
    .arrays = chase_arrays,
    .body = "if bx < touch\n"
            "  for m0 = 0 .. touches\n"
            "    if tx + m0*bdx < lines\n"
            "      load chain[(tx + m0*bdx)*L] 8 -> r1..r8\n"
            "    end\n"
            "  end\n"
            "  alu 1 < r1 r2\n"
            "  alu 1 < r3 r4\n"
            "  alu 1 < r5 r6\n"
            "  alu 1 < r7 r8\n"
            "end\n"
            "if chaser < bx + 1\n"
            "  if 0 < touch\n"
            "    alu wait\n"
            "  end\n"
            "  if tx < 1\n"
            "    for m0 = 0 .. warm\n"
            "      for m1 = 0 .. lines\n"
            "        load chain[@order[m1]*L] 8 -> r1 < r1\n"
            "      end\n"
            "    end\n"
            "    for m0 = 0 .. meas\n"
            "      for m1 = 0 .. lines\n"
            "        load chain[@order[m1]*L] 8 -> r1 < r1 measure\n"
            "      end\n"
            "    end\n"
            "  end\n"
            "  alu 1 < r1\n"
            "end\n",
};

struct chase {
    struct wl_env *env;
    struct kd_prog *prog;
    const struct kernel_buf *chain;
    uint32_t *order;       /* order[i]: the node of the i-th load of a pass, from node 0 */
    uint64_t lines, line_b;
    unsigned target, passes, touch_op_cycles, warp_size, peer;
    unsigned kernels;      /* kernels handed out so far */
};

static int chase_params_read(struct chase *c, const struct wl_env *env,
                             const struct cfg_sec *sec, struct err *e)
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

/* Sattolo's algorithm (a uniformly random permutation that is one cycle),
 * walked from node 0: the order of the nodes a pass visits. */
static void chase_build(struct chase *c, uint64_t seed)
{
    struct rng r;
    rng_seed(&r, seed);
    uint32_t *next = xmalloc(c->lines * sizeof *next);
    for (uint64_t i = 0; i < c->lines; i++)
        next[i] = (uint32_t)i;
    for (uint64_t i = c->lines - 1; i > 0; i--) {
        uint64_t j = rng_below(&r, i);
        uint32_t t = next[i];
        next[i] = next[j];
        next[j] = t;
    }
    c->order = xmalloc(c->lines * sizeof *c->order);
    c->order[0] = 0;
    for (uint64_t i = 1; i < c->lines; i++)
        c->order[i] = next[c->order[i - 1]];
    free(next);
}

static void chase_destroy(void *self)
{
    struct chase *c = self;
    kd_prog_free(c->prog);
    free(c->order);
    free(c);
}

static void *chase_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    struct chase *c = xcalloc(1, sizeof *c);
    c->env = env;
    if (chase_params_read(c, env, sec, e) || !(c->prog = kd_compile(&chase_kd, e))) {
        chase_destroy(c);
        return NULL;
    }
    c->chain = wl_alloc(env, "chain", c->lines * c->line_b);
    chase_build(c, env->seed);
    return c;
}

/* ALU instructions WG1 spends so that WG0's touch loads are done: touch_op_cycles
 * per touch op plus a margin, at CHASE_ALU_CYCLES per instruction. */
static uint32_t chase_wait_insts(const struct chase *c, unsigned warp_size)
{
    uint64_t ops = div_ceil(c->lines, warp_size);
    uint64_t cycles = ops * c->touch_op_cycles + CHASE_WAIT_MARGIN;
    return (uint32_t)min_u64(div_ceil(cycles, CHASE_ALU_CYCLES), UINT32_MAX);
}

/* One launch of `wgs` work-groups of one full warp (l2_remote's WG0 uses
 * every lane): warm unmeasured and meas measured passes. */
static bool chase_launch(struct chase *c, struct kernel *k, const char *name, uint32_t wgs,
                         int64_t warm, int64_t meas)
{
    bool remote = c->target == CHASE_L2_REMOTE;
    int64_t params[] = {(int64_t)c->lines, (int64_t)(c->line_b / 8), remote,
                        (int64_t)div_ceil(c->lines, c->warp_size), remote ? c->peer : 0,
                        remote ? chase_wait_insts(c, c->warp_size) : 1, warm, meas};
    struct kd_array order = {c->order, c->lines};
    struct err e;
    if (kd_launch(c->prog, k, (struct kernel_dim){wgs, 1, 1},
                  (struct kernel_dim){c->warp_size, 1, 1}, params, &c->chain, &order, &e))
        return wl_fail(c->env, &e);
    snprintf(k->name, sizeof k->name, "%s", name);
    /* l3's later kernels run on the same chiplet over the same chain */
    k->args[0].same_pattern = c->kernels > 0;
    c->kernels++;
    return true;
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
        return chase_launch(c, k, name, c->peer + 1, 0, c->passes);
    if (c->target == CHASE_L3 && c->kernels == 0)
        return chase_launch(c, k, "chase_l3_warm", 1, 1, 0);
    if (c->target == CHASE_L3)
        return chase_launch(c, k, name, 1, 0, 1);
    if (c->target == CHASE_DRAM)
        return chase_launch(c, k, name, 1, 0, c->passes);
    return chase_launch(c, k, name, 1, 1, c->passes);
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
