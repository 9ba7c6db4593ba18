/*
 * cnn.c -- DNNMark's composed forward model "Conv+Pool+FC" (CPElide Table II:
 * input 128 x 128 x 3, batch 4), fp32, NCHW, as MIOpen and rocBLAS run it:
 *   conv_fwd  direct convolution (MIOpen's OpenCL direct kernels): a 16 x 16
 *             output tile per work-group, 8 output channels per thread; per
 *             input channel the input tile with its halo and the 8 filters
 *             are staged in LDS, then 8 FMAs per filter tap
 *   pool_fwd  max pooling, one thread per output pixel, read from global
 *   fc_zero   Tensile's beta-only kernel that clears C before a split-K GEMM
 *             (only when the GEMM is split)
 *   fc_gemm   fully connected layer: out[n][o] = sum_i pool[n][i] W[o][i],
 *             mlk.h's tiled GEMM with split-K, accumulating with atomics
 * Layer shapes (our reading of DNNMark's composed-model example, cifar10
 * "quick" conv1/pool1 and a 10-way classifier, on the Table II input): conv
 * 32 filters 5 x 5, pad 2, stride 1; max pool 3 x 3, stride 2; FC 10 outputs.
 * Abstracted: no bias, no activation layer; the weight reads of the conv
 * inner loop are LDS broadcasts of 16 B counted as one access each; the exact
 * MIOpen solver (tile sizes) is not reproduced (docs/workloads/cnn.md).
 */
#include <stdlib.h>

#include "workload/deepbench/mlk.h"

static const struct cfg_key cnn_keys[] = {
    {"batch", CFG_INT, "4", 1, 4096, "images per batch (N)", NULL},
    {"channels", CFG_INT, "3", 1, 4096, "input channels (C)", NULL},
    {"height", CFG_INT, "128", 1, 65536, "input height (H)", NULL},
    {"width", CFG_INT, "128", 1, 65536, "input width (W)", NULL},
    {"conv_out", CFG_INT, "32", 8, 4096, "convolution filters (K), a multiple of 8", NULL},
    {"conv_kernel", CFG_INT, "5", 1, 11, "filter height and width (R = S)", NULL},
    {"conv_pad", CFG_INT, "2", 0, 10, "zero padding on each side", NULL},
    {"conv_stride", CFG_INT, "1", 1, 4, "convolution stride", NULL},
    {"pool_kernel", CFG_INT, "3", 1, 8, "max-pool window height and width", NULL},
    {"pool_stride", CFG_INT, "2", 1, 8, "max-pool stride", NULL},
    {"fc_out", CFG_INT, "10", 1, 65536, "fully connected outputs", NULL},
    {"fc_split_k", CFG_INT, "64", 1, 65536, "split-K factor of the FC GEMM (Tensile GSU)", NULL},
    CFG_END,
};

/* A sanity bound on one buffer (the conv output or the FC weights). */
#define CNN_MAX_BUF_B (64ull << 30)
#define CNN_T 16   /* output tile edge (threads per dimension) */
#define CNN_KPT 8  /* output channels per thread */
/* Instruction estimates per thread: set-up (indices, bounds) 12; per input
 * channel the tile-load addresses and halo bounds checks 10; 8 FMAs per tap;
 * the 8 output addresses 4. Pooling: 12 set-up, 1 v_max per window element. */
#define CNN_ALU_PRO 12
#define CNN_ALU_CH 10
#define CNN_ALU_EPI 4

struct cnn {
    uint32_t n, c, h, w, k, r, pad, st, oh, ow, pk, ps, ph, pw, fo;
    uint32_t tin_h, tin_w, tin, woff, nl, nw, body;
    const struct kernel_buf *in, *cw, *co, *po, *fw, *fo_buf;
    struct mlk_ew zero;
    struct mlk_gemm fc;
    unsigned next;
};

static void cnn_destroy(void *self)
{
    free(self);
}

static uint64_t fl(uint64_t n)
{
    return n * 4;
}

