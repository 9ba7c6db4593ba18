/*
 * flag.c -- producer/consumer microbenchmark: scoped synchronization through
 * a flag in memory (spec hmg.md 2 and 5.2), within one kernel.
 *
 * Modelled: `pairs` producer and consumer work-groups of one warp each, all
 * resident at once. A producer writes its block of data (weak 16 B-per-lane
 * stores), then sets its flag with st.release at `scope` (the release waits
 * until the data stores are acknowledged). Its consumer, on the same
 * chiplet, another chiplet or the first chiplet of another GPU (`place`),
 * spins on the flag with ld.acquire at `scope` (KOP_F_SPIN: the CU issues
 * the load again until the flag word holds a version written in this
 * kernel, at most `max_spins` more times), then reads the data (KOP_F_FRESH:
 * words not written in this kernel count in cu.stale_fresh_loads). A first
 * kernel, flag_init, has each producer clear its flag and data, so that
 * first-touch placement homes them on the producer's chiplet.
 * Relies on static partitioning of work-groups over every chiplet (the
 * default: cp.wg_policy = static, cp.chiplets_per_kernel = 0) and on the
 * coherence checker's data versions (check.enable = true, checked).
 * Abstracted: no data values (versions stand in for them); the spin loop's
 * compare and branch are not issued; see docs/microbench.md 5.
 */
#include <stdlib.h>

#include "workload/wl.h"

enum flag_place { FLAG_SAME_CHIPLET, FLAG_OTHER_CHIPLET, FLAG_OTHER_GPU };

#define FLAG_LANE_B 16   /* bytes per lane of a data access */
#define FLAG_SLOT_B 256  /* one flag per 256 B: a line of its own at any line size */
#define FLAG_REGS 8      /* data loads in flight per consumer (registers 2..9) */

static const struct cfg_key flag_keys[] = {
    {"scope", CFG_ENUM, "gpu", 0, 0, "scope of the release store and the acquire load",
     "gpu|sys"},
    {"place", CFG_ENUM, "other_chiplet", 0, 0,
     "where each consumer runs: the producer's chiplet (another CU), the next chiplet, or "
     "the first chiplet of the second GPU", "same_chiplet|other_chiplet|other_gpu"},
    {"data_b", CFG_INT, "4096", 16, 1ull << 30, "bytes each producer writes (a multiple of 16)",
     NULL},
    {"pairs", CFG_INT, "1", 1, 4096, "producer/consumer pairs", NULL},
    {"preread", CFG_BOOL, "false", 0, 0,
     "each consumer reads the data once before it waits for the flag, so that its caches hold "
     "copies the producer's stores make stale (the acquire must drop them)", NULL},
    {"max_spins", CFG_INT, "1000", 0, 1000000000,
     "re-issues of a consumer's flag load before it goes on without the flag "
     "(cu.spins_exhausted)", NULL},
    CFG_END,
};

struct flag {
    const struct kernel_buf *flags, *data;
    uint64_t data_b, stride_b;  /* per pair; blocks stride_b apart */
    uint32_t pairs, per_chiplet, nwg;
    uint32_t consumer_chiplet;
    unsigned scope, place, warp_size, kernels;
    uint32_t max_spins;
    bool preread;
};

/* Where the consumers go, and whether every work-group fits at once. */
static int flag_layout(struct flag *f, const struct wl_env *env, const struct cfg_sec *sec,
                       struct err *e)
{
    unsigned nch = env->nchiplets, gpus = env->ngpus ? env->ngpus : 1;
    unsigned per_gpu = nch / gpus;
    if (f->place == FLAG_OTHER_CHIPLET && per_gpu < 2)
        return cfg_err(e, sec, "place", "needs at least 2 chiplets per GPU (the system has %u)",
                       per_gpu);
    if (f->place == FLAG_OTHER_GPU && gpus < 2)
        return cfg_err(e, sec, "place", "needs at least 2 GPUs (the system has %u)", gpus);
    f->consumer_chiplet = f->place == FLAG_SAME_CHIPLET ? 0
                          : f->place == FLAG_OTHER_CHIPLET ? 1 : per_gpu;
    f->per_chiplet = f->place == FLAG_SAME_CHIPLET ? 2 * f->pairs : f->pairs;
    f->nwg = f->per_chiplet * nch;
    unsigned cus = nch ? env->ncus / nch : 0;
    if (env->warp_slots && cus && f->per_chiplet > (uint64_t)cus * env->warp_slots)
        return cfg_err(e, sec, "pairs", "%u work-groups of one warp must be resident at once on "
                       "one chiplet, which has %u CUs of %u warp slots", f->per_chiplet, cus,
                       env->warp_slots);
    return 0;
}

