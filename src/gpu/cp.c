/*
 * cp.c -- global and local command processors (see cp.h).
 */
#include "cp.h"

#include <stdlib.h>
#include <string.h>

#include "sched/ladm.h"

const struct cfg_key cp_keys[] = {
    {"launch_us", CFG_FLOAT, "2", 0, 1e6,
     "command-processor scheduling latency per kernel, us (the gem5 artifact's GSDelay: 2)", NULL},
    /* spec cpelide 4.2 */
    {"cp_mhz", CFG_FLOAT, "1500", 1, 100000, "command-processor clock, MHz", NULL},
    /* spec cpelide 4.1 */
    {"unicast_cycles", CFG_INT, "65", 0, 1e6,
     "global-to-local CP crossbar, one local CP, CP cycles (0 on a monolithic GPU, which has "
     "one CP)", NULL},
    {"broadcast_cycles", CFG_INT, "100", 0, 1e6,
     "global-to-local CP crossbar, several local CPs, CP cycles", NULL},
    {"wg_dispatch_cycles", CFG_INT, "1", 1, 1e6,
     "cycles between two work-group dispatches of one chiplet's local CP", NULL},
    {"memcpy_place", CFG_ENUM, "copy", 0, 0,
     "pages of a host-to-device copy (traces' MemcpyHtoD): placed by the copy (copy: page p "
     "homed on chiplet p mod chiplets under first-touch placement) or by the first kernel "
     "access (kernel)", "copy|kernel"},
    {"memcpy_warm_l2", CFG_BOOL, "false", 0, 0,
     "host-to-device copies leave their lines clean in the home chiplet's L2 (Accel-Sim's "
     "-gpgpu_perf_sim_memcpy)", NULL},
    CFG_END,
};

static const struct stat_desc cp_desc[] = {
    STAT_DESC(__typeof__(((struct cp *)0)->st), kernels, "kernels run"),
    STAT_DESC(__typeof__(((struct cp *)0)->st), wgs, "work-groups dispatched"),
    STAT_DESC(__typeof__(((struct cp *)0)->st), launch_ps, "time in CP scheduling latency, ps"),
    STAT_DESC(__typeof__(((struct cp *)0)->st), acquire_ps,
              "time in kernel-launch coherence operations, ps"),
    STAT_DESC(__typeof__(((struct cp *)0)->st), run_ps, "time with work-groups running, ps"),
    STAT_DESC(__typeof__(((struct cp *)0)->st), release_ps,
              "time in kernel-end coherence operations, ps"),
    STAT_DESC(__typeof__(((struct cp *)0)->st), migrate_ps,
              "time moving pages the placement policy re-homed at launches, ps"),
    STAT_DESC(__typeof__(((struct cp *)0)->st), memcpys, "host-to-device copies made"),
    STAT_DESC(__typeof__(((struct cp *)0)->st), memcpy_bytes, "their bytes"),
    {0},
};

int cp_params_from_cfg(const struct cfg_sec *sec, struct cp_params *p, struct err *e)
{
    (void)e;
    *p = (struct cp_params){
        .launch_us = cfg_float(sec, "launch_us"),
        .cp_mhz = cfg_float(sec, "cp_mhz"),
        .unicast_cycles = (unsigned)cfg_uint(sec, "unicast_cycles"),
        .broadcast_cycles = (unsigned)cfg_uint(sec, "broadcast_cycles"),
        .wg_dispatch_cycles = (unsigned)cfg_uint(sec, "wg_dispatch_cycles"),
        .memcpy_place = cfg_enum(sec, "memcpy_place") == 0,
        .memcpy_warm_l2 = cfg_bool(sec, "memcpy_warm_l2"),
    };
    return 0;
}

static unsigned chiplets_used(const struct cp *cp) { return wgs_used(&cp->ws); }

/* ---- per-chiplet ranges of each argument (for range-aware schemes) --------- */

