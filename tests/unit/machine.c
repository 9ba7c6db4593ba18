/*
 * machine.c -- see machine.h.
 */
#include "machine.h"

#include <criterion/criterion.h>
#include <stdlib.h>

#include "cli/setup.h"

static struct machine *build(const char *extra, const struct wl_ops *w, struct err *ep)
{
    struct machine *m = calloc(1, sizeof *m);
    struct err e;
    cfg_init(&m->cfg);
    setup_define_sections(&m->cfg);
    if (w && w->keys)
        cfg_define(&m->cfg, "workload", NULL, w->keys, NULL);
    cr_assert_eq(cfg_load_file(&m->cfg, "configs/tiny.ini", &e), 0, "%s", e.msg);
    if (w) /* workloads run where the schemes' L2 operations are needed */
        cr_assert_eq(cfg_load_file(&m->cfg, "configs/d4-artifact.ini", &e), 0, "%s", e.msg);
    cr_assert_eq(cfg_load_string(&m->cfg, "test.ini", extra ? extra : "", &e), 0, "%s", e.msg);
    cr_assert_eq(gpu_define_scheme(&m->cfg, &e), 0, "%s", e.msg);
    cr_assert_eq(cfg_resolve(&m->cfg, &e), 0, "%s", e.msg);
    sim_init(&m->s, 1);
    req_pool_init(&m->s, 1024);
    stats_init(&m->st);
    m->s.watchdog_ps = 100000000;
    if (gpu_build(&m->g, &m->s, &m->cfg, &e)) {
        cr_assert(ep && !w, "%s", e.msg);
        *ep = e;
        stats_free(&m->st);
        sim_destroy(&m->s);
        cfg_free(&m->cfg);
        free(m);
        return NULL;
    }
    gpu_reg_stats(&m->g, &m->st);
    setup_wl_env(&m->env, &m->g, 1);
    m->env.annotations = true; /* workloads derive their annotations whatever the scheme */
    if (w) {
        m->wl = w;
        m->wl_self = w->create(&m->env, cfg_sec(&m->cfg, "workload"), ep);
        if (!m->wl_self) {
            m->wl = NULL;
            machine_free(m);
            return NULL;
        }
        if (w->reg_stats)
            w->reg_stats(m->wl_self, &m->st);
    }
    return m;
}

struct machine *machine_new(const char *extra) { return build(extra, NULL, NULL); }

struct machine *machine_try(const char *extra, struct err *e) { return build(extra, NULL, e); }

struct machine *machine_new_wl(const char *extra, const struct wl_ops *w, struct err *e)
{
    return build(extra, w, e);
}

void machine_free(struct machine *m)
{
    if (m->wl)
        m->wl->destroy(m->wl_self);
    wl_env_free(&m->env);
    gpu_free(&m->g);
    stats_free(&m->st);
    sim_destroy(&m->s);
    cfg_free(&m->cfg);
    free(m);
}

static bool next_kernel(void *obj, struct kernel *k)
{
    struct machine *m = obj;
    if (m->wl)
        return m->wl->next_kernel(m->wl_self, k);
    if (m->next == m->nk)
        return false;
    *k = m->k[m->next++];
    return true;
}

enum sim_status machine_run(struct machine *m)
{
    cp_start(&m->g.cp, next_kernel, m, NULL, NULL);
    return sim_run(&m->s, 0);
}

uint64_t machine_stat(struct machine *m, const char *suffix) { return stats_sum(&m->st, suffix); }
