/*
 * Compute unit: issue and stall behaviour (a warp waits only for registers
 * it reads), store draining at exit and fences, barriers, the coalescer,
 * work-group admission by warp slots and LDS, and scoped accesses: their
 * requests' scope and strength, releases, acquires, spin and fresh loads.
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "coherence/coh.h"
#include "gpu/cu.h"

#define CY 1000 /* 1 GHz clock: one cycle = 1000 ps */

/* A lower level that answers every request after `delay` and records it
 * (and when it came). From its set_from-th read on (1-based; 0: never), every
 * word a read returns holds version 5: data written by another CU. */
struct lower {
    ps_t delay;
    int n, reads, set_from;
    struct req seen[512];
    ps_t at[512];
};

static void lower_access(struct sim *s, void *self, struct req *r)
{
    struct lower *l = self;
    if (l->n < 512) {
        l->at[l->n] = s->now;
        l->seen[l->n++] = *r;
    }
    if (r->kind == REQ_READ && ++l->reads >= l->set_from && l->set_from)
        for (unsigned i = 0; i < REQ_WORDS; i++)
            r->ver[i] = 5;
    sim_at(s, s->now + l->delay, req_complete_ev, r, 0);
}

/* A scripted kernel: every warp runs ops[warp][...] until KOP_EXIT. */
struct script {
    struct kernel_op ops[4][12];
};

static void script_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    const struct script *sc = k->ctx;
    *op = sc->ops[w->warp][w->pc++];
}

struct rig {
    struct sim s;
    struct clock clk;
    struct lower low;
    struct cache l1;
    struct lds lds;
    struct chk chk;
    struct cu cu;
    struct coh_machine cm;  /* the L1 as the default coherence hook sees it */
    struct kernel k;
    struct script sc;
    ps_t done_at[64];
    int ndone;
};

/* A request from the CU, routed by the default l1_access hook (as memsys
 * does under a scheme without one), then into the L1. */
static void l1_in(void *obj, unsigned cu, struct req *req)
{
    struct rig *r = obj;
    struct coh_route rt = coh_default_l1_access(&r->cm, cu, req);
    req->flags = (uint8_t)((req->flags | rt.set) & ~rt.clear);
    cache_access(&r->s, &r->l1, req);
}

static unsigned home0(void *obj, addr_t a, unsigned cu)
{
    (void)obj;
    (void)a;
    (void)cu;
    return 0;
}

static void wg_done(void *obj, struct cu *cu, uint32_t wg)
{
    (void)cu;
    (void)wg;
    struct rig *r = obj;
    r->done_at[r->ndone++] = r->s.now;
}

/* versions: the L1 keeps data versions and the checker is on, at kernel 0. */
static struct rig *rig_make(unsigned threads, unsigned simds, enum cu_sched sched, bool versions)
{
    struct rig *r = calloc(1, sizeof *r);
    sim_init(&r->s, 1);
    req_pool_init(&r->s, 256);
    clock_init(&r->clk, "gpu", 1000.0);
    r->low.delay = 100 * CY;
    struct cache_params cp = {
        .size_b = 16384, .line_b = 64, .ways = 16, .banks = 1, .ports = 64, .mshrs = 64,
        .mshr_targets = 8, .hit_lat = 2, .miss_lat = 0, .resp_lat = 0,
        .write_policy = CACHE_WRITE_THROUGH, .write_alloc = CACHE_WA_NONE,
        .walk_sets_per_cycle = 1, .wb_inflight = 8, .seed = 1, .versions = versions,
    };
    cache_init(&r->l1, &r->s, "l1", &r->clk, &cp, (struct mem_port){lower_access, &r->low});
    struct lds_params lp = {.size_kib = 64, .lat = 65, .banks = 32, .bank_b = 4,
                            .lanes_per_cycle = 32, .conflicts = true};
    lds_init(&r->lds, &r->s, &r->clk, &lp);
    chk_init(&r->chk, versions, 64);
    if (versions)
        chk_kernel_begin(&r->chk, 0);
    struct cu_params p = {.simds = simds, .warps_per_simd = 10, .warp_size = 64,
                          .alu_cycles = 4, .max_wgs = 40, .sched = sched};
    r->cm = (struct coh_machine){.s = &r->s, .l1 = &r->l1, .ncu = 1};
    struct cu_env env = {.s = &r->s, .clk = &r->clk, .chk = &r->chk, .home = home0,
                         .wg_done = wg_done, .wg_done_obj = r, .l1_access = l1_in,
                         .mem_obj = r};
    cu_init(&r->cu, 0, &p, &env, &r->l1, &r->lds, 65536);
    r->k = (struct kernel){.grid = {1, 1, 1}, .block = {threads, 1, 1}, .next = script_next,
                           .ctx = &r->sc};
    return r;
}

