/*
 * setup.c -- command-line options and configuration assembly. This is the
 * one place that knows every module's configuration section.
 */
#include "setup.h"

#include <stdlib.h>
#include <string.h>

#include "net/topo.h"

static const struct cfg_key sim_keys[] = {
    {"seed", CFG_INT, "1", 0, 9.2e18, "seed of every random choice in the run", NULL},
    {"watchdog_us", CFG_FLOAT, "100", 0, 1e9,
     "stop with a deadlock report when no request completes for this long (simulated us; 0 = off)",
     NULL},
    {"per_kernel_stats", CFG_BOOL, "false", 0, 0,
     "also report every counter's change per kernel (sections in the text and JSON output)", NULL},
    CFG_END,
};

static const struct cfg_key workload_keys[] = {
    {"name", CFG_STR, "vecadd", 0, 0, "the workload to run (see `chipsim list workloads`)", NULL},
    CFG_END,
};

void setup_free_args(struct run_opts *o)
{
    free(o->configs);
    free(o->overrides);
}

void setup_define_sections(struct cfg *c)
{
    cfg_define(c, "sim", "engine and run control", sim_keys, NULL);
    cfg_define(c, "gpu", "system topology: GPUs x chiplets x CUs", topo_keys, NULL);
    gpu_define_sections(c);
    cfg_define(c, "workload", "the workload and its parameters", workload_keys, NULL);
}

/* Sections named after each scheme and workload, for `chipsim list params`. */
void setup_define_all(struct cfg *c)
{
    setup_define_sections(c);
    char name[80];
    for (const struct coh_ops *const *o = coh_registry; *o; o++) {
        if (!(*o)->keys)
            continue;
        snprintf(name, sizeof name, "coherence(%s)", (*o)->name);
        cfg_define(c, name, (*o)->desc, (*o)->keys, NULL);
    }
    for (const struct wl_ops *const *w = wl_registry; *w; w++) {
        if (!(*w)->keys)
            continue;
        snprintf(name, sizeof name, "workload(%s)", (*w)->name);
        cfg_define(c, name, (*w)->desc, (*w)->keys, NULL);
    }
}

/* Add the keys of the workload named in [workload] name. */
static int define_workload(struct cfg *c, struct err *e)
{
    const char *name = cfg_peek(c, "workload", "name");
    const struct wl_ops *w = wl_find(name);
    if (!w) {
        const char *names[256];
        size_t n = 0;
        for (const struct wl_ops *const *o = wl_registry; *o && n < 256; o++)
            names[n++] = (*o)->name;
        return cfg_unknown_name(c, "workload", "name", "workload", names, n,
                                "`chipsim list workloads` lists them", e);
    }
    if (w->keys)
        cfg_define(c, "workload", NULL, w->keys, NULL);
    return 0;
}

size_t setup_small_overrides(const struct wl_ops *w, char **out)
{
    size_t n = 0;
    for (const char *const *s = w->small; s && *s; s++, n++)
        if (out)
            out[n] = xasprintf("workload.%s", *s);
    return n;
}

/* Config `name`: a file, or files joined by '+' loaded in order (a sweep
 * stacks a preset's overrides on another so: A.ini+B.ini). */
static int load_configs(struct cfg *c, const char *name, struct err *e)
{
    char *all = xstrdup(name), *save = NULL;
    int rc = 0;
    for (char *f = strtok_r(all, "+", &save); f && !rc; f = strtok_r(NULL, "+", &save))
        rc = cfg_load_file(c, f, e);
    free(all);
    return rc;
}

/* The workload a run will have: the last -p workload.name, else -w or the
 * files' (NULL if none of them names one known). */
static const struct wl_ops *final_workload(const struct cfg *c, const struct run_opts *o)
{
    const char *name = cfg_peek(c, "workload", "name");
    static const char key[] = "workload.name=";
    for (size_t i = 0; i < o->noverrides; i++)
        if (!strncmp(o->overrides[i], key, sizeof key - 1))
            name = o->overrides[i] + sizeof key - 1;
    return name ? wl_find(name) : NULL;
}

/* --small: the workload's small parameters, after the files and before -p. */
static void load_small(struct cfg *c, const struct run_opts *o)
{
    const struct wl_ops *w = final_workload(c, o);
    for (const char *const *sm = w ? w->small : NULL; sm && *sm; sm++) {
        const char *eq = strchr(*sm, '=');
        char key[64];
        snprintf(key, sizeof key, "%.*s", (int)(eq - *sm), *sm);
        cfg_load_value(c, "workload", key, eq + 1, "--small", 1);
    }
}

int setup_config(struct cfg *c, const struct run_opts *o, struct err *e)
{
    setup_define_sections(c);
    for (size_t i = 0; i < o->nconfigs; i++)
        if (load_configs(c, o->configs[i], e))
            return -1;
    int pos = 0;
    if (o->workload)
        cfg_load_value(c, "workload", "name", o->workload, "-w", 1);
    if (o->trace) {
        cfg_load_value(c, "workload", "name", "trace", "--trace", 1);
        cfg_load_value(c, "workload", "path", o->trace, "--trace", 1);
    }
    if (o->small)
        load_small(c, o);
    for (size_t i = 0; i < o->noverrides; i++)
        if (cfg_load_override(c, o->overrides[i], ++pos, e))
            return -1;
    if (define_workload(c, e) || gpu_define_scheme(c, e))
        return -1;
    return cfg_resolve(c, e);
}

void setup_wl_env(struct wl_env *env, const struct gpu *g, uint64_t seed)
{
    wl_env_init(env, g->page_b, g->cup.warp_size, g->ms.nch, g->ms.ncu, seed);
    env->lds_b = g->cu[0].lds_size;
    env->warp_slots = g->cu[0].nslots;
    env->ngpus = g->ms.t.gpus;
    env->versions = g->chk.on;
    env->annotations = g->chk.annotations || g->coh->annotations;
}

int setup_build(struct setup_machine *m, struct err *e)
{
    const struct cfg_sec *simsec = cfg_sec(&m->cfg, "sim");
    uint64_t seed = cfg_uint(simsec, "seed");
    sim_init(&m->s, seed);
    req_pool_init(&m->s, 4096);
    stats_init(&m->st);
    m->st.keep_sections = cfg_bool(simsec, "per_kernel_stats");
    m->s.stats = &m->st;
    m->s.watchdog_ps = (ps_t)(cfg_float(simsec, "watchdog_us") * 1e6);
    if (gpu_build(&m->g, &m->s, &m->cfg, e))
        return -1;
    const struct cfg_sec *ws = cfg_sec(&m->cfg, "workload");
    m->wl = wl_find(cfg_str(ws, "name"));
    setup_wl_env(&m->env, &m->g, seed);
    m->wl_self = m->wl->create(&m->env, ws, e);
    if (!m->wl_self)
        return -1;
    gpu_reg_stats(&m->g, &m->st);
    if (m->wl->reg_stats)
        m->wl->reg_stats(m->wl_self, &m->st);
    return 0;
}

bool setup_next_kernel(void *obj, struct kernel *k)
{
    struct setup_machine *m = obj;
    return m->wl->next_kernel(m->wl_self, k);
}

void setup_teardown(struct setup_machine *m)
{
    if (m->wl_self)
        m->wl->destroy(m->wl_self);
    wl_env_free(&m->env);
    gpu_free(&m->g);
    sim_destroy(&m->s);
    stats_free(&m->st);
    cfg_free(&m->cfg);
}
