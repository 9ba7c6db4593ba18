/*
 * report.h -- JSON forms of the statistics and the atomic writer used for
 * every result file (write a temporary file beside the target, fsync, rename:
 * a reader never sees a half-written result, and a failed run leaves none).
 */
#ifndef CHIPSIM_REPORT_H
#define CHIPSIM_REPORT_H

#include <jansson.h>

#include "stats/stats.h"

/* {"name": value, ...} in registry order, plus "sections": [{"name":..,
 * "stats": {...non-zero deltas...}}] when sections were kept. */
json_t *stats_to_json(const struct stats *st);

int json_write_atomic(const char *path, json_t *root, struct err *e);
/* The same for n bytes of text. */
int report_write_atomic(const char *path, const char *data, size_t n, struct err *e);

/* Peak resident set size of this process, KiB. */
uint64_t report_peak_rss_kib(void);

#endif
