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
#include "workload/pannotia/graph.h"

extern const struct wl_ops wl_aes, wl_fir, wl_kmeans, wl_pagerank, wl_spmv, wl_stencil2d,
    wl_spmv_jds, wl_lbm, wl_cfd, wl_streamcluster, wl_bfs_relax, wl_mst, wl_barnes_hut, wl_random_loc;

#define ALL64 (~0ull)

/* A global or LDS access whose active lanes (mask) are at base + lane *
 * stride, given as base and stride or lane by lane. */
static void expect_mem(const struct kernel *k, struct kernel_warp *w, enum kernel_op_kind kind,
                       addr_t base, int64_t stride, uint64_t mask)
{
    struct kernel_op op = wlh_step(k, w);
    cr_expect_eq(op.kind, kind, "%s: op %u, want %u", k->name, op.kind, kind);
    uint64_t got_mask = op.mask ? op.mask : low_bits(w->nlanes); /* 0: the warp's lanes */
    cr_expect_eq(got_mask, mask, "%s: mask %#llx, want %#llx", k->name,
                 (unsigned long long)got_mask, (unsigned long long)mask);
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

/* 8 x 256 threads, two launches; warp 1 of work-group 2 gathers 64 table
 * elements at per-lane positions and stores out[576 ..] contiguously. */
Test(wl_hm_lib, random_loc_gathers_and_stores_its_own_elements)
{
    struct wlh h;
    wlh_open_small(&h, &wl_random_loc, NULL);
    for (int i = 0; i < 2; i++) {
        struct kernel k;
        wlh_next_kernel(&h, &k, "random_loc", 8, 1, 256, 1, "RW");
        struct kernel_warp w;
        wlh_warp_at(&w, &k, 2, 1);
        wlh_expect_alu(&k, &w, 17);
        struct kernel_op op = wlh_step(&k, &w);
        cr_expect(op.kind == KOP_LOAD && op.lanes && op.size == 4);
        unsigned distinct = 0;
        for (unsigned l = 0; l < 64; l++) {
            cr_expect(w.lane_addr[l] >= arg(&k, 0) && w.lane_addr[l] < arg(&k, 0) + 16384 * 4 &&
                      w.lane_addr[l] % 4 == 0, "lane %u", l);
            distinct += l && w.lane_addr[l] != w.lane_addr[l - 1] + 4;
        }
        cr_expect_gt(distinct, 60, "the gather is not a run");
        wlh_expect_alu(&k, &w, 2);
        expect_mem(&k, &w, KOP_STORE, arg(&k, 1) + 576 * 4, 4, ALL64);
        cr_expect_eq(wlh_step(&k, &w).kind, KOP_EXIT);
    }
    wlh_no_more(&h);
    wlh_close(&h);
    wlh_expect_error(&wl_random_loc, "[workload]\nblocks = 16777216\nblock = 512\n",
                     "t.ini:2: [workload] blocks = 16777216: 8589934592 threads: at most 4294967295");
}

/* ==== fir ==== */

/* Two blocks of 2048 samples, 4 taps, 8 work-groups of 256. In the second
 * launch warp 0 of work-group 0 reads input[2048 + tid - i]; for tap i the
 * first i lanes read history[4 + tid - i] instead. */
Test(wl_hm_lib, fir_reads_the_history_for_the_first_taps)
{
    struct wlh h;
    wlh_open_small(&h, &wl_fir, NULL);
    struct kernel k;
    wlh_next_kernel(&h, &k, "fir", 8, 1, 256, 1, "RWRR");
    wlh_next_kernel(&h, &k, "fir", 8, 1, 256, 1, "RWRR");
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 0, 0);
    wlh_expect_alu(&k, &w, 17);
    for (unsigned i = 0; i < 4; i++) {
        wlh_expect_alu(&k, &w, 8);
        expect_mem(&k, &w, KOP_LOAD, arg(&k, 0) + (2048 - i) * 4, 4, ALL64 << i);
        if (i)
            expect_mem(&k, &w, KOP_LOAD, arg(&k, 3) + (4 - i) * 4, 4, (1ull << i) - 1);
        expect_mem(&k, &w, KOP_LOAD, arg(&k, 2) + i * 4, 0, ALL64);
        wlh_expect_alu(&k, &w, 5);
    }
    wlh_expect_alu(&k, &w, 2);
    expect_mem(&k, &w, KOP_STORE, arg(&k, 1) + 2048 * 4, 4, ALL64);
    /* work-group 7 declares its block's slice of output: [2048 + 1792, 4096) */
    struct addr_range r[4];
    cr_assert_eq(k.ranges(&k, 7, 1, r, 4), 1);
    cr_expect(r[0].lo == arg(&k, 1) + 3840 * 4 && r[0].hi == arg(&k, 1) + 4096 * 4);
    wlh_no_more(&h);
    wlh_close(&h);
    wlh_expect_error(&wl_fir, "[workload]\nn = 1000\n",
                     "t.ini:2: [workload] n = 1000: must be a multiple of block (256): one thread per sample");
}

/* ==== kmeans ==== */

/* 512 points of 4 features, 3 centres: the transpose, then two passes.
 * Warp 1 of work-group 1 (points 320 ..) reads feature[p * 4 + f] (16 B
 * apart) and writes feature_swap[f * 512 + p]; in a pass warp 0 reads
 * feature_swap[f * 512 + p] and the one address clusters[c * 4 + f]. */
