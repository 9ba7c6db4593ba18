/*
 * Traces run end to end: the small traces in tests/data/trace under every
 * scheme with exact counts, per-class latencies, xz input, memory that
 * follows the resident blocks, scoped instructions (their ops' scope and
 * strength), bad traces (exit 2, file:line, no result file), and golden runs of the real traces in ../shared/data (or
 * $CHIPSIM_SHARED/data) on configs/qv100.ini, configs/h100.ini and
 * configs/mcm-4chiplet.ini. The golden figures come from
 * tools/trace_stats.py, which reads the trace files on its own (docs/trace.md).
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli_util.h"
#include "machine.h"
#include "trace_util.h"
#include "wl_harness.h"

extern const struct wl_ops wl_trace;

/* ---- helpers ------------------------------------------------------------------------------ */

/* `chipsim run -q -c config --json tmp args...` in this process; the result. */
static json_t *run(const char *config, const char *const *args)
{
    char json[] = "/tmp/chipsim-trace-XXXXXX";
    int fd = mkstemp(json);
    cr_assert_geq(fd, 0);
    close(fd);
    const char *argv[40] = {"run", "-q", "-c", config, "--json", json};
    int n = 6;
    for (; args && *args; args++)
        argv[n++] = *args;
    argv[n] = NULL;
    FILE *null = freopen("/dev/null", "w", stdout);
    cr_assert(null);
    cr_assert_eq(cli_run(n, (char **)argv), 0, "%s run failed", config);
    json_error_t je;
    json_t *j = json_load_file(json, 0, &je);
    cr_assert(j, "%s", je.text);
    unlink(json);
    return j;
}

static uint64_t summary(json_t *j, const char *key)
{
    return (uint64_t)json_integer_value(json_object_get(json_object_get(j, "summary"), key));
}

/* Sum of the counters named `suffix` or ending in ".suffix". */
static uint64_t stat(json_t *j, const char *suffix)
{
    json_t *st = json_object_get(j, "stats");
    const char *k;
    json_t *v;
    uint64_t sum = 0;
    size_t ls = strlen(suffix);
    json_object_foreach(st, k, v) {
        size_t lk = strlen(k);
        if (!strcmp(k, suffix) || (lk > ls && k[lk - ls - 1] == '.' && !strcmp(k + lk - ls, suffix)))
            sum += (uint64_t)json_integer_value(v);
    }
    return sum;
}

static uint64_t mstat(struct machine *m, const char *suffix) { return machine_stat(m, suffix); }

static struct machine *trace_machine(const char *list, const char *extra)
{
    char ini[1024];
    snprintf(ini, sizeof ini, "[workload]\npath = %s\n%s", list, extra ? extra : "");
    struct err e;
    struct machine *m = machine_new_wl(ini, &wl_trace, &e);
    cr_assert(m, "%s", e.msg);
    return m;
}

/* ---- the small traces in tests/data/trace ------------------------------------------------ */

/* Counts read off tests/data/trace by hand: kernel 1 has 2 blocks of 2 warps
 * (32 instructions: 4 LDG, 4 STG, 2 STS, 2 LDS, 1 STL.64, 4 BAR, 1 MEMBAR);
 * kernel 2 has 2 blocks of 2 warps of which 2 are absent (12 instructions:
 * LDG.64 x2, LD to global, LD to the shared window, ATOMG, RED, LDGSTS, STG);
 * kernel 3 has 3 blocks, block 1 absent (6 instructions: 2 LDG, 1 STG). */