/* Ranges of argument a on chiplet c; false if some work-group's are unknown. */
static bool chiplet_ranges(struct cp *cp, unsigned a, unsigned c, struct range_set *r)
{
    struct addr_range tmp[KERNEL_MAX_RANGES];
    range_set_clear(r);
    uint32_t nwg;
    const uint32_t *wg = wgs_chiplet_wgs(&cp->ws, c, &nwg);
    for (uint32_t w = 0; w < nwg; w++) {
        unsigned n = cp->k.ranges(&cp->k, wg[w], a, tmp, KERNEL_MAX_RANGES);
        if (!n)
            return false;
        range_set_push(r, tmp, n);
    }
    range_set_norm(r);
    return true;
}

static void describe_kernel(struct cp *cp)
{
    unsigned k = chiplets_used(cp);
    cp->ck = (struct coh_kernel){.id = cp->kid, .ready_ps = cp->ready_ps, .name = cp->k.name,
                                 .nargs = cp->k.nargs, .args = cp->args};
    cp->ck.chiplets = low_bits(k);
    cp->ck.itl = ladm_kernel_loc(&cp->launch) == SCHED_LOC_ITL;
    for (unsigned a = 0; a < cp->k.nargs; a++) {
        const struct kernel_arg *ka = &cp->k.args[a];
        struct coh_arg *ca = &cp->args[a];
        *ca = (struct coh_arg){.base = ka->buf->base, .size = ka->buf->size,
                               .write = ka->mode == KERNEL_RW, .same_pattern = ka->same_pattern,
                               .ranges = &cp->ranges[a * cp->nch]};
        ca->ranged = cp->k.ranges != NULL && cp->coh && cp->coh->annotations;
        for (unsigned c = 0; c < cp->nch; c++)
            range_set_clear(&cp->ranges[a * cp->nch + c]);
        for (unsigned c = 0; ca->ranged && c < k; c++)
            ca->ranged = chiplet_ranges(cp, a, c, &ca->ranges[c]);
    }
}

/* ---- dispatch ---------------------------------------------------------------- */

static void dispatch_ev(struct sim *s, void *obj, uint64_t c);

static void kick(struct cp *cp, unsigned c, ps_t t)
{
    struct cp_chiplet *ch = &cp->chip[c];
    if (ch->dispatching || !wgs_left(&cp->ws, c))
        return;
    ch->dispatching = true;
    sim_at(cp->s, t, dispatch_ev, cp, c);
}

/* The CU of chiplet c to visit i-th in this dispatch (sched.cu_order). */
static unsigned next_cu(struct cp *cp, struct cp_chiplet *ch, unsigned i)
{
    if (cp->ws.p.cu_order == WGS_CU_GREEDY)
        return i;
    unsigned u = ch->rr;
    ch->rr = (ch->rr + 1) % cp->cu_per_ch;
    return u;
}

/* One work-group to the next CU of chiplet c that has room and work
 * (the order is documented in sched/wgsched.h). */
static void dispatch_ev(struct sim *s, void *obj, uint64_t c)
{
    struct cp *cp = obj;
    struct cp_chiplet *ch = &cp->chip[c];
    ch->dispatching = false;
    for (unsigned i = 0; i < cp->cu_per_ch && wgs_left(&cp->ws, (unsigned)c); i++) {
        unsigned u = next_cu(cp, ch, i);
        struct cu *cu = &cp->cus[c * cp->cu_per_ch + u];
        if (!wgs_has(&cp->ws, (unsigned)c, u) || !cu_can_accept(cu, &cp->k))
            continue;
        cu_dispatch(cu, &cp->k, wgs_take(&cp->ws, (unsigned)c, u));
        cp->st.wgs++;
        kick(cp, (unsigned)c, s->now + clock_cycles(cp->clk, cp->p.wg_dispatch_cycles));
        return;
    }
    /* no CU has room: the next cp_wg_done() on this chiplet resumes */
}

static void all_wgs_done(struct cp *cp);

/* ---- kernel sampling (sample.h) --------------------------------------------- */

/* Warp instructions of every CU so far; with sync, also their scoped
 * synchronizations. */
static uint64_t cu_counts(const struct cp *cp, uint64_t *sync)
{
    uint64_t insts = 0, syncs = 0;
    for (unsigned i = 0; i < cp->nch * cp->cu_per_ch; i++) {
        const struct cu_stats *st = &cp->cus[i].st;
        insts += st->warp_insts;
        syncs += st->fences + st->releases + st->acquires + st->spin_retries;
    }
    if (sync)
        *sync = syncs;
    return insts;
}

