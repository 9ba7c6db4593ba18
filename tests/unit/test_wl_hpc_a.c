/*
 * The benchmark library's HPC applications of HMG, first part (cusolver,
 * comd, hpgmg, miniamr; kernel descriptions driven by kdw.h): at each small
 * size the kernel sequence (names, grids, blocks, argument modes), the first
 * operations of chosen warps with their addresses, the scoped accesses and
 * fences, and the parameter errors. Expectations derived by hand from the
 * kernels (docs/workloads/<name>.md). Warps have 64 lanes here.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "wl_harness.h"

extern const struct wl_ops wl_cusolver, wl_comd, wl_hpgmg, wl_miniamr;

static addr_t arg(const struct kernel *k, unsigned a)
{
    return k->args[a].buf->base;
}

/* The warp's next op is a global or LDS access of `kind` whose active lane l
 * (of mask) is at base + l * stride; returns it for the caller's further
 * checks. */
static struct kernel_op expect_mem(const struct kernel *k, struct kernel_warp *w,
                                   enum kernel_op_kind kind, addr_t base, int64_t stride,
                                   uint64_t mask)
{
    struct kernel_op op = wlh_step(k, w);
    cr_expect_eq(op.kind, kind, "%s: op %u, want %u", k->name, op.kind, kind);
    uint64_t got = op.mask ? op.mask : low_bits(w->nlanes);
    cr_expect_eq(got, mask, "%s: mask %#llx, want %#llx", k->name, (unsigned long long)got,
                 (unsigned long long)mask);
    for (unsigned l = 0; l < 64; l++)
        if (mask >> l & 1)
            cr_expect_eq(w->lane_addr[l], base + (addr_t)((int64_t)l * stride),
                         "%s: lane %u at %#llx", k->name, l,
                         (unsigned long long)w->lane_addr[l]);
    return op;
}

static void expect_scoped(const struct kernel_op *op, unsigned scope, unsigned sem, bool spin)
{
    cr_expect_eq(op->scope, scope, "scope %u, want %u", op->scope, scope);
    cr_expect_eq(op->sem, sem, "sem %u, want %u", op->sem, sem);
    cr_expect_eq((op->flags & KOP_F_SPIN) != 0, spin);
}

/* ==== cusolver ==== */

/* n = 32, nb = 8: 4 steps, 10 launches; panels of 32, 24, 16 and 8 rows in
 * work-groups of 16 threads (2, 2, 1, 1), trsm on 24, 16, 8 columns, the
 * trailing GEMM on 24 x 24, 16 x 16, 8 x 8 (one 32 x 32 tile). */
Test(wl_hpc_a, cusolver_kernel_sequence)
{
    struct wlh h;
    struct kernel k;
    wlh_open_small(&h, &wl_cusolver, NULL);
    static const uint32_t panel_wgs[] = {2, 2, 1, 1};
    for (unsigned s = 0; s < 4; s++) {
        wlh_next_kernel(&h, &k, "getrf_panel", panel_wgs[s], 1, 16, 1, "WWWWW");
        cr_expect_eq(k.lds_b, 256);
        if (s == 3)
            break;
        wlh_next_kernel(&h, &k, "getrf_trsm", 1, 1, 32, 1, "WWR");
        wlh_next_kernel(&h, &k, "sgemm_tn", 1, 1, 16, 16, "RRW");
    }
    wlh_no_more(&h);
    cr_expect_eq(h.ops->kernels(h.self), 10);
    wlh_close(&h);
}

/* Panel 0, work-group 1 (rows 16 .. 31), column 0: its 16 elements of
 * column 0 (a row of 32 floats apart), the reduction (5, 69), lane 0's LDS
 * slot, the barrier, thread 0's maximum over the one slot, its partial
 * pivot released at the sync scope into part[0][1]; not work-group 0: the flag
 * of column 0 acquired at that scope, spinning. */
static void cusolver_publish_case(unsigned gpus, const char *extra, unsigned scope);

