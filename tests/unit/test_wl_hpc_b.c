/*
 * The benchmark library's HPC applications of HMG, second part (namd, nekbone,
 * snap, minicontact;
 * kernel descriptions driven by kdw.h): at each small size the kernel
 * sequence (names, grids, blocks, argument modes), the first operations of
 * chosen warps with their addresses, the scoped synchronization with its
 * scopes, and the parameter errors. Expectations derived by hand from the
 * kernels (docs/workloads/namd.md, nekbone.md, snap.md, minicontact.md).
 * Warps have 64 lanes here.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "test_util.h"
#include "wl_harness.h"

extern const struct wl_ops wl_namd, wl_nekbone, wl_snap, wl_minicontact;

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

/* The next op is an LDS load of 8 bytes: lane l (of 16, tx = l % 4, ty =
 * l / 4) at 8 m + tx * cs + ty * rs bytes (D[tx][m]: cs = 32; D[ty][m]: rs
 * = 32; D[m][tx]: 8 * 4 m, cs = 8). */
static void expect_grid_lds(const struct kernel *k, struct kernel_warp *w, unsigned m,
                            addr_t cs, addr_t rs)
{
    struct kernel_op op = wlh_step(k, w);
    cr_expect(op.kind == KOP_LDS_LOAD && op.size == 8, "%s: op %u", k->name, op.kind);
    for (unsigned l = 0; l < 16; l++)
        cr_expect_eq(w->lane_addr[l], 8 * m + l % 4 * cs + l / 4 * rs, "lane %u", l);
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

/* Warp 0 of each pair writes its slot (pair bx's 32 atoms), fences at the
 * count's scope (release), and its thread 0 increments word bx % 2 of its
 * patch's counter line with an acq_rel atomic of that scope. Pair 1, the
 * last of patch 0's list, then waits with an acquire spin of that scope on
 * words 0 and 1, sums slots 0 and 1 (pairs 0 and 1) into patch 0's forces;
 * pair 0 sums nothing. */
static void namd_count_case(unsigned gpus, const char *extra, unsigned scope)
{
    struct wlh h;
    wlh_open_small_gpus(&h, &wl_namd, extra, gpus);
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
        cr_expect(op.kind == KOP_FENCE && op.scope == scope && op.sem == SEM_RELEASE,
                  "%u GPUs, %s: wg %u fence scope %u sem %u", gpus, extra ? extra : "auto", wg,
                  op.scope, op.sem);
        op = next_of(&k, &w, KOP_ATOMIC);
        cr_expect(op.kind == KOP_ATOMIC && op.scope == scope && op.sem == SEM_ACQ_REL &&
                  op.mask == 1, "wg %u atomic", wg);
        cr_expect_eq(w.lane_addr[0], arg(&k, NB_COUNTERS) + (wg / 2 * 32 + wg % 2) * 4);
        op = next_of(&k, &w, KOP_LOAD);
        if (wg % 2 == 0) {
            cr_expect_eq(op.kind, KOP_EXIT, "wg %u sums", wg);
            continue;
        }
        cr_expect(op.kind == KOP_LOAD && op.scope == scope && op.sem == SEM_ACQUIRE &&
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

Test(wl_hpc_b, namd_counts_at_gpu_scope_and_the_last_pair_sums_the_slots)
{
    /* sync_scope: auto is .gpu on one GPU, .sys on several; or as set */
    const struct {
        unsigned gpus;
        const char *extra;
        unsigned scope;
    } v[] = {{1, NULL, SCOPE_GPU}, {4, NULL, SCOPE_SYS}, {4, "sync_scope = gpu\n", SCOPE_GPU},
             {1, "sync_scope = sys\n", SCOPE_SYS}};
    for (unsigned c = 0; c < 4; c++)
        namd_count_case(v[c].gpus, v[c].extra, v[c].scope);
}

Test(wl_hpc_b, namd_refuses_what_cannot_form_the_lists)
{
    wlh_expect_error(&wl_namd, "[workload]\natoms = 40\n",
                     "t.ini:2: [workload] atoms = 40: must be a multiple of 32 (the j tile)");
    wlh_expect_error(&wl_namd, "[workload]\npx = 64\npy = 64\npz = 2\n",
                     "t.ini:4: [workload] pz = 2: 221184 patch pairs: one launch holds at most "
                     "65535");
}

/* ==== nekbone ==== */

/* 2 x 1 x 1 elements of 4 x 4 x 4 points (128 points), one iteration: the
 * initialisation, then the 13 launches of a CG iteration. */
Test(wl_hpc_b, nekbone_runs_the_cg_iteration_kernel_by_kernel)
{
    struct wlh h;
    wlh_open_small(&h, &wl_nekbone, NULL);
    struct kernel k;
    wlh_next_kernel(&h, &k, "cg_init", 1, 1, 256, 1, "WWR");
    wlh_next_kernel(&h, &k, "nek_copy", 1, 1, 256, 1, "WR");
    static const char *const seq[][2] = {
        {"glsc3_part", "RRRW"}, {"glsc3_final", "RW"}, {"add2s1", "WR"}, {"ax_e", "WRRR"},
        {"gs_op", "WRR"}, {"add2s2", "WR"}, {"glsc3_part", "RRRW"}, {"glsc3_final", "RW"},
        {"add2s2", "WR"}, {"add2s2", "WR"}, {"glsc3_part", "RRRW"}, {"glsc3_final", "RW"}};
    for (unsigned i = 0; i < 12; i++) {
        bool ax = !strcmp(seq[i][0], "ax_e");
        wlh_next_kernel(&h, &k, seq[i][0], ax ? 2 : 1, 1, ax ? 4 : 256, ax ? 4 : 1, seq[i][1]);
    }
    wlh_no_more(&h);
    wlh_close(&h);
}

/* Element 1's work-group (16 threads, lane l = ty * 4 + tx): the derivative
 * matrix into LDS, its four planes of p (points 64 + 16 k + l), then the
 * entries of D each thread keeps in registers (D[tx][m], D[ty][m],
 * D[m][tx]). */
Test(wl_hpc_b, nekbone_ax_loads_its_element_into_lds)
{
    struct wlh h;
    wlh_open_small(&h, &wl_nekbone, NULL);
    struct kernel k;
    for (unsigned i = 0; i < 6; i++)
        cr_assert(h.ops->next_kernel(h.self, &k));
    cr_assert_str_eq(k.name, "ax_e");
    cr_expect_eq(k.lds_b, (16 + 4 * 64) * 8);
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 1, 0);
    wlh_expect_alu(&k, &w, 9);
    expect_mem(&k, &w, KOP_LOAD, arg(&k, 3), 8, 8, 0xffff);
    wlh_expect_alu(&k, &w, 5);
    expect_mem(&k, &w, KOP_LDS_STORE, 0, 8, 8, 0xffff);
    wlh_expect_alu(&k, &w, 8);
    for (unsigned p = 0; p < 4; p++) {
        expect_mem(&k, &w, KOP_LOAD, arg(&k, 1) + (64 + 16 * p) * 8, 8, 8, 0xffff);
        expect_mem(&k, &w, KOP_LDS_STORE, (16 + 16 * p) * 8, 8, 8, 0xffff);
    }
    cr_expect_eq(wlh_step(&k, &w).kind, KOP_BARRIER);
    wlh_expect_alu(&k, &w, 1);
    for (unsigned m = 0; m < 4; m++) {
        expect_grid_lds(&k, &w, m, 4 * 8, 0);
        expect_grid_lds(&k, &w, m, 0, 4 * 8);
        expect_grid_lds(&k, &w, 4 * m, 8, 0);
    }
    wlh_close(&h);
}

/* gs_op over the 16 nodes of the face the two elements share, node l at
 * (y, z) = (l % 4, l / 4): its copies are point 4 l + 3 of element 0 and
 * point 64 + 4 l of element 1 (col[2 l], col[2 l + 1]); the thread gathers
 * both and scatters the sum back. */
Test(wl_hpc_b, nekbone_gs_gathers_the_shared_face)
{
    struct wlh h;
    wlh_open_small(&h, &wl_nekbone, NULL);
    struct kernel k;
    for (unsigned i = 0; i < 7; i++)
        cr_assert(h.ops->next_kernel(h.self, &k));
    cr_assert_str_eq(k.name, "gs_op");
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 0, 0);
    wlh_expect_alu(&k, &w, 10);
    wlh_expect_alu(&k, &w, 2);
    expect_mem(&k, &w, KOP_LOAD, arg(&k, 1), 4, 4, 0xffff);
    expect_mem(&k, &w, KOP_LOAD, arg(&k, 1) + 4, 4, 4, 0xffff);
    wlh_expect_alu(&k, &w, 15);
    for (unsigned c = 0; c < 2; c++) {
        expect_mem(&k, &w, KOP_LOAD, arg(&k, 2) + c * 4, 8, 4, 0xffff);
        wlh_expect_alu(&k, &w, 2);
        expect_mem(&k, &w, KOP_LOAD, arg(&k, 0) + (c ? 64 : 3) * 8, 32, 8, 0xffff);
        wlh_expect_alu(&k, &w, 6);
    }
    wlh_expect_alu(&k, &w, 3);
    expect_mem(&k, &w, KOP_LOAD, arg(&k, 2), 8, 4, 0xffff);
    wlh_expect_alu(&k, &w, 2);
    expect_mem(&k, &w, KOP_STORE, arg(&k, 0) + 3 * 8, 32, 8, 0xffff);
    wlh_close(&h);
}

Test(wl_hpc_b, nekbone_refuses_an_element_larger_than_the_lds_or_a_box_too_large)
{
    struct wlh h;
    memset(&h, 0, sizeof h);
    h.ops = &wl_nekbone;
    wl_env_init(&h.env, 4096, 64, 4, 8, 1);
    h.env.lds_b = 65536;
    cr_assert_not(tcfg_load(&h.cfg, "workload", wl_nekbone.keys, NULL,
                            "[workload]\nex = 1\nnx = 13\n", &h.e));
    cr_expect_null(wl_nekbone.create(&h.env, cfg_sec(&h.cfg, "workload"), &h.e));
    cr_expect_str_eq(h.e.msg, "t.ini:3: [workload] nx = 13: ax_e needs 71656 bytes of LDS per "
                              "work-group; a CU has 65536");
    wlh_close(&h);
    wlh_expect_error(&wl_nekbone, "[workload]\nex = 256\ney = 256\nez = 256\n",
                     "t.ini:4: [workload] ez = 256: 16777216000 points, 1744830464000 bytes: at "
                     "most 64 GiB");
}

/* ==== snap ==== */

enum { SN_DLIST, SN_TXS, SN_QTOT, SN_EC, SN_ANG, SN_PSII, SN_PSIJ, SN_PSIK, SN_PIN, SN_POUT,
       SN_FLUX, SN_FLUXM };

/* 2 x 2 x 2 cells, 1 group, 8 angles, 4 moments: the source, the flux
 * cleared, then per octant the faces cleared and its 4 diagonals of 1, 3,
 * 3 and 1 cells. */
Test(wl_hpc_b, snap_sweeps_each_octant_diagonal_by_diagonal)
{
    struct wlh h;
    wlh_open_small(&h, &wl_snap, NULL);
    struct kernel k;
    wlh_next_kernel(&h, &k, "inner_src", 1, 1, 256, 1, "RRRRW");
    wlh_next_kernel(&h, &k, "flux_zero", 1, 1, 256, 1, "WW");
    for (unsigned o = 0; o < 8; o++) {
        wlh_next_kernel(&h, &k, "sweep_init", 1, 1, 256, 1, "WWW");
        static const uint32_t cells[] = {1, 3, 3, 1};
        for (unsigned d = 0; d < 4; d++)
            wlh_next_kernel(&h, &k, "dim3_sweep", cells[d], 1, 8, 1, "RRRRRWWWRWWW");
    }
    wlh_no_more(&h);
    wlh_close(&h);
}

/* Octant 0: cell 0 (diagonal 0) writes its outgoing y face psij[ik = 0]
 * (lane a at angle a); in diagonal 1, work-group 1 is cell 2 (i 0, j 1, k
 * 0), which reads that face as its incoming one, its x face psii[jk = 1]
 * and z face psik[ij = 2], after the source's moments 1..3
 * (ec[m * 8 + a] and its cell's qtot[2 * 4 + m], the same for every lane). */
Test(wl_hpc_b, snap_cell_reads_the_faces_its_upstream_cells_wrote)
{
    struct wlh h;
    wlh_open_small(&h, &wl_snap, NULL);
    struct kernel k;
    for (unsigned i = 0; i < 4; i++)
        cr_assert(h.ops->next_kernel(h.self, &k));
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 0, 0);
    struct kernel_op op = next_of(&k, &w, KOP_STORE);
    op = next_of(&k, &w, KOP_STORE);
    cr_expect(op.kind == KOP_STORE && op.mask == 0xff && w.lane_addr[3] == arg(&k, SN_PSIJ) + 3 * 8);
    cr_assert(h.ops->next_kernel(h.self, &k));
    wlh_warp_at(&w, &k, 1, 0);
    wlh_expect_alu(&k, &w, 26);
    expect_mem(&k, &w, KOP_LOAD, arg(&k, SN_DLIST) + 2 * 4, 0, 4, 0xff);
    wlh_expect_alu(&k, &w, 3);
    wlh_expect_alu(&k, &w, 4);
    expect_mem(&k, &w, KOP_LOAD, arg(&k, SN_TXS) + 2 * 8, 0, 8, 0xff);
    wlh_expect_alu(&k, &w, 3);
    expect_mem(&k, &w, KOP_LOAD, arg(&k, SN_QTOT) + 8 * 8, 0, 8, 0xff);
    wlh_expect_alu(&k, &w, 10);
    wlh_expect_alu(&k, &w, 11);
    for (unsigned m = 1; m < 4; m++) {
        expect_mem(&k, &w, KOP_LOAD, arg(&k, SN_EC) + m * 8 * 8, 8, 8, 0xff);
        expect_mem(&k, &w, KOP_LOAD, arg(&k, SN_QTOT) + (8 + m) * 8, 0, 8, 0xff);
        wlh_expect_alu(&k, &w, 6);
    }
    wlh_expect_alu(&k, &w, 12);
    for (unsigned r = 1; r < 4; r++) {
        expect_mem(&k, &w, KOP_LOAD, arg(&k, SN_DLIST) + (64 * r + 2) * 4, 0, 4, 0xff);
        wlh_expect_alu(&k, &w, r < 3 ? 3 : 21);
    }
    static const unsigned face[] = {SN_PSII, SN_PSIJ, SN_PSIK}, at[] = {1, 0, 2};
    for (unsigned f = 0; f < 3; f++) {
        expect_mem(&k, &w, KOP_LOAD, arg(&k, SN_ANG) + f * 8 * 8, 8, 8, 0xff);
        expect_mem(&k, &w, KOP_LOAD, arg(&k, face[f]) + at[f] * 8 * 8, 8, 8, 0xff);
        wlh_expect_alu(&k, &w, 1);
    }
    expect_mem(&k, &w, KOP_LOAD, arg(&k, SN_PIN) + 2 * 8 * 8, 8, 8, 0xff);
    wlh_close(&h);
}