static void functional_end_ev(struct sim *s, void *obj, uint64_t arg)
{
    (void)s;
    (void)arg;
    all_wgs_done(obj);
}

/* Work-groups of chiplet c's share to its CUs that have room, one per CU in
 * turn as its local CP would hand them out. */
static void func_fill(struct cp *cp, unsigned c)
{
    for (bool more = true; more;) {
        more = false;
        for (unsigned u = 0; u < cp->cu_per_ch; u++) {
            struct cu *cu = &cp->cus[c * cp->cu_per_ch + u];
            if (wgs_has(&cp->ws, c, u) && cu_can_accept(cu, &cp->k)) {
                cu_func_dispatch(cu, &cp->k, wgs_take(&cp->ws, c, u));
                cp->st.wgs++;
                more = true;
            }
        }
    }
}

/* A skipped kernel: once nothing is in flight, its work-groups run at once,
 * every CU full as dispatch would keep it and every warp one operation per
 * round, and the kernel ends its estimated run time after its dispatch began
 * (cp->phase_t; sample_skipped() says why the wait lies within it). */
static void run_functional(struct sim *s, void *obj, uint64_t arg)
{
    (void)arg;
    struct cp *cp = obj;
    if (s->pending_events) { /* write-backs of the last kernel still on their way */
        sim_after(s, cp->clk->period, run_functional, cp, 0);
        return;
    }
    uint64_t insts = cu_counts(cp, NULL);
    bool sync = false, busy = true;
    s->functional = true;
    for (unsigned c = 0; c < cp->nch; c++)
        cp->chip[c].refill = true;
    while (busy) {
        busy = false;
        for (unsigned c = 0; c < cp->nch; c++) {
            struct cp_chiplet *ch = &cp->chip[c];
            if (ch->refill && wgs_left(&cp->ws, c))
                func_fill(cp, c);
            ch->refill = false;
            for (unsigned u = 0; u < cp->cu_per_ch; u++) {
                struct cu *cu = &cp->cus[c * cp->cu_per_ch + u];
                unsigned resident = cu_busy_wgs(cu);
                if (!resident)
                    continue;
                busy |= cu_func_round(cu, &sync);
                ch->refill |= cu_busy_wgs(cu) < resident;
            }
            busy |= wgs_left(&cp->ws, c);
        }
    }
    s->functional = false;
    for (unsigned c = 0; c < cp->nch; c++)
        SIM_ASSERT(s, "cp", !wgs_left(&cp->ws, c));
    cp->wgs_left = 0;
    insts = cu_counts(cp, NULL) - insts;
    sim_progress(s);
    ps_t run = sample_skipped(&cp->smp, cp->sgroup, insts, sync, s->now - cp->phase_t);
    sim_at(s, cp->phase_t + run, functional_end_ev, cp, 0);
}

static void start_dispatch(struct sim *s, void *obj)
{
    struct cp *cp = obj;
    cp->st.acquire_ps += s->now - cp->phase_t;
    cp->phase_t = s->now;
    if (cp->chk)
        chk_kernel_begin(cp->chk, cp->kid);
    uint32_t n = kernel_nwg(&cp->k);
    cp->wgs_left = n;
    if (!n) {
        all_wgs_done(cp);
        return;
    }
    if (cp->smp.p.on) {
        cp->sgroup = sample_begin(&cp->smp, &cp->k, &cp->sdetailed);
        if (!cp->sdetailed) {
            run_functional(s, cp, 0);
            return;
        }
        cp->sinsts = cu_counts(cp, &cp->ssync);
    }
    for (unsigned c = 0; c < cp->nch; c++) {
        cp->chip[c].rr = 0; /* each kernel starts at the chiplet's first CU */
        kick(cp, c, clock_edge(cp->clk, s->now));
    }
}

static void acquire(struct cp *cp)
{
    struct sim *s = cp->s;
    if (cp->coh && cp->coh->kernel_launch)
        cp->coh->kernel_launch(cp->coh_self, &cp->ck, start_dispatch, cp);
    else
        start_dispatch(s, cp);
}

