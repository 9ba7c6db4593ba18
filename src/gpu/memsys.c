/*
 * memsys.c -- building and routing the machine's memory system (memsys.h).
 */
#include "memsys.h"

#include <stdio.h>
#include <stdlib.h>

static const char *const l1d_defaults[] = {
    "size_kib=16", "line_b=64", "ways=16", "mshrs=64", "mshr_targets=16",
    "hit_lat=140", "miss_lat=70", "resp_lat=70",
    "write_policy=write_through", "write_alloc=none", NULL,
};
static const char *const l2_defaults[] = {
    "size_kib=8192", "line_b=64", "ways=32", "banks=8", "ports=1", "mshrs=1024",
    "mshrs_remote=256", "mshr_targets=16", "hit_lat=119", "miss_lat=20", "resp_lat=20",
    "write_policy=write_back", "write_alloc=validate", NULL,
};
static const char *const l3_defaults[] = {
    "size_kib=16384", "line_b=64", "ways=16", "banks=8", "ports=1", "mshrs=1024",
    "mshr_targets=16", "hit_lat=40", "miss_lat=10", "resp_lat=10",
    "write_policy=write_back", "write_alloc=validate", NULL,
};
static const char *const l1l2_defaults[] = {"lat=4", "bw_b_per_cycle=64", NULL};
static const char *const l2l3_defaults[] = {"lat=49", "bw_b_per_cycle=256", NULL};

void memsys_define_sections(struct cfg *c)
{
    place_define_section(c);
    cfg_define(c, "l1d", "L1 data cache, one per CU (Table I: 16 KB, 64 B lines, 16-way)",
               cache_keys, l1d_defaults);
    cfg_define(c, "l2", "L2 cache, one per chiplet (Table I: 8 MB, 64 B lines, 32-way)",
               cache_keys, l2_defaults);
    cfg_define(c, "l3", "L3 (size: a GPU's total or per slice, see [gpu] l3_sizing; Table I: "
               "16 MB, 64 B lines, 16-way)",
               cache_keys, l3_defaults);
    cfg_define(c, "dram", "HBM per chiplet (channels are per stack)", dram_keys, NULL);
    cfg_define(c, "link_l1_l2", "link between a CU's L1 and its chiplet's L2, each direction",
               link_keys, l1l2_defaults);
    cfg_define(c, "link_l2_l3", "link between a chiplet's L2 and its L3 slices, each direction",
               link_keys, l2l3_defaults);
    net_define_sections(c);
}

struct build_params {
    struct cache_params l1, l2, l3;
    struct dram_params dram;
    struct link_params l1l2, l2l3;
    struct net_params net;
};

/* A GPU's L3 of p->size_b split over n slices: each keeps the configured
 * ways over the largest power of two of sets that fits its share, and as
 * many more ways as the share then holds whole (16 MB over 6 slices of
 * 16-way, 64 B lines: 2048 sets x 21 ways each, 15.75 MiB in all). */
static int split_l3(struct cache_params *p, unsigned n, char *why, size_t len)
{
    uint64_t share = p->size_b / p->line_b / n, sets = 1;
    while (sets * 2 * p->ways <= share)
        sets *= 2;
    if (sets * p->ways > share || sets < p->banks) {
        snprintf(why, len, "%llu KiB cannot be split over %u slices of %u ways and %u banks",
                 (unsigned long long)(p->size_b / 1024), n, p->ways, p->banks);
        return -1;
    }
    p->ways = (uint32_t)(share / sets);
    p->size_b = sets * p->ways * p->line_b;
    return 0;
}

