/*
 * Microbenchmark workloads (chase, stream, vecadd, square): registry, the
 * kernel sequences, the exact ops of chosen warps, per-work-group ranges and
 * parameter errors. Generators are driven directly, without a GPU.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "workload/wl.h"

#define MB (1024ull * 1024)

struct mw {
    struct cfg cfg;
    struct wl_env env;
    const struct wl_ops *ops;
    void *self;
    struct err e;
};

/* Create workload `name` from an INI text (section [workload]) on a machine
 * with the given warp size and chiplet count; returns the instance or NULL. */
static void *mw_try(struct mw *m, const char *name, const char *ini, unsigned ws, unsigned nch,
                    uint64_t seed)
{
    memset(m, 0, sizeof *m);
    m->ops = wl_find(name);
    cr_assert_not_null(m->ops, "%s", name);
    wl_env_init(&m->env, 4096, ws, nch, nch * 60, seed);
    cr_assert_eq(tcfg_load(&m->cfg, "workload", m->ops->keys, NULL, ini, &m->e), 0, "%s",
                 m->e.msg);
    m->self = m->ops->create(&m->env, cfg_sec(&m->cfg, "workload"), &m->e);
    return m->self;
}

static void mw_open(struct mw *m, const char *name, const char *ini, unsigned ws, unsigned nch)
{
    cr_assert_not_null(mw_try(m, name, ini, ws, nch, 1), "%s", m->e.msg);
}

static void mw_close(struct mw *m)
{
    if (m->self)
        m->ops->destroy(m->self);
    wl_env_free(&m->env);
    cfg_free(&m->cfg);
}

static void mw_expect_error(const char *name, const char *ini, unsigned ws, unsigned nch,
                            const char *want)
{
    struct mw m;
    cr_expect_null(mw_try(&m, name, ini, ws, nch, 1), "accepted: %s", ini);
    cr_expect_str_eq(m.e.msg, want);
    mw_close(&m);
}

static void mw_kernel(struct mw *m, struct kernel *k)
{
    cr_assert(m->ops->next_kernel(m->self, k), "no kernel");
}

static void mw_no_more(struct mw *m)
{
    struct kernel k;
    cr_expect_not(m->ops->next_kernel(m->self, &k));
    cr_expect_not(m->ops->next_kernel(m->self, &k));
}

static void warp_at(struct kernel_warp *w, const struct kernel *k, uint32_t wg, uint32_t warp,
                    unsigned ws)
{
    *w = (struct kernel_warp){.k = k, .wg = wg, .warp = warp, .warp_size = ws};
    w->wg_id = (struct kernel_dim){wg % k->grid.x, wg / k->grid.x % k->grid.y,
                                   wg / (k->grid.x * k->grid.y)};
    w->nlanes = (uint32_t)min_u64(ws, kernel_wg_threads(k) - warp * ws);
}

static struct kernel_op step(const struct kernel *k, struct kernel_warp *w)
{
    struct kernel_op op;
    memset(&op, 0, sizeof op);
    k->next(k, w, &op);
    return op;
}

static void op_eq(struct kernel_op a, struct kernel_op b, const char *what)
{
    cr_expect_eq(a.kind, b.kind, "%s: kind %u, want %u", what, a.kind, b.kind);
    cr_expect_eq(a.size, b.size, "%s: size %u", what, a.size);
    cr_expect_eq(a.scope, b.scope, "%s: scope", what);
    cr_expect_eq(a.flags, b.flags, "%s: flags %u", what, a.flags);
    cr_expect_eq(a.dst, b.dst, "%s: dst %u", what, a.dst);
    cr_expect_eq(a.src[0], b.src[0], "%s: src0 %u", what, a.src[0]);
    cr_expect_eq(a.src[1], b.src[1], "%s: src1 %u", what, a.src[1]);
    cr_expect_eq(a.lanes, b.lanes, "%s: lanes", what);
    cr_expect_eq(a.n, b.n, "%s: n %u", what, a.n);
    cr_expect_eq(a.mask, b.mask, "%s: mask %#llx", what, (unsigned long long)a.mask);
    cr_expect_eq(a.base, b.base, "%s: base %#llx, want %#llx", what,
                 (unsigned long long)a.base, (unsigned long long)b.base);
    cr_expect_eq(a.stride, b.stride, "%s: stride %lld", what, (long long)a.stride);
}

static void expect_exit(const struct kernel *k, struct kernel_warp *w)
{
    op_eq(step(k, w), (struct kernel_op){.kind = KOP_EXIT}, "exit");
    op_eq(step(k, w), (struct kernel_op){.kind = KOP_EXIT}, "exit again");
}

/* The ALU ops that consume registers 1..regs, two per op, then the exit. */
static void expect_drain_exit(const struct kernel *k, struct kernel_warp *w, unsigned regs)
{
    for (unsigned r = 1; r <= regs; r += 2)
        op_eq(step(k, w),
              (struct kernel_op){.kind = KOP_ALU, .n = 1,
                                 .src = {(uint8_t)r, (uint8_t)(r < regs ? r + 1 : 0)}},
              "drain");
    expect_exit(k, w);
}

static void expect_dims(const struct kernel *k, const char *name, uint32_t gx, uint32_t bx)
{
    cr_expect_str_eq(k->name, name);
    cr_expect_eq(k->grid.x, gx, "%s grid %u", name, k->grid.x);
    cr_expect_eq(k->grid.y, 1);
    cr_expect_eq(k->grid.z, 1);
    cr_expect_eq(k->block.x, bx, "%s block %u", name, k->block.x);
    cr_expect_eq(k->block.y, 1);
    cr_expect_eq(k->block.z, 1);
    cr_expect_eq(k->lds_b, 0);
}

