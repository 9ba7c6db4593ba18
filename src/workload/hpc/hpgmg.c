/*
 * hpgmg.c -- substitute for HMG's "HPC_HPGMG" (spec hmg.md 8: 1.32 GB):
 * HPGMG-FV's geometric multigrid V-cycle on a cell-centred finite-volume
 * variable-coefficient Helmholtz problem (a alpha u - b div(beta grad u) =
 * f, 7-point star operator, homogeneous Dirichlet boundaries), the domain
 * cut into boxes^3 cubic boxes of 2^log2_dim cells with one ghost layer,
 * doubles. Per level: red-black Gauss-Seidel smooths, each colour after a
 * ghost exchange of the face planes between boxes, the residual, its
 * restriction (8 fine cells to 1) onto the next level, whose solution is
 * zeroed; at the coarsest level (boxes of 2^3) smooths stand for the
 * bottom solver; on the way up piecewise-constant interpolation adds each
 * coarse cell to its 8 fine cells before the post-smooths.
 *
 * Kernels as HPGMG's CUDA port tiles a box: a work-group of 32 x 4 threads
 * over (i, j) of one box (grid z), each thread looping over k; the face
 * exchange a thread per face cell, a work-group per 32 x 4 tile of one
 * face (grid z: box and side), one launch per direction. The level sizes,
 * the boxes' neighbours and the V-cycle's launch order are computed on the
 * host; the face lists are the arrays src and dst. ALU counts from nvcc 13
 * -arch=sm_90 PTX (docs/workloads/hpgmg.md). Abstracted: no values; the
 * bottom solver (BiCGStab in HPGMG) is replaced by smooths; boxes are not
 * agglomerated on the coarse levels.
 */
#include <stdlib.h>
#include <string.h>

#include "workload/hpc/hpc.h"
#include "workload/kdw.h"

static const struct cfg_key hpgmg_keys[] = {
    {"log2_dim", CFG_INT, "7", 2, 9, "log2 of the cells per box side on the finest level "
     "(HPGMG's first argument)", NULL},
    {"boxes", CFG_INT, "2", 1, 16, "boxes per side of the cubic domain (boxes^3 in all)", NULL},
    {"smooths", CFG_INT, "2", 1, 8, "red-black smooths before and after each coarse-grid "
     "correction", NULL},
    {"bottom", CFG_INT, "4", 1, 64, "smooths at the coarsest level (for the bottom solver)",
     NULL},
    {"cycles", CFG_INT, "1", 1, 100, "V-cycles", NULL},
    CFG_END,
};

#define HG_I "(bx*32 + tx)"
#define HG_J "(by*4 + ty)"
/* Cell (i, j, k = m0) of box bz on the level (padded by one ghost cell). */
#define HG_C "(lo + bz*bv + " HG_I " + 1 + (" HG_J " + 1)*jS + (m0 + 1)*kS)"
/* Pieces less than a 128 B line apart join: the checker tests a line
 * access against one range (docs/workloads.md "Per-work-group ranges"). */
#define HG_JOIN 128
#define HG_IN "if " HG_I " < d and " HG_J " < d\n"
static const char *const hg_lvl[] = {"lo", "bv", "jS", "kS", "d", "s", NULL};

/* The 7-point operator's loads in the compiled order (alpha, the centre,
 * then per axis the upper neighbour, its face coefficient, the lower
 * neighbour, the centre's face coefficient), `a` the counts before each. */
#define HG_OP(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13)                     \
    "    alu " a0 "\n    load alpha[" HG_C "] 8 -> r1\n"                                       \
    "    alu " a1 "\n    load x[" HG_C "] 8 -> r2\n"                                           \
    "    alu " a2 "\n    load x[" HG_C " + 1] 8 -> r3\n"                                       \
    "    alu " a3 "\n    load bi[" HG_C " + 1] 8 -> r4\n"                                      \
    "    alu " a4 "\n    load x[" HG_C " - 1] 8 -> r5\n"                                       \
    "    alu " a5 "\n    load bi[" HG_C "] 8 -> r6\n"                                          \
    "    alu " a6 " < r1 r2\n    load x[" HG_C " + jS] 8 -> r3\n"                              \
    "    alu " a7 "\n    load bj[" HG_C " + jS] 8 -> r4\n"                                     \
    "    alu " a8 " < r3 r4\n    load x[" HG_C " - jS] 8 -> r5\n"                              \
    "    alu " a9 "\n    load bj[" HG_C "] 8 -> r6\n"                                          \
    "    alu " a10 " < r5 r6\n    load x[" HG_C " + kS] 8 -> r3\n"                             \
    "    alu " a11 "\n    load bk[" HG_C " + kS] 8 -> r4\n"                                    \
    "    alu " a12 " < r3 r4\n    load x[" HG_C " - kS] 8 -> r5\n"                             \
    "    alu " a13 "\n    load bk[" HG_C "] 8 -> r6\n"