Test(wl_hpc_a, cusolver_panel_publishes_its_partial_pivot)
{
    /* sync_scope: auto is .gpu on one GPU, .sys on several; or as set */
    cusolver_publish_case(1, NULL, SCOPE_GPU);
    cusolver_publish_case(2, NULL, SCOPE_SYS);
    cusolver_publish_case(2, "sync_scope = gpu\n", SCOPE_GPU);
    cusolver_publish_case(1, "sync_scope = sys\n", SCOPE_SYS);
}

static void cusolver_publish_case(unsigned gpus, const char *extra, unsigned scope)
{
    struct wlh h;
    struct kernel k;
    wlh_open_small_gpus(&h, &wl_cusolver, extra, gpus);
    wlh_next_kernel(&h, &k, "getrf_panel", 2, 1, 16, 1, "WWWWW");
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 1, 0);
    wlh_expect_alu(&k, &w, 34);
    wlh_expect_alu(&k, &w, 10);
    expect_mem(&k, &w, KOP_LOAD, arg(&k, 0) + 16 * 32 * 4, 32 * 4, 0xffff);
    wlh_expect_alu(&k, &w, 5);
    wlh_expect_alu(&k, &w, 69);
    expect_mem(&k, &w, KOP_LDS_STORE, 0, 0, 1);
    wlh_expect_alu(&k, &w, 1);
    cr_expect_eq(wlh_step(&k, &w).kind, KOP_BARRIER);
    wlh_expect_alu(&k, &w, 1);
    wlh_expect_alu(&k, &w, 5);
    wlh_expect_alu(&k, &w, 3);
    expect_mem(&k, &w, KOP_LDS_LOAD, 0, 0, 1);
    wlh_expect_alu(&k, &w, 4);
    wlh_expect_alu(&k, &w, 3);
    struct kernel_op op = expect_mem(&k, &w, KOP_STORE, arg(&k, 2) + 8, 0, 1);
    expect_scoped(&op, scope, SEM_RELEASE, false);
    wlh_expect_alu(&k, &w, 3);
    wlh_expect_alu(&k, &w, 4);
    op = expect_mem(&k, &w, KOP_LOAD, arg(&k, 3), 0, 1);
    expect_scoped(&op, scope, SEM_ACQUIRE, true);
    wlh_close(&h);
}

/* Work-group 0 after its own partial pivot: both partials gathered (lanes
 * 0 and 1, acquire, spinning), the reduction (68), ipiv[0] stored, rows 0
 * and piv[0] swapped over the panel's 8 columns, a gpu fence, the flag
 * released. */
Test(wl_hpc_a, cusolver_panel_work_group_0_gathers_and_swaps)
{
    struct wlh h;
    struct kernel k;
    wlh_open_small(&h, &wl_cusolver, NULL);
    wlh_next_kernel(&h, &k, "getrf_panel", 2, 1, 16, 1, "WWWWW");
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 0, 0);
    struct kernel_op op;
    do
        op = wlh_step(&k, &w);
    while (op.kind != KOP_STORE);
    expect_scoped(&op, SCOPE_GPU, SEM_RELEASE, false);
    cr_expect_eq(w.lane_addr[0], arg(&k, 2));
    wlh_expect_alu(&k, &w, 3);
    wlh_expect_alu(&k, &w, 6);
    op = expect_mem(&k, &w, KOP_LOAD, arg(&k, 2), 8, 3);
    expect_scoped(&op, SCOPE_GPU, SEM_ACQUIRE, true);
    wlh_expect_alu(&k, &w, 68);
    wlh_expect_alu(&k, &w, 3);
    expect_mem(&k, &w, KOP_STORE, arg(&k, 4), 0, 1);
    wlh_expect_alu(&k, &w, 8);
    expect_mem(&k, &w, KOP_LOAD, arg(&k, 0), 4, 0xff);
    wlh_expect_alu(&k, &w, 5);
    op = wlh_step(&k, &w);
    cr_assert_eq(op.kind, KOP_LOAD);
    addr_t prow = w.lane_addr[0] - arg(&k, 0);
    cr_expect(prow % (32 * 4) == 0 && prow < 32 * 32 * 4, "pivot row at %llu",
              (unsigned long long)prow);
    expect_mem(&k, &w, KOP_STORE, arg(&k, 0), 4, 0xff);
    expect_mem(&k, &w, KOP_STORE, arg(&k, 0) + prow, 4, 0xff);
    op = wlh_step(&k, &w);
    cr_expect(op.kind == KOP_FENCE && op.scope == SCOPE_GPU && op.sem == SEM_ACQ_REL);
    wlh_expect_alu(&k, &w, 2);
    wlh_expect_alu(&k, &w, 4);
    op = expect_mem(&k, &w, KOP_STORE, arg(&k, 3), 0, 1);
    expect_scoped(&op, SCOPE_GPU, SEM_RELEASE, false);
    wlh_close(&h);
}