Test(wl_hm_lib, kmeans_transposes_then_reads_columns_and_broadcast_centres)
{
    struct wlh h;
    wlh_open_small(&h, &wl_kmeans, NULL);
    struct kernel k;
    wlh_next_kernel(&h, &k, "kmeans_swap", 2, 1, 256, 1, "RW");
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 1, 1);
    wlh_expect_alu(&k, &w, 19);
    for (unsigned f = 0; f < 2; f++) {
        expect_mem(&k, &w, KOP_LOAD, arg(&k, 0) + (320 * 4 + f) * 4, 16, ALL64);
        expect_mem(&k, &w, KOP_STORE, arg(&k, 1) + (f * 512 + 320) * 4, 4, ALL64);
        wlh_expect_alu(&k, &w, 5);
    }
    for (int pass = 0; pass < 2; pass++) {
        wlh_next_kernel(&h, &k, "kmeans_compute", 2, 1, 256, 1, "RRW");
        wlh_warp_at(&w, &k, 0, 0);
        wlh_expect_alu(&k, &w, 18);
        wlh_expect_alu(&k, &w, 7);
        wlh_expect_alu(&k, &w, 6);
        for (unsigned f = 0; f < 4; f++) {
            expect_mem(&k, &w, KOP_LOAD, arg(&k, 0) + f * 512 * 4, 4, ALL64);
            expect_mem(&k, &w, KOP_LOAD, arg(&k, 1) + f * 4, 0, ALL64);
            wlh_expect_alu(&k, &w, 14);
        }
        wlh_expect_alu(&k, &w, 9);
        wlh_expect_alu(&k, &w, 6);
        expect_mem(&k, &w, KOP_LOAD, arg(&k, 0), 4, ALL64);
        expect_mem(&k, &w, KOP_LOAD, arg(&k, 1) + 4 * 4, 0, ALL64);
    }
    wlh_no_more(&h);
    wlh_close(&h);
}

/* ==== spmv ==== */

/* The CSR of the matrix the sparse workloads generate at seed 1 (the
 * harness's sim.seed): m random places off the diagonal of n x n. */
static void uniform_csr(struct graph *c, uint32_t n, uint64_t m)
{
    struct graph_coo g;
    graph_gen_uniform(&g, n, m, 1, 1);
    graph_csr(c, &g, false);
    graph_coo_free(&g);
}

/* The generated 512 x 512 matrix of 2048 non-zeros (seed 1, as the harness
 * sets sim.seed): warp 0 of work-group 0 reads the bounds of rows 0..63,
 * then each lane with a non-empty row reads cols[row[l]] and val[row[l]]
 * and gathers vec[col[row[l]]]. */
Test(wl_hm_lib, spmv_walks_each_threads_row)
{
    struct graph c;
    uniform_csr(&c, 512, 2048);
    struct wlh h;
    wlh_open_small(&h, &wl_spmv, NULL);
    struct kernel k;
    wlh_next_kernel(&h, &k, "spmv_csr_scalar", 4, 1, 128, 1, "RRRRW");
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 0, 0);
    wlh_expect_alu(&k, &w, 15);
    expect_mem(&k, &w, KOP_LOAD, arg(&k, 2), 4, ALL64);
    expect_mem(&k, &w, KOP_LOAD, arg(&k, 2) + 4, 4, ALL64);
    wlh_expect_alu(&k, &w, 7);
    uint64_t mask = 0;
    for (unsigned l = 0; l < 64; l++)
        mask |= (uint64_t)(c.row[l] < c.row[l + 1]) << l;
    struct kernel_op op = wlh_step(&k, &w);
    cr_expect(op.kind == KOP_LOAD && (op.mask ? op.mask : ALL64) == mask, "cols mask %#llx",
              (unsigned long long)op.mask);
    for (unsigned l = 0; l < 64; l++)
        if (mask >> l & 1)
            cr_expect_eq(op.lanes ? w.lane_addr[l] : op.base + l * (uint64_t)op.stride,
                         arg(&k, 1) + c.row[l] * 4ull, "lane %u", l);
    wlh_expect_alu(&k, &w, 2);
    op = wlh_step(&k, &w); /* val[j] */
    op = wlh_step(&k, &w); /* vec[cols[j]] */
    cr_expect(op.kind == KOP_LOAD && op.lanes);
    for (unsigned l = 0; l < 64; l++)
        if (mask >> l & 1)
            cr_expect_eq(w.lane_addr[l], arg(&k, 3) + c.col[c.row[l]] * 4ull, "lane %u", l);
    wlh_next_kernel(&h, &k, "spmv_csr_scalar", 4, 1, 128, 1, "RRRRW");
    wlh_no_more(&h);
    wlh_close(&h);
    graph_free(&c);
}

/* ==== pagerank ==== */

/* 32 rows of the generated 256-arc graph, one work-group of 64 per row, x
 * and y swapped in the second launch. Row 0's work-group zeroes y[0], reads
 * its bounds (one address for all lanes), zeroes vals in LDS, and then
 * lanes l with row[0] <= l < row[1] read col[l]; six halving steps follow
 * (lanes below 32, 16, ... 1), and lane 0 stores y[0]. */
