/*
 * minicontact.c -- a contact search of explicit structural dynamics (the
 * global bucket search and the node-to-face local search), "HPC_MiniContact"
 * of spec hmg.md 8 (246 MB). A substitute: the paper's trace and
 * MiniContact's source are not public; this is the search such a proxy
 * performs each step, as GPU contact codes write it.
 *
 * Modelled (kernel descriptions, kd.h): two facing sheets of quadrilateral
 * surface faces, a master sheet (static, its faces searched) and a slave
 * sheet (its nodes search) moving toward it. Per step: node_move (every
 * node's position advanced), face_bbox (each master face gathers its four
 * nodes, stores its bounding box, its bin in a 2D grid of columns, and
 * takes a slot in the bin with a .gpu atomicAdd on the bin's count),
 * bin_scan (one work-group scans the counts into the bins' starts and
 * clears them), bin_fill (each face at its bin's start plus its slot), and
 * node_search (each slave node reads the starts of the 3 x 3 bins around
 * it, tests the bounding boxes of the faces there, projects itself on the
 * face it falls in and, when it has penetrated, appends the contact with a
 * .gpu atomicAdd on the contact count). The host runs the search in C
 * (the sheets' geometry from sim.seed) and binds what the kernels' reads
 * find: the faces' bins and places, each node's bins and candidate ranges,
 * its face, the face's nodes and its contact's slot (in node order). ALU
 * counts from nvcc 13 -arch=sm_90 PTX of a CUDA version
 * (docs/workloads/minicontact.md).
 * Abstracted: no values; the bounding-box test's short-circuit (all six
 * bounds loaded); one pass (slave nodes against master faces).
 */
#include <math.h>
#include <string.h>

#include "workload/kdw.h"

#define MC_BLOCK 256
#define MC_SCAN 1024 /* threads of bin_scan's one work-group */

static const struct cfg_key mc_keys[] = {
    {"n", CFG_INT, "1470", 2, 4096, "nodes along each edge of each sheet", NULL},
    {"bin", CFG_INT, "2", 1, 64, "faces along each edge of a bin", NULL},
    {"steps", CFG_INT, "10", 1, 100000, "time steps (a search each)", NULL},
    CFG_END,
};

/* PTX: entry and test 14, then 2, 1, 1 ... between the accesses. */
static const struct kd_desc mc_move_kd = {
    .name = "node_move",
    .params = (const char *const[]){"n", NULL},
    .bufs = (const char *const[]){"x", "v", NULL},
    .body = "alu 14\n"
            "if gid < n\n"
            "  alu 2\n"
            "  for m0 = 0 .. 3                  # x, y, z (structures of arrays)\n"
            "    load v[m0*n + gid] 4 -> r1\n    alu 1\n    load x[m0*n + gid] 4 -> r2\n"
            "    alu 1 < r1 r2\n    store x[m0*n + gid] 4\n    alu 1\n"
            "  end\n"
            "end\n",
};

/* Two corners' coordinates (PTX: the pairs of gathers, 1 and 7 between). */
#define BB_GATHER(C, N) \
    "  load x[" C "*nn + @fc[gid*4]] 4 -> r2\n  load x[" C "*nn + @fc[gid*4 + 1]] 4 -> r3\n" \
    "  alu 1\n" \
    "  load x[" C "*nn + @fc[gid*4 + 3]] 4 -> r4\n  load x[" C "*nn + @fc[gid*4 + 2]] 4 -> r5\n" \
    "  alu " N " < r2 r3 r4 r5\n"