/* smooth_gsrb: the cells of colour s ((i + j + k + s) even) of each k. */
static const struct kd_desc hg_gsrb_kd = {
    .name = "smooth_gsrb",
    .range_join = HG_JOIN,
    .params = hg_lvl,
    .bufs = (const char *const[]){"x", "rhs", "alpha", "bi", "bj", "bk", "dinv", NULL},
    .body = "alu 30 + 17 [" HG_I " < d]\n" HG_IN
            "  for m0 = 0 .. d\n"
            "    alu 6\n"
            "    if (" HG_I " + " HG_J " + m0 + s) % 2 < 1\n"
            HG_OP("5", "1", "1", "2", "1", "1", "7", "1", "5", "1", "7", "1", "5", "1")
            "      alu 6 < r5 r6\n"
            "      load rhs[" HG_C "] 8 -> r7\n"
            "      alu 1\n"
            "      load dinv[" HG_C "] 8 -> r8\n"
            "      alu 1 < r7 r8\n"
            "      store x[" HG_C "] 8 < r8\n"
            "    end\n"
            "    alu 5\n"
            "  end\n"
            "end\n",
};

/* residual: res = rhs - A x on every cell. */
static const struct kd_desc hg_res_kd = {
    .name = "residual",
    .range_join = HG_JOIN,
    .params = hg_lvl,
    .bufs = (const char *const[]){"res", "x", "rhs", "alpha", "bi", "bj", "bk", NULL},
    .body = "alu 29 + 45 [" HG_I " < d]\n" HG_IN
            "  for m0 = 0 .. d\n"
            HG_OP("3", "1", "2", "1", "1", "1", "4", "1", "7", "1", "4", "1", "3", "1")
            "    alu 5 < r5 r6\n"
            "    load rhs[" HG_C "] 8 -> r7\n"
            "    alu 2 < r7\n"
            "    store res[" HG_C "] 8 < r7\n"
            "    alu 5\n"
            "  end\n"
            "end\n",
};

/* Coarse cell (I, J, K = m0) and the first of its 8 fine cells. */
#define HG_CC "(clo + bz*cbv + " HG_I " + 1 + (" HG_J " + 1)*cjS + (m0 + 1)*ckS)"
#define HG_FC "(flo + bz*fbv + 2*" HG_I " + 1 + (2*" HG_J " + 1)*fjS + (2*m0 + 1)*fkS)"
static const char *const hg_two[] = {"clo", "cbv", "cjS", "ckS", "flo", "fbv", "fjS", "fkS",
                                     "d", NULL};
#define HG_IN2 "if " HG_I " < d and " HG_J " < d\n"

/* restriction: coarse rhs = the mean of the 8 fine residuals. */
static const struct kd_desc hg_restrict_kd = {
    .name = "restriction",
    .range_join = HG_JOIN,
    .params = hg_two,
    .bufs = (const char *const[]){"rhs", "res", NULL},
    .body = "alu 23 + 2 [" HG_I " < d] + 37 [" HG_J " < d]\n" HG_IN2
            "  for m0 = 0 .. d\n"
            "    alu 2\n    load res[" HG_FC " + 1] 8 -> r1\n    load res[" HG_FC "] 8 -> r2\n"
            "    alu 2\n    load res[" HG_FC " + fjS] 8 -> r3\n"
            "    alu 1\n    load res[" HG_FC " + fjS + 1] 8 -> r4\n"
            "    alu 2\n    load res[" HG_FC " + fkS] 8 -> r5\n"
            "    alu 1\n    load res[" HG_FC " + fkS + 1] 8 -> r6\n"
            "    alu 2\n    load res[" HG_FC " + fkS + fjS] 8 -> r7\n"
            "    alu 1\n    load res[" HG_FC " + fkS + fjS + 1] 8 -> r8\n"
            "    alu 2 < r1 r2 r3 r4 r5 r6 r7 r8\n"
            "    store rhs[" HG_CC "] 8\n"
            "    alu 5\n"
            "  end\n"
            "end\n",
};

