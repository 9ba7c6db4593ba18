/*
 * miniamr.c -- substitute for HMG's "HPC_MiniAMR-test2" (spec hmg.md 8: 1.80
 * GB): Mantevo miniAMR's stencil stages on a uniform mesh of blocks (no
 * refinement): init_x x init_y x init_z blocks of nx x ny x nz cells with
 * one ghost layer, num_vars doubles per cell (var-major per block, x
 * slowest, z fastest). Each stage exchanges the ghost faces between
 * neighbouring blocks for every variable (one launch per direction, only
 * internal faces: miniAMR leaves the domain's ghosts alone), then applies
 * the 7-point averaging stencil to every variable of every block; every
 * checksum_freq stages the per-variable sums are taken.
 *
 * Kernels: stencil_7 and check_sum a work-group per block, a thread per
 * (k, j) looping over i (the stencil's results staged in LDS, the block's
 * work array, then copied back after a barrier); check_sum reduces per
 * warp, per block in LDS, and adds the block's sum to the variable's with a
 * device-scope atomic; comm_faces a thread per face cell looping over the
 * variables. The face lists (hpc.h) and the stage order are computed on the
 * host. ALU counts from nvcc 13 -arch=sm_90 PTX (docs/workloads/miniamr.md).
 * Abstracted: no values; no refinement or load balancing; no message
 * packing (the faces are copied block to block).
 */
#include <stdlib.h>
#include <string.h>

#include "workload/hpc/hpc.h"
#include "workload/kdw.h"

static const struct cfg_key amr_keys[] = {
    {"init_x", CFG_INT, "16", 1, 64, "blocks along x (miniAMR --init_x)", NULL},
    {"init_y", CFG_INT, "16", 1, 64, "blocks along y (miniAMR --init_y)", NULL},
    {"init_z", CFG_INT, "16", 1, 64, "blocks along z (miniAMR --init_z)", NULL},
    {"nx", CFG_INT, "10", 2, 32, "cells per block along x (miniAMR --nx)", NULL},
    {"ny", CFG_INT, "10", 2, 32, "cells per block along y (miniAMR --ny)", NULL},
    {"nz", CFG_INT, "10", 2, 32, "cells per block along z (miniAMR --nz)", NULL},
    {"num_vars", CFG_INT, "32", 1, 200, "variables per cell (miniAMR --num_vars)", NULL},
    {"stages", CFG_INT, "20", 1, 10000, "stencil stages (miniAMR --stages_per_ts)", NULL},
    {"checksum_freq", CFG_INT, "5", 1, 10000, "stages between checksums (miniAMR "
     "--checksum_freq)", NULL},
    CFG_END,
};

/* Cell (i = m1, j = ty, k = tx) of variable m0 of block bx. */
#define AMR_C "(bx*nv*P + m0*P + (m1 + 1)*SI + (ty + 1)*SJ + tx + 1)"
#define AMR_W "lds[m1*nyz + ty*bdx + tx]"
static const char *const amr_params[] = {"nv", "nx", "P", "SI", "SJ", "nyz", "nw", NULL};

static const struct kd_desc amr_stencil_kd = {
    .name = "stencil_7",
    .params = amr_params,
    .bufs = (const char *const[]){"a", NULL},
    .range_join = 128,
    .body = "alu 49\n"
            "for m0 = 0 .. nv\n"
            "  alu 11\n"
            "  for m1 = 0 .. nx\n"
            "    alu 3\n"
            "    load a[" AMR_C " - SI] 8 -> r1\n"
            "    load a[" AMR_C " - SJ] 8 -> r2\n"
            "    alu 2\n"
            "    load a[" AMR_C " - 1] 8 -> r3\n"
            "    alu 1\n"
            "    load a[" AMR_C "] 8 -> r4\n"
            "    alu 1\n"
            "    load a[" AMR_C " + 1] 8 -> r5\n"
            "    alu 2\n"
            "    load a[" AMR_C " + SJ] 8 -> r6\n"
            "    alu 2\n"
            "    load a[" AMR_C " + SI] 8 -> r7\n"
            "    alu 2 < r1 r2 r3 r4 r5 r6 r7\n"
            "    lds_store " AMR_W " 8\n"
            "    alu 6\n"
            "  end\n"
            "  barrier\n"
            "  alu 3\n"
            "  for m1 = 0 .. nx\n"
            "    alu 7\n"
            "    lds_load " AMR_W " 8 -> r8\n"
            "    alu 4 < r8\n"
            "    store a[" AMR_C "] 8 < r8\n"
            "    alu 3\n"
            "  end\n"
            "  barrier\n"
            "  alu 3\n"
            "end\n",
};

