/*
 * energy.h -- memory-subsystem dynamic energy from event counts (spec
 * cpelide 8): energy = sum over events of count x energy per event. The
 * per-event energies are configuration keys ([energy]); the defaults are a
 * placeholder table derived from published figures (docs/energy.md), not
 * values from the CPElide paper, which gives none. Static energy is not
 * modelled.
 */
#ifndef CHIPSIM_ENERGY_H
#define CHIPSIM_ENERGY_H

#include "config/cfg.h"
#include "stats/stats.h"

struct energy_params {
    double l1i_pj, l1d_pj, lds_pj, l2_pj, l3_pj;
    double noc_flit_pj, xchip_flit_pj;
    double dram_read_pj, dram_write_pj;
};

/* Events, from the counters. */
struct energy_events {
    uint64_t l1i, l1d, lds, l2, l3, noc_flits, xchip_flits, dram_reads, dram_writes;
};

struct energy_split {
    double l1i, l1d, lds, l2, noc, dram, total; /* pJ; the L3 is counted with the L2 */
};

extern const struct cfg_key energy_keys[];
void energy_params_from_cfg(const struct cfg_sec *sec, struct energy_params *p);
void energy_compute(const struct energy_params *p, const struct energy_events *ev,
                    struct energy_split *out);

#endif