static const struct kd_desc mc_bbox_kd = {
    .name = "face_bbox",
    .params = (const char *const[]){"nf", "nn", NULL},
    .bufs = (const char *const[]){"conn", "x", "bbox", "fbin", "fslot", "bcount", NULL},
    .arrays = (const char *const[]){"fc", "fb", NULL},
    .range_reads = true,
    .range_join = 128,
    .arrays_fixed = true,
    .body = "alu 18\n"
            "if gid < nf\n"
            "  alu 2\n"
            "  load conn[gid] 16 -> r1\n"
            "  alu 16 < r1\n"
            BB_GATHER("0", "7") BB_GATHER("1", "7") BB_GATHER("2", "9")
            "  store bbox[gid] 4\n  alu 2\n  store bbox[nf + gid] 4\n  alu 4\n"
            "  store bbox[2*nf + gid] 4\n  alu 1\n  store bbox[3*nf + gid] 4\n  alu 1\n"
            "  store bbox[4*nf + gid] 4\n  alu 1\n  store bbox[5*nf + gid] 4\n"
            "  alu 10\n"
            "  store fbin[gid] 4\n"
            "  alu 2\n"
            "  atomic bcount[@fb[gid]] 4 -> r6 gpu relaxed\n"
            "  alu 1 < r6\n"
            "  store fslot[gid] 4 < r6\n"
            "end\n",
};

/* bin_scan: a thread per chunk of `per` bins; a Hillis-Steele scan of the
 * chunks' sums in LDS (the offsets in @off); the starts written and the
 * counts cleared; the last thread writes the end. */
static const struct kd_desc mc_scan_kd = {
    .name = "bin_scan",
    .params = (const char *const[]){"nb", "per", NULL},
    .bufs = (const char *const[]){"bcount", "bstart", NULL},
    .arrays = (const char *const[]){"off", NULL},
    .body = "alu 15\n"
            "for m0 = 0 .. per\n"
            "  alu 3\n"
            "  if tx*per + m0 < nb\n    load bcount[tx*per + m0] 4 -> r1\n    alu 1 < r1\n  end\n"
            "  alu 2\n"
            "end\n"
            "alu 3\n"
            "lds_store lds[tx] 4\n"
            "for m1 = 0 .. 10\n"
            "  barrier\n"
            "  alu 2\n"
            "  if @off[m1] - 1 < tx\n    lds_load lds[tx - @off[m1]] 4 -> r2\n  end\n"
            "  barrier\n"
            "  lds_load lds[tx] 4 -> r3\n  alu 2 < r2 r3\n  lds_store lds[tx] 4\n"
            "end\n"
            "barrier\n"
            "alu 2\n"
            "if 0 < tx\n  lds_load lds[tx - 1] 4 -> r4\nend\n"
            "alu 13\n"
            "for m0 = 0 .. per\n"
            "  alu 3\n"
            "  if tx*per + m0 < nb\n"
            "    store bstart[tx*per + m0] 4 < r4\n    load bcount[tx*per + m0] 4 -> r5\n"
            "    alu 2 < r5\n    store bcount[tx*per + m0] 4\n"
            "  end\n"
            "  alu 2\n"
            "end\n"
            "alu 2\n"
            "if 1022 < tx\n  lds_load lds[tx] 4 -> r6\n  alu 2 < r6\n  store bstart[nb] 4 < r6\nend\n",
};

static const struct kd_desc mc_fill_kd = {
    .name = "bin_fill",
    .params = (const char *const[]){"nf", NULL},
    .bufs = (const char *const[]){"fbin", "fslot", "bstart", "sorted", NULL},
    .arrays = (const char *const[]){"fb", "pos", NULL},
    .range_reads = true,
    .range_join = 128,
    .arrays_fixed = true,
    .body = "alu 11\n"
            "if gid < nf\n"
            "  alu 2\n  load fbin[gid] 4 -> r1\n  alu 3 < r1\n"
            "  load bstart[@fb[gid]] 4 -> r2\n  load fslot[gid] 4 -> r3\n  alu 3 < r2 r3\n"
            "  store sorted[@pos[gid]] 4\n"
            "end\n",
};

/* node_search. Per row of bins (dy = -1 .. 1; a row outside the grid has
 * rb = re): the starts of its first bin and past its last; per candidate
 * face the sorted entry and the six bounds. The narrow phase on the face
 * found (@hb: face + 1): its nodes, the three corners, the gap; a
 * contact's slot (@slot: slot + 1) by the atomic count. */
static const char *const mc_search_arrays[] = {"rb", "re", "cs", "ce", "srt", "hb", "bn", "slot",
                                               NULL};