/* Step 0's trsm: one thread per column 8 .. 31 (lanes 0 .. 23): row 0's
 * element, ipiv[0] (one word), the pivot row's element, the swap; the
 * GEMM's operands: L21 = W from column 8 (K-major, ld 32), U from column 8,
 * C = A from (8, 8). */
Test(wl_hpc_a, cusolver_trsm_swaps_then_the_update_reads_the_workspaces)
{
    struct wlh h;
    struct kernel k;
    wlh_open_small(&h, &wl_cusolver, NULL);
    wlh_next_kernel(&h, &k, "getrf_panel", 2, 1, 16, 1, "WWWWW");
    wlh_next_kernel(&h, &k, "getrf_trsm", 1, 1, 32, 1, "WWR");
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 0, 0);
    wlh_expect_alu(&k, &w, 20);
    wlh_expect_alu(&k, &w, 9);
    expect_mem(&k, &w, KOP_LOAD, arg(&k, 0) + 8 * 4, 4, 0xffffff);
    expect_mem(&k, &w, KOP_LOAD, arg(&k, 2), 0, 0xffffff);
    wlh_expect_alu(&k, &w, 4);
    struct kernel_op op = wlh_step(&k, &w);
    cr_assert_eq(op.kind, KOP_LOAD);
    addr_t prow = w.lane_addr[0] - arg(&k, 0) - 8 * 4;
    cr_expect(prow % (32 * 4) == 0 && prow < 32 * 32 * 4);
    expect_mem(&k, &w, KOP_STORE, arg(&k, 0) + 8 * 4, 4, 0xffffff);
    expect_mem(&k, &w, KOP_STORE, arg(&k, 0) + 8 * 4 + prow, 4, 0xffffff);
    wlh_next_kernel(&h, &k, "sgemm_tn", 1, 1, 16, 16, "RRW");
    cr_expect_eq(k.args[0].buf->name[0], 'W');
    cr_expect_eq(k.args[1].buf->name[0], 'U');
    cr_expect_eq(k.args[2].buf->name[0], 'A');
    wlh_close(&h);
}

Test(wl_hpc_a, cusolver_refuses_bad_sizes)
{
    wlh_expect_error(&wl_cusolver, "[workload]\nn = 100\nnb = 32\n",
                     "t.ini:2: [workload] n = 100: not a multiple of nb = 32");
    wlh_expect_error(&wl_cusolver, "[workload]\nnb = 12\n",
                     "t.ini:2: [workload] nb = 12: not a multiple of 8");
    wlh_expect_error(&wl_cusolver, "[workload]\nn = 20480\npanel_block = 64\n",
                     "t.ini:2: [workload] n = 20480: 20480 rows need 320 panel work-groups, more than "
                     "the 64 partial pivots work-group 0 gathers (panel_block)");
}

/* ==== comd ==== */

/* x = y = 2, z = 3 unit cells: 1 x 1 x 2 boxes (7.23 / 4.95 and 10.85 /
 * 4.95 A), 24 atoms each; one step of six kernels over the 2 boxes of 64
 * slots. */
