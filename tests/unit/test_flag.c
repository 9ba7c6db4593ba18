/*
 * The `flag` microbenchmark (docs/microbench.md 5): its kernels and the
 * exact ops of producers, consumers and idle work-groups for each placement,
 * its parameter errors (a checker-less run is refused with exit 2), and
 * whole runs: on one chiplet, and across chiplets and GPUs under every
 * scheme and both readings of D4, the consumer sees the flag (no spin
 * exhausted) and reads no stale data; an acquire that drops nothing makes
 * the checker fire.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_util.h"
#include "machine.h"
#include "test_util.h"
#include "workload/wl.h"

extern const struct wl_ops wl_flag;

struct fw {
    struct cfg cfg;
    struct wl_env env;
    void *self;
    struct err e;
};

/* The model as for a machine of nch chiplets in ngpus GPUs, 2 CUs of 16
 * warp slots per chiplet, 64-lane warps, the checker on. */
static void *fw_try(struct fw *f, const char *ini, unsigned nch, unsigned ngpus)
{
    memset(f, 0, sizeof *f);
    wl_env_init(&f->env, 4096, 64, nch, 2 * nch, 1);
    f->env.ngpus = ngpus;
    f->env.warp_slots = 16;
    f->env.versions = true;
    cr_assert_eq(tcfg_load(&f->cfg, "workload", wl_flag.keys, NULL, ini, &f->e), 0, "%s",
                 f->e.msg);
    f->self = wl_flag.create(&f->env, cfg_sec(&f->cfg, "workload"), &f->e);
    return f->self;
}

static void fw_close(struct fw *f)
{
    if (f->self)
        wl_flag.destroy(f->self);
    wl_env_free(&f->env);
    cfg_free(&f->cfg);
}

static struct kernel_op step(const struct kernel *k, struct kernel_warp *w)
{
    struct kernel_op op;
    memset(&op, 0, sizeof op);
    k->next(k, w, &op);
    return op;
}

static void warp_of(struct kernel_warp *w, const struct kernel *k, uint32_t wg)
{
    *w = (struct kernel_warp){.k = k, .wg = wg, .wg_id = {wg, 0, 0}, .warp_size = 64,
                              .nlanes = 64};
}

/* Work-group wg's next op is only an exit. */
static void expect_idle(const struct kernel *k, uint32_t wg)
{
    struct kernel_warp w;
    warp_of(&w, k, wg);
    cr_expect_eq(step(k, &w).kind, KOP_EXIT, "wg %u", wg);
}

static void expect_store(struct kernel_op op, addr_t base, uint64_t mask, uint8_t size,
                         uint8_t scope, uint8_t sem)
{
    cr_expect_eq(op.kind, KOP_STORE);
    cr_expect_eq(op.base, base, "%llx", (unsigned long long)op.base);
    cr_expect_eq(op.mask, mask);
    cr_expect_eq(op.size, size);
    cr_expect_eq(op.scope, scope);
    cr_expect_eq(op.sem, sem);
}

/* A producer of pair p with rows of 1 KiB: its data rows, then its flag. */
static void expect_producer(const struct kernel *k, uint32_t wg, addr_t data, addr_t flag,
                            unsigned rows, bool release)
{
    struct kernel_warp w;
    warp_of(&w, k, wg);
    for (unsigned r = 0; r < rows; r++) {
        struct kernel_op op = step(k, &w);
        expect_store(op, data + r * 1024, ~0ull, 16, SCOPE_CTA, SEM_WEAK);
        cr_expect_eq(op.stride, 16);
    }
    expect_store(step(k, &w), flag, 1, 4, release ? SCOPE_GPU : SCOPE_CTA,
                 release ? SEM_RELEASE : SEM_WEAK);
    cr_expect_eq(step(k, &w).kind, KOP_EXIT);
}

