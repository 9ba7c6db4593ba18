/*
 * convolution.c -- the CUDA SDK's convolutionSeparable: a 17-tap filter
 * (KERNEL_RADIUS 8, in constant memory) along the rows of a float image,
 * then along the columns of the result.
 * - convolutionRowsKernel, 16 x 4 work-groups, each 8 x 16 outputs of 4
 *   rows: its threads load the 8 tiles of 16 pixels of their row and one
 *   halo tile each side (zero outside the image) into LDS, wait at a
 *   barrier, and compute 8 outputs each from 17 LDS reads, storing each.
 * - convolutionColumnsKernel, 16 x 8 work-groups, each 16 columns of 8 x 8
 *   outputs: the same along columns (tiles of 8 rows, rows of LDS padded
 *   to 81 floats).
 * Launched as rows (input to buffer) then columns (buffer to output),
 * `iterations` times. Default: LADM's CONV (spec ladm.md 10, Table 3.4: TB
 * (16,4), 120 MB, 18432 TBs): the SDK's 3072 x 3072 image (3 x 36 MiB;
 * the rows kernel has 24 x 768 = 18432 work-groups). ALU counts from nvcc
 * 13 -arch=sm_90 PTX (docs/workloads/convolution.md).
 * Abstracted: no data values; the filter's constant-memory reads are
 * counted as instructions (PTX ld.const).
 */
#include "workload/sdk/sdk.h"

static const struct cfg_key cv_keys[] = {
    {"width", CFG_INT, "3072", 128, 65536, "image width (a multiple of 128)", NULL},
    {"height", CFG_INT, "3072", 64, 65536, "image height (a multiple of 64)", NULL},
    {"iterations", CFG_INT, "1", 1, 1000000, "rows-then-columns passes", NULL},
    CFG_END,
};

enum { CV_ROWS, CV_COLS };

/* Rows (PTX): the entry 19 and 4 before the first tile; the 8 tiles (a
 * global load and an LDS store each, nothing between); 4, the left halo
 * (loaded where baseX >= 0), 3, the right halo (where baseX + 144 <
 * width); the barrier. The first output: 17 LDS reads with 2 after each
 * (the coefficient's ld.const and the fma), 2 more before its store; the
 * other seven reuse one value of the one before: 16 reads with 1 after
 * each and 1 before the store. */
#define CV_RX "128*bx - 16 + tx"
#define CV_RY "(4*by + ty)*w"
static const char *const cv_params[] = {"w", "h", NULL};
static const char *const cv_bufs[] = {"dst", "src", NULL};
static const struct kd_desc cv_kd[2] = {
    [CV_ROWS] = {
        .name = "convolutionRowsKernel", .params = cv_params, .bufs = cv_bufs, .range_join = SDK_JOIN,
        .body = "alu 23\n"
                "for m0 = 1 .. 9\n"
                "  load src[" CV_RY " + " CV_RX " + 16*m0] 4 -> r1\n"
                "  lds_store lds[160*ty + tx + 16*m0] 4 < r1\n"
                "end\n"
                "alu 4\n"
                "if -1 < " CV_RX "\n"
                "  load src[" CV_RY " + " CV_RX "] 4 -> r1\n"
                "end\n"
                "lds_store lds[160*ty + tx] 4 < r1\n"
                "alu 3\n"
                "if " CV_RX " + 144 < w\n"
                "  load src[" CV_RY " + " CV_RX " + 144] 4 -> r1\n"
                "end\n"
                "lds_store lds[160*ty + tx + 144] 4 < r1\n"
                "barrier\n"
                "for m1 = 0 .. 17\n"
                "  lds_load lds[160*ty + tx + 8 + m1] 4 -> r2\n"
                "  alu 2 < r2\n"
                "end\n"
                "alu 2\n"
                "store dst[" CV_RY " + " CV_RX " + 16] 4 < r2\n"
                "for m0 = 1 .. 8\n"
                "  for m1 = 1 .. 17\n"
                "    lds_load lds[160*ty + tx + 16*m0 + 8 + m1] 4 -> r2\n"
                "    alu 1 < r2\n"
                "  end\n"
                "  alu 1\n"
                "  store dst[" CV_RY " + " CV_RX " + 16*m0 + 16] 4 < r2\n"
                "end\n"},
    /* Columns (PTX): the entry 20 and 4; a global load and an LDS store per
     * tile with 1 or 2 between tiles (counted 1); 5 more, the upper halo
     * (where baseY >= 0), 8, the lower halo (where baseY + 72 < height);
     * the barrier. The first output: 17 reads, 2 after each and 1 more;
     * the others reuse nine values: 8 reads, 2 after each and 2 more (18;
     * 19 for the second). */
    [CV_COLS] = {
        .name = "convolutionColumnsKernel", .params = cv_params, .bufs = cv_bufs, .range_join = SDK_JOIN,
        .body = "alu 24\n"
                "for m0 = 1 .. 9\n"
                "  load src[(64*by - 8 + ty + 8*m0)*w + 16*bx + tx] 4 -> r1\n"
                "  lds_store lds[81*tx + ty + 8*m0] 4 < r1\n"
                "  alu 1\n"
                "end\n"
                "alu 5\n"
                "if -1 < 64*by - 8 + ty\n"
                "  load src[(64*by - 8 + ty)*w + 16*bx + tx] 4 -> r1\n"
                "end\n"
                "lds_store lds[81*tx + ty] 4 < r1\n"
                "alu 8\n"
                "if 64*by - 8 + ty + 72 < h\n"
                "  load src[(64*by - 8 + ty + 72)*w + 16*bx + tx] 4 -> r1\n"
                "end\n"
                "lds_store lds[81*tx + ty + 72] 4 < r1\n"
                "barrier\n"
                "for m1 = 0 .. 17\n"
                "  lds_load lds[81*tx + ty + m1] 4 -> r2\n"
                "  alu 2 < r2\n"
                "end\n"
                "alu 1\n"
                "store dst[(64*by + ty)*w + 16*bx + tx] 4 < r2\n"
                "for m0 = 2 .. 9\n"
                "  for m1 = 9 .. 17\n"
                "    lds_load lds[81*tx + ty + 8*m0 - 8 + m1] 4 -> r2\n"
                "    alu 2 < r2\n"
                "  end\n"
                "  alu 2\n"
                "  store dst[(64*by - 8 + ty + 8*m0)*w + 16*bx + tx] 4 < r2\n"
                "end\n"},
};