static int read_params(const struct cfg *c, struct memsys *ms, struct build_params *bp,
                       struct err *e)
{
    char buf[160];
    if (topo_from_cfg(cfg_sec(c, "gpu"), &ms->t, e) ||
        cache_params_from_cfg(cfg_sec(c, "l1d"), &bp->l1, e) ||
        cache_params_from_cfg(cfg_sec(c, "l2"), &bp->l2, e) ||
        cache_params_from_cfg(cfg_sec(c, "l3"), &bp->l3, e) ||
        dram_params_from_cfg(cfg_sec(c, "dram"), &bp->dram, e) ||
        link_params_from_cfg(cfg_sec(c, "link_l1_l2"), &bp->l1l2, e) ||
        link_params_from_cfg(cfg_sec(c, "link_l2_l3"), &bp->l2l3, e) ||
        net_params_from_cfg(c, &ms->t, &bp->net, e))
        return -1;
    if (bp->l2.line_b != bp->l1.line_b)
        return cfg_err(e, cfg_sec(c, "l2"), "line_b", "must equal [l1d] line_b (%u)", bp->l1.line_b);
    if (ms->t.llc_slices && bp->l3.line_b != bp->l1.line_b)
        return cfg_err(e, cfg_sec(c, "l3"), "line_b", "must equal [l1d] line_b (%u)", bp->l1.line_b);
    if (ms->t.llc_slices && ms->t.l3_per_gpu &&
        split_l3(&bp->l3, ms->t.chiplets * ms->t.llc_slices, buf, sizeof buf))
        return cfg_err(e, cfg_sec(c, "l3"), "size_kib", "%s", buf);
    ms->t.l2_banks = bp->l2.banks;
    bp->dram.channels *= ms->t.hbm_stacks;
    return 0;
}

/* ---- the request path: the scheme's hooks decide, these carry out ---------------- */

static void apply(struct req *r, struct coh_route rt)
{
    r->flags = (uint8_t)((r->flags | rt.set) & ~rt.clear);
}

/* Carry out a route decided at chiplet ch. */
static void ch_go(struct memsys *ms, unsigned ch, struct req *r, struct coh_route rt)
{
    apply(r, rt);
    switch (rt.hop) {
    case COH_HOP_L2:
        cache_access(ms->s, &ms->l2[ch], r);
        return;
    case COH_HOP_L3:
        mem_send(ms->s, &ms->to_l3[ch], r);
        return;
    case COH_HOP_HOME: { /* into the network toward r->home */
        struct mem_port p = net_port(&ms->net, ch);
        mem_send(ms->s, &p, r);
        return;
    }
    case COH_HOP_GPU_HOME: { /* over the GPU's fabric to its home of the address */
        unsigned gh = coh_gpu_home(&ms->t, r->home, topo_chiplet_gpu(&ms->t, ch));
        if (gh == ch)
            SIM_BUG(ms->s, "memsys", "a request routed to its GPU home from the GPU home");
        struct mem_port p = net_path_port(&ms->net, ch, gh);
        mem_send(ms->s, &p, r);
        return;
    }
    case COH_HOP_HELD:
        return;
    default:
        SIM_BUG(ms->s, "memsys", "route %u is not a hop from a chiplet", rt.hop);
    }
}

/* Carry out a route decided at CU cu. */
static void cu_go(struct memsys *ms, unsigned cu, struct req *r, struct coh_route rt)
{
    apply(r, rt);
    if (rt.hop == COH_HOP_L1) {
        cache_access(ms->s, &ms->l1[cu], r);
    } else if (rt.hop == COH_HOP_L2) {
        struct mem_port p = link_path_port(&ms->l1_path[cu]);
        mem_send(ms->s, &p, r);
    } else if (rt.hop != COH_HOP_HELD) {
        SIM_BUG(ms->s, "memsys", "route %u is not a hop from a CU", rt.hop);
    }
}

static void l1_filled(struct sim *s, struct req *r, void *obj)
{
    struct memsys_front *f = obj;
    f->ms->coh->l1_fill(f->ms->coh_self, f->node, r);
    req_complete(s, r);
}

/* A request from CU `cu`: into its L1, or past it. */
void memsys_l1_access(struct memsys *ms, unsigned cu, struct req *r)
{
    const struct coh_ops *o = ms->coh;
    cu_go(ms, cu, r, o && o->l1_access ? o->l1_access(ms->coh_self, cu, r)
                                       : coh_default_l1_access(&ms->cm, cu, r));
}