static int cnn_check_sizes(const struct cnn *m, const struct cfg_sec *sec, struct err *e)
{
    if ((uint64_t)m->k * m->ph * m->pw > UINT32_MAX)
        return cfg_err(e, sec, "conv_out", "the FC input (%u x %u x %u) exceeds 2^32", m->k,
                       m->ph, m->pw);
    uint64_t fin = (uint64_t)m->k * m->ph * m->pw;
    /* the largest buffer, blamed on the key that makes it large */
    uint64_t sz[3] = {(uint64_t)m->n * m->c * m->h * m->w, (uint64_t)m->n * m->k * m->oh * m->ow,
                      (uint64_t)m->fo * fin};
    static const char *const key[3] = {"height", "conv_out", "fc_out"};
    for (unsigned i = 0; i < 3; i++)
        if (fl(sz[i]) > CNN_MAX_BUF_B)
            return cfg_err(e, sec, key[i], "a buffer would take %llu GiB (at most %llu)",
                           (unsigned long long)(fl(sz[i]) >> 30),
                           (unsigned long long)(CNN_MAX_BUF_B >> 30));
    return 0;
}

static int cnn_shape(struct cnn *m, const struct cfg_sec *sec, struct err *e)
{
    m->n = (uint32_t)cfg_uint(sec, "batch");
    m->c = (uint32_t)cfg_uint(sec, "channels");
    m->h = (uint32_t)cfg_uint(sec, "height");
    m->w = (uint32_t)cfg_uint(sec, "width");
    m->k = (uint32_t)cfg_uint(sec, "conv_out");
    m->r = (uint32_t)cfg_uint(sec, "conv_kernel");
    m->pad = (uint32_t)cfg_uint(sec, "conv_pad");
    m->st = (uint32_t)cfg_uint(sec, "conv_stride");
    m->pk = (uint32_t)cfg_uint(sec, "pool_kernel");
    m->ps = (uint32_t)cfg_uint(sec, "pool_stride");
    m->fo = (uint32_t)cfg_uint(sec, "fc_out");
    if (m->k % CNN_KPT)
        return cfg_err(e, sec, "conv_out", "must be a multiple of %d (filters per thread)",
                       CNN_KPT);
    if (m->pad >= m->r)
        return cfg_err(e, sec, "conv_pad", "must be below conv_kernel = %u", m->r);
    if (m->h + 2 * m->pad < m->r || m->w + 2 * m->pad < m->r)
        return cfg_err(e, sec, "conv_kernel", "larger than the padded %u x %u input", m->h,
                       m->w);
    m->oh = (m->h + 2 * m->pad - m->r) / m->st + 1;
    m->ow = (m->w + 2 * m->pad - m->r) / m->st + 1;
    if (m->oh < m->pk || m->ow < m->pk)
        return cfg_err(e, sec, "pool_kernel", "larger than the %u x %u convolution output",
                       m->oh, m->ow);
    m->ph = (m->oh - m->pk) / m->ps + 1;
    m->pw = (m->ow - m->pk) / m->ps + 1;
    return cnn_check_sizes(m, sec, e);
}

/* Sizes of the conv kernel's LDS tile and op sequence. */
static void cnn_tiles(struct cnn *m)
{
    m->tin_h = (CNN_T - 1) * m->st + m->r;
    m->tin_w = m->tin_h;
    m->tin = m->tin_h * m->tin_w;
    m->woff = (uint32_t)div_ceil(m->tin * 4, 16) * 16;
    m->nl = (uint32_t)div_ceil(m->tin, CNN_T * CNN_T);
    m->nw = (uint32_t)div_ceil(CNN_KPT * m->r * m->r, CNN_T * CNN_T);
    /* ALU, loads, LDS stores, barrier, taps x (in, KPT/4 weights, FMAs), barrier */
    m->body = 1 + 2 * (m->nl + m->nw) + 1 + m->r * m->r * (2 + CNN_KPT / 4) + 1;
}

