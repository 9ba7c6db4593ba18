/*
 * registry.c -- the one list of workloads. Adding a workload is one extern
 * and one line here.
 */
#include "wl.h"

extern const struct wl_ops wl_chase, wl_stream, wl_vecadd, wl_square;

const struct wl_ops *const wl_registry[] = {
    &wl_chase,
    &wl_stream,
    &wl_vecadd,
    &wl_square,
    NULL,
};
