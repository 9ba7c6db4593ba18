/*
 * cnn.c -- DNNMark's composed forward model "Conv+Pool+FC" (CPElide Table II:
 * input 128 x 128 x 3, batch 4), fp32, NCHW, as MIOpen and rocBLAS run it:
 *   conv_fwd  MIOpen's OpenCL direct convolution (MIOpenConvUni of
 *             MIOpenConvDirUni.cl) at one configuration of its solver: a
 *             16 x 16 output tile per work-group, 8 output channels per thread;
 *             per input channel the input tile with its halo and the 8 filters
 *             are staged in LDS, then per filter row a row of inputs and, per
 *             output channel, its row of weights are read from LDS
 *   pool_fwd  MIOpen's max pooling kernel (mloPoolingG), with the tile its
 *             host code derives from the output size: several output rows per
 *             thread, the input read from global memory
 *   fc_zero   Tensile's beta-only kernel that clears C before a split-K GEMM
 *             (only when the GEMM is split)
 *   fc_gemm   fully connected layer: out[n][o] = sum_i pool[n][i] W[o][i],
 *             mlk.h's tiled GEMM with split-K, accumulating with atomics
 * Layer shapes (our reading of DNNMark's composed-model example, cifar10
 * "quick" conv1/pool1 and a 10-way classifier, on the Table II input): conv
 * 32 filters 5 x 5, pad 2, stride 1; max pool 3 x 3, stride 2; FC 10 outputs.
 * Instruction counts are PTX counts of the kernels' source per basic block
 * (docs/workloads/cnn.md). Abstracted: no bias, no activation layer; whether
 * MIOpen's solver search picks this convolution kernel and configuration.
 */
#include <stdlib.h>
#include <string.h>

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

struct cnn {
    struct wl_env *env;
    struct mlk *lib;
    uint32_t n, c, h, w, k, r, pad, st, oh, ow, pk, ps, ph, pw, fo;
    uint32_t tin_h, tin_w, tin, woff, nl, nw, body;
    uint32_t pnv, pg0, pg1, prows; /* pooling: output rows per thread, group, input rows */
    const struct kernel_buf *in, *cw, *co, *po, *fw, *fo_buf;
    struct mlk_ew zero;
    struct mlk_gemm fc;
    unsigned next;
};