static void *cnn_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    struct cnn *m = xcalloc(1, sizeof *m);
    if (cnn_shape(m, sec, e)) {
        free(m);
        return NULL;
    }
    cnn_tiles(m);
    uint64_t fin = (uint64_t)m->k * m->ph * m->pw;
    m->in = wl_alloc(env, "input", fl((uint64_t)m->n * m->c * m->h * m->w));
    m->cw = wl_alloc(env, "conv_w", fl((uint64_t)m->k * m->c * m->r * m->r));
    m->co = wl_alloc(env, "conv_out", fl((uint64_t)m->n * m->k * m->oh * m->ow));
    m->po = wl_alloc(env, "pool_out", fl((uint64_t)m->n * fin));
    m->fw = wl_alloc(env, "fc_w", fl((uint64_t)m->fo * fin));
    m->fo_buf = wl_alloc(env, "fc_out", fl((uint64_t)m->n * m->fo));
    m->fc = (struct mlk_gemm){.a = m->po, .lda = (uint32_t)fin, .b = m->fw, .ldb = (uint32_t)fin,
                              .c = m->fo_buf, .ldc = m->fo, .m = m->n, .n = m->fo,
                              .k = (uint32_t)fin, .splits = (uint32_t)cfg_uint(sec, "fc_split_k")};
    mlk_gemm_init(&m->fc);
    /* clear C: index set-up 8, address 2, one v_mov */
    m->zero = (struct mlk_ew){.rows = m->n, .cols = m->fo, .block = 256, .alu_pre = 10, .alu = 1};
    mlk_ew_add(&m->zero, m->fo_buf, 0, m->fo, true);
    return m;
}

/* ---- convolution ---------------------------------------------------------- */

enum { CP_PRO, CP_BODY, CP_EPI };

struct cnn_wg {
    uint32_t n, k0, oy0, ox0;
};

static struct cnn_wg conv_wg(const struct cnn *m, uint32_t bx, uint32_t by, uint32_t bz)
{
    uint32_t groups = m->k / CNN_KPT;
    return (struct cnn_wg){bz / groups, bz % groups * CNN_KPT, by * CNN_T, bx * CNN_T};
}

/* Input-tile load p of channel c (element e = tid + 256 p of the halo tile). */
static uint64_t conv_in_lanes(const struct cnn *m, struct kernel_warp *w, unsigned p, uint32_t c,
                              bool lds)
{
    struct cnn_wg g = conv_wg(m, w->wg_id.x, w->wg_id.y, w->wg_id.z);
    uint64_t mask = 0;
    for (unsigned l = 0; l < w->nlanes; l++) {
        uint32_t el = kernel_tid(w, l) + CNN_T * CNN_T * p;
        if (el >= m->tin)
            continue;
        int64_t iy = (int64_t)g.oy0 * m->st - m->pad + el / m->tin_w;
        int64_t ix = (int64_t)g.ox0 * m->st - m->pad + el % m->tin_w;
        if (lds) {
            w->lane_addr[l] = el * 4;
        } else {
            if (iy < 0 || ix < 0 || iy >= m->h || ix >= m->w)
                continue; /* zero padding: not loaded */
            w->lane_addr[l] = m->in->base +
                              fl((((uint64_t)g.n * m->c + c) * m->h + (uint64_t)iy) * m->w +
                                 (uint64_t)ix);
        }
        mask |= 1ull << l;
    }
    return mask;
}

/* Filter load p of channel c: element e = kk * R * S + rs, stored to LDS as [rs][kk]. */
static uint64_t conv_w_lanes(const struct cnn *m, struct kernel_warp *w, unsigned p, uint32_t c,
                             bool lds)
{
    struct cnn_wg g = conv_wg(m, w->wg_id.x, w->wg_id.y, w->wg_id.z);
    uint32_t rs = m->r * m->r;
    uint64_t mask = 0;
    for (unsigned l = 0; l < w->nlanes; l++) {
        uint32_t el = kernel_tid(w, l) + CNN_T * CNN_T * p;
        if (el >= CNN_KPT * rs)
            continue;
        uint32_t kk = el / rs, t = el % rs;
        w->lane_addr[l] = lds ? m->woff + (t * CNN_KPT + kk) * 4
                              : m->cw->base + fl(((uint64_t)(g.k0 + kk) * m->c + c) * rs + t);
        mask |= 1ull << l;
    }
    return mask;
}

