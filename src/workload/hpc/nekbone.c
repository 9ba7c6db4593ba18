/*
 * nekbone.c -- Nekbone's conjugate-gradient solve (the Poisson kernel of
 * Nek5000: spectral elements, matrix-free), "HPC_Nekbone-10" of spec hmg.md 8
 * (178 MB). A substitute: the paper's trace is not public; this is the CG
 * iteration of Nekbone's cg.f as a GPU port runs it, one kernel per vector
 * operation, on a box of hexahedral elements of 10 x 10 x 10 points.
 *
 * Modelled (kernel descriptions, kd.h): per iteration z = r (no
 * preconditioner), rtz = glsc3(r, c, z), p = z + beta p, w = A p (ax_e: one
 * work-group per element, the element's points and the derivative matrix in
 * LDS, the three local derivatives, the six geometric factors per point,
 * the transposed derivatives), the direct-stiffness sum of w over the
 * nodes that neighbouring elements share (gs_op: a thread per shared node
 * gathers its copies and scatters the sum back), w += 0.1 p, pap =
 * glsc3(w, c, p), x += alpha p, r -= alpha w, rtr = glsc3(r, c, r). A
 * weighted inner product is two kernels: partial sums per work-group, then
 * one work-group's sum (the host reads the scalar: alpha and beta are
 * kernel arguments). The host builds the global numbering of the element
 * box and the shared nodes' lists (gs_op's arrays) once. ALU counts from
 * nvcc 13 -arch=sm_90 PTX of a CUDA version (docs/workloads/nekbone.md).
 * Abstracted: no values; the Dirichlet mask (Nekbone's is empty); MPI.
 */
#include <string.h>

#include "workload/kdw.h"

#define NEK_BLOCK 256
#define NEK_PER_THREAD 8 /* elements per thread of a partial inner product */

static const struct cfg_key nek_keys[] = {
    {"ex", CFG_INT, "12", 1, 256, "elements along x", NULL},
    {"ey", CFG_INT, "12", 1, 256, "elements along y", NULL},
    {"ez", CFG_INT, "12", 1, 256, "elements along z", NULL},
    {"nx", CFG_INT, "10", 2, 16, "GLL points per element edge (Nekbone's lx1)", NULL},
    {"iterations", CFG_INT, "10", 1, 100000, "CG iterations (Nekbone's driver: 100)", NULL},
    CFG_END,
};

static const char *const vec_params[] = {"n", NULL};

/* The element-wise kernels, a thread per point (PTX: entry and test 9 or
 * 10, the addresses between the accesses). */
static const struct kd_desc nek_init_kd = {
    .name = "cg_init", .params = vec_params,
    .bufs = (const char *const[]){"x", "r", "f", NULL},
    .body = "alu 10\n"
            "if gid < n\n"
            "  alu 3\n  store x[gid] 8\n  alu 1\n  load f[gid] 8 -> r1\n  alu 1\n"
            "  store r[gid] 8 < r1\n"
            "end\n",
};
static const struct kd_desc nek_copy_kd = {
    .name = "nek_copy", .params = vec_params,
    .bufs = (const char *const[]){"a", "b", NULL},
    .body = "alu 9\n"
            "if gid < n\n"
            "  alu 2\n  load b[gid] 8 -> r1\n  alu 1\n  store a[gid] 8 < r1\n"
            "end\n",
};
static const struct kd_desc nek_add2s1_kd = {
    .name = "add2s1", .params = vec_params,
    .bufs = (const char *const[]){"a", "b", NULL},
    .body = "alu 10\n"
            "if gid < n\n"
            "  alu 2\n  load a[gid] 8 -> r1\n  alu 1\n  load b[gid] 8 -> r2\n  alu 1 < r1 r2\n"
            "  store a[gid] 8\n"
            "end\n",
};
static const struct kd_desc nek_add2s2_kd = {
    .name = "add2s2", .params = vec_params,
    .bufs = (const char *const[]){"a", "b", NULL},
    .body = "alu 10\n"
            "if gid < n\n"
            "  alu 3\n  load b[gid] 8 -> r1\n  load a[gid] 8 -> r2\n  alu 1 < r1 r2\n"
            "  store a[gid] 8\n"
            "end\n",
};

/* The LDS tree of a 256-thread sum: per level a barrier, the test (2) and
 * the add (1) of the offsets in @half; thread 0 stores the sum (1, 2). */