Test(wl_hpc_a, comd_kernel_sequence)
{
    struct wlh h;
    struct kernel k;
    wlh_open_small(&h, &wl_comd, NULL);
    wlh_next_kernel(&h, &k, "advance_velocity", 2, 1, 64, 1, "RWWWRRR");
    wlh_next_kernel(&h, &k, "advance_position", 2, 1, 64, 1, "RRRRRRWWW");
    wlh_next_kernel(&h, &k, "eam_force_1", 2, 1, 64, 1, "RRRRRWWWWWRR");
    cr_expect_eq(k.lds_b, 3 * 64 * 8);
    wlh_next_kernel(&h, &k, "eam_force_2", 2, 1, 64, 1, "RWRWR");
    wlh_next_kernel(&h, &k, "eam_force_3", 2, 1, 64, 1, "RRRRRWWWRR");
    cr_expect_eq(k.lds_b, 4 * 64 * 8);
    wlh_next_kernel(&h, &k, "advance_velocity", 2, 1, 64, 1, "RWWWRRR");
    wlh_no_more(&h);
    wlh_close(&h);
}

/* eam_force_1, box 0: its 24 atoms' positions; neighbour 0 (dz = -1) is box
 * 1, whose 24 positions are staged into LDS between two barriers; then its
 * first atom's three LDS reads (one address for every lane), the cutoff
 * test, and the pair term's table reads at shell (tx mod 3): entries 255 +
 * 93 (tx mod 3) and 257 + 93 (tx mod 3). Box 1 declares box 0's positions
 * (its neighbours dz = -1 and +1) with its own. */
Test(wl_hpc_a, comd_force_stages_the_neighbour_box)
{
    struct wlh h;
    struct kernel k;
    wlh_open_small(&h, &wl_comd, NULL);
    wlh_next_kernel(&h, &k, "advance_velocity", 2, 1, 64, 1, "RWWWRRR");
    wlh_next_kernel(&h, &k, "advance_position", 2, 1, 64, 1, "RRRRRRWWW");
    wlh_next_kernel(&h, &k, "eam_force_1", 2, 1, 64, 1, "RRRRRWWWWWRR");
    const uint64_t atoms = 0xffffff;
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 0, 0);
    wlh_expect_alu(&k, &w, 15);
    expect_mem(&k, &w, KOP_LOAD, arg(&k, 0), 0, ~0ull);
    wlh_expect_alu(&k, &w, 8);
    expect_mem(&k, &w, KOP_LOAD, arg(&k, 2), 8, atoms);
    wlh_expect_alu(&k, &w, 1);
    expect_mem(&k, &w, KOP_LOAD, arg(&k, 3), 8, atoms);
    wlh_expect_alu(&k, &w, 1);
    expect_mem(&k, &w, KOP_LOAD, arg(&k, 4), 8, atoms);
    wlh_expect_alu(&k, &w, 15);
    wlh_expect_alu(&k, &w, 4);
    expect_mem(&k, &w, KOP_LOAD, arg(&k, 1), 0, ~0ull);
    wlh_expect_alu(&k, &w, 2);
    expect_mem(&k, &w, KOP_LOAD, arg(&k, 0) + 4, 0, ~0ull);
    cr_expect_eq(wlh_step(&k, &w).kind, KOP_BARRIER);
    wlh_expect_alu(&k, &w, 6);
    for (unsigned d = 0; d < 3; d++) {
        expect_mem(&k, &w, KOP_LOAD, arg(&k, 2 + d) + 64 * 8, 8, atoms);
        expect_mem(&k, &w, KOP_LDS_STORE, d * 64 * 8, 8, atoms);
        if (d < 2)
            wlh_expect_alu(&k, &w, 1);
    }
    cr_expect_eq(wlh_step(&k, &w).kind, KOP_BARRIER);
    wlh_expect_alu(&k, &w, 7);
    wlh_expect_alu(&k, &w, 2);
    expect_mem(&k, &w, KOP_LDS_LOAD, 0, 0, atoms);
    wlh_expect_alu(&k, &w, 1);
    expect_mem(&k, &w, KOP_LDS_LOAD, 64 * 8, 0, atoms);
    wlh_expect_alu(&k, &w, 1);
    expect_mem(&k, &w, KOP_LDS_LOAD, 128 * 8, 0, atoms);
    wlh_expect_alu(&k, &w, 8);
    wlh_expect_alu(&k, &w, 16);
    for (int off = -1; off <= 1; off += 2) {
        struct kernel_op op = wlh_step(&k, &w);
        cr_assert_eq(op.kind, KOP_LOAD);
        for (unsigned l = 0; l < 24; l++)
            cr_expect_eq(w.lane_addr[l], arg(&k, 10) + (256 + off + 93 * (l % 3)) * 8,
                         "lane %u", l);
    }
    struct addr_range r[4];
    /* the slot bounds read from arrays are not narrowed: both boxes' 64 slots */
    cr_assert_eq(k.ranges(&k, 1, 2, r, 4), 1);
    cr_expect(r[0].lo == arg(&k, 2) && r[0].hi == arg(&k, 2) + 2 * 64 * 8);
    wlh_close(&h);
}