static struct rig *rig_new_cu(unsigned threads, unsigned simds, enum cu_sched sched)
{
    return rig_make(threads, simds, sched, false);
}

static struct rig *rig_new(unsigned threads)
{
    return rig_new_cu(threads, 4, CU_SCHED_OLDEST);
}

static void rig_free(struct rig *r)
{
    cr_expect_eq(r->s.req_pool.in_use, 0, "requests leaked");
    cu_free(&r->cu);
    lds_free(&r->lds);
    chk_free(&r->chk);
    cache_free(&r->l1);
    sim_destroy(&r->s);
    free(r);
}

static void run(struct rig *r)
{
    cu_dispatch(&r->cu, &r->k, 0);
    cr_assert_eq(sim_run(&r->s, 0), SIM_DONE);
}

#define LOAD(dst_, base_) {.kind = KOP_LOAD, .size = 4, .dst = dst_, .base = base_, .stride = 4}
#define STORE(base_) {.kind = KOP_STORE, .size = 4, .base = base_, .stride = 4}
#define ALU(n_, src_) {.kind = KOP_ALU, .n = n_, .src = {src_, 0}}
#define EXIT {.kind = KOP_EXIT}

Test(cu, independent_compute_does_not_wait_for_a_load)
{
    struct rig *r = rig_new(64);
    struct kernel_op ops[] = {LOAD(1, 0x1000), ALU(1, 0), STORE(0x8000), EXIT};
    memcpy(r->sc.ops[0], ops, sizeof ops);
    run(r);
    /* load at 0 (SIMD busy 4 cycles), ALU at 4..8, store at 8 (acked at 108);
     * the exit waits for the load (100) and the store: 108. */
    cr_expect_eq(r->done_at[0], 108 * CY);
    cr_expect_eq(r->cu.st.warp_insts, 4);
    cr_expect_eq(r->cu.st.load_lines, 4, "64 lanes x 4 B = 4 lines");
    rig_free(r);
}

Test(cu, dependent_compute_waits_for_every_line_of_the_load)
{
    struct rig *r = rig_new(64);
    struct kernel_op ops[] = {LOAD(1, 0x1000), ALU(1, 1), STORE(0x8000), EXIT};
    memcpy(r->sc.ops[0], ops, sizeof ops);
    run(r);
    /* the 4 lines enter the L1 at 0, are accepted at once (64 ports), miss
     * (miss_lat 0) and come back at 100 cycles; the ALU issues at 100, the
     * store at 104 (acked at 204), the exit then. */
    cr_expect_eq(r->done_at[0], 204 * CY);
    cr_expect_eq(r->low.n, 8);
    rig_free(r);
}

Test(cu, exit_waits_for_loads_in_flight)
{
    struct rig *r = rig_new(64);
    struct kernel_op ops[] = {LOAD(0, 0x1000), EXIT};
    memcpy(r->sc.ops[0], ops, sizeof ops);
    run(r);
    /* a load whose result is never used still ends before its work-group */
    cr_expect_eq(r->done_at[0], 100 * CY);
    rig_free(r);
}

Test(cu, exit_waits_for_stores_to_be_acknowledged)
{
    struct rig *r = rig_new(64);
    struct kernel_op ops[] = {STORE(0x2000), EXIT};
    memcpy(r->sc.ops[0], ops, sizeof ops);
    run(r);
    /* write-through L1: the stores are forwarded at 0 and acked at 100 */
    cr_expect_eq(r->done_at[0], 100 * CY);
    cr_expect_eq(r->cu.st.store_lines, 4);
    cr_expect_eq(r->low.seen[0].kind, REQ_WRITE);
    cr_expect_eq(r->low.seen[0].mask[0], ~0ull);
    rig_free(r);
}

Test(cu, device_fence_drains_stores_wg_fence_does_not)
{
    struct rig *r = rig_new(64);
    struct kernel_op ops[] = {STORE(0x2000), {.kind = KOP_FENCE, .scope = SCOPE_CTA},
                              ALU(1, 0), {.kind = KOP_FENCE, .scope = SCOPE_GPU},
                              ALU(1, 0), EXIT};
    memcpy(r->sc.ops[0], ops, sizeof ops);
    run(r);
    /* store 0..4, wg fence 4..8, alu 8..12, device fence at 12 waits for the
     * ack at 100, alu 100..104, exit at 104 */
    cr_expect_eq(r->done_at[0], 104 * CY);
    cr_expect_eq(r->cu.st.fences, 1);
    cr_expect_eq(r->cu.st.releases, 1, "SEM_WEAK: both directions");
    cr_expect_eq(r->cu.st.acquires, 1);
    rig_free(r);
}