void memsys_release(struct memsys *ms, unsigned cu, enum mem_scope scope, coh_done_fn done,
                    void *arg)
{
    if (ms->coh && ms->coh->release)
        ms->coh->release(ms->coh_self, cu, scope, done, arg);
    else
        done(ms->s, arg);
}

void memsys_acquire(struct memsys *ms, unsigned cu, enum mem_scope scope, coh_done_fn done,
                    void *arg)
{
    if (ms->coh && ms->coh->acquire)
        ms->coh->acquire(ms->coh_self, cu, scope, done, arg);
    else if (scope >= SCOPE_GPU)
        coh_walkq_add(&ms->cm.l1q[cu], COH_INVALIDATE, done, arg);
    else
        done(ms->s, arg);
}

/* Out of CU `node`'s L1: a miss, a write-through, an atomic. */
static void l1_out_access(struct sim *s, void *self, struct req *r)
{
    (void)s;
    struct memsys_front *f = self;
    struct memsys *ms = f->ms;
    const struct coh_ops *o = ms->coh;
    if (o && o->l1_fill)
        req_on_done(r, l1_filled, f);
    cu_go(ms, f->node, r, o && o->l1_miss ? o->l1_miss(ms->coh_self, f->node, r)
                                          : coh_route_to(COH_HOP_L2, 0));
}

static void l2_in_access(struct sim *s, void *self, struct req *r)
{
    (void)s;
    struct memsys_front *f = self;
    struct memsys *ms = f->ms;
    const struct coh_ops *o = ms->coh;
    ch_go(ms, f->node, r, o && o->l2_access ? o->l2_access(ms->coh_self, f->node, r)
                                            : coh_route_to(COH_HOP_L2, 0));
}

static void l2_out_access(struct sim *s, void *self, struct req *r)
{
    (void)s;
    struct memsys_front *f = self;
    struct memsys *ms = f->ms;
    const struct coh_ops *o = ms->coh;
    ch_go(ms, f->node, r, o && o->l2_miss ? o->l2_miss(ms->coh_self, f->node, r)
                                          : coh_default_l2_miss(f->node, r));
}

static void remote_in(struct memsys *ms, unsigned home, struct req *r)
{
    ms->remote_requests[home]++;
    const struct coh_ops *o = ms->coh;
    ch_go(ms, home, r, o && o->remote_in ? o->remote_in(ms->coh_self, home, r)
                                         : coh_default_remote_in(r));
}

/* Arrival from the network at chiplet `node`: as the system home, or as its
 * GPU's home of the address. */
static void net_in_access(struct sim *s, void *self, struct req *r)
{
    (void)s;
    struct memsys_front *f = self;
    struct memsys *ms = f->ms;
    if (r->home == f->node) {
        remote_in(ms, f->node, r);
        return;
    }
    const struct coh_ops *o = ms->coh;
    ch_go(ms, f->node, r, o && o->gpu_home_in ? o->gpu_home_in(ms->coh_self, f->node, r)
                                              : coh_route_to(COH_HOP_HOME, 0));
}

/* Requests for chiplet `node`'s L3: pick the slice (no L3: the HBM). */
static void l3_front_access(struct sim *s, void *self, struct req *r)
{
    struct memsys_front *f = self;
    unsigned slices = f->ms->t.llc_slices;
    if (!slices) {
        struct mem_port hbm = dram_port(&f->ms->dram[f->node]);
        mem_send(s, &hbm, r);
        return;
    }
    unsigned k = slices > 1 ? (unsigned)(hash64(r->addr / f->ms->line_b) % slices) : 0;
    cache_access(s, &f->ms->l3[f->node * slices + k], r);
}

