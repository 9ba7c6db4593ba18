/*
 * kdw.c -- the driver of workloads made of kernel descriptions (kdw.h).
 */
#include "workload/kdw.h"

#include <stdlib.h>
#include <string.h>

static void use_free(struct kdw_use *u)
{
    free(u->r);
    free(u->end);
}

void kdw_destroy(void *self)
{
    struct kdw *w = self;
    if (!w)
        return;
    if (w->m->release)
        w->m->release(w);
    for (unsigned i = 0; i < w->nprog; i++)
        kd_prog_free(w->prog[i]);
    for (size_t i = 0; i < w->nuse; i++)
        use_free(&w->use[i]);
    use_free(&w->scratch);
    free(w->use);
    free(w);
}

void *kdw_create(const struct kdw_model *m, struct wl_env *env, const struct cfg_sec *sec,
                 struct err *e)
{
    BUG_ON(m->size < sizeof(struct kdw));
    struct kdw *w = xcalloc(1, m->size);
    w->m = m;
    w->env = env;
    for (const struct kd_desc *const *d = m->descs; *d; d++) {
        BUG_ON(w->nprog == KDW_MAX_PROGS);
        if (!(w->prog[w->nprog] = kd_compile(*d, e))) {
            kdw_destroy(w);
            return NULL;
        }
        w->nprog++;
    }
    if (m->setup(w, sec, e)) {
        kdw_destroy(w);
        return NULL;
    }
    return w;
}

/* The use of b that u records: every work-group's ranges of argument a of k. */
static void use_record(struct kdw_use *u, const struct kernel *k, unsigned a)
{
    uint32_t nwg = kernel_nwg(k);
    u->buf = k->args[a].buf;
    u->grid = k->grid;
    u->nr = 0;
    u->known = k->ranges != NULL;
    u->end = xgrow(u->end, sizeof *u->end, &u->end_cap, nwg);
    for (uint32_t g = 0; g < nwg && u->known; g++) {
        u->r = xgrow(u->r, sizeof *u->r, &u->r_cap, u->nr + KERNEL_MAX_RANGES);
        unsigned n = k->ranges(k, g, a, &u->r[u->nr], KERNEL_MAX_RANGES);
        u->known = n > 0;
        u->nr += n;
        u->end[g] = (uint32_t)u->nr;
    }
}

static bool use_same(const struct kdw_use *a, const struct kdw_use *b)
{
    uint32_t nwg = a->grid.x * a->grid.y * a->grid.z;
    return a->known && b->known && !memcmp(&a->grid, &b->grid, sizeof a->grid) &&
           a->nr == b->nr && !memcmp(a->end, b->end, nwg * sizeof *a->end) &&
           !memcmp(a->r, b->r, a->nr * sizeof *a->r);
}

/* Set each argument's same_pattern from the buffer's previous use, and
 * record this one in its place. */
static void kdw_patterns(struct kdw *w, struct kernel *k)
{
    if (!w->env->annotations) /* nobody reads same_pattern */
        return;
    for (unsigned a = 0; a < k->nargs; a++) {
        size_t i = 0;
        while (i < w->nuse && w->use[i].buf != k->args[a].buf)
            i++;
        if (i == w->nuse) {
            w->use = xgrow(w->use, sizeof *w->use, &w->use_cap, w->nuse + 1);
            w->use[w->nuse] = (struct kdw_use){0};
            use_record(&w->use[w->nuse++], k, a);
            continue;
        }
        use_record(&w->scratch, k, a);
        k->args[a].same_pattern = use_same(&w->scratch, &w->use[i]);
        struct kdw_use t = w->use[i];
        w->use[i] = w->scratch;
        w->scratch = t;
    }
}

bool kdw_next_kernel(void *self, struct kernel *k)
{
    struct kdw *w = self;
    struct kdw_launch l = {0};
    if (!w->m->plan(w, w->launched, &l))
        return false;
    BUG_ON(l.prog >= w->nprog);
    struct err e;
    if (kd_launch(w->prog[l.prog], k, l.grid, l.block, l.params, l.bufs, l.arrays, &e))
        return wl_fail(w->env, &e);
    k->lds_b = l.lds_b;
    kdw_patterns(w, k);
    w->launched++;
    return true;
}

size_t kdw_kernels(void *self)
{
    const struct kdw *w = self;
    return w->m->count ? (size_t)w->m->count(w) : 0;
}

bool kdw_sync_sys(const struct kdw *w, const struct cfg_sec *sec)
{
    int sc = cfg_enum(sec, "sync_scope"); /* auto, gpu, sys */
    return sc == 2 || (sc == 0 && w->env->ngpus > 1);
}