static void expect_arg(const struct kernel *k, unsigned i, const char *name, uint64_t size,
                       enum kernel_mode mode, bool same)
{
    cr_assert_gt(k->nargs, i);
    cr_expect_str_eq(k->args[i].buf->name, name);
    cr_expect_eq(k->args[i].buf->size, size, "%s size %llu", name,
                 (unsigned long long)k->args[i].buf->size);
    cr_expect_eq(k->args[i].mode, mode, "%s mode", name);
    cr_expect_eq(k->args[i].same_pattern, same, "%s same_pattern", name);
}

Test(micro, registry_lists_all_four)
{
    const char *names[] = {"chase", "stream", "vecadd", "square"};
    for (int i = 0; i < 4; i++) {
        const struct wl_ops *o = wl_find(names[i]);
        cr_assert_not_null(o, "%s", names[i]);
        cr_expect_str_eq(o->name, names[i]);
        cr_expect_not_null(o->desc);
        cr_expect_not_null(o->keys);
    }
    cr_expect_null(wl_find("chase2"));
}

/* ---- chase ---- */

/* Run one chase warp to its exit. Checks each load's shape, that every pass
 * visits every line exactly once in the same order, and counts measured loads. */
static void chase_walk(const struct kernel *k, struct kernel_warp *w, uint64_t lines,
                       uint64_t warm, uint64_t measured)
{
    const struct kernel_buf *b = k->args[0].buf;
    uint32_t *order = calloc(lines, sizeof *order);
    uint8_t *seen = calloc(lines, 1);
    uint64_t nmeasured = 0;
    for (uint64_t pass = 0; pass < warm + measured; pass++) {
        memset(seen, 0, lines);
        for (uint64_t i = 0; i < lines; i++) {
            struct kernel_op op = step(k, w);
            cr_assert_eq(op.kind, KOP_LOAD, "pass %llu load %llu", (unsigned long long)pass,
                         (unsigned long long)i);
            cr_assert(op.size == 8 && op.dst == 1 && op.src[0] == 1 && op.src[1] == 0 &&
                      op.mask == 1 && !op.lanes);
            cr_assert(op.base >= b->base && op.base < b->base + b->size && op.base % 64 == 0);
            uint64_t line = (op.base - b->base) / 64;
            cr_assert_not(seen[line], "line %llu twice in pass %llu", (unsigned long long)line,
                          (unsigned long long)pass);
            seen[line] = 1;
            if (pass == 0)
                order[i] = (uint32_t)line;
            cr_assert_eq(order[i], line, "pass %llu differs", (unsigned long long)pass);
            cr_assert_eq(op.flags, pass >= warm ? KOP_F_MEASURE : 0);
            nmeasured += op.flags == KOP_F_MEASURE;
        }
    }
    cr_expect_eq(nmeasured, lines * measured);
    if (lines > 2)
        cr_expect_neq(order[1], 1, "the chain is not sequential");
    expect_drain_exit(k, w, 1); /* the final pointer is used */
    free(order);
    free(seen);
}

Test(micro, chase_l2_defaults)
{
    struct mw m;
    mw_open(&m, "chase", NULL, 64, 4);
    struct kernel k;
    mw_kernel(&m, &k);
    expect_dims(&k, "chase_l2", 1, 64);
    cr_expect_eq(k.nargs, 1);
    expect_arg(&k, 0, "chain", 4096 * 1024, KERNEL_R, false);
    cr_expect_eq(k.args[0].buf->base, WL_HEAP_BASE);
    struct addr_range r[4];
    cr_expect_eq(k.ranges(&k, 0, 0, r, 4), 0, "a chase declares no ranges: the whole chain");
    struct kernel_warp w;
    warp_at(&w, &k, 0, 0, 64);
    struct kernel_warp w0 = w;
    op_eq(step(&k, &w0),
          (struct kernel_op){.kind = KOP_LOAD, .size = 8, .dst = 1, .src = {1}, .mask = 1,
                             .base = WL_HEAP_BASE},
          "first chase load starts at line 0");
    chase_walk(&k, &w, 65536, 1, 2);
    mw_no_more(&m);
    mw_close(&m);
}

Test(micro, chase_l1_and_dram)
{
    struct mw m;
    mw_open(&m, "chase", "[workload]\ntarget = l1\npasses = 3\n", 64, 4);
    struct kernel k;
    mw_kernel(&m, &k);
    expect_dims(&k, "chase_l1", 1, 64);
    expect_arg(&k, 0, "chain", 8192, KERNEL_R, false);
    struct kernel_warp w;
    warp_at(&w, &k, 0, 0, 64);
    chase_walk(&k, &w, 128, 1, 3);
    mw_no_more(&m);
    mw_close(&m);

    mw_open(&m, "chase", "[workload]\ntarget = dram\n", 64, 4);
    mw_kernel(&m, &k);
    expect_dims(&k, "chase_dram", 1, 64);
    expect_arg(&k, 0, "chain", 256 * MB, KERNEL_R, false);
    mw_no_more(&m);
    mw_close(&m);

    /* dram: no warm-up, every pass measured */
    mw_open(&m, "chase", "[workload]\ntarget = dram\nfootprint_kib = 64\nline_b = 128\n", 64, 4);
    mw_kernel(&m, &k);
    warp_at(&w, &k, 0, 0, 64);
    const struct kernel_buf *b = k.args[0].buf;
    uint64_t n = 0, measured = 0;
    struct kernel_op op;
    for (op = step(&k, &w); op.kind == KOP_LOAD; op = step(&k, &w)) {
        cr_assert_eq((op.base - b->base) % 128, 0);
        n++;
        measured += op.flags == KOP_F_MEASURE;
    }
    cr_expect_eq(n, 512 * 2);
    cr_expect_eq(measured, 512 * 2);
    op_eq(op, (struct kernel_op){.kind = KOP_ALU, .n = 1, .src = {1}}, "drain");
    expect_exit(&k, &w);
    mw_close(&m);
}