static void cnn_destroy(void *self)
{
    struct cnn *m = self;
    mlk_free(m->lib);
    free(m);
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

/* Previous power of two (MIOpen's prePow2): the largest one <= v. */
static uint32_t pre_pow2(uint32_t v)
{
    v |= v >> 1;
    v |= v >> 2;
    v |= v >> 4;
    v |= v >> 8;
    v |= v >> 16;
    return (v + 1) >> 1;
}

/* The pooling tile of MIOpen's 2D pooling host code for this output size:
 * output rows per thread, work-group size, and input rows per thread. */
static void cnn_pool_tile(struct cnn *m)
{
    uint32_t h = m->ph, w = m->pw;
    m->pnv = h <= 8 ? 1 : h <= 32 ? 4 : 8;
    if (h > 16 && h % 32 > 16)
        m->pnv = (uint32_t)min_u64(16, pre_pow2(m->pnv * m->ps));
    m->pg0 = w <= 8 ? 8 : w % 32 <= 16 ? 16 : 32;
    m->pg1 = h <= 8 ? 8 : h < 16 ? 16 : h <= 32 ? 32 : h <= 64 ? 64 : 128;
    m->pg1 = m->pg1 / m->pnv ? m->pg1 / m->pnv : 1;
    while (m->pg0 * m->pg1 > 256 && m->pg0 > 1)
        m->pg0 >>= 1;
    m->prows = (m->pnv - 1) * m->ps + m->pk;
}

/* Positions of the conv kernel's channel body (see conv_body). */
static unsigned cv_w0(const struct cnn *m)
{
    return 2 + 4 * m->nl;
}

static unsigned cv_rows(const struct cnn *m)
{
    return cv_w0(m) + 4 * m->nw + 2;
}

static unsigned cv_row_len(const struct cnn *m)
{
    return m->r + CNN_KPT * (m->r + 1);
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
    m->body = cv_rows(m) + m->r * cv_row_len(m) + 1;
    cnn_pool_tile(m);
}

static void *cnn_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    struct cnn *m = xcalloc(1, sizeof *m);
    m->env = env;
    if (cnn_shape(m, sec, e) || !(m->lib = mlk_new(e))) {
        cnn_destroy(m);
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
    /* clear C (Tensile's beta-only kernel, PTX counts): ids, the element's
     * indices by 64-bit division, its address, the beta test 67; the zero and
     * the branch to the exit 2; a warp with no element: its bounds test 21 */
    m->zero = (struct mlk_ew){.rows = m->n, .cols = m->fo, .block = 256, .alu_pre = 67, .alu = 2,
                              .alu_none = 21};
    mlk_ew_add(&m->zero, m->fo_buf, 0, m->fo, true);
    return m;
}

/* ---- convolution ---------------------------------------------------------- */

/*
 * Instructions per thread: PTX of MIOpenConvUni (with readData of data_ops.h)
 * at this configuration, block by block; Table II values, kept at other sizes
 * but for the FMAs, which follow the filter size.
 */
enum {
    CV_PRO = 69,                  /* parameters, indices, tile origins, loop set-up */
    CV_IN0 = 19, CV_IN0_MID = 4,  /* first halo element: loop tests, its position and
                                     address; the padding select before the LDS store */
    CV_IN = 16, CV_IN_MID = 1,    /* each further halo element */
    CV_IN_END = 6,                /* the halo loop's exit, the weight loop's test */
    CV_W0 = 11, CV_W0_MID = 3,    /* the filter element: index split, range test, address */
    CV_W = 9, CV_W_MID = 1, CV_W_END = 4,
    CV_CH_END = 5,                /* channel loop control */
    CV_EPI = 46, CV_EPI_ST = 16,  /* output address and the 8 store tests; 2 per store */
};

enum { CP_PRO, CP_BODY, CP_EPI };

struct cnn_wg {
    uint32_t n, k0, oy0, ox0;
};

static struct cnn_wg conv_wg(const struct cnn *m, uint32_t bx, uint32_t by, uint32_t bz)
{
    uint32_t groups = m->k / CNN_KPT;
    return (struct cnn_wg){bz / groups, bz % groups * CNN_KPT, by * CNN_T, bx * CNN_T};
}

/* Halo element p of channel c (element e = tid + 256 p of the tile). Lanes
 * outside the image read the input's first element (readDataElem loads
 * in[0] and discards it) and store a zero to LDS. */
static uint64_t conv_in_lanes(const struct cnn *m, struct kernel_warp *w, unsigned p, uint32_t c,
                              bool lds)
{
    struct cnn_wg g = conv_wg(m, w->wg_id.x, w->wg_id.y, w->wg_id.z);
    uint64_t mask = 0;
    for (unsigned l = 0; l < w->nlanes; l++) {
        uint32_t el = kernel_tid(w, l) + CNN_T * CNN_T * p;
        if (el >= m->tin)
            continue;
        mask |= 1ull << l;
        int64_t iy = (int64_t)g.oy0 * m->st - m->pad + el / m->tin_w;
        int64_t ix = (int64_t)g.ox0 * m->st - m->pad + el % m->tin_w;
        if (lds)
            w->lane_addr[l] = el * 4;
        else if (iy < 0 || ix < 0 || iy >= m->h || ix >= m->w)
            w->lane_addr[l] = m->in->base;
        else
            w->lane_addr[l] = m->in->base +
                              fl((((uint64_t)g.n * m->c + c) * m->h + (uint64_t)iy) * m->w +
                                 (uint64_t)ix);
    }
    return mask;
}

/* Filter element p of channel c: e = kk * R * S + rs, to LDS in the same order. */
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
        w->lane_addr[l] = lds ? m->woff + el * 4
                              : m->cw->base + fl(((uint64_t)(g.k0 + kk) * m->c + c) * rs + t);
        mask |= 1ull << l;
    }
    return mask;
}

