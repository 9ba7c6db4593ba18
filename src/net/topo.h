/*
 * topo.h -- the shape of the simulated system: G GPUs x C chiplets per GPU x
 * K CUs per chiplet, each chiplet with its L2 banks, LLC (L3) slices and HBM
 * stacks, chiplets of one GPU joined by a crossbar or a ring and GPUs joined
 * by a switch, point-to-point links or a tree (net.h). Every unit has a global index, and these helpers convert
 * between global and hierarchical coordinates, so no structure assumes a
 * single GPU. Stat names follow the same hierarchy: gpu0.chiplet1.cu5.l1d.
 */
#ifndef CHIPSIM_TOPO_H
#define CHIPSIM_TOPO_H

#include "base/base.h"
#include "config/cfg.h"

struct topo {
    unsigned gpus;            /* G */
    unsigned chiplets;        /* C, per GPU */
    unsigned cus;             /* K, per chiplet */
    unsigned l2_banks;        /* per chiplet */
    unsigned llc_slices;      /* per chiplet */
    bool l3_per_gpu;          /* [l3] size_kib is a GPU's total (l3_sizing = gpu_total) */
    unsigned hbm_stacks;      /* per chiplet */
    double gpu_mhz;           /* core clock */
    unsigned chiplet_net;     /* enum net_fabric (net.h): chiplets' network */
    unsigned gpu_net;         /* enum net_gpunet (net.h): GPUs' network */
};

extern const struct cfg_key topo_keys[];
int topo_from_cfg(const struct cfg_sec *sec, struct topo *t, struct err *e);

static inline unsigned topo_nchiplets(const struct topo *t) { return t->gpus * t->chiplets; }
static inline unsigned topo_ncus(const struct topo *t) { return topo_nchiplets(t) * t->cus; }
/* Global chiplet index of a global CU index, and the GPU of a global chiplet. */
static inline unsigned topo_cu_chiplet(const struct topo *t, unsigned cu) { return cu / t->cus; }
static inline unsigned topo_chiplet_gpu(const struct topo *t, unsigned ch) { return ch / t->chiplets; }
static inline unsigned topo_cu_gpu(const struct topo *t, unsigned cu)
{
    return topo_chiplet_gpu(t, topo_cu_chiplet(t, cu));
}
/* Index of a chiplet within its GPU, and of a CU within its chiplet. */
static inline unsigned topo_chiplet_local(const struct topo *t, unsigned ch) { return ch % t->chiplets; }
static inline unsigned topo_cu_local(const struct topo *t, unsigned cu) { return cu % t->cus; }
static inline bool topo_same_gpu(const struct topo *t, unsigned ch_a, unsigned ch_b)
{
    return topo_chiplet_gpu(t, ch_a) == topo_chiplet_gpu(t, ch_b);
}

/* Hierarchical names ("gpu0.chiplet2", "gpu0.chiplet2.cu17") into buf. */
const char *topo_chiplet_name(const struct topo *t, unsigned ch, char *buf, size_t n);
const char *topo_cu_name(const struct topo *t, unsigned cu, char *buf, size_t n);

#endif
