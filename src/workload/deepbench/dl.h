/*
 * dl.h -- what the DL layer workloads (dl-fc, dl-rnn, dl-lstm, dl-conv)
 * share: one GEMM launch of mlk.h's tiled GEMM from its three operands, and
 * the geometry of a one-thread-per-element kernel. Each model lists
 * MLK_GEMM_DESCS first among its descriptions.
 */
#ifndef CHIPSIM_DL_H
#define CHIPSIM_DL_H

#include "mlk.h"

/* A GEMM operand: a matrix in buf from element off, rows ld elements apart. */
struct dl_mat {
    const struct kernel_buf *buf;
    uint64_t off;
    uint32_t ld;
};

/* l: C (m x n) = op(A) op(B) over k, in layout lay (mlk.h), C += when beta. */
void dl_gemm(struct kdw_launch *l, enum mlk_layout lay, struct dl_mat a, struct dl_mat b,
             struct dl_mat c, uint32_t m, uint32_t n, uint32_t k, bool beta);

#define DL_EW_BLOCK 256

/* l: description prog over n elements, DL_EW_BLOCK threads per work-group. */
void dl_ew(struct kdw_launch *l, unsigned prog, uint64_t n);

#endif