/* ---- scopes ----------------------------------------------------------------- */

/* One lane's access of 4 bytes at a, with scope and strength. */
static struct kernel_op one(uint8_t kind, addr_t a, uint8_t dst, uint8_t src,
                            enum mem_scope scope, enum mem_sem sem)
{
    struct kernel_op op = {.kind = kind, .size = 4, .mask = 1, .base = a, .dst = dst,
                           .src = {src, 0}};
    kernel_op_scoped(&op, scope, sem);
    return op;
}

Test(cu, scoped_requests_carry_scope_and_strength)
{
    struct rig *r = rig_new(64);
    struct kernel_op ops[] = {
        one(KOP_LOAD, 0x1000, 1, 0, SCOPE_CTA, SEM_WEAK),
        one(KOP_LOAD, 0x2000, 2, 0, SCOPE_GPU, SEM_RELAXED),  /* ld.relaxed.gpu */
        one(KOP_STORE, 0x3000, 0, 0, SCOPE_SYS, SEM_RELEASE), /* st.release.sys */
        one(KOP_ATOMIC, 0x4000, 3, 0, SCOPE_GPU, SEM_RELAXED), /* atom.relaxed.gpu */
        one(KOP_STORE, 0x5000, 0, 0, SCOPE_GPU, SEM_WEAK),   /* a scope without strength */
        EXIT};
    memcpy(r->sc.ops[0], ops, sizeof ops);
    run(r);
    /* the L1's fetches and forwards carry them below */
    cr_assert_eq(r->low.n, 5);
    static const uint8_t kind[] = {REQ_READ, REQ_READ, REQ_WRITE, REQ_ATOMIC, REQ_WRITE};
    static const uint8_t scope[] = {SCOPE_CTA, SCOPE_GPU, SCOPE_SYS, SCOPE_GPU, SCOPE_CTA};
    static const uint8_t sem[] = {SEM_WEAK, SEM_RELAXED, SEM_RELEASE, SEM_RELAXED, SEM_WEAK};
    for (int i = 0; i < 5; i++) {
        cr_expect_eq(r->low.seen[i].kind, kind[i], "request %d", i);
        cr_expect_eq(r->low.seen[i].scope, scope[i], "request %d", i);
        cr_expect_eq(r->low.seen[i].sem, sem[i], "request %d", i);
    }
    cr_expect_eq(r->cu.st.releases, 1);
    cr_expect_eq(r->cu.st.acquires, 0);
    rig_free(r);
}

Test(cu, strong_loads_are_served_below_the_l1)
{
    struct rig *r = rig_new(64);
    struct kernel_op ops[] = {
        one(KOP_LOAD, 0x1000, 1, 0, SCOPE_CTA, SEM_WEAK),    /* miss: fills the L1 */
        one(KOP_LOAD, 0x1000, 2, 1, SCOPE_CTA, SEM_WEAK),    /* hit */
        one(KOP_LOAD, 0x1000, 3, 2, SCOPE_GPU, SEM_RELAXED), /* below the L1, which drops it */
        one(KOP_LOAD, 0x1000, 4, 3, SCOPE_CTA, SEM_WEAK),    /* so this one misses */
        one(KOP_LOAD, 0x1000, 5, 4, SCOPE_CTA, SEM_RELAXED), /* CTA scope: the L1 serves it */
        one(KOP_LOAD, 0x1000, 6, 5, SCOPE_SYS, SEM_RELAXED), /* below */
        one(KOP_LOAD, 0x1000, 7, 6, SCOPE_CTA, SEM_WEAK),    /* the fill left no copy */
        ALU(1, 7), EXIT};
    memcpy(r->sc.ops[0], ops, sizeof ops);
    run(r);
    cr_expect_eq(r->low.n, 5);
    cr_expect_eq(r->l1.st.read_hits, 2);
    rig_free(r);
}

