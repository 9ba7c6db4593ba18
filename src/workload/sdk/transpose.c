/*
 * transpose.c -- the CUDA SDK's matrix transpose, its coalesced kernel:
 * 16 x 16 work-groups, each loads a 16 x 16 tile of idata (a row per
 * thread row, coalesced) into LDS (rows padded to 17 floats), waits at a
 * barrier, and writes the tile's transpose to odata (again a row per
 * thread row: odata's tile at block (by, bx)). Launched `iterations`
 * times. Default 2048 x 2048 floats: LADM's TRA (spec ladm.md 10, Table
 * 3.4: TB (16,16), 32 MB, 16384 TBs); DUALOPT's mt uses MGPUSim's 256 x 256.
 * ALU counts from nvcc 13 -arch=sm_90 PTX (docs/workloads/transpose.md).
 * Abstracted: no data values; the SDK's other variants and timing loops.
 */
#include "workload/sdk/sdk.h"

#define TR_TILE 16

static const struct cfg_key tr_keys[] = {
    {"width", CFG_INT, "2048", 16, 65536, "columns of idata (a multiple of 16)", NULL},
    {"height", CFG_INT, "2048", 16, 65536, "rows of idata (a multiple of 16)", NULL},
    {"iterations", CFG_INT, "1", 1, 1000000, "kernel launches", NULL},
    CFG_END,
};

/* transposeCoalesced's PTX: the entry (parameters, both indices, the
 * tile's LDS address) 18, 4 before the LDS store, 3 after the barrier (the
 * transposed LDS address), 2 before the store. */
static const struct kd_desc tr_kd = {
    .name = "transposeCoalesced",
    .params = (const char *const[]){"width", "height", NULL},
    .bufs = (const char *const[]){"odata", "idata", NULL},
    .range_join = SDK_JOIN,
    .body = "alu 18\n"
            "load idata[(16*by + ty)*width + 16*bx + tx] 4 -> r1\n"
            "alu 4\n"
            "lds_store lds[17*ty + tx] 4 < r1\n"
            "barrier\n"
            "alu 3\n"
            "lds_load lds[17*tx + ty] 4 -> r2\n"
            "alu 2\n"
            "store odata[(16*bx + ty)*height + 16*by + tx] 4 < r2\n",
};

struct tr {
    struct kdw w;
    uint64_t width, height;
    unsigned iterations;
    const struct kernel_buf *bufs[2];
};

static int tr_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    struct tr *t = (struct tr *)w;
    t->width = cfg_uint(sec, "width");
    t->height = cfg_uint(sec, "height");
    t->iterations = (unsigned)cfg_uint(sec, "iterations");
    if (sdk_multiple(sec, "width", t->width, TR_TILE, "the tile", e) ||
        sdk_multiple(sec, "height", t->height, TR_TILE, "the tile", e))
        return -1;
    t->bufs[0] = wl_alloc(w->env, "odata", t->width * t->height * 4);
    t->bufs[1] = wl_alloc(w->env, "idata", t->width * t->height * 4);
    return 0;
}

static bool tr_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct tr *t = (const struct tr *)w;
    if (i == t->iterations)
        return false;
    sdk_launch(l, 0, (uint32_t)(t->width / TR_TILE), (uint32_t)(t->height / TR_TILE), TR_TILE,
               TR_TILE);
    l->params[0] = (int64_t)t->width;
    l->params[1] = (int64_t)t->height;
    l->bufs[0] = t->bufs[0];
    l->bufs[1] = t->bufs[1];
    l->lds_b = TR_TILE * (TR_TILE + 1) * 4;
    return true;
}

static const struct kd_desc *const tr_descs[] = {&tr_kd, NULL};
static const struct kdw_model tr_model = {
    .size = sizeof(struct tr), .descs = tr_descs, .setup = tr_setup, .plan = tr_plan};

static void *tr_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&tr_model, env, sec, e);
}

static const char *const tr_small[] = {"width=64", "height=48", "iterations=2", NULL};

const struct wl_ops wl_transpose = {
    .name = "transpose",
    .suite = "CUDA SDK",
    .desc = "CUDA SDK transpose: 16x16 tiles through LDS, coalesced reads and writes",
    .keys = tr_keys,
    .small = tr_small,
    .create = tr_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
};
