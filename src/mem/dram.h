/*
 * dram.h -- the HBM/DRAM behind one home node (one chiplet's HBM stack).
 *
 * Modelled: channels with their own data bus, banks with an open row and a
 * ready time, row hit / closed row / row conflict latencies (tCL, tRCD, tRP,
 * tRAS), a fixed pipelined controller latency, open or closed page policy,
 * and the bus time of each burst (the bandwidth limit). A burst takes the
 * earliest free bus slot at or after its data is ready, so bursts of
 * different banks return out of arrival order (FR-FCFS-like between banks).
 * Everything is computed in closed form when a request arrives: a few
 * arithmetic operations, a short bitmap scan and one event per access.
 *
 * Abstracted (see docs/dram.md): FCFS per bank (no row-hit-first reordering
 * within a bank), writes cost the same as reads (no tWR/tWTR/turnaround), no
 * refresh, no tRRD/tFAW, a request is mapped by its first byte. Defaults
 * approximate HBM2 at 1000 MHz (Radeon VII class, the CPElide paper's
 * Table I: "16 GB HBM, 4H stacks, 1000 MHz").
 */
#ifndef CHIPSIM_DRAM_H
#define CHIPSIM_DRAM_H

#include "config/cfg.h"
#include "mem/req.h"
#include "mem/shadow.h"

struct stats;

enum dram_page_policy { DRAM_PAGE_OPEN, DRAM_PAGE_CLOSED };

struct dram_params {
    uint32_t channels;        /* independent channels, each with its own bus */
    uint32_t banks;           /* banks per channel */
    uint32_t row_b;           /* row buffer (page) size per bank */
    uint32_t burst_b;         /* bytes moved per burst: the access granularity */
    uint32_t bus_b_per_cycle; /* data bytes per memory clock per channel */
    uint32_t interleave_b;    /* channel interleave granularity */
    double mhz;               /* memory clock */
    uint32_t tcl, trcd, trp;  /* memory cycles */
    uint32_t tras;            /* min activate-to-precharge; 0 = not modelled */
    uint32_t ctrl_lat;        /* controller latency, memory cycles, every access */
    uint32_t twl;             /* write latency: column command to write data (0: tcl) */
    uint32_t trrd, trc;       /* activate to activate: other bank, same bank (0: off) */
    uint32_t bank_groups;     /* bank groups per channel, group = bank % groups (0: none) */
    uint32_t tccdl;           /* column to column in one bank group (0: off) */
    char addr_map[72];        /* channel-local bit map, MSB first: R row, B bank, C column,
                                 S byte in burst ("" = whole rows per bank) */
    uint64_t map_bank, map_row; /* derived from addr_map by dram_init(): which
                                   channel-local bits are bank and row bits */
    enum dram_page_policy page_policy;
    uint32_t bus_window;      /* bus cycles of reservations tracked per channel,
                                 a multiple of 64; 0 = DRAM_BUS_WINDOW */
};

#define DRAM_BUS_WINDOW 65536u

extern const struct cfg_key dram_keys[];

/* Read the keys of a resolved section and check cross-key constraints. */
int dram_params_from_cfg(const struct cfg_sec *sec, struct dram_params *p, struct err *e);

/* Where an address lives. Address map (docs/dram.md):
 *   channel = (addr / interleave_b) % channels
 *   local   = channel-local byte address (the channel digits removed)
 *   bank    = (local / row_b) % banks, row = local / (row_b * banks),
 *   col_b   = local % row_b
 * or, with addr_map, bank and row gathered from the local bits it names
 * (GPGPU-Sim's address decoder). */
struct dram_loc {
    uint32_t channel, bank, col_b;
    uint64_t row;
};
struct dram_loc dram_map(const struct dram_params *p, addr_t addr);

struct dram_stats {
    uint64_t reads, writes;
    uint64_t row_hits, row_misses, row_conflicts;
    uint64_t bytes_read, bytes_written;
    uint64_t read_sectors, write_sectors; /* 32 B sectors of the requests' byte masks */
    uint64_t busy_cycles;   /* bus-busy memory cycles, summed over channels */
    uint64_t bus_reordered; /* bursts placed before an earlier request's burst */
    uint64_t bus_overflows; /* bursts appended after the last reservation because
                               no free slot fitted inside the bus window */
};

#define DRAM_ROW_NONE UINT64_MAX

/* Times are absolute memory-clock cycles. */
struct dram_bank {
    uint64_t open_row; /* DRAM_ROW_NONE when precharged */
    uint64_t ready;    /* earliest next command */
    uint64_t act;      /* last activate, for tRAS */
};

/* One channel's data bus: which cycles of the window [base_w * 64,
 * base_w * 64 + bus_window) are reserved, as a ring of bits (cycle c is bit
 * c % 64 of word (c / 64) % words), and the end of the last reservation.
 * Cycles past the window and before `tail` count as reserved. */
struct dram_bus {
    uint64_t *bits;
    uint64_t base_w; /* first word of the window */
    uint64_t tail;   /* end cycle of the latest-ending reservation */
};

struct dram {
    struct dram_params p;
    char *name;
    struct clock own_clk;
    const struct clock *clk;
    struct dram_bank *bank;  /* channels x banks, channel-major */
    struct dram_bus *bus;    /* per channel */
    uint64_t *last_act;      /* per channel: its latest activate, for tRRD */
    uint64_t *bus_bits;      /* channels x bus_words, allocated at init */
    struct dram_bus *grp;    /* channels x bank_groups: column windows (tCCDL), or NULL */
    uint64_t *grp_bits;
    uint64_t bus_words;      /* bus_window / 64 */
    uint64_t pending;        /* accepted, not yet completed */
    struct shadow *shadow;   /* data versions of memory (checker), or NULL */
    unsigned line_b;         /* line size that write masks refer to */
    struct dram_stats st;
};

/* Keep data versions in sh: reads return them, writes store them. Write
 * masks are relative to lines of line_b bytes. */
void dram_set_shadow(struct dram *d, struct shadow *sh, unsigned line_b);

/* clk may be NULL: the DRAM then runs on its own clock at p->mhz (the usual
 * case). Invalid params are a programming error here (BUG); user input is
 * checked by dram_params_from_cfg(). Registers a watchdog probe named
 * `name`; free the DRAM only after the last sim_run(). */
void dram_init(struct dram *d, struct sim *s, const char *name, const struct clock *clk,
               const struct dram_params *p);
void dram_free(struct dram *d);
void dram_reg_stats(struct dram *d, struct stats *st, const char *prefix);

/* The request side: READ and ATOMIC count as reads, WRITE and WRITEBACK as
 * writes; the request completes at the end of its data burst's bus slot. */
struct mem_port dram_port(struct dram *d);

#endif
