/*
 * 2mm.c -- PolyBench/GPU 2mm: C = A * B, then E = C * D (single precision),
 * two launches of the same kernel, one thread per output element in
 * 32 x 8 work-groups; each thread zeroes its element and accumulates it
 * over the inner dimension, loading and storing it at every step as the
 * compiled code does (the pointers may alias). Default sizes: PolyBench/GPU's
 * NI = NJ = NK = NL = 2048 (spec remote-core.md 14: the suites'
 * GPGPU-Sim-compatible defaults). ALU counts from nvcc 13 -arch=sm_90 PTX of
 * the kernel (src/workload/polybench/pb.h; docs/workloads/2mm.md).
 * Abstracted: no data values; the host's initialisation and the result check.
 */
#include "workload/polybench/pb.h"

static const struct cfg_key mm2_keys[] = {
    {"ni", CFG_INT, "2048", 1, 65536, "rows of A, C and E (NI)", NULL},
    {"nj", CFG_INT, "2048", 1, 65536, "columns of B and C, rows of D (NJ)", NULL},
    {"nk", CFG_INT, "2048", 1, 65536, "columns of A, rows of B (NK)", NULL},
    {"nl", CFG_INT, "2048", 1, 65536, "columns of D and E (NL)", NULL},
    CFG_END,
};

static const char *const mm2_dims[] = {"ni", "nj", "nk", "nl", NULL};
static const char *const mm2_mats[] = {"A", "B", "C", "D", "E", NULL};
static const struct pb_chain_def mm2_def = {
    .dims = mm2_dims, .mats = mm2_mats,
    .rows = {0, 2, 0, 1, 0}, .cols = {2, 1, 1, 3, 3},
    .nprod = 2, .x = {2, 4}, .y = {0, 2}, .z = {1, 3},
};

static const struct kd_desc *const mm2_descs[] = {&pb_mm_kd, NULL};
static const struct pb_chain_model mm2_model = {
    .m = {.size = sizeof(struct pb_chain), .descs = mm2_descs, .setup = pb_chain_setup,
          .plan = pb_chain_plan},
    .def = &mm2_def};

static void *mm2_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&mm2_model.m, env, sec, e);
}

static const char *const mm2_small[] = {"ni=16", "nj=32", "nk=16", "nl=32", NULL};

const struct wl_ops wl_2mm = {
    .name = "2mm",
    .suite = "Polybench",
    .desc = "PolyBench/GPU 2mm: C = A.B then E = C.D, one thread per output element",
    .keys = mm2_keys,
    .small = mm2_small,
    .create = mm2_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
};
