/*
 * sdk.h -- what the CUDA SDK-style models share (src/workload/sdk/): the
 * offsets of a shared-memory tree reduction, the checks of sizes the
 * samples require, a launch's geometry, and the host tables that stand for
 * an index `x mod m` (bitonic sort's and the Walsh transform's butterflies),
 * which an index expression cannot hold.
 */
#ifndef CHIPSIM_SDK_H
#define CHIPSIM_SDK_H

#include "workload/kdw.h"

/* Derived ranges less than a line apart join (the rows of 2D work-groups;
 * the checker tests a line access against one range). */
#define SDK_JOIN 128

/* out[] = from, from / 2, ... down to 1 and above `stop`; how many. */
unsigned sdk_halves(uint32_t *out, uint32_t from, uint32_t stop);

/* The value of key `key` (v); a cfg_err naming it unless v is a multiple of
 * m (what it must be a multiple of, for the message: `what`). */
int sdk_multiple(const struct cfg_sec *sec, const char *key, uint64_t v, uint64_t m,
                 const char *what, struct err *e);
/* A cfg_err naming `key` unless its value v is a power of two. */
int sdk_pow2(const struct cfg_sec *sec, const char *key, uint64_t v, struct err *e);

/* l's description, grid and block. */
void sdk_launch(struct kdw_launch *l, unsigned prog, uint32_t gx, uint32_t gy, uint32_t bx,
                uint32_t by);

/* t[i] = m * floor((i * step) / m) for i < n: the part of index i * step
 * (step a divisor or a multiple of m) that is a multiple of m. */
void sdk_floor_table(uint32_t *t, uint32_t n, uint32_t step, uint32_t m);

#endif
