/*
 * scalarprod.c -- the CUDA SDK's scalarProd: the dot products of `vectors`
 * pairs of float vectors of `elements` each. Each work-group of 256 threads
 * takes vectors bx, bx + gridDim.x, ...; for each, its threads fill
 * ACCUM_N = 1024 partial sums (thread tx the accumulators tx, tx + 256,
 * ...; accumulator a sums A[pos] * B[pos] for pos = a, a + 1024, ... of the
 * vector), store them in LDS, reduce them in ten halving steps with a
 * barrier each (steps of 512 and 256 take several accumulators per thread),
 * and thread 0 stores C[vec]. Default: LADM's ScalarProd (spec ladm.md 10,
 * Table 3.4: TB (256,1), 120 MB, 2048 TBs): 2048 vectors of 7680 floats
 * each (2 x 60 MiB) over 2048 work-groups; the SDK's own run is 256 x 4096
 * over 128. ALU counts from nvcc 13 -arch=sm_90 PTX
 * (docs/workloads/scalarprod.md). Abstracted: no data values.
 */
#include <string.h>

#include "workload/sdk/sdk.h"

#define SP_ACCUM 1024
#define SP_THREADS 256

static const struct cfg_key sp_keys[] = {
    {"vectors", CFG_INT, "2048", 1, 1048576, "pairs of vectors (VECTOR_N)", NULL},
    {"elements", CFG_INT, "7680", 1, 16777216, "floats per vector (ELEMENT_N)", NULL},
    {"blocks", CFG_INT, "2048", 1, 65535, "work-groups (a divisor of vectors)", NULL},
    CFG_END,
};

/* scalarProdGPU's PTX: the entry 16; per vector 6; per accumulator 15 (the
 * remainder's set-up); per element pair 2 (nvcc's four-way loop: 0, 1, 1,
 * 1 and 6 over four pairs, 2.25, and its remainder 4, 4, 2: counted 2
 * each); after the pairs 5, 3 before the LDS store and 4 after it. Per
 * halving step 1 before the barrier and 2 after it; per accumulator that
 * adds 3, 1 between the loads and the store, 3 after. Then 1, the barrier,
 * thread 0's 1 and 2 around the LDS load, and 3 to the next vector. */
static const struct kd_desc sp_kd = {
    .name = "scalarProdGPU",
    .params = (const char *const[]){"en", "vits", "pits", NULL},
    .bufs = (const char *const[]){"C", "A", "B", NULL},
    .arrays = (const char *const[]){"half", NULL},
    .body = "alu 16\n"
            "for m0 = 0 .. vits\n"
            "  alu 6\n"
            "  for m1 = 0 .. 4\n"
            "    alu 15\n"
            "    for m2 = 0 .. pits\n"
            "      if tx + 256*m1 + 1024*m2 < en\n"
            "        load A[(bx + m0*gdx)*en + tx + 256*m1 + 1024*m2] 4 -> r1\n"
            "        load B[(bx + m0*gdx)*en + tx + 256*m1 + 1024*m2] 4 -> r2\n"
            "        alu 2 < r1 r2\n"
            "      end\n"
            "    end\n"
            "    alu 8\n"
            "    lds_store lds[tx + 256*m1] 4\n"
            "    alu 4\n"
            "  end\n"
            "  for m1 = 0 .. 10\n"
            "    alu 1\n"
            "    barrier\n"
            "    alu 2\n"
            "    for m2 = 0 .. 2\n"
            "      if tx + 256*m2 < @half[m1]\n"
            "        alu 3\n"
            "        lds_load lds[tx + 256*m2 + @half[m1]] 4 -> r3\n"
            "        lds_load lds[tx + 256*m2] 4 -> r4\n"
            "        alu 1 < r3 r4\n"
            "        lds_store lds[tx + 256*m2] 4 < r3 r4\n"
            "        alu 3\n"
            "      end\n"
            "    end\n"
            "  end\n"
            "  alu 1\n"
            "  barrier\n"
            "  if tx < 1\n"
            "    alu 1\n"
            "    lds_load lds[0] 4 -> r5\n"
            "    alu 2\n"
            "    store C[bx + m0*gdx] 4 < r5\n"
            "  end\n"
            "  alu 3\n"
            "end\n",
};

struct sp {
    struct kdw w;
    uint64_t vectors, elements;
    uint32_t blocks;
    uint32_t half[10]; /* 512 .. 1 */
    const struct kernel_buf *bufs[3];
};

static int sp_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    struct sp *s = (struct sp *)w;
    s->vectors = cfg_uint(sec, "vectors");
    s->elements = cfg_uint(sec, "elements");
    s->blocks = (uint32_t)cfg_uint(sec, "blocks");
    if (s->blocks > s->vectors)
        return cfg_err(e, sec, "blocks", "more work-groups than vectors (%llu)",
                       (unsigned long long)s->vectors);
    if (sdk_multiple(sec, "vectors", s->vectors, s->blocks, "blocks", e))
        return -1;
    sdk_halves(s->half, SP_ACCUM / 2, 0);
    s->bufs[0] = wl_alloc(w->env, "C", s->vectors * 4);
    s->bufs[1] = wl_alloc(w->env, "A", s->vectors * s->elements * 4);
    s->bufs[2] = wl_alloc(w->env, "B", s->vectors * s->elements * 4);
    return 0;
}

static bool sp_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct sp *s = (const struct sp *)w;
    if (i == 1)
        return false;
    sdk_launch(l, 0, s->blocks, 1, SP_THREADS, 1);
    l->params[0] = (int64_t)s->elements;
    l->params[1] = (int64_t)(s->vectors / s->blocks);
    l->params[2] = (int64_t)div_ceil(s->elements, SP_ACCUM);
    memcpy(l->bufs, s->bufs, sizeof s->bufs);
    l->arrays[0] = (struct kd_array){s->half, 10};
    l->lds_b = SP_ACCUM * 4;
    return true;
}

static const struct kd_desc *const sp_descs[] = {&sp_kd, NULL};
static const struct kdw_model sp_model = {
    .size = sizeof(struct sp), .descs = sp_descs, .setup = sp_setup, .plan = sp_plan};

static void *sp_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&sp_model, env, sec, e);
}

static const char *const sp_small[] = {"vectors=4", "elements=1536", "blocks=2", NULL};

const struct wl_ops wl_scalarprod = {
    .name = "scalarprod",
    .suite = "CUDA SDK",
    .desc = "CUDA SDK scalarProd: dot products of vector pairs, 1024 partial sums reduced in LDS",
    .keys = sp_keys,
    .small = sp_small,
    .create = sp_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
};
