/*
 * bench.h -- shared by the benchmarks of bench-core.
 */
#ifndef CHIPSIM_BENCH_H
#define CHIPSIM_BENCH_H

/* Monotonic wall time in seconds. */
double bench_now(void);
/* The simulator's distance from a bare functional replay of the L1 request
 * stream of `chipsim run -c config args` (args: "-w", NAME, "-p", KEY=VALUE,
 * ..., NULL), each replay the fastest of reps; sim_ns: the simulator's wall
 * time per L1 access on the same run (bench_limit.c). */
void bench_limit(const char *config, const char *const *args, unsigned reps, double sim_ns);

#endif
