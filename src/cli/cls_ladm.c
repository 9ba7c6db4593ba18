/*
 * cls_ladm.c -- `chipsim classify --ladm`: the locality class of every
 * argument of every kernel (spec ladm.md 4 and 5: Algorithm 1, Table 3.2),
 * computed from the kernel descriptions' index expressions (kd_buf_class)
 * at each kernel's first launch. Nothing is simulated: each workload is
 * created on the machine's geometry and asked for its kernels in order,
 * until LADM_QUIET launches in a row bring no new kernel (a workload's
 * iterations repeat its sequence; the host-side work of generating every
 * launch of a long run at its real size would take minutes).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cls_ladm.h"
#include "cli/setup.h"
#include "gpu/cp.h"
#include "sched/ladm.h"
#include "workload/kd.h"
#include "workload/wl.h"

#define LADM_QUIET 256
#define LADM_MAX_NAMES 64

/* w's configuration on the machine config, at its small size if asked,
 * with the -p overrides last. */
static int ladm_config(const struct cls_ladm_args *a, const struct wl_ops *w, struct cfg *c,
                       struct err *e)
{
    char **own = xcalloc(setup_small_overrides(w, NULL) + a->nextra + 1, sizeof *own);
    size_t k = a->small ? setup_small_overrides(w, own) : 0;
    for (size_t i = 0; i < a->nextra; i++)
        own[k++] = xstrdup(a->extra[i]);
    const char *cfgs[] = {a->config};
    struct run_opts ro = {.configs = cfgs, .nconfigs = 1, .overrides = (const char **)own,
                          .noverrides = k, .workload = w->name};
    int rc = setup_config(c, &ro, e);
    for (size_t i = 0; i < k; i++)
        free(own[i]);
    free(own);
    return rc;
}

/* Spec ladm.md 7, L6, L11: the actions of Table 3.2 for the argument the
 * kernel follows (sched/ladm.h, as the `ladm` policies decide them). */
static void ladm_decision(const struct sched_launch *l, const char *const *args, unsigned nodes)
{
    int d = ladm_decider(l);
    if (d < 0)
        return;
    enum sched_loc loc = (enum sched_loc)l->bufs[d].loc.loc;
    enum ladm_sched s = ladm_schedule(l, nodes);
    bool binds = loc >= SCHED_LOC_ROW_H && loc <= SCHED_LOC_COL_V; /* Table 3.2 rows 2-5 */
    printf("%-16s %-24s %-10s => scheduling %s%s, placement %s, L2 insertion %s "
           "(largest argument %s, %llu pages)\n",
           "", "", "", ladm_sched_name(s),
           binds && s == LADM_KERNEL_WIDE ? " (too few rows or columns of work-groups)" : "",
           ladm_place_name(loc), ladm_insert_name(loc), args[d],
           (unsigned long long)div_ceil(l->bufs[d].size, l->page_b));
}

/* One kernel's arguments: the locality table its launch carries. */
static void ladm_kernel(const char *wl, const struct kernel *k, uint64_t page_b, unsigned nodes)
{
    char grid[32];
    snprintf(grid, sizeof grid, "%ux%u", k->grid.x, k->grid.y);
    const struct kd_prog *p = kd_kernel_prog(k);
    if (!p) {
        printf("%-16s %-24s %-10s %-20s (not a kernel description: no index expressions)\n", wl,
               k->name, grid, "-");
        return;
    }
    struct sched_launch l;
    cp_describe_launch(k, 0, page_b, page_b, &l);
    for (unsigned b = 0; b < l.nbufs; b++) {
        const struct sched_locality *c = &l.bufs[b].loc;
        char stride[48] = "-";
        if (c->stride_b && c->elem_b)
            snprintf(stride, sizeof stride, "%lld elements", (long long)(c->stride_b / c->elem_b));
        printf("%-16s %-24s %-10s %-20s %d %-18s %s\n", wl, k->name, grid, p->d->bufs[b],
               (int)c->loc, c->loc ? ladm_loc_name((enum sched_loc)c->loc) : "(not accessed)",
               stride);
    }
    ladm_decision(&l, p->d->bufs, nodes);
}

/* Every distinct kernel of w (by name), at its first launch. 0, or 2 when
 * the workload cannot be made (the reason printed). */
static int ladm_workload(const struct cls_ladm_args *a, const struct wl_ops *w)
{
    struct cfg c;
    cfg_init(&c);
    struct err e = {0};
    if (ladm_config(a, w, &c, &e)) {
        fprintf(stderr, "chipsim classify: %s: %s\n", w->name, e.msg);
        cfg_free(&c);
        return EXIT_USAGE;
    }
    const struct cfg_sec *g = cfg_sec(&c, "gpu");
    unsigned gpus = (unsigned)cfg_uint(g, "gpus"), nch = gpus * (unsigned)cfg_uint(g, "chiplets");
    struct wl_env env;
    wl_env_init(&env, cfg_uint(cfg_sec(&c, "place"), "page_b"),
                (unsigned)cfg_uint(cfg_sec(&c, "cu"), "warp_size"), nch,
                nch * (unsigned)cfg_uint(g, "cus_per_chiplet"),
                cfg_uint(cfg_sec(&c, "sim"), "seed"));
    env.ngpus = gpus;
    env.versions = cfg_bool(cfg_sec(&c, "check"), "enable");
    int status = EXIT_OK;
    void *self = w->create(&env, cfg_sec(&c, "workload"), &e);
    if (!self) {
        fprintf(stderr, "chipsim classify: %s: %s\n", w->name, e.msg);
        status = EXIT_USAGE;
    }
    char seen[LADM_MAX_NAMES][sizeof ((struct kernel *)0)->name];
    unsigned nseen = 0;
    struct kernel k;
    for (unsigned quiet = 0; self && quiet < LADM_QUIET && w->next_kernel(self, &k); quiet++) {
        unsigned j = 0;
        while (j < nseen && strcmp(seen[j], k.name))
            j++;
        if (j < nseen)
            continue;
        quiet = 0;
        if (nseen < LADM_MAX_NAMES)
            memcpy(seen[nseen++], k.name, sizeof k.name);
        ladm_kernel(w->name, &k, env.page_b, ladm_nodes(gpus, nch));
    }
    if (env.failed) {
        fprintf(stderr, "chipsim classify: %s: %s\n", w->name, env.err.msg);
        status = EXIT_USAGE;
    }
    if (self)
        w->destroy(self);
    wl_env_free(&env);
    cfg_free(&c);
    return status;
}

int cls_ladm(const struct cls_ladm_args *a)
{
    unsigned n = 0;
    for (const struct wl_ops *const *w = wl_registry; *w; w++)
        n += a->selected(a->sel, *w);
    if (!n)
        return EXIT_USAGE;
    printf("LADM locality of each kernel's arguments (spec ladm.md 5, Table 3.2), "
           "at each kernel's first launch:\n\n");
    printf("%-16s %-24s %-10s %-20s %-20s %s\n", "workload", "kernel", "grid", "argument",
           "row and class", "stride (loop)");
    int status = EXIT_OK;
    for (const struct wl_ops *const *w = wl_registry; *w; w++) {
        int rc = a->selected(a->sel, *w) ? ladm_workload(a, *w) : EXIT_OK;
        if (rc)
            status = rc;
    }
    return status;
}
