/*
 * hmg.h -- what the HMG scheme shows of its state, for tests and traces.
 */
#ifndef CHIPSIM_HMG_H
#define CHIPSIM_HMG_H

#include <stdbool.h>
#include <stdint.h>

#include "mem/req.h"

/* The directory entry of chiplet `node` covering address a: true (state V)
 * with its sharer vector in *sharers (bit i: a GPM of node's GPU by its
 * index there for i below the chiplets per GPU, else GPU i minus that;
 * under mode = flat, chiplet i), false (state I) if node tracks none.
 * self: the scheme's state (coh_ops.create's result). */
bool hmg_dir_lookup(const void *self, unsigned node, addr_t a, uint64_t *sharers);

#endif
