/*
 * Instruction mix per warp of the Rodinia models btree (findK) and backprop
 * (both kernels) against the real NVBit SASS traces of the same apps in
 * ../shared/data (H100; ports of Rodinia by another group): instructions per
 * warp split into compute, global, local, LDS and barrier instructions.
 * Model warps are stepped with 32 lanes, as on the NVIDIA presets. What both
 * kernels have by construction is asserted exactly, the compute share only
 * where the code is the same statements; where a port is restructured, the
 * test checks the difference that rules the comparison out. Run with
 * --verbose to see the mixes. Skipped when the shared data is absent.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace.h"
#include "trace_util.h"
#include "wl_harness.h"

extern const struct wl_ops wl_btree, wl_backprop;

enum { M_ALU, M_GLOBAL, M_LOCAL, M_LDS, M_BAR, M_N };

struct mix {
    uint64_t warps, queries, n[M_N]; /* queries: trace threads that finish, model WGs */
    uint64_t loads, stores, store_lanes; /* global; the model's stores: into buffer `out` */
    uint64_t reg[M_N]; /* each warp's first global load to its last global store */
    const struct kernel_buf *out;
};

static uint64_t sum(const uint64_t *n)
{
    return n[M_ALU] + n[M_GLOBAL] + n[M_LOCAL] + n[M_LDS] + n[M_BAR];
}
static double per_warp(const struct mix *m, uint64_t n) { return (double)n / (double)m->warps; }
static double share(const uint64_t *n, int c) { return (double)n[c] / (double)sum(n); }

static void mix_log(const char *what, const struct mix *m)
{
    cr_log_info("%-30s %6.2f insts/warp: compute %.1f%% global %.1f%% local %.1f%% lds %.1f%% "
                "barrier %.1f%%; first load to last store: compute %.1f%%", what,
                per_warp(m, sum(m->n)),
                100 * share(m->n, M_ALU), 100 * share(m->n, M_GLOBAL), 100 * share(m->n, M_LOCAL),
                100 * share(m->n, M_LDS), 100 * share(m->n, M_BAR),
                sum(m->reg) ? 100 * share(m->reg, M_ALU) : 0.0);
}

/* n instructions of class c of a warp; cur and at[] track the region from
 * the warp's first global load (at[0], *state 1) to its last store (at[1], 2). */
static void count(struct mix *m, uint64_t *cur, uint64_t (*at)[M_N], int *state, int c,
                  uint64_t n, int ld, int st)
{
    if (ld && !*state) {
        *state = 1;
        memcpy(at[0], cur, sizeof at[0]);
    }
    cur[c] += n;
    m->n[c] += n;
    m->loads += (uint64_t)ld;
    if (st && *state) {
        *state = 2;
        memcpy(at[1], cur, sizeof at[1]);
    }
}

static void warp_done(struct mix *m, uint64_t (*at)[M_N], int state)
{
    m->warps++;
    for (int c = 0; state == 2 && c < M_N; c++)
        m->reg[c] += at[1][c] - at[0][c];
}

/* ---- the trace: chipsim's reader, by opcode kind and address space -------- */

static void tr_count(const struct trace_ops *ops, const struct trace_tb *tb, struct mix *m)
{
    for (uint32_t w = 0; w < tb->nwarps; w++) {
        uint64_t cur[M_N] = {0}, at[2][M_N] = {{0}};
        int state = 0;
        const uint8_t *p = tb->data + tb->warp[w].off;
        for (uint32_t i = 0; i < tb->warp[w].n; i++) {
            const struct trace_rec *r = (const void *)p;
            const struct trace_opinfo *o = &ops->v[r->opc];
            p += trace_rec_size(r);
            bool mem = o->kind == TK_LOAD || o->kind == TK_STORE || o->kind == TK_ATOMIC;
            int c = o->kind == TK_BARRIER    ? M_BAR
                    : !mem                   ? M_ALU
                    : o->space == TSP_LOCAL  ? M_LOCAL
                    : o->space == TSP_SHARED ? M_LDS
                                             : M_GLOBAL; /* the traces' LD/ST are global */
            int st = c == M_GLOBAL && o->kind == TK_STORE;
            count(m, cur, at, &state, c, 1, c == M_GLOBAL && !st, st);
            m->stores += (uint64_t)st;
            m->store_lanes += st ? (uint64_t)popcount64(r->mask) : 0;
            if (i + 1 == tb->warp[w].n) /* threads alive at the end (no early exit) */
                m->queries += (uint64_t)popcount64(r->mask);
        }
        warp_done(m, at, state);
    }
}

/* The mix of every launch of the kernels whose mangled name contains
 * `name`; false if the shared data is absent. */