/* eam_force_3 stages the neighbour box's embedding derivatives too (LDS
 * slots 192 ..), written by eam_force_2 in the kernel before. */
Test(wl_hpc_a, comd_embedding_force_reads_the_neighbours_derivatives)
{
    struct wlh h;
    struct kernel k;
    wlh_open_small(&h, &wl_comd, NULL);
    for (unsigned i = 0; i < 5; i++)
        cr_assert(h.ops->next_kernel(h.self, &k));
    cr_expect_str_eq(k.name, "eam_force_3");
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 1, 0);
    struct kernel_op op;
    unsigned lds_stores = 0;
    do {
        op = wlh_step(&k, &w);
        lds_stores += op.kind == KOP_LDS_STORE;
    } while (lds_stores < 3);
    wlh_expect_alu(&k, &w, 1);
    /* box 1's neighbour 0 is box 0 */
    expect_mem(&k, &w, KOP_LOAD, arg(&k, 8), 8, 0xffffff);
    expect_mem(&k, &w, KOP_LDS_STORE, 192 * 8, 8, 0xffffff);
    cr_expect_eq(wlh_step(&k, &w).kind, KOP_BARRIER);
    wlh_close(&h);
}

/* At least 2 unit cells (7.23 A) per side: a box at least the cutoff wide. */
Test(wl_hpc_a, comd_refuses_fewer_than_two_cells)
{
    wlh_expect_error(&wl_comd, "[workload]\nx = 49\ny = 1\n",
                     "t.ini:3: [workload] y = 1: out of range [2, 128]");
}
/* ==== hpgmg ==== */

/* The lanes of a 32 x 4 work-group's warp 0 (64 lanes: rows ty 0 and 1)
 * with i = tx < n and j = ty < n, and of those the ones where (i + j + c)
 * is even (c < 0: all). */
static uint64_t hg_lanes(unsigned n, int c)
{
    uint64_t m = 0;
    for (unsigned l = 0; l < 64; l++)
        if (l % 32 < n && l / 32 < n && (c < 0 || (l % 32 + l / 32 + (unsigned)c) % 2 == 0))
            m |= 1ull << l;
    return m;
}

/* The warp's next op is a global access of 8 B whose lane l (of mask) is
 * at element e0 + (l % 32) * si + (l / 32) * sj of buffer base. */
static void hg_expect(const struct kernel *k, struct kernel_warp *w, enum kernel_op_kind kind,
                      addr_t base, uint64_t e0, uint64_t si, uint64_t sj, uint64_t mask)
{
    struct kernel_op op = wlh_step(k, w);
    cr_expect_eq(op.kind, kind, "%s: op %u, want %u", k->name, op.kind, kind);
    uint64_t got = op.mask ? op.mask : low_bits(w->nlanes);
    cr_expect_eq(got, mask, "%s: mask %#llx, want %#llx", k->name, (unsigned long long)got,
                 (unsigned long long)mask);
    for (unsigned l = 0; l < 64; l++)
        if (mask >> l & 1)
            cr_expect_eq(w->lane_addr[l], base + 8 * (e0 + (l % 32) * si + (l / 32) * sj),
                         "%s: lane %u", k->name, l);
}