#define NEK_TREE(OUT) \
    "alu 3\n" \
    "lds_store lds[tx] 8\n" \
    "for m1 = 0 .. 8\n" \
    "  barrier\n" \
    "  alu 2\n" \
    "  if tx < @half[m1]\n" \
    "    lds_load lds[tx] 8 -> r3\n    lds_load lds[tx + @half[m1]] 8 -> r4\n" \
    "    alu 1 < r3 r4\n    lds_store lds[tx] 8\n" \
    "  end\n" \
    "end\n" \
    "barrier\n" \
    "alu 1\n" \
    "if tx < 1\n" \
    "  lds_load lds[0] 8 -> r5\n  alu 2 < r5\n  store " OUT " 8 < r5\n" \
    "end\n"

static const char *const nek_half[] = {"half", NULL};
static const struct kd_desc nek_part_kd = {
    .name = "glsc3_part", .params = vec_params,
    .bufs = (const char *const[]){"a", "b", "c", "part", NULL},
    .arrays = nek_half,
    .body = "alu 15\n"
            "for m0 = gid .. n step gdx*bdx\n"
            "  alu 3\n  load a[m0] 8 -> r1\n  load b[m0] 8 -> r2\n  alu 2\n"
            "  load c[m0] 8 -> r6\n  alu 4 < r1 r2 r6\n"
            "end\n" NEK_TREE("part[bx]"),
};
static const struct kd_desc nek_final_kd = {
    .name = "glsc3_final", .params = vec_params,
    .bufs = (const char *const[]){"part", "dot", NULL},
    .arrays = nek_half,
    .body = "alu 10\n"
            "for m0 = tx .. n step bdx\n"
            "  alu 2\n  load part[m0] 8 -> r1\n  alu 4 < r1\n"
            "end\n" NEK_TREE("dot[0]"),
};

/* ax_e, block nx x nx (tx = i, ty = j), a loop over the planes k. LDS in
 * doubles: D at 0, the element's points u at U, the weighted derivatives
 * r, s, t at R, R + e3, R + 2 e3 (e3 = nx^3, e2 = nx^2). */
#define AX_G(C) "    load g[(bx*e3 + m0*e2 + ty*nx + tx)*6 + " C "] 8 -> r1" C "\n"
static const struct kd_desc nek_ax_kd = {
    .name = "ax_e",
    .params = (const char *const[]){"nx", "e2", "e3", "U", "R", NULL},
    .bufs = (const char *const[]){"w", "u", "g", "dxm1", NULL},
    .body = "alu 9\n"
            "load dxm1[ty*nx + tx] 8 -> r1\n"
            "alu 5\n"
            "lds_store lds[ty*nx + tx] 8 < r1\n"
            "alu 8\n"
            "for m0 = 0 .. nx                   # the element's planes into LDS\n"
            "  load u[bx*e3 + m0*e2 + ty*nx + tx] 8 -> r2\n"
            "  lds_store lds[U + m0*e2 + ty*nx + tx] 8 < r2\n"
            "end\n"
            "barrier\n"
            "alu 1\n"
            "for m1 = 0 .. nx                   # rows of D kept in registers\n"
            "  lds_load lds[tx*nx + m1] 8 -> r3\n  lds_load lds[ty*nx + m1] 8 -> r3\n"
            "  lds_load lds[m1*nx + tx] 8 -> r3\n"
            "end\n"
            "alu 15 < r3\n"
            "for m0 = 0 .. nx                   # ur, us, ut and the geometric factors\n"
            "  lds_load lds[m0*nx] 8 -> r4\n"
            "  alu 2\n"
            "  for m1 = 0 .. nx\n"
            "    lds_load lds[U + m0*e2 + ty*nx + m1] 8 -> r5\n    alu 1 < r5\n"
            "    lds_load lds[U + m0*e2 + m1*nx + tx] 8 -> r6\n    alu 1 < r6\n"
            "    lds_load lds[U + m1*e2 + ty*nx + tx] 8 -> r7\n    alu 1 < r7\n"
            "  end\n"
            "  alu 3\n"
            AX_G("0") AX_G("1")
            "    alu 2\n"
            AX_G("2")
            "    alu 1 < r10 r11 r12\n"
            "    lds_store lds[R + m0*e2 + ty*nx + tx] 8\n"
            AX_G("3")
            "    alu 2\n"
            AX_G("4")
            "    alu 1 < r13 r14\n"
            "    lds_store lds[R + e3 + m0*e2 + ty*nx + tx] 8\n"
            "    alu 2\n"
            AX_G("5")
            "    alu 1 < r15\n"
            "    lds_store lds[R + 2*e3 + m0*e2 + ty*nx + tx] 8\n"
            "  alu 9\n"
            "end\n"
            "alu 10\n"
            "barrier\n"
            "alu 2\n"
            "for m1 = 0 .. nx\n"
            "  lds_load lds[m1*nx + ty] 8 -> r3\n  lds_load lds[m1*nx + tx] 8 -> r3\n"
            "  lds_load lds[tx*nx + m1] 8 -> r3\n"
            "end\n"
            "alu 8 < r3\n"
            "for m0 = 0 .. nx                   # w: the transposed derivatives\n"
            "  for m1 = 0 .. nx\n"
            "    lds_load lds[R + m0*e2 + ty*nx + m1] 8 -> r5\n"
            "    lds_load lds[R + e3 + m0*e2 + m1*nx + tx] 8 -> r6\n"
            "    alu 2 < r5 r6\n"
            "    lds_load lds[R + 2*e3 + m1*e2 + ty*nx + tx] 8 -> r7\n"
            "    alu 2 < r7\n"
            "  end\n"
            "  store w[bx*e3 + m0*e2 + ty*nx + tx] 8\n"
            "  alu 6\n"
            "end\n",
};

