/*
 * gpu.c -- building the machine and its summary (see gpu.h).
 */
#include "gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct cfg_key check_keys[] = {
    {"enable", CFG_BOOL, "true", 0, 0,
     "run the coherence checker (per-word data versions; summary.stale_reads)", NULL},
    {"annotations", CFG_BOOL, "false", 0, 0,
     "check every access against the kernel's declared structures, modes and work-group ranges "
     "(summary.annotation_violations)", NULL},
    CFG_END,
};

void gpu_define_sections(struct cfg *c)
{
    memsys_define_sections(c);
    cfg_define(c, "cu", "compute units (Table I: 4 SIMDs, 10 wavefronts per SIMD)", cu_keys,
               NULL);
    cfg_define(c, "lds", "local data share, one per CU (Table I: 64 KB, 65 cycles)", lds_keys,
               NULL);
    cfg_define(c, "cp", "command processors: kernel launch and work-group dispatch", cp_keys,
               NULL);
    cfg_define(c, "sample", "kernel sampling: alike kernels skipped, their time estimated "
               "(docs/sampling.md)", sample_keys, NULL);
    wgs_define_section(c);
    cfg_define(c, "coherence", "coherence scheme and its switches", coh_common_keys, NULL);
    cfg_define(c, "check", "coherence checker", check_keys, NULL);
    cfg_define(c, "energy", "per-event energies (docs/energy.md)", energy_keys, NULL);
}

int gpu_define_scheme(struct cfg *c, struct err *e)
{
    const char *name = cfg_peek(c, "coherence", "scheme");
    const struct coh_ops *ops = coh_find(name);
    if (!ops) {
        const char *names[64];
        size_t n = 0;
        for (const struct coh_ops *const *o = coh_registry; *o && n < 64; o++)
            names[n++] = (*o)->name;
        return cfg_unknown_name(c, "coherence", "scheme", "scheme", names, n, NULL, e);
    }
    if (ops->keys)
        cfg_define(c, "coherence", NULL, ops->keys, NULL);
    return 0;
}

static unsigned home_of(void *obj, addr_t addr, unsigned cu)
{
    return memsys_home(obj, addr, cu);
}

static void host_copy(void *obj, addr_t lo, addr_t hi, bool place, bool warm)
{
    struct gpu *g = obj;
    memsys_host_copy(&g->ms, lo, hi, place, warm);
}

static void l1_access_of(void *obj, unsigned cu, struct req *r)
{
    memsys_l1_access(obj, cu, r);
}

static void sync_of(void *obj, unsigned cu, bool release, enum mem_scope scope,
                    void (*done)(struct sim *s, void *arg), void *arg)
{
    if (release)
        memsys_release(obj, cu, scope, done, arg);
    else
        memsys_acquire(obj, cu, scope, done, arg);
}

static ps_t launch_place(void *obj, const struct sched_launch *l)
{
    struct gpu *g = obj;
    return place_launch(&g->ms.place, l);
}

static int build_cus(struct gpu *g, const struct cfg *c, struct err *e)
{
    struct lds_params lp;
    if (cu_params_from_cfg(cfg_sec(c, "cu"), &g->cup, e) ||
        lds_params_from_cfg(cfg_sec(c, "lds"), &lp, e))
        return -1;
    unsigned n = g->ms.ncu;
    chk_sync_init(&g->chk, n, g->ms.t.chiplets * g->ms.t.cus, g->cup.max_wgs);
    g->lds = xcalloc(n, sizeof *g->lds);
    g->cu = xcalloc(n, sizeof *g->cu);
    struct cu_env env = {.s = g->s, .clk = &g->ms.gpu_clk, .chk = &g->chk, .home = home_of,
                         .home_obj = &g->ms, .wg_done = cp_wg_done, .wg_done_obj = &g->cp,
                         .l1_access = l1_access_of, .sync = sync_of, .mem_obj = &g->ms};
    for (unsigned i = 0; i < n; i++) {
        lds_init(&g->lds[i], g->s, &g->ms.gpu_clk, &lp);
        cu_init(&g->cu[i], i, &g->cup, &env, &g->ms.l1[i], &g->lds[i], lp.size_kib * 1024);
    }
    return 0;
}