/* Op q (ALU, load, ALU, LDS store) of halo (wt = false) or filter element p. */
static bool conv_stage(const struct cnn *m, struct kernel_warp *w, struct kernel_op *op,
                       bool wt, unsigned p, unsigned q, uint32_t c)
{
    uint64_t mask = wt ? conv_w_lanes(m, w, p, c, q == 3) : conv_in_lanes(m, w, p, c, q == 3);
    uint8_t reg = wt ? 4 : 3;
    if (!mask)
        return false; /* no lane has this element: the warp skips the iteration */
    if (q == 0 || q == 2) {
        static const uint32_t n[2][2][2] = {{{CV_IN0, CV_IN}, {CV_IN0_MID, CV_IN_MID}},
                                            {{CV_W0, CV_W}, {CV_W0_MID, CV_W_MID}}};
        *op = (struct kernel_op){.kind = KOP_ALU, .n = n[wt][q == 2][p > 0],
                                 .src = {q == 2 ? reg : 0}};
        return true;
    }
    *op = (struct kernel_op){.kind = q == 1 ? KOP_LOAD : KOP_LDS_STORE, .size = 4, .lanes = true,
                             .mask = mask};
    if (q == 1)
        op->dst = reg;
    else
        op->src[0] = reg;
    return true;
}

/* Op t of filter row k: R input LDS loads (the row under the thread's
 * pixel), then per output channel R weight LDS loads (the same address in
 * every lane) and its R multiply-adds and the add into the accumulator. */
static void conv_row(const struct cnn *m, struct kernel_warp *w, struct kernel_op *op, unsigned k,
                     unsigned t)
{
    if (t < m->r) {
        for (unsigned l = 0; l < w->nlanes; l++) {
            uint32_t tid = kernel_tid(w, l), tx = tid % CNN_T, ty = tid / CNN_T;
            w->lane_addr[l] = ((ty * m->st + k) * m->tin_w + tx * m->st + t) * 4;
        }
        *op = (struct kernel_op){.kind = KOP_LDS_LOAD, .size = 4, .lanes = true, .dst = 1};
        return;
    }
    unsigned oc = (t - m->r) / (m->r + 1), v = (t - m->r) % (m->r + 1);
    if (v == m->r) {
        *op = (struct kernel_op){.kind = KOP_ALU, .n = m->r + 1, .src = {1, 2}};
        return;
    }
    *op = (struct kernel_op){.kind = KOP_LDS_LOAD, .size = 4, .dst = 2, .stride = 0,
                             .base = m->woff + ((oc * m->r + k) * m->r + v) * 4};
}

/* Channel body: barrier; halo and filter elements to LDS; barrier; the rows;
 * loop control. False if the op is skipped. */
static bool conv_body(const struct cnn *m, struct kernel_warp *w, struct kernel_op *op,
                      unsigned pos, uint32_t c)
{
    unsigned w0 = cv_w0(m), rows = cv_rows(m);
    if (pos == 0 || pos == rows - 1) {
        op->kind = KOP_BARRIER;
    } else if (pos < w0 - 1) {
        return conv_stage(m, w, op, false, (pos - 1) / 4, (pos - 1) % 4, c);
    } else if (pos == w0 - 1) {
        *op = (struct kernel_op){.kind = KOP_ALU, .n = CV_IN_END};
    } else if (pos < rows - 2) {
        return conv_stage(m, w, op, true, (pos - w0) / 4, (pos - w0) % 4, c);
    } else if (pos == rows - 2) {
        if (!conv_w_lanes(m, w, 0, c, true))
            return false;
        *op = (struct kernel_op){.kind = KOP_ALU, .n = CV_W_END};
    } else if (pos < m->body - 1) {
        conv_row(m, w, op, (pos - rows) / cv_row_len(m), (pos - rows) % cv_row_len(m));
    } else {
        *op = (struct kernel_op){.kind = KOP_ALU, .n = CV_CH_END};
    }
    return true;
}