static const struct kd_desc mc_search_kd = {
    .name = "node_search",
    .params = (const char *const[]){"ns", "s0", "nf", "nn", NULL},
    .bufs = (const char *const[]){"x", "bstart", "sorted", "bbox", "conn", "ncontact",
                                  "contacts", NULL},
    .arrays = mc_search_arrays,
    .range_reads = true,
    .range_join = 128,
    .body = "alu 21\n"
            "if gid < ns\n"
            "  alu 5\n"
            "  load x[s0 + gid] 4 -> r1\n  load x[nn + s0 + gid] 4 -> r2\n  alu 2\n"
            "  load x[2*nn + s0 + gid] 4 -> r3\n"
            "  alu 9 < r1 r2 r3\n"
            "  for m0 = 0 .. 3\n"
            "    alu 6\n"
            "    if @rb[gid*3 + m0] < @re[gid*3 + m0]\n"
            "      alu 5\n      load bstart[@rb[gid*3 + m0]] 4 -> r4\n      alu 2\n"
            "      load bstart[@re[gid*3 + m0]] 4 -> r5\n      alu 4 < r4 r5\n"
            "      for m1 = @cs[gid*3 + m0] .. @ce[gid*3 + m0]\n"
            "        load sorted[m1] 4 -> r6\n        alu 2 < r6\n"
            "        load bbox[@srt[m1]] 4 -> r7\n        alu 5 < r7\n"
            "        load bbox[nf + @srt[m1]] 4 -> r7\n        alu 6 < r7\n"
            "        load bbox[2*nf + @srt[m1]] 4 -> r7\n        alu 4 < r7\n"
            "        load bbox[3*nf + @srt[m1]] 4 -> r7\n        alu 4 < r7\n"
            "        load bbox[4*nf + @srt[m1]] 4 -> r7\n        alu 4 < r7\n"
            "        load bbox[5*nf + @srt[m1]] 4 -> r7\n        alu 2 < r7\n"
            "      end\n"
            "    end\n"
            "    alu 3\n"
            "  end\n"
            "  alu 2\n"
            "  if 0 < @hb[gid]                  # the face found: the gap\n"
            "    alu 2\n"
            "    load conn[@hb[gid] - 1] 16 -> r8\n"
            "    alu 6 < r8\n"
            "    load x[@bn[gid*4 + 1]] 4 -> r9\n    load x[@bn[gid*4]] 4 -> r10\n    alu 2\n"
            "    load x[nn + @bn[gid*4 + 1]] 4 -> r11\n    load x[nn + @bn[gid*4]] 4 -> r12\n"
            "    alu 2\n"
            "    load x[2*nn + @bn[gid*4 + 1]] 4 -> r13\n    load x[2*nn + @bn[gid*4]] 4 -> r14\n"
            "    alu 3\n"
            "    load x[@bn[gid*4 + 3]] 4 -> r15\n    alu 2\n"
            "    load x[nn + @bn[gid*4 + 3]] 4 -> r16\n    alu 2\n"
            "    load x[2*nn + @bn[gid*4 + 3]] 4 -> r17\n"
            "    alu 23 < r9 r10 r11 r12 r13 r14 r15 r16 r17\n"
            "    if 0 < @slot[gid]              # penetrated: the contact appended\n"
            "      atomic ncontact[0] 4 -> r18 gpu relaxed\n"
            "      alu 3 < r18\n"
            "      store contacts[(@slot[gid] - 1)*3] 4\n"
            "      store contacts[(@slot[gid] - 1)*3 + 1] 4\n"
            "      store contacts[(@slot[gid] - 1)*3 + 2] 4\n"
            "    end\n"
            "  end\n"
            "end\n",
};

enum { K_MOVE, K_BBOX, K_SCAN, K_FILL, K_SEARCH, K_N };
enum { B_X, B_V, B_CONN, B_BBOX, B_FBIN, B_FSLOT, B_BCOUNT, B_BSTART, B_SORTED, B_NCONTACT,
       B_CONTACTS, B_N };