Test(wl_hm_lib, pagerank_gives_each_row_a_work_group_of_64)
{
    struct graph c;
    uniform_csr(&c, 32, 256);
    struct wlh h;
    wlh_open_small(&h, &wl_pagerank, NULL);
    struct kernel k;
    wlh_next_kernel(&h, &k, "pageRank_kernel", 32, 1, 64, 1, "RRRRW");
    addr_t x = arg(&k, 3), y = arg(&k, 4);
    cr_expect_eq(k.lds_b, 256);
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 0, 0);
    wlh_expect_alu(&k, &w, 21);
    expect_mem(&k, &w, KOP_STORE, y, 0, ALL64);
    wlh_expect_alu(&k, &w, 1);
    expect_mem(&k, &w, KOP_LOAD, arg(&k, 0), 0, ALL64);
    expect_mem(&k, &w, KOP_LOAD, arg(&k, 0) + 4, 0, ALL64);
    wlh_expect_alu(&k, &w, 3);
    expect_mem(&k, &w, KOP_LDS_STORE, 0, 4, ALL64);
    wlh_expect_alu(&k, &w, 7);
    cr_assert_gt(c.row[1], 0, "row 0 is empty");
    expect_mem(&k, &w, KOP_LOAD, arg(&k, 1), 4, low_bits(c.row[1]));
    wlh_expect_alu(&k, &w, 2);
    expect_mem(&k, &w, KOP_LOAD, arg(&k, 2), 4, low_bits(c.row[1]));
    struct kernel_op op = wlh_step(&k, &w);
    cr_expect(op.kind == KOP_LOAD && op.lanes);
    for (unsigned l = 0; l < c.row[1]; l++)
        cr_expect_eq(w.lane_addr[l], x + c.col[l] * 4ull, "lane %u", l);
    wlh_expect_alu(&k, &w, 6);
    expect_mem(&k, &w, KOP_LDS_STORE, 0, 4, low_bits(c.row[1]));
    for (unsigned s = 32; s; s /= 2) {
        wlh_expect_alu(&k, &w, 2);
        expect_mem(&k, &w, KOP_LDS_LOAD, s * 4, 4, low_bits(s));
        wlh_expect_alu(&k, &w, 1);
        expect_mem(&k, &w, KOP_LDS_STORE, 0, 4, low_bits(s));
    }
    wlh_expect_alu(&k, &w, 1);
    expect_mem(&k, &w, KOP_STORE, y, 0, 1);
    wlh_next_kernel(&h, &k, "pageRank_kernel", 32, 1, 64, 1, "RRRRW");
    cr_expect(arg(&k, 3) == y && arg(&k, 4) == x, "x and y swapped");
    wlh_no_more(&h);
    wlh_close(&h);
    graph_free(&c);
}

/* ==== stencil2d ==== */

/* A 32 x 32 grid (34 x 34 with the halo), 2 x 2 tiles of 16 x 16, two sweeps
 * from a to b and back. Warp 0 of tile (1, 1) holds rows ty 0..3: it loads
 * its cells in[(17 + ty) * 34 + 17 + tx] into LDS (ty + 1) * 18 + tx + 1;
 * its first row (lanes 0..15) loads the rows above and below the tile. */
Test(wl_hm_lib, stencil2d_stages_the_tile_and_its_halo_in_lds)
{
    struct wlh h;
    wlh_open_small(&h, &wl_stencil2d, NULL);
    struct kernel k;
    wlh_next_kernel(&h, &k, "stencil2d", 2, 2, 16, 16, "RW");
    addr_t a = arg(&k, 0), b = arg(&k, 1);
    cr_expect_eq(k.lds_b, 18 * 18 * 4);
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 3, 0);
    wlh_expect_alu(&k, &w, 20);
    struct kernel_op op = wlh_step(&k, &w);
    cr_expect(op.kind == KOP_LOAD);
    for (unsigned l = 0; l < 64; l += 17)
        cr_expect_eq(op.lanes ? w.lane_addr[l] : op.base + l * (uint64_t)op.stride,
                     a + ((17 + l / 16) * 34 + 17 + l % 16) * 4ull, "lane %u", l);
    wlh_expect_alu(&k, &w, 4);
    op = wlh_step(&k, &w);
    cr_expect(op.kind == KOP_LDS_STORE);
    for (unsigned l = 0; l < 64; l += 17)
        cr_expect_eq(op.lanes ? w.lane_addr[l] : op.base + l * (uint64_t)op.stride,
                     ((l / 16 + 1) * 18 + l % 16 + 1) * 4ull, "lane %u", l);
    wlh_expect_alu(&k, &w, 5);
    expect_mem(&k, &w, KOP_LOAD, a + (16 * 34 + 17) * 4, 4, 0xffff);
    wlh_expect_alu(&k, &w, 1);
    expect_mem(&k, &w, KOP_LDS_STORE, 4, 4, 0xffff);
    wlh_expect_alu(&k, &w, 5);
    expect_mem(&k, &w, KOP_LOAD, a + (33 * 34 + 17) * 4, 4, 0xffff);
    wlh_next_kernel(&h, &k, "stencil2d", 2, 2, 16, 16, "RW");
    cr_expect(arg(&k, 0) == b && arg(&k, 1) == a, "the grids swap");
    wlh_no_more(&h);
    wlh_close(&h);
    wlh_expect_error(&wl_stencil2d, "[workload]\nn = 40\n",
                     "t.ini:2: [workload] n = 40: must be a multiple of the 16 x 16 tile");
}