/* One fine cell of the 8 a coarse value is added to. */
#define HG_ADD(off, pre, post)                                                                \
    pre "    load x[" HG_FC off "] 8 -> r2\n    alu 1 < r1 r2\n"                              \
    "    store x[" HG_FC off "] 8 < r2\n" post
/* interpolation_pc: each coarse cell's correction added to its 8 fine cells. */
static const struct kd_desc hg_interp_kd = {
    .name = "interpolation_pc",
    .range_join = HG_JOIN,
    .params = hg_two,
    .bufs = (const char *const[]){"x", NULL},
    .body = "alu 22 + 2 [" HG_I " < d] + 31 [" HG_J " < d]\n" HG_IN2
            "  for m0 = 0 .. d\n"
            "    alu 5\n"
            "    load x[" HG_FC "] 8 -> r2\n"
            "    load x[" HG_CC "] 8 -> r1\n"
            "    alu 1 < r1 r2\n"
            "    store x[" HG_FC "] 8 < r2\n"
            HG_ADD(" + 1", "", "    alu 1\n") HG_ADD(" + fjS", "", "")
            HG_ADD(" + fjS + 1", "", "    alu 1\n") HG_ADD(" + fkS", "", "")
            HG_ADD(" + fkS + 1", "", "    alu 1\n") HG_ADD(" + fkS + fjS", "", "")
            HG_ADD(" + fkS + fjS + 1", "", "")
            "    alu 6\n"
            "  end\n"
            "end\n",
};

/* exchange_faces: ghost cell (u, v) of face bz (box and side) from the
 * neighbour's boundary plane, or the box's own at the domain's edge; the
 * face record (source, destination, sign) read as the real code does. */
static const struct kd_desc hg_exch_kd = {
    .name = "exchange_faces",
    .range_join = HG_JOIN,
    .params = (const char *const[]){"su", "sv", "d", "fo", NULL},
    .bufs = (const char *const[]){"x", "faces", NULL},
    .arrays = (const char *const[]){"src", "dst", NULL},
    .range_reads = true,
    .body = "alu 19 + 7 [" HG_I " < d]\n" HG_IN
            "  load faces[fo + bz*3] 8 -> r1\n"
            "  alu 3 < r1\n"
            "  load x[@src[bz] + " HG_I "*su + " HG_J "*sv] 8 -> r2\n"
            "  load faces[fo + bz*3 + 2] 8 -> r3\n"
            "  alu 2 < r2 r3\n"
            "  load faces[fo + bz*3 + 1] 8 -> r4\n"
            "  alu 3 < r4\n"
            "  store x[@dst[bz] + " HG_I "*su + " HG_J "*sv] 8 < r2\n"
            "end\n",
};

/* zero_vector: the next level's solution before its cycle. */
static const struct kd_desc hg_zero_kd = {
    .name = "zero_vector",
    .range_join = HG_JOIN,
    .params = hg_lvl,
    .bufs = (const char *const[]){"x", NULL},
    .body = "alu 20 + 15 [" HG_I " < d]\n" HG_IN
            "  for m0 = 0 .. d\n"
            "    alu 2\n"
            "    store x[" HG_C "] 8\n"
            "    alu 4\n"
            "  end\n"
            "end\n",
};

enum { K_GSRB, K_RES, K_RESTRICT, K_INTERP, K_EXCH, K_ZERO };
enum { V_X, V_RHS, V_RES, V_ALPHA, V_BI, V_BJ, V_BK, V_DINV, V_N };

#define HG_MAX_LEVELS 9

struct hgl {
    uint32_t d, jS, kS;
    uint64_t lo, bv;    /* first element of the level in each vector; per box */
    uint32_t *src, *dst; /* [3][nbox * 2]: per direction, each face's planes */
};