static void after_migration(struct sim *s, void *obj, uint64_t arg)
{
    (void)arg;
    struct cp *cp = obj;
    cp->st.migrate_ps += s->now - cp->phase_t;
    cp->phase_t = s->now;
    acquire(cp);
}

static void after_launch_latency(struct sim *s, void *obj, uint64_t arg)
{
    (void)arg;
    struct cp *cp = obj;
    cp->st.launch_ps += s->now - cp->phase_t;
    cp->phase_t = cp->kernel_t = s->now;
    if (cp->owed_ps)
        sim_after(s, cp->owed_ps, after_migration, cp, 0);
    else
        acquire(cp);
}

_Static_assert(SCHED_MAX_BUFS >= KERNEL_MAX_ARGS, "every argument is a buffer of the launch");

void cp_describe_launch(const struct kernel *k, unsigned id, uint64_t page_b, uint64_t unit_b,
                        struct sched_launch *l)
{
    *l = (struct sched_launch){.id = id, .name = k->name, .page_b = page_b, .unit_b = unit_b,
                               .nbufs = k->nargs, .ctx = k->ctx,
                               .grid = {k->grid.x, k->grid.y, k->grid.z},
                               .block = {k->block.x, k->block.y, k->block.z}};
    for (unsigned a = 0; a < k->nargs; a++)
        l->bufs[a] = (struct sched_buf){k->args[a].buf->name, k->args[a].buf->base,
                                        k->args[a].buf->size, k->args[a].mode == KERNEL_RW,
                                        k->args[a].loc};
}

static void launch_next(struct cp *cp)
{
    struct sim *s = cp->s;
    memset(&cp->k, 0, sizeof cp->k);
    if (!cp->next(cp->next_obj, &cp->k)) {
        cp->running = false;
        cp->finished = true;
        return;
    }
    cp_describe_launch(&cp->k, cp->kid, cp->page_b, cp->unit_b, &cp->launch);
    cp->owed_ps = cp->place ? cp->place(cp->place_obj, &cp->launch) : 0;
    for (unsigned i = 0; i < cp->k.ncopies; i++) {
        const struct addr_range *c = &cp->k.copies[i];
        cp->st.memcpys++;
        cp->st.memcpy_bytes += c->hi - c->lo;
        if (cp->copy)
            cp->copy(cp->copy_obj, c->lo, c->hi, cp->p.memcpy_place, cp->p.memcpy_warm_l2);
    }
    if (!cp->st.kernels)
        cp->first_launch = s->now;
    /* the host enqueues ahead: the next packet is there as soon as this one launches */
    cp->ready_ps = cp->next_ready_ps;
    cp->next_ready_ps = s->now;
    wgs_plan(&cp->ws, &cp->launch);
    describe_kernel(cp);
    cp->phase_t = s->now;
    sim_after(s, (ps_t)(cp->p.launch_us * 1e6), after_launch_latency, cp, 0);
}

static void kernel_released(struct sim *s, void *obj)
{
    struct cp *cp = obj;
    cp->st.release_ps += s->now - cp->phase_t;
    cp->last_end = s->now;
    cp->st.kernels++;
    if (cp->nkernel_ps == cp->kernel_ps_cap) {
        cp->kernel_ps_cap = cp->kernel_ps_cap ? 2 * cp->kernel_ps_cap : 64;
        cp->kernel_ps = xrealloc(cp->kernel_ps, cp->kernel_ps_cap * sizeof *cp->kernel_ps);
    }
    cp->kernel_ps[cp->nkernel_ps++] = s->now - cp->kernel_t;
    if (cp->on_kernel)
        cp->on_kernel(cp->on_kernel_obj, cp->kid, &cp->k);
    cp->kid++;
    launch_next(cp);
}

void cp_wg_done(void *obj, struct cu *cu, uint32_t wg)
{
    (void)wg;
    struct cp *cp = obj;
    struct sim *s = cp->s;
    unsigned c = cu->id / cp->cu_per_ch;
    sim_progress(s);
    if (--cp->wgs_left) {
        kick(cp, c, clock_edge(cp->clk, s->now));
        return;
    }
    all_wgs_done(cp);
}

