/*
 * dl.h -- what the DL layer workloads (dl-fc, dl-rnn, dl-lstm, dl-conv)
 * share: one GEMM launch of mlk.h's tiled GEMM from its three operands, the
 * GEMMs of a recurrent layer's forward pass, and the geometry of a
 * one-thread-per-element kernel. Each model lists
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

/* A recurrent layer's forward pass (dl-rnn's fw, dl-lstm): G gates of H
 * units, batch B, T steps, input length I. x is T B x I, w G H x I, r
 * G H x H, gates T B x G H; h holds h_{-1} and then h_0 .. h_{T-1}, B x H
 * each. */
struct dl_rec {
    const struct kernel_buf *x, *w, *r, *gates, *h;
    uint32_t g, hid, b, t, in;
};

/* Launch i (of 1 + 2T) of the forward pass: 0 is the input GEMM over all
 * steps (gates = X W^T), 2t + 1 step t's recurrent GEMM (gates_t +=
 * h_{t-1} R^T). Returns false, with *t = step, for 2t + 2: the caller's
 * element-wise kernel. */
bool dl_rec_fw(const struct dl_rec *r, uint64_t i, struct kdw_launch *l, uint64_t *t);

/* The key's value, or preset where it is 0 (a layer preset's dimension). */
uint32_t dl_dim(const struct cfg_sec *sec, const char *key, uint32_t preset);

/* A sanity bound on a layer's simulated footprint. */
#define DL_MAX_B (64ull << 30)

/* 0 if a layer of `bytes` is within DL_MAX_B, else -1 with the reason in e,
 * naming `key`. */
int dl_check_size(const struct cfg_sec *sec, const char *key, uint64_t bytes, struct err *e);

#define DL_EW_BLOCK 256

/* l: description prog over n elements, DL_EW_BLOCK threads per work-group. */
void dl_ew(struct kdw_launch *l, unsigned prog, uint64_t n);

#endif
