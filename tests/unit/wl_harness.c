/*
 * wl_harness.c -- see wl_harness.h.
 */
#include "wl_harness.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "test_util.h"

void wlh_warp_at(struct kernel_warp *w, const struct kernel *k, uint32_t wg, uint32_t warp)
{
    *w = (struct kernel_warp){.k = k, .wg = wg, .warp = warp, .warp_size = 64};
    w->wg_id = (struct kernel_dim){wg % k->grid.x, wg / k->grid.x % k->grid.y,
                                   wg / (k->grid.x * k->grid.y)};
    w->nlanes = (uint32_t)min_u64(64, kernel_wg_threads(k) - warp * 64);
}

struct kernel_op wlh_step(const struct kernel *k, struct kernel_warp *w)
{
    struct kernel_op op;
    memset(&op, 0, sizeof op);
    k->next(k, w, &op);
    bool mem = op.kind == KOP_LOAD || op.kind == KOP_STORE || op.kind == KOP_ATOMIC ||
               op.kind == KOP_LDS_LOAD || op.kind == KOP_LDS_STORE;
    for (unsigned l = 0; mem && !op.lanes && l < w->nlanes; l++) /* as the CU reads them */
        w->lane_addr[l] = op.base + (addr_t)((int64_t)l * op.stride);
    return op;
}

void *wlh_try(struct wlh *h, const struct wl_ops *w, const char *ini, unsigned nch,
              unsigned ncus)
{
    return wlh_try_ws(h, w, ini, nch, ncus, 64);
}

static void *try_gpus(struct wlh *h, const struct wl_ops *w, const char *ini, unsigned nch,
                      unsigned ncus, unsigned warp_size, unsigned gpus)
{
    memset(h, 0, sizeof *h);
    h->ops = w;
    wl_env_init(&h->env, 4096, warp_size, nch, ncus, 1);
    h->env.ngpus = gpus;
    if (tcfg_load(&h->cfg, "workload", w->keys, NULL, ini, &h->e))
        return NULL;
    h->self = w->create(&h->env, cfg_sec(&h->cfg, "workload"), &h->e);
    return h->self;
}

void *wlh_try_ws(struct wlh *h, const struct wl_ops *w, const char *ini, unsigned nch,
                 unsigned ncus, unsigned warp_size)
{
    return try_gpus(h, w, ini, nch, ncus, warp_size, 1);
}

void wlh_close(struct wlh *h)
{
    if (h->self)
        h->ops->destroy(h->self);
    wl_env_free(&h->env);
    cfg_free(&h->cfg);
}

void wlh_open_small(struct wlh *h, const struct wl_ops *w, const char *extra)
{
    wlh_open_small_gpus(h, w, extra, 1);
}

void wlh_open_small_gpus(struct wlh *h, const struct wl_ops *w, const char *extra,
                         unsigned gpus)
{
    char ini[1024];
    size_t o = (size_t)snprintf(ini, sizeof ini, "[workload]\n");
    for (const char *const *s = w->small; *s; s++)
        o += (size_t)snprintf(ini + o, sizeof ini - o, "%s\n", *s);
    snprintf(ini + o, sizeof ini - o, "%s", extra ? extra : "");
    cr_assert(try_gpus(h, w, ini, 4, 8, 64, gpus), "%s: %s", w->name, h->e.msg);
}

void wlh_expect_error(const struct wl_ops *w, const char *ini, const char *want)
{
    struct wlh h;
    cr_expect_null(wlh_try(&h, w, ini, 4, 8), "%s accepted %s", w->name, ini);
    cr_expect_str_eq(h.e.msg, want);
    wlh_close(&h);
}

void wlh_next_kernel(struct wlh *h, struct kernel *k, const char *name, uint32_t gx,
                     uint32_t gy, uint32_t bx, uint32_t by, const char *modes)
{
    cr_assert(h->ops->next_kernel(h->self, k), "%s: no kernel", name);
    cr_expect_str_eq(k->name, name);
    cr_expect(k->grid.x == gx && k->grid.y == gy, "%s grid %ux%u", name, k->grid.x, k->grid.y);
    cr_expect(k->block.x == bx && k->block.y == by, "%s block %ux%u", name, k->block.x,
              k->block.y);
    char got[KERNEL_MAX_ARGS + 1] = {0};
    for (unsigned a = 0; a < k->nargs; a++)
        got[a] = k->args[a].mode == KERNEL_RW ? 'W' : 'R';
    cr_expect_str_eq(got, modes, "%s modes", name);
}

void wlh_no_more(struct wlh *h)
{
    struct kernel k;
    cr_expect_not(h->ops->next_kernel(h->self, &k));
    cr_expect_not(h->env.failed);
}

void wlh_expect_alu(const struct kernel *k, struct kernel_warp *w, uint32_t n)
{
    struct kernel_op op = wlh_step(k, w);
    cr_expect(op.kind == KOP_ALU && op.n == n, "%s: op %u n %u, want ALU %u", k->name, op.kind,
              op.n, n);
}