Test(micro, chase_l3_two_kernels)
{
    struct mw m;
    mw_open(&m, "chase", "[workload]\ntarget = l3\nfootprint_kib = 256\n", 64, 4);
    struct kernel k;
    struct kernel_warp w;
    mw_kernel(&m, &k);
    expect_dims(&k, "chase_l3_warm", 1, 64);
    expect_arg(&k, 0, "chain", 256 * 1024, KERNEL_R, false);
    warp_at(&w, &k, 0, 0, 64);
    chase_walk(&k, &w, 4096, 1, 0);
    for (int pass = 0; pass < 2; pass++) { /* one measured pass per kernel */
        mw_kernel(&m, &k);
        expect_dims(&k, "chase_l3", 1, 64);
        expect_arg(&k, 0, "chain", 256 * 1024, KERNEL_R, true);
        warp_at(&w, &k, 0, 0, 64);
        chase_walk(&k, &w, 4096, 0, 1);
    }
    mw_no_more(&m);
    mw_close(&m);

    mw_open(&m, "chase", "[workload]\ntarget = l3\n", 64, 4);
    mw_kernel(&m, &k);
    expect_arg(&k, 0, "chain", 2048 * 1024, KERNEL_R, false);
    mw_close(&m);
}

Test(micro, chase_l2_remote)
{
    struct mw m;
    mw_open(&m, "chase", "[workload]\ntarget = l2_remote\n", 64, 4);
    struct kernel k;
    mw_kernel(&m, &k);
    expect_dims(&k, "chase_l2_remote", 2, 64);
    expect_arg(&k, 0, "chain", 1024 * 1024, KERNEL_R, false);
    const struct kernel_buf *b = k.args[0].buf;
    /* WG0 first-touches 16384 lines, 64 per load (lane l of load i: line
     * 64 i + l), registers 1..8 in rotation */
    struct kernel_warp w;
    warp_at(&w, &k, 0, 0, 64);
    for (uint64_t i = 0; i < 256; i++)
        op_eq(step(&k, &w),
              (struct kernel_op){.kind = KOP_LOAD, .size = 8, .mask = ~0ull,
                                 .dst = (uint8_t)(1 + i % 8), .base = b->base + i * 64 * 64,
                                 .stride = 64},
              "touch");
    expect_drain_exit(&k, &w, 8);
    /* WG1 waits (256 x 600 + 2000) / 4 instructions, then chases, all measured */
    warp_at(&w, &k, 1, 0, 64);
    op_eq(step(&k, &w), (struct kernel_op){.kind = KOP_ALU, .n = 38900}, "wait");
    chase_walk(&k, &w, 16384, 0, 2);
    mw_no_more(&m);
    mw_close(&m);
}

Test(micro, chase_l2_remote_warp32_partial_touch)
{
    struct mw m;
    mw_open(&m, "chase",
            "[workload]\ntarget = l2_remote\nfootprint_kib = 65\nline_b = 1024\npasses = 1\n"
            "touch_op_cycles = 100\n",
            32, 2);
    struct kernel k;
    mw_kernel(&m, &k);
    expect_dims(&k, "chase_l2_remote", 2, 32);
    const struct kernel_buf *b = k.args[0].buf;
    struct kernel_warp w;
    warp_at(&w, &k, 0, 0, 32);
    for (unsigned i = 0; i < 2; i++)
        op_eq(step(&k, &w),
              (struct kernel_op){.kind = KOP_LOAD, .size = 8, .mask = 0xffffffffull,
                                 .dst = (uint8_t)(1 + i), .base = b->base + i * 32 * 1024,
                                 .stride = 1024},
              "full touch");
    op_eq(step(&k, &w),
          (struct kernel_op){.kind = KOP_LOAD, .size = 8, .mask = 1, .dst = 3,
                             .base = b->base + 64 * 1024, .stride = 1024},
          "last touch: one line");
    expect_drain_exit(&k, &w, 8);
    warp_at(&w, &k, 1, 0, 32);
    op_eq(step(&k, &w), (struct kernel_op){.kind = KOP_ALU, .n = 575}, "wait (3 x 100 + 2000) / 4");
    for (unsigned i = 0; i < 65; i++) {
        struct kernel_op op = step(&k, &w);
        cr_assert_eq(op.kind, KOP_LOAD);
        cr_assert_eq(op.flags, KOP_F_MEASURE);
        cr_assert_eq((op.base - b->base) % 1024, 0);
    }
    expect_drain_exit(&k, &w, 1);
    mw_close(&m);
}

static void chase_order(uint64_t seed, uint64_t *out, unsigned n)
{
    struct mw m;
    cr_assert_not_null(mw_try(&m, "chase", "[workload]\ntarget = l1\n", 64, 4, seed));
    struct kernel k;
    struct kernel_warp w;
    mw_kernel(&m, &k);
    warp_at(&w, &k, 0, 0, 64);
    for (unsigned i = 0; i < n; i++)
        out[i] = step(&k, &w).base;
    mw_close(&m);
}

