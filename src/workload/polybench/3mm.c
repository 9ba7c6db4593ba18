/*
 * 3mm.c -- PolyBench/GPU 3mm: E = A * B, F = C * D, G = E * F (single
 * precision), three launches of one kernel, one thread per output element
 * in 32 x 8 work-groups; each thread zeroes its element and accumulates it
 * over the inner dimension, loading and storing it at every step as the
 * compiled code does. Default sizes: PolyBench/GPU's NI = NJ = NK = NL = NM
 * = 512 (spec remote-core.md 14). ALU counts from nvcc 13 -arch=sm_90 PTX
 * of the kernel (src/workload/polybench/pb.h; docs/workloads/3mm.md).
 * Abstracted: no data values; the host's initialisation and the result check.
 */
#include "workload/polybench/pb.h"

static const struct cfg_key mm3_keys[] = {
    {"ni", CFG_INT, "512", 1, 65536, "rows of A, E and G (NI)", NULL},
    {"nj", CFG_INT, "512", 1, 65536, "columns of B and E, rows of C and F (NJ)", NULL},
    {"nk", CFG_INT, "512", 1, 65536, "columns of A, rows of B (NK)", NULL},
    {"nl", CFG_INT, "512", 1, 65536, "columns of D, F and G (NL)", NULL},
    {"nm", CFG_INT, "512", 1, 65536, "columns of C, rows of D (NM)", NULL},
    CFG_END,
};

static const char *const mm3_dims[] = {"ni", "nj", "nk", "nl", "nm", NULL};
static const char *const mm3_mats[] = {"A", "B", "C", "D", "E", "F", "G", NULL};
static const struct pb_chain_def mm3_def = {
    .dims = mm3_dims, .mats = mm3_mats,
    .rows = {0, 2, 1, 4, 0, 1, 0}, .cols = {2, 1, 4, 3, 1, 3, 3},
    .nprod = 3, .x = {4, 5, 6}, .y = {0, 2, 4}, .z = {1, 3, 5},
};

static const struct kd_desc *const mm3_descs[] = {&pb_mm_kd, NULL};
static const struct pb_chain_model mm3_model = {
    .m = {.size = sizeof(struct pb_chain), .descs = mm3_descs, .setup = pb_chain_setup,
          .plan = pb_chain_plan},
    .def = &mm3_def};

static void *mm3_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&mm3_model.m, env, sec, e);
}

static const char *const mm3_small[] = {"ni=16", "nj=32", "nk=16", "nl=32", "nm=16", NULL};

const struct wl_ops wl_3mm = {
    .name = "3mm",
    .suite = "Polybench",
    .desc = "PolyBench/GPU 3mm: E = A.B, F = C.D, G = E.F, one thread per output element",
    .keys = mm3_keys,
    .small = mm3_small,
    .create = mm3_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
};
