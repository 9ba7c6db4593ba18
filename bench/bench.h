/*
 * bench.h -- shared by the benchmarks of bench-core.
 */
#ifndef CHIPSIM_BENCH_H
#define CHIPSIM_BENCH_H

#include <time.h>

/* Monotonic wall time in seconds. */
static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
/* The simulator's distance from a bare functional replay of the L1 request
 * stream of `chipsim run -c config args` (args: "-w", NAME, "-p", KEY=VALUE,
 * ..., NULL), each replay the fastest of reps; sim_ns: the simulator's wall
 * time per L1 access on the same run (bench_limit.c). */
void bench_limit(const char *config, const char *const *args, unsigned reps, double sim_ns);

#endif
