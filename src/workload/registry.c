/*
 * registry.c -- the one list of workloads. Adding a workload is one extern
 * and one line here.
 */
#include "wl.h"

extern const struct wl_ops wl_chase, wl_stream, wl_vecadd, wl_square;
extern const struct wl_ops wl_rnn_gru_small, wl_rnn_gru_large, wl_rnn_lstm_small,
    wl_rnn_lstm_large, wl_cnn;

const struct wl_ops *const wl_registry[] = {
    &wl_chase,
    &wl_stream,
    &wl_vecadd,
    &wl_square,
    &wl_rnn_gru_small,
    &wl_rnn_gru_large,
    &wl_rnn_lstm_small,
    &wl_rnn_lstm_large,
    &wl_cnn,
    NULL,
};
