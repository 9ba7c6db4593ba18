/*
 * lds.h -- the Local Data Share: AMD's per-CU software-managed scratchpad
 * (shared memory in NVIDIA terms). Not cached and not part of coherence.
 *
 * Modelled: a fixed load-to-use latency (Table I of the CPElide paper: 64 KB,
 * 65 cycles), `banks` banks of `bank_b`-byte words (word w lives in bank
 * w % banks), bank conflicts evaluated over groups of `lanes_per_cycle` lanes
 * (GCN serves a 64-lane wavefront as two 32-lane halves), broadcast of one
 * word to every lane that names it, and one port: back-to-back instructions
 * issued in the same cycle queue behind each other.
 *
 * Abstracted (see docs/dram.md): each lane accesses the single bank_b word
 * holding its address (wider ds_read_b64/b128 are issued as several
 * accesses by the caller); writes are timed like reads; the data itself is
 * not stored; lds_access() is a timing oracle the CU calls at issue time.
 */
#ifndef CHIPSIM_LDS_H
#define CHIPSIM_LDS_H

#include "config/cfg.h"
#include "engine/sim.h"

struct stats;

struct lds_params {
    uint32_t size_kib;        /* capacity per CU */
    uint32_t lat;             /* load-to-use of a conflict-free access, cycles */
    uint32_t banks;
    uint32_t bank_b;          /* bytes per bank word */
    uint32_t lanes_per_cycle; /* lanes whose bank conflicts are resolved together */
    bool conflicts;           /* false: every access is conflict-free */
};

extern const struct cfg_key lds_keys[];

int lds_params_from_cfg(const struct cfg_sec *sec, struct lds_params *p, struct err *e);

struct lds_stats {
    uint64_t accesses;             /* accepted lds_access() calls */
    uint64_t writes;               /* of which writes */
    uint64_t bank_conflict_cycles; /* extra port cycles caused by bank conflicts */
};

#define LDS_MAX_LANES 64
/* lds_access() result for an access that names an address >= the LDS size. */
#define LDS_ERR_RANGE UINT32_MAX

struct lds {
    struct lds_params p;
    const struct sim *s;
    const struct clock *clk;
    uint32_t size_b;
    uint64_t next_free;  /* first cycle (of clk) the port is free */
    uint8_t bank_shift;  /* log2(bank_b) when bank_b and banks are powers of two, */
    uint32_t bank_mask;  /* and banks - 1: then word = addr >> shift, bank = word & mask; */
    bool pow2;           /* else the divisions */
    uint8_t *nwords;     /* per bank: distinct words seen in the current group */
    uint32_t *words;     /* banks x lanes_per_cycle scratch: those words */
    unsigned err_lane;   /* after LDS_ERR_RANGE: the first offending lane */
    uint32_t err_addr;   /* ... and its address */
    struct lds_stats st;
};

/* clk is the CU's clock: latencies and the port are counted in its cycles.
 * Invalid params are a programming error here (BUG). */
void lds_init(struct lds *l, const struct sim *s, const struct clock *clk,
              const struct lds_params *p);
void lds_free(struct lds *l);
void lds_reg_stats(struct lds *l, struct stats *st, const char *prefix);

/* One LDS instruction issued at the current simulated time by lanes
 * [0, nlanes) with bit i of active_mask set (nlanes <= 64). Returns the
 * number of cycles of clk, counted from the next clock edge (as for
 * sim_after_cycles()), until the data is usable:
 *     wait for the port + lat + bank-conflict cycles,
 * and occupies the port for one cycle per lane group with an active lane
 * plus its conflict cycles. An address >= the LDS size returns LDS_ERR_RANGE
 * with err_lane/err_addr set and changes nothing: the caller decides. */
uint32_t lds_access(struct lds *l, const uint32_t *lane_addr, uint64_t active_mask,
                    unsigned nlanes, bool write);

#endif