static bool trace_mix(const char *dir, const char *name, struct mix *m)
{
    char *list = tu_shared_list(dir);
    if (!list)
        return false;
    struct trace_list l = {0};
    struct trace_ops ops;
    struct err e;
    trace_ops_init(&ops, NULL);
    cr_assert_eq(trace_list_read(&l, list, &e), 0, "%s", e.msg);
    for (size_t i = 0; i < l.n; i++) {
        if (l.cmd[i].kind != TCMD_KERNEL)
            continue;
        struct trace_kfile kf = {.path = xstrdup(l.cmd[i].path)};
        struct trace_tb tb = {0};
        cr_assert_eq(trace_check_kernel(&kf, &ops, &e), 0, "%s", e.msg);
        for (size_t t = 0; strstr(kf.h.name, name) && t < kf.nidx; t++) {
            struct trace_in in;
            cr_assert_eq(trace_in_open(&in, kf.path, &e), 0, "%s", e.msg);
            cr_assert_eq(trace_read_tb(&in, &kf, &ops, kf.idx[t].tb, &tb, &e), 0, "%s", e.msg);
            trace_in_close(&in);
            tr_count(&ops, &tb, m);
        }
        trace_tb_free(&tb);
        trace_kfile_free(&kf);
    }
    trace_list_free(&l);
    trace_ops_free(&ops);
    free(list);
    cr_assert_gt(m->warps, 0, "no warp of %s in %s", name, dir);
    return true;
}

/* ---- the model: every op of 32-lane warps ----------------------------------- */

static void model_warp(const struct kernel *k, uint32_t wg, uint32_t warp, struct mix *m)
{
    struct kernel_warp w = {.k = k, .wg = wg, .warp = warp, .warp_size = 32};
    w.wg_id = (struct kernel_dim){wg % k->grid.x, wg / k->grid.x % k->grid.y,
                                  wg / (k->grid.x * k->grid.y)};
    uint64_t left = kernel_wg_threads(k) - warp * 32ull;
    w.nlanes = (uint32_t)(left < 32 ? left : 32);
    uint64_t cur[M_N] = {0}, at[2][M_N] = {{0}};
    int state = 0;
    struct kernel_op op;
    do {
        op = wlh_step(k, &w);
        bool ld = op.kind == KOP_LOAD || op.kind == KOP_ATOMIC, st = op.kind == KOP_STORE;
        int c = ld || st                                                ? M_GLOBAL
                : op.kind == KOP_LDS_LOAD || op.kind == KOP_LDS_STORE ? M_LDS
                : op.kind == KOP_BARRIER                              ? M_BAR
                                                                      : M_ALU;
        count(m, cur, at, &state, c, op.kind == KOP_ALU ? op.n : 1, ld, st);
        addr_t a = op.lanes ? w.lane_addr[op.mask ? __builtin_ctzll(op.mask) : 0] : op.base;
        m->stores += st && a >= m->out->base && a < m->out->base + m->out->size;
    } while (op.kind != KOP_EXIT);
    warp_done(m, at, state);
}

/* Kernel number kn of model wl ([workload] INI text): work-groups wg0,
 * wg0 + step, ...; m->stores counts the stores into its argument `out`. */
static void model_mix(const struct wl_ops *wl, const char *ini, unsigned kn, unsigned out,
                      uint32_t wg0, uint32_t step, struct mix *m)
{
    struct wlh h;
    cr_assert_not_null(wlh_try(&h, wl, ini, 1, 132), "%s", h.e.msg);
    struct kernel k;
    for (unsigned i = 0; i <= kn; i++)
        cr_assert(wl->next_kernel(h.self, &k));
    m->out = k.args[out].buf;
    uint32_t wgs = k.grid.x * k.grid.y * k.grid.z, warps = (kernel_wg_threads(&k) + 31) / 32;
    for (uint32_t wg = wg0; wg < wgs; wg += step, m->queries++)
        for (uint32_t w = 0; w < warps; w++)
            model_warp(&k, wg, w, m);
    wlh_close(&h);
}

#define TRACE(dir, name, m)                                                                   \
    do {                                                                                      \
        if (!trace_mix(dir, name, m))                                                         \
            cr_skip_test("../shared/data/%s is absent", dir);                                 \
    } while (0)

/* ---- btree ---------------------------------------------------------------------- */

/* Table II tree (height 2), every 97th findK query. The trace's find_key_kernel
 * is a search per thread that copies each 264-byte node into local memory and
 * scans it (28% of its instructions are LDL/STL, no barrier); Rodinia's findK
 * is a work-group per query, one key interval per thread, two barriers per
 * level. Compute shares are therefore not compared: the test checks that the
 * port still differs that way, and what both have: one answer per query. */