Test(trace_run, fixture_counts_under_every_scheme)
{
    const char *schemes[] = {"viper", "ideal", "cpelide", "hmg"};
    for (int i = 0; i < 4; i++) {
        char extra[128];
        snprintf(extra, sizeof extra, "[coherence]\nscheme = %s\n[check]\nannotations = true\n",
                 schemes[i]);
        struct machine *m = trace_machine("tests/data/trace/kernelslist.g", extra);
        cr_assert_eq(machine_run(m), SIM_DONE);
        cr_expect_eq(m->g.cp.st.kernels, 3);
        cr_expect_eq(m->g.cp.st.wgs, 7);
        cr_expect_eq(mstat(m, "core.warp_insts"), 50, "%s", schemes[i]);
        cr_expect_eq(mstat(m, "trace.warps"), 11);
        cr_expect_eq(mstat(m, "trace.warps_absent"), 3);
        cr_expect_eq(mstat(m, "trace.tbs_absent"), 1);
        cr_expect_eq(mstat(m, "trace.global_loads"), 10);
        cr_expect_eq(mstat(m, "trace.global_stores"), 6);
        cr_expect_eq(mstat(m, "trace.global_atomics"), 2);
        cr_expect_eq(mstat(m, "trace.shared_loads"), 3);
        cr_expect_eq(mstat(m, "trace.shared_stores"), 2);
        cr_expect_eq(mstat(m, "trace.local_stores"), 1);
        cr_expect_eq(mstat(m, "trace.async_copies"), 1);
        cr_expect_eq(mstat(m, "trace.barriers"), 4);
        cr_expect_eq(mstat(m, "core.barriers"), 2, "one per block of kernel 1");
        cr_expect_eq(mstat(m, "lds.accesses"), 5, "2 STS, 2 LDS, 1 LD to shared");
        cr_expect_eq(mstat(m, "cp.memcpys"), 2);
        cr_expect_eq(mstat(m, "system.memcpy.pages_placed"), 3);
        cr_expect_eq(mstat(m, "checker.stale_reads"), 0, "%s", schemes[i]);
        cr_expect_eq(mstat(m, "checker.annotation_violations"), 0);
        machine_free(m);
    }
}

/* tests/data/trace copies 8 KiB to 0x7f0000000000 and 4 KiB to
 * 0x7f0000010000 before kernel 1, which reads and writes only there (and
 * local and shared memory). */
Test(trace_run, host_copies_place_pages_and_warm_the_l2)
{
    struct machine *m = trace_machine("tests/data/trace/kernelslist.g",
                                      "kernels = 1\n[coherence]\nscheme = ideal\n"
                                      "[cp]\nmemcpy_warm_l2 = true\n");
    cr_assert_eq(machine_run(m), SIM_DONE);
    /* page p on chiplet p mod 2 (tiny.ini has 2 chiplets) */
    for (addr_t a = 0x7f0000000000ull; a < 0x7f0000002000ull; a += 4096)
        cr_expect_eq(place_lookup(&m->g.ms.place, a), (int)((a >> 12) % 2));
    cr_expect_eq(place_lookup(&m->g.ms.place, 0x7f0000010000ull), (int)((0x7f0000010000ull >> 12) % 2));
    cr_expect_eq(mstat(m, "system.memcpy.pages_placed"), 3);
    cr_expect_eq(mstat(m, "system.memcpy.l2_lines_warmed"), (8192 + 4096) / 64);
    cr_expect_eq(mstat(m, "system.memcpy.l2_lines_not_warmed"), 0);
    cr_expect_eq(mstat(m, "dram.reads"), 0, "every global line was copied, so warmed");
    cr_expect_eq(mstat(m, "checker.stale_reads"), 0);
    machine_free(m);
    /* without the warm-up the same loads go to memory */
    m = trace_machine("tests/data/trace/kernelslist.g",
                      "kernels = 1\n[coherence]\nscheme = ideal\n[cp]\nmemcpy_place = kernel\n");
    cr_assert_eq(machine_run(m), SIM_DONE);
    cr_expect_gt(mstat(m, "dram.reads"), 0);
    cr_expect_eq(mstat(m, "system.memcpy.pages_placed"), 0, "the kernel's accesses place them");
    machine_free(m);
}

/* One warp of ten FFMAs, each reading the previous one's result or not. */
static uint64_t ffma_run_ps(bool dependent, const char *extra)
{
    char *dir = tu_dir();
    char body[2048];
    int n = snprintf(body, sizeof body, "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 11\n");
    for (int i = 0; i < 10; i++)
        n += snprintf(body + n, sizeof body - (size_t)n, "%04x ffffffff 1 R%d FFMA 3 R%d R%d R%d 0 0\n",
                      16 * i, dependent ? 1 : i + 1, dependent ? 1 : 20, dependent ? 1 : 20,
                      dependent ? 1 : 20);
    snprintf(body + n, sizeof body - (size_t)n, "00a0 ffffffff 0 EXIT 0 0 0\n#END_TB\n");
    char *k = tu_kernel(5, 0, NULL, body);
    free(tu_write(dir, "kernel-1.traceg", k, 0));
    char *list = tu_write(dir, "kernelslist.g", "kernel-1.traceg\n", 0);
    struct machine *m = trace_machine(list, extra);
    cr_assert_eq(machine_run(m), SIM_DONE);
    cr_expect_eq(mstat(m, "core.warp_insts"), 11);
    uint64_t ps = m->g.cp.st.run_ps / m->g.ms.gpu_clk.period;
    machine_free(m);
    free(list);
    free(k);
    tu_rmdir(dir);
    return ps;
}