static void expect_consumer(const struct kernel *k, uint32_t wg, addr_t data, addr_t flag,
                            unsigned rows, uint32_t spins, uint8_t scope)
{
    struct kernel_warp w;
    warp_of(&w, k, wg);
    struct kernel_op op = step(k, &w);
    cr_expect_eq(op.kind, KOP_LOAD);
    cr_expect_eq(op.base, flag);
    cr_expect_eq(op.mask, 1);
    cr_expect_eq(op.size, 4);
    cr_expect_eq(op.flags, KOP_F_SPIN);
    cr_expect_eq(op.n, spins);
    cr_expect_eq(op.dst, 1);
    cr_expect_eq(op.scope, scope);
    cr_expect_eq(op.sem, SEM_ACQUIRE);
    for (unsigned r = 0; r < rows; r++) {
        op = step(k, &w);
        cr_expect_eq(op.kind, KOP_LOAD);
        cr_expect_eq(op.base, data + r * 1024);
        cr_expect_eq(op.flags, KOP_F_FRESH);
        cr_expect_eq(op.sem, SEM_WEAK);
        cr_expect_eq(op.dst, 2 + r);
        cr_expect_eq(op.src[0], 2 + r, "waits for the previous load into its register");
    }
    for (unsigned i = 0; i < 5; i++) {
        op = step(k, &w);
        cr_expect_eq(op.kind, KOP_ALU);
        cr_expect_eq(op.src[0], 1 + 2 * i);
        cr_expect_eq(op.src[1], i < 4 ? 2 + 2 * i : 0);
    }
    cr_expect_eq(step(k, &w).kind, KOP_EXIT);
}

Test(flag, kernels_and_ops_across_chiplets)
{
    struct fw f;
    cr_assert(fw_try(&f, "[workload]\npairs = 2\ndata_b = 2048\nmax_spins = 7\n", 2, 1), "%s",
              f.e.msg);
    cr_expect_eq(wl_flag.kernels(f.self), 2);
    const struct kernel_buf *flags = f.env.bufs[0], *data = f.env.bufs[1];
    cr_expect_str_eq(flags->name, "flags");
    cr_expect_eq(flags->size, 2 * 256);
    cr_expect_eq(data->size, 2 * 2048);
    struct kernel k;
    /* flag_init: WGs 0, 1 (chiplet 0) clear their flag and data; 2, 3 (chiplet 1) idle */
    cr_assert(wl_flag.next_kernel(f.self, &k));
    cr_expect_str_eq(k.name, "flag_init");
    cr_expect_eq(kernel_nwg(&k), 4);
    cr_expect_eq(kernel_wg_threads(&k), 64);
    cr_expect_eq(k.nargs, 2);
    cr_expect_eq(k.args[0].mode, KERNEL_RW);
    expect_producer(&k, 1, data->base + 2048, flags->base + 256, 2, false);
    expect_idle(&k, 2);
    expect_idle(&k, 3);
    /* flag: producers as before with a release, consumers of pair p on chiplet 1 */
    cr_assert(wl_flag.next_kernel(f.self, &k));
    cr_expect_str_eq(k.name, "flag");
    cr_expect_eq(kernel_nwg(&k), 4);
    expect_producer(&k, 0, data->base, flags->base, 2, true);
    expect_producer(&k, 1, data->base + 2048, flags->base + 256, 2, true);
    expect_consumer(&k, 2, data->base, flags->base, 2, 7, SCOPE_GPU);
    expect_consumer(&k, 3, data->base + 2048, flags->base + 256, 2, 7, SCOPE_GPU);
    cr_expect_not(wl_flag.next_kernel(f.self, &k));
    fw_close(&f);
}