/* Per variable: the thread's column summed over i, the warp's shuffle
 * reduction (1 + 5 x 11 + 13), lane 0 of each 32 into LDS, thread 0 adds
 * the nw slots and the block's sum to sums[m0] (atomicAdd: relaxed, gpu). */
static const struct kd_desc amr_sum_kd = {
    .name = "check_sum",
    .params = amr_params,
    .bufs = (const char *const[]){"a", "sums", NULL},
    .range_join = 128,
    .body = "alu 34\n"
            "for m0 = 0 .. nv\n"
            "  alu 11\n"
            "  for m1 = 0 .. nx\n"
            "    alu 1\n"
            "    load a[" AMR_C "] 8 -> r1\n"
            "    alu 5 < r1\n"
            "  end\n"
            "  alu 69\n"
            "  if (tx + ty*bdx) % 32 < 1\n"
            "    lds_store lds[(tx + ty*bdx) / 32] 8\n"
            "  end\n"
            "  alu 1\n"
            "  barrier\n"
            "  alu 1\n"
            "  if tx < 1 and ty < 1\n"
            "    alu 5\n"
            "    for m1 = 0 .. nw\n"
            "      alu 3\n"
            "      lds_load lds[m1] 8 -> r2\n"
            "      alu 4 < r2\n"
            "    end\n"
            "    alu 2\n"
            "    atomic sums[m0] 8 < r2 gpu relaxed\n"
            "  end\n"
            "  alu 1\n"
            "  barrier\n"
            "  alu 3\n"
            "end\n",
};

/* Ghost cell (u, v) of face bz, every variable: the face's source and
 * destination read from the face list, then the copies. */
static const struct kd_desc amr_comm_kd = {
    .name = "comm_faces",
    .params = (const char *const[]){"nv", "P", "su", "sv", "du", "dv", "fo", NULL},
    .bufs = (const char *const[]){"a", "faces", NULL},
    .arrays = (const char *const[]){"src", "dst", NULL},
    .range_reads = true,
    .range_join = 128,
    .body = "alu 21 + 2 [bx*32 + tx < du] + 3 [by*4 + ty < dv]\n"
            "if bx*32 + tx < du and by*4 + ty < dv\n"
            "  load faces[fo + bz*2] 8 -> r1\n"
            "  alu 1\n"
            "  load faces[fo + bz*2 + 1] 8 -> r2\n"
            "  alu 12 < r1 r2\n"
            "  for m0 = 0 .. nv\n"
            "    alu 1\n"
            "    load a[@src[bz] + m0*P + (bx*32 + tx)*su + (by*4 + ty)*sv] 8 -> r3\n"
            "    store a[@dst[bz] + m0*P + (bx*32 + tx)*su + (by*4 + ty)*sv] 8 < r3\n"
            "    alu 5\n"
            "  end\n"
            "end\n",
};

enum { K_STENCIL, K_SUM, K_COMM };

struct amr {
    struct kdw w;
    uint32_t nb[3], d[3], nv, nbox;
    uint64_t P, SI, SJ;
    uint32_t *src[3], *dst[3], nf[3]; /* per direction: the internal faces */
    struct hpc_plan plan;             /* kernel, direction */
    const struct kernel_buf *a, *sums, *faces;
};

static int amr_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    struct amr *m = (struct amr *)w;
    static const char *const bk[] = {"init_x", "init_y", "init_z"}, *const ck[] = {"nx", "ny",
                                                                                   "nz"};
    for (unsigned a = 0; a < 3; a++) {
        m->nb[a] = (uint32_t)cfg_uint(sec, bk[a]);
        m->d[a] = (uint32_t)cfg_uint(sec, ck[a]);
    }
    m->nv = (uint32_t)cfg_uint(sec, "num_vars");
    m->nbox = m->nb[0] * m->nb[1] * m->nb[2];
    m->SJ = m->d[2] + 2;
    m->SI = m->SJ * (m->d[1] + 2);
    m->P = m->SI * (m->d[0] + 2);
    uint64_t bv = m->P * m->nv;
    if (bv * m->nbox > UINT32_MAX)
        return cfg_err(e, sec, "num_vars", "%llu values in all: more than the 2^32 the face "
                       "lists address", (unsigned long long)(bv * m->nbox));
    /* the grid of blocks: block b = x + X (y + Y z); cells x slowest */
    struct hpc_boxes g = {.n = {m->nb[0], m->nb[1], m->nb[2]}, .d = {m->d[0], m->d[1], m->d[2]},
                          .bv = bv, .st = {m->SI, m->SJ, 1}};
    for (unsigned dir = 0; dir < 3; dir++) {
        m->src[dir] = xmalloc(2ull * m->nbox * sizeof *m->src[dir]);
        m->dst[dir] = xmalloc(2ull * m->nbox * sizeof *m->dst[dir]);
        m->nf[dir] = hpc_faces(&g, dir, false, m->src[dir], m->dst[dir]);
    }
    m->a = wl_alloc(w->env, "a", m->nbox * bv * 8);
    m->sums = wl_alloc(w->env, "sums", (uint64_t)m->nv * 8);
    m->faces = wl_alloc(w->env, "faces", 3ull * 2 * m->nbox * 2 * 8);
    uint64_t stages = cfg_uint(sec, "stages"), freq = cfg_uint(sec, "checksum_freq");
    for (uint64_t s = 1; s <= stages; s++) {
        for (unsigned dir = 0; dir < 3; dir++)
            if (m->nf[dir])
                hpc_plan_push(&m->plan, K_COMM, dir, 0);
        hpc_plan_push(&m->plan, K_STENCIL, 0, 0);
        if (s % freq == 0)
            hpc_plan_push(&m->plan, K_SUM, 0, 0);
    }
    return 0;
}