Test(trace_run, class_latency_and_issue_interval)
{
    /* Volta's table: FFMA result after 5 cycles, issue every 2. Dependent:
     * FFMAs at 0, 5, .., 45, the exit at 47; independent: 0, 2, .., 18, the
     * exit at 20; the rest of the kernel's time is the same. */
    cr_expect_eq(ffma_run_ps(true, NULL) - ffma_run_ps(false, NULL), 27);
    /* overridden: 7 cycles, issue every 3: 63 + 3 against 30 */
    const char *ov = "lat_ffma = 7\nii_ffma = 3\n";
    cr_expect_eq(ffma_run_ps(true, ov) - ffma_run_ps(false, ov), 36);
}

/* A kernel of nblocks blocks of 256 threads, each warp loading and storing a line. */
static char *many_blocks(unsigned nblocks)
{
    size_t cap = (size_t)nblocks * 8 * 200 + 1024, n = 0;
    char *body = malloc(cap);
    for (unsigned b = 0; b < nblocks; b++) {
        n += (size_t)snprintf(body + n, cap - n, "#BEGIN_TB\nthread block = %u,0,0\n", b);
        for (unsigned w = 0; w < 8; w++)
            n += (size_t)snprintf(body + n, cap - n,
                                  "warp = %u\ninsts = 3\n0000 ffffffff 1 R4 LDG.E 1 R2 4 1 0x%llx 4 0\n"
                                  "0010 ffffffff 0 STG.E 2 R2 R4 4 1 0x%llx 4 0\n"
                                  "0020 ffffffff 0 EXIT 0 0 0\n",
                                  w, 0x7f0000000000ull + (b * 8 + w) * 128ull,
                                  0x7f4000000000ull + (b * 8 + w) * 128ull);
        n += (size_t)snprintf(body + n, cap - n, "#END_TB\n");
    }
    char *k = tu_kernel(5, 0, NULL, body);
    free(body);
    /* the template's grid is (2,1,1) and its block (64,1,1): widen both */
    char *g = strstr(k, "(2,1,1)"), *bl = strstr(k, "(64,1,1)");
    char *out = xasprintf("%.*s(%u,1,1)%.*s(256,1,1)%s", (int)(g - k), k, nblocks,
                          (int)(bl - (g + 7)), g + 7, bl + 8);
    free(k);
    return out;
}

Test(trace_run, memory_follows_the_resident_blocks)
{
    char *dir = tu_dir();
    char *k = many_blocks(64);
    free(tu_write(dir, "kernel-1.traceg", k, 0));
    char *list = tu_write(dir, "kernelslist.g", "kernel-1.traceg\n", 0);
    struct machine *m = trace_machine(list, NULL);
    cr_assert_eq(machine_run(m), SIM_DONE);
    cr_expect_eq(mstat(m, "trace.tbs"), 64);
    cr_expect_eq(mstat(m, "core.warp_insts"), 64 * 8 * 3);
    /* tiny.ini: 4 CUs of 16 warp slots hold 2 blocks of 8 warps each */
    cr_expect_leq(mstat(m, "trace.resident_tbs_peak"), 8);
    cr_expect_geq(mstat(m, "trace.resident_tbs_peak"), 4);
    /* each block's records: 8 warps x (24 + 16 + 24 + 16 + 24) bytes */
    cr_expect_leq(mstat(m, "trace.resident_bytes_peak"), 8 * 2 * 8 * 104);
    machine_free(m);
    free(list);
    free(k);
    tu_rmdir(dir);
}

/* ---- scopes (docs/trace.md 3.1) -------------------------------------------------------------- */