Test(micro, chase_chain_follows_the_seed)
{
    uint64_t a[128], b[128], c[128];
    chase_order(7, a, 128);
    chase_order(7, b, 128);
    chase_order(8, c, 128);
    cr_expect_eq(memcmp(a, b, sizeof a), 0);
    cr_expect_neq(memcmp(a, c, sizeof a), 0);
}

Test(micro, chase_errors)
{
    mw_expect_error("chase", "[workload]\nline_b = 48\n", 64, 4,
                    "t.ini:2: [workload] line_b = 48: not a power of two");
    mw_expect_error("chase", "[workload]\nline_b = 1024\nfootprint_kib = 1\n", 64, 4,
                    "t.ini:3: [workload] footprint_kib = 1: the chain needs at least 2 lines "
                    "of 1024 B");
    mw_expect_error("chase", "[workload]\n\ntarget = l2_remote\n", 64, 1,
                    "t.ini:3: [workload] target = l2_remote: needs at least 2 chiplets (the "
                    "system has 1)");
    struct cfg c;
    struct err e;
    cr_expect_eq(tcfg_load(&c, "workload", wl_find("chase")->keys, NULL,
                           "[workload]\ntarget = l9\n", &e), -1);
    cr_expect(strstr(e.msg, "target = l9"), "%s", e.msg);
    cfg_free(&c);
}

/* ---- stream ---- */

/* measured passes: a bandwidth test, with the latency under load too */
#define STREAM_MEAS (KOP_F_MEASURE | KOP_F_MEASURE_BW)

static void stream_expect_load(const struct kernel *k, struct kernel_warp *w, addr_t base,
                               uint8_t dst, uint8_t flags, const char *what)
{
    /* inside the passes' loops: the active lanes are the warp's, all of them */
    op_eq(step(k, w),
          (struct kernel_op){.kind = KOP_LOAD, .size = 16, .stride = 16, .dst = dst,
                             .src = {dst}, .base = base, .flags = flags,
                             .mask = low_bits(w->nlanes)},
          what);
}

/* Count a warp's loads to its exit: total and measured. */
static void stream_count(const struct kernel *k, struct kernel_warp *w, uint64_t *n,
                         uint64_t *measured)
{
    *n = *measured = 0;
    struct kernel_op op;
    for (op = step(k, w); op.kind == KOP_LOAD; op = step(k, w)) {
        (*n)++;
        *measured += op.flags == STREAM_MEAS;
    }
    /* the reads are consumed (registers 1..8) before the exit */
    op_eq(op, (struct kernel_op){.kind = KOP_ALU, .n = 1, .src = {1, 2}}, "drain");
    for (uint8_t r = 3; r < 8; r += 2)
        op_eq(step(k, w), (struct kernel_op){.kind = KOP_ALU, .n = 1, .src = {r, r + 1}},
              "drain");
    expect_exit(k, w);
}

/* Work-group wg's ranges: n runs of consecutive chunks (chunk_b bytes each),
 * run i from chunk run[2i] up to chunk run[2i + 1] (excluded), in address order. */
static void expect_chunks(const struct kernel *k, uint32_t wg, uint64_t chunk_b,
                          const uint64_t *run, unsigned n)
{
    struct addr_range r[8];
    addr_t base = k->args[0].buf->base;
    cr_assert_eq(k->ranges(k, wg, 0, r, 8), n, "wg %u", wg);
    for (unsigned i = 0; i < n; i++) {
        cr_expect_eq(r[i].lo, base + run[2 * i] * chunk_b, "wg %u range %u", wg, i);
        cr_expect_eq(r[i].hi, base + run[2 * i + 1] * chunk_b, "wg %u range %u", wg, i);
    }
}

static void expect_range(const struct kernel *k, uint32_t wg, unsigned arg, addr_t lo, addr_t hi)
{
    struct addr_range r[4];
    cr_assert_not_null(k->ranges);
    cr_expect_eq(k->ranges(k, wg, arg, r, 4), 1, "wg %u arg %u", wg, arg);
    cr_expect_eq(r[0].lo, lo, "wg %u lo %#llx", wg, (unsigned long long)r[0].lo);
    cr_expect_eq(r[0].hi, hi, "wg %u hi %#llx", wg, (unsigned long long)r[0].hi);
}

Test(micro, stream_dram_defaults)
{
    struct mw m;
    mw_open(&m, "stream", NULL, 64, 4);
    struct kernel k;
    mw_kernel(&m, &k);
    /* 512 MiB over 960 WGs, rounded down to 4 KiB rows: 136 rows = 557056 B each */
    const uint64_t chunk = 557056;
    expect_dims(&k, "stream_dram", 960, 256);
    cr_expect_eq(k.nargs, 1);
    expect_arg(&k, 0, "stream", 960 * chunk, KERNEL_R, false);
    addr_t base = k.args[0].buf->base;
    expect_range(&k, 5, 0, base + 5 * chunk, base + 6 * chunk);
    struct kernel_warp w;
    warp_at(&w, &k, 3, 2, 64);
    for (unsigned t = 0; t < 10; t++)
        stream_expect_load(&k, &w, base + 3 * chunk + t * 4096 + 2 * 1024,
                           (uint8_t)(1 + t % 8), STREAM_MEAS, "dram load");
    uint64_t n, meas;
    stream_count(&k, &w, &n, &meas);
    cr_expect_eq(n, 126);
    cr_expect_eq(meas, 126);
    mw_no_more(&m);
    mw_close(&m);
}

