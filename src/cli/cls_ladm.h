/*
 * cls_ladm.h -- `chipsim classify --ladm` (cls_ladm.c): the locality class
 * of every kernel argument, from the kernel descriptions (spec ladm.md 5).
 */
#ifndef CHIPSIM_CLS_LADM_H
#define CHIPSIM_CLS_LADM_H

#include <stdbool.h>
#include <stddef.h>

struct wl_ops;

struct cls_ladm_args {
    const char *config;        /* the machine */
    const char *const *extra;  /* -p overrides, after the small sizes */
    size_t nextra;
    bool small;                /* each workload at its small size */
    bool (*selected)(const void *sel, const struct wl_ops *w);
    const void *sel;
};

/* Print the table; 0, or 2 when a workload could not be made (the reason
 * printed) or none was selected (nothing printed). */
int cls_ladm(const struct cls_ladm_args *a);

#endif