/* ==== aes ==== */

/* 1024 bytes: 64 threads in one work-group. The warp reads round key 0's
 * first word (one address) and its state's bytes 16 apart; each round makes
 * 16 S-box lookups inside the 256-byte table. */
Test(wl_hm_lib, aes_reads_its_block_bytewise_and_looks_up_the_sbox)
{
    struct wlh h;
    wlh_open_small(&h, &wl_aes, NULL);
    struct kernel k;
    wlh_next_kernel(&h, &k, "aes_encrypt", 1, 1, 64, 1, "WRR");
    addr_t data = arg(&k, 0), key = arg(&k, 1), sbox = arg(&k, 2);
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 0, 0);
    wlh_expect_alu(&k, &w, 13);
    expect_mem(&k, &w, KOP_LOAD, key, 0, ALL64);
    wlh_expect_alu(&k, &w, 2);
    expect_mem(&k, &w, KOP_LOAD, data, 16, ALL64);
    wlh_expect_alu(&k, &w, 3);
    expect_mem(&k, &w, KOP_LOAD, data + 1, 16, ALL64);
    for (int i = 0; i < 5 + 3 * 10; i++) /* the rest of the state and round key 0 */
        wlh_step(&k, &w);
    wlh_expect_alu(&k, &w, 3);
    struct kernel_op op = wlh_step(&k, &w);
    cr_expect(op.kind == KOP_LOAD && op.lanes && op.size == 1);
    for (unsigned l = 0; l < 64; l++)
        cr_expect(w.lane_addr[l] >= sbox && w.lane_addr[l] < sbox + 256, "lane %u", l);
    wlh_no_more(&h);
    wlh_close(&h);
    wlh_expect_error(&wl_aes, "[workload]\nbytes = 1000\n",
                     "t.ini:2: [workload] bytes = 1000: must be a multiple of the 16-byte AES block");
}

/* ==== spmv-jds ==== */

/* 256 rows of 8 non-zeros each within 16 of the diagonal: every row has the
 * same length, so the sort keeps row order, every warp of 32 has 8
 * diagonals and diagonal k starts at 256 k. Work-group 2 (rows 64..95)
 * reads sh_zcnt[2], then per diagonal jds_ptr[k], d_index and d_data at
 * 256 k + 64 + lane and x at its row's k-th column; the result goes to
 * dst[perm[ix]] = dst[ix]. */
Test(wl_hm_lib, spmv_jds_walks_the_jagged_diagonals)
{
    struct wlh h;
    wlh_open_small(&h, &wl_spmv_jds, NULL);
    struct kernel k;
    wlh_next_kernel(&h, &k, "spmv_jds", 8, 1, 32, 1, "WRRRRRR");
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 2, 0);
    uint64_t lanes = low_bits(32);
    wlh_expect_alu(&k, &w, 16);
    expect_mem(&k, &w, KOP_LOAD, arg(&k, 6) + 2 * 4, 0, lanes);
    wlh_expect_alu(&k, &w, 5);
    for (unsigned d = 0; d < 8; d++) {
        expect_mem(&k, &w, KOP_LOAD, arg(&k, 5) + d * 4, 0, lanes);
        wlh_expect_alu(&k, &w, 4);
        expect_mem(&k, &w, KOP_LOAD, arg(&k, 2) + (256 * d + 64) * 4, 4, lanes);
        wlh_expect_alu(&k, &w, 2);
        expect_mem(&k, &w, KOP_LOAD, arg(&k, 1) + (256 * d + 64) * 4, 4, lanes);
        struct kernel_op op = wlh_step(&k, &w);
        cr_expect(op.kind == KOP_LOAD && op.lanes);
        for (unsigned l = 0; l < 32; l++) {
            int64_t col = (int64_t)(w.lane_addr[l] - arg(&k, 4)) / 4, row = 64 + l;
            cr_expect(col != row && col >= row - 16 && col <= row + 16, "lane %u col %lld", l,
                      (long long)col);
        }
        wlh_expect_alu(&k, &w, 5);
    }
    wlh_expect_alu(&k, &w, 2);
    expect_mem(&k, &w, KOP_LOAD, arg(&k, 3) + 64 * 4, 4, lanes);
    wlh_expect_alu(&k, &w, 2);
    expect_mem(&k, &w, KOP_STORE, arg(&k, 0) + 64 * 4, 4, lanes);
    wlh_no_more(&h);
    wlh_close(&h);
    wlh_expect_error(&wl_spmv_jds, "[workload]\nrows = 4\nnnz = 13\n",
                     "t.ini:3: [workload] nnz = 13: more than the 12 places off the diagonal of 4 rows");
}

/* ==== lbm ==== */

/* A 32 x 2 x 2 grid, rows of 32 cells, one margin plane each side: 256 cells
 * per field. Work-group 3 is row y = 1 of plane z = 1, whose cells are at
 * (1 + 1) * 64 + 32 = 160 + x of each field. It reads fields 0..18 and the
 * flags (field 19), then writes field e at its cell moved by e's direction:
 * east +1, west -1, ..., bottom-south -32 - 64. */