Test(wl_mix, btree_findk)
{
    struct mix t = {0}, mo = {0};
    TRACE("accelsim-rodinia-btree-h100", "find_key_kernel", &t);
    model_mix(&wl_btree, "[workload]\nj_count = 0\n", 0, 5, 0, 97, &mo); /* arg 5: ansD */
    mix_log("trace find_key_kernel", &t);
    mix_log("model findK", &mo);
    cr_expect(t.n[M_LOCAL] > 0 && t.n[M_BAR] == 0, "the port searches per thread");
    cr_expect_eq(t.n[M_LDS] + mo.n[M_LDS] + mo.n[M_LOCAL], 0, "no LDS, no local in findK");
    cr_expect_eq(mo.n[M_BAR], mo.warps * 4, "findK: 2 barriers per level, height 2");
    /* one answer store per query: a lane of the trace's thread, one store of
     * the model's work-group (every generated key is in the tree) */
    cr_expect_eq(t.store_lanes, t.queries, "trace: %llu answer lanes for %llu queries",
                 (unsigned long long)t.store_lanes, (unsigned long long)t.queries);
    cr_expect_eq(mo.stores, mo.queries, "model: %llu answers for %llu queries",
                 (unsigned long long)mo.stores, (unsigned long long)mo.queries);
}

/* ---- backprop ------------------------------------------------------------------- */

/* The port's forward_kernel computes each hidden unit's dot product in a
 * loop of global loads (no LDS, no barrier); Rodinia's kernel multiplies
 * one weight per thread and reduces in LDS. Not the same code: the test
 * checks that difference and what both lack (local memory). */
Test(wl_mix, backprop_forward)
{
    struct mix t = {0}, mo = {0};
    TRACE("accelsim-rodinia-backprop-h100", "forward_kernel", &t);
    model_mix(&wl_backprop, "[workload]\nlayer_size = 1024\n", 0, 1, 0, 1, &mo);
    mix_log("trace forward_kernel", &t);
    mix_log("model bpnn_layerforward_CUDA", &mo);
    cr_expect(t.n[M_LDS] == 0 && t.n[M_BAR] == 0, "the port reduces without LDS");
    cr_expect_eq(t.n[M_LOCAL] + mo.n[M_LOCAL], 0);
    cr_expect_eq(mo.n[M_BAR], mo.warps * 8, "3 barriers, 4 reduction steps, 1 before the store");
    cr_expect_eq(mo.n[M_GLOBAL], mo.warps * 4, "input, weight, weight store, partial sum");
}

/* The momentum update is the same statements in both: per thread 4 loads
 * (delta, ly, oldw, w) and 2 stores (w, oldw). Rodinia's kernel also reloads
 * delta, ly and oldw after the store to w (no __restrict__: w may alias
 * them). The port indexes in 1D and divides by the row length, Rodinia's 2D
 * grid does not, so only the update region (first load to last store) is
 * compared. Tolerance 10 points of compute share: the model counts PTX, the
 * trace SASS (a 64-bit address add is one PTX add but IADD3 + IADD3.X;
 * ULDC constant loads exist only in SASS), and Rodinia's update runs in
 * double precision (ETA and MOMENTUM are double literals: 7 conversions the
 * port's float update does not need); 10 points still catches an update whose
 * ALU count is off by a factor of two (64.7% traced; 21 -> 42 ALU gives 82%,
 * 21 -> 10 gives 53%). Work-group 0 (its bias-row block) is left out. */
Test(wl_mix, backprop_adjust_weights)
{
    struct mix t = {0}, mo = {0};
    TRACE("accelsim-rodinia-backprop-h100", "adjust_weights_kernel", &t);
    model_mix(&wl_backprop, "[workload]\nlayer_size = 1024\n", 1, 2, 1, 1, &mo);
    mix_log("trace adjust_weights_kernel", &t);
    mix_log("model bpnn_adjust_weights_cuda", &mo);
    cr_expect_eq(t.stores, t.warps * 2, "trace: w and oldw");
    cr_expect_eq(mo.stores, mo.warps, "model: w");
    cr_expect_eq(mo.n[M_GLOBAL] - mo.loads, mo.warps * 2, "model: w and oldw");
    cr_expect_eq(t.loads, t.warps * 4, "trace: delta, ly, oldw, w once each");
    cr_expect_eq(mo.loads, mo.warps * (4 + 3), "model: the same plus 3 reloads");
    cr_expect_eq(t.n[M_LDS] + t.n[M_LOCAL] + mo.n[M_LDS] + mo.n[M_LOCAL], 0);
    double ts = share(t.reg, M_ALU), ms = share(mo.reg, M_ALU);
    cr_expect(ms > ts - 0.10 && ms < ts + 0.10,
              "update region compute share: model %.1f%%, trace %.1f%%", 100 * ms, 100 * ts);
}
