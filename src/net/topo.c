/*
 * topo.c -- topology keys ([gpu] section) and naming helpers.
 */
#include "topo.h"

#include <stdio.h>

const struct cfg_key topo_keys[] = {
    {"gpus", CFG_INT, "1", 1, 64, "number of GPUs (packages) in the system", NULL},
    {"chiplets", CFG_INT, "4", 1, 64, "chiplets per GPU", NULL},
    {"cus_per_chiplet", CFG_INT, "60", 1, 1024, "compute units per chiplet", NULL},
    {"l2_banks", CFG_INT, "8", 1, 256, "L2 banks per chiplet", NULL},
    {"llc_slices", CFG_INT, "1", 0, 256,
     "last-level cache (L3) slices per chiplet (0: no L3, L2 misses go to the HBM)", NULL},
    {"l3_sizing", CFG_ENUM, "gpu_total", 0, 0,
     "gpu_total: [l3] size_kib is one GPU's whole L3, split evenly over its chiplets' slices "
     "(Table I: 16 MB for every chiplet count; each slice keeps power-of-two sets, so its ways "
     "are rounded down where the split is uneven); per_slice: it is the size of each slice",
     "gpu_total|per_slice"},
    {"hbm_stacks", CFG_INT, "1", 1, 64, "HBM stacks per chiplet", NULL},
    {"clock_mhz", CFG_FLOAT, "1801", 1, 10000, "GPU core clock, MHz", NULL},
    {"chiplet_net", CFG_ENUM, "xbar", 0, 0,
     "network between the chiplets of a GPU: a crossbar ([xbar]) or a bidirectional ring "
     "([ring])", "xbar|ring"},
    {"gpu_net", CFG_ENUM, "switch", 0, 0,
     "network between GPUs: one switch ([gpu_link]), a link between every pair ([gpu_p2p]) or "
     "a PCIe-like tree of switches ([gpu_tree])", "switch|p2p|tree"},
    CFG_END,
};

int topo_from_cfg(const struct cfg_sec *sec, struct topo *t, struct err *e)
{
    *t = (struct topo){
        .gpus = (unsigned)cfg_uint(sec, "gpus"),
        .chiplets = (unsigned)cfg_uint(sec, "chiplets"),
        .cus = (unsigned)cfg_uint(sec, "cus_per_chiplet"),
        .l2_banks = (unsigned)cfg_uint(sec, "l2_banks"),
        .llc_slices = (unsigned)cfg_uint(sec, "llc_slices"),
        .l3_per_gpu = cfg_enum(sec, "l3_sizing") == 0,
        .hbm_stacks = (unsigned)cfg_uint(sec, "hbm_stacks"),
        .gpu_mhz = cfg_float(sec, "clock_mhz"),
        .chiplet_net = cfg_enum(sec, "chiplet_net"),
        .gpu_net = cfg_enum(sec, "gpu_net"),
    };
    if (topo_ncus(t) > 65535)
        return cfg_err(e, sec, "cus_per_chiplet", "more than 65535 CUs in the system");
    return 0;
}

const char *topo_chiplet_name(const struct topo *t, unsigned ch, char *buf, size_t n)
{
    snprintf(buf, n, "gpu%u.chiplet%u", topo_chiplet_gpu(t, ch), topo_chiplet_local(t, ch));
    return buf;
}

const char *topo_cu_name(const struct topo *t, unsigned cu, char *buf, size_t n)
{
    unsigned ch = topo_cu_chiplet(t, cu);
    snprintf(buf, n, "gpu%u.chiplet%u.cu%u", topo_chiplet_gpu(t, ch), topo_chiplet_local(t, ch),
             topo_cu_local(t, cu));
    return buf;
}