/* gs_op: a thread per shared node, its copies col[row[g] .. row[g + 1]). */
static const struct kd_desc nek_gs_kd = {
    .name = "gs_op",
    .params = (const char *const[]){"ng", NULL},
    .bufs = (const char *const[]){"w", "row", "col", NULL},
    .arrays = (const char *const[]){"row", "col", NULL},
    .range_join = 128,
    .range_reads = true,
    .arrays_fixed = true,
    .body = "alu 10\n"
            "if gid < ng\n"
            "  alu 2\n"
            "  load row[gid] 4 -> r1\n  load row[gid + 1] 4 -> r2\n"
            "  alu 15 < r1 r2\n"
            "  for m0 = @row[gid] .. @row[gid + 1]   # gather\n"
            "    load col[m0] 4 -> r3\n    alu 2 < r3\n    load w[@col[m0]] 8 -> r4\n"
            "    alu 6 < r4\n"
            "  end\n"
            "  alu 3\n"
            "  for m0 = @row[gid] .. @row[gid + 1]   # scatter\n"
            "    load col[m0] 4 -> r3\n    alu 2 < r3\n    store w[@col[m0]] 8\n    alu 1\n"
            "    load row[gid + 1] 4 -> r2\n    alu 3 < r2\n"
            "  end\n"
            "end\n",
};

enum { K_INIT, K_COPY, K_PART, K_FINAL, K_ADD2S1, K_AX, K_GS, K_ADD2S2, K_N };
enum { B_X, B_F, B_R, B_Z, B_P, B_W, B_C, B_G, B_D, B_ROW, B_COL, B_PART, B_DOT, B_N };

struct nek {
    struct kdw w;
    uint32_t e[3], nx, iterations, nel, npart;
    uint64_t n;             /* points, element by element */
    uint32_t *row, *col;    /* the shared nodes' copies (CSR) */
    uint32_t ng;            /* shared nodes */
    const struct kernel_buf *bufs[B_N];
};

static const uint32_t nek_halves[8] = {128, 64, 32, 16, 8, 4, 2, 1};

/* The global node of each local point of the element box, and the CSR of
 * the nodes that more than one element holds (in the order of their global
 * numbers; each node's copies in local order). */
static void nek_shared(struct nek *k)
{
    uint32_t nx = k->nx, gx = k->e[0] * (nx - 1) + 1, gy = k->e[1] * (nx - 1) + 1;
    uint64_t nglob = (uint64_t)gx * gy * (k->e[2] * (nx - 1) + 1);
    uint32_t *gid = xmalloc(k->n * sizeof *gid), *cnt = xcalloc(nglob, sizeof *cnt);
    for (uint64_t l = 0; l < k->n; l++) {
        uint32_t e = (uint32_t)(l / ((uint64_t)nx * nx * nx)), q = (uint32_t)(l % (nx * nx * nx));
        uint32_t x = e % k->e[0] * (nx - 1) + q % nx;
        uint32_t y = e / k->e[0] % k->e[1] * (nx - 1) + q / nx % nx;
        uint32_t z = e / (k->e[0] * k->e[1]) * (nx - 1) + q / (nx * nx);
        gid[l] = (uint32_t)(((uint64_t)z * gy + y) * gx + x);
        cnt[gid[l]]++;
    }
    k->ng = 0;
    uint64_t copies = 0;
    for (uint64_t g = 0; g < nglob; g++)
        if (cnt[g] > 1)
            k->ng++, copies += cnt[g];
    k->row = xmalloc((k->ng + 1ull) * sizeof *k->row);
    k->col = xmalloc((copies ? copies : 1) * sizeof *k->col);
    uint32_t s = 0, at = 0;
    for (uint64_t g = 0; g < nglob; g++) { /* cnt becomes the next slot of each shared node */
        uint32_t c = cnt[g];
        cnt[g] = c > 1 ? at : UINT32_MAX;
        if (c > 1)
            k->row[s++] = at, at += c;
    }
    k->row[s] = at;
    for (uint64_t l = 0; l < k->n; l++)
        if (cnt[gid[l]] != UINT32_MAX)
            k->col[cnt[gid[l]]++] = (uint32_t)l;
    free(gid);
    free(cnt);
}