Test(micro, stream_l2_one_kernel_with_warmup)
{
    struct mw m;
    mw_open(&m, "stream", "[workload]\ntarget = l2\npasses = 4\n", 64, 4);
    struct kernel k;
    mw_kernel(&m, &k);
    /* 4 MiB x 4 chiplets over 960 WGs: 4 rows = 16 KiB each */
    expect_dims(&k, "stream_l2", 960, 256);
    expect_arg(&k, 0, "stream", 960 * 16384, KERNEL_R, false);
    addr_t base = k.args[0].buf->base;
    struct kernel_warp w;
    warp_at(&w, &k, 959, 3, 64);
    /* pass 0 on its own chunk; pass p on the chunk p WGs later in chiplet 3's
     * block of WGs 720..959 (another CU's) */
    addr_t own = base + 959 * 16384 + 3 * 1024;
    for (unsigned t = 0; t < 4; t++)
        stream_expect_load(&k, &w, own + t * 4096, (uint8_t)(1 + t), 0, "warm-up");
    for (unsigned t = 4; t < 10; t++) {
        uint64_t chunk = t < 8 ? 720 : 721;
        stream_expect_load(&k, &w, base + chunk * 16384 + 3 * 1024 + t % 4 * 4096,
                           (uint8_t)(1 + t % 8), STREAM_MEAS, "measured");
    }
    uint64_t n, meas;
    stream_count(&k, &w, &n, &meas);
    cr_expect_eq(n, 10); /* 20 in all: 4 warm-up, 16 measured */
    cr_expect_eq(meas, 10);
    warp_at(&w, &k, 0, 0, 64);
    stream_count(&k, &w, &n, &meas);
    cr_expect_eq(n, 20);
    cr_expect_eq(meas, 16);
    expect_chunks(&k, 959, 16384, (const uint64_t[]){720, 724, 959, 960}, 2);
    expect_chunks(&k, 0, 16384, (const uint64_t[]){0, 5}, 1);
    struct addr_range r[4];
    cr_assert_eq(k.ranges(&k, 959, 0, r, 1), 1, "more than max: the span of both runs");
    cr_expect_eq(r[0].lo, base + 720 * 16384ull);
    cr_expect_eq(r[0].hi, base + 960 * 16384ull);
    mw_no_more(&m);
    mw_close(&m);
    /* by default 32 measured passes: 33 x 4 loads per warp */
    mw_open(&m, "stream", "[workload]\ntarget = l2\n", 64, 4);
    mw_kernel(&m, &k);
    warp_at(&w, &k, 0, 0, 64);
    stream_count(&k, &w, &n, &meas);
    cr_expect_eq(n, 33 * 4);
    cr_expect_eq(meas, 32 * 4);
    /* CU 59 reads the chunks of WGs 59..91, 119..151, 179..211 and 239..31
     * (wrapping in the block): 132 distinct chunks */
    struct addr_range big[40];
    cr_assert_eq(k.ranges(&k, 59, 0, big, 40), 1, "33 consecutive chunks: one range");
    cr_expect_eq(big[0].lo, base + 59 * 16384ull);
    cr_expect_eq(big[0].hi, base + 92 * 16384ull);
    cr_assert_eq(k.ranges(&k, 239, 0, big, 40), 2);
    cr_expect_eq(big[0].lo, base, "WG 239 wraps to the block's first chunk");
    cr_expect_eq(big[0].hi, base + 32 * 16384ull);
    cr_expect_eq(big[1].lo, base + 239 * 16384ull);
    cr_expect_eq(big[1].hi, base + 240 * 16384ull);
    mw_close(&m);
}

Test(micro, stream_remote_reads_next_chiplets_chunk)
{
    struct mw m;
    mw_open(&m, "stream", "[workload]\ntarget = remote\npasses = 2\n", 64, 4);
    struct kernel k;
    struct kernel_warp w;
    uint64_t n, meas;
    const uint64_t chunk = 16384;
    mw_kernel(&m, &k);
    expect_dims(&k, "stream_touch", 960, 256);
    expect_arg(&k, 0, "stream", 960 * chunk, KERNEL_R, false);
    addr_t base = k.args[0].buf->base;
    expect_range(&k, 0, 0, base, base + chunk);
    warp_at(&w, &k, 10, 1, 64);
    stream_expect_load(&k, &w, base + 10 * chunk + 1024, 1, 0, "touch");
    stream_count(&k, &w, &n, &meas);
    cr_expect_eq(n, 3);
    cr_expect_eq(meas, 0);

    mw_kernel(&m, &k);
    expect_dims(&k, "stream_remote", 960, 256);
    expect_arg(&k, 0, "stream", 960 * chunk, KERNEL_R, false);
    expect_chunks(&k, 0, chunk, (const uint64_t[]){240, 242}, 1);
    expect_chunks(&k, 959, chunk, (const uint64_t[]){0, 1, 239, 240}, 2);
    warp_at(&w, &k, 959, 0, 64);
    stream_expect_load(&k, &w, base + 239 * chunk, 1, STREAM_MEAS, "remote");
    stream_expect_load(&k, &w, base + 239 * chunk + 4096, 2, STREAM_MEAS, "remote");
    stream_expect_load(&k, &w, base + 239 * chunk + 8192, 3, STREAM_MEAS, "remote");
    stream_expect_load(&k, &w, base + 239 * chunk + 12288, 4, STREAM_MEAS, "remote");
    stream_expect_load(&k, &w, base + 0 * chunk, 5, STREAM_MEAS, "remote, pass 1");
    stream_count(&k, &w, &n, &meas);
    cr_expect_eq(n, 3);
    cr_expect_eq(meas, 3);
    mw_no_more(&m);
    mw_close(&m);
}