Test(wl_hm_lib, lbm_streams_each_distribution_to_its_neighbour)
{
    struct wlh h;
    wlh_open_small(&h, &wl_lbm, NULL);
    struct kernel k;
    wlh_next_kernel(&h, &k, "performStreamCollide", 2, 2, 32, 1, "RW");
    addr_t src = arg(&k, 0), dst = arg(&k, 1);
    uint64_t lanes = low_bits(32);
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 3, 0);
    wlh_expect_alu(&k, &w, 14);
    for (unsigned f = 0; f < 19; f++) {
        expect_mem(&k, &w, KOP_LOAD, src + (f * 256 + 160) * 4, 4, lanes);
        wlh_expect_alu(&k, &w, f == 0 ? 3 : f == 18 ? 1 : 2);
    }
    expect_mem(&k, &w, KOP_LOAD, src + (19 * 256 + 160) * 4, 4, lanes);
    wlh_expect_alu(&k, &w, 101);
    expect_mem(&k, &w, KOP_STORE, dst + 160 * 4, 4, lanes);
    static const int64_t move[] = {1, -1, 32, -32, 64, -64, 33, 31, -31, -33, 65, 63, -63, -65,
                                   96, 32, -32, -96};
    for (unsigned e = 1; e < 19; e++) {
        struct kernel_op op = wlh_step(&k, &w);
        cr_expect_eq(op.kind, KOP_ALU);
        expect_mem(&k, &w, KOP_STORE, dst + (uint64_t)((int64_t)(e * 256 + 160) + move[e - 1]) * 4,
                   4, lanes);
    }
    wlh_next_kernel(&h, &k, "performStreamCollide", 2, 2, 32, 1, "RW");
    cr_expect(arg(&k, 0) == dst && arg(&k, 1) == src, "the grids swap");
    wlh_no_more(&h);
    wlh_close(&h);
    wlh_expect_error(&wl_lbm, "[workload]\nnx = 120\npx = 16\n",
                     "t.ini:3: [workload] px = 16: a padded row must hold the 120 cells of a row");
}

/* ==== cfd ==== */

/* 100 elements (nelr 192: one work-group) on a 5 x 5 x 5 cube: the three
 * initializations, then step factor and three flux / time-step stages. Face
 * 0 of element i is i - 1, except where x = i % 5 is 0 (far field): in
 * compute_flux warp 0 gathers the neighbour's density at element l - 1 for
 * every lane not a multiple of 5, and the others run the far-field code
 * (not the wing's). */
Test(wl_hm_lib, cfd_gathers_neighbours_and_handles_boundary_faces)
{
    struct wlh h;
    wlh_open_small(&h, &wl_cfd, NULL);
    struct kernel k;
    addr_t init[3];
    for (int i = 0; i < 3; i++) {
        wlh_next_kernel(&h, &k, "cuda_initialize_variables", 1, 1, 192, 1, "W");
        init[i] = arg(&k, 0);
    }
    cr_expect(init[0] != init[1] && init[1] != init[2] && init[0] != init[2]);
    wlh_next_kernel(&h, &k, "cuda_compute_step_factor", 1, 1, 192, 1, "RRW");
    cr_expect_eq(arg(&k, 0), init[0]);
    wlh_next_kernel(&h, &k, "cuda_compute_flux", 1, 1, 192, 1, "RRRW");
    addr_t var = arg(&k, 2), nrm = arg(&k, 1);
    cr_expect(var == init[0] && arg(&k, 3) == init[2]);
    uint64_t inner = 0;
    for (unsigned l = 0; l < 64; l++)
        inner |= (uint64_t)(l % 5 != 0) << l;
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 0, 0);
    wlh_expect_alu(&k, &w, 22);
    static const uint32_t between[5] = {0, 1, 1, 5, 56}; /* ALU after load f (none after 0) */
    for (unsigned f = 0; f < 5; f++) {
        expect_mem(&k, &w, KOP_LOAD, var + f * 192 * 4, 4, ALL64);
        if (between[f])
            wlh_expect_alu(&k, &w, between[f]);
    }
    expect_mem(&k, &w, KOP_LOAD, arg(&k, 0), 4, ALL64);
    wlh_expect_alu(&k, &w, 2);
    expect_mem(&k, &w, KOP_LOAD, nrm, 4, ALL64);
    expect_mem(&k, &w, KOP_LOAD, nrm + 4 * 192 * 4, 4, ALL64);
    wlh_expect_alu(&k, &w, 2);
    expect_mem(&k, &w, KOP_LOAD, nrm + 8 * 192 * 4, 4, ALL64);
    wlh_expect_alu(&k, &w, 4);
    wlh_expect_alu(&k, &w, 12); /* ALU ops carry no mask: the warp's next access has it */
    struct kernel_op op = wlh_step(&k, &w);
    cr_expect(op.kind == KOP_LOAD && op.lanes && op.mask == inner, "interior %#llx",
              (unsigned long long)op.mask);
    for (unsigned l = 1; l < 64; l++)
        if (l % 5)
            cr_expect_eq(w.lane_addr[l], var + (l - 1) * 4ull, "lane %u", l);
    for (int i = 0; i < 8; i++) /* the rest of the neighbour's variables */
        wlh_step(&k, &w);
    wlh_expect_alu(&k, &w, 3);  /* the boundary lanes: not -1 (wing) */
    wlh_expect_alu(&k, &w, 21); /* -2: far field */
    wlh_expect_alu(&k, &w, 5);
    wlh_next_kernel(&h, &k, "cuda_time_step", 1, 1, 192, 1, "RWRR");
    cr_expect(arg(&k, 0) == init[1] && arg(&k, 1) == init[0]);
    for (int s = 0; s < 2; s++) {
        wlh_next_kernel(&h, &k, "cuda_compute_flux", 1, 1, 192, 1, "RRRW");
        wlh_next_kernel(&h, &k, "cuda_time_step", 1, 1, 192, 1, "RWRR");
    }
    wlh_no_more(&h);
    wlh_close(&h);
}