static int nek_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    struct nek *k = (struct nek *)w;
    static const char *const ek[] = {"ex", "ey", "ez"};
    for (unsigned i = 0; i < 3; i++)
        k->e[i] = (uint32_t)cfg_uint(sec, ek[i]);
    k->nx = (uint32_t)cfg_uint(sec, "nx");
    k->iterations = (uint32_t)cfg_uint(sec, "iterations");
    uint64_t nel = (uint64_t)k->e[0] * k->e[1] * k->e[2], e3 = (uint64_t)k->nx * k->nx * k->nx;
    uint64_t lds = (k->nx * k->nx + 4 * e3) * 8;
    if (w->env->lds_b && lds > w->env->lds_b)
        return cfg_err(e, sec, "nx", "ax_e needs %llu bytes of LDS per work-group; a CU has "
                       "%u", (unsigned long long)lds, w->env->lds_b);
    if (nel * e3 * 104 > (64ull << 30))
        return cfg_err(e, sec, "ez", "%llu points, %llu bytes: at most 64 GiB",
                       (unsigned long long)(nel * e3), (unsigned long long)(nel * e3 * 104));
    k->nel = (uint32_t)nel;
    k->n = nel * e3;
    k->npart = (uint32_t)div_ceil(k->n, NEK_BLOCK * NEK_PER_THREAD);
    nek_shared(k);
    const char *const names[B_N] = {"x", "f", "r", "z", "p", "w", "c", "g", "dxm1",
                                    "gs_row", "gs_col", "partial", "dot"};
    const uint64_t size[B_N] = {k->n * 8, k->n * 8, k->n * 8, k->n * 8, k->n * 8, k->n * 8,
                                k->n * 8, k->n * 48, k->nx * k->nx * 8ull, (k->ng + 1ull) * 4,
                                (k->row[k->ng] ? k->row[k->ng] : 1) * 4ull, k->npart * 8ull, 8};
    for (unsigned i = 0; i < B_N; i++)
        k->bufs[i] = wl_alloc(w->env, names[i], size[i]);
    return 0;
}

/* One element-wise launch over the n points, on buffers a, b (and c). */
static void nek_vec(const struct nek *k, struct kdw_launch *l, unsigned prog, unsigned a,
                    unsigned b)
{
    l->prog = prog;
    l->grid = (struct kernel_dim){(uint32_t)div_ceil(k->n, NEK_BLOCK), 1, 1};
    l->block = (struct kernel_dim){NEK_BLOCK, 1, 1};
    l->params[0] = (int64_t)k->n;
    l->bufs[0] = k->bufs[a];
    l->bufs[1] = k->bufs[b];
}

/* A weighted inner product's partial sums (a, c, b: glsc3(a, b, c) with c
 * the weights), or its final sum. */
static void nek_dot(const struct nek *k, struct kdw_launch *l, bool final, unsigned a,
                    unsigned b)
{
    static const struct kd_array half = {nek_halves, 8};
    l->arrays[0] = half;
    l->block = (struct kernel_dim){NEK_BLOCK, 1, 1};
    l->lds_b = NEK_BLOCK * 8;
    if (final) {
        l->prog = K_FINAL;
        l->grid = (struct kernel_dim){1, 1, 1};
        l->params[0] = k->npart;
        l->bufs[0] = k->bufs[B_PART];
        l->bufs[1] = k->bufs[B_DOT];
        return;
    }
    l->prog = K_PART;
    l->grid = (struct kernel_dim){k->npart, 1, 1};
    l->params[0] = (int64_t)k->n;
    const struct kernel_buf *bufs[] = {k->bufs[a], k->bufs[b], k->bufs[B_C], k->bufs[B_PART]};
    memcpy(l->bufs, bufs, sizeof bufs);
}