Test(cu, release_store_waits_for_the_earlier_stores)
{
    struct rig *r = rig_new(64);
    struct kernel_op ops[] = {STORE(0x2000), one(KOP_STORE, 0x3000, 0, 0, SCOPE_GPU, SEM_RELEASE),
                              EXIT};
    memcpy(r->sc.ops[0], ops, sizeof ops);
    run(r);
    /* data stores at 0 (4 lines, acked at 100); the flag store issues when
     * the release is done, at 100, and is acked at 200 */
    cr_assert_eq(r->low.n, 5);
    cr_expect_eq(r->low.seen[4].addr, 0x3000);
    cr_expect_eq(r->low.at[4], 100 * CY);
    cr_expect_eq(r->done_at[0], 200 * CY);
    cr_expect_eq(r->cu.st.releases, 1);
    cr_expect_eq(r->cu.st.warp_insts, 3, "the store is one instruction, issued once");
    rig_free(r);
}

Test(cu, acquire_load_holds_the_warp_until_it_returns)
{
    struct rig *r = rig_new(64);
    struct kernel_op ops[] = {one(KOP_LOAD, 0x1000, 1, 0, SCOPE_GPU, SEM_ACQUIRE), ALU(1, 0),
                              EXIT};
    memcpy(r->sc.ops[0], ops, sizeof ops);
    run(r);
    /* the load returns at 100, the acquire then, the ALU 100..104; a weak
     * load would have let the ALU run at 4 and the warp end at 100 */
    cr_expect_eq(r->done_at[0], 104 * CY);
    cr_expect_eq(r->cu.st.acquires, 1);
    rig_free(r);
}

Test(cu, acquire_fence_waits_for_loads_acq_rel_fence_for_stores_only)
{
    struct rig *r = rig_new(64);
    struct kernel_op ops[] = {LOAD(1, 0x1000), {.kind = KOP_FENCE}, ALU(1, 0), EXIT};
    kernel_op_fence(&ops[1], SCOPE_GPU, SEM_ACQUIRE);
    memcpy(r->sc.ops[0], ops, sizeof ops);
    run(r);
    /* load at 0, fence at 4 waits for it (100), ALU 100..104 */
    cr_expect_eq(r->done_at[0], 104 * CY);
    cr_expect_eq(r->cu.st.acquires, 1);
    cr_expect_eq(r->cu.st.releases, 0);
    rig_free(r);

    r = rig_new(64);
    kernel_op_fence(&ops[1], SCOPE_SYS, SEM_ACQ_REL);
    memcpy(r->sc.ops[0], ops, sizeof ops);
    run(r);
    /* no store in flight: the fence goes on at once (as the device fence did
     * before scopes), ALU 8..12, the exit waits for the load: 100 */
    cr_expect_eq(r->done_at[0], 100 * CY);
    cr_expect_eq(r->cu.st.acquires, 1);
    cr_expect_eq(r->cu.st.releases, 1);
    rig_free(r);
}

Test(cu, spin_load_issues_again_until_the_flag_is_set)
{
    struct rig *r = rig_make(64, 4, CU_SCHED_OLDEST, true);
    r->low.set_from = 3;
    struct kernel_op ops[] = {one(KOP_LOAD, 0x1000, 1, 0, SCOPE_GPU, SEM_ACQUIRE), ALU(1, 0),
                              EXIT};
    ops[0].flags = KOP_F_SPIN;
    ops[0].n = 10;
    memcpy(r->sc.ops[0], ops, sizeof ops);
    run(r);
    /* reads at 0 and 100 find the flag clear, the one at 200 set (back at
     * 300): then the acquire, ALU 300..304 */
    cr_assert_eq(r->low.n, 3);
    cr_expect_eq(r->low.at[1], 100 * CY);
    cr_expect_eq(r->low.at[2], 200 * CY);
    cr_expect_eq(r->done_at[0], 304 * CY);
    cr_expect_eq(r->cu.st.spin_retries, 2);
    cr_expect_eq(r->cu.st.spins_exhausted, 0);
    cr_expect_eq(r->cu.st.acquires, 1, "one acquire, after the last load");
    cr_expect_eq(r->cu.st.warp_insts, 5, "each issue of the load is an instruction");
    rig_free(r);
}

Test(cu, spin_load_gives_up_after_its_reissues)
{
    struct rig *r = rig_make(64, 4, CU_SCHED_OLDEST, true);
    struct kernel_op ops[] = {one(KOP_LOAD, 0x1000, 1, 0, SCOPE_GPU, SEM_RELAXED), ALU(1, 1),
                              EXIT};
    ops[0].flags = KOP_F_SPIN;
    ops[0].n = 2;
    memcpy(r->sc.ops[0], ops, sizeof ops);
    run(r);
    cr_expect_eq(r->low.n, 3, "the first load and 2 more");
    cr_expect_eq(r->done_at[0], 304 * CY);
    cr_expect_eq(r->cu.st.spin_retries, 2);
    cr_expect_eq(r->cu.st.spins_exhausted, 1);
    cr_expect_eq(r->cu.st.acquires, 0, "relaxed");
    rig_free(r);

    /* without the checker's versions there is nothing to look at: one load */
    r = rig_new(64);
    memcpy(r->sc.ops[0], ops, sizeof ops);
    run(r);
    cr_expect_eq(r->low.n, 1);
    cr_expect_eq(r->cu.st.spin_retries + r->cu.st.spins_exhausted, 0);
    rig_free(r);
}

