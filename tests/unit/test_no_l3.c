/*
 * test_no_l3.c -- on a machine without an L3 whose L2 lines are 128 bytes
 * (configs/qv100.ini), the DRAM keeps the data versions of whole L2 lines,
 * and performs the atomics that every cache above writes through:
 * - gaussian: kernels read what the kernel before wrote back to memory (its
 *   version 0 was read where 1 was due while the DRAM versioned 64-byte
 *   lines);
 * - pennant: its atomics pass HMG-WT's L2 and reach the DRAM (which served
 *   them as reads, and a later read saw version 0 where 229 was due).
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/base.h"
#include "cli_util.h"

Test(no_l3, every_scheme_reads_nothing_stale_with_128_byte_lines)
{
    static const char *const schemes[] = {"viper", "cpelide", "hmg", "ideal"};
    static const char *const workloads[][4] = {
        {"gaussian", "workload.size=30", "workload.size=30", "workload.size=30"},
        {"pennant", "workload.nzx=8", "workload.nzy=6", "workload.cstop=3"},
    };
    char *dir = cli_tmpdir();
    for (int w = 0; w < 2; w++)
        for (int i = 0; i < 4; i++) {
            char *json = xasprintf("%s/out.json", dir),
                 *sch = xasprintf("coherence.scheme=%s", schemes[i]);
            const char *argv[] = {"run", "-q", "-c", "configs/qv100.ini", "-w", workloads[w][0],
                                  "-p", workloads[w][1], "-p", workloads[w][2], "-p",
                                  workloads[w][3], "-p", sch, "--json", json, NULL};
            struct cli_result r = cli_exec(argv);
            cr_assert_eq(r.status, 0, "%s: %s", schemes[i], r.err);
            json_error_t je;
            json_t *j = json_load_file(json, 0, &je);
            cr_assert(j, "%s", je.text);
            json_t *st = json_object_get(json_object_get(j, "summary"), "stale_reads");
            cr_expect_eq(json_integer_value(st), 0, "%s x %s: %lld stale reads", schemes[i],
                         workloads[w][0], (long long)json_integer_value(st));
            json_decref(j);
            cli_result_free(&r);
            unlink(json);
            free(json);
            free(sch);
        }
    rmdir(dir);
    free(dir);
}