int gpu_build(struct gpu *g, struct sim *s, const struct cfg *c, struct err *e)
{
    *g = (struct gpu){.s = s};
    bool check = cfg_bool(cfg_sec(c, "check"), "enable");
    if (memsys_build(&g->ms, s, c, check, e))
        return -1;
    g->page_b = cfg_uint(cfg_sec(c, "place"), "page_b");
    chk_init(&g->chk, check, g->ms.line_b);
    g->chk.annotations = cfg_bool(cfg_sec(c, "check"), "annotations");
    energy_params_from_cfg(cfg_sec(c, "energy"), &g->energy);
    struct cp_params cpp;
    if (build_cus(g, c, e) || cp_params_from_cfg(cfg_sec(c, "cp"), &cpp, e) ||
        sample_params_from_cfg(cfg_sec(c, "sample"), &cpp.sample, e) ||
        cp_init(&g->cp, s, &g->ms.gpu_clk, &cpp, g->cu, &g->ms.t, cfg_sec(c, "sched"), e))
        goto fail;
    g->cp.chk = &g->chk;
    cp_set_copy(&g->cp, host_copy, g);
    cp_set_place(&g->cp, launch_place, g, g->page_b, g->ms.place.p.interleave_b);
    const struct cfg_sec *cs = cfg_sec(c, "coherence");
    g->ms.cm.chk = &g->chk;
    coh_cp_timing(&g->ms.cm, cpp.cp_mhz, cpp.unicast_cycles, cpp.broadcast_cycles);
    g->coh = coh_find(cfg_str(cs, "scheme"));
    g->coh_self = g->coh->create(&g->ms.cm, cs, e);
    if (!g->coh_self)
        goto fail;
    memsys_set_coherence(&g->ms, g->coh, g->coh_self);
    cp_set_coherence(&g->cp, g->coh, g->coh_self);
    return 0;
fail:
    gpu_free(g);
    return -1;
}

void gpu_free(struct gpu *g)
{
    if (g->coh_self)
        g->coh->destroy(g->coh_self);
    for (unsigned i = 0; g->cu && i < g->ms.ncu; i++) {
        cu_free(&g->cu[i]);
        lds_free(&g->lds[i]);
    }
    free(g->cu);
    free(g->lds);
    cp_free(&g->cp);
    chk_free(&g->chk);
    memsys_free(&g->ms);
    *g = (struct gpu){0};
}

void gpu_reg_stats(struct gpu *g, struct stats *st)
{
    memsys_reg_stats(&g->ms, st);
    char buf[64], pre[96];
    for (unsigned i = 0; i < g->ms.ncu; i++) {
        topo_cu_name(&g->ms.t, i, buf, sizeof buf);
        snprintf(pre, sizeof pre, "%s.core", buf);
        cu_reg_stats(&g->cu[i], st, pre);
        snprintf(pre, sizeof pre, "%s.lds", buf);
        lds_reg_stats(&g->lds[i], st, pre);
    }
    cp_reg_stats(&g->cp, st, "cp");
    chk_reg_stats(&g->chk, st, "checker");
    if (g->coh->reg_stats)
        g->coh->reg_stats(g->coh_self, st);
}

static json_t *energy_json(const struct gpu *g, const struct stats *st)
{
    struct energy_events ev = {
        .l1i = stats_sum(st, "core.warp_insts"),
        .l1d = stats_sum(st, "l1d.accesses"),
        .lds = stats_sum(st, "lds.accesses"),
        .l2 = stats_sum(st, "l2.accesses"),
        .l3 = stats_sum(st, "l3.accesses"),
        .noc_flits = stats_sum(st, "flits_l1_l2") + stats_sum(st, "flits_l2_l3"),
        .xchip_flits = stats_sum(st, "flits_remote") + stats_sum(st, "flits_gpu_gpu"),
        .dram_reads = stats_sum(st, "dram.reads"),
        .dram_writes = stats_sum(st, "dram.writes"),
    };
    struct energy_split o;
    energy_compute(&g->energy, &ev, &o);
    return json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "l1i", o.l1i, "l1d", o.l1d, "lds",
                     o.lds, "l2", o.l2, "noc", o.noc, "dram", o.dram, "total", o.total);
}

#define I(x) ((json_int_t)(x))

/* A figure that was not measured (its component is absent, or the mean or
 * rate has nothing to average over) is null, never 0: docs/summary.md. */
static json_t *count_if(bool measured, uint64_t v)
{
    return measured ? json_integer(I(v)) : json_null();
}

static json_t *real_if(bool measured, double v) { return measured ? json_real(v) : json_null(); }