Test(cu, fresh_loads_count_lines_with_words_not_written_this_kernel)
{
    struct rig *r = rig_make(64, 4, CU_SCHED_OLDEST, true);
    r->low.set_from = 5;
    struct kernel_op ops[] = {LOAD(1, 0x1000), LOAD(2, 0x2000), ALU(1, 1), ALU(1, 2), EXIT};
    ops[0].flags = ops[1].flags = KOP_F_FRESH;
    memcpy(r->sc.ops[0], ops, sizeof ops);
    run(r);
    /* 4 lines each: the first load's come back unwritten, the second's written */
    cr_expect_eq(r->cu.st.stale_fresh_loads, 4);
    rig_free(r);
}

Test(cu, barrier_holds_every_warp_until_the_last_arrives)
{
    struct rig *r = rig_new(128); /* two warps, on SIMDs 0 and 1 */
    struct kernel_op w0[] = {ALU(50, 0), {.kind = KOP_BARRIER}, EXIT};
    struct kernel_op w1[] = {{.kind = KOP_BARRIER}, ALU(1, 0), EXIT};
    memcpy(r->sc.ops[0], w0, sizeof w0);
    memcpy(r->sc.ops[1], w1, sizeof w1);
    run(r);
    /* warp 0 issues the barrier at 200 (after 50 x 4 cycles of compute), the
     * last to arrive: both resume at 201. Warp 0 exits when its SIMD is free
     * (204); warp 1 computes 201..205 and exits at 205, ending the group. */
    cr_expect_eq(r->cu.st.barriers, 1);
    cr_expect_eq(r->done_at[0], 205 * CY);
    rig_free(r);
}

Test(cu, coalescer_forms_one_request_per_line)
{
    struct rig *r = rig_new(64);
    struct kernel_op ops[] = {
        {.kind = KOP_LOAD, .size = 4, .dst = 1, .base = 0x1000, .stride = 64}, /* 64 lines */
        {.kind = KOP_LOAD, .size = 8, .dst = 2, .base = 0x3000 + 60, .stride = 0,
         .mask = 1},                                                           /* 2 lines */
        {.kind = KOP_LOAD, .size = 4, .dst = 3, .base = 0x5000, .stride = 0}, /* broadcast: 1 */
        {.kind = KOP_STORE, .size = 8, .base = 0x7000 + 60, .stride = 0, .mask = 1},
        EXIT};
    memcpy(r->sc.ops[0], ops, sizeof ops);
    run(r);
    cr_expect_eq(r->cu.st.load_lines, 64 + 2 + 1);
    cr_expect_eq(r->cu.st.store_lines, 2);
    /* the first load takes all 64 L1 MSHRs, so the next loads wait for the
     * fills while the store, which needs no MSHR, is forwarded at once by the
     * write-through L1, with its byte masks */
    cr_expect_eq(r->low.seen[64].addr, 0x7000);
    cr_expect_eq(r->low.seen[64].kind, REQ_WRITE);
    cr_expect_eq(r->low.seen[64].mask[0], 0xfull << 60);
    cr_expect_eq(r->low.seen[65].addr, 0x7040);
    cr_expect_eq(r->low.seen[65].mask[0], 0xfull);
    cr_expect_eq(r->low.seen[66].addr, 0x3000);
    cr_expect_eq(r->low.seen[67].addr, 0x3040);
    cr_expect_eq(r->low.seen[68].addr, 0x5000);
    rig_free(r);
}

Test(cu, lds_load_waits_its_latency)
{
    struct rig *r = rig_new(64);
    struct kernel_op ops[] = {{.kind = KOP_LDS_LOAD, .size = 4, .dst = 1, .base = 0, .stride = 4},
                              ALU(1, 1), EXIT};
    memcpy(r->sc.ops[0], ops, sizeof ops);
    run(r);
    /* conflict-free: 65 cycles; ALU at 65, exit at 69 */
    cr_expect_eq(r->done_at[0], 69 * CY);
    cr_expect_eq(r->cu.st.lds_insts, 1);
    rig_free(r);
}