/* log2_dim 2, 2^3 boxes, one smooth, one bottom smooth: levels of 4^3 and
 * 2^3 cells per box (6^3 and 4^3 padded). 31 launches: level 0's smooth
 * (per colour three face exchanges and the sweep), exchanges and the
 * residual, restriction, level 1 zeroed, its bottom smooth, the
 * interpolation, level 0's post-smooth. */
Test(wl_hpc_a, hpgmg_v_cycle_sequence)
{
    struct wlh h;
    struct kernel k;
    wlh_open_small(&h, &wl_hpgmg, NULL);
    static const char *const smooth[] = {"exchange_faces", "exchange_faces", "exchange_faces",
                                         "smooth_gsrb"};
    for (unsigned part = 0; part < 5; part++) {
        unsigned n = part == 1 ? 6 : part == 3 ? 1 : 8;
        for (unsigned i = 0; i < n; i++) {
            const char *name = smooth[i % 4];
            if (part == 1)
                name = i < 3 ? "exchange_faces" : i == 3 ? "residual" : i == 4 ? "restriction"
                                                                               : "zero_vector";
            if (part == 3)
                name = "interpolation_pc";
            bool exch = !strcmp(name, "exchange_faces");
            const char *modes = exch ? "WR" : !strcmp(name, "smooth_gsrb") ? "WRRRRRR"
                                : !strcmp(name, "residual") ? "WRRRRRR"
                                : !strcmp(name, "restriction") ? "WR" : "W";
            wlh_next_kernel(&h, &k, name, 1, 1, 32, 4, modes);
            cr_expect_eq(k.grid.z, exch ? 16u : 8u, "%s grid z %u", name, k.grid.z);
        }
    }
    wlh_no_more(&h);
    wlh_close(&h);
}

/* The first exchange (i faces, level 0): face 0 is box 0's low side at the
 * domain's edge, copied from its own first plane (elements 43 + 6 u + 36
 * v) to its ghost plane (42 + ...); face 2 is box 1's low side, from box
 * 0's last plane (46 + ...) into box 1's ghosts (216 + 42 + ...). */
Test(wl_hpc_a, hpgmg_exchange_copies_the_neighbours_plane)
{
    struct wlh h;
    struct kernel k;
    wlh_open_small(&h, &wl_hpgmg, NULL);
    wlh_next_kernel(&h, &k, "exchange_faces", 1, 1, 32, 4, "WR");
    uint64_t m = hg_lanes(4, -1);
    for (unsigned f = 0; f < 3; f += 2) {
        struct kernel_warp w;
        wlh_warp_at(&w, &k, f, 0);
        wlh_expect_alu(&k, &w, 26);
        hg_expect(&k, &w, KOP_LOAD, arg(&k, 1), f * 3, 0, 0, m);
        wlh_expect_alu(&k, &w, 3);
        hg_expect(&k, &w, KOP_LOAD, arg(&k, 0), f ? 46 : 43, 6, 36, m);
        hg_expect(&k, &w, KOP_LOAD, arg(&k, 1), f * 3 + 2, 0, 0, m);
        wlh_expect_alu(&k, &w, 2);
        hg_expect(&k, &w, KOP_LOAD, arg(&k, 1), f * 3 + 1, 0, 0, m);
        wlh_expect_alu(&k, &w, 3);
        hg_expect(&k, &w, KOP_STORE, arg(&k, 0), f ? 216 + 42 : 42, 6, 36, m);
    }
    wlh_close(&h);
}

/* The red sweep of box 0, k = 0: the lanes with i + j even; alpha, the
 * centre (43 + i + 6 j), its i neighbours and face coefficients, ...;
 * then the restriction reads the residual's 8 fine cells per coarse cell
 * (I, J < 2) and writes level 1's rhs (after level 0's 8 boxes of 216). */