/* The host arrays: faces' nodes, bins and places, the sorted faces; per
 * slave node its rows' bins and candidate ranges, its face (+ 1), the
 * face's nodes, its contact's slot (+ 1). */
enum { A_FC, A_FB, A_POS, A_SRT, A_RB, A_RE, A_CS, A_CE, A_HB, A_BN, A_SLOT, A_N };

struct mc {
    struct kdw w;
    uint32_t n, bin, steps, nf, nbx, nb, nn;
    double *mz;             /* the master nodes' heights, in face widths */
    uint32_t *a[A_N];
    uint64_t na[A_N];
    const struct kernel_buf *bufs[B_N];
};

#define MC_TOL 0.25   /* bounding boxes grow by this many face widths */
#define MC_Z0 0.25    /* the slave sheet's height at the start */
#define MC_DZ 0.05    /* its motion per step */
#define MC_AMP 0.4    /* the master sheet's roughness */

static const uint32_t mc_offs[10] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512};

/* Master face f's nodes (i, j), (i + 1, j), (i + 1, j + 1), (i, j + 1); its
 * bin (its column of bin x bin faces); the bins' counts and each face's
 * place in the sorted list (bins in order, faces in order within one). */
static void mc_faces(struct mc *c)
{
    uint32_t fe = c->n - 1, *cnt = xcalloc(c->nb + 1ull, sizeof *cnt);
    for (uint32_t f = 0; f < c->nf; f++) {
        uint32_t i = f % fe, j = f / fe, v = j * c->n + i;
        uint32_t nodes[4] = {v, v + 1, v + 1 + c->n, v + c->n};
        memcpy(c->a[A_FC] + 4ull * f, nodes, sizeof nodes);
        c->a[A_FB][f] = j / c->bin * c->nbx + i / c->bin;
        cnt[c->a[A_FB][f] + 1]++;
    }
    for (uint32_t b = 0; b < c->nb; b++)
        cnt[b + 1] += cnt[b];
    for (uint32_t f = 0; f < c->nf; f++) {
        c->a[A_POS][f] = cnt[c->a[A_FB][f]]++;
        c->a[A_SRT][c->a[A_POS][f]] = f;
    }
    for (uint32_t b = c->nb; b > 0; b--) /* cnt[b] is now the start of bin b + 1 */
        cnt[b] = cnt[b - 1];
    cnt[0] = 0;
    uint32_t *start = cnt;
    for (uint32_t s = 0; s < c->n * c->n; s++) {
        double x = (s % c->n + 0.5) * fe / c->n, y = (s / c->n + 0.5) * fe / c->n;
        uint32_t bx = (uint32_t)min_u64((uint32_t)x / c->bin, c->nbx - 1);
        uint32_t by = (uint32_t)min_u64((uint32_t)y / c->bin, c->nbx - 1);
        for (uint32_t r = 0; r < 3; r++) {
            uint32_t k = s * 3 + r, ry = by + r - 1;
            bool in = by + r >= 1 && ry < c->nbx;
            uint32_t b0 = ry * c->nbx + (bx ? bx - 1 : 0), b1 = ry * c->nbx + (uint32_t)min_u64(bx + 2, c->nbx);
            c->a[A_RB][k] = in ? b0 : 0, c->a[A_RE][k] = in ? b1 : 0;
            c->a[A_CS][k] = in ? start[b0] : 0, c->a[A_CE][k] = in ? start[b1] : 0;
        }
    }
    free(cnt);
}

/* Slave node s after `step` + 1 moves: its face among the candidates (the
 * last whose grown bounding box holds it), the face's nodes, and whether
 * it lies below the face's plane (a contact, slots in node order). */