static void conv_tap(const struct cnn *m, struct kernel_warp *w, struct kernel_op *op,
                     unsigned tap, unsigned q)
{
    op->size = 4;
    op->kind = KOP_LDS_LOAD;
    if (q == 0) { /* the input pixel under tap (r, s) */
        unsigned r = tap / m->r, s = tap % m->r;
        for (unsigned l = 0; l < w->nlanes; l++) {
            uint32_t tid = kernel_tid(w, l), tx = tid % CNN_T, ty = tid / CNN_T;
            w->lane_addr[l] = ((ty * m->st + r) * m->tin_w + tx * m->st + s) * 4;
        }
        op->lanes = true;
        op->dst = 1;
        return;
    }
    /* 4 filters of the tap: the same 16 B for every lane (broadcast) */
    op->size = 16;
    op->base = m->woff + (tap * CNN_KPT + 4 * (q - 1)) * 4;
    op->stride = 0;
    op->dst = 2;
}

static bool conv_body(const struct cnn *m, struct kernel_warp *w, struct kernel_op *op,
                      unsigned pos, uint32_t c)
{
    unsigned nl = m->nl, nw = m->nw, taps0 = 2 + 2 * (nl + nw), per = 2 + CNN_KPT / 4;
    if (pos == 0) {
        op->kind = KOP_ALU;
        op->n = CNN_ALU_CH;
    } else if (pos < 1 + nl + nw) {
        bool wt = pos >= 1 + nl;
        uint64_t mask = wt ? conv_w_lanes(m, w, pos - 1 - nl, c, false)
                           : conv_in_lanes(m, w, pos - 1, c, false);
        if (!mask)
            return false;
        *op = (struct kernel_op){.kind = KOP_LOAD, .size = 4, .lanes = true, .mask = mask,
                                 .dst = wt ? 4 : 3};
    } else if (pos < taps0 - 1) {
        unsigned q = pos - 1 - nl - nw;
        bool wt = q >= nl;
        uint64_t mask = wt ? conv_w_lanes(m, w, q - nl, c, true) : conv_in_lanes(m, w, q, c, true);
        if (!mask)
            return false;
        *op = (struct kernel_op){.kind = KOP_LDS_STORE, .size = 4, .lanes = true, .mask = mask,
                                 .src = {wt ? 4 : 3}};
    } else if (pos == taps0 - 1 || pos == m->body - 1) {
        op->kind = KOP_BARRIER;
    } else {
        unsigned tap = (pos - taps0) / per, q = (pos - taps0) % per;
        if (q == per - 1) {
            *op = (struct kernel_op){.kind = KOP_ALU, .n = CNN_KPT, .src = {1, 2}};
            return true;
        }
        conv_tap(m, w, op, tap, q);
    }
    return true;
}

/* Output store kk: out[n][k0 + kk][oy][ox] for the lanes inside the output. */
static bool conv_store(const struct cnn *m, struct kernel_warp *w, struct kernel_op *op,
                       unsigned kk)
{
    struct cnn_wg g = conv_wg(m, w->wg_id.x, w->wg_id.y, w->wg_id.z);
    uint64_t mask = 0;
    for (unsigned l = 0; l < w->nlanes; l++) {
        uint32_t tid = kernel_tid(w, l), ox = g.ox0 + tid % CNN_T, oy = g.oy0 + tid / CNN_T;
        if (ox >= m->ow || oy >= m->oh)
            continue;
        mask |= 1ull << l;
        w->lane_addr[l] = m->co->base +
                          fl((((uint64_t)g.n * m->k + g.k0 + kk) * m->oh + oy) * m->ow + ox);
    }
    if (!mask)
        return false;
    *op = (struct kernel_op){.kind = KOP_STORE, .size = 4, .lanes = true, .mask = mask};
    return true;
}