/* One warp of every scoped form: what it becomes, in order. */
static const char scoped_body[] =
    "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 15\n"
    "0000 ffffffff 0 CCTL.IVALL 0 0 0\n"
    "0010 ffffffff 1 R2 LDG.E.STRONG.GPU 1 R4 4 1 0x7f0000000100 4 0\n"
    "0020 ffffffff 0 CCTL.IVALL 0 0 0\n"
    "0030 ffffffff 0 MEMBAR.SC.SYS 0 0 0\n"
    "0040 ffffffff 0 ERRBAR 0 0 0\n"
    "0050 ffffffff 0 CCTL.IVALL 0 0 0\n"
    "0060 ffffffff 0 MEMBAR.ALL.GPU 0 0 0\n"
    "0070 ffffffff 0 STG.E.STRONG.SYS 2 R4 R2 4 1 0x7f0000000200 4 0\n"
    "0080 ffffffff 1 R3 LDG.E.SYS 1 R4 4 1 0x7f0000000300 4 0\n"
    "0090 ffffffff 1 R5 ATOMG.E.ADD.STRONG.GPU 2 R4 R2 4 1 0x7f0000000400 4 0\n"
    "00a0 ffffffff 0 RED.E.ADD.STRONG.SYS 2 R4 R2 4 1 0x7f0000000500 4 0\n"
    "00b0 ffffffff 1 R6 LD.E.STRONG.GPU 1 R4 4 1 0x7f1000000010 4 0\n"
    "00c0 00000000 0 CCTL.IVALL 0 0 0\n"
    "00d0 ffffffff 0 CCTL.E.PF2 0 0 0\n"
    "00e0 ffffffff 0 EXIT 0 0 0\n#END_TB\n";

Test(trace_run, scoped_instructions_become_scoped_ops)
{
    static const struct {
        uint8_t kind, scope, sem;
    } want[] = {
        {KOP_FENCE, SCOPE_GPU, SEM_ACQUIRE},  /* CCTL.IVALL, no scoped instruction yet */
        {KOP_LOAD, SCOPE_GPU, SEM_RELAXED},   /* with the next: ld.acquire.gpu */
        {KOP_FENCE, SCOPE_GPU, SEM_ACQUIRE},
        {KOP_FENCE, SCOPE_SYS, SEM_ACQ_REL},  /* MEMBAR.SC.SYS */
        {KOP_ALU, SCOPE_CTA, SEM_WEAK},       /* ERRBAR */
        {KOP_FENCE, SCOPE_SYS, SEM_ACQUIRE},  /* the MEMBAR's scope */
        {KOP_FENCE, SCOPE_GPU, SEM_ACQ_REL},  /* with the next: st.release.sys */
        {KOP_STORE, SCOPE_SYS, SEM_RELAXED},
        {KOP_LOAD, SCOPE_CTA, SEM_WEAK},      /* LDG.E.SYS: a plain load */
        {KOP_ATOMIC, SCOPE_GPU, SEM_RELAXED},
        {KOP_ATOMIC, SCOPE_SYS, SEM_RELAXED},
        {KOP_LDS_LOAD, SCOPE_CTA, SEM_WEAK},  /* generic, to the shared window */
        {KOP_ALU, SCOPE_CTA, SEM_WEAK},       /* predicated off */
        {KOP_ALU, SCOPE_CTA, SEM_WEAK},       /* a CCTL that invalidates nothing */
        {KOP_EXIT, SCOPE_CTA, SEM_WEAK},
    };
    char *dir = tu_dir();
    char *k = tu_kernel(5, 0, NULL, scoped_body);
    free(tu_write(dir, "kernel-1.traceg", k, 0));
    char *list = tu_write(dir, "kernelslist.g", "kernel-1.traceg\n", 0);
    char *ini = xasprintf("[workload]\npath = %s\n", list);
    struct wlh h;
    cr_assert(wlh_try(&h, &wl_trace, ini, 2, 4), "%s", h.e.msg);
    struct kernel kern;
    cr_assert(h.ops->next_kernel(h.self, &kern));
    struct kernel_warp w;
    wlh_warp_at(&w, &kern, 0, 0);
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        struct kernel_op op = wlh_step(&kern, &w);
        cr_expect_eq(op.kind, want[i].kind, "op %zu: kind %u", i, op.kind);
        cr_expect_eq(op.scope, want[i].scope, "op %zu: scope %u", i, op.scope);
        cr_expect_eq(op.sem, want[i].sem, "op %zu: sem %u", i, op.sem);
    }
    wlh_close(&h);

    /* run: every fence of GPU or system scope acquires, MEMBARs also release */
    struct machine *m = trace_machine(list, NULL);
    cr_assert_eq(machine_run(m), SIM_DONE);
    cr_expect_eq(mstat(m, "core.warp_insts"), 15);
    cr_expect_eq(mstat(m, "trace.strong_accesses"), 4, "LDG, STG, ATOMG, RED");
    cr_expect_eq(mstat(m, "trace.l1_invalidates"), 4);
    cr_expect_eq(mstat(m, "trace.membars"), 2);
    cr_expect_eq(mstat(m, "core.fences"), 5);
    cr_expect_eq(mstat(m, "core.acquires"), 5);
    cr_expect_eq(mstat(m, "core.releases"), 2);
    machine_free(m);
    free(ini);
    free(list);
    free(k);
    tu_rmdir(dir);
}