struct hpgmg {
    struct kdw w;
    uint32_t nlev, nbox, boxes, smooths, bottom;
    struct hgl lv[HG_MAX_LEVELS];
    struct hpc_plan plan; /* kernel, level, colour or direction */
    const struct kernel_buf *v[V_N], *faces;
};

static void hg_push(struct hpgmg *h, unsigned k, unsigned lvl, unsigned arg)
{
    hpc_plan_push(&h->plan, k, lvl, arg);
}

/* One red-black smooth: per colour the three face exchanges, then the
 * colour's sweep. */
static void hg_smooth(struct hpgmg *h, unsigned l)
{
    for (unsigned s = 0; s < 2; s++) {
        for (unsigned dir = 0; dir < 3; dir++)
            hg_push(h, K_EXCH, l, dir);
        hg_push(h, K_GSRB, l, s);
    }
}

/* HPGMG-FV's V-cycle from level l down. */
static void hg_vcycle(struct hpgmg *h, unsigned l)
{
    if (l + 1 == h->nlev) {
        for (unsigned i = 0; i < h->bottom; i++)
            hg_smooth(h, l);
        return;
    }
    for (unsigned i = 0; i < h->smooths; i++)
        hg_smooth(h, l);
    for (unsigned dir = 0; dir < 3; dir++)
        hg_push(h, K_EXCH, l, dir);
    hg_push(h, K_RES, l, 0);
    hg_push(h, K_RESTRICT, l, 0);
    hg_push(h, K_ZERO, l + 1, 0);
    hg_vcycle(h, l + 1);
    hg_push(h, K_INTERP, l, 0);
    for (unsigned i = 0; i < h->smooths; i++)
        hg_smooth(h, l);
}

static int hpgmg_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    struct hpgmg *h = (struct hpgmg *)w;
    uint32_t d = 1u << cfg_uint(sec, "log2_dim");
    h->boxes = (uint32_t)cfg_uint(sec, "boxes");
    h->nbox = h->boxes * h->boxes * h->boxes;
    h->smooths = (uint32_t)cfg_uint(sec, "smooths");
    h->bottom = (uint32_t)cfg_uint(sec, "bottom");
    uint64_t total = 0;
    for (h->nlev = 0; d >= 2; d /= 2, h->nlev++) {
        struct hgl *L = &h->lv[h->nlev];
        *L = (struct hgl){.d = d, .jS = d + 2, .kS = (d + 2) * (d + 2), .lo = total,
                          .bv = (uint64_t)(d + 2) * (d + 2) * (d + 2)};
        total += L->bv * h->nbox;
    }
    if (total > UINT32_MAX)
        return cfg_err(e, sec, "log2_dim", "%llu cells per vector with boxes = %u: more than "
                       "the 2^32 the face lists address", (unsigned long long)total, h->boxes);
    for (unsigned l = 0; l < h->nlev; l++) {
        struct hgl *L = &h->lv[l];
        L->src = xmalloc(3ull * h->nbox * 2 * sizeof *L->src);
        L->dst = xmalloc(3ull * h->nbox * 2 * sizeof *L->dst);
        struct hpc_boxes g = {.n = {h->boxes, h->boxes, h->boxes}, .d = {L->d, L->d, L->d},
                              .base = L->lo, .bv = L->bv, .st = {1, L->jS, L->kS}};
        for (unsigned dir = 0; dir < 3; dir++) /* Dirichlet at the domain's edge */
            hpc_faces(&g, dir, true, L->src + dir * h->nbox * 2, L->dst + dir * h->nbox * 2);
    }
    static const char *const names[V_N] = {"x", "rhs", "res", "alpha", "bi", "bj", "bk",
                                           "dinv"};
    for (unsigned v = 0; v < V_N; v++)
        h->v[v] = wl_alloc(w->env, names[v], total * 8);
    h->faces = wl_alloc(w->env, "faces", (uint64_t)h->nlev * 3 * h->nbox * 2 * 3 * 8);
    for (uint64_t c = cfg_uint(sec, "cycles"); c; c--)
        hg_vcycle(h, 0);
    return 0;
}

