/*
 * setup.h -- turning a command line into a resolved configuration: the
 * options shared by every command that runs simulations (-c, -p, -w, --json),
 * the list of configuration sections of the whole machine, and resolution.
 */
#ifndef CHIPSIM_SETUP_H
#define CHIPSIM_SETUP_H

#include "config/cfg.h"

struct run_opts {
    const char **configs;   /* -c files, in order */
    size_t nconfigs;
    const char **overrides; /* -p section.key=value, in order */
    size_t noverrides;
    const char *json;       /* --json FILE or NULL */
    const char *workload;   /* -w NAME or NULL */
    const char *trace;      /* --trace PATH: -w trace -p workload.path=PATH */
    bool print_stats;       /* --stats */
    bool quiet;             /* --quiet: no config echo */
};

void setup_free_args(struct run_opts *o);

/* Define every section, load the files and overrides, resolve. */
int setup_config(struct cfg *c, const struct run_opts *o, struct err *e);
/* Only the section definitions (for `chipsim list params`), including the
 * keys of every scheme and every workload under their own names. */
void setup_define_sections(struct cfg *c);
void setup_define_all(struct cfg *c);

struct wl_ops;
/* Workload w's small (test) size as overrides "workload.KEY=VALUE", each
 * newly allocated, into out[0 ..] (NULL: only counted); returns how many. */
size_t setup_small_overrides(const struct wl_ops *w, char **out);

#endif