/* Output store kk: out[n][k0 + kk][oy][ox] for the lanes inside the output. */
static uint64_t conv_out_lanes(const struct cnn *m, struct kernel_warp *w, unsigned kk)
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
    return mask;
}

/* Epilogue op pos: the address and tests, then the 8 stores. */
static bool conv_epi(const struct cnn *m, struct kernel_warp *w, struct kernel_op *op,
                     unsigned pos)
{
    if (pos > CNN_KPT) {
        op->kind = KOP_EXIT;
        return true;
    }
    uint64_t mask = conv_out_lanes(m, w, pos ? pos - 1 : 0);
    if (pos == 0)
        *op = (struct kernel_op){.kind = KOP_ALU, .n = CV_EPI + (mask ? CV_EPI_ST : 0)};
    else if (mask)
        *op = (struct kernel_op){.kind = KOP_STORE, .size = 4, .lanes = true, .mask = mask};
    return pos == 0 || mask;
}

/* pc: phase; r[0]: input channel; r[1]: position in the channel body or epilogue. */
static void conv_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    const struct cnn *m = k->ctx;
    for (;;) {
        if (w->pc == CP_PRO) {
            w->pc = CP_BODY;
            *op = (struct kernel_op){.kind = KOP_ALU, .n = CV_PRO};
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
            memset(op, 0, sizeof *op);
            continue;
        }
        if (conv_epi(m, w, op, (unsigned)w->r[1]++))
            return;
        memset(op, 0, sizeof *op);
    }
}