/* ==== streamcluster ==== */

/* The switching lanes' ops after their first ALU op: the flag's store, then
 * work_mem[tid * (K + 1) + K] (K from the first lane, at least *last_k and
 * at most kmax = 4, then kept in *last_k), and the rest of their block.
 * Returns their mask. */
static uint64_t sc_switching(const struct kernel *k, struct kernel_warp *w, uint64_t *last_k)
{
    addr_t wm = arg(k, 2);
    struct kernel_op op = wlh_step(k, w);
    cr_assert(op.kind == KOP_STORE && op.size == 1 && op.base == arg(k, 4) && op.stride == 1);
    uint64_t sw = op.mask;
    op = wlh_step(k, w);
    cr_assert(op.kind == KOP_LOAD && op.mask == sw);
    unsigned l0 = (unsigned)__builtin_ctzll(sw);
    addr_t a0 = op.lanes ? w->lane_addr[l0] : op.base + l0 * (uint64_t)op.stride;
    uint64_t kk = ((a0 - wm) / 4 - l0) / (l0 + 1);
    cr_expect(kk >= *last_k && kk <= 4, "K %llu after %llu", (unsigned long long)kk,
              (unsigned long long)*last_k);
    *last_k = kk;
    for (unsigned l = 0; l < 64; l++)
        if (sw >> l & 1)
            cr_expect_eq(op.lanes ? w->lane_addr[l] : op.base + l * (uint64_t)op.stride,
                         wm + (l * (kk + 1) + kk) * 4, "lane %u", l);
    for (int i = 0; i < 4; i++)
        wlh_step(k, w);
    return sw;
}

/* 256 points of 4 dimensions, 2 work-groups of 128, 3 pgain calls with 2 to
 * 4 open centres. Warp 0 reads each dimension's column at its points and at
 * the candidate x (one address), the points' weights and costs (32-byte
 * Points); the lanes then split: those that switch store their flag and
 * update work_mem[tid * (K + 1) + K]; the others read their assign field.
 * K only grows from call to call. */
Test(wl_hm_lib, streamcluster_splits_points_between_switching_and_staying)
{
    struct wlh h;
    wlh_open_small(&h, &wl_streamcluster, NULL);
    uint64_t last_k = 2;
    unsigned switched = 0;
    for (int call = 0; call < 3; call++) {
        struct kernel k;
        wlh_next_kernel(&h, &k, "kernel_compute_cost", 2, 1, 128, 1, "RRWRW");
        addr_t p = arg(&k, 0), coord = arg(&k, 1);
        struct kernel_warp w;
        wlh_warp_at(&w, &k, 0, 0);
        wlh_expect_alu(&k, &w, 24);
        wlh_expect_alu(&k, &w, 7);
        for (unsigned d = 0; d < 4; d++) {
            expect_mem(&k, &w, KOP_LOAD, coord + d * 256 * 4, 4, ALL64);
            struct kernel_op op = wlh_step(&k, &w);
            cr_expect(op.kind == KOP_LOAD && op.stride == 0 && op.base >= coord + d * 1024 &&
                      op.base < coord + (d + 1) * 1024, "the candidate's coordinate");
            wlh_expect_alu(&k, &w, 8);
        }
        wlh_expect_alu(&k, &w, 4);
        expect_mem(&k, &w, KOP_LOAD, p, 32, ALL64);
        wlh_expect_alu(&k, &w, 1);
        expect_mem(&k, &w, KOP_LOAD, p + 24, 32, ALL64);
        wlh_expect_alu(&k, &w, 3);
        struct kernel_op op = wlh_step(&k, &w);
        uint64_t sw = 0;
        if (op.kind == KOP_ALU) { /* some lanes switch */
            sw = sc_switching(&k, &w, &last_k);
            switched++;
            op = wlh_step(&k, &w);
        }
        cr_expect_eq(op.kind, KOP_ALU);
        expect_mem(&k, &w, KOP_LOAD, p + 16, 32, ~sw);
    }
    cr_expect_gt(switched, 0, "no point ever switched");
    struct kernel k;
    cr_expect_not(h.ops->next_kernel(h.self, &k));
    wlh_close(&h);
    wlh_expect_error(&wl_streamcluster, "[workload]\nkmin = 5\nkmax = 4\n",
                     "t.ini:2: [workload] kmin = 5: must be at most kmax (4)");
}

/* ==== bfs-relax ==== */