/* pc: phase; r[0]: input channel; r[1]: position in the channel body or epilogue. */
static void conv_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    const struct cnn *m = k->ctx;
    for (;;) {
        if (w->pc == CP_PRO) {
            w->pc = CP_BODY;
            *op = (struct kernel_op){.kind = KOP_ALU, .n = CNN_ALU_PRO};
            return;
        }
        if (w->pc == CP_BODY) {
            bool ok = conv_body(m, w, op, (unsigned)w->r[1], (uint32_t)w->r[0]);
            if (++w->r[1] == m->body) {
                w->r[1] = 0;
                if (++w->r[0] == m->c)
                    w->pc = CP_EPI;
            }
            if (ok)
                return;
            continue;
        }
        unsigned pos = (unsigned)w->r[1]++;
        if (pos == 0) {
            *op = (struct kernel_op){.kind = KOP_ALU, .n = CNN_ALU_EPI};
            return;
        }
        if (pos > CNN_KPT) {
            op->kind = KOP_EXIT;
            return;
        }
        if (conv_store(m, w, op, pos - 1))
            return;
    }
}

static unsigned conv_ranges(const struct kernel *k, uint32_t wg, unsigned arg,
                            struct kernel_range *out, unsigned max)
{
    const struct cnn *m = k->ctx;
    uint32_t gx = k->grid.x, gy = k->grid.y;
    struct cnn_wg g = conv_wg(m, wg % gx, wg / gx % gy, wg / (gx * gy));
    unsigned n = 0;
    if (arg == 0) { /* whole input rows of the halo tile, every channel */
        int64_t y0 = (int64_t)g.oy0 * m->st - m->pad;
        uint64_t r0 = y0 < 0 ? 0 : (uint64_t)y0;
        uint64_t r1 = min_u64(m->h, (uint64_t)(y0 + m->tin_h)); /* tin_h > pad */
        for (uint64_t c = 0; c < m->c; c++) {
            uint64_t p = ((uint64_t)g.n * m->c + c) * m->h;
            if (!mlk_range_add(out, &n, max, m->in->base + fl((p + r0) * m->w),
                               m->in->base + fl((p + r1) * m->w)))
                return 0;
        }
    } else if (arg == 1) { /* the 8 filters */
        uint64_t per = (uint64_t)m->c * m->r * m->r;
        mlk_range_add(out, &n, max, m->cw->base + fl(g.k0 * per),
                      m->cw->base + fl((g.k0 + CNN_KPT) * per));
    } else if (arg == 2) { /* whole output rows of the tile, 8 planes */
        uint64_t r1 = min_u64(m->oh, g.oy0 + CNN_T);
        for (uint64_t kk = 0; kk < CNN_KPT; kk++) {
            uint64_t p = ((uint64_t)g.n * m->k + g.k0 + kk) * m->oh;
            if (!mlk_range_add(out, &n, max, m->co->base + fl((p + g.oy0) * m->ow),
                               m->co->base + fl((p + r1) * m->ow)))
                return 0;
        }
    }
    return n;
}

static void conv_kernel(struct cnn *m, struct kernel *k)
{
    wl_kernel_init(k, "conv_fwd", (uint32_t)div_ceil(m->ow, CNN_T),
                   (uint32_t)div_ceil(m->oh, CNN_T), CNN_T, CNN_T, conv_next);
    k->grid.z = m->n * (m->k / CNN_KPT);
    k->lds_b = m->woff + CNN_KPT * m->r * m->r * 4;
    wl_kernel_arg(k, m->in, KERNEL_R);
    wl_kernel_arg(k, m->cw, KERNEL_R);
    wl_kernel_arg(k, m->co, KERNEL_RW);
    k->ranges = conv_ranges;
    k->ctx = m;
}

/* ---- max pooling ---------------------------------------------------------- */

/* Lanes of pool op pc (1..win: window element pc - 1; win + 2: the store). */
static uint64_t pool_lanes(const struct cnn *m, struct kernel_warp *w, unsigned pc)
{
    uint32_t win = m->pk * m->pk, plane = w->wg_id.z;
    uint64_t mask = 0;
    for (unsigned l = 0; l < w->nlanes; l++) {
        uint32_t tid = kernel_tid(w, l);
        uint32_t ox = w->wg_id.x * CNN_T + tid % CNN_T, oy = w->wg_id.y * CNN_T + tid / CNN_T;
        if (ox >= m->pw || oy >= m->ph)
            continue;
        mask |= 1ull << l;
        if (pc <= win) {
            uint64_t iy = (uint64_t)oy * m->ps + (pc - 1) / m->pk;
            uint64_t ix = (uint64_t)ox * m->ps + (pc - 1) % m->pk;
            w->lane_addr[l] = m->co->base + fl(((uint64_t)plane * m->oh + iy) * m->ow + ix);
        } else {
            w->lane_addr[l] = m->po->base + fl(((uint64_t)plane * m->ph + oy) * m->pw + ox);
        }
    }
    return mask;
}