static unsigned conv_ranges(const struct kernel *k, uint32_t wg, unsigned arg,
                            struct addr_range *out, unsigned max)
{
    const struct cnn *m = k->ctx;
    uint32_t gx = k->grid.x, gy = k->grid.y;
    struct cnn_wg g = conv_wg(m, wg % gx, wg / gx % gy, wg / (gx * gy));
    struct range_list l;
    range_list_init(&l, out, max, 0);
    if (arg == 0) { /* whole input rows of the halo tile, every channel */
        int64_t y0 = (int64_t)g.oy0 * m->st - m->pad, x0 = (int64_t)g.ox0 * m->st - m->pad;
        uint64_t r0 = y0 < 0 ? 0 : (uint64_t)y0;
        uint64_t r1 = min_u64(m->h, (uint64_t)(y0 + m->tin_h)); /* tin_h > pad */
        bool pad = y0 < 0 || x0 < 0 || y0 + m->tin_h > m->h || x0 + m->tin_w > m->w;
        if (pad && (g.n || r0)) /* padding lanes read the input's first element */
            range_list_add(&l, m->in->base, m->in->base + 4);
        for (uint64_t c = 0; c < m->c; c++) {
            uint64_t p = ((uint64_t)g.n * m->c + c) * m->h;
            range_list_add(&l, m->in->base + fl((p + r0) * m->w), m->in->base + fl((p + r1) * m->w));
        }
    } else if (arg == 1) { /* the 8 filters */
        uint64_t per = (uint64_t)m->c * m->r * m->r;
        range_list_add(&l, m->cw->base + fl(g.k0 * per), m->cw->base + fl((g.k0 + CNN_KPT) * per));
    } else if (arg == 2) { /* whole output rows of the tile, 8 planes */
        uint64_t r1 = min_u64(m->oh, g.oy0 + CNN_T);
        for (uint64_t kk = 0; kk < CNN_KPT; kk++) {
            uint64_t p = ((uint64_t)g.n * m->k + g.k0 + kk) * m->oh;
            range_list_add(&l, m->co->base + fl((p + g.oy0) * m->ow),
                           m->co->base + fl((p + r1) * m->ow));
        }
    } else {
        return 0;
    }
    return range_list_done(&l, k->args[arg].buf->base);
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

/*
 * Instructions per thread: PTX of mloPoolingG at the Table II tile (16
 * output rows per thread, 33 input rows of 3 columns), block by block. The
 * compiler unrolls the loads, each behind its bounds test, and interleaves
 * the maxima; per input row, the instructions that always run and those
 * inside the loads' conditional blocks (they run when the row is inside the
 * input). Other tiles take the Table II averages per row.
 */
enum { PL_PRO = 46, PL_TAIL = 165, PL_ST_TEST = 4, PL_ST = 3, PL_ROW_AVG = 25, PL_IN_AVG = 13 };
#define PL_ROWS 33
static const uint8_t pl_row[PL_ROWS] = {16, 16, 18, 16, 18, 16, 18, 16, 18, 16, 18, 16, 18,
                                        16, 18, 16, 18, 16, 18, 16, 18, 16, 17, 19, 23, 46,
                                        46, 46, 46, 55, 52, 52, 65};
static const uint8_t pl_in[PL_ROWS] = {9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,
                                       9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,
                                       9,  9,  16, 16, 19, 19, 19, 28, 33, 36, 11};

/* Thread coordinates: output column and first output row. */
static void pool_xy(const struct cnn *m, const struct kernel_warp *w, unsigned l, uint32_t *ox,
                    uint32_t *oy0)
{
    uint32_t tid = kernel_tid(w, l);
    *ox = w->wg_id.x * m->pg0 + tid % m->pg0;
    *oy0 = (w->wg_id.y * m->pg1 + tid / m->pg0) * m->pnv;
}

/* Load (row j, column i) of the window rows, for the lanes inside the input;
 * threads past the output's width still load, as in the kernel. */
static uint64_t pool_in_lanes(const struct cnn *m, struct kernel_warp *w, unsigned j, unsigned i)
{
    uint64_t mask = 0;
    for (unsigned l = 0; l < w->nlanes; l++) {
        uint32_t ox, oy0;
        pool_xy(m, w, l, &ox, &oy0);
        uint64_t iy = (uint64_t)oy0 * m->ps + j, ix = (uint64_t)ox * m->ps + i;
        if (iy >= m->oh || ix >= m->ow)
            continue;
        mask |= 1ull << l;
        w->lane_addr[l] = m->co->base + fl(((uint64_t)w->wg_id.z * m->oh + iy) * m->ow + ix);
    }
    return mask;
}

static uint64_t pool_out_lanes(const struct cnn *m, struct kernel_warp *w, unsigned k)
{
    uint64_t mask = 0;
    for (unsigned l = 0; l < w->nlanes; l++) {
        uint32_t ox, oy0;
        pool_xy(m, w, l, &ox, &oy0);
        if (ox >= m->pw || oy0 + k >= m->ph)
            continue;
        mask |= 1ull << l;
        w->lane_addr[l] = m->po->base + fl(((uint64_t)w->wg_id.z * m->ph + oy0 + k) * m->pw + ox);
    }
    return mask;
}

/* Instructions before the loads of input row j. */
static uint32_t pool_row_alu(const struct cnn *m, struct kernel_warp *w, unsigned j)
{
    bool t2 = m->pnv == 16 && m->ps == 2 && m->pk == 3; /* the Table II tile: PL_ROWS rows */
    uint64_t in = 0;
    for (unsigned i = 0; i < m->pk; i++)
        in |= pool_in_lanes(m, w, j, i);
    return (t2 ? pl_row[j] : PL_ROW_AVG) + (in ? (t2 ? pl_in[j] : PL_IN_AVG) : 0);
}

/* pc 0: set-up; per input row 1 + pk ops (ALU, loads); the maxima; per
 * output row an ALU op (its test, its address) and the store; exit. */
static bool pool_op(const struct cnn *m, struct kernel_warp *w, struct kernel_op *op, unsigned pc)
{
    unsigned row = 1 + m->pk, tail = 1 + m->prows * row;
    if (pc == 0) {
        *op = (struct kernel_op){.kind = KOP_ALU, .n = PL_PRO};
    } else if (pc < tail) {
        unsigned j = (pc - 1) / row, q = (pc - 1) % row;
        if (q == 0) {
            *op = (struct kernel_op){.kind = KOP_ALU, .n = pool_row_alu(m, w, j)};
            return true;
        }
        uint64_t mask = pool_in_lanes(m, w, j, q - 1);
        if (!mask)
            return false;
        *op = (struct kernel_op){.kind = KOP_LOAD, .size = 4, .lanes = true, .mask = mask,
                                 .dst = 1};
    } else if (pc == tail) {
        *op = (struct kernel_op){.kind = KOP_ALU, .n = PL_TAIL, .src = {1}};
    } else if (pc < tail + 1 + 2 * m->pnv) {
        unsigned k = (pc - tail - 1) / 2;
        uint64_t mask = pool_out_lanes(m, w, k);
        if ((pc - tail - 1) % 2 == 0) {
            uint32_t n = (k ? PL_ST_TEST : 0) + (mask ? PL_ST : 0);
            *op = (struct kernel_op){.kind = KOP_ALU, .n = n};
            return n > 0;
        }
        if (!mask)
            return false;
        *op = (struct kernel_op){.kind = KOP_STORE, .size = 4, .lanes = true, .mask = mask};
    } else {
        op->kind = KOP_EXIT;
    }
    return true;
}

static void pool_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    while (!pool_op(k->ctx, w, op, w->pc++))
        memset(op, 0, sizeof *op);
}

