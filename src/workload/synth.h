/*
 * synth.h -- synthetic memory traffic: every CU issues a fixed number of
 * requests into its L1 with a bounded number in flight, following one of a
 * few address patterns. It exercises the memory hierarchy on its own (the
 * demo run and the memory benchmarks) before any kernel model exists.
 *
 * Patterns: `stream` (each CU walks its own contiguous region, requests of
 * req_b bytes), `random` (uniform over the shared footprint, aligned to
 * req_b), `chase` (one dependent request at a time over a random permutation
 * of the footprint's lines; outstanding is forced to 1).
 */
#ifndef CHIPSIM_SYNTH_H
#define CHIPSIM_SYNTH_H

#include "config/cfg.h"
#include "gpu/memsys.h"
#include "stats/stats.h"

enum synth_pattern { SYNTH_STREAM, SYNTH_RANDOM, SYNTH_CHASE };

struct synth_params {
    enum synth_pattern pattern;
    uint64_t requests;     /* per CU */
    uint64_t footprint_b;  /* per CU for stream, shared for random/chase */
    unsigned write_pct;
    unsigned outstanding;  /* per CU */
    unsigned req_b;
    unsigned active_cus;   /* 0 = all */
};

extern const struct cfg_key synth_keys[];
int synth_params_from_cfg(const struct cfg_sec *sec, struct synth_params *p, struct err *e);

struct synth_cu;

struct synth {
    struct sim *s;
    struct memsys *ms;
    struct synth_params p;
    struct synth_cu *cu;
    unsigned ncu;
    uint64_t *chain;       /* chase: next line index per line */
    struct {
        uint64_t issued, completed, reads, writes, latency_ps, bytes;
    } st;
    ps_t first_issue, last_done;
};

void synth_init(struct synth *g, struct sim *s, struct memsys *ms, const struct synth_params *p);
void synth_free(struct synth *g);
void synth_start(struct synth *g);
void synth_reg_stats(struct synth *g, struct stats *st, const char *prefix);

#endif