static void set(json_t *o, const char *k, json_t *v) { json_object_set_new(o, k, v); }

static void summary_time(json_t *o, const struct gpu *g)
{
    ps_t period = g->ms.gpu_clk.period;
    ps_t span = g->cp.last_end - g->cp.first_launch;
    ps_t kmin, kmed, kmax;
    cp_kernel_times(&g->cp, &kmin, &kmed, &kmax);
    bool any = g->cp.st.kernels > 0;
    set(o, "cycles", json_integer(I(span / period)));
    set(o, "time_us", json_real((double)span / 1e6));
    uint64_t kcyc = (span - g->cp.st.launch_ps) / period;
    set(o, "kernel_cycles", json_integer(I(kcyc)));
    set(o, "launch_cycles", json_integer(I(span / period - kcyc)));
    set(o, "kernels", json_integer(I(g->cp.st.kernels)));
    set(o, "kernel_us_min", real_if(any, (double)kmin / 1e6));
    set(o, "kernel_us_median", real_if(any, (double)kmed / 1e6));
    set(o, "kernel_us_max", real_if(any, (double)kmax / 1e6));
}

/* l2_CLASS_accesses and l2_CLASS_hits for each of the n classes (the L2s'
 * counters l2.CLASS_accesses, l2.CLASS_hits summed), null where has[k] is not. */
static void split_keys(json_t *o, const struct stats *st, const char *const *cls,
                       const bool *has, unsigned n)
{
    for (unsigned k = 0; k < n; k++)
        for (unsigned hit = 0; hit < 2; hit++) {
            const char *what = hit ? "hits" : "accesses";
            char key[48], name[48];
            snprintf(key, sizeof key, "l2_%s_%s", cls[k], what);
            snprintf(name, sizeof name, "l2.%s_%s", cls[k], what);
            set(o, key, count_if(has[k], stats_sum(st, name)));
        }
}

static void summary_traffic(json_t *o, const struct gpu *g, const struct stats *st)
{
    bool l3 = g->ms.t.llc_slices > 0, remote = g->ms.nch > 1;
    set(o, "warp_insts", json_integer(I(stats_sum(st, "core.warp_insts"))));
    set(o, "l1_accesses", json_integer(I(stats_sum(st, "l1d.accesses"))));
    set(o, "l1_hits", json_integer(I(memsys_hits(st, "l1d"))));
    set(o, "l2_accesses", json_integer(I(stats_sum(st, "l2.accesses"))));
    set(o, "l2_hits", json_integer(I(memsys_hits(st, "l2"))));
    set(o, "l2_remote_accesses", count_if(remote, stats_sum(st, "remote_requests")));
    /* the L2s' reads and writes, and their hits, by where the data's home is */
    bool gpus = g->ms.t.gpus > 1, chiplets = g->ms.t.chiplets > 1;
    static const char *const cls[] = {"local", "remote_chiplet", "remote_gpu"};
    bool has[] = {remote, remote && chiplets, gpus};
    split_keys(o, st, cls, has, 3);
    /* spec ladm.md 8: the same by who asks as well (LOCAL-LOCAL ... REMOTE-REMOTE), and the
     * requests the L2s send toward their data's home */
    static const char *const tcls[] = {"local_local", "local_remote", "remote_local",
                                       "remote_remote"};
    bool any[] = {remote, remote, remote, remote};
    split_keys(o, st, tcls, any, 4);
    set(o, "l2_sent_remote", count_if(remote, stats_sum(st, "l2.sent_remote")));
    set(o, "l3_accesses", count_if(l3, stats_sum(st, "l3.accesses")));
    set(o, "l3_hits", count_if(l3, memsys_hits(st, "l3")));
    set(o, "dram_reads", json_integer(I(stats_sum(st, "dram.reads"))));
    set(o, "dram_writes", json_integer(I(stats_sum(st, "dram.writes"))));
    set(o, "l1_sectors", json_integer(I(stats_sum(st, "l1d.sectors"))));
    set(o, "l2_sectors", json_integer(I(stats_sum(st, "l2.sectors"))));
    set(o, "dram_read_sectors", json_integer(I(stats_sum(st, "dram.read_sectors"))));
    set(o, "dram_write_sectors", json_integer(I(stats_sum(st, "dram.write_sectors"))));
    /* the L2-L3 links exist without an L3 too: they carry the L2s' misses to the DRAM */
    set(o, "flits_l1_l2", json_integer(I(stats_sum(st, "flits_l1_l2"))));
    set(o, "flits_l2_l3", json_integer(I(stats_sum(st, "flits_l2_l3"))));
    set(o, "flits_remote", count_if(remote, stats_sum(st, "flits_remote") +
                                                stats_sum(st, "flits_gpu_gpu")));
    /* spec hmg.md 10: the traffic between GPUs, and the coherence messages' share */
    set(o, "flits_inter_gpu", count_if(gpus, stats_sum(st, "flits_gpu_gpu")));
    set(o, "flits_coh", count_if(remote, stats_sum(st, "flits_coh")));
}