Test(trace_run, xz_kernels_run_like_plain_ones)
{
    char *dir = tu_dir();
    const char *names[] = {"kernel-1.traceg", "kernel-2.traceg", "kernel-3.traceg"};
    for (int i = 0; i < 3; i++) {
        char src[64], *text;
        snprintf(src, sizeof src, "tests/data/trace/%s", names[i]);
        FILE *f = fopen(src, "rb");
        cr_assert(f);
        text = calloc(1, 1 << 16);
        cr_assert(fread(text, 1, (1 << 16) - 1, f) > 0);
        fclose(f);
        char xz[64];
        snprintf(xz, sizeof xz, "%s.xz", names[i]);
        free(tu_write(dir, xz, text, 1));
        free(text);
    }
    char *list = tu_write(dir, "kernelslist.g",
                          "MemcpyHtoD,0x00007f0000000000,8192\nMemcpyHtoD,0x00007f0000010000,4096\n"
                          "kernel-1.traceg.xz\nkernel-2.traceg.xz\nkernel-3.traceg.xz\n", 0);
    uint64_t got[2][4];
    for (int x = 0; x < 2; x++) {
        /* every block read again: the decoders skip to each */
        struct machine *m = trace_machine(x ? list : "tests/data/trace/kernelslist.g",
                                          "keep_mib = 0\n");
        cr_assert_eq(machine_run(m), SIM_DONE);
        got[x][0] = mstat(m, "core.warp_insts");
        got[x][1] = mstat(m, "l1d.accesses");
        got[x][2] = m->g.cp.last_end;
        got[x][3] = mstat(m, "trace.bytes_checked");
        machine_free(m);
    }
    for (int i = 0; i < 4; i++)
        cr_expect_eq(got[0][i], got[1][i], "figure %d: %llu vs %llu", i,
                     (unsigned long long)got[0][i], (unsigned long long)got[1][i]);
    free(list);
    tu_rmdir(dir);
}

Test(trace_run, unknown_opcodes_run_as_integer_ops_and_warn_once)
{
    char *dir = tu_dir();
    char *k = tu_kernel(5, 0, NULL,
                        "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 3\n"
                        "0000 ffffffff 1 R4 FROB.X 0 0 0\n0010 ffffffff 1 R5 FROB.Y 1 R4 0 0\n"
                        "0020 ffffffff 0 EXIT 0 0 0\n#END_TB\n");
    free(tu_write(dir, "kernel-1.traceg", k, 0));
    char *list = tu_write(dir, "kernelslist.g", "kernel-1.traceg\nkernel-1.traceg\n", 0);
    char *json = xasprintf("%s/out.json", dir);
    const char *argv[] = {"run", "-q", "-c", "configs/tiny.ini", "--trace", list, "--json", json,
                          "-p", "workload.kernels=1", NULL};
    struct cli_result r = cli_exec(argv);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.err, "kernel-1.traceg:21: unknown opcode FROB (binary version 70): timed "
                            "as a generic integer operation"), "%s", r.err);
    cr_expect_eq(strstr(r.err, "FROB") ? strstr(strstr(r.err, "FROB") + 1, "FROB") : NULL, NULL,
                 "one warning for FROB, whatever its modifiers: %s", r.err);
    json_error_t je;
    json_t *j = json_load_file(json, 0, &je);
    cr_assert(j, "%s", je.text);
    cr_expect_eq(summary(j, "kernels"), 1, "workload.kernels = 1");
    cr_expect_eq(stat(j, "trace.unknown_opcodes"), 1);
    cr_expect_eq(stat(j, "trace.unknown_insts"), 2);
    cr_expect_eq(summary(j, "warp_insts"), 3, "the one warp listed");
    json_decref(j);
    cli_result_free(&r);
    free(json);
    free(list);
    free(k);
    tu_rmdir(dir);
}