Test(cu, admission_by_warp_slots_and_lds)
{
    struct rig *r = rig_new(1024); /* 16 warps of 64 */
    cr_expect(cu_can_accept(&r->cu, &r->k));
    struct kernel_op ops[] = {ALU(1000, 0), EXIT};
    for (int w = 0; w < 4; w++)
        memcpy(r->sc.ops[w], ops, sizeof ops);
    r->k.block.x = 256; /* 4 warps: 10 fit in 40 slots */
    for (int i = 0; i < 10; i++) {
        cr_assert(cu_can_accept(&r->cu, &r->k), "wg %d", i);
        cu_dispatch(&r->cu, &r->k, (uint32_t)i);
    }
    cr_expect(!cu_can_accept(&r->cu, &r->k), "no warp slot left");
    cr_assert_eq(sim_run(&r->s, 0), SIM_DONE);
    cr_expect_eq(r->ndone, 10);
    r->k.lds_b = 40 * 1024;
    cr_expect(cu_can_accept(&r->cu, &r->k));
    cu_dispatch(&r->cu, &r->k, 0);
    cr_expect(!cu_can_accept(&r->cu, &r->k), "the LDS is full");
    cr_assert_eq(sim_run(&r->s, 0), SIM_DONE);
    rig_free(r);
}

/* ---- per-op latency, issue interval and register sets (trace-driven ops) ----- */

Test(cu, alu_result_latency_and_issue_interval)
{
    struct rig *r = rig_new(64);
    struct kernel_op ops[] = {
        {.kind = KOP_ALU, .n = 1, .dst = 1, .lat = 10, .ii = 2},
        {.kind = KOP_ALU, .n = 1, .srcs = 1ull << 1, .dst = 2, .lat = 5, .ii = 2},
        {.kind = KOP_ALU, .n = 1, .ii = 2},
        EXIT};
    memcpy(r->sc.ops[0], ops, sizeof ops);
    run(r);
    /* op 1 at 0 (SIMD busy 2 cycles, r1 ready at 10); op 2 reads r1: 10..12;
     * op 3 needs nothing: 12..14; the exit at 14 (alu_cycles 4 do not apply) */
    cr_expect_eq(r->done_at[0], 14 * CY);
    cr_expect_eq(r->cu.st.warp_insts, 4);
    cr_expect_eq(r->cu.st.alu_insts, 3);
    rig_free(r);
}

Test(cu, vector_load_holds_every_register_it_writes)
{
    struct kernel_op read_r5[] = {
        {.kind = KOP_LOAD, .size = 8, .dst = 4, .ndst = 2, .base = 0x1000, .stride = 8, .mask = 1},
        {.kind = KOP_ALU, .n = 1, .srcs = 1ull << 5}, EXIT};
    struct rig *r = rig_new(64);
    memcpy(r->sc.ops[0], read_r5, sizeof read_r5);
    run(r);
    /* the load returns at 100; the ALU reading r5 (written too) issues then */
    cr_expect_eq(r->done_at[0], 104 * CY);
    rig_free(r);
    r = rig_new(64);
    read_r5[0].ndst = 0; /* only r4 written: the ALU does not wait */
    memcpy(r->sc.ops[0], read_r5, sizeof read_r5);
    run(r);
    cr_expect_eq(r->done_at[0], 100 * CY);
    rig_free(r);
}

Test(cu, interleaved_per_thread_words_coalesce_word_by_word)
{
    struct rig *r = rig_new(64);
    struct kernel_op ops[] = {
        {.kind = KOP_LOAD, .size = 8, .dst = 1, .ndst = 2, .base = 0x10000, .stride = 4,
         .wstride = 4096, .mask = 0xffffffffull},
        EXIT};
    memcpy(r->sc.ops[0], ops, sizeof ops);
    run(r);
    /* 32 lanes x 2 words: word 0 of every lane in 0x10000..0x1007f, word 1
     * 4096 bytes further: 4 lines of 64 B (lane 0's two words first) */
    cr_expect_eq(r->cu.st.load_lines, 4);
    cr_assert_eq(r->low.n, 4);
    const addr_t want[] = {0x10000, 0x11000, 0x10040, 0x11040};
    for (int i = 0; i < 4; i++)
        cr_expect_eq(r->low.seen[i].addr, want[i], "line %d: 0x%llx", i,
                     (unsigned long long)r->low.seen[i].addr);
    rig_free(r);
}