static void alloc_arrays(struct memsys *ms)
{
    unsigned nch = ms->nch, ncu = ms->ncu;
    ms->l1 = xcalloc(ncu, sizeof *ms->l1);
    ms->l1_down = xcalloc(ncu, sizeof *ms->l1_down);
    ms->l1_up = xcalloc(ncu, sizeof *ms->l1_up);
    ms->l1_path = xcalloc(ncu, sizeof *ms->l1_path);
    ms->l2 = xcalloc(nch, sizeof *ms->l2);
    ms->front = xcalloc(nch, sizeof *ms->front);
    ms->l23_down = xcalloc(nch, sizeof *ms->l23_down);
    ms->l23_up = xcalloc(nch, sizeof *ms->l23_up);
    ms->l23_path = xcalloc(nch, sizeof *ms->l23_path);
    ms->l3 = xcalloc((size_t)nch * ms->t.llc_slices, sizeof *ms->l3);
    ms->dram = xcalloc(nch, sizeof *ms->dram);
    ms->to_l3 = xcalloc(nch, sizeof *ms->to_l3);
    ms->cu_front = xcalloc(ncu, sizeof *ms->cu_front);
    ms->remote_requests = xcalloc(nch, sizeof *ms->remote_requests);
    ms->l2_class = xcalloc((size_t)nch * nch, sizeof *ms->l2_class);
}

static char *unit_name(const struct memsys *ms, unsigned ch, const char *what, unsigned idx)
{
    char buf[64];
    topo_chiplet_name(&ms->t, ch, buf, sizeof buf);
    return idx == ~0u ? xasprintf("%s.%s", buf, what) : xasprintf("%s.%s%u", buf, what, idx);
}

/* Each instance of a cache draws its own random-replacement stream. */
static struct cache_params instance(const struct cache_params *p, unsigned idx)
{
    struct cache_params q = *p;
    q.seed = hash64(p->seed ^ ((uint64_t)idx << 32));
    return q;
}

static void build_chiplet(struct memsys *ms, unsigned ch, const struct build_params *bp)
{
    struct sim *s = ms->s;
    struct cache_params l2p = instance(&bp->l2, ch);
    ms->front[ch] = (struct memsys_front){ms, ch};
    char *name = unit_name(ms, ch, "dram", ~0u);
    dram_init(&ms->dram[ch], s, name, NULL, &bp->dram);
    if (ms->versions)
        /* the lines that reach the DRAM: the L3's, or without one the L2's */
        dram_set_shadow(&ms->dram[ch], &ms->shadow,
                        ms->t.llc_slices ? bp->l3.line_b : bp->l2.line_b);
    free(name);
    for (unsigned k = 0; k < ms->t.llc_slices; k++) {
        struct cache *l3 = &ms->l3[ch * ms->t.llc_slices + k];
        struct cache_params l3p = instance(&bp->l3, ch * ms->t.llc_slices + k);
        name = unit_name(ms, ch, "l3_", k);
        cache_init(l3, s, name, &ms->gpu_clk, &l3p, dram_port(&ms->dram[ch]));
        free(name);
    }
    link_init(&ms->l23_down[ch], &bp->l2l3, &ms->gpu_clk, LOC_L2_L3);
    link_init(&ms->l23_up[ch], &bp->l2l3, &ms->gpu_clk, LOC_L2_L3);
    ms->l23_down[ch].cls = ms->l23_up[ch].cls = net_class(&ms->net, LC_INTRA_CHIPLET);
    link_path_init(&ms->l23_path[ch], &ms->l23_down[ch], &ms->l23_up[ch],
                   (struct mem_port){l3_front_access, &ms->front[ch]});
    ms->to_l3[ch] = link_path_port(&ms->l23_path[ch]);
    net_attach(&ms->net, ch, (struct mem_port){net_in_access, &ms->front[ch]});
    name = unit_name(ms, ch, "l2", ~0u);
    cache_init(&ms->l2[ch], s, name, &ms->gpu_clk, &l2p,
               (struct mem_port){l2_out_access, &ms->front[ch]});
    free(name);
    if (ms->nch > 1) { /* hits split by where the data's home is */
        uint8_t *cls = &ms->l2_class[(size_t)ch * ms->nch];
        for (unsigned h = 0; h < ms->nch; h++)
            cls[h] = h == ch                         ? CACHE_DATA_LOCAL
                     : topo_same_gpu(&ms->t, h, ch) ? CACHE_DATA_REMOTE_CHIPLET
                                                    : CACHE_DATA_REMOTE_GPU;
        cache_split_by_home(&ms->l2[ch], cls, ms->nch);
    }
}