/* ---- bad traces ---------------------------------------------------------------------------- */

static void expect_bad(const char *kernel_text, const char *list_text, const char *want)
{
    char *dir = tu_dir();
    if (kernel_text)
        free(tu_write(dir, "kernel-1.traceg", kernel_text, 0));
    char *list = tu_write(dir, "kernelslist.g", list_text ? list_text : "kernel-1.traceg\n", 0);
    char *json = xasprintf("%s/out.json", dir);
    const char *argv[] = {"run", "-c", "configs/tiny.ini", "--trace", list, "--json", json, NULL};
    struct cli_result r = cli_exec(argv);
    cr_expect_eq(r.status, 2, "status %d, stderr: %s", r.status, r.err);
    cr_expect(strstr(r.err, want), "stderr: %s\nwanted: %s", r.err, want);
    cr_expect_eq(access(json, F_OK), -1, "no output file may be left behind");
    cr_expect_str_eq(r.out, "", "nothing on stdout for bad input");
    cli_result_free(&r);
    free(json);
    free(list);
    tu_rmdir(dir);
}

Test(trace_run, bad_traces_exit_2_with_file_and_line)
{
    char *k = tu_kernel(5, 0, NULL, "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2\n"
                                    "0000 ffffffff 0 NOP 0 0 0\n");
    expect_bad(k, NULL, "kernel-1.traceg:21: truncated file: warp 0: insts = 2 but 1 instruction lines follow");
    free(k);
    k = tu_kernel(5, 0, "-max threads = 4\n", "");
    expect_bad(k, NULL, "kernel-1.traceg:14: unknown header key 'max threads'");
    free(k);
    k = tu_kernel(5, 0, NULL, "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n"
                              "0000 ffffffff 1 R4 LDG.E 1 R2 4 0 0x1 0\n#END_TB\n");
    expect_bad(k, NULL, "kernel-1.traceg:21: wrong count: mask ffffffff has 32 active lanes, the address list has 2");
    free(k);
    k = tu_kernel(5, 0, NULL, "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n"
                              "0000 ffffffff 1 R4 LDG.E 1 R2 4 1 0x1q 4 0\n#END_TB\n");
    expect_bad(k, NULL, "kernel-1.traceg:21: malformed instruction line: expected a hexadecimal base address, found '0x1q'");
    free(k);
    expect_bad(NULL, "MemcpyHtoD,0xfoo,12\n", "kernelslist.g:1: bad hex address in MemcpyHtoD");
    expect_bad(NULL, "\nkernel-1.traceg\n", "kernelslist.g:2: cannot open kernel file ");
    expect_bad(NULL, "\n", "kernelslist.g: the list names no kernel file");
    /* a block of 2048 threads needs 64 warp slots; tiny.ini's CUs have 16 */
    k = tu_kernel(5, 0, NULL, "");
    char *big = strstr(k, "(64,1,1)");
    char *k2 = xasprintf("%.*s(1024,2,1)%s", (int)(big - k), k, big + 8);
    expect_bad(k2, NULL, "needs 64 warps of 32 threads; a CU of this configuration has 16 warp slots");
    free(k2);
    free(k);
    const char *argv[] = {"run", "-c", "configs/tiny.ini", "-w", "trace", NULL};
    struct cli_result r = cli_exec(argv);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "[workload] path = : no trace given"), "%s", r.err);
    cli_result_free(&r);
}

/* ---- the real traces (../shared/data) ------------------------------------------------------- */

#define NEED_SHARED(var, name)                                                                   \
    char *var = tu_shared_list(name);                                                            \
    if (!var) {                                                                                  \
        fprintf(stderr, "skipped: ../shared/data/%s is absent (set CHIPSIM_SHARED to the "        \
                "shared directory)\n", name);                                                     \
        cr_skip_test("../shared/data/%s is absent", name);                                       \
    }