static void *flag_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    if (!env->versions) {
        cfg_err(e, sec, "name", "needs the coherence checker's data versions (check.enable = "
                "true): a consumer spins until the flag word holds a version its producer wrote");
        return NULL;
    }
    struct flag *f = xcalloc(1, sizeof *f);
    f->scope = cfg_enum(sec, "scope") ? SCOPE_SYS : SCOPE_GPU;
    f->place = cfg_enum(sec, "place");
    f->data_b = cfg_uint(sec, "data_b");
    f->pairs = (uint32_t)cfg_uint(sec, "pairs");
    f->max_spins = (uint32_t)cfg_uint(sec, "max_spins");
    f->preread = cfg_bool(sec, "preread");
    f->warp_size = env->warp_size;
    if (f->data_b % FLAG_LANE_B) {
        cfg_err(e, sec, "data_b", "not a multiple of %d", FLAG_LANE_B);
        free(f);
        return NULL;
    }
    if (flag_layout(f, env, sec, e)) {
        free(f);
        return NULL;
    }
    f->stride_b = div_ceil(f->data_b, FLAG_SLOT_B) * FLAG_SLOT_B;
    f->flags = wl_alloc(env, "flags", (uint64_t)f->pairs * FLAG_SLOT_B);
    f->data = wl_alloc(env, "data", f->pairs * f->stride_b);
    return f;
}

static void flag_destroy(void *self) { free(self); }

/* The pair whose producer (false) or consumer (true) work-group wg is; -1 for
 * the idle work-groups that fill the other chiplets' blocks. */
static int64_t pair_of(const struct flag *f, uint32_t wg, bool consumer)
{
    uint32_t ch = wg / f->per_chiplet, j = wg % f->per_chiplet;
    if (f->place == FLAG_SAME_CHIPLET)
        return ch == 0 && (j & 1) == consumer ? (int64_t)(j / 2) : -1;
    if (consumer)
        return ch == f->consumer_chiplet ? (int64_t)j : -1;
    return ch == 0 ? (int64_t)j : -1;
}

/* Rows of 16 B per lane covering one data block. */
static uint64_t rows(const struct flag *f)
{
    return div_ceil(f->data_b, (uint64_t)FLAG_LANE_B * f->warp_size);
}

/* Row k of pair p's data block: 16 B per lane, the last row's lanes cut at the block's end. */
static void data_op(const struct flag *f, uint64_t p, uint64_t k, unsigned kind,
                    struct kernel_op *op)
{
    uint64_t row_b = (uint64_t)FLAG_LANE_B * f->warp_size;
    uint64_t lanes = min_u64(f->warp_size, (f->data_b - k * row_b) / FLAG_LANE_B);
    op->kind = (uint8_t)kind;
    op->size = FLAG_LANE_B;
    op->stride = FLAG_LANE_B;
    op->base = f->data->base + p * f->stride_b + k * row_b;
    op->mask = low_bits(lanes);
}

/* Pair p's flag word: one lane, 4 bytes. */
static void flag_word(const struct flag *f, uint64_t p, unsigned kind, struct kernel_op *op)
{
    op->kind = (uint8_t)kind;
    op->size = 4;
    op->mask = 1;
    op->base = f->flags->base + p * FLAG_SLOT_B;
}

/* Pair p's "ready" word (preread): the consumer's copies are made; a line
 * apart from the flag's at any line size. */
static void ready_word(const struct flag *f, uint64_t p, unsigned kind, struct kernel_op *op)
{
    flag_word(f, p, kind, op);
    op->base += FLAG_SLOT_B / 2;
}

/* flag_init (k->p[0] = 0) and flag: the producer's data rows, then its flag;
 * with preread, in flag, it first waits until its consumer is ready. */
