/*
 * gpu.h -- a whole machine: the memory system (memsys.h), one CU and one
 * LDS per compute unit, the command processors, the coherence scheme chosen
 * in [coherence] scheme, the coherence checker and the energy model. This is
 * what `chipsim run` builds; the summary it reports is the stable contract
 * for tools (docs/summary.md).
 */
#ifndef CHIPSIM_GPU_H
#define CHIPSIM_GPU_H

#include <jansson.h>

#include "coherence/checker.h"
#include "energy/energy.h"
#include "gpu/cp.h"
#include "gpu/cu.h"
#include "gpu/memsys.h"
#include "mem/lds.h"

struct gpu {
    struct sim *s;
    struct memsys ms;
    struct cu_params cup;
    struct lds *lds;             /* [ncu] */
    struct cu *cu;               /* [ncu] */
    struct cp cp;
    struct chk chk;
    const struct coh_ops *coh;
    void *coh_self;
    struct energy_params energy;
    uint64_t page_b;
};

/* Every section the machine reads (the scheme's own keys: gpu_define_scheme). */
void gpu_define_sections(struct cfg *c);
/* Add the keys of the scheme named in [coherence] scheme; -1 if unknown. */
int gpu_define_scheme(struct cfg *c, struct err *e);
int gpu_build(struct gpu *g, struct sim *s, const struct cfg *c, struct err *e);
void gpu_free(struct gpu *g);
void gpu_reg_stats(struct gpu *g, struct stats *st);
/* The summary object (docs/summary.md). */
json_t *gpu_summary(const struct gpu *g, const struct stats *st);

#endif