Test(flag, same_chiplet_and_other_gpu_layouts)
{
    struct fw f;
    cr_assert(fw_try(&f, "[workload]\nplace = same_chiplet\npairs = 2\ndata_b = 1040\n"
                         "scope = sys\n", 2, 1), "%s", f.e.msg);
    const struct kernel_buf *flags = f.env.bufs[0], *data = f.env.bufs[1];
    cr_expect_eq(data->size, 2 * 1280, "blocks 256 B apart");
    struct kernel k;
    cr_assert(wl_flag.next_kernel(f.self, &k));
    cr_assert(wl_flag.next_kernel(f.self, &k));
    cr_expect_eq(kernel_nwg(&k), 8);
    /* chiplet 0 takes WGs 0..3: producer, consumer, producer, consumer */
    struct kernel_warp w;
    warp_of(&w, &k, 2);
    struct kernel_op op = step(&k, &w);
    expect_store(op, data->base + 1280, ~0ull, 16, SCOPE_CTA, SEM_WEAK);
    op = step(&k, &w);
    expect_store(op, data->base + 2304, 1, 16, SCOPE_CTA, SEM_WEAK); /* 16 B: one lane */
    expect_store(step(&k, &w), flags->base + 256, 1, 4, SCOPE_SYS, SEM_RELEASE);
    warp_of(&w, &k, 3);
    op = step(&k, &w);
    cr_expect_eq(op.base, flags->base + 256);
    cr_expect_eq(op.scope, SCOPE_SYS);
    for (uint32_t wg = 4; wg < 8; wg++)
        expect_idle(&k, wg);
    fw_close(&f);

    /* 2 GPUs of 2 chiplets: consumers on chiplet 2, GPU 1's first */
    cr_assert(fw_try(&f, "[workload]\nplace = other_gpu\n", 4, 2), "%s", f.e.msg);
    cr_assert(wl_flag.next_kernel(f.self, &k));
    cr_assert(wl_flag.next_kernel(f.self, &k));
    cr_expect_eq(kernel_nwg(&k), 4);
    expect_producer(&k, 0, f.env.bufs[1]->base, f.env.bufs[0]->base, 4, true);
    expect_idle(&k, 1);
    expect_consumer(&k, 2, f.env.bufs[1]->base, f.env.bufs[0]->base, 4, 1000, SCOPE_GPU);
    expect_idle(&k, 3);
    fw_close(&f);
}

static void expect_error(const char *ini, unsigned nch, unsigned ngpus, const char *want)
{
    struct fw f;
    cr_expect_null(fw_try(&f, ini, nch, ngpus), "accepted: %s", ini);
    cr_expect_str_eq(f.e.msg, want);
    fw_close(&f);
}

Test(flag, parameter_errors)
{
    expect_error("[workload]\ndata_b = 100\n", 2, 1,
                 "t.ini:2: [workload] data_b = 100: not a multiple of 16");
    expect_error("[workload]\nplace = other_chiplet\n", 1, 1,
                 "t.ini:2: [workload] place = other_chiplet: needs at least 2 chiplets per GPU "
                 "(the system has 1)");
    expect_error("[workload]\nplace = other_chiplet\n", 2, 2,
                 "t.ini:2: [workload] place = other_chiplet: needs at least 2 chiplets per GPU "
                 "(the system has 1)");
    expect_error("[workload]\nplace = other_gpu\n", 4, 1,
                 "t.ini:2: [workload] place = other_gpu: needs at least 2 GPUs (the system has "
                 "1)");
    /* 2 CUs of 16 slots per chiplet: 32 work-groups at once */
    expect_error("[workload]\npairs = 33\n", 2, 1,
                 "t.ini:2: [workload] pairs = 33: 33 work-groups of one warp must be resident "
                 "at once on one chiplet, which has 2 CUs of 16 warp slots");
    expect_error("[workload]\nplace = same_chiplet\npairs = 17\n", 2, 1,
                 "t.ini:3: [workload] pairs = 17: 34 work-groups of one warp must be resident "
                 "at once on one chiplet, which has 2 CUs of 16 warp slots");
    struct fw f;
    cr_expect(fw_try(&f, "[workload]\npairs = 32\n", 2, 1), "%s", f.e.msg);
    fw_close(&f);
}

Test(flag, without_the_checker_is_a_configuration_error)
{
    char *dir = cli_tmpdir();
    char *json = xasprintf("%s/out.json", dir);
    const char *argv[] = {"run", "-c", "configs/tiny.ini", "-w", "flag", "-p",
                          "check.enable=false", "--json", json, NULL};
    struct cli_result r = cli_exec(argv);
    cr_expect_eq(r.status, 2, "status %d: %s", r.status, r.err);
    cr_expect(strstr(r.err, "[workload] name = flag: needs the coherence checker's data "
                            "versions (check.enable = true)"), "%s", r.err);
    cr_expect_eq(access(json, F_OK), -1, "no result file");
    cr_expect_str_eq(r.out, "");
    cli_result_free(&r);
    free(json);
    rmdir(dir);
    free(dir);
}

/* A whole run on configs/tiny.ini plus `ini`: every consumer saw its flag
 * (none gave up) and read its producer's data; returns the spin re-issues.
 * syncs: the releases (and as many acquires) the run makes. */