/* A level's cell parameters (lo, bv, jS, kS, d) at p. */
static void hg_lvl_params(const struct hgl *L, int64_t *p)
{
    int64_t v[] = {(int64_t)L->lo, (int64_t)L->bv, L->jS, L->kS, L->d};
    memcpy(p, v, sizeof v);
}

static void hg_bufs(const struct hpgmg *h, struct kdw_launch *l, const unsigned *v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        l->bufs[i] = h->v[v[i]];
}

static bool hpgmg_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct hpgmg *h = (const struct hpgmg *)w;
    if (i >= h->plan.n)
        return false;
    struct hpc_step st = h->plan.s[i];
    const struct hgl *L = &h->lv[st.a], *C = &h->lv[st.a + (st.a + 1u < h->nlev)];
    uint32_t d = st.k == K_RESTRICT || st.k == K_INTERP ? C->d : L->d;
    *l = (struct kdw_launch){.prog = st.k, .grid = {(d + 31) / 32, (d + 3) / 4, h->nbox},
                             .block = {32, 4, 1}};
    static const unsigned gsrb[] = {V_X, V_RHS, V_ALPHA, V_BI, V_BJ, V_BK, V_DINV},
                          res[] = {V_RES, V_X, V_RHS, V_ALPHA, V_BI, V_BJ, V_BK},
                          restr[] = {V_RHS, V_RES}, x[] = {V_X};
    if (st.k == K_GSRB || st.k == K_RES || st.k == K_ZERO) {
        hg_lvl_params(L, l->params);
        l->params[5] = st.b;
        hg_bufs(h, l, st.k == K_GSRB ? gsrb : st.k == K_RES ? res : x,
                st.k == K_ZERO ? 1 : 7);
    } else if (st.k == K_EXCH) {
        uint64_t f = (uint64_t)st.b * h->nbox * 2;
        l->grid.z = h->nbox * 2;
        int64_t p[] = {st.b == 0 ? L->jS : 1, st.b == 2 ? L->jS : L->kS, L->d,
                       (int64_t)((st.a * 3 + st.b) * h->nbox * 2 * 3)};
        memcpy(l->params, p, sizeof p);
        hg_bufs(h, l, x, 1);
        l->bufs[1] = h->faces;
        l->arrays[0] = (struct kd_array){L->src + f, h->nbox * 2};
        l->arrays[1] = (struct kd_array){L->dst + f, h->nbox * 2};
    } else {
        hg_lvl_params(C, l->params);
        hg_lvl_params(L, l->params + 4);
        l->params[8] = C->d;
        hg_bufs(h, l, st.k == K_RESTRICT ? restr : x, st.k == K_RESTRICT ? 2 : 1);
    }
    return true;
}

static uint64_t hpgmg_count(const struct kdw *w)
{
    return ((const struct hpgmg *)w)->plan.n;
}

static void hpgmg_release(struct kdw *w)
{
    struct hpgmg *h = (struct hpgmg *)w;
    for (unsigned l = 0; l < h->nlev; l++) {
        free(h->lv[l].src);
        free(h->lv[l].dst);
    }
    hpc_plan_free(&h->plan);
}

static const struct kd_desc *const hpgmg_descs[] = {&hg_gsrb_kd, &hg_res_kd, &hg_restrict_kd,
                                                    &hg_interp_kd, &hg_exch_kd, &hg_zero_kd,
                                                    NULL};
static const struct kdw_model hpgmg_model = {.size = sizeof(struct hpgmg), .descs = hpgmg_descs,
                                             .setup = hpgmg_setup, .plan = hpgmg_plan,
                                             .count = hpgmg_count, .release = hpgmg_release};

static void *hpgmg_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&hpgmg_model, env, sec, e);
}

static const char *const hpgmg_small[] = {"log2_dim=2", "boxes=2", "smooths=1", "bottom=1",
                                          NULL};

const struct wl_ops wl_hpgmg = {
    .name = "hpgmg",
    .suite = "HPC",
    .desc = "HPGMG-FV multigrid V-cycle: red-black smooths after ghost-face exchanges between "
            "boxes, residual, restriction, interpolation (HMG HPGMG; substitute)",
    .keys = hpgmg_keys,
    .small = hpgmg_small,
    .create = hpgmg_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
    .kernels = kdw_kernels,
};
