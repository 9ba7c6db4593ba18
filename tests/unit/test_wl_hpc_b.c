/*
 * The benchmark library's HPC applications of HMG, second part (namd;
 * kernel descriptions driven by kdw.h): at each small size the kernel
 * sequence (names, grids, blocks, argument modes), the first operations of
 * chosen warps with their addresses, the scoped synchronization with its
 * scopes, and the parameter errors. Expectations derived by hand from the
 * kernels (docs/workloads/namd.md). Warps have 64 lanes here.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "wl_harness.h"

extern const struct wl_ops wl_namd;

#define ALL64 (~0ull)

/* The next op is a global or LDS access of `size` bytes whose active lanes
 * (mask) are at base + lane * stride. */
static struct kernel_op expect_mem(const struct kernel *k, struct kernel_warp *w,
                                   enum kernel_op_kind kind, addr_t base, int64_t stride,
                                   unsigned size, uint64_t mask)
{
    struct kernel_op op = wlh_step(k, w);
    cr_expect_eq(op.kind, kind, "%s: op %u, want %u", k->name, op.kind, kind);
    cr_expect_eq(op.size, size, "%s: size %u, want %u", k->name, op.size, size);
    uint64_t got_mask = op.mask ? op.mask : low_bits(w->nlanes);
    cr_expect_eq(got_mask, mask, "%s: mask %#llx, want %#llx", k->name,
                 (unsigned long long)got_mask, (unsigned long long)mask);
    for (unsigned l = 0; l < 64; l++)
        if (mask >> l & 1)
            cr_expect_eq(w->lane_addr[l], base + (addr_t)((int64_t)l * stride),
                         "%s: lane %u at %#llx, want %#llx", k->name, l,
                         (unsigned long long)w->lane_addr[l],
                         (unsigned long long)(base + (addr_t)((int64_t)l * stride)));
    return op;
}

static addr_t arg(const struct kernel *k, unsigned a)
{
    return k->args[a].buf->base;
}

/* Steps the warp to its next op of this kind (at most 10,000 ops on). */
static struct kernel_op next_of(const struct kernel *k, struct kernel_warp *w,
                                enum kernel_op_kind kind)
{
    for (unsigned i = 0; i < 10000; i++) {
        struct kernel_op op = wlh_step(k, w);
        if (op.kind == kind || op.kind == KOP_EXIT)
            return op;
    }
    cr_assert_fail("%s: no op of kind %u", k->name, kind);
    return (struct kernel_op){0};
}

/* ==== namd ==== */

enum { NB_PAIRS, NB_ATOMS, NB_PARAMS, NB_FTAB, NB_FBUF, NB_SFBUF, NB_BFLAGS, NB_VBUF,
       NB_SVBUF, NB_COUNTERS, NB_FLISTS, NB_FORCES };

/* 1 x 1 x 2 patches of 32 atoms, force lists of 2 (the patch, then its
 * first face neighbour, z - 1: the other patch): 4 pairs of 128 threads.
 * Warp 0 of pair 1 (patch 0 with patch 1) copies its record, clears the
 * net-force tables, loads its 32 atoms (16 B each) and parameters, then
 * patch 1's tile word by word (atoms[32 * 4 + lane]). */