static void nek_ax(const struct nek *k, struct kdw_launch *l)
{
    int64_t nx = k->nx, e2 = nx * nx, e3 = e2 * nx;
    l->prog = K_AX;
    l->grid = (struct kernel_dim){k->nel, 1, 1};
    l->block = (struct kernel_dim){k->nx, k->nx, 1};
    int64_t pv[] = {nx, e2, e3, e2, e2 + e3};
    memcpy(l->params, pv, sizeof pv);
    const struct kernel_buf *bufs[] = {k->bufs[B_W], k->bufs[B_P], k->bufs[B_G], k->bufs[B_D]};
    memcpy(l->bufs, bufs, sizeof bufs);
    l->lds_b = (uint32_t)((e2 + 4 * e3) * 8);
}

static void nek_gs(const struct nek *k, struct kdw_launch *l)
{
    l->prog = K_GS;
    l->grid = (struct kernel_dim){(uint32_t)div_ceil(k->ng ? k->ng : 1, NEK_BLOCK), 1, 1};
    l->block = (struct kernel_dim){NEK_BLOCK, 1, 1};
    l->params[0] = k->ng;
    const struct kernel_buf *bufs[] = {k->bufs[B_W], k->bufs[B_ROW], k->bufs[B_COL]};
    memcpy(l->bufs, bufs, sizeof bufs);
    l->arrays[0] = (struct kd_array){k->row, k->ng + 1ull};
    l->arrays[1] = (struct kd_array){k->col, k->row[k->ng] ? k->row[k->ng] : 1};
}

/* Launch 0 sets x = 0 and r = f; then 13 launches per CG iteration. */
static bool nek_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct nek *k = (const struct nek *)w;
    if (i == 0) {
        nek_vec(k, l, K_INIT, B_X, B_R);
        l->bufs[2] = k->bufs[B_F];
        return true;
    }
    if (i > 13ull * k->iterations)
        return false;
    switch ((i - 1) % 13) {
    case 0: nek_vec(k, l, K_COPY, B_Z, B_R); break;          /* solveM: z = r */
    case 1: nek_dot(k, l, false, B_R, B_Z); break;           /* rtz1 = glsc3(r, c, z) */
    case 3: nek_vec(k, l, K_ADD2S1, B_P, B_Z); break;        /* p = z + beta p */
    case 4: nek_ax(k, l); break;                             /* w = A p, element by element */
    case 5: nek_gs(k, l); break;                             /* dssum(w) */
    case 6: nek_vec(k, l, K_ADD2S2, B_W, B_P); break;        /* w += 0.1 p */
    case 7: nek_dot(k, l, false, B_W, B_P); break;           /* pap = glsc3(w, c, p) */
    case 9: nek_vec(k, l, K_ADD2S2, B_X, B_P); break;        /* x += alpha p */
    case 10: nek_vec(k, l, K_ADD2S2, B_R, B_W); break;       /* r -= alpha w */
    case 11: nek_dot(k, l, false, B_R, B_R); break;          /* rtr = glsc3(r, c, r) */
    default: nek_dot(k, l, true, 0, 0); break;               /* the final sums */
    }
    return true;
}

static uint64_t nek_count(const struct kdw *w)
{
    return 1 + 13ull * ((const struct nek *)w)->iterations;
}

static void nek_release(struct kdw *w)
{
    struct nek *k = (struct nek *)w;
    free(k->row);
    free(k->col);
}

static const struct kd_desc *const nek_descs[] = {&nek_init_kd, &nek_copy_kd, &nek_part_kd,
                                                  &nek_final_kd, &nek_add2s1_kd, &nek_ax_kd,
                                                  &nek_gs_kd, &nek_add2s2_kd, NULL};
static const struct kdw_model nek_model = {.size = sizeof(struct nek), .descs = nek_descs,
                                           .setup = nek_setup, .plan = nek_plan,
                                           .count = nek_count, .release = nek_release};

static void *nek_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&nek_model, env, sec, e);
}

static const char *const nek_small[] = {"ex=2", "ey=1", "ez=1", "nx=4", "iterations=1", NULL};

const struct wl_ops wl_nekbone = {
    .name = "nekbone",
    .suite = "HPC",
    .desc = "Nekbone CG: spectral-element Ax per element, shared-node gather-scatter, weighted "
            "dot products (12^3 elements of 10^3 points; substitute for HMG's Nekbone-10)",
    .keys = nek_keys,
    .small = nek_small,
    .create = nek_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
    .kernels = kdw_kernels,
};
