/*
 * aes.c -- Hetero-Mark AES: AES-256 encryption (ECB) of a buffer, one
 * 16-byte block per thread (spec dualopt.md 9: "local dominated": each GPU
 * works on its own part of the data).
 *
 * Modelled (kernel descriptions, kd.h): each thread loads its 16 bytes one
 * by one with the first round key (4 words of the expanded key, in global
 * memory), then runs 14 rounds: 16 S-box lookups (bytes of a 256-byte table
 * in global memory, at data-dependent positions), MixColumns in 13 of them
 * (ALU only), the round key's 4 words; and stores its 16 bytes back. The
 * S-box positions are the state's bytes, which depend on the data: they are
 * drawn from sim.seed, one table of 224 positions per thread of a
 * work-group, the same in every work-group (encrypted data is uniformly
 * random; the table has 4 lines of 64 B, all touched by every warp).
 * ALU counts from nvcc 13 -arch=sm_90 PTX of a CUDA version, the round loop
 * kept rolled (docs/workloads/aes.md). Size: MGPUSim's 65,536 bytes scaled
 * up 64 times (spec dualopt.md 9.2 [INF]).
 * Abstracted: no data values; the host's key expansion.
 */
#include <stdlib.h>
#include <string.h>

#include "workload/kdw.h"

#define AES_LOOKUPS (14 * 16) /* S-box lookups per thread */

static const struct cfg_key aes_keys[] = {
    {"bytes", CFG_INT, "4194304", 16, 34359738368.0, "bytes to encrypt (a multiple of 16)", NULL},
    {"block", CFG_INT, "256", 1, 1024, "threads per work-group", NULL},
    CFG_END,
};

/* PTX: the entry (parameters, id, bound test, addresses: 13); the first
 * round key: per word its load, then the state's 4 bytes with 2, 3, 3, 2
 * instructions before them and 1 after (the xors). Per round: per lookup
 * the byte's address (3) and the S-box load; the round test (2); MixColumns
 * (152, rounds 1-13); per key word 11 (the xors with the 4 bytes, the
 * previous word's) and its load, then 5 (the last xors, the loop test). */
static const char *const aes_params[] = {"nb", NULL};
static const char *const aes_bufs[] = {"data", "key", "sbox", NULL};
static const char *const aes_arrays[] = {"pos", NULL};
static const struct kd_desc aes_kd = {
    .name = "aes_encrypt",
    .params = aes_params,
    .bufs = aes_bufs,
    .arrays = aes_arrays,
    .body = "alu 13\n"
            "if gid < nb\n"
            "  for m0 = 0 .. 4                       # the state and round key 0\n"
            "    load key[m0] 4 -> r1\n"
            "    alu 2\n"
            "    load data[16*gid + 4*m0] 1 -> r2\n"
            "    alu 3\n"
            "    load data[16*gid + 4*m0 + 1] 1 -> r3\n"
            "    alu 3\n"
            "    load data[16*gid + 4*m0 + 2] 1 -> r4\n"
            "    alu 2\n"
            "    load data[16*gid + 4*m0 + 3] 1 -> r5\n"
            "    alu 1 -> r7 < r1 r2 r3 r4 r5\n"
            "  end\n"
            "  for m0 = 1 .. 15                      # rounds 1 .. 14\n"
            "    for m1 = 0 .. 16                    # SubBytes with ShiftRows\n"
            "      alu 3 < r7\n"
            "      load sbox[@pos[224*tx + 16*m0 + m1 - 16]] 1 -> r6\n"
            "    end\n"
            "    alu 2 < r6\n"
            "    if m0 < 14\n"
            "      alu 152 < r6                      # MixColumns\n"
            "    end\n"
            "    for m1 = 0 .. 4                     # AddRoundKey\n"
            "      alu 11\n"
            "      load key[4*m0 + m1] 4 -> r8\n"
            "    end\n"
            "    alu 5 -> r7 < r6 r8\n"
            "  end\n"
            "  for m1 = 0 .. 16\n"
            "    store data[16*gid + m1] 1 < r7\n"
            "  end\n"
            "end\n",
};

struct aes {
    struct kdw w;
    const struct kernel_buf *bufs[3];
    uint32_t *pos;
    uint64_t nb;
    uint32_t block;
};

static int aes_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    struct aes *a = (struct aes *)w;
    uint64_t bytes = cfg_uint(sec, "bytes");
    if (bytes % 16)
        return cfg_err(e, sec, "bytes", "must be a multiple of the 16-byte AES block");
    a->nb = bytes / 16;
    a->block = (uint32_t)cfg_uint(sec, "block");
    if (div_ceil(a->nb, a->block) > UINT32_MAX)
        return cfg_err(e, sec, "bytes", "needs more than %u work-groups", UINT32_MAX);
    struct rng g;
    rng_seed(&g, w->env->seed);
    a->pos = xmalloc((size_t)a->block * AES_LOOKUPS * sizeof *a->pos);
    for (size_t i = 0; i < (size_t)a->block * AES_LOOKUPS; i++)
        a->pos[i] = (uint32_t)rng_below(&g, 256);
    a->bufs[0] = wl_alloc(w->env, "data", bytes);
    a->bufs[1] = wl_alloc(w->env, "key", 60 * 4);
    a->bufs[2] = wl_alloc(w->env, "sbox", 256);
    return 0;
}

static bool aes_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct aes *a = (const struct aes *)w;
    if (i)
        return false;
    l->grid = (struct kernel_dim){(uint32_t)div_ceil(a->nb, a->block), 1, 1};
    l->block = (struct kernel_dim){a->block, 1, 1};
    l->params[0] = (int64_t)a->nb;
    l->arrays[0] = (struct kd_array){a->pos, (uint64_t)a->block * AES_LOOKUPS};
    memcpy(l->bufs, a->bufs, sizeof a->bufs);
    return true;
}

static void aes_release(struct kdw *w)
{
    free(((struct aes *)w)->pos);
}

static const struct kd_desc *const aes_descs[] = {&aes_kd, NULL};
static const struct kdw_model aes_model = {.size = sizeof(struct aes), .descs = aes_descs,
                                           .setup = aes_setup, .plan = aes_plan,
                                           .release = aes_release};

static void *aes_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&aes_model, env, sec, e);
}

static const char *const aes_small[] = {"bytes=1024", "block=64", NULL};

const struct wl_ops wl_aes = {
    .name = "aes",
    .suite = "HeteroMark",
    .desc = "Hetero-Mark AES-256 ECB encryption, one 16-byte block per thread",
    .keys = aes_keys,
    .small = aes_small,
    .create = aes_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
};