Test(wl_hpc_b, namd_pair_loads_its_patch_then_the_neighbours_tile)
{
    struct wlh h;
    wlh_open_small(&h, &wl_namd, NULL);
    struct kernel k;
    wlh_next_kernel(&h, &k, "dev_nonbonded", 4, 1, 128, 1, "RRRRWWWWWWRWWWW");
    cr_expect_eq(k.lds_b, 889 * 4);
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 1, 0);
    wlh_expect_alu(&k, &w, 12);
    wlh_expect_alu(&k, &w, 5);
    expect_mem(&k, &w, KOP_LOAD, arg(&k, NB_PAIRS) + 64, 4, 4, 0xffff);
    wlh_expect_alu(&k, &w, 3);
    expect_mem(&k, &w, KOP_LDS_STORE, 0, 4, 4, 0xffff);
    wlh_expect_alu(&k, &w, 7);
    wlh_expect_alu(&k, &w, 1);
    expect_mem(&k, &w, KOP_LDS_STORE, 144 * 4, 4, 4, ALL64);
    expect_mem(&k, &w, KOP_LDS_STORE, 240 * 4, 4, 4, ALL64);
    cr_expect_eq(wlh_step(&k, &w).kind, KOP_BARRIER);
    expect_mem(&k, &w, KOP_LDS_LOAD, 12, 0, 4, ALL64);
    wlh_expect_alu(&k, &w, 17);
    wlh_expect_alu(&k, &w, 11);
    wlh_expect_alu(&k, &w, 1);
    expect_mem(&k, &w, KOP_LDS_LOAD, 0, 0, 4, 0xffffffff);
    wlh_expect_alu(&k, &w, 3);
    expect_mem(&k, &w, KOP_LOAD, arg(&k, NB_ATOMS), 16, 16, 0xffffffff);
    wlh_expect_alu(&k, &w, 1);
    expect_mem(&k, &w, KOP_LOAD, arg(&k, NB_PARAMS), 16, 16, 0xffffffff);
    wlh_expect_alu(&k, &w, 1);
    expect_mem(&k, &w, KOP_LDS_STORE, 16 * 4, 4, 4, ALL64);
    expect_mem(&k, &w, KOP_LDS_LOAD, 16, 0, 4, ALL64);
    wlh_expect_alu(&k, &w, 19);
    wlh_expect_alu(&k, &w, 1);
    cr_expect_eq(wlh_step(&k, &w).kind, KOP_BARRIER);
    expect_mem(&k, &w, KOP_LDS_LOAD, 4, 0, 4, ALL64);
    wlh_expect_alu(&k, &w, 5);
    expect_mem(&k, &w, KOP_LOAD, arg(&k, NB_ATOMS) + 32 * 16, 4, 4, ALL64);
    expect_mem(&k, &w, KOP_LDS_STORE, 336 * 4, 4, 4, ALL64);
    wlh_expect_alu(&k, &w, 2);
    expect_mem(&k, &w, KOP_LOAD, arg(&k, NB_PARAMS) + 32 * 16, 4, 4, ALL64);
    expect_mem(&k, &w, KOP_LDS_STORE, 464 * 4, 4, 4, ALL64);
    cr_expect_eq(wlh_step(&k, &w).kind, KOP_BARRIER);
    /* the first j: its atom broadcast from LDS, then the force table */
    expect_mem(&k, &w, KOP_LDS_LOAD, 12, 0, 4, ALL64);
    wlh_expect_alu(&k, &w, 5);
    wlh_expect_alu(&k, &w, 3);
    expect_mem(&k, &w, KOP_LDS_LOAD, 84 * 16, 0, 16, 0xffffffff);
    wlh_expect_alu(&k, &w, 15);
    struct kernel_op op = wlh_step(&k, &w);
    cr_expect(op.kind == KOP_LOAD && op.size == 16 && op.mask == 0xffffffff);
    for (unsigned l = 0; l < 32; l++)
        cr_expect_eq(w.lane_addr[l], arg(&k, NB_FTAB) + (37 * l + 11) % 4096 * 16, "lane %u", l);
    wlh_close(&h);
}

/* Warp 0 of each pair writes its slot (pair bx's 32 atoms), fences at .gpu
 * (release), and its thread 0 increments word bx % 2 of its patch's
 * counter line with a .gpu acq_rel atomic. Pair 1, the last of patch 0's
 * list, then waits with a .gpu acquire spin on words 0 and 1, sums slots 0
 * and 1 (pairs 0 and 1) into patch 0's forces; pair 0 sums nothing. */