/* The generated road graph of 128 vertices (seed 1): one launch per BFS
 * level from vertex 0 plus the last, which changes nothing. In the first
 * only vertex 0 is reached: lane 0 alone reads its bounds, walks its arcs
 * (each head's dist, then the atomicMin: no head is reached yet) and sets
 * `changed`. In launch t the lanes reached by then read their bounds. */
Test(wl_hm_lib, bfs_relax_relaxes_the_arcs_of_reached_vertices)
{
    struct graph_coo g = {0};
    struct err e;
    cr_assert_eq(graph_gen_road(&g, 128, 0, 1, &e), 0, "%s", e.msg);
    struct graph c;
    graph_csr(&c, &g, false);
    uint32_t lvl[128], queue[128], head = 0, tail = 0;
    memset(lvl, 0xff, sizeof lvl);
    lvl[0] = 0, queue[tail++] = 0;
    while (head < tail)
        for (uint32_t u = queue[head++], i = c.row[u]; i < c.row[u + 1]; i++)
            if (lvl[c.col[i]] == UINT32_MAX)
                lvl[c.col[i]] = lvl[u] + 1, queue[tail++] = c.col[i];
    struct wlh h;
    wlh_open_small(&h, &wl_bfs_relax, NULL);
    struct kernel k;
    wlh_next_kernel(&h, &k, "drelax", 1, 1, 256, 1, "RRWW");
    addr_t row = arg(&k, 0), col = arg(&k, 1), dist = arg(&k, 2);
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 0, 0);
    wlh_expect_alu(&k, &w, 14);
    expect_mem(&k, &w, KOP_LOAD, dist, 4, ALL64);
    wlh_expect_alu(&k, &w, 4);
    expect_mem(&k, &w, KOP_LOAD, row, 0, 1);
    wlh_expect_alu(&k, &w, 3);
    expect_mem(&k, &w, KOP_LOAD, row + 4, 0, 1);
    wlh_expect_alu(&k, &w, 7);
    cr_assert_gt(c.row[1], 0);
    for (uint32_t i = 0; i < c.row[1]; i++) {
        expect_mem(&k, &w, KOP_LOAD, col + i * 4, 0, 1);
        wlh_expect_alu(&k, &w, 2);
        expect_mem(&k, &w, KOP_LOAD, dist + c.col[i] * 4, 0, 1);
        wlh_expect_alu(&k, &w, 3);
        expect_mem(&k, &w, KOP_ATOMIC, dist + c.col[i] * 4, 0, 1);
        wlh_expect_alu(&k, &w, 2);
        wlh_expect_alu(&k, &w, 4);
    }
    wlh_expect_alu(&k, &w, 4);
    expect_mem(&k, &w, KOP_STORE, arg(&k, 3), 0, 1);
    uint32_t depth = lvl[queue[tail - 1]]; /* the last vertex queued is the deepest */
    for (uint32_t t = 1; t <= depth; t++) {
        wlh_next_kernel(&h, &k, "drelax", 1, 1, 256, 1, "RRWW");
        wlh_warp_at(&w, &k, 0, 1); /* vertices 64..127 */
        uint64_t reached = 0;
        for (unsigned l = 0; l < 64; l++)
            reached |= (uint64_t)(lvl[64 + l] <= t) << l;
        for (int i = 0; i < 3; i++)
            wlh_step(&k, &w);
        if (reached)
            expect_mem(&k, &w, KOP_LOAD, row + 64 * 4, 4, reached);
    }
    wlh_no_more(&h);
    wlh_close(&h);
    graph_free(&c);
    graph_coo_free(&g);
}

/* ==== mst ==== */

/* All ops of warp `warp` of work-group 0; the lanes that store one byte
 * into buffer b are counted. */
static unsigned byte_stores(const struct kernel *k, uint32_t warp, addr_t b)
{
    struct kernel_warp w;
    wlh_warp_at(&w, k, 0, warp);
    unsigned n = 0;
    for (struct kernel_op op = wlh_step(k, &w); op.kind != KOP_EXIT; op = wlh_step(k, &w))
        if (op.kind == KOP_STORE && op.size == 1)
            for (unsigned l = 0; l < w.nlanes; l++)
                n += (op.mask ? op.mask >> l & 1 : 1) &&
                     (op.lanes ? w.lane_addr[l] : op.base + l * (uint64_t)op.stride) >= b;
    return n;
}

/* The connected road graph of 128 vertices: rounds of find_min, hook and
 * one or more jumps, until a round hooks nothing; the hooks mark exactly
 * 127 tree arcs, and find_min's first warp folds its minimum into the
 * component of each vertex (in round 1, itself) with a 64-bit atomic. */
