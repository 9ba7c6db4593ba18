/*
 * registry.c -- the one list of workloads. Adding a workload is one extern
 * and one line here.
 */
#include "wl.h"

extern const struct wl_ops wl_chase, wl_stream, wl_vecadd, wl_square, wl_flag;
extern const struct wl_ops wl_rnn_gru_small, wl_rnn_gru_large, wl_rnn_lstm_small,
    wl_rnn_lstm_large, wl_cnn;
extern const struct wl_ops wl_bfs, wl_color, wl_sssp, wl_fw;
extern const struct wl_ops wl_backprop, wl_gaussian, wl_hotspot, wl_hotspot3d, wl_lud;
extern const struct wl_ops wl_btree, wl_dwt2d, wl_nw, wl_pathfinder, wl_srad_v2;
extern const struct wl_ops wl_babelstream, wl_hacc, wl_lulesh, wl_pennant;
extern const struct wl_ops wl_trace;
/* the benchmark library: Polybench and CUDA SDK */
extern const struct wl_ops wl_gemm, wl_2mm, wl_3mm, wl_atax, wl_bicg, wl_2dconv;
extern const struct wl_ops wl_transpose, wl_scalarprod, wl_blackscholes, wl_reduction,
    wl_convolution, wl_bitonic, wl_fwt, wl_histogram;
/* the benchmark library: HeteroMark, SHOC, Parboil, Rodinia, Lonestar and the rest */
extern const struct wl_ops wl_aes, wl_fir, wl_kmeans, wl_pagerank, wl_spmv, wl_stencil2d,
    wl_spmv_jds, wl_lbm, wl_cfd, wl_streamcluster, wl_bfs_relax, wl_mst, wl_barnes_hut,
    wl_random_loc;
/* the benchmark library: deep-learning layers */
extern const struct wl_ops wl_dl_fc, wl_dl_rnn, wl_dl_lstm, wl_dl_conv;
/* the benchmark library: HPC applications of HMG */
extern const struct wl_ops wl_cusolver, wl_comd, wl_hpgmg, wl_miniamr, wl_namd, wl_nekbone,
    wl_snap, wl_minicontact;

const struct wl_ops *const wl_registry[] = {
    &wl_chase,
    &wl_stream,
    &wl_vecadd,
    &wl_square,
    &wl_flag,
    &wl_rnn_gru_small,
    &wl_rnn_gru_large,
    &wl_rnn_lstm_small,
    &wl_rnn_lstm_large,
    &wl_cnn,
    &wl_bfs,
    &wl_color,
    &wl_sssp,
    &wl_fw,
    &wl_backprop,
    &wl_gaussian,
    &wl_hotspot,
    &wl_hotspot3d,
    &wl_lud,
    &wl_btree,
    &wl_dwt2d,
    &wl_nw,
    &wl_pathfinder,
    &wl_srad_v2,
    &wl_babelstream,
    &wl_hacc,
    &wl_lulesh,
    &wl_pennant,
    /* the benchmark library: Polybench and CUDA SDK */
    &wl_gemm,
    &wl_2mm,
    &wl_3mm,
    &wl_atax,
    &wl_bicg,
    &wl_2dconv,
    &wl_transpose,
    &wl_scalarprod,
    &wl_blackscholes,
    &wl_reduction,
    &wl_convolution,
    &wl_bitonic,
    &wl_fwt,
    &wl_histogram,
    /* the benchmark library: HeteroMark, SHOC, Parboil, Rodinia, Lonestar and the rest */
    &wl_aes,
    &wl_fir,
    &wl_kmeans,
    &wl_pagerank,
    &wl_spmv,
    &wl_stencil2d,
    &wl_spmv_jds,
    &wl_lbm,
    &wl_cfd,
    &wl_streamcluster,
    &wl_bfs_relax,
    &wl_mst,
    &wl_barnes_hut,
    &wl_random_loc,
    /* the benchmark library: deep-learning layers */
    &wl_dl_fc,
    &wl_dl_rnn,
    &wl_dl_lstm,
    &wl_dl_conv,
    /* the benchmark library: HPC applications of HMG */
    &wl_cusolver,
    &wl_comd,
    &wl_hpgmg,
    &wl_miniamr,
    &wl_namd,
    &wl_nekbone,
    &wl_snap,
    &wl_minicontact,
    &wl_trace,
    NULL,
};
