/*
 * energy.c -- see energy.h and docs/energy.md.
 */
#include "energy.h"

const struct cfg_key energy_keys[] = {
    {"l1i_pj", CFG_FLOAT, "10", 0, 1e9,
     "per L1 instruction-cache access (one per warp instruction fetched), pJ (placeholder)", NULL},
    {"l1d_pj", CFG_FLOAT, "20", 0, 1e9, "per L1 data-cache access of a line, pJ (placeholder)",
     NULL},
    {"lds_pj", CFG_FLOAT, "15", 0, 1e9, "per LDS warp access, pJ (placeholder)", NULL},
    {"l2_pj", CFG_FLOAT, "100", 0, 1e9,
     "per L2 access, hit or miss (tags and data are read either way), pJ (placeholder)", NULL},
    {"l3_pj", CFG_FLOAT, "150", 0, 1e9, "per L3 access, reported with the L2, pJ (placeholder)",
     NULL},
    {"noc_flit_pj", CFG_FLOAT, "13", 0, 1e9,
     "per 16 B flit on a link inside a chiplet (L1-L2, L2-L3), pJ (placeholder)", NULL},
    {"xchip_flit_pj", CFG_FLOAT, "70", 0, 1e9,
     "per 16 B flit crossing between chiplets or GPUs, pJ (placeholder)", NULL},
    {"dram_read_pj", CFG_FLOAT, "2000", 0, 1e9, "per DRAM read request (64 B), pJ (placeholder)",
     NULL},
    {"dram_write_pj", CFG_FLOAT, "2000", 0, 1e9,
     "per DRAM write request (up to 64 B), pJ (placeholder)", NULL},
    CFG_END,
};

void energy_params_from_cfg(const struct cfg_sec *sec, struct energy_params *p)
{
    *p = (struct energy_params){
        .l1i_pj = cfg_float(sec, "l1i_pj"), .l1d_pj = cfg_float(sec, "l1d_pj"),
        .lds_pj = cfg_float(sec, "lds_pj"), .l2_pj = cfg_float(sec, "l2_pj"),
        .l3_pj = cfg_float(sec, "l3_pj"), .noc_flit_pj = cfg_float(sec, "noc_flit_pj"),
        .xchip_flit_pj = cfg_float(sec, "xchip_flit_pj"),
        .dram_read_pj = cfg_float(sec, "dram_read_pj"),
        .dram_write_pj = cfg_float(sec, "dram_write_pj"),
    };
}

void energy_compute(const struct energy_params *p, const struct energy_events *ev,
                    struct energy_split *o)
{
    o->l1i = (double)ev->l1i * p->l1i_pj;
    o->l1d = (double)ev->l1d * p->l1d_pj;
    o->lds = (double)ev->lds * p->lds_pj;
    o->l2 = (double)ev->l2 * p->l2_pj + (double)ev->l3 * p->l3_pj;
    o->noc = (double)ev->noc_flits * p->noc_flit_pj + (double)ev->xchip_flits * p->xchip_flit_pj;
    o->dram = (double)ev->dram_reads * p->dram_read_pj + (double)ev->dram_writes * p->dram_write_pj;
    o->total = o->l1i + o->l1d + o->lds + o->l2 + o->noc + o->dram;
}
