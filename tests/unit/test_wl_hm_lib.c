/*
 * The benchmark library's HeteroMark, SHOC, Parboil, Rodinia, Lonestar and
 * micro workloads (kernel descriptions driven by kdw.h): at each small size
 * the kernel sequence (names, grids, blocks, argument modes), the first
 * operations of chosen warps with their addresses, work-group ranges, and
 * the parameter errors. The expectations are derived by hand from each
 * kernel (the pages in docs/workloads/). Warps have 64 lanes here.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "wl_harness.h"

extern const struct wl_ops wl_random_loc;

#define ALL64 (~0ull)

/* w at its small size (plus extra lines); asserts it opens. */
static void open_small(struct wlh *h, const struct wl_ops *w, const char *extra)
{
    char ini[1024];
    size_t o = (size_t)snprintf(ini, sizeof ini, "[workload]\n");
    for (const char *const *s = w->small; *s; s++)
        o += (size_t)snprintf(ini + o, sizeof ini - o, "%s\n", *s);
    snprintf(ini + o, sizeof ini - o, "%s", extra ? extra : "");
    cr_assert(wlh_try(h, w, ini, 4, 8), "%s: %s", w->name, h->e.msg);
}

static void expect_error(const struct wl_ops *w, const char *ini, const char *want)
{
    struct wlh h;
    cr_expect_null(wlh_try(&h, w, ini, 4, 8), "%s accepted %s", w->name, ini);
    cr_expect_str_eq(h.e.msg, want);
    wlh_close(&h);
}

/* The next kernel: its name, grid and block (x, y), and its argument modes
 * as a string of 'R' and 'W'. */
static void next_kernel(struct wlh *h, struct kernel *k, const char *name, uint32_t gx,
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

static void no_more(struct wlh *h)
{
    struct kernel k;
    cr_expect_not(h->ops->next_kernel(h->self, &k));
    cr_expect_not(h->env.failed);
}

static void expect_alu(const struct kernel *k, struct kernel_warp *w, uint32_t n)
{
    struct kernel_op op = wlh_step(k, w);
    cr_expect(op.kind == KOP_ALU && op.n == n, "%s: op %u n %u, want ALU %u", k->name, op.kind,
              op.n, n);
}

/* A global or LDS access whose active lanes (mask) are at base + lane *
 * stride, given as base and stride or lane by lane. */
static void expect_mem(const struct kernel *k, struct kernel_warp *w, enum kernel_op_kind kind,
                       addr_t base, int64_t stride, uint64_t mask)
{
    struct kernel_op op = wlh_step(k, w);
    cr_expect_eq(op.kind, kind, "%s: op %u, want %u", k->name, op.kind, kind);
    cr_expect_eq(op.mask ? op.mask : ALL64, mask, "%s: mask %#llx, want %#llx", k->name,
                 (unsigned long long)op.mask, (unsigned long long)mask);
    for (unsigned l = 0; l < 64; l++) {
        addr_t got = op.lanes ? w->lane_addr[l] : op.base + l * (uint64_t)op.stride;
        if (mask >> l & 1)
            cr_expect_eq(got, base + l * (uint64_t)stride, "%s: lane %u at %#llx, want %#llx",
                         k->name, l, (unsigned long long)got,
                         (unsigned long long)(base + l * (uint64_t)stride));
    }
}

static addr_t arg(const struct kernel *k, unsigned a)
{
    return k->args[a].buf->base;
}

/* ==== random-loc ==== */

/* 16 x 256 threads, two launches; warp 1 of work-group 2 gathers 64 table
 * elements at per-lane positions and stores out[576 ..] contiguously. */
Test(wl_hm_lib, random_loc_gathers_and_stores_its_own_elements)
{
    struct wlh h;
    open_small(&h, &wl_random_loc, NULL);
    for (int i = 0; i < 2; i++) {
        struct kernel k;
        next_kernel(&h, &k, "random_loc", 16, 1, 256, 1, "RW");
        struct kernel_warp w;
        wlh_warp_at(&w, &k, 2, 1);
        expect_alu(&k, &w, 17);
        struct kernel_op op = wlh_step(&k, &w);
        cr_expect(op.kind == KOP_LOAD && op.lanes && op.size == 4);
        unsigned distinct = 0;
        for (unsigned l = 0; l < 64; l++) {
            cr_expect(w.lane_addr[l] >= arg(&k, 0) && w.lane_addr[l] < arg(&k, 0) + 65536 * 4 &&
                      w.lane_addr[l] % 4 == 0, "lane %u", l);
            distinct += l && w.lane_addr[l] != w.lane_addr[l - 1] + 4;
        }
        cr_expect_gt(distinct, 60, "the gather is not a run");
        expect_alu(&k, &w, 2);
        expect_mem(&k, &w, KOP_STORE, arg(&k, 1) + 576 * 4, 4, ALL64);
        cr_expect_eq(wlh_step(&k, &w).kind, KOP_EXIT);
    }
    no_more(&h);
    wlh_close(&h);
    expect_error(&wl_random_loc, "[workload]\nblocks = 16777216\nblock = 512\n",
                 "t.ini:2: [workload] blocks = 16777216: 8589934592 threads: at most 4294967295");
}