Test(cu, kernel_warp_width_and_uncounted_ops)
{
    struct rig *r = rig_new(64);
    r->k.warp_size = 32; /* two 32-lane warps on a 64-lane CU */
    struct kernel_op ops[] = {{.kind = KOP_LOAD, .size = 4, .base = 0x1000, .stride = 4},
                              {.kind = KOP_EXIT, .flags = KOP_F_NOCOUNT}};
    memcpy(r->sc.ops[0], ops, sizeof ops);
    ops[0].base = 0x1080;
    memcpy(r->sc.ops[1], ops, sizeof ops);
    run(r);
    cr_expect_eq(r->cu.st.load_lines, 4, "2 warps x 32 lanes x 4 B = 4 lines");
    cr_expect_eq(r->cu.st.warp_insts, 2, "the exits are not counted");
    cr_expect_eq(r->ndone, 1);
    rig_free(r);
}

/* ---- the coherence checker the CU reports its accesses to -------------------- */

/* The checker's plain definition: per word the version of the last store,
 * the version before the first store of the last store's kernel, that
 * kernel, and for both versions the first version handed out in the period
 * (kernel) that stored them: a reader may see any store of the last kernel
 * that wrote the word. The checker keeps only the two versions (the rest
 * follows from when a version was handed out); both must agree on every
 * load, also when kernel numbers repeat. */
struct ref_word {
    uint32_t cur, prev, kernel, cur_floor, prev_floor;
};

struct ref_chk {
    uint32_t seq, kernel, pstart;
    struct ref_word w[4 * 16];
    uint64_t stale_reads, stale_words;
};

static void ref_store(struct ref_chk *c, unsigned line, uint64_t mask, uint32_t *ver)
{
    uint32_t v = ++c->seq;
    for (unsigned i = 0; i < 16; i++) {
        struct ref_word *w = &c->w[line * 16 + i];
        if (!((mask >> (4 * i)) & 0xf))
            continue;
        if (w->kernel != c->kernel) {
            w->prev = w->cur;
            w->prev_floor = w->cur_floor;
            w->kernel = c->kernel;
        }
        w->cur = v;
        w->cur_floor = c->pstart + 1;
        ver[i] = v;
    }
}

static void ref_load(struct ref_chk *c, unsigned line, uint64_t mask, const uint32_t *ver)
{
    unsigned bad = 0;
    for (unsigned i = 0; i < 16; i++) {
        const struct ref_word *w = &c->w[line * 16 + i];
        uint32_t want = w->kernel == c->kernel ? w->prev_floor : w->cur_floor;
        bad += ((mask >> (4 * i)) & 0xf) && ver[i] < want;
    }
    c->stale_reads += bad != 0;
    c->stale_words += bad;
}

Test(cu, checker_matches_its_definition_with_repeated_kernel_numbers)
{
    struct chk c;
    chk_init(&c, true, 64);
    static struct ref_chk ref;
    ref = (struct ref_chk){0};
    uint32_t held[4][16] = {{0}}; /* versions a cache might still hold per line */
    struct rng r;
    rng_seed(&r, 5);
    for (int step = 0; step < 20000; step++) {
        unsigned line = (unsigned)rng_below(&r, 4);
        uint64_t mask = rng_next(&r) & rng_next(&r);
        uint32_t ver[REQ_WORDS] = {0}, ref_ver[16] = {0};
        switch (rng_below(&r, 8)) {
        case 0: { /* a new kernel; numbers repeat now and then */
            unsigned k = (unsigned)rng_below(&r, 6);
            chk_kernel_begin(&c, k);
            ref.kernel = k + 1;
            ref.pstart = ref.seq;
            break;
        }
        case 1:
        case 2:
            chk_store(&c, 0x10000 + line * 64, (uint64_t[2]){mask, 0}, ver);
            ref_store(&ref, line, mask, ref_ver);
            for (unsigned i = 0; i < 16; i++) {
                cr_assert_eq(ver[i], ref_ver[i]);
                if ((mask >> (4 * i)) & 0xf)
                    held[line][i] = ver[i];
            }
            break;
        default: /* a load returning what was held, or something older */
            for (unsigned i = 0; i < 16; i++)
                ver[i] = rng_below(&r, 4) ? held[line][i] : (uint32_t)rng_below(&r, held[line][i] + 1);
            chk_load(&c, 0x10000 + line * 64, (uint64_t[2]){mask, 0}, ver, 0);
            ref_load(&ref, line, mask, ver);
            cr_assert_eq(c.st.stale_reads, ref.stale_reads, "step %d", step);
            cr_assert_eq(c.st.stale_words, ref.stale_words, "step %d", step);
        }
    }
    cr_expect_gt(ref.stale_reads, 100, "the test should see stale reads");
    chk_free(&c);
}

