/*
 * wl_harness.c -- see wl_harness.h.
 */
#include "wl_harness.h"

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

void *wlh_try_ws(struct wlh *h, const struct wl_ops *w, const char *ini, unsigned nch,
                 unsigned ncus, unsigned warp_size)
{
    memset(h, 0, sizeof *h);
    h->ops = w;
    wl_env_init(&h->env, 4096, warp_size, nch, ncus, 1);
    if (tcfg_load(&h->cfg, "workload", w->keys, NULL, ini, &h->e))
        return NULL;
    h->self = w->create(&h->env, cfg_sec(&h->cfg, "workload"), &h->e);
    return h->self;
}

void wlh_close(struct wlh *h)
{
    if (h->self)
        h->ops->destroy(h->self);
    wl_env_free(&h->env);
    cfg_free(&h->cfg);
}