/* pc: 0 set-up ALU, 1..win window loads, win + 1 the max (waits for them),
 * win + 2 the store, then exit. A warp with no output pixel exits at once. */
static void pool_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    const struct cnn *m = k->ctx;
    uint32_t win = m->pk * m->pk;
    unsigned pc = w->pc++;
    if (pc == 0) {
        *op = (struct kernel_op){.kind = KOP_ALU, .n = CNN_ALU_PRO};
        return;
    }
    if (pc == win + 1) {
        *op = (struct kernel_op){.kind = KOP_ALU, .n = win, .src = {1}};
        return;
    }
    uint64_t mask = pc <= win + 2 ? pool_lanes(m, w, pc) : 0;
    if (!mask)
        op->kind = KOP_EXIT;
    else if (pc <= win)
        *op = (struct kernel_op){.kind = KOP_LOAD, .size = 4, .lanes = true, .mask = mask,
                                 .dst = 1};
    else
        *op = (struct kernel_op){.kind = KOP_STORE, .size = 4, .lanes = true, .mask = mask};
}

static unsigned pool_ranges(const struct kernel *k, uint32_t wg, unsigned arg,
                            struct kernel_range *out, unsigned max)
{
    const struct cnn *m = k->ctx;
    uint32_t gx = k->grid.x, gy = k->grid.y, by = wg / gx % gy, plane = wg / (gx * gy);
    uint64_t oy0 = (uint64_t)by * CNN_T, oy1 = min_u64(m->ph, oy0 + CNN_T);
    unsigned n = 0;
    if (arg == 0) {
        uint64_t p = (uint64_t)plane * m->oh, r1 = (oy1 - 1) * m->ps + m->pk;
        mlk_range_add(out, &n, max, m->co->base + fl((p + oy0 * m->ps) * m->ow),
                      m->co->base + fl((p + r1) * m->ow));
    } else if (arg == 1) {
        uint64_t p = (uint64_t)plane * m->ph;
        mlk_range_add(out, &n, max, m->po->base + fl((p + oy0) * m->pw),
                      m->po->base + fl((p + oy1) * m->pw));
    }
    return n;
}

static void pool_kernel(struct cnn *m, struct kernel *k)
{
    wl_kernel_init(k, "pool_fwd", (uint32_t)div_ceil(m->pw, CNN_T),
                   (uint32_t)div_ceil(m->ph, CNN_T), CNN_T, CNN_T, pool_next);
    k->grid.z = m->n * m->k;
    wl_kernel_arg(k, m->co, KERNEL_R);
    wl_kernel_arg(k, m->po, KERNEL_RW);
    k->ranges = pool_ranges;
    k->ctx = m;
}

/* ---- sequence --------------------------------------------------------------- */

static bool cnn_next_kernel(void *self, struct kernel *k)
{
    struct cnn *m = self;
    if (m->next == 2 && m->fc.gz == 1)
        m->next++; /* an unsplit GEMM needs no clearing kernel */
    switch (m->next++) {
    case 0:
        conv_kernel(m, k);
        return true;
    case 1:
        pool_kernel(m, k);
        return true;
    case 2:
        mlk_ew_kernel(k, "fc_zero", &m->zero);
        return true;
    case 3:
        mlk_gemm_kernel(k, "fc_gemm", &m->fc);
        return true;
    default:
        m->next = 4;
        return false;
    }
}

static const char *const cnn_small[] = {"batch=2", "height=32", "width=32", "conv_out=16",
                                        "fc_split_k=4", NULL};

const struct wl_ops wl_cnn = {
    .name = "cnn",
    .desc = "DNNMark composed model: direct conv (LDS) + max pool + FC GEMM, 128x128x3, BS 4",
    .keys = cnn_keys,
    .small = cnn_small,
    .create = cnn_create,
    .next_kernel = cnn_next_kernel,
    .destroy = cnn_destroy,
};
