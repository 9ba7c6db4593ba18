/*
 * flag.c -- producer/consumer microbenchmark: scoped synchronization through
 * a flag in memory (spec hmg.md 2 and 5.2), within one kernel.
 *
 * Modelled (kernel descriptions, src/workload/kd.h): `pairs` producer and
 * consumer work-groups of one warp each, all resident at once. A producer
 * writes its block of data (weak 16 B-per-lane stores), then sets its flag
 * with st.release at `scope` (the release waits
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
 * Which work-groups produce and consume, and for which pair, the host
 * decides from the placement (arrays @prod and @cons: pair + 1, 0 for
 * none), so every access declares its whole structure, as before.
 * Abstracted: no data values (versions stand in for them); the spin loop's
 * compare and branch are not issued; see docs/microbench.md 5.
 */
#include <stdio.h>
#include <stdlib.h>

#include "workload/kd.h"
#include "workload/wl.h"

enum flag_place { FLAG_SAME_CHIPLET, FLAG_OTHER_CHIPLET, FLAG_OTHER_GPU };

#define FLAG_LANE_B 16   /* bytes per lane of a data access */
#define FLAG_SLOT_B 256  /* one flag per 256 B: a line of its own at any line size */

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

/* Both kernels, in elements of their access (16 B data, FLAG_LANE_B; 4 B
 * flag words, 64 to a FLAG_SLOT_B slot, the "ready" word half a slot on),
 * the scope words filled in at create (flag_init: no preread,
 * no consumer (live = 0), a plain flag store). A producer (optionally
 * first waiting until its consumer has read the data: pre) stores its rows
 * of 16 B per lane, the last row's lanes cut at the block's end, then its
 * flag word. A consumer (optionally first reading the data, copies to go
 * stale, then releasing its "ready" word, a line apart from the flag)
 * spins on its flag with an acquire, reads the rows, each load waiting for
 * the previous one into its register (r2..r9 in rotation), then uses
 * registers 1..9 so that it ends only when they have returned. */
static const char flag_body[] =
    "if 0 < @prod[bx]\n"
    "  if tx < 1\n"
    "    if 0 < pre\n"
    "      load flags[(@prod[bx] - 1)*64 + 32] 4 -> r1 %1$s acquire spin spins\n"
    "    end\n"
    "  end\n"
    "  for m0 = 0 .. rows\n"
    "    if tx + m0*bdx < D16\n"
    "      store data[(@prod[bx] - 1)*S16 + m0*bdx + tx] 16\n"
    "    end\n"
    "  end\n"
    "  if tx < 1\n"
    "    store flags[(@prod[bx] - 1)*64] 4 %2$s\n"
    "  end\n"
    "end\n"
    "if 0 < @cons[bx]*live\n"
    "  if 0 < pre\n"
    "    for m0 = 0 .. rows\n"
    "      if tx + m0*bdx < D16\n"
    "        load data[(@cons[bx] - 1)*S16 + m0*bdx + tx] 16 -> r2..r9 < r2..r9\n"
    "      end\n"
    "    end\n"
    "    if tx < 1\n"
    "      store flags[(@cons[bx] - 1)*64 + 32] 4 %1$s release\n"
    "    end\n"
    "  end\n"
    "  if tx < 1\n"
    "    load flags[(@cons[bx] - 1)*64] 4 -> r1 %1$s acquire spin spins\n"
    "  end\n"
    "  for m0 = 0 .. rows\n"
    "    if tx + m0*bdx < D16\n"
    "      load data[(@cons[bx] - 1)*S16 + m0*bdx + tx] 16 -> r2..r9 < r2..r9 fresh\n"
    "    end\n"
    "  end\n"
    "  alu 1 < r1 r2\n"
    "  alu 1 < r3 r4\n"
    "  alu 1 < r5 r6\n"
    "  alu 1 < r7 r8\n"
    "  alu 1 < r9\n"
    "end\n";