static void mc_search(struct mc *c, uint32_t step)
{
    uint32_t fe = c->n - 1, nc = 0;
    double pz = MC_Z0 - MC_DZ * (step + 1);
    for (uint32_t s = 0; s < c->n * c->n; s++) {
        double px = (s % c->n + 0.5) * fe / c->n, py = (s / c->n + 0.5) * fe / c->n;
        int64_t best = -1;
        for (uint32_t k = s * 3; k < s * 3 + 3; k++)
            for (uint32_t m = c->a[A_CS][k]; m < c->a[A_CE][k]; m++) {
                uint32_t f = c->a[A_SRT][m], i = f % fe, j = f / fe, v = j * c->n + i;
                double z[4] = {c->mz[v], c->mz[v + 1], c->mz[v + 1 + c->n], c->mz[v + c->n]};
                double lo = fmin(fmin(z[0], z[1]), fmin(z[2], z[3])) - MC_TOL;
                double hi = fmax(fmax(z[0], z[1]), fmax(z[2], z[3])) + MC_TOL;
                if (px >= i - MC_TOL && px <= i + 1 + MC_TOL && py >= j - MC_TOL &&
                    py <= j + 1 + MC_TOL && pz >= lo && pz <= hi)
                    best = f;
            }
        c->a[A_HB][s] = (uint32_t)(best + 1);
        c->a[A_SLOT][s] = 0;
        if (best < 0)
            continue;
        memcpy(c->a[A_BN] + 4ull * s, c->a[A_FC] + 4ull * best, 4 * sizeof(uint32_t));
        uint32_t i = (uint32_t)best % fe, j = (uint32_t)best / fe, v = j * c->n + i;
        double dx = c->mz[v + 1] - c->mz[v], dy = c->mz[v + c->n] - c->mz[v];
        double gap = -(px - i) * dx - (py - j) * dy + (pz - c->mz[v]);
        if (gap < 0)
            c->a[A_SLOT][s] = ++nc;
    }
}

static int mc_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    struct mc *c = (struct mc *)w;
    c->n = (uint32_t)cfg_uint(sec, "n");
    c->bin = (uint32_t)cfg_uint(sec, "bin");
    c->steps = (uint32_t)cfg_uint(sec, "steps");
    if (c->bin > c->n - 1)
        return cfg_err(e, sec, "bin", "a bin wider than the sheet's %u faces", c->n - 1);
    uint64_t n2 = (uint64_t)c->n * c->n;
    c->nf = (c->n - 1) * (c->n - 1);
    c->nbx = (uint32_t)div_ceil(c->n - 1, c->bin);
    c->nb = c->nbx * c->nbx;
    c->nn = (uint32_t)(2 * n2);
    const uint64_t na[A_N] = {4ull * c->nf, c->nf, c->nf, c->nf, 3 * n2, 3 * n2, 3 * n2,
                              3 * n2, n2, 4 * n2, n2};
    for (unsigned i = 0; i < A_N; i++)
        c->a[i] = xcalloc(na[i], sizeof *c->a[i]), c->na[i] = na[i];
    c->mz = xmalloc(n2 * sizeof *c->mz);
    for (uint64_t v = 0; v < n2; v++)
        c->mz[v] = MC_AMP * ((double)(hash64(w->env->seed ^ (v + 1)) >> 11) / 9007199254740992.0 -
                             0.5);
    mc_faces(c);
    const char *const names[B_N] = {"x", "v", "conn", "bbox", "fbin", "fslot", "bcount",
                                    "bstart", "sorted", "ncontact", "contacts"};
    const uint64_t size[B_N] = {12ull * c->nn, 12ull * c->nn, 16ull * c->nf, 24ull * c->nf,
                                4ull * c->nf, 4ull * c->nf, 4ull * c->nb, 4ull * c->nb + 4,
                                4ull * c->nf, 4, 12 * n2};
    for (unsigned i = 0; i < B_N; i++)
        c->bufs[i] = wl_alloc(w->env, names[i], size[i]);
    return 0;
}

static void mc_bind(const struct mc *c, struct kdw_launch *l, const unsigned *b, unsigned nb,
                    const unsigned *a, unsigned na)
{
    for (unsigned i = 0; i < nb; i++)
        l->bufs[i] = c->bufs[b[i]];
    for (unsigned i = 0; i < na; i++)
        l->arrays[i] = (struct kd_array){c->a[a[i]], c->na[a[i]]};
}