/* The face cells (u, v) of direction dir: the other two axes, u the one of
 * smaller stride (z, z, y: the lanes along a row); strides and extents. */
static void amr_comm(const struct amr *m, unsigned dir, struct kdw_launch *l)
{
    static const unsigned u_ax[] = {2, 2, 1}, v_ax[] = {1, 0, 0};
    const uint64_t st[] = {m->SI, m->SJ, 1};
    uint32_t du = m->d[u_ax[dir]], dv = m->d[v_ax[dir]];
    *l = (struct kdw_launch){.prog = K_COMM, .grid = {(du + 31) / 32, (dv + 3) / 4, m->nf[dir]},
                             .block = {32, 4, 1}, .bufs = {m->a, m->faces},
                             .arrays = {{m->src[dir], m->nf[dir]}, {m->dst[dir], m->nf[dir]}}};
    int64_t p[] = {m->nv, (int64_t)m->P, (int64_t)st[u_ax[dir]], (int64_t)st[v_ax[dir]], du, dv,
                   (int64_t)dir * 2 * m->nbox * 2};
    memcpy(l->params, p, sizeof p);
}

static bool amr_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct amr *m = (const struct amr *)w;
    if (i >= m->plan.n)
        return false;
    struct hpc_step st = m->plan.s[i];
    if (st.k == K_COMM) {
        amr_comm(m, st.a, l);
        return true;
    }
    uint32_t threads = m->d[1] * m->d[2];
    *l = (struct kdw_launch){.prog = st.k, .grid = {m->nbox, 1, 1}, .block = {m->d[2], m->d[1], 1},
                             .bufs = {m->a, m->sums}};
    l->lds_b = st.k == K_STENCIL ? m->d[0] * threads * 8 : 32 * 8;
    int64_t p[] = {m->nv, m->d[0], (int64_t)m->P, (int64_t)m->SI, (int64_t)m->SJ, threads,
                   (threads + 31) / 32};
    memcpy(l->params, p, sizeof p);
    return true;
}

static uint64_t amr_count(const struct kdw *w)
{
    return ((const struct amr *)w)->plan.n;
}

static void amr_release(struct kdw *w)
{
    struct amr *m = (struct amr *)w;
    for (unsigned d = 0; d < 3; d++) {
        free(m->src[d]);
        free(m->dst[d]);
    }
    hpc_plan_free(&m->plan);
}

static const struct kd_desc *const amr_descs[] = {&amr_stencil_kd, &amr_sum_kd, &amr_comm_kd,
                                                  NULL};
static const struct kdw_model amr_model = {.size = sizeof(struct amr), .descs = amr_descs,
                                           .setup = amr_setup, .plan = amr_plan,
                                           .count = amr_count, .release = amr_release};

static void *amr_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&amr_model, env, sec, e);
}

static const char *const amr_small[] = {"init_x=2", "init_y=2", "init_z=1", "nx=4", "ny=4",
                                        "nz=4", "num_vars=2", "stages=2", "checksum_freq=2",
                                        NULL};

const struct wl_ops wl_miniamr = {
    .name = "miniamr",
    .suite = "HPC",
    .desc = "miniAMR stencil stages on a uniform mesh of blocks: ghost-face exchange between "
            "blocks, 7-point average, checksums (HMG MiniAMR-test2; substitute)",
    .keys = amr_keys,
    .small = amr_small,
    .create = amr_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
    .kernels = kdw_kernels,
};