Test(wl_hpc_b, snap_refuses_more_moments_than_angles_or_too_large_a_grid)
{
    wlh_expect_error(&wl_snap, "[workload]\nnang = 8\nnmom = 3\n",
                     "t.ini:3: [workload] nmom = 3: 9 moments need as many threads: nang is 8");
    wlh_expect_error(&wl_snap, "[workload]\nnx = 1024\nny = 1024\nnz = 1024\nng = 1\n",
                     "t.ini:5: [workload] ng = 1: 1073741824 cells, 3298534883328 bytes of angular "
                     "flux: at most 2^24 cells and 64 GiB");
}

/* ==== minicontact ==== */

/* Sheets of 8 x 8 nodes (49 master faces in 16 bins of 2 x 2 faces), two
 * steps of five launches. */
Test(wl_hpc_b, minicontact_runs_the_search_step_by_step)
{
    struct wlh h;
    wlh_open_small(&h, &wl_minicontact, NULL);
    struct kernel k;
    for (int step = 0; step < 2; step++) {
        wlh_next_kernel(&h, &k, "node_move", 1, 1, 256, 1, "WR");
        wlh_next_kernel(&h, &k, "face_bbox", 1, 1, 256, 1, "RRWWWW");
        wlh_next_kernel(&h, &k, "bin_scan", 1, 1, 1024, 1, "WW");
        cr_expect_eq(k.lds_b, 4096);
        wlh_next_kernel(&h, &k, "bin_fill", 1, 1, 256, 1, "RRRW");
        wlh_next_kernel(&h, &k, "node_search", 1, 1, 256, 1, "RRRRRWW");
    }
    wlh_no_more(&h);
    wlh_close(&h);
}