Test(micro, stream_warp32_small)
{
    struct mw m;
    mw_open(&m, "stream",
            "[workload]\ntarget = dram\nfootprint_kib = 100\ncus = 3\nwgs_per_cu = 2\n"
            "passes = 2\n",
            32, 4);
    struct kernel k;
    mw_kernel(&m, &k);
    /* 102400 B / 6 WGs = 17066, rounded down to 4 rows of 4096 B */
    expect_dims(&k, "stream_dram", 6, 256);
    expect_arg(&k, 0, "stream", 6 * 16384, KERNEL_R, false);
    addr_t base = k.args[0].buf->base;
    struct kernel_warp w;
    warp_at(&w, &k, 2, 7, 32);
    stream_expect_load(&k, &w, base + 2 * 16384 + 7 * 512, 1, STREAM_MEAS, "warp 7");
    uint64_t n, meas;
    stream_count(&k, &w, &n, &meas);
    cr_expect_eq(n, 7);
    /* 6 WGs over 4 chiplets: blocks {0,1} {2,3} {4} {5}; pass 1 moves 1 WG on
     * within the block (from a block of 1, back to the own chunk) */
    expect_chunks(&k, 2, 16384, (const uint64_t[]){2, 4}, 1);
    expect_chunks(&k, 5, 16384, (const uint64_t[]){5, 6}, 1);
    mw_close(&m);
}

Test(micro, stream_uneven_chiplet_blocks)
{
    struct mw m;
    mw_open(&m, "stream",
            "[workload]\ntarget = l2\nfootprint_kib = 40\ncus = 10\nwgs_per_cu = 1\n"
            "passes = 2\n",
            64, 4);
    struct kernel k;
    mw_kernel(&m, &k);
    /* 10 WGs over 4 chiplets: blocks 0..2, 3..5, 6..7, 8..9; pass p: p WGs on */
    expect_chunks(&k, 4, 4096, (const uint64_t[]){3, 6}, 1);
    expect_chunks(&k, 2, 4096, (const uint64_t[]){0, 3}, 1);
    expect_chunks(&k, 6, 4096, (const uint64_t[]){6, 8}, 1);
    expect_chunks(&k, 9, 4096, (const uint64_t[]){8, 10}, 1);
    struct kernel_warp w;
    warp_at(&w, &k, 9, 0, 64);
    addr_t base = k.args[0].buf->base;
    stream_expect_load(&k, &w, base + 9 * 4096, 1, 0, "warm-up");
    stream_expect_load(&k, &w, base + 8 * 4096, 2, STREAM_MEAS, "pass 1");
    stream_expect_load(&k, &w, base + 9 * 4096, 3, STREAM_MEAS, "pass 2");
    uint64_t n, meas;
    stream_count(&k, &w, &n, &meas);
    cr_expect_eq(n, 0);
    mw_close(&m);
}

Test(micro, stream_errors)
{
    mw_expect_error("stream", "[workload]\nblock = 100\n", 64, 4,
                    "t.ini:2: [workload] block = 100: not a multiple of the warp size (64)");
    mw_expect_error("stream", "[workload]\ntarget = remote\n", 64, 1,
                    "t.ini:2: [workload] target = remote: needs at least 2 chiplets (the "
                    "system has 1)");
    mw_expect_error("stream", "[workload]\ntarget = remote\ncus = 240\n", 64, 7,
                    "t.ini:3: [workload] cus = 240: 960 work-groups do not split evenly over "
                    "7 chiplets");
    mw_expect_error("stream", "[workload]\nfootprint_kib = 1000\n", 64, 4,
                    "t.ini:2: [workload] footprint_kib = 1000: 1000 KiB is less than "
                    "4096 B (whole rows and pages) for each of 960 work-groups");
    /* with 60 CUs per chiplet a CU would meet one of its chunks again */
    mw_expect_error("stream", "[workload]\ntarget = l2\npasses = 60\n", 64, 4,
                    "t.ini:3: [workload] passes = 60: 60 would make a CU read a chunk twice in "
                    "one kernel: at most 59 with 60 CUs per chiplet");
    mw_expect_error("stream", "[workload]\ntarget = remote\npasses = 61\n", 64, 2,
                    "t.ini:3: [workload] passes = 61: 61 would make a CU read a chunk twice in "
                    "one kernel: at most 60 with 60 CUs per chiplet");
    /* 32 lanes: block 96 is fine; its chunks are whole 1536 B rows and 4 KiB pages */
    struct mw m;
    mw_open(&m, "stream", "[workload]\nblock = 96\ncus = 1\nwgs_per_cu = 2\nfootprint_kib = 40\n",
            32, 4);
    struct kernel k;
    mw_kernel(&m, &k);
    expect_arg(&k, 0, "stream", 2 * 12288, KERNEL_R, false);
    struct kernel_warp w;
    uint64_t n, meas;
    warp_at(&w, &k, 1, 2, 32);
    stream_expect_load(&k, &w, k.args[0].buf->base + 12288 + 2 * 512, 1, STREAM_MEAS, "b96");
    stream_count(&k, &w, &n, &meas);
    cr_expect_eq(n, 7); /* 8 rows of 1536 B */
    mw_close(&m);
}

/* ---- vecadd ---- */