static void build_cu(struct memsys *ms, unsigned cu, const struct build_params *bp)
{
    unsigned ch = topo_cu_chiplet(&ms->t, cu);
    link_init(&ms->l1_down[cu], &bp->l1l2, &ms->gpu_clk, LOC_L1_L2);
    link_init(&ms->l1_up[cu], &bp->l1l2, &ms->gpu_clk, LOC_L1_L2);
    ms->l1_down[cu].cls = ms->l1_up[cu].cls = net_class(&ms->net, LC_INTRA_CHIPLET);
    link_path_init(&ms->l1_path[cu], &ms->l1_down[cu], &ms->l1_up[cu],
                   (struct mem_port){l2_in_access, &ms->front[ch]});
    char buf[64];
    char *name = xasprintf("%s.l1d", topo_cu_name(&ms->t, cu, buf, sizeof buf));
    struct cache_params l1p = instance(&bp->l1, cu);
    ms->cu_front[cu] = (struct memsys_front){ms, cu};
    cache_init(&ms->l1[cu], ms->s, name, &ms->gpu_clk, &l1p,
               (struct mem_port){l1_out_access, &ms->cu_front[cu]});
    free(name);
}

/* A coherence control message between chiplets, over the network. */
static void send_msg(void *net, unsigned from, unsigned to, uint32_t bytes, enum traffic_class tc,
                     ev_fn fn, void *obj, uint64_t arg)
{
    net_send(net, from, to, bytes, tc, fn, obj, arg);
}

static void machine_view(struct memsys *ms)
{
    struct coh_walkq *l1q = xcalloc(ms->ncu, sizeof *l1q), *l2q = xcalloc(ms->nch, sizeof *l2q);
    for (unsigned cu = 0; cu < ms->ncu; cu++)
        coh_walkq_init(&l1q[cu], ms->s, &ms->l1[cu]);
    for (unsigned ch = 0; ch < ms->nch; ch++)
        coh_walkq_init(&l2q[ch], ms->s, &ms->l2[ch]);
    ms->cm = (struct coh_machine){.s = ms->s, .t = &ms->t, .nch = ms->nch, .ncu = ms->ncu,
                                  .cu_per_ch = ms->t.cus, .l1 = ms->l1, .l2 = ms->l2,
                                  .l3 = ms->l3, .l3_per_ch = ms->t.llc_slices,
                                  .mem = &ms->shadow, .gpu_period_ps = ms->gpu_clk.period,
                                  .send = send_msg, .net = &ms->net, .l1q = l1q, .l2q = l2q};
}

void memsys_set_coherence(struct memsys *ms, const struct coh_ops *ops, void *self)
{
    ms->coh = ops;
    ms->coh_self = self;
}