Test(wl_hpc_b, namd_counts_at_gpu_scope_and_the_last_pair_sums_the_slots)
{
    struct wlh h;
    wlh_open_small(&h, &wl_namd, NULL);
    struct kernel k;
    wlh_next_kernel(&h, &k, "dev_nonbonded", 4, 1, 128, 1, "RRRRWWWWWWRWWWW");
    /* pair 0 declares its own slot of force_buffers, pair 1 both slots of
     * patch 0 (it writes slot 1 and sums 0 and 1); pair 3 patch 1's atoms
     * (its own, and its sum's positions) and patch 0's (its neighbour) */
    struct addr_range r[4];
    cr_assert_eq(k.ranges(&k, 0, NB_FBUF, r, 4), 1);
    cr_expect(r[0].lo == arg(&k, NB_FBUF) && r[0].hi == arg(&k, NB_FBUF) + 512);
    cr_assert_eq(k.ranges(&k, 1, NB_FBUF, r, 4), 1);
    cr_expect(r[0].lo == arg(&k, NB_FBUF) && r[0].hi == arg(&k, NB_FBUF) + 1024);
    cr_assert_eq(k.ranges(&k, 3, NB_ATOMS, r, 4), 1);
    cr_expect(r[0].lo == arg(&k, NB_ATOMS) && r[0].hi == arg(&k, NB_ATOMS) + 1024);
    for (uint32_t wg = 0; wg < 4; wg++) {
        struct kernel_warp w;
        wlh_warp_at(&w, &k, wg, 0);
        struct kernel_op op = next_of(&k, &w, KOP_STORE);
        cr_expect(op.kind == KOP_STORE && op.size == 16 && op.mask == 0xffffffff);
        cr_expect_eq(w.lane_addr[0], arg(&k, NB_FBUF) + wg * 32 * 16);
        op = next_of(&k, &w, KOP_FENCE);
        cr_expect(op.kind == KOP_FENCE && op.scope == SCOPE_GPU && op.sem == SEM_RELEASE,
                  "wg %u fence scope %u sem %u", wg, op.scope, op.sem);
        op = next_of(&k, &w, KOP_ATOMIC);
        cr_expect(op.kind == KOP_ATOMIC && op.scope == SCOPE_GPU && op.sem == SEM_ACQ_REL &&
                  op.mask == 1, "wg %u atomic", wg);
        cr_expect_eq(w.lane_addr[0], arg(&k, NB_COUNTERS) + (wg / 2 * 32 + wg % 2) * 4);
        op = next_of(&k, &w, KOP_LOAD);
        if (wg % 2 == 0) {
            cr_expect_eq(op.kind, KOP_EXIT, "wg %u sums", wg);
            continue;
        }
        cr_expect(op.kind == KOP_LOAD && op.scope == SCOPE_GPU && op.sem == SEM_ACQUIRE &&
                  op.flags & KOP_F_SPIN && op.mask == 3, "wg %u spin", wg);
        cr_expect_eq(w.lane_addr[1], arg(&k, NB_COUNTERS) + (wg / 2 * 32 + 1) * 4);
        op = next_of(&k, &w, KOP_LOAD); /* the force list */
        cr_expect_eq(w.lane_addr[0], arg(&k, NB_FLISTS) + wg / 2 * 32);
        for (unsigned s = 0; s < 2; s++) {
            op = next_of(&k, &w, KOP_LOAD);
            cr_expect_eq(w.lane_addr[0], arg(&k, NB_FBUF) + (wg - 1 + s) * 32 * 16, "slot %u", s);
        }
        op = next_of(&k, &w, KOP_STORE);
        cr_expect_eq(w.lane_addr[0], arg(&k, NB_FORCES) + wg / 2 * 32 * 16);
    }
    wlh_no_more(&h);
    wlh_close(&h);
}

Test(wl_hpc_b, namd_refuses_what_cannot_form_the_lists)
{
    wlh_expect_error(&wl_namd, "[workload]\natoms = 40\n",
                     "t.ini:2: [workload] atoms = 40: must be a multiple of 32 (the j tile)");
    wlh_expect_error(&wl_namd, "[workload]\npx = 64\npy = 64\npz = 2\n",
                     "t.ini:4: [workload] pz = 2: 221184 patch pairs: one launch holds at most "
                     "65535");
}