/* face_bbox: face f (lane f of warp 0, 49 faces) takes its slot in bin
 * (f / 7 / 2) * 4 + f % 7 / 2 with a .gpu relaxed atomic, after storing
 * its six bounds (bbox[c * 49 + f]) and its bin. */
Test(wl_hpc_b, minicontact_faces_take_slots_with_gpu_atomics)
{
    struct wlh h;
    wlh_open_small(&h, &wl_minicontact, NULL);
    struct kernel k;
    cr_assert(h.ops->next_kernel(h.self, &k));
    cr_assert(h.ops->next_kernel(h.self, &k));
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 0, 0);
    uint64_t faces = (1ull << 49) - 1;
    wlh_expect_alu(&k, &w, 18);
    wlh_expect_alu(&k, &w, 2);
    expect_mem(&k, &w, KOP_LOAD, arg(&k, 0), 16, 16, faces);
    struct kernel_op op = next_of(&k, &w, KOP_STORE);
    for (unsigned c = 0; c < 6; c++) {
        if (c)
            op = next_of(&k, &w, KOP_STORE);
        cr_expect_eq(w.lane_addr[5], arg(&k, 2) + (c * 49 + 5) * 4, "bound %u", c);
    }
    op = next_of(&k, &w, KOP_STORE);
    cr_expect_eq(w.lane_addr[5], arg(&k, 3) + 5 * 4);
    op = next_of(&k, &w, KOP_ATOMIC);
    cr_expect(op.kind == KOP_ATOMIC && op.scope == SCOPE_GPU && op.sem == SEM_RELAXED &&
              op.mask == faces && op.size == 4);
    for (unsigned f = 0; f < 49; f++)
        cr_expect_eq(w.lane_addr[f], arg(&k, 5) + (f / 7 / 2 * 4 + f % 7 / 2) * 4, "face %u", f);
    wlh_close(&h);
}

