/*
 * kmeans.c -- Hetero-Mark KMeans (and Rodinia's kmeans without textures,
 * "Kmeans-noTex" of spec ladm.md 10): `points` points of `features` floats
 * are clustered into `clusters` centres. The features are transposed once
 * on the device (feature[point][f] -> feature_swap[f][point]); then each
 * iteration assigns every point to its nearest centre, and the host
 * recomputes the centres and copies them back.
 *
 * Modelled (kernel descriptions, kd.h): kmeans_swap, one thread per point,
 * reads its point's features (a stride of `features` floats between lanes)
 * and writes them column-wise (coalesced); kmeans_compute, one thread per
 * point, for every centre and feature reads feature_swap[f][point]
 * (coalesced) and clusters[c][f] (one address for the whole warp), and
 * stores the nearest centre's index to membership[point]. Default size:
 * ladm.md Table 3.4's 1936 work-groups of 256 threads (495,616 points of 32
 * features, 60.5 MiB); 5 clusters and 5 iterations (MGPUSim's defaults,
 * spec dualopt.md 9.2). ALU counts from nvcc 13 -arch=sm_90 PTX of a CUDA
 * version (docs/workloads/kmeans.md).
 * Abstracted: no data values; the host's update of the centres and its copy
 * of them to the device; the iteration count is fixed (no convergence test).
 */
#include <string.h>

#include "workload/kdw.h"

static const struct cfg_key km_keys[] = {
    {"points", CFG_INT, "495616", 1, 2147483647.0, "points", NULL},
    {"features", CFG_INT, "32", 1, 4096, "features per point", NULL},
    {"clusters", CFG_INT, "5", 1, 4096, "centres", NULL},
    {"iterations", CFG_INT, "5", 1, 1000000, "assignment passes (kmeans_compute launches)", NULL},
    {"block", CFG_INT, "256", 1, 1024, "threads per work-group", NULL},
    CFG_END,
};

/* PTX. swap: entry 19 (parameters, id, the bound and loop tests); per
 * feature the load, the store, and the addresses' steps, i++, compare,
 * branch (5). compute: entry and the outer loop's preheader (18 + 7); per
 * centre the inner loop's set-up (6); per feature the two loads, then the
 * subtract, the fma, the addresses and the loop test (14); after each centre
 * the compare with the minimum, the selects and the loop test (3 + 6); the
 * address of membership[point] (2). */
static const char *const km_params[] = {"np", "nf", "nc", NULL};
static const char *const swap_bufs[] = {"feature", "feature_swap", NULL};
static const char *const comp_bufs[] = {"feature_swap", "clusters", "membership", NULL};
enum { K_SWAP, K_COMPUTE };
static const struct kd_desc km_kd[] = {
    [K_SWAP] = {.name = "kmeans_swap", .params = km_params, .bufs = swap_bufs,
                .body = "alu 19\n"
                        "if gid < np\n"
                        "  for m0 = 0 .. nf\n"
                        "    load feature[gid*nf + m0] 4 -> r1\n"
                        "    store feature_swap[m0*np + gid] 4 < r1\n"
                        "    alu 5\n"
                        "  end\n"
                        "end\n"},
    [K_COMPUTE] = {.name = "kmeans_compute", .params = km_params, .bufs = comp_bufs,
                   .body = "alu 18\n"
                           "if gid < np\n"
                           "  alu 7\n"
                           "  for m0 = 0 .. nc\n"
                           "    alu 6\n"
                           "    for m1 = 0 .. nf\n"
                           "      load feature_swap[m1*np + gid] 4 -> r1\n"
                           "      load clusters[m0*nf + m1] 4 -> r2\n"
                           "      alu 14 < r1 r2\n"
                           "    end\n"
                           "    alu 9\n"
                           "  end\n"
                           "  alu 2\n"
                           "  store membership[gid] 4\n"
                           "end\n"},
};

struct km {
    struct kdw w;
    const struct kernel_buf *feature, *swap, *clusters, *membership;
    uint64_t points, features, clusters_n;
    uint32_t block;
    unsigned iterations;
};

static int km_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    struct km *k = (struct km *)w;
    k->points = cfg_uint(sec, "points");
    k->features = cfg_uint(sec, "features");
    k->clusters_n = cfg_uint(sec, "clusters");
    k->iterations = (unsigned)cfg_uint(sec, "iterations");
    k->block = (uint32_t)cfg_uint(sec, "block");
    if (k->points * k->features > UINT32_MAX)
        return cfg_err(e, sec, "points", "points x features must be at most %u", UINT32_MAX);
    k->feature = wl_alloc(w->env, "feature", k->points * k->features * 4);
    k->swap = wl_alloc(w->env, "feature_swap", k->points * k->features * 4);
    k->clusters = wl_alloc(w->env, "clusters", k->clusters_n * k->features * 4);
    k->membership = wl_alloc(w->env, "membership", k->points * 4);
    return 0;
}

/* Launch 0: the transpose; then `iterations` assignment passes. */
static bool km_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct km *k = (const struct km *)w;
    if (i > k->iterations)
        return false;
    l->prog = i ? K_COMPUTE : K_SWAP;
    l->grid = (struct kernel_dim){(uint32_t)div_ceil(k->points, k->block), 1, 1};
    l->block = (struct kernel_dim){k->block, 1, 1};
    l->params[0] = (int64_t)k->points;
    l->params[1] = (int64_t)k->features;
    l->params[2] = (int64_t)k->clusters_n;
    if (i) {
        l->bufs[0] = k->swap, l->bufs[1] = k->clusters, l->bufs[2] = k->membership;
    } else {
        l->bufs[0] = k->feature, l->bufs[1] = k->swap;
    }
    return true;
}

static const struct kd_desc *const km_descs[] = {&km_kd[K_SWAP], &km_kd[K_COMPUTE], NULL};
static const struct kdw_model km_model = {
    .size = sizeof(struct km), .descs = km_descs, .setup = km_setup, .plan = km_plan};

static void *km_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&km_model, env, sec, e);
}

static const char *const km_small[] = {"points=512", "features=4", "clusters=3",
                                       "iterations=2", NULL};

const struct wl_ops wl_kmeans = {
    .name = "kmeans",
    .suite = "HeteroMark",
    .desc = "Hetero-Mark KMeans: feature transpose, then nearest-centre passes",
    .keys = km_keys,
    .small = km_small,
    .create = km_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
};
