/*
 * stream.c -- streaming-read microbenchmark: the bandwidth a whole GPU
 * achieves from its local L2s, from remote chiplets' L2s over the network
 * (each chiplet reading from a peer: by default the next chiplet; with
 * peer_shift and peer_group, e.g. the next chiplet of its GPU or the same
 * chiplet of the next GPU), or from DRAM.
 *
 * Modelled: cus x wgs_per_cu work-groups, each owning (first-touching) one
 * contiguous chunk of one buffer. Every warp reads its share of a chunk with
 * coalesced 16 B per lane loads, warps of a work-group interleaved row by
 * row, at most 8 loads in flight per warp (registers 1..8 in rotation), and
 * consumes its registers before exiting. Pass p reads the chunk p WGs
 * further on in the same chiplet block, so measured passes hit lines homed on
 * that chiplet that the reading CU has never read (while the passes of a
 * kernel number at most the CUs per chiplet, which is checked). Loads of
 * measured passes carry KOP_F_MEASURE_BW (achieved GB/s in the summary) and
 * KOP_F_MEASURE (their latency under load).
 * Relies on static partitioning and round-robin dispatch within a chiplet.
 * Written as a kernel description (src/workload/kd.h): the host code picks
 * the chunk of each work-group and pass (an array bound at each launch);
 * each work-group's ranges, its distinct chunks, are derived from it.
 * Abstracted: no data values, no address arithmetic instructions; each chunk
 * is rounded down to whole rows and whole pages.
 */
#include <stdlib.h>

#include "workload/kd.h"
#include "workload/wl.h"

enum stream_target { STREAM_L2, STREAM_REMOTE, STREAM_DRAM };

#define STREAM_LANE_B 16   /* bytes per lane per load */
#define STREAM_REGS 8      /* loads in flight per warp */

static const struct cfg_key stream_keys[] = {
    {"target", CFG_ENUM, "dram", 0, 0, "where the streamed data is served from",
     "l2|remote|dram"},
    {"footprint_kib", CFG_INT, "0", 0, 67108864,
     "buffer size in KiB (0 = per target: l2 and remote 4096 per chiplet, dram 524288)", NULL},
    {"passes", CFG_INT, "0", 0, 1000000,
     "measured passes over the buffer (0 = per target: l2 32, remote 4, dram 1)", NULL},
    {"wgs_per_cu", CFG_INT, "4", 1, 64, "work-groups per CU", NULL},
    {"cus", CFG_INT, "0", 0, 1000000,
     "CUs to cover (work-groups = cus x wgs_per_cu; 0 = every CU of the machine)", NULL},
    {"block", CFG_INT, "256", 1, 1024, "threads per work-group (a multiple of the warp size)",
     NULL},
    {"peer_shift", CFG_INT, "1", 1, 4095,
     "remote: each chiplet reads the data homed this many chiplets further on", NULL},
    {"peer_group", CFG_INT, "0", 0, 4096,
     "remote: count peer_shift within groups of this many chiplets, e.g. the chiplets of a GPU "
     "(0: all chiplets)", NULL},
    CFG_END,
};

/* The kernel: load t (m0) of a warp reads row t mod rows of its pass's
 * chunk, @row[bx * loads + t] (in elements of 16 B; the host code computes
 * it), the warps of a work-group interleaved; the first `warm` loads are
 * the unmeasured pass. Load t goes to register 1 + t mod 8 once that
 * register's previous load has returned; then the registers are consumed,
 * two per ALU op, so that the warp ends only when its loads have returned. */