/* node_search of step 0: slave node l (lane l) reads its position
 * (x[128 * c + 64 + l]); node 43 (at 3.06, 4.81 face widths: bin (1, 2))
 * reads the starts of bins 4 and 7 for its first row; nodes 43, 44 and 52
 * lie below their faces' planes and append their contacts (slots 0, 1, 2)
 * after a .gpu atomic on the count. */
Test(wl_hpc_b, minicontact_penetrating_nodes_append_contacts)
{
    struct wlh h;
    wlh_open_small(&h, &wl_minicontact, NULL);
    struct kernel k;
    for (unsigned i = 0; i < 5; i++)
        cr_assert(h.ops->next_kernel(h.self, &k));
    cr_assert_str_eq(k.name, "node_search");
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 0, 0);
    wlh_expect_alu(&k, &w, 21);
    wlh_expect_alu(&k, &w, 5);
    expect_mem(&k, &w, KOP_LOAD, arg(&k, 0) + 64 * 4, 4, 4, ALL64);
    expect_mem(&k, &w, KOP_LOAD, arg(&k, 0) + (128 + 64) * 4, 4, 4, ALL64);
    wlh_expect_alu(&k, &w, 2);
    expect_mem(&k, &w, KOP_LOAD, arg(&k, 0) + (256 + 64) * 4, 4, 4, ALL64);
    struct kernel_op op = next_of(&k, &w, KOP_LOAD);
    cr_expect(op.kind == KOP_LOAD && op.mask >> 43 & 1);
    cr_expect_eq(w.lane_addr[43], arg(&k, 1) + 4 * 4);
    op = next_of(&k, &w, KOP_LOAD);
    cr_expect_eq(w.lane_addr[43], arg(&k, 1) + 7 * 4);
    op = next_of(&k, &w, KOP_ATOMIC);
    uint64_t hit = 1ull << 43 | 1ull << 44 | 1ull << 52;
    cr_expect(op.kind == KOP_ATOMIC && op.scope == SCOPE_GPU && op.sem == SEM_RELAXED &&
              op.mask == hit, "mask %#llx", (unsigned long long)op.mask);
    cr_expect_eq(w.lane_addr[44], arg(&k, 5));
    wlh_expect_alu(&k, &w, 3);
    for (unsigned c = 0; c < 3; c++) {
        op = wlh_step(&k, &w);
        cr_expect(op.kind == KOP_STORE && op.mask == hit);
        cr_expect(w.lane_addr[43] == arg(&k, 6) + c * 4 && w.lane_addr[44] == arg(&k, 6) + 12 +
                  c * 4 && w.lane_addr[52] == arg(&k, 6) + 24 + c * 4, "word %u", c);
    }
    wlh_close(&h);
}

Test(wl_hpc_b, minicontact_refuses_a_bin_wider_than_the_sheet)
{
    wlh_expect_error(&wl_minicontact, "[workload]\nn = 4\nbin = 4\n",
                     "t.ini:3: [workload] bin = 4: a bin wider than the sheet's 3 faces");
}

/* ==== footprints ==== */

/* The small sizes' footprints the pages give (the sum of the buffers). */
Test(wl_hpc_b, small_footprints_are_the_pages)
{
    const struct wl_ops *const w[] = {&wl_namd, &wl_nekbone, &wl_snap, &wl_minicontact};
    const uint64_t want[] = {75584, 13652, 12960, 6524};
    for (unsigned i = 0; i < 4; i++) {
        struct wlh h;
        wlh_open_small(&h, w[i], NULL);
        cr_expect_eq(wl_footprint(&h.env), want[i], "%s: %llu", w[i]->name,
                     (unsigned long long)wl_footprint(&h.env));
        wlh_close(&h);
    }
}