static uint64_t run_syncs(const char *ini, unsigned syncs)
{
    struct err e;
    struct machine *m = machine_new_wl(ini, &wl_flag, &e);
    cr_assert(m, "%s", e.msg);
    cr_assert_eq(machine_run(m), SIM_DONE, "%s", ini);
    cr_expect_eq(m->g.cp.st.kernels, 2);
    cr_expect_eq(machine_stat(m, "core.spins_exhausted"), 0, "%s", ini);
    cr_expect_eq(machine_stat(m, "core.stale_fresh_loads"), 0, "%s", ini);
    cr_expect_eq(machine_stat(m, "checker.stale_reads"), 0, "%s", ini);
    cr_expect_eq(machine_stat(m, "core.releases"), syncs, "%s", ini);
    cr_expect_eq(machine_stat(m, "core.acquires"), syncs, "%s", ini);
    uint64_t spins = machine_stat(m, "core.spin_retries");
    machine_free(m);
    return spins;
}

/* one st.release per producer, one ld.acquire per consumer */
static uint64_t run_sees_flag(const char *ini, unsigned pairs) { return run_syncs(ini, pairs); }

Test(flag, one_chiplet_sees_the_flag_under_every_scheme)
{
    static const char *const schemes[] = {"viper", "ideal", "cpelide", "hmg"};
    for (int i = 0; i < 4; i++) {
        char ini[256];
        snprintf(ini, sizeof ini, "[gpu]\nchiplets = 1\n[coherence]\nscheme = %s\n"
                 "[workload]\nplace = same_chiplet\npairs = 3\n", schemes[i]);
        run_sees_flag(ini, 3);
        snprintf(ini, sizeof ini, "[gpu]\nchiplets = 1\n[coherence]\nscheme = %s\n"
                 "[workload]\nplace = same_chiplet\nscope = sys\n", schemes[i]);
        run_sees_flag(ini, 1);
    }
}

#define ARTIFACT_D4 "remote_read_alloc = requester_yes\nremote_store = write_back\n"

/* Across chiplets and across GPUs, under every scheme and both readings of
 * D4: with preread, the consumer's caches hold copies of the data that the
 * producer's stores make stale, which its acquire must drop (a handshake
 * orders the preread before those stores). */
Test(flag, every_scheme_sees_the_flag_and_fresh_data_across_chiplets_and_gpus)
{
    static const char *const schemes[] = {"viper", "ideal", "cpelide", "hmg"};
    static const char *const places[][2] = {{"other_chiplet", "gpu"}, {"other_gpu", "sys"}};
    for (int i = 0; i < 4; i++)
        for (int d = 0; d < 2; d++)
            for (int p = 0; p < 2; p++) {
                char ini[512];
                snprintf(ini, sizeof ini, "[gpu]\ngpus = 2\n[coherence]\nscheme = %s\n%s"
                         "[workload]\nplace = %s\nscope = %s\npreread = true\n",
                         schemes[i], d ? ARTIFACT_D4 : "", places[p][0], places[p][1]);
                run_syncs(ini, 2); /* the consumer's ready, the producer's flag */
            }
    /* a bigger data block: the consumer polls before the flag is set */
    cr_expect_gt(run_sees_flag("[workload]\nplace = other_chiplet\ndata_b = 65536\n", 1), 0,
                 "the consumer polled before the flag was set");
}

/* The must-fire side: an acquire that drops nothing leaves the preread
 * copies in place, and the consumer reads stale data. */
static uint64_t stale_of(const char *ini)
{
    struct err e;
    struct machine *m = machine_new_wl(ini, &wl_flag, &e);
    cr_assert(m, "%s", e.msg);
    cr_assert_eq(machine_run(m), SIM_DONE, "%s", ini);
    uint64_t n = machine_stat(m, "checker.sync_stale_reads");
    machine_free(m);
    return n;
}

Test(flag, an_acquire_that_drops_nothing_makes_the_checker_fire)
{
    static const char *const faults[] = {
        "[coherence]\nscheme = viper\nfault = skip_acquire_inv\n",
        "[coherence]\nscheme = viper\nfault = skip_acquire_inv\n" ARTIFACT_D4,
        "[coherence]\nscheme = ideal\nfault = no_drop\n"};
    for (int i = 0; i < 3; i++) {
        char ini[512];
        snprintf(ini, sizeof ini, "%s[workload]\nplace = other_chiplet\npreread = true\n",
                 faults[i]);
        cr_expect_gt(stale_of(ini), 0, "%s", ini);
    }
}