static void all_wgs_done(struct cp *cp)
{
    struct sim *s = cp->s;
    if (cp->smp.p.on && cp->sdetailed && kernel_nwg(&cp->k)) {
        uint64_t sync, insts = cu_counts(cp, &sync);
        sample_detailed(&cp->smp, cp->sgroup, insts - cp->sinsts, s->now - cp->phase_t,
                        sync != cp->ssync);
    }
    cp->st.run_ps += s->now - cp->phase_t;
    cp->phase_t = s->now;
    if (cp->coh && cp->coh->kernel_end)
        cp->coh->kernel_end(cp->coh_self, &cp->ck, kernel_released, cp);
    else
        kernel_released(s, cp);
}

/* ---- set-up --------------------------------------------------------------------- */

static uint64_t cp_pending(void *obj)
{
    const struct cp *cp = obj;
    return cp->running ? 1 : 0;
}

static void cp_dump(void *obj, FILE *out)
{
    const struct cp *cp = obj;
    fprintf(out, "    kernel %u (%s): %u work-groups not finished\n", cp->kid, cp->k.name,
            cp->wgs_left);
}

int cp_init(struct cp *cp, struct sim *s, const struct clock *clk, const struct cp_params *p,
            struct cu *cus, const struct topo *t, const struct cfg_sec *sched, struct err *e)
{
    unsigned nch = topo_nchiplets(t);
    *cp = (struct cp){.s = s, .clk = clk, .p = *p, .cus = cus, .nch = nch, .cu_per_ch = t->cus};
    if (wgs_init_cfg(&cp->ws, sched, t, e))
        return -1;
    sample_init(&cp->smp, &p->sample);
    cp->chip = xcalloc(nch, sizeof *cp->chip);
    cp->ranges = xcalloc((size_t)KERNEL_MAX_ARGS * nch, sizeof *cp->ranges);
    sim_watch(s, "cp", cp_pending, cp_dump, cp);
    return 0;
}

void cp_free(struct cp *cp)
{
    for (size_t i = 0; cp->ranges && i < (size_t)KERNEL_MAX_ARGS * cp->nch; i++)
        range_set_free(&cp->ranges[i]);
    free(cp->ranges);
    free(cp->chip);
    free(cp->kernel_ps);
    wgs_free(&cp->ws);
    sample_free(&cp->smp);
    *cp = (struct cp){0};
}

void cp_set_coherence(struct cp *cp, const struct coh_ops *ops, void *self)
{
    cp->coh = ops;
    cp->coh_self = self;
}

void cp_set_copy(struct cp *cp, cp_copy_fn fn, void *obj)
{
    cp->copy = fn;
    cp->copy_obj = obj;
}

void cp_set_place(struct cp *cp, cp_place_fn fn, void *obj, uint64_t page_b, uint64_t unit_b)
{
    cp->page_b = page_b;
    cp->unit_b = unit_b;
    cp->place = fn;
    cp->place_obj = obj;
}

void cp_reg_stats(struct cp *cp, struct stats *st, const char *prefix)
{
    stats_reg_block(st, prefix, cp_desc, &cp->st);
    if (cp->smp.p.on)
        sample_reg_stats(&cp->smp, st, "sample");
}

static int ps_cmp(const void *a, const void *b)
{
    ps_t x = *(const ps_t *)a, y = *(const ps_t *)b;
    return x < y ? -1 : x > y;
}

void cp_kernel_times(const struct cp *cp, ps_t *min, ps_t *median, ps_t *max)
{
    size_t n = cp->nkernel_ps;
    *min = *median = *max = 0;
    if (!n)
        return;
    ps_t *v = xmalloc(n * sizeof *v);
    memcpy(v, cp->kernel_ps, n * sizeof *v);
    qsort(v, n, sizeof *v, ps_cmp);
    *min = v[0];
    *max = v[n - 1];
    *median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    free(v);
}

void cp_start(struct cp *cp, cp_next_fn next, void *obj, cp_kernel_fn on_kernel, void *kobj)
{
    cp->next = next;
    cp->next_obj = obj;
    cp->on_kernel = on_kernel;
    cp->on_kernel_obj = kobj;
    cp->running = true;
    launch_next(cp);
}