static json_t *run_trace(const char *config, const char *list, const char *p1, const char *p2)
{
    const char *args[8] = {"--trace", list};
    int n = 2;
    if (p1) {
        args[n++] = "-p";
        args[n++] = p1;
    }
    if (p2) {
        args[n++] = "-p";
        args[n++] = p2;
    }
    return run(config, args);
}

/* vectorAdd, from tools/trace_stats.py on its kernelslist.g: 196 blocks of 8
 * warps, 26,601 instruction lines, 3,126 LDG.E and 1,563 STG.E (4 B per lane,
 * base+stride 4, arrays 128-byte aligned); a warp-wide coalescer makes one
 * request of a 128 B line per instruction (4,689) and two of 64 B lines,
 * except for the three instructions of the one half-active warp (mask
 * 0000ffff): 2 x 4,689 - 3 = 9,375. */
Test(trace_run, golden_vectoradd)
{
    NEED_SHARED(list, "accelsim-vectoradd");
    struct {
        const char *config;
        uint64_t lines;
    } runs[] = {{"configs/qv100.ini", 4689}, {"configs/mcm-4chiplet.ini", 9375}};
    for (int i = 0; i < 2; i++) {
        json_t *j = run_trace(runs[i].config, list, NULL, NULL);
        cr_expect_eq(stat(j, "cp.wgs"), 196);
        cr_expect_eq(stat(j, "trace.warps"), 1568);
        cr_expect_eq(summary(j, "warp_insts"), 26601);
        cr_expect_eq(stat(j, "trace.global_loads"), 3126);
        cr_expect_eq(stat(j, "trace.global_stores"), 1563);
        cr_expect_eq(stat(j, "core.mem_insts"), 3126 + 1563);
        cr_expect_eq(stat(j, "core.load_lines") + stat(j, "core.store_lines"), runs[i].lines,
                     "%s", runs[i].config);
        cr_expect_eq(summary(j, "l1_accesses"), runs[i].lines);
        cr_expect_eq(summary(j, "stale_reads"), 0);
        json_decref(j);
    }
    free(list);
}

/* Blocks kept from the check (workload.keep_mib) run exactly as blocks read
 * again at dispatch: every counter and figure of the 33-kernel backprop
 * trace is the same with none kept, with the first blocks kept until 1 MiB
 * is used, and with all kept; only what the dispatch reads differs. */
Test(trace_run, kept_blocks_run_like_blocks_read_again)
{
    NEED_SHARED(list, "accelsim-rodinia-backprop-h100");
    const char *keep[3] = {"workload.keep_mib=0", "workload.keep_mib=1", "workload.keep_mib=256"};
    json_t *j[3];
    uint64_t kept[3], read[3];
    for (int i = 0; i < 3; i++) {
        j[i] = run_trace("configs/tiny.ini", list, keep[i], NULL);
        kept[i] = stat(j[i], "trace.blocks_kept");
        read[i] = stat(j[i], "trace.bytes_read");
        json_t *st = json_object_get(j[i], "stats");
        json_object_del(st, "trace.blocks_kept");
        json_object_del(st, "trace.bytes_read");
        json_object_del(json_object_get(json_object_get(j[i], "config"), "workload"), "keep_mib");
        json_object_del(j[i], "sim"); /* wall time */
    }
    cr_expect_eq(kept[0], 0);
    cr_expect(kept[1] > 0 && kept[1] < 1169, "1 MiB keeps part of the blocks: %llu",
              (unsigned long long)kept[1]);
    cr_expect_eq(kept[2], 1169, "every block");
    cr_expect(read[0] > read[1] && read[1] > 0, "%llu, %llu", (unsigned long long)read[0],
              (unsigned long long)read[1]);
    cr_expect_eq(read[2], 0);
    for (int i = 1; i < 3; i++)
        cr_expect(json_equal(j[0], j[i]), "%s changed a result", keep[i]);
    for (int i = 0; i < 3; i++)
        json_decref(j[i]);
    free(list);
}

/* Per trace, from tools/trace_stats.py: kernels, blocks, instruction lines,
 * LDG, STG, LDL, STL, and L1 requests of 64 B and 128 B lines (local memory
 * laid out as chipsim lays it, docs/trace.md). */