#define STREAM_LOAD "load stream[@row[bx*loads + m0] + tx] 16 -> r1..r8 < r1..r8"
#define STREAM_KD(kname)                                                                           \
    {.name = kname, .params = stream_kd_params, .bufs = stream_bufs, .arrays = stream_arrays,      \
     .range_reads = true,                                                                          \
     .body = "for m0 = 0 .. loads\n"                                                                \
             "  if m0 < warm\n"                                                                     \
             "    " STREAM_LOAD "\n"                                                                \
             "  end\n"                                                                              \
             "  if warm - 1 < m0\n"                                                                 \
             "    " STREAM_LOAD " measure measure_bw\n"                                             \
             "  end\n"                                                                              \
             "end\n"                                                                                \
             "alu 1 < r1 r2\n"                                                                      \
             "alu 1 < r3 r4\n"                                                                      \
             "alu 1 < r5 r6\n"                                                                      \
             "alu 1 < r7 r8\n"}
static const char *const stream_kd_params[] = {"warm", "loads", NULL};
static const char *const stream_bufs[] = {"stream", NULL};
static const char *const stream_arrays[] = {"row", NULL};
enum { K_L2, K_DRAM, K_TOUCH, K_REMOTE, K_N };
static const struct kd_desc stream_kd[K_N] = {
    [K_L2] = STREAM_KD("stream_l2"),
    [K_DRAM] = STREAM_KD("stream_dram"),
    [K_TOUCH] = STREAM_KD("stream_touch"),
    [K_REMOTE] = STREAM_KD("stream_remote"),
};

/* l2: the warm-up pass comes from DRAM at a quarter of the L2's rate and
 * overlaps the measured window, so enough passes to make it a small part */
static const uint64_t stream_auto_passes[] = {32, 4, 1};

struct stream {
    struct wl_env *env;
    struct kd_prog *prog[K_N];
    uint32_t *row[2]; /* each kernel's rows: [wgs x loads] */
    const struct kernel_buf *buf;
    uint64_t chunk_b;      /* bytes per work-group */
    uint64_t row_b;        /* bytes one load of every warp of a work-group covers */
    uint32_t wgs, block, wgs_per_cu;
    uint32_t cus_per_chiplet; /* of the machine when cus = 0, else 0 (unknown) */
    unsigned target, passes, nchiplets;
    unsigned peer_shift, peer_group; /* remote: chiplet c reads from its peer (stream_peer) */
    unsigned kernels;
};

static uint64_t stream_footprint_b(const struct stream *s, const struct cfg_sec *sec)
{
    uint64_t kib = cfg_uint(sec, "footprint_kib");
    if (!kib)
        kib = s->target == STREAM_DRAM ? 524288 : 4096ull * s->nchiplets;
    return kib * 1024;
}

static uint64_t stream_lcm(uint64_t a, uint64_t b)
{
    uint64_t x = a, y = b;
    while (y) {
        uint64_t t = x % y;
        x = y;
        y = t;
    }
    return a / x * b;
}

/* Measured passes the l2 and remote targets allow when the work-groups cover
 * the machine: the CUs per chiplet, less the l2 target's warm-up pass
 * (UINT32_MAX when `cus` is set and the dispatch is not known). */
static unsigned stream_max_passes(const struct stream *s)
{
    if (!s->cus_per_chiplet || s->target == STREAM_DRAM)
        return UINT32_MAX;
    return s->target == STREAM_L2 ? s->cus_per_chiplet - 1 : s->cus_per_chiplet;
}

static int stream_check(const struct stream *s, const struct wl_env *env,
                        const struct cfg_sec *sec, struct err *e)
{
    if (s->block % env->warp_size)
        return cfg_err(e, sec, "block", "not a multiple of the warp size (%u)", env->warp_size);
    if (s->target == STREAM_REMOTE && s->nchiplets < 2)
        return cfg_err(e, sec, "target", "needs at least 2 chiplets (the system has %u)",
                       s->nchiplets);
    if (s->target == STREAM_REMOTE && s->wgs % s->nchiplets)
        return cfg_err(e, sec, "cus", "%u work-groups do not split evenly over %u chiplets",
                       s->wgs, s->nchiplets);
    if (s->nchiplets % s->peer_group)
        return cfg_err(e, sec, "peer_group", "does not divide the %u chiplets", s->nchiplets);
    if (s->target == STREAM_REMOTE && s->peer_shift % s->peer_group == 0)
        return cfg_err(e, sec, "peer_shift",
                       "%u is a multiple of the group of %u chiplets: every chiplet would read "
                       "its own data", s->peer_shift, s->peer_group);
    /* passes per kernel <= CUs per chiplet (see stream_chunk) */
    if (s->passes > stream_max_passes(s))
        return cfg_err(e, sec, "passes",
                       "%u would make a CU read a chunk twice in one kernel: at most %u with %u "
                       "CUs per chiplet",
                       s->passes, stream_max_passes(s), s->cus_per_chiplet);
    return 0;
}

