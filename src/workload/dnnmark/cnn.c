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
 * Every kernel is a kernel description (workload/kd.h): conv_fwd and
 * pool_fwd below (the halo tile's rows and columns and the filter index as
 * per-lane quotients, the padding lanes' fallback element, the pooling rows'
 * counts from the tile's tables), the FC kernels mlk.c's; the annotations
 * (arguments, modes, per-work-group ranges) are derived from them.
 * Instruction counts are PTX counts of the kernels' source per basic block
 * (docs/workloads/cnn.md). Abstracted: no bias, no activation layer; whether
 * MIOpen's solver search picks this convolution kernel and configuration.
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

struct cnn {
    struct wl_env *env;
    struct mlk *lib;
    uint32_t n, c, h, w, k, r, pad, st, oh, ow, pk, ps, ph, pw, fo;
    uint32_t tin_h, tin_w, tin, woff, nl, nw;
    uint32_t pnv, pg0, pg1, prows; /* pooling: output rows per thread, group, input rows */
    uint32_t *prow, *pin;          /* pooling: each input row's instructions (pool_kd) */
    struct kd_prog *prog[2];       /* conv_kd, pool_kd */
    const struct kernel_buf *in, *cw, *co, *po, *fw, *fo_buf;
    struct mlk_ew zero;
    struct mlk_gemm fc;
    unsigned next;
};

static void cnn_destroy(void *self)
{
    struct cnn *m = self;
    mlk_free(m->lib);
    kd_progs_free(m->prog, 2);
    free(m->prow);
    free(m->pin);
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

/* Sizes of the conv kernel's LDS tile and its loops. */
static void cnn_tiles(struct cnn *m)
{
    m->tin_h = (CNN_T - 1) * m->st + m->r;
    m->tin_w = m->tin_h;
    m->tin = m->tin_h * m->tin_w;
    m->woff = (uint32_t)div_ceil(m->tin * 4, 16) * 16;
    m->nl = (uint32_t)div_ceil(m->tin, CNN_T * CNN_T);
    m->nw = (uint32_t)div_ceil(CNN_KPT * m->r * m->r, CNN_T * CNN_T);
    cnn_pool_tile(m);
}

/* ---- convolution ---------------------------------------------------------- */

/*
 * Instructions per thread: PTX of MIOpenConvUni (with readData of data_ops.h)
 * at this configuration, block by block; Table II values, kept at other sizes
 * but for the FMAs, which follow the filter size (docs/workloads/cnn.md):
 * 69 before the channel loop (parameters, indices, tile origins); the first
 * halo element 19 (loop tests, its position and address) and 4 (the padding
 * select before the LDS store), each further one 16 and 1; 6 (the halo
 * loop's exit, the weight loop's test); the filter element 11 (index split,
 * range test, address) and 3, further ones 9 and 1, then 4; per filter row
 * and output channel R multiply-adds and the add into the accumulator; 5 of
 * channel loop control; the epilogue 46 (output address and the 8 store
 * tests) + 16 (2 per store) when the warp stores.
 *
 * Work-group (bx, by, bz): image n = bz / (K/8), filters k0 = 8 (bz mod K/8)
 * (so n K + k0 = 8 bz), output tile rows 16 by, columns 16 bx. The halo tile
 * element el = tid + 256 m1 is at tile row el / tw, column el % tw; the
 * image is a loop of one iteration, m3 = n (a second quotient in one
 * index); lanes outside the image load the input's first element
 * (readDataElem loads in[0] and discards it). The filter element el is
 * w[k0 + el / RS][c][el % RS], staged in LDS at wo + el.
 */
#define CV_EL "(tx + ty*16 + m1*256)"
#define CV_IY "by*16*st - pad + " CV_EL " / tw"
#define CV_IX "bx*16*st - pad + " CV_EL " % tw"
static const char *const conv_params[] = {"c",   "h",  "w",  "k",  "r",  "st", "pad",    "tw",
                                          "tin", "wo", "oh", "ow", "nl", "nw", "groups", "pitch",
                                          NULL};
static const char *const conv_bufs[] = {"input", "conv_w", "conv_out", NULL};
static const struct kd_desc conv_kd = {
    .name = "conv_fwd",
    .params = conv_params,
    .bufs = conv_bufs,
    .range_join_param = "pitch",
    .body = "alu 69\n"
            "for m0 = 0 .. c                          # input channel\n"
            "  barrier\n"
            "  for m1 = 0 .. nl                       # halo tile element el\n"
            "    if " CV_EL " < tin\n"
            "      alu (19 - 3*min(m1, 1))\n"
            "      for m3 = bz / groups .. bz / groups + 1      # the image\n"
            "        load input[((m3*c + m0)*h + " CV_IY ")*w + " CV_IX "] 4 -> r3 "
            "if -1 < " CV_IY " < h and -1 < " CV_IX " < w else [0]\n"
            "      end\n"
            "      alu (4 - 3*min(m1, 1)) < r3\n"
            "      lds_store lds[" CV_EL "] 4 < r3\n"
            "    end\n"
            "  end\n"
            "  alu 6\n"
            "  for m1 = 0 .. nw                       # filter element el\n"
            "    if " CV_EL " < 8*r*r\n"
            "      alu (11 - 2*min(m1, 1))\n"
            "      for m3 = bz / groups .. bz / groups + 1\n"
            "        load conv_w[(bz*8 - m3*k + " CV_EL " / (r*r))*c*r*r + m0*r*r + " CV_EL
            " % (r*r)] 4 -> r4\n"
            "      end\n"
            "      alu (3 - 2*min(m1, 1)) < r4\n"
            "      lds_store lds[wo + " CV_EL "] 4 < r4\n"
            "    end\n"
            "  end\n"
            "  if tx + ty*16 < 8*r*r\n"
            "    alu 4\n"
            "  end\n"
            "  barrier\n"
            "  for m2 = 0 .. r                        # filter row\n"
            "    for m1 = 0 .. r                      # the inputs under the pixel\n"
            "      lds_load lds[(ty*st + m2)*tw + tx*st + m1] 4 -> r1\n"
            "    end\n"
            "    for m1 = 0 .. 8                      # output channel: its weights\n"
            "      for m3 = 0 .. r\n"
            "        lds_load lds[wo + (m1*r + m2)*r + m3] 4 -> r2\n"
            "      end\n"
            "      alu (r + 1) < r1 r2\n"
            "    end\n"
            "  end\n"
            "  alu 5\n"
            "end\n"
            "alu 46 + 16 [max(bx*16 + tx - ow, by*16 + ty - oh) < 0]   # a lane stores\n"
            "if bx*16 + tx < ow and by*16 + ty < oh\n"
            "  for m1 = 0 .. 8\n"
            "    store conv_out[((bz*8 + m1)*oh + by*16 + ty)*ow + bx*16 + tx] 4\n"
            "  end\n"
            "end\n",
};

static int conv_launch(struct cnn *m, struct kernel *k, struct err *e)
{
    int64_t params[] = {m->c,   m->h,        m->w,  m->k,  m->r,  m->st, m->pad,         m->tin_w,
                        m->tin, m->woff / 4, m->oh, m->ow, m->nl, m->nw, m->k / CNN_KPT,
                        (int64_t)max_u64(m->w, m->ow) * 4}; /* pitch: a row joins the next */
    const struct kernel_buf *bufs[] = {m->in, m->cw, m->co};
    struct kernel_dim grid = {(uint32_t)div_ceil(m->ow, CNN_T), (uint32_t)div_ceil(m->oh, CNN_T),
                              m->n * (m->k / CNN_KPT)};
    if (kd_launch(m->prog[0], k, grid, (struct kernel_dim){CNN_T, CNN_T, 1}, params, bufs, NULL,
                  e))
        return -1;
    k->lds_b = m->woff + CNN_KPT * m->r * m->r * 4;
    return 0;
}

/* ---- max pooling ---------------------------------------------------------- */

/*
 * Instructions per thread: PTX of mloPoolingG at the Table II tile (16
 * output rows per thread, 33 input rows of 3 columns), block by block. The
 * compiler unrolls the loads, each behind its bounds test, and interleaves
 * the maxima; per input row, the instructions that always run (prow) and
 * those inside the loads' conditional blocks (pin: they run when the row is
 * inside the input). Other tiles take the Table II averages per row. 46
 * before the rows; 165 after them (the remaining maxima, the output address,
 * the first store's test); per output row 4 (its test, from the second on)
 * and 3 (its address, when the warp stores).
 *
 * Thread (tx, ty) of work-group (bx, by, plane bz) computes the pooled
 * pixels (pnv (pg1 by + ty) + v, pg0 bx + tx), v < pnv; threads past the
 * output's width still load, as in the kernel.
 */
enum { PL_ROW_AVG = 25, PL_IN_AVG = 13 };
#define PL_ROWS 33
static const uint8_t pl_row[PL_ROWS] = {16, 16, 18, 16, 18, 16, 18, 16, 18, 16, 18, 16, 18,
                                        16, 18, 16, 18, 16, 18, 16, 18, 16, 17, 19, 23, 46,
                                        46, 46, 46, 55, 52, 52, 65};
static const uint8_t pl_in[PL_ROWS] = {9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,
                                       9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,
                                       9,  9,  16, 16, 19, 19, 19, 28, 33, 36, 11};
#define PL_OY "(by*pg1 + ty)*pnv"
#define PL_OX "(bx*pg0 + tx)"
static const char *const pool_params[] = {"pg0", "pg1", "pnv", "ps", "pk", "prows",
                                          "oh",  "ow",  "ph",  "pw", "pitch", NULL};
static const char *const pool_bufs[] = {"conv_out", "pool_out", NULL};
static const char *const pool_arrays[] = {"prow", "pin", NULL};
static const struct kd_desc pool_kd = {
    .name = "pool_fwd",
    .params = pool_params,
    .bufs = pool_bufs,
    .arrays = pool_arrays,
    .range_join_param = "pitch",
    .body = "alu 46\n"
            "for m0 = 0 .. prows                      # input row of the windows\n"
            "  alu (@prow[m0]) + (@pin[m0]) [max(" PL_OY "*ps + m0 - oh, " PL_OX "*ps - ow) < 0]\n"
            "  for m1 = 0 .. pk\n"
            "    if " PL_OY "*ps + m0 < oh and " PL_OX "*ps + m1 < ow\n"
            "      load conv_out[(bz*oh + " PL_OY "*ps + m0)*ow + " PL_OX "*ps + m1] 4 -> r1\n"
            "    end\n"
            "  end\n"
            "end\n"
            "alu 165 < r1\n"
            "if " PL_OY " < ph and " PL_OX " < pw    # the first output row\n"
            "  alu 3\n"
            "  store pool_out[(bz*ph + " PL_OY ")*pw + " PL_OX "] 4\n"
            "end\n"
            "for m2 = 1 .. pnv\n"
            "  alu 4 + 3 [max(" PL_OY " + m2 - ph, " PL_OX " - pw) < 0]\n"
            "  if " PL_OY " + m2 < ph and " PL_OX " < pw\n"
            "    store pool_out[(bz*ph + " PL_OY " + m2)*pw + " PL_OX "] 4\n"
            "  end\n"
            "end\n",
};

/* The instructions of each input row of the tile: the Table II tile's
 * table, else the averages. */
static void pool_counts(struct cnn *m)
{
    bool t2 = m->pnv == 16 && m->ps == 2 && m->pk == 3; /* the Table II tile: PL_ROWS rows */
    m->prow = xcalloc(m->prows, sizeof *m->prow);
    m->pin = xcalloc(m->prows, sizeof *m->pin);
    for (uint32_t j = 0; j < m->prows; j++) {
        m->prow[j] = t2 ? pl_row[j] : PL_ROW_AVG;
        m->pin[j] = t2 ? pl_in[j] : PL_IN_AVG;
    }
}

static int pool_launch(struct cnn *m, struct kernel *k, struct err *e)
{
    int64_t params[] = {m->pg0, m->pg1, m->pnv, m->ps, m->pk, m->prows,
                        m->oh,  m->ow,  m->ph,  m->pw, (int64_t)m->ow * 4};
    const struct kernel_buf *bufs[] = {m->co, m->po};
    struct kd_array arrays[] = {{m->prow, m->prows}, {m->pin, m->prows}};
    struct kernel_dim grid = {(uint32_t)div_ceil(m->pw, m->pg0),
                              (uint32_t)div_ceil(m->ph, (uint64_t)m->pg1 * m->pnv), m->n * m->k};
    return kd_launch(m->prog[1], k, grid, (struct kernel_dim){m->pg0, m->pg1, 1}, params, bufs,
                     arrays, e);
}

static void *cnn_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    struct cnn *m = xcalloc(1, sizeof *m);
    m->env = env;
    if (cnn_shape(m, sec, e) || !(m->lib = mlk_new(e)) ||
        !(m->prog[0] = kd_compile(&conv_kd, e)) || !(m->prog[1] = kd_compile(&pool_kd, e))) {
        cnn_destroy(m);
        return NULL;
    }
    cnn_tiles(m);
    pool_counts(m);
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
        rc = conv_launch(m, k, &e);
        break;
    case 1:
        rc = pool_launch(m, k, &e);
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