static unsigned pool_ranges(const struct kernel *k, uint32_t wg, unsigned arg,
                            struct addr_range *out, unsigned max)
{
    const struct cnn *m = k->ctx;
    uint32_t gx = k->grid.x, gy = k->grid.y, by = wg / gx % gy, plane = wg / (gx * gy);
    uint64_t oy0 = (uint64_t)by * m->pg1 * m->pnv, oy1 = oy0 + (uint64_t)m->pg1 * m->pnv;
    struct range_list l;
    range_list_init(&l, out, max, 0);
    if (arg == 0) { /* the input rows of the work-group's windows (whole rows) */
        uint64_t p = (uint64_t)plane * m->oh, r1 = min_u64(m->oh, (oy1 - 1) * m->ps + m->pk);
        range_list_add(&l, m->co->base + fl((p + oy0 * m->ps) * m->ow),
                       m->co->base + fl((p + r1) * m->ow));
    } else if (arg == 1) {
        uint64_t p = (uint64_t)plane * m->ph;
        range_list_add(&l, m->po->base + fl((p + oy0) * m->pw),
                       m->po->base + fl((p + min_u64(m->ph, oy1)) * m->pw));
    } else {
        return 0;
    }
    return range_list_done(&l, k->args[arg].buf->base);
}

static void pool_kernel(struct cnn *m, struct kernel *k)
{
    wl_kernel_init(k, "pool_fwd", (uint32_t)div_ceil(m->pw, m->pg0),
                   (uint32_t)div_ceil(m->ph, (uint64_t)m->pg1 * m->pnv), m->pg0, m->pg1, pool_next);
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
    struct err e;
    int rc = 0;
    switch (m->next++) {
    case 0:
        conv_kernel(m, k);
        break;
    case 1:
        pool_kernel(m, k);
        break;
    case 2:
        rc = mlk_ew_launch(m->lib, k, "fc_zero", &m->zero, &e);
        break;
    case 3:
        rc = mlk_gemm_launch(m->lib, k, "fc_gemm", &m->fc, &e);
        break;
    default:
        m->next = 4;
        return false;
    }
    return rc ? wl_fail(m->env, &e) : true;
}

static const char *const cnn_small[] = {"batch=2", "height=32", "width=32", "conv_out=16",
                                        "fc_split_k=4", NULL};

const struct wl_ops wl_cnn = {
    .name = "cnn",
    .suite = "DNNMark",
    .desc = "DNNMark composed model: direct conv (LDS) + max pool + FC GEMM, 128x128x3, BS 4",
    .keys = cnn_keys,
    .small = cnn_small,
    .create = cnn_create,
    .next_kernel = cnn_next_kernel,
    .destroy = cnn_destroy,
};
