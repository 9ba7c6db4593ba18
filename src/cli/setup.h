/*
 * setup.h -- turning a command line into a resolved configuration: the
 * options shared by every command that runs simulations (-c, -p, -w, --json),
 * the list of configuration sections of the whole machine, and resolution.
 */
#ifndef CHIPSIM_SETUP_H
#define CHIPSIM_SETUP_H

#include "config/cfg.h"
#include "gpu/gpu.h"
#include "stats/stats.h"
#include "workload/wl.h"

struct run_opts {
    const char **configs;   /* -c files, in order */
    size_t nconfigs;
    const char **overrides; /* -p section.key=value, in order */
    size_t noverrides;
    const char *json;       /* --json FILE or NULL */
    const char *workload;   /* -w NAME or NULL */
    const char *trace;      /* --trace PATH: -w trace -p workload.path=PATH */
    bool small;             /* --small: the workload's small (test) size */
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

/* A run built from a resolved configuration: the engine, the machine and
 * the workload, as `chipsim run` builds them (and the benchmarks). */
struct setup_machine {
    struct cfg cfg;           /* resolved by setup_config() before setup_build() */
    struct stats st;
    struct sim s;
    struct gpu g;
    struct wl_env env;
    const struct wl_ops *wl;
    void *wl_self;
};

/* The workload's view of built machine g (wl_env_init and what the caller
 * knows of the machine). */
void setup_wl_env(struct wl_env *env, const struct gpu *g, uint64_t seed);
/* Build everything m->cfg describes; -1 with the message in *e (bad
 * workload parameters, cross-key problems). setup_teardown() either way. */
int setup_build(struct setup_machine *m, struct err *e);
/* The workload's next kernel (the command processor's source). */
bool setup_next_kernel(void *m, struct kernel *k);
/* Free what setup_build() and setup_config() made. */
void setup_teardown(struct setup_machine *m);

/* Workload w's small (test) size as overrides "workload.KEY=VALUE", each
 * newly allocated, into out[0 ..] (NULL: only counted); returns how many. */
size_t setup_small_overrides(const struct wl_ops *w, char **out);

#endif
