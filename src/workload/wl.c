/*
 * wl.c -- buffers and kernel-description helpers of the workload API.
 */
#include "wl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void wl_env_init(struct wl_env *env, uint64_t page_b, unsigned warp_size, unsigned nchiplets,
                 unsigned ncus, uint64_t seed)
{
    *env = (struct wl_env){.page_b = page_b, .warp_size = warp_size, .nchiplets = nchiplets,
                           .ncus = ncus, .next = WL_HEAP_BASE, .seed = seed, .ngpus = 1,
                           .annotations = true};
}

void wl_env_free(struct wl_env *env)
{
    for (size_t i = 0; i < env->nbufs; i++)
        free(env->bufs[i]);
    free(env->bufs);
    *env = (struct wl_env){0};
}

const struct kernel_buf *wl_alloc(struct wl_env *env, const char *name, uint64_t size)
{
    struct kernel_buf *b = xcalloc(1, sizeof *b);
    snprintf(b->name, sizeof b->name, "%s", name);
    b->base = env->next;
    b->size = size;
    uint64_t span = div_ceil(size ? size : 1, env->page_b) * env->page_b;
    env->next += span;
    env->bufs = xgrow(env->bufs, sizeof *env->bufs, &env->bufs_cap, env->nbufs + 1);
    env->bufs[env->nbufs++] = b;
    return b;
}

const struct kernel_buf *wl_find_buf(const struct wl_env *env, addr_t addr)
{
    size_t lo = 0, hi = env->nbufs; /* buffers are in address order */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const struct kernel_buf *b = env->bufs[mid];
        if (addr < b->base)
            hi = mid;
        else if (addr >= b->base + b->size)
            lo = mid + 1;
        else
            return b;
    }
    return NULL;
}

uint64_t wl_footprint(const struct wl_env *env)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < env->nbufs; i++)
        sum += env->bufs[i]->size;
    return sum;
}

bool wl_fail(struct wl_env *env, const struct err *e)
{
    env->failed = true;
    env->err = *e;
    return false;
}

const struct wl_ops *wl_find(const char *name)
{
    for (const struct wl_ops *const *w = wl_registry; *w; w++)
        if (!strcmp((*w)->name, name))
            return *w;
    return NULL;
}

void wl_kernel_init(struct kernel *k, const char *name, uint32_t gx, uint32_t gy, uint32_t bx,
                    uint32_t by, kernel_next_fn next)
{
    *k = (struct kernel){.grid = {gx, gy, 1}, .block = {bx, by, 1}, .next = next};
    snprintf(k->name, sizeof k->name, "%s", name);
}

void wl_kernel_arg(struct kernel *k, const struct kernel_buf *b, enum kernel_mode mode)
{
    if (k->nargs == KERNEL_MAX_ARGS)
        BUG("kernel %s: more than %d arguments", k->name, KERNEL_MAX_ARGS);
    k->args[k->nargs++] = (struct kernel_arg){.buf = b, .mode = mode};
}