/* Launch k of a step: one thread per node, face or slave node, 256 to a
 * work-group; bin_scan one work-group of 1,024. */
static void mc_launch(const struct mc *c, unsigned k, struct kdw_launch *l)
{
    static const unsigned bb[] = {B_CONN, B_X, B_BBOX, B_FBIN, B_FSLOT, B_BCOUNT},
                          ba[] = {A_FC, A_FB}, fb[] = {B_FBIN, B_FSLOT, B_BSTART, B_SORTED},
                          fa[] = {A_FB, A_POS},
                          sb[] = {B_X, B_BSTART, B_SORTED, B_BBOX, B_CONN, B_NCONTACT, B_CONTACTS},
                          sa[] = {A_RB, A_RE, A_CS, A_CE, A_SRT, A_HB, A_BN, A_SLOT};
    static const unsigned mb[] = {B_X, B_V}, cb[] = {B_BCOUNT, B_BSTART};
    uint64_t n2 = (uint64_t)c->n * c->n, threads[K_N] = {c->nn, c->nf, MC_SCAN, c->nf, n2};
    l->prog = k;
    l->grid = (struct kernel_dim){(uint32_t)div_ceil(threads[k], MC_BLOCK), 1, 1};
    l->block = (struct kernel_dim){MC_BLOCK, 1, 1};
    if (k == K_MOVE) {
        l->params[0] = c->nn;
        mc_bind(c, l, mb, 2, NULL, 0);
    } else if (k == K_BBOX || k == K_FILL) {
        l->params[0] = c->nf;
        l->params[1] = c->nn;
        mc_bind(c, l, k == K_BBOX ? bb : fb, k == K_BBOX ? 6 : 4, k == K_BBOX ? ba : fa, 2);
    } else if (k == K_SCAN) {
        l->grid.x = 1, l->block.x = MC_SCAN, l->lds_b = MC_SCAN * 4;
        l->params[0] = c->nb;
        l->params[1] = div_ceil(c->nb, MC_SCAN);
        mc_bind(c, l, cb, 2, NULL, 0);
        l->arrays[0] = (struct kd_array){mc_offs, 10};
    } else {
        int64_t pv[] = {(int64_t)n2, (int64_t)n2, c->nf, c->nn};
        memcpy(l->params, pv, sizeof pv);
        mc_bind(c, l, sb, 7, sa, 8);
    }
}

static bool mc_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    struct mc *c = (struct mc *)w;
    if (i >= (uint64_t)K_N * c->steps)
        return false;
    unsigned k = (unsigned)(i % K_N);
    if (k == K_SEARCH)
        mc_search(c, (uint32_t)(i / K_N));
    mc_launch(c, k, l);
    return true;
}

static uint64_t mc_count(const struct kdw *w)
{
    return (uint64_t)K_N * ((const struct mc *)w)->steps;
}

static void mc_release(struct kdw *w)
{
    struct mc *c = (struct mc *)w;
    for (unsigned i = 0; i < A_N; i++)
        free(c->a[i]);
    free(c->mz);
}

static const struct kd_desc *const mc_descs[] = {&mc_move_kd, &mc_bbox_kd, &mc_scan_kd,
                                                 &mc_fill_kd, &mc_search_kd, NULL};
static const struct kdw_model mc_model = {.size = sizeof(struct mc), .descs = mc_descs,
                                          .setup = mc_setup, .plan = mc_plan,
                                          .count = mc_count, .release = mc_release};

static void *mc_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&mc_model, env, sec, e);
}

static const char *const mc_small[] = {"n=8", "steps=2", NULL};

const struct wl_ops wl_minicontact = {
    .name = "minicontact",
    .suite = "HPC",
    .desc = "contact search: face bounding boxes bucketed by .gpu atomics, a scan, node-to-face "
            "search and contacts appended atomically (two sheets of 1470^2 nodes; substitute for "
            "HMG's MiniContact)",
    .keys = mc_keys,
    .small = mc_small,
    .create = mc_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
    .kernels = kdw_kernels,
};