static int stream_params(struct stream *s, const struct wl_env *env, const struct cfg_sec *sec,
                         struct err *e)
{
    s->nchiplets = env->nchiplets ? env->nchiplets : 1;
    s->target = cfg_enum(sec, "target");
    s->passes = (unsigned)cfg_uint(sec, "passes");
    unsigned auto_passes = !s->passes;
    s->block = (uint32_t)cfg_uint(sec, "block");
    s->peer_shift = (unsigned)cfg_uint(sec, "peer_shift");
    s->peer_group = (unsigned)cfg_uint(sec, "peer_group");
    if (!s->peer_group)
        s->peer_group = s->nchiplets;
    s->wgs_per_cu = (uint32_t)cfg_uint(sec, "wgs_per_cu");
    uint64_t cus = cfg_uint(sec, "cus");
    uint64_t wgs = (cus ? cus : (env->ncus ? env->ncus : 1)) * s->wgs_per_cu;
    if (wgs > UINT32_MAX)
        return cfg_err(e, sec, "cus", "more than %u work-groups", UINT32_MAX);
    s->wgs = (uint32_t)wgs;
    s->cus_per_chiplet = cus || !env->ncus ? 0 : env->ncus / s->nchiplets;
    if (auto_passes) {
        s->passes = (unsigned)stream_auto_passes[s->target];
        if (s->passes > stream_max_passes(s))
            s->passes = stream_max_passes(s) ? stream_max_passes(s) : 1;
    }
    if (stream_check(s, env, sec, e))
        return -1;
    s->row_b = (uint64_t)s->block * STREAM_LANE_B;
    /* whole rows, and whole pages so that no page is first-touched by two WGs */
    uint64_t unit = stream_lcm(s->row_b, env->page_b);
    uint64_t fp = stream_footprint_b(s, sec);
    s->chunk_b = fp / s->wgs / unit * unit;
    if (!s->chunk_b)
        return cfg_err(e, sec, "footprint_kib",
                       "%llu KiB is less than %llu B (whole rows and pages) for each of %u "
                       "work-groups",
                       (unsigned long long)(fp / 1024), (unsigned long long)unit, s->wgs);
    return 0;
}

static void stream_destroy(void *self)
{
    struct stream *s = self;
    kd_progs_free(s->prog, K_N);
    free(s->row[0]);
    free(s->row[1]);
    free(s);
}

static void *stream_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    struct stream *s = xcalloc(1, sizeof *s);
    s->env = env;
    if (stream_params(s, env, sec, e)) {
        stream_destroy(s);
        return NULL;
    }
    if (kd_compile_all(stream_kd, K_N, s->prog, e)) {
        stream_destroy(s);
        return NULL;
    }
    s->buf = wl_alloc(env, "stream", s->chunk_b * s->wgs);
    return s;
}

/* The block of work-groups that static partitioning gives to wg's chiplet:
 * floor(wgs / chiplets) each, one more for the first wgs mod chiplets. */
static void stream_block(const struct stream *s, uint32_t wg, uint32_t *start, uint32_t *size)
{
    uint32_t q = s->wgs / s->nchiplets, r = s->wgs % s->nchiplets;
    if (wg < r * (q + 1)) {
        *start = wg / (q + 1) * (q + 1);
        *size = q + 1;
    } else {
        *start = wg - (wg - r * (q + 1)) % q;
        *size = q;
    }
}

