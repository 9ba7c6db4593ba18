/*
 * lulesh.h -- what lulesh.c (mesh, buffers, the kernels written as mk
 * scripts) and lulesh_wg.c (the kernels whose threads work together through
 * LDS) share: the buffer slots and the LDS kernels' interface.
 */
#ifndef CHIPSIM_CORAL2_LULESH_H
#define CHIPSIM_CORAL2_LULESH_H

#include "workload/coral2/mk.h"

/* Buffer slots, created in this order. */
enum {
    /* nodes */
    B_X, B_Y, B_Z, B_XD, B_YD, B_ZD, B_XDD, B_YDD, B_ZDD, B_FX, B_FY, B_FZ, B_NMASS,
    B_NECOUNT, B_NECORNER, /* nodeElemCornerList: 8 planes of nodes, [i + numNode * j] */
    /* symmetry planes */
    B_SYMMX, B_SYMMY, B_SYMMZ,
    /* elements */
    B_MATEL, B_NODELIST, B_LXIM, B_ELEMBC, /* B_LXIM: lxim, lxip, letam, letap, lzetam, lzetap */
    B_DXX, B_DYY, B_DZZ, B_DELV_XI, B_DELV_ETA, B_DELV_ZETA, B_DELX_XI, B_DELX_ETA, B_DELX_ZETA,
    B_E, B_P, B_Q, B_QL, B_QQ, B_V, B_VOLO, B_VNEW, B_DELV, B_VDOV, B_AREALG, B_SS, B_EMASS,
    /* GPU temporaries */
    B_SIGXX, B_SIGYY, B_SIGZZ, B_DETERM, B_FXE, B_FYE, B_FZE,
    B_DVDX, B_DVDY, B_DVDZ, B_X8N, B_Y8N, B_Z8N,
    B_VNEWC, B_EOLD, B_DELVC, B_POLD, B_QOLD, B_COMPR, B_COMPH, B_QQOLD, B_WORK,
    B_ENEW, B_PNEW, B_QNEW, B_BVC, B_PBVC, B_PHALF,
    B_DTCOUR, B_DTHYDRO,
    NBUF
    /* B_QQOLD holds the EOS copies of qq and ql as two planes, and B_LXIM the six
     * neighbour lists as six, so that EvalEOSForElemsPart1 and
     * CalcMonotonicQRegionForElems fit KERNEL_MAX_ARGS annotated structures */
};

/* The kernels of lulesh_wg.c. */
enum { LW_NONE, LW_HG_CONTROL, LW_FB_HOURGLASS, LW_COURANT, LW_HYDRO };

struct lw_op;

/* A kernel as a list of ops (lulesh_wg.c). mk comes first: k->ctx points at
 * it, so mk_ranges() and mk_launch() serve these kernels too. */
struct lw_kernel {
    struct mk_kernel mk;
    struct lw_op *ops;        /* NULL: an mk script */
    unsigned nops;
    uint32_t per;             /* elements per work-group: block / 8 or block */
    uint32_t nelem;
    const int32_t *nl;        /* nodelist, nl[k * nelem + e] */
};

/* Make k kernel `which` of the mesh: its ops and LDS size, and for the
 * hourglass kernels the partition part8 (the first element of each
 * work-group of block / 8 elements, then nelem; shared by both, so their
 * arguments can be same_pattern). mk.block, mk.ctx and the arguments are
 * the caller's. */
void lw_build(struct lw_kernel *k, int which, const int32_t *nl, uint32_t nelem,
              const uint32_t *part8);
void lw_free(struct lw_kernel *k);
void lw_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op);

#endif