Test(wl_hpc_a, hpgmg_sweep_and_restriction_addresses)
{
    struct wlh h;
    struct kernel k;
    wlh_open_small(&h, &wl_hpgmg, NULL);
    for (unsigned i = 0; i < 4; i++)
        cr_assert(h.ops->next_kernel(h.self, &k));
    cr_expect_str_eq(k.name, "smooth_gsrb");
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 0, 0);
    uint64_t red = hg_lanes(4, 0);
    wlh_expect_alu(&k, &w, 47);
    wlh_expect_alu(&k, &w, 6);
    wlh_expect_alu(&k, &w, 5);
    hg_expect(&k, &w, KOP_LOAD, arg(&k, 2), 43, 1, 6, red);
    wlh_expect_alu(&k, &w, 1);
    hg_expect(&k, &w, KOP_LOAD, arg(&k, 0), 43, 1, 6, red);
    wlh_expect_alu(&k, &w, 1);
    hg_expect(&k, &w, KOP_LOAD, arg(&k, 0), 44, 1, 6, red);
    wlh_expect_alu(&k, &w, 2);
    hg_expect(&k, &w, KOP_LOAD, arg(&k, 3), 44, 1, 6, red);
    for (unsigned i = 4; i < 13; i++)
        cr_assert(h.ops->next_kernel(h.self, &k));
    cr_expect_str_eq(k.name, "restriction");
    wlh_warp_at(&w, &k, 0, 0);
    uint64_t m = hg_lanes(2, -1);
    wlh_expect_alu(&k, &w, 62);
    wlh_expect_alu(&k, &w, 2);
    hg_expect(&k, &w, KOP_LOAD, arg(&k, 1), 44, 2, 12, m);
    hg_expect(&k, &w, KOP_LOAD, arg(&k, 1), 43, 2, 12, m);
    for (unsigned i = 0; i < 6; i++) {
        struct kernel_op op = wlh_step(&k, &w);
        if (op.kind == KOP_ALU)
            op = wlh_step(&k, &w);
        cr_expect_eq(op.kind, KOP_LOAD);
    }
    wlh_expect_alu(&k, &w, 2);
    hg_expect(&k, &w, KOP_STORE, arg(&k, 0), 8 * 216 + 1 + 4 + 16, 1, 4, m);
    wlh_close(&h);
}

/* ==== miniamr ==== */

/* 2 x 2 x 1 blocks of 4^3 cells (6^3 padded: P = 216, SI = 36, SJ = 6), 2
 * variables, 2 stages, a checksum after the second: per stage the x and y
 * exchanges (4 internal faces each; no z face), the stencil. */
Test(wl_hpc_a, miniamr_stage_sequence)
{
    struct wlh h;
    struct kernel k;
    wlh_open_small(&h, &wl_miniamr, NULL);
    for (unsigned s = 0; s < 2; s++) {
        wlh_next_kernel(&h, &k, "comm_faces", 1, 1, 32, 4, "WR");
        cr_expect_eq(k.grid.z, 4);
        wlh_next_kernel(&h, &k, "comm_faces", 1, 1, 32, 4, "WR");
        cr_expect_eq(k.grid.z, 4);
        wlh_next_kernel(&h, &k, "stencil_7", 4, 1, 4, 4, "W");
        cr_expect_eq(k.lds_b, 4 * 16 * 8);
    }
    wlh_next_kernel(&h, &k, "check_sum", 4, 1, 4, 4, "RW");
    wlh_no_more(&h);
    wlh_close(&h);
}

/* The x exchange's face 0 is block 0's high side, copied from block 1's
 * first plane (432 + 7 + 36, per variable 216 further) into block 0's
 * ghosts (7 + 5 x 36); lanes along z (1 apart) and y (6 apart). */