static void vecadd_expect_warp(const struct kernel *k, uint32_t wg, uint32_t warp, unsigned ws,
                               uint64_t mask)
{
    struct kernel_warp w;
    warp_at(&w, k, wg, warp, ws);
    uint64_t off = ((uint64_t)wg * kernel_wg_threads(k) + warp * ws) * 4;
    addr_t a = k->args[0].buf->base, b = k->args[1].buf->base, c = k->args[2].buf->base;
    op_eq(step(k, &w),
          (struct kernel_op){.kind = KOP_LOAD, .size = 4, .stride = 4, .dst = 1,
                             .mask = mask, .base = a + off},
          "load a");
    op_eq(step(k, &w),
          (struct kernel_op){.kind = KOP_LOAD, .size = 4, .stride = 4, .dst = 2,
                             .mask = mask, .base = b + off},
          "load b");
    op_eq(step(k, &w), (struct kernel_op){.kind = KOP_ALU, .n = 1, .src = {1, 2}}, "add");
    op_eq(step(k, &w),
          (struct kernel_op){.kind = KOP_STORE, .size = 4, .stride = 4, .src = {1, 2},
                             .mask = mask, .base = c + off},
          "store c");
    expect_exit(k, &w);
}

Test(micro, vecadd_defaults)
{
    struct mw m;
    mw_open(&m, "vecadd", NULL, 64, 4);
    struct kernel k;
    mw_kernel(&m, &k);
    expect_dims(&k, "vecadd", 4096, 256);
    cr_expect_eq(k.nargs, 3);
    expect_arg(&k, 0, "a", 4 * MB, KERNEL_R, false);
    expect_arg(&k, 1, "b", 4 * MB, KERNEL_R, false);
    expect_arg(&k, 2, "c", 4 * MB, KERNEL_RW, false);
    for (unsigned i = 0; i < 3; i++) {
        addr_t base = k.args[i].buf->base;
        expect_range(&k, 7, i, base + 7 * 1024, base + 8 * 1024);
    }
    vecadd_expect_warp(&k, 2, 1, 64, ~0ull);
    vecadd_expect_warp(&k, 4095, 3, 64, ~0ull);
    mw_no_more(&m);
    mw_close(&m);
}

Test(micro, vecadd_tail_and_iterations)
{
    struct mw m;
    mw_open(&m, "vecadd", "[workload]\nn = 1000\niterations = 3\n", 64, 4);
    struct kernel k;
    for (int it = 0; it < 3; it++) {
        mw_kernel(&m, &k);
        expect_dims(&k, "vecadd", 4, 256);
        expect_arg(&k, 0, "a", 4000, KERNEL_R, it > 0);
        expect_arg(&k, 1, "b", 4000, KERNEL_R, it > 0);
        expect_arg(&k, 2, "c", 4000, KERNEL_RW, it > 0);
    }
    mw_no_more(&m);
    addr_t c = k.args[2].buf->base;
    expect_range(&k, 3, 2, c + 768 * 4, c + 1000 * 4);
    vecadd_expect_warp(&k, 3, 2, 64, ~0ull);
    vecadd_expect_warp(&k, 3, 3, 64, (1ull << 40) - 1); /* elements 960..999 */
    mw_close(&m);

    /* a warp wholly past n exits at once */
    mw_open(&m, "vecadd", "[workload]\nn = 100\n", 32, 4);
    mw_kernel(&m, &k);
    expect_dims(&k, "vecadd", 1, 256);
    vecadd_expect_warp(&k, 0, 2, 32, 0xfffffffful);
    vecadd_expect_warp(&k, 0, 3, 32, 0xf);
    struct kernel_warp w;
    warp_at(&w, &k, 0, 4, 32);
    expect_exit(&k, &w);
    mw_close(&m);
}

Test(micro, vecadd_partial_warp_of_odd_block)
{
    struct mw m;
    mw_open(&m, "vecadd", "[workload]\nblock = 100\n", 64, 4);
    struct kernel k;
    mw_kernel(&m, &k);
    expect_dims(&k, "vecadd", 10486, 100);
    vecadd_expect_warp(&k, 5, 1, 64, (1ull << 36) - 1);
    /* the last WG holds elements 1048500..1048575 */
    vecadd_expect_warp(&k, 10485, 1, 64, (1ull << 12) - 1);
    addr_t a = k.args[0].buf->base;
    expect_range(&k, 10485, 0, a + 1048500 * 4, a + 1048576 * 4);
    mw_close(&m);
}

Test(micro, vecadd_errors)
{
    mw_expect_error("vecadd", "[workload]\nn = 17179869184\nblock = 2\n", 64, 4,
                    "t.ini:2: [workload] n = 17179869184: needs more than 4294967295 "
                    "work-groups of 2 threads");
    struct cfg c;
    struct err e;
    cr_expect_eq(tcfg_load(&c, "workload", wl_find("vecadd")->keys, NULL,
                           "[workload]\nblock = 0\n", &e), -1);
    cfg_free(&c);
}

/* ---- square ---- */

static void square_expect_prologue(const struct kernel *k, struct kernel_warp *w)
{
    /* ALU counts from the PTX of the real kernel (src/workload/micro/square.c) */
    op_eq(step(k, w), (struct kernel_op){.kind = KOP_ALU, .n = 13}, "prologue");
}

static void square_expect_iter(const struct kernel *k, struct kernel_warp *w, uint64_t elem,
                               uint64_t mask)
{
    addr_t a = k->args[0].buf->base, c = k->args[1].buf->base;
    op_eq(step(k, w), (struct kernel_op){.kind = KOP_ALU, .n = 2}, "address of A_d");
    op_eq(step(k, w),
          (struct kernel_op){.kind = KOP_LOAD, .size = 4, .stride = 4, .dst = 1, .mask = mask,
                             .base = a + elem * 4},
          "load A_d");
    op_eq(step(k, w), (struct kernel_op){.kind = KOP_ALU, .n = 4}, "address of C_d, loop");
    op_eq(step(k, w), (struct kernel_op){.kind = KOP_ALU, .n = 1, .src = {1}}, "multiply");
    op_eq(step(k, w),
          (struct kernel_op){.kind = KOP_STORE, .size = 4, .stride = 4, .src = {1},
                             .mask = mask, .base = c + elem * 4},
          "store C_d");
}

