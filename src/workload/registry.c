/*
 * registry.c -- the one list of workloads. Adding a workload is one extern
 * and one line here.
 */
#include "wl.h"

const struct wl_ops *const wl_registry[] = {
    NULL,
};