Test(wl_hm_lib, mst_marks_a_spanning_tree)
{
    struct wlh h;
    wlh_open_small(&h, &wl_mst, NULL);
    struct kernel k;
    unsigned tree = 0, rounds = 0, launches = 0;
    const char *want = "find_min";
    while (h.ops->next_kernel(h.self, &k)) {
        launches++;
        if (strcmp(k.name, "jump") || strcmp(want, "find_min"))
            cr_assert_str_eq(k.name, want, "launch %u", launches);
        if (!strcmp(k.name, "find_min")) {
            cr_expect_str_eq(want, "find_min");
            rounds++;
            if (rounds == 1) {
                struct kernel_warp w;
                wlh_warp_at(&w, &k, 0, 0);
                struct kernel_op op;
                do
                    op = wlh_step(&k, &w);
                while (op.kind != KOP_ATOMIC && op.kind != KOP_EXIT);
                cr_assert(op.kind == KOP_ATOMIC && op.size == 8 && op.mask == ALL64);
                for (unsigned l = 0; l < 64; l++)
                    cr_expect_eq(w.lane_addr[l], arg(&k, 4) + l * 8ull, "lane %u", l);
            }
            want = "hook";
        } else if (!strcmp(k.name, "hook")) {
            tree += byte_stores(&k, 0, arg(&k, 4)) + byte_stores(&k, 1, arg(&k, 4));
            want = "jump";
        } else {
            want = "find_min"; /* or another jump */
        }
    }
    cr_expect_eq(tree, 127, "tree arcs %u", tree);
    cr_expect_gt(rounds, 1);
    cr_expect_not(h.env.failed);
    wlh_close(&h);
}

/* ==== barnes-hut ==== */

/* Whether the 32 active lanes of op read the 32 words from base on, each
 * once (a permutation of the bodies). */
static bool reads_each_word(const struct kernel_op *op, const struct kernel_warp *w, addr_t base)
{
    uint32_t seen = 0;
    for (unsigned l = 0; l < 32; l++) {
        addr_t a = op->lanes ? w->lane_addr[l] : op->base + l * (uint64_t)op->stride;
        if (a < base || a >= base + 128 || a % 4)
            return false;
        seen |= 1u << (a - base) / 4;
    }
    return seen == UINT32_MAX;
}

/* 32 bodies, one step: the seven kernels in order. Every body's descent
 * starts in the root cell's eight slots; the force kernel's (32, 8) block
 * gives warp 0 the bodies in tree order (a permutation) in its first 32
 * lanes and none in the next 32 (k >= 32); its walk starts by reading one
 * root slot for the whole warp. */
Test(wl_hm_lib, barnes_hut_builds_the_tree_and_walks_it_per_warp)
{
    struct wlh h;
    wlh_open_small(&h, &wl_barnes_hut, NULL);
    struct kernel k, seq[7];
    wlh_next_kernel(&h, &seq[0], "bounding_box", 1, 1, 256, 1, "RRRWWW");
    cr_assert(h.ops->next_kernel(h.self, &seq[1]));
    cr_expect_str_eq(seq[1].name, "clear_children");
    wlh_next_kernel(&h, &seq[2], "build_tree", 1, 1, 256, 1, "RRRWW");
    wlh_next_kernel(&h, &seq[3], "summarize", 1, 1, 256, 1, "RWWWWW");
    wlh_next_kernel(&h, &seq[4], "sort_bodies", 1, 1, 256, 1, "RRWW");
    wlh_next_kernel(&h, &seq[5], "force", 1, 1, 32, 8, "RRRRRRWWW");
    wlh_next_kernel(&h, &seq[6], "integrate", 1, 1, 256, 1, "WWWWWWRRR");
    struct kernel_warp w;
    k = seq[2];
    wlh_warp_at(&w, &k, 0, 0);
    wlh_expect_alu(&k, &w, 21);
    expect_mem(&k, &w, KOP_LOAD, arg(&k, 0), 4, low_bits(32));
    for (int i = 0; i < 5; i++) /* posy, posz and the ALU between */
        wlh_step(&k, &w);
    struct kernel_op op = wlh_step(&k, &w);
    cr_assert(op.kind == KOP_LOAD && op.lanes && op.mask == low_bits(32));
    for (unsigned l = 0; l < 32; l++)
        cr_expect(w.lane_addr[l] >= arg(&k, 3) && w.lane_addr[l] < arg(&k, 3) + 32, "lane %u", l);
    k = seq[5];
    wlh_warp_at(&w, &k, 0, 0);
    for (op = wlh_step(&k, &w); op.kind != KOP_BARRIER; op = wlh_step(&k, &w))
        cr_assert_neq(op.kind, KOP_EXIT);
    wlh_expect_alu(&k, &w, 8);
    expect_mem(&k, &w, KOP_LOAD, arg(&k, 0), 4, low_bits(32));
    wlh_expect_alu(&k, &w, 3);
    op = wlh_step(&k, &w);
    cr_expect(op.kind == KOP_LOAD && op.mask == low_bits(32) && reads_each_word(&op, &w, arg(&k, 1)));
    addr_t a = 0;
    do { /* posy, posz, the leader's stack, the reads of pos and node */
        op = wlh_step(&k, &w);
        a = op.lanes ? w.lane_addr[0] : op.base;
    } while (op.kind != KOP_EXIT && !(op.kind == KOP_LOAD && a >= arg(&k, 5) &&
                                      a < arg(&k, 5) + k.args[5].buf->size));
    cr_assert(op.kind == KOP_LOAD && op.mask == low_bits(32), "the walk's first slot");
    cr_expect(a < arg(&k, 5) + 32, "a root slot");
    for (unsigned l = 1; op.lanes && l < 32; l++)
        cr_expect_eq(w.lane_addr[l], a, "lane %u", l);
    cr_expect(op.lanes || op.stride == 0);
    wlh_no_more(&h);
    wlh_close(&h);
}