int memsys_build(struct memsys *ms, struct sim *s, const struct cfg *c, bool versions,
                 struct err *e)
{
    *ms = (struct memsys){.s = s, .versions = versions};
    struct build_params bp;
    if (read_params(c, ms, &bp, e))
        return -1;
    bp.l1.versions = bp.l2.versions = bp.l3.versions = versions;
    shadow_init(&ms->shadow);
    ms->nch = topo_nchiplets(&ms->t);
    ms->ncu = topo_ncus(&ms->t);
    ms->line_b = bp.l1.line_b;
    clock_init(&ms->gpu_clk, "gpu", ms->t.gpu_mhz);
    if (place_init_cfg(&ms->place, cfg_sec(c, "place"), &ms->t, e)) {
        shadow_free(&ms->shadow);
        return -1;
    }
    alloc_arrays(ms);
    net_init(&ms->net, s, &ms->gpu_clk, &ms->t, &bp.net);
    for (unsigned ch = 0; ch < ms->nch; ch++)
        build_chiplet(ms, ch, &bp);
    for (unsigned cu = 0; cu < ms->ncu; cu++)
        build_cu(ms, cu, &bp);
    place_gate_l1s(&ms->place, ms->l1, ms->ncu);
    machine_view(ms);
    return 0;
}

void memsys_free(struct memsys *ms)
{
    if (!ms->l1)
        return;
    for (unsigned cu = 0; cu < ms->ncu; cu++) {
        cache_free(&ms->l1[cu]);
        link_path_free(&ms->l1_path[cu]);
        link_free(&ms->l1_down[cu]);
        link_free(&ms->l1_up[cu]);
    }
    for (unsigned ch = 0; ch < ms->nch; ch++) {
        cache_free(&ms->l2[ch]);
        link_path_free(&ms->l23_path[ch]);
        link_free(&ms->l23_down[ch]);
        link_free(&ms->l23_up[ch]);
        dram_free(&ms->dram[ch]);
        for (unsigned k = 0; k < ms->t.llc_slices; k++)
            cache_free(&ms->l3[ch * ms->t.llc_slices + k]);
    }
    for (unsigned cu = 0; cu < ms->ncu; cu++)
        coh_walkq_free(&ms->cm.l1q[cu]);
    for (unsigned ch = 0; ch < ms->nch; ch++)
        coh_walkq_free(&ms->cm.l2q[ch]);
    free(ms->cm.l1q);
    free(ms->cm.l2q);
    net_free(&ms->net);
    place_free(&ms->place);
    shadow_free(&ms->shadow);
    void *arrays[] = {ms->l1, ms->l1_down, ms->l1_up, ms->l1_path, ms->l2, ms->front,
                      ms->l23_down, ms->l23_up, ms->l23_path, ms->l3, ms->dram, ms->to_l3,
                      ms->cu_front, ms->remote_requests, ms->l2_class};
    for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++)
        free(arrays[i]);
    *ms = (struct memsys){0};
}

/* "<unit>.<what>.down" and "<unit>.<what>.up" */
static void reg_link_pair(struct stats *st, const char *unit, const char *what, struct link *down,
                          struct link *up)
{
    char pre[128];
    snprintf(pre, sizeof pre, "%s.%s.down", unit, what);
    link_reg_stats(down, st, pre);
    snprintf(pre, sizeof pre, "%s.%s.up", unit, what);
    link_reg_stats(up, st, pre);
}

