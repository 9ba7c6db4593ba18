/*
 * cache_tb.h -- the test bench of the cache tests: one cache over a mock
 * lower level that records every request it receives (kind, flags, address,
 * size, byte mask, home, time, site), stamps a version on READ responses and
 * answers after a fixed delay (or a longer one for one line, or never), and
 * the responses to the requests the test issues (tag, time, versions).
 * Times are picoseconds; the clock is 1000 MHz, so CY ps make a cycle.
 */
#ifndef CHIPSIM_TEST_CACHE_TB_H
#define CHIPSIM_TEST_CACHE_TB_H

#include "mem/cache.h"

#define CY 1000 /* ps per cycle */
#define NREC 256

struct rec {
    uint8_t kind, flags;
    addr_t addr;
    uint32_t size;
    uint64_t mask[2];
    uint16_t home;
    ps_t t;
    uint16_t site;
};

struct lower {
    ps_t delay;
    ps_t slow_delay;  /* for requests to slow_addr, if non-zero */
    addr_t slow_addr;
    bool hold;        /* never answer (watchdog test) */
    uint64_t version; /* stamped on READ responses */
    int n;
    struct rec rec[NREC];
};

struct tb {
    struct sim s;
    struct clock clk;
    struct lower low;
    struct cache c;
    int ndone;
    uint64_t done_tag[NREC];
    ps_t done_t[NREC];
    uint64_t done_version[NREC]; /* version of the first word each response covers */
    uint32_t done_word1[NREC];   /* version of word 1 in each response */
    int nops;
    ps_t op_t[8];
    int64_t probe_line;          /* cache_find(probe_addr) at a probe's time */
    addr_t probe_addr;
};

/* A cache with parameters p over the mock lower level (10 cycles' delay). */
struct tb *tb_new(const struct cache_params *p);
/* Frees everything, after checking that no request leaked. */
void tb_free(struct tb *t);
/* A request of `kind` for [addr, addr + len) issued at `when` (writes carry
 * the line-relative byte mask); its response lands in the done_* arrays. The
 * caller may adjust the request before `when`. */
struct req *tb_issue(struct tb *t, ps_t when, uint8_t kind, addr_t addr, uint32_t len,
                     uint64_t tag);

#endif