static const char *const flag_params[] = {"S16", "D16", "rows", "spins", "pre", "live", NULL};
static const char *const flag_bufs[] = {"flags", "data", NULL};
static const char *const flag_arrays[] = {"prod", "cons", NULL};

struct flag {
    struct wl_env *env;
    struct kd_desc desc[2]; /* flag_init, flag */
    char body[2][sizeof flag_body + 64];
    struct kd_prog *prog[2];
    uint32_t *prod, *cons;      /* [nwg]: the pair + 1 of each work-group, 0 for none */
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

static void flag_destroy(void *self)
{
    struct flag *f = self;
    kd_progs_free(f->prog, 2);
    free(f->prod);
    free(f->cons);
    free(f);
}

/* The two descriptions and the roles of the work-groups. */
static int flag_kernels_build(struct flag *f, struct err *e)
{
    static const char *const names[] = {"flag_init", "flag"};
    const char *scope = f->scope == SCOPE_SYS ? "sys" : "gpu";
    for (unsigned i = 0; i < 2; i++) {
        char rel[16] = ""; /* flag_init's flag store is plain */
        if (i)
            snprintf(rel, sizeof rel, "%s release", scope);
        snprintf(f->body[i], sizeof f->body[i], flag_body, scope, rel);
        f->desc[i] = (struct kd_desc){.name = names[i], .params = flag_params,
                                      .bufs = flag_bufs, .arrays = flag_arrays,
                                      .body = f->body[i]};
        if (!(f->prog[i] = kd_compile(&f->desc[i], e)))
            return -1;
    }
    f->prod = xmalloc(f->nwg * sizeof *f->prod);
    f->cons = xmalloc(f->nwg * sizeof *f->cons);
    for (uint32_t wg = 0; wg < f->nwg; wg++) {
        f->prod[wg] = (uint32_t)(pair_of(f, wg, false) + 1);
        f->cons[wg] = (uint32_t)(pair_of(f, wg, true) + 1);
    }
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
    f->env = env;
    f->scope = cfg_enum(sec, "scope") ? SCOPE_SYS : SCOPE_GPU;
    f->place = cfg_enum(sec, "place");
    f->data_b = cfg_uint(sec, "data_b");
    f->pairs = (uint32_t)cfg_uint(sec, "pairs");
    f->max_spins = (uint32_t)cfg_uint(sec, "max_spins");
    f->preread = cfg_bool(sec, "preread");
    f->warp_size = env->warp_size;
    if (f->data_b % FLAG_LANE_B) {
        cfg_err(e, sec, "data_b", "not a multiple of %d", FLAG_LANE_B);
        flag_destroy(f);
        return NULL;
    }
    if (flag_layout(f, env, sec, e) || flag_kernels_build(f, e)) {
        flag_destroy(f);
        return NULL;
    }
    f->stride_b = div_ceil(f->data_b, FLAG_SLOT_B) * FLAG_SLOT_B;
    f->flags = wl_alloc(env, "flags", (uint64_t)f->pairs * FLAG_SLOT_B);
    f->data = wl_alloc(env, "data", f->pairs * f->stride_b);
    return f;
}

static bool flag_next_kernel(void *self, struct kernel *k)
{
    struct flag *f = self;
    if (f->kernels == 2)
        return false;
    bool live = f->kernels;
    uint64_t rows = div_ceil(f->data_b, (uint64_t)FLAG_LANE_B * f->warp_size);
    int64_t params[] = {(int64_t)(f->stride_b / FLAG_LANE_B), (int64_t)(f->data_b / FLAG_LANE_B),
                        (int64_t)rows, f->max_spins, live && f->preread, live};
    const struct kernel_buf *bufs[] = {f->flags, f->data};
    struct kd_array roles[] = {{f->prod, f->nwg}, {f->cons, f->nwg}};
    struct err e;
    if (kd_launch(f->prog[live], k, (struct kernel_dim){f->nwg, 1, 1},
                  (struct kernel_dim){f->warp_size, 1, 1}, params, bufs, roles, &e))
        return wl_fail(f->env, &e);
    f->kernels++;
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