static void summary_coherence(json_t *o, const struct gpu *g, const struct stats *st)
{
    /* kernel-boundary operations; those of scoped synchronization apart */
    uint64_t sfl = stats_sum(st, "l2_scoped_flushes"), sinv = stats_sum(st, "l2_scoped_invalidates");
    uint64_t fl = stats_sum(st, "l2.flushes") - sfl, inv = stats_sum(st, "l2.invalidates") - sinv;
    uint64_t base = (uint64_t)g->ms.nch * g->cp.st.kernels; /* the baseline's, of each */
    set(o, "l2_flushes", json_integer(I(fl)));
    set(o, "l2_invalidates", json_integer(I(inv)));
    set(o, "l2_scoped_flushes", json_integer(I(sfl)));
    set(o, "l2_scoped_invalidates", json_integer(I(sinv)));
    /* one L2 in the system: no baseline boundary operations to elide */
    bool several = g->ms.nch > 1;
    set(o, "l2_flushes_elided", count_if(several, base > fl ? base - fl : 0));
    set(o, "l2_invalidates_elided", count_if(several, base > inv ? base - inv : 0));
    /* spec hmg.md 10: invalidations per store and per directory eviction (schemes with a
     * directory register these counters) */
    set(o, "store_lines",
        json_integer(I(stats_sum(st, "core.store_lines") + stats_sum(st, "core.atomic_lines"))));
    static const char *const dir_keys[] = {"invals_store", "invals_evict", "invals_fwd",
                                           "dir_evictions"};
    for (unsigned k = 0; k < 4; k++) {
        char name[48];
        snprintf(name, sizeof name, "coherence.%s", dir_keys[k]);
        const struct stat_ent *e = stats_find(st, name);
        set(o, dir_keys[k], count_if(e != NULL, e ? stats_get(st, name) : 0));
    }
    set(o, "coherence_us", json_real((double)(g->cp.st.acquire_ps + g->cp.st.release_ps) / 1e6));
    set(o, "energy_pj", energy_json(g, st));
    set(o, "stale_reads", count_if(g->chk.on, g->chk.st.stale_reads));
    set(o, "annotation_violations",
        count_if(g->chk.annotations, g->chk.st.annotation_violations));
}

/* The microbenchmarks' figures: latency of loads flagged KOP_F_MEASURE,
 * bandwidth of those flagged KOP_F_MEASURE_BW, over the window from the
 * first one's issue to the last one's completion, on any CU. */
static void summary_measured(json_t *o, const struct gpu *g, const struct stats *st)
{
    ps_t period = g->ms.gpu_clk.period;
    uint64_t meas = stats_sum(st, "core.measured_loads");
    uint64_t lat = stats_sum(st, "core.measured_latency_ps");
    uint64_t bytes = stats_sum(st, "core.measured_bytes");
    ps_t first = UINT64_MAX, last = 0;
    for (unsigned i = 0; i < g->ms.ncu; i++) {
        if (!g->cu[i].st.measured_bytes)
            continue;
        first = min_u64(first, g->cu[i].meas_first);
        last = max_u64(last, g->cu[i].meas_last);
    }
    ps_t mspan = last > first ? last - first : 0;
    set(o, "avg_load_latency_cycles",
        real_if(meas, (double)lat / (double)(meas ? meas : 1) / (double)period));
    set(o, "achieved_gbps",
        real_if(bytes && mspan, (double)bytes / (double)(mspan ? mspan : 1) * 1e3));
}

json_t *gpu_summary(const struct gpu *g, const struct stats *st)
{
    json_t *o = json_object();
    summary_time(o, g);
    summary_traffic(o, g, st);
    summary_coherence(o, g, st);
    summary_measured(o, g, st);
    return o;
}