static const struct golden {
    const char *name;
    uint64_t kernels, tbs, insts, loads, stores, lloads, lstores, lines64, lines128;
} goldens[] = {
    {"accelsim-vectoradd", 1, 196, 26601, 3126, 1563, 0, 0, 9375, 4689},
    {"accelsim-rodinia-btree-h100", 2, 16, 43664, 16960, 64, 3856, 8448, 246930, 226826},
    {"accelsim-rodinia-backprop-h100", 33, 1169, 79040, 7424, 2321, 0, 0, 54938, 49297},
};

static void check_golden(json_t *j, const struct golden *g, const char *config, unsigned line_b)
{
    cr_expect_eq(summary(j, "kernels"), g->kernels, "%s %s", g->name, config);
    cr_expect_eq(stat(j, "cp.wgs"), g->tbs, "%s %s", g->name, config);
    cr_expect_eq(summary(j, "warp_insts"), g->insts, "%s %s", g->name, config);
    cr_expect_eq(stat(j, "trace.global_loads"), g->loads, "%s %s", g->name, config);
    cr_expect_eq(stat(j, "trace.global_stores"), g->stores, "%s %s", g->name, config);
    cr_expect_eq(stat(j, "trace.local_loads"), g->lloads, "%s %s", g->name, config);
    cr_expect_eq(stat(j, "trace.local_stores"), g->lstores, "%s %s", g->name, config);
    cr_expect_eq(stat(j, "trace.unknown_opcodes"), 0);
    cr_expect_eq(summary(j, "l1_accesses"), line_b == 64 ? g->lines64 : g->lines128,
                 "%s %s: %llu", g->name, config, (unsigned long long)summary(j, "l1_accesses"));
    cr_expect_eq(summary(j, "stale_reads"), 0, "%s %s", g->name, config);
}

/* One trace on the three machines. */
static void on_three_machines(const struct golden *g)
{
    const struct {
        const char *config;
        unsigned line_b;
    } machines[] = {{"configs/qv100.ini", 128}, {"configs/h100.ini", 128},
                    {"configs/mcm-4chiplet.ini", 64}};
    NEED_SHARED(list, g->name);
    for (size_t i = 0; i < 3; i++) {
        json_t *j = run_trace(machines[i].config, list, NULL, NULL);
        check_golden(j, g, machines[i].config, machines[i].line_b);
        json_decref(j);
    }
    free(list);
}

Test(trace_run, golden_vectoradd_on_three_machines) { on_three_machines(&goldens[0]); }
Test(trace_run, golden_btree_on_three_machines) { on_three_machines(&goldens[1]); }
Test(trace_run, golden_backprop_on_three_machines) { on_three_machines(&goldens[2]); }

/* The other schemes on the chiplet GPU, with warmed L2s (viper ran above). */
static void every_scheme(const struct golden *g)
{
    const char *schemes[] = {"coherence.scheme=ideal", "coherence.scheme=cpelide",
                             "coherence.scheme=hmg"};
    NEED_SHARED(list, g->name);
    for (int i = 0; i < 3; i++) {
        json_t *j = run_trace("configs/mcm-4chiplet.ini", list, schemes[i], "cp.memcpy_warm_l2=true");
        check_golden(j, g, schemes[i], 64);
        json_decref(j);
    }
    free(list);
}

Test(trace_run, btree_under_every_scheme) { every_scheme(&goldens[1]); }
Test(trace_run, backprop_under_every_scheme) { every_scheme(&goldens[2]); }

static char *without_wall_figures(json_t *j)
{
    json_t *sim = json_object_get(j, "sim");
    const char *k[] = {"wall_s", "events_per_s", "warp_insts_per_s", "mem_reqs_per_s",
                       "peak_rss_kib"};
    for (int i = 0; i < 5; i++)
        json_object_del(sim, k[i]);
    return json_dumps(j, JSON_SORT_KEYS);
}

Test(trace_run, same_trace_twice_is_identical)
{
    NEED_SHARED(list, "accelsim-rodinia-btree-h100");
    json_t *a = run_trace("configs/mcm-4chiplet.ini", list, "coherence.scheme=cpelide", NULL);
    json_t *b = run_trace("configs/mcm-4chiplet.ini", list, "coherence.scheme=cpelide", NULL);
    char *sa = without_wall_figures(a), *sb = without_wall_figures(b);
    cr_expect(strlen(sa) > 10000);
    cr_expect_str_eq(sa, sb);
    free(sa);
    free(sb);
    json_decref(a);
    json_decref(b);
    free(list);
}
