/*
 * mk.h -- "mesh kernels": a small interpreter of per-thread op scripts for
 * the CORAL-2 model pennant, whose kernels are loops over
 * items (elements, nodes, zones, sides, points, particles) that reach other
 * items through connectivity arrays.
 *
 * A kernel is a list of steps run by every thread on its item i: compute
 * (KOP_ALU), global loads/stores at a buffer element computed from i
 * (directly, through a connectivity map, or through the j-th entry of a
 * per-item list inside a loop), LDS accesses and barriers. Loops run either
 * a fixed number of times or, per lane, over the item's list (lanes whose
 * list is shorter are masked off, the warp runs the longest). Each work-group
 * owns a contiguous run of items; arguments declared "item-ranged" get
 * exact per-work-group ranges, the others (indirect access) none.
 * same_pattern is set automatically when the previous kernel that used a
 * buffer declared it item-ranged over the same work-group partition.
 */
#ifndef CHIPSIM_CORAL2_MK_H
#define CHIPSIM_CORAL2_MK_H

#include "workload/wl.h"

#define MK_MAX_BUFS 96
#define MK_MAX_MAPS 32

/* Step kinds beyond enum kernel_op_kind. MK_REDUCE is the usual shared-
 * memory tree reduction over the LDS region `buf` of n slots (0: the
 * work-group size) (a barrier,
 * then threads tid < off combine slot tid + off into slot tid, for off =
 * n/2 .. 1): it issues the barriers, LDS loads (registers 14, 15), one ALU
 * op and the LDS store of each halving step. */
enum { MK_LOOP = 32, MK_END, MK_REDUCE };

/* How a step finds the element of its buffer for item i. */
enum mk_ix {
    MK_ITEM, /* i itself */
    MK_MAP,  /* map(i, kk) */
    MK_LIST, /* the j-th entry of i's list (inside a list loop) */
    MK_LMAP, /* LDS only: map(i, kk) - the work-group's first item (another thread's slot) */
    MK_LPOS, /* the position of i's j-th list entry (inside a list loop): start[i] + j */
    MK_WG,   /* the work-group index; only thread 0 of the work-group is active */
};

/* Step flags. */
enum {
    MK_J = 1,    /* kk = k + j (the loop counter) */
    MK_IF = 2,   /* lane active only where map `pred` (i, kk) is non-zero; a compute
                    step under MK_IF is a branch body, issued only if a lane is active */
    MK_MEAS = 4, /* KOP_F_MEASURE */
};

struct mk_step {
    uint8_t kind;  /* KOP_* or MK_LOOP / MK_END */
    uint8_t buf;   /* buffer slot (memory and LDS steps) */
    uint8_t ix;    /* enum mk_ix */
    uint8_t map;   /* map slot (MK_MAP, MK_LMAP; MK_LIST: list slot; MK_LOOP: list slot or 0) */
    uint8_t k;     /* constant part of kk */
    uint8_t flags; /* MK_J, MK_IF, MK_MEAS */
    uint8_t dst, src0, src1;
    uint8_t pred;  /* map slot tested under MK_IF */
    uint16_t n;    /* KOP_ALU: instructions; MK_LOOP: fixed trip count (0: list loop) */
};

/* A device buffer (or an LDS region when b is NULL): element e of item-index
 * x and plane kk is at base + (x * scale + kk * plane) * esize. */
struct mk_buf {
    const struct kernel_buf *b;
    uint32_t esize, scale;
    uint64_t plane;
    uint32_t lds_off;  /* LDS regions: byte offset in the work-group's LDS */
    /* same_pattern bookkeeping: the partition of the last kernel that used it */
    uint64_t last_sig;
    bool last_ranged;
};

/* A connectivity array in host memory: value(i, kk) = v[i * stride + kk * plane]. */
struct mk_map {
    const int32_t *v;
    uint64_t stride, plane;
};

/* Per-item lists: entries ent[start[i] .. start[i + 1]). */
struct mk_list {
    const uint32_t *start, *ent;
};

struct mk_ctx {
    struct mk_buf buf[MK_MAX_BUFS];
    struct mk_map map[MK_MAX_MAPS];
    struct mk_list list[MK_MAX_MAPS];
    unsigned nbufs;
};

/* A kernel argument: buffer slot, mode, and whether the work-group's items
 * give its range (nplanes planes of the buffer), or, with rfirst, the items
 * [rfirst[wg], rfirst[wg + 1]) (e.g. the zones of a chunk of sides). */
struct mk_arg {
    uint8_t buf, mode, ranged, nplanes;
    const uint32_t *rfirst;
};

#define MK_MAX_ARGS KERNEL_MAX_ARGS

struct mk_kernel {
    const char *name;
    const struct mk_ctx *ctx;
    const struct mk_step *steps;
    unsigned nsteps;
    uint32_t block, lds_b;
    uint32_t nitems;
    const uint32_t *wg_first; /* NULL: linear; else items [wg_first[w], wg_first[w + 1]) */
    uint32_t nwg;             /* with wg_first */
    struct mk_arg args[MK_MAX_ARGS];
    unsigned nargs;
};

/* Add a device buffer of n items (esize bytes, scale elements per item,
 * nplanes planes) to ctx and allocate it; returns its slot. */
unsigned mk_buf(struct mk_ctx *c, struct wl_env *env, const char *name, uint64_t items,
                uint32_t esize, uint32_t scale, unsigned nplanes);
/* An LDS region at byte offset off; returns its slot. */
unsigned mk_lds(struct mk_ctx *c, uint32_t off, uint32_t esize);
/* Declare argument buf of kernel mk. */
void mk_arg(struct mk_kernel *mk, unsigned buf, enum kernel_mode mode, bool ranged,
            unsigned nplanes);
/* Declare argument buf with the ranges [rfirst[wg], rfirst[wg + 1]). */
void mk_arg_rt(struct mk_kernel *mk, unsigned buf, enum kernel_mode mode, const uint32_t *rfirst);
/* Fill k from mk (which must outlive the run) and update same_pattern state. */
void mk_launch(struct mk_ctx *c, const struct mk_kernel *mk, struct kernel *k);
uint32_t mk_nwg(const struct mk_kernel *mk);
/* Items [first, last) of work-group wg. */
void mk_wg_items(const struct mk_kernel *mk, uint32_t wg, uint32_t *first, uint32_t *last);

void mk_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op);
unsigned mk_ranges(const struct kernel *k, uint32_t wg, unsigned arg, struct addr_range *out,
                   unsigned max);

#endif