/* Table II: 524288 floats, 2048 blocks of 256 threads (one element each), 2 launches. */
Test(micro, square_defaults)
{
    struct mw m;
    mw_open(&m, "square", NULL, 64, 4);
    struct kernel k;
    mw_kernel(&m, &k);
    expect_dims(&k, "square", 2048, 256);
    cr_expect_eq(k.nargs, 2);
    expect_arg(&k, 0, "A_d", 2 * MB, KERNEL_R, false);
    expect_arg(&k, 1, "C_d", 2 * MB, KERNEL_RW, false);
    struct kernel_warp w;
    warp_at(&w, &k, 1, 2, 64);
    square_expect_prologue(&k, &w);
    square_expect_iter(&k, &w, 256 + 128, ~0ull);
    expect_exit(&k, &w);
    struct addr_range r[2];
    addr_t c = k.args[1].buf->base;
    cr_assert_eq(k.ranges(&k, 2047, 1, r, 2), 1);
    cr_expect_eq(r[0].lo, c + 2047 * 256 * 4);
    cr_expect_eq(r[0].hi, c + 2 * MB);
    mw_kernel(&m, &k);
    expect_arg(&k, 0, "A_d", 2 * MB, KERNEL_R, true);
    expect_arg(&k, 1, "C_d", 2 * MB, KERNEL_RW, true);
    mw_no_more(&m);
    mw_close(&m);
}

Test(micro, square_strided_ranges)
{
    struct mw m;
    mw_open(&m, "square", "[workload]\nn = 1048576\nblocks = 512\niterations = 1\n", 64, 4);
    struct kernel k;
    mw_kernel(&m, &k);
    expect_dims(&k, "square", 512, 256);
    struct kernel_warp w;
    warp_at(&w, &k, 1, 2, 64);
    square_expect_prologue(&k, &w);
    for (uint64_t it = 0; it < 8; it++)
        square_expect_iter(&k, &w, 256 + 128 + it * 131072, ~0ull);
    expect_exit(&k, &w);
    /* WG 1's ranges: 8 slices of 256 floats, 512 KiB apart */
    struct addr_range r[8];
    addr_t c = k.args[1].buf->base;
    cr_assert_eq(k.ranges(&k, 1, 1, r, 8), 8);
    for (unsigned i = 0; i < 8; i++) {
        cr_expect_eq(r[i].lo, c + (256 + i * 131072ull) * 4);
        cr_expect_eq(r[i].hi, c + (512 + i * 131072ull) * 4);
    }
    cr_assert_eq(k.ranges(&k, 1, 0, r, 7), 1, "more than max: the span of all 8");
    cr_expect_eq(r[0].lo, k.args[0].buf->base + 256 * 4);
    cr_expect_eq(r[0].hi, k.args[0].buf->base + (512 + 7 * 131072ull) * 4);
    mw_no_more(&m);
    mw_close(&m);
}

Test(micro, square_tail_iterations_and_merged_ranges)
{
    struct mw m;
    mw_open(&m, "square", "[workload]\nn = 1000\nblocks = 2\niterations = 2\n", 64, 4);
    struct kernel k;
    mw_kernel(&m, &k);
    expect_arg(&k, 0, "A_d", 4000, KERNEL_R, false);
    mw_kernel(&m, &k);
    expect_dims(&k, "square", 2, 256);
    expect_arg(&k, 0, "A_d", 4000, KERNEL_R, true);
    expect_arg(&k, 1, "C_d", 4000, KERNEL_RW, true);
    mw_no_more(&m);
    struct kernel_warp w;
    warp_at(&w, &k, 1, 3, 64); /* threads 448..511, stride 512 */
    square_expect_prologue(&k, &w);
    square_expect_iter(&k, &w, 448, ~0ull);
    square_expect_iter(&k, &w, 960, (1ull << 40) - 1);
    expect_exit(&k, &w);
    struct addr_range r[4];
    addr_t a = k.args[0].buf->base;
    cr_assert_eq(k.ranges(&k, 1, 0, r, 4), 2);
    cr_expect_eq(r[0].lo, a + 256 * 4);
    cr_expect_eq(r[0].hi, a + 512 * 4);
    cr_expect_eq(r[1].lo, a + 768 * 4);
    cr_expect_eq(r[1].hi, a + 1000 * 4);
    mw_close(&m);

    /* one work-group: its slices touch and merge into one range */
    mw_open(&m, "square", "[workload]\nn = 1000\nblocks = 1\n", 64, 4);
    mw_kernel(&m, &k);
    a = k.args[0].buf->base;
    cr_assert_eq(k.ranges(&k, 0, 0, r, 1), 1);
    cr_expect_eq(r[0].lo, a);
    cr_expect_eq(r[0].hi, a + 4000);
    warp_at(&w, &k, 0, 3, 64);
    square_expect_prologue(&k, &w);
    for (uint64_t e = 192; e < 1000; e += 256)
        square_expect_iter(&k, &w, e, e == 960 ? (1ull << 40) - 1 : ~0ull);
    expect_exit(&k, &w);
    mw_close(&m);
}

Test(micro, square_errors)
{
    struct cfg c;
    struct err e;
    cr_expect_eq(tcfg_load(&c, "workload", wl_find("square")->keys, NULL,
                           "[workload]\nthreads = 2000\n", &e), -1);
    cr_expect(strstr(e.msg, "threads = 2000"), "%s", e.msg);
    cfg_free(&c);
}