static void producer(const struct kernel *k, const struct flag *f, uint64_t p,
                     struct kernel_warp *w, struct kernel_op *op)
{
    uint64_t pc = w->pc++;
    bool wait = f->preread && k->p[0];
    if (wait && pc == 0) {
        ready_word(f, p, KOP_LOAD, op);
        kernel_op_scoped(op, f->scope, SEM_ACQUIRE);
        op->flags = KOP_F_SPIN;
        op->n = f->max_spins;
        op->dst = 1;
        return;
    }
    if (wait)
        pc--;
    if (pc < rows(f)) {
        data_op(f, p, pc, KOP_STORE, op);
    } else if (pc == rows(f)) {
        flag_word(f, p, KOP_STORE, op);
        if (k->p[0])
            kernel_op_scoped(op, f->scope, SEM_RELEASE);
    } else {
        op->kind = KOP_EXIT;
    }
}

/* The consumer's spinning acquire of its flag, the data rows (registers 2..9
 * in rotation, each load waiting for the previous one into its register),
 * then uses of registers 1..9 so that it ends only when they have returned. */
static void consumer(const struct flag *f, uint64_t p, struct kernel_warp *w,
                     struct kernel_op *op)
{
    uint64_t pc = w->pc++, n = rows(f);
    if (f->preread && pc < n) { /* the data, before the producer's stores: copies to go stale */
        data_op(f, p, pc, KOP_LOAD, op);
        op->dst = op->src[0] = (uint8_t)(2 + pc % FLAG_REGS);
        return;
    }
    if (f->preread && pc == n) { /* then the producer may go */
        ready_word(f, p, KOP_STORE, op);
        kernel_op_scoped(op, f->scope, SEM_RELEASE);
        return;
    }
    if (f->preread)
        pc -= n + 1;
    if (pc == 0) {
        flag_word(f, p, KOP_LOAD, op);
        kernel_op_scoped(op, f->scope, SEM_ACQUIRE);
        op->flags = KOP_F_SPIN;
        op->n = f->max_spins;
        op->dst = 1;
    } else if (pc <= n) {
        data_op(f, p, pc - 1, KOP_LOAD, op);
        op->flags = KOP_F_FRESH;
        op->dst = op->src[0] = (uint8_t)(2 + (pc - 1) % FLAG_REGS);
    } else if (pc <= n + 5) {
        op->kind = KOP_ALU; /* read 1..9, in pairs */
        op->n = 1;
        op->src[0] = (uint8_t)(1 + 2 * (pc - n - 1));
        op->src[1] = (uint8_t)(pc - n - 1 < 4 ? 2 + 2 * (pc - n - 1) : 0);
    } else {
        op->kind = KOP_EXIT;
    }
}

static void flag_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    const struct flag *f = k->ctx;
    int64_t p = pair_of(f, w->wg, false);
    if (p >= 0) {
        producer(k, f, (uint64_t)p, w, op);
        return;
    }
    p = pair_of(f, w->wg, true);
    if (p >= 0 && k->p[0])
        consumer(f, (uint64_t)p, w, op);
    else
        op->kind = KOP_EXIT;
}

static bool flag_next_kernel(void *self, struct kernel *k)
{
    struct flag *f = self;
    if (f->kernels == 2)
        return false;
    wl_kernel_init(k, f->kernels ? "flag" : "flag_init", f->nwg, 1, f->warp_size, 1, flag_next);
    wl_kernel_arg(k, f->flags, KERNEL_RW);
    wl_kernel_arg(k, f->data, KERNEL_RW);
    k->ctx = f;
    k->p[0] = f->kernels++;
    return true;
}

static size_t flag_kernels(void *self)
{
    (void)self;
    return 2;
}

static const char *const flag_small[] = {"place=same_chiplet", "data_b=1024", "max_spins=64",
                                         NULL};

const struct wl_ops wl_flag = {
    .name = "flag",
    .suite = "micro",
    .desc = "producer/consumer: data then st.release of a flag; a consumer elsewhere spins "
            "with ld.acquire",
    .keys = flag_keys,
    .small = flag_small,
    .create = flag_create,
    .next_kernel = flag_next_kernel,
    .destroy = flag_destroy,
    .kernels = flag_kernels,
};