void memsys_reg_stats(struct memsys *ms, struct stats *st)
{
    char buf[64], pre[96];
    for (unsigned cu = 0; cu < ms->ncu; cu++) {
        topo_cu_name(&ms->t, cu, buf, sizeof buf);
        snprintf(pre, sizeof pre, "%s.l1d", buf);
        cache_reg_stats(&ms->l1[cu], st, pre);
        reg_link_pair(st, buf, "link_l1_l2", &ms->l1_down[cu], &ms->l1_up[cu]);
    }
    for (unsigned ch = 0; ch < ms->nch; ch++) {
        topo_chiplet_name(&ms->t, ch, buf, sizeof buf);
        snprintf(pre, sizeof pre, "%s.l2", buf);
        cache_reg_stats(&ms->l2[ch], st, pre);
        reg_link_pair(st, buf, "link_l2_l3", &ms->l23_down[ch], &ms->l23_up[ch]);
        for (unsigned k = 0; k < ms->t.llc_slices; k++) {
            snprintf(pre, sizeof pre, "%s.slice%u.l3", buf, k);
            cache_reg_stats(&ms->l3[ch * ms->t.llc_slices + k], st, pre);
        }
        snprintf(pre, sizeof pre, "%s.dram", buf);
        dram_reg_stats(&ms->dram[ch], st, pre);
        stats_reg(st, buf, "remote_requests", &ms->remote_requests[ch],
                  "requests that arrived from other chiplets (served by the home's L2)");
        stats_reg(st, buf, "l2_scoped_flushes", &ms->cm.l2q[ch].flushes,
                  "L2 flushes made for scoped releases inside kernels (also in l2.flushes)");
        stats_reg(st, buf, "l2_scoped_invalidates", &ms->cm.l2q[ch].invalidates,
                  "L2 invalidates made for scoped acquires inside kernels (also in "
                  "l2.invalidates)");
    }
    net_reg_stats(&ms->net, st);
    place_reg_stats(&ms->place, st, "system.place");
    stats_reg(st, "system.memcpy", "pages_placed", &ms->copy_st.pages_placed,
              "pages placed by host-to-device copies");
    stats_reg(st, "system.memcpy", "l2_lines_warmed", &ms->copy_st.lines_warmed,
              "lines host copies installed in an L2 (cp.memcpy_warm_l2)");
    stats_reg(st, "system.memcpy", "l2_lines_not_warmed", &ms->copy_st.lines_not_warmed,
              "copied lines left out: cached already, write-back under way, or no home");
}

unsigned memsys_home(struct memsys *ms, addr_t addr, unsigned cu)
{
    return place_home(&ms->place, addr, topo_cu_chiplet(&ms->t, cu));
}

void memsys_cu_access(struct memsys *ms, unsigned cu, struct req *r)
{
    memsys_l1_access(ms, cu, r);
}

/* Whether a copy may install line a in an L2 without hiding newer data: no
 * cache holds it and no write-back that could carry it is under way. */
static bool warm_safe(const struct memsys *ms, addr_t a)
{
    for (unsigned ch = 0; ch < ms->nch; ch++) {
        if (ms->l2[ch].nwb || ms->l2[ch].nfwd || cache_find(&ms->l2[ch], a) >= 0)
            return false;
        for (unsigned k = 0; k < ms->t.llc_slices; k++) {
            const struct cache *l3 = &ms->l3[ch * ms->t.llc_slices + k];
            if (l3->nwb || l3->nfwd || cache_find(l3, a) >= 0)
                return false;
        }
    }
    return true;
}

void memsys_host_copy(struct memsys *ms, addr_t lo, addr_t hi, bool place, bool warm)
{
    struct memsys_copy_stats *st = &ms->copy_st;
    if (hi <= lo)
        return;
    uint64_t page_b = 1ull << ms->place.page_shift;
    if (place)
        for (addr_t p = lo & ~(page_b - 1); p < hi; p += page_b) {
            if (place_lookup(&ms->place, p) < 0)
                st->pages_placed++;
            place_copy(&ms->place, p, (unsigned)((p / page_b) % ms->nch));
        }
    if (!warm)
        return;
    uint32_t ver[REQ_WORDS];
    for (addr_t a = lo & ~(addr_t)(ms->line_b - 1); a < hi; a += ms->line_b) {
        int home = place_lookup(&ms->place, a);
        if (home < 0 || !warm_safe(ms, a)) {
            st->lines_not_warmed++;
            continue;
        }
        if (ms->versions)
            shadow_read(&ms->shadow, a, ms->line_b / 4, ver);
        cache_install_clean(ms->s, &ms->l2[home], a, (uint16_t)home,
                            ms->versions ? ver : NULL);
        st->lines_warmed++;
    }
}

uint64_t memsys_hits(const struct stats *st, const char *level)
{
    char a[64], b[64];
    snprintf(a, sizeof a, "%s.read_hits", level);
    snprintf(b, sizeof b, "%s.write_hits", level);
    return stats_sum(st, a) + stats_sum(st, b);
}