struct cv {
    struct kdw w;
    uint64_t width, height;
    unsigned iterations;
    const struct kernel_buf *input, *buffer, *output;
};

static int cv_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    struct cv *c = (struct cv *)w;
    c->width = cfg_uint(sec, "width");
    c->height = cfg_uint(sec, "height");
    c->iterations = (unsigned)cfg_uint(sec, "iterations");
    if (sdk_multiple(sec, "width", c->width, 128, "8 tiles of 16 pixels a row work-group", e) ||
        sdk_multiple(sec, "height", c->height, 64, "8 tiles of 8 rows a column work-group", e))
        return -1;
    uint64_t b = c->width * c->height * 4;
    c->input = wl_alloc(w->env, "d_Input", b);
    c->buffer = wl_alloc(w->env, "d_Buffer", b);
    c->output = wl_alloc(w->env, "d_Output", b);
    return 0;
}

/* Launch i: rows into the buffer (even), columns into the output (odd). */
static bool cv_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct cv *c = (const struct cv *)w;
    if (i == 2ull * c->iterations)
        return false;
    uint32_t wd = (uint32_t)c->width, ht = (uint32_t)c->height;
    if (i % 2 == CV_ROWS)
        sdk_launch(l, CV_ROWS, wd / 128, ht / 4, 16, 4);
    else
        sdk_launch(l, CV_COLS, wd / 16, ht / 64, 16, 8);
    l->params[0] = wd;
    l->params[1] = ht;
    l->bufs[0] = i % 2 == CV_ROWS ? c->buffer : c->output;
    l->bufs[1] = i % 2 == CV_ROWS ? c->input : c->buffer;
    l->lds_b = i % 2 == CV_ROWS ? 4 * 160 * 4 : 16 * 81 * 4;
    return true;
}

static const struct kd_desc *const cv_descs[] = {&cv_kd[CV_ROWS], &cv_kd[CV_COLS], NULL};
static const struct kdw_model cv_model = {
    .size = sizeof(struct cv), .descs = cv_descs, .setup = cv_setup, .plan = cv_plan};

static void *cv_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&cv_model, env, sec, e);
}

static const char *const cv_small[] = {"width=128", "height=64", NULL};

const struct wl_ops wl_convolution = {
    .name = "convolution",
    .suite = "CUDA SDK",
    .desc = "CUDA SDK convolutionSeparable: a 17-tap filter along rows, then along columns",
    .keys = cv_keys,
    .small = cv_small,
    .create = cv_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
};