/* remote: the WG at wg's place in the block of its chiplet's peer (the
 * chiplet peer_shift further on within its group of peer_group; the blocks
 * are equal, which is checked). */
static uint32_t stream_peer(const struct stream *s, uint32_t wg)
{
    uint32_t q = s->wgs / s->nchiplets, c = wg / q, g = s->peer_group;
    uint32_t p = c / g * g + (c % g + s->peer_shift) % g;
    return p * q + wg % q;
}

/* The chunk work-group wg reads in pass `pass` of a kernel: its own WG's,
 * or (peer) its peer's (remote: the next chiplet's), moved on by `pass`
 * WGs within that WG's chiplet block. With round-robin dispatch, CU c of a
 * chiplet runs the block's WGs c + i x cus (i < wgs_per_cu), so it reads
 * chunks c + i x cus + pass: no chunk twice while passes < cus per chiplet,
 * so every pass misses in its L1 and merges with nothing there: a CU's
 * chunks of passes p and p' coincide only when |p - p'| is a multiple of
 * the CUs per chiplet. */
static uint32_t stream_chunk(const struct stream *s, uint32_t wg, bool peer, uint64_t pass)
{
    uint32_t owner = peer ? stream_peer(s, wg) : wg, start, size;
    stream_block(s, owner, &start, &size);
    return (uint32_t)(start + (owner - start + pass) % size);
}

/* Launch kernel `kind`: `warm` passes, then `measured` ones, over the
 * chunks of the work-groups (peer: their peers'). */
static bool stream_kernel(struct stream *s, struct kernel *k, unsigned kind, bool peer,
                          uint64_t warm, uint64_t measured)
{
    uint64_t rows = s->chunk_b / s->row_b, loads = (warm + measured) * rows;
    uint32_t *r = s->row[s->kernels] = xcalloc(s->wgs * loads, sizeof *r);
    for (uint32_t wg = 0; wg < s->wgs; wg++)
        for (uint64_t t = 0; t < loads; t++)
            r[wg * loads + t] = (uint32_t)((stream_chunk(s, wg, peer, t / rows) * s->chunk_b +
                                            t % rows * s->row_b) / STREAM_LANE_B);
    int64_t params[] = {(int64_t)(warm * rows), (int64_t)loads};
    struct kd_array row = {r, s->wgs * loads};
    struct err e;
    if (kd_launch(s->prog[kind], k, (struct kernel_dim){s->wgs, 1, 1},
                  (struct kernel_dim){s->block, 1, 1}, params, &s->buf, &row, &e))
        return wl_fail(s->env, &e);
    s->kernels++;
    return true;
}

static bool stream_next_kernel(void *self, struct kernel *k)
{
    struct stream *s = self;
    unsigned nk = s->target == STREAM_REMOTE ? 2 : 1;
    if (s->kernels == nk)
        return false;
    if (s->target == STREAM_L2)
        return stream_kernel(s, k, K_L2, false, 1, s->passes);
    if (s->target == STREAM_DRAM)
        return stream_kernel(s, k, K_DRAM, false, 0, s->passes);
    if (s->kernels == 0)
        return stream_kernel(s, k, K_TOUCH, false, 1, 0);
    return stream_kernel(s, k, K_REMOTE, true, 0, s->passes); /* the chunks homed on the peer */
}

static const char *const stream_small[] = {"target=l2", "footprint_kib=256", "passes=1", "wgs_per_cu=1", NULL};

const struct wl_ops wl_stream = {
    .name = "stream",
    .suite = "micro",
    .desc = "streaming reads: achieved bandwidth of local L2s, remote L2s or DRAM",
    .keys = stream_keys,
    .small = stream_small,
    .create = stream_create,
    .next_kernel = stream_next_kernel,
    .destroy = stream_destroy,
};