/* A chain of n dependent compute ops (latency 10, issue interval 2) from r1. */
static void chain(struct kernel_op *ops, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        ops[i] = (struct kernel_op){.kind = KOP_ALU, .n = 1, .dst = (uint8_t)(1 + i), .lat = 10,
                                    .ii = 2, .srcs = i ? 1ull << i : 0};
    ops[n] = (struct kernel_op)EXIT;
}

Test(cu, warps_of_one_subcore_fill_each_others_latency)
{
    for (int g = 0; g < 2; g++) {
        struct rig *r = rig_new_cu(128, 1, g ? CU_SCHED_GTO : CU_SCHED_OLDEST);
        chain(r->sc.ops[0], 4);
        chain(r->sc.ops[1], 4);
        run(r);
        /* warp 0 issues at 0, 10, 20, 30 and warp 1 in the gaps at 2, 12, 22, 32; the exits
         * (4 cycles each) at 32 and 36; warp 1's last op waits for warp 0's exit: 36, its
         * exit 38. One warp after the other would take twice as long. */
        cr_expect_eq(r->done_at[0], 38 * CY, "policy %d: done at %llu", g,
                     (unsigned long long)(r->done_at[0] / CY));
        cr_expect_eq(r->cu.st.alu_insts, 8);
        rig_free(r);
    }
}

Test(cu, gto_keeps_its_warp_oldest_first_takes_the_oldest)
{
    for (int g = 0; g < 2; g++) {
        struct rig *r = rig_new_cu(128, 1, g ? CU_SCHED_GTO : CU_SCHED_OLDEST);
        struct kernel_op w0[] = {{.kind = KOP_ALU, .n = 1, .dst = 1, .lat = 4, .ii = 2},
                                 {.kind = KOP_ALU, .n = 1, .srcs = 1ull << 1, .ii = 2},
                                 {.kind = KOP_STORE, .size = 4, .base = 0x1000, .mask = 1}, EXIT};
        struct kernel_op w1[] = {ALU(1, 0), ALU(1, 0), ALU(1, 0), ALU(1, 0),
                                 {.kind = KOP_STORE, .size = 4, .base = 0x2000, .mask = 1}, EXIT};
        for (unsigned i = 0; i < 4; i++)
            w1[i].ii = 2;
        memcpy(r->sc.ops[0], w0, sizeof w0);
        memcpy(r->sc.ops[1], w1, sizeof w1);
        run(r);
        /* warp 0 issues at 0 and waits for r1 until 4; warp 1 starts at 2. GTO keeps
         * warp 1 (issued last) until its store at 10; oldest-first gives slot 4 back to
         * warp 0, whose store goes at 6. */
        cr_assert_eq(r->low.n, 2);
        cr_expect_eq(r->low.seen[0].addr, g ? 0x2000 : 0x1000, "policy %d", g);
        cr_expect_eq(r->low.seen[0].issued, (g ? 10 : 6) * CY, "policy %d: at %llu", g,
                     (unsigned long long)(r->low.seen[0].issued / CY));
        rig_free(r);
    }
}

Test(cu, global_memory_pipeline_is_shared_oldest_first)
{
    struct rig *r = rig_new_cu(256, 4, CU_SCHED_OLDEST);
    r->cu.p.gmem_pipe_cycles = 4;
    for (unsigned w = 0; w < 4; w++) {
        struct kernel_op ops[] = {{.kind = KOP_ALU, .n = 1, .ii = 2},
                                  {.kind = KOP_LOAD, .size = 4, .dst = 1, .mask = 1,
                                   .base = 0x1000 * (w + 1)},
                                  EXIT};
        memcpy(r->sc.ops[w], w ? ops + 1 : ops, sizeof ops - (w ? sizeof ops[0] : 0));
    }
    run(r);
    /* warps 1-3 (one per SIMD) can load at 0, warp 0 at 2 after its ALU op; the CU's one
     * global-memory pipeline takes a load every 4 cycles, the oldest ready warp first:
     * warp 1 at 0, warp 0 at 4, then warps 2 and 3 */
    cr_assert_eq(r->low.n, 4);
    static const addr_t order[] = {0x2000, 0x1000, 0x3000, 0x4000};
    for (int i = 0; i < 4; i++) {
        cr_expect_eq(r->low.seen[i].addr, order[i], "load %d: %llx", i,
                     (unsigned long long)r->low.seen[i].addr);
        cr_expect_eq(r->low.seen[i].issued, (ps_t)(4 * i) * CY, "load %d at %llu", i,
                     (unsigned long long)(r->low.seen[i].issued / CY));
    }
    rig_free(r);
}