Test(wl_hpc_a, miniamr_exchange_copies_the_neighbours_plane)
{
    struct wlh h;
    struct kernel k;
    wlh_open_small(&h, &wl_miniamr, NULL);
    wlh_next_kernel(&h, &k, "comm_faces", 1, 1, 32, 4, "WR");
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 0, 0);
    uint64_t m = hg_lanes(4, -1);
    wlh_expect_alu(&k, &w, 26);
    hg_expect(&k, &w, KOP_LOAD, arg(&k, 1), 0, 0, 0, m);
    wlh_expect_alu(&k, &w, 1);
    hg_expect(&k, &w, KOP_LOAD, arg(&k, 1), 1, 0, 0, m);
    wlh_expect_alu(&k, &w, 12);
    for (unsigned v = 0; v < 2; v++) {
        wlh_expect_alu(&k, &w, 1);
        hg_expect(&k, &w, KOP_LOAD, arg(&k, 0), 475 + 216 * v, 1, 6, m);
        hg_expect(&k, &w, KOP_STORE, arg(&k, 0), 187 + 216 * v, 1, 6, m);
        wlh_expect_alu(&k, &w, 5);
    }
    wlh_close(&h);
}

/* Block 1's stencil, variable 0, i = 0: the 7 points of cell (0, j, k) =
 * 432 + 43 + k + 6 j (lane 4 j + k), the average into its LDS work slot;
 * after the barrier, copied back. check_sum adds the block's sum of each
 * variable with a relaxed gpu-scope atomic (thread 0). */
Test(wl_hpc_a, miniamr_stencil_and_checksum)
{
    struct wlh h;
    struct kernel k;
    wlh_open_small(&h, &wl_miniamr, NULL);
    for (unsigned i = 0; i < 3; i++)
        cr_assert(h.ops->next_kernel(h.self, &k));
    cr_expect_str_eq(k.name, "stencil_7");
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 1, 0);
    static const int off[] = {-36, -6, -1, 0, 1, 6, 36}, alu[] = {3, 0, 2, 1, 1, 2, 2};
    wlh_expect_alu(&k, &w, 49);
    wlh_expect_alu(&k, &w, 11);
    for (unsigned p = 0; p < 7; p++) {
        if (alu[p])
            wlh_expect_alu(&k, &w, alu[p]);
        struct kernel_op op = wlh_step(&k, &w);
        cr_assert_eq(op.kind, KOP_LOAD);
        for (unsigned l = 0; l < 16; l++)
            cr_expect_eq(w.lane_addr[l], arg(&k, 0) + 8 * (475 + off[p] + l % 4 + 6 * (l / 4)),
                         "point %u lane %u", p, l);
    }
    wlh_expect_alu(&k, &w, 2);
    expect_mem(&k, &w, KOP_LDS_STORE, 0, 8, 0xffff);
    for (unsigned i = 0; i < 4; i++)
        cr_assert(h.ops->next_kernel(h.self, &k));
    cr_expect_str_eq(k.name, "check_sum");
    wlh_warp_at(&w, &k, 0, 0);
    struct kernel_op op;
    do
        op = wlh_step(&k, &w);
    while (op.kind != KOP_ATOMIC);
    cr_expect_eq(w.lane_addr[0], arg(&k, 1));
    cr_expect_eq(op.mask, 1);
    expect_scoped(&op, SCOPE_GPU, SEM_RELAXED, false);
    wlh_close(&h);
}

/* The face lists hold 32-bit element offsets: larger meshes are refused.
 * hpgmg 4^3 boxes of 512^3: 64 x (514^3 + 258^3 + 130^3 + 66^3 + 34^3 + 18^3
 * + 10^3 + 6^3 + 4^3) cells; miniamr 16^3 blocks x 200 variables x 34^3. */
Test(wl_hpc_a, hpgmg_and_miniamr_refuse_meshes_past_the_face_lists)
{
    wlh_expect_error(&wl_hpgmg, "[workload]\nlog2_dim = 9\nboxes = 4\n",
                     "t.ini:2: [workload] log2_dim = 9: 9952074752 cells per vector with "
                     "boxes = 4: more than the 2^32 the face lists address");
    wlh_expect_error(&wl_miniamr, "[workload]\nnum_vars = 200\nnx = 32\nny = 32\nnz = 32\n",
                     "t.ini:2: [workload] num_vars = 200: 32197836800 values in all: more "
                     "than the 2^32 the face lists address");
}
