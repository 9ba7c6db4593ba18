/*
 * namd.c -- NAMD 2.10's CUDA non-bonded force kernel (dev_nonbonded with its
 * inlined force sum), "HPC_namd2.10" of spec hmg.md 8 (72 MB; one of the
 * workloads with explicit .gpu-scoped synchronization). A substitute: the
 * paper's trace is not public; this is the kernel as NAMD 2.10's public
 * source structures it, on an ApoA1-sized system.
 *
 * Modelled (kernel descriptions, kd.h): a periodic grid of patches of
 * `atoms` atoms each; a patch pair per work-group of 128 threads, 27 pairs
 * per patch (itself and its 26 neighbours, each pair computing the forces
 * on its first patch), ordered patch by patch. A thread holds an atom of the
 * first patch; tiles of 32 atoms of the second are copied word by word to
 * LDS; each pair reads the force table (a texture in NAMD; a scatter over
 * the table here, as positions are not modelled) and accumulates; the pair
 * writes its forces to its own slot of force_buffers and its pairlist flags
 * and virial. Then every warp fences (.gpu release), and thread 0
 * increments the patch's completion counter (atomicInc, .gpu acq_rel); the
 * block that completes the count sums the patch's 27 slots (written by 26
 * other work-groups, on other chiplets and GPUs where the list straddles
 * them) into the patch's forces and virial. The host chooses that block:
 * the last of the list in launch order, which in the model first waits
 * (an acquire load of the counters' line with KOP_F_SPIN) until every
 * member has counted. ALU counts from nvcc 13 -arch=sm_90 PTX of a CUDA
 * version (docs/workloads/namd.md).
 * Abstracted: no values (every pair inside the cutoff, none excluded, the
 * exclusion bits in constant memory); the host's integration between steps.
 */
#include <string.h>

#include "workload/kdw.h"

#define NAMD_NL 27       /* pairs in a full force list: the patch and its 26 neighbours */
#define NAMD_FT 4096     /* force table entries (NAMD's FORCE_TABLE_SIZE) */
#define NAMD_SPINS 1000000 /* re-issues of the counters' load before going on */
#define NAMD_LDS_B (889 * 4)

static const struct cfg_key namd_keys[] = {
    {"px", CFG_INT, "6", 1, 64, "patches along x (periodic)", NULL},
    {"py", CFG_INT, "6", 1, 64, "patches along y (periodic)", NULL},
    {"pz", CFG_INT, "4", 1, 64, "patches along z (periodic)", NULL},
    {"atoms", CFG_INT, "640", 32, 4096, "atoms per patch (a multiple of 32)", NULL},
    {"list", CFG_INT, "27", 1, 27,
     "pairs in each patch's force list: the patch itself, then its neighbours nearest first "
     "(faces, edges, corners; 27: all, NAMD's with patches as large as the cutoff)", NULL},
    {"steps", CFG_INT, "1", 1, 10000, "time steps (one launch each)", NULL},
    KDW_SYNC_SCOPE_KEY("the completion count's fences, atomic and acquire", "a patch's pairs"),
    CFG_END,
};

/* LDS words: pp 0..15 (the pair record: 3 n1, 4 n2, 5 the list index),
 * pairlist flags 16..143, sumf 144..239, sumf_slow 240..335, the j tile's
 * atoms 336..463 (16 B elements 84..115) and parameters 464..591 (116..147),
 * the force list 592..599, the virial table 600..887, sumForces 888. */
#define SUMF_ACC(B) \
    "        lds_load lds[" B " + (tx / 4)*3] 4 -> r14\n        alu 1 < r14\n" \
    "        lds_store lds[" B " + (tx / 4)*3] 4 < r14\n" \
    "        lds_load lds[" B " + (tx / 4)*3 + 1] 4 -> r14\n        alu 1 < r14\n" \
    "        lds_store lds[" B " + (tx / 4)*3 + 1] 4 < r14\n" \
    "        lds_load lds[" B " + (tx / 4)*3 + 2] 4 -> r14\n        alu 1 < r14\n" \
    "        lds_store lds[" B " + (tx / 4)*3 + 2] 4 < r14\n"

/* One j of the unrolled pair: its atom (16 B, broadcast), r2 and the cutoff
 * test (8), the table's address (7), the table and its parameters, the
 * exclusion test and Lennard-Jones (19), the accumulation (8). */
#define PAIR_J(J, T) \
    "        alu 3\n" \
    "        lds_load lds[84 + 2*m2 + " J "] 16 -> r10\n" \
    "        alu 15 < r10 r4\n" \
    "        load ftab[(tx*37 + m2*74 + bx*11 + " T ") % ft] 16 -> r11\n" \
    "        lds_load lds[116 + 2*m2 + " J "] 16 -> r12\n" \
    "        alu 27 < r11 r12 r5\n"

/* The virial reduction of threads 0..23 over a sumf table at B, then the
 * pair's nine words to VB. */
#define VIRIAL_OUT(B, VB) \
    "  alu 3\n" \
    "  lds_load lds[" B " + tx] 4 -> r14\n  lds_load lds[" B " + tx + 24] 4 -> r15\n" \
    "  lds_load lds[" B " + tx + 48] 4 -> r16\n  lds_load lds[" B " + tx + 72] 4 -> r17\n" \
    "  alu 3 < r14 r15 r16 r17\n  lds_store lds[" B " + tx] 4\n" \
    "  lds_load lds[" B " + tx + 12] 4 -> r14\n  alu 1 < r14\n  lds_store lds[" B " + tx] 4\n" \
    "  lds_load lds[" B " + tx + 6] 4 -> r14\n  alu 1 < r14\n  lds_store lds[" B " + tx] 4\n" \
    "  lds_load lds[" B " + tx + 3] 4 -> r14\n  alu 2 < r14\n" \
    "  lds_store lds[" B " + tx*3] 4\n  lds_store lds[" B " + tx*3 + 1] 4\n" \
    "  lds_store lds[" B " + tx*3 + 2] 4\n" \
    "  alu 2\n" \
    "  if tx < 9\n" \
    "    alu 1\n    lds_load lds[6] 4 -> r18\n    alu 3 < r18\n" \
    "    lds_load lds[" B " + tx] 4 -> r14\n" \
    "    store " VB "[bx*16 + tx] 4 < r14\n" \
    "  end\n"

/* dev_sum_forces over the force buffers FB (the patch's 27 slots, the
 * first at pair bx - nl + 1), virial buffers VB, into F and V. */
#define SUM_FORCES(FB, VB, F, V) \
    "  alu 10\n" \
    "  if tx < 8\n" \
    "    alu 5\n    load flists[(bx / nl)*8 + tx] 4 -> r20\n    alu 3 < r20\n" \
    "    lds_store lds[592 + tx] 4 < r20\n" \
    "  end\n" \
    "  alu 2\n" \
    "  for m1 = 0 .. 3\n" \
    "    alu 5\n" \
    "    if tx + m1*bdx < 288\n      lds_store lds[600 + tx + m1*bdx] 4\n    end\n" \
    "  end\n" \
    "  barrier\n" \
    "  for m1 = 0 .. 6\n    lds_load lds[592 + m1] 4 -> r21\n  end\n" \
    "  alu 30 < r21\n" \
    "  for m0 = 0 .. nbi\n" \
    "    alu 10\n" \
    "    if m0*bdx + tx < n\n" \
    "      alu 5\n" \
    "      for m1 = 0 .. q4\n" \
    "        load " FB "[(bx - nl + 1 + 4*m1)*n + m0*bdx + tx] 16 -> r22\n        alu 5\n" \
    "        load " FB "[(bx - nl + 2 + 4*m1)*n + m0*bdx + tx] 16 -> r23\n        alu 5\n" \
    "        load " FB "[(bx - nl + 3 + 4*m1)*n + m0*bdx + tx] 16 -> r24\n        alu 6\n" \
    "        load " FB "[(bx - nl + 4 + 4*m1)*n + m0*bdx + tx] 16 -> r25\n" \
    "        alu 7 < r22 r23 r24 r25\n" \
    "      end\n" \
    "      alu 2\n" \
    "      for m1 = 4*q4 .. nl\n" \
    "        alu 2\n        load " FB "[(bx - nl + 1 + m1)*n + m0*bdx + tx] 16 -> r22\n" \
    "        alu 4 < r22\n" \
    "      end\n" \
    "      alu 3\n" \
    "      store " F "[(bx / nl)*n + m0*bdx + tx] 16\n" \
    "      alu 3\n" \
    "      load atoms[(bx / nl)*n + m0*bdx + tx] 16 -> r26\n" \
    "      alu 12 < r26\n" \
    "    end\n" \
    "  end\n" \
    "  alu 6\n" \
    "  for m2 = 0 .. 4\n" \
    "    alu 2\n" \
    "    if m2 - 1 < tx % 4 < m2 + 1\n" \
    "      for m3 = 0 .. 9\n" \
    "        lds_load lds[600 + (tx / 4)*9 + m3] 4 -> r27\n        alu 1 < r27\n" \
    "        lds_store lds[600 + (tx / 4)*9 + m3] 4 < r27\n" \
    "      end\n" \
    "    end\n" \
    "  end\n" \
    "  barrier\n" \
    "  alu 6\n" \
    "  if tx % 16 < 9\n" \
    "    alu 3\n    lds_load lds[600 + (tx / 16)*9 + tx % 16] 4 -> r28\n    alu 7\n" \
    "    for m1 = 0 .. 4\n" \
    "      if tx / 16 + 8*m1 < nl\n" \
    "        load " VB "[(bx - nl + 1 + tx / 16 + 8*m1)*16 + tx % 16] 4 -> r29\n" \
    "        alu 6 < r29\n" \
    "      end\n" \
    "    end\n" \
    "    lds_store lds[600 + (tx / 16)*9 + tx % 16] 4\n" \
    "  end\n" \
    "  barrier\n" \
    "  alu 2\n" \
    "  if tx / 8 < 9\n" \
    "    alu 5\n" \
    "    lds_load lds[600 + (tx % 8)*9 + tx / 8] 4 -> r30\n" \
    "    lds_load lds[672 + (tx % 8)*9 + tx / 8] 4 -> r31\n" \
    "    lds_load lds[744 + (tx % 8)*9 + tx / 8] 4 -> r32\n" \
    "    lds_load lds[816 + (tx % 8)*9 + tx / 8] 4 -> r33\n" \
    "    alu 3 < r30 r31 r32 r33\n" \
    "    lds_store lds[600 + (tx % 8)*9 + tx / 8] 4\n" \
    "    lds_load lds[636 + (tx % 8)*9 + tx / 8] 4 -> r30\n    alu 1 < r30\n" \
    "    lds_store lds[600 + (tx % 8)*9 + tx / 8] 4\n" \
    "    lds_load lds[618 + (tx % 8)*9 + tx / 8] 4 -> r30\n    alu 1 < r30\n" \
    "    lds_store lds[600 + (tx % 8)*9 + tx / 8] 4\n" \
    "    lds_load lds[609 + (tx % 8)*9 + tx / 8] 4 -> r30\n    alu 1 < r30\n" \
    "    lds_store lds[600 + (tx % 8)*9 + tx / 8] 4\n" \
    "  end\n" \
    "  barrier\n" \
    "  alu 2\n" \
    "  if tx < 9\n" \
    "    alu 2\n    lds_load lds[600 + tx] 4 -> r34\n    alu 3 < r34\n" \
    "    store " V "[(bx / nl)*16 + tx] 4 < r34\n" \
    "  end\n"

static const char *const nb_params[] = {"n", "nl", "nbi", "nbj", "ft", "q4", "spins", "sys",
                                        NULL};
static const char *const nb_bufs[] = {"pairs", "atoms", "params", "ftab", "fbuf", "sfbuf",
                                      "bflags", "vbuf", "svbuf", "counters", "flists", "forces",
                                      "sforces", "virials", "svirials", NULL};
static const char *const nb_arrays[] = {"a2", NULL};
static const struct kd_desc namd_kd = {
    .name = "dev_nonbonded",
    .params = nb_params,
    .bufs = nb_bufs,
    .arrays = nb_arrays,
    .range_reads = true,
    .arrays_fixed = true,
    .range_join = 128,
    .body =
        "alu 12\n"
        "if tx < 16                         # the pair's record into LDS\n"
        "  alu 5\n  load pairs[bx*16 + tx] 4 -> r1\n  alu 3 < r1\n  lds_store lds[tx] 4 < r1\n"
        "end\n"
        "alu 7\n"
        "if tx < 96                         # the net-force tables cleared\n"
        "  alu 1\n  lds_store lds[144 + tx] 4\n  lds_store lds[240 + tx] 4\n"
        "end\n"
        "barrier\n"
        "lds_load lds[3] 4 -> r2\n"
        "alu 17 < r2\n"
        "for m0 = 0 .. nbi                  # blocks of 128 atoms of the first patch\n"
        "  alu 11\n"
        "  if m0*bdx + tx < n\n"
        "    alu 1\n    lds_load lds[0] 4 -> r3\n    alu 3 < r3\n"
        "    load atoms[(bx / nl)*n + m0*bdx + tx] 16 -> r4\n"
        "    alu 1\n"
        "    load params[(bx / nl)*n + m0*bdx + tx] 16 -> r5\n"
        "  end\n"
        "  alu 1\n"
        "  lds_store lds[16 + tx] 4\n"
        "  lds_load lds[4] 4 -> r6\n"
        "  alu 19 < r6\n"
        "  for m1 = 0 .. nbj                # tiles of 32 atoms of the second patch\n"
        "    alu 1\n"
        "    barrier\n"
        "    lds_load lds[1] 4 -> r7\n"
        "    alu 5 < r7\n"
        "    load atoms[@a2[bx]*4 + 128*m1 + tx] 4 -> r8\n"
        "    lds_store lds[336 + tx] 4 < r8\n"
        "    alu 2\n"
        "    load params[@a2[bx]*4 + 128*m1 + tx] 4 -> r9\n"
        "    lds_store lds[464 + tx] 4 < r9\n"
        "    barrier\n"
        "    lds_load lds[3] 4 -> r2\n"
        "    alu 5 < r2\n"
        "    if m0*bdx + tx < n\n"
        "      for m2 = 0 .. 16             # the tile's 32 atoms, two at a time\n"
        PAIR_J("0", "0") PAIR_J("1", "41")
        "        alu 4\n"
        "      end\n"
        "      alu 4\n"
        "      lds_store lds[16 + tx] 4\n"
        "    end\n"
        "    lds_load lds[4] 4 -> r6\n"
        "    alu 3 < r6\n"
        "  end\n"
        "  alu 3\n"
        "  if m0*bdx + tx < n               # the pair's slot and the net force\n"
        "    alu 2\n    lds_load lds[2] 4 -> r13\n    alu 3 < r13\n"
        "    store fbuf[bx*n + m0*bdx + tx] 16\n"
        "    alu 1\n"
        "    store sfbuf[bx*n + m0*bdx + tx] 16\n"
        "    alu 1\n"
        "    for m2 = 0 .. 4\n"
        "      alu 2\n"
        "      if m2 - 1 < tx % 4 < m2 + 1\n"
        SUMF_ACC("144") SUMF_ACC("240")
        "      end\n"
        "    end\n"
        "  end\n"
        "  alu 1\n"
        "  barrier\n"
        "  alu 2\n"
        "  if tx < 32                       # the pairlist flags gathered\n"
        "    lds_load lds[16 + tx] 4 -> r19\n    lds_load lds[48 + tx] 4 -> r19\n    alu 2\n"
        "    lds_load lds[80 + tx] 4 -> r19\n    alu 2\n"
        "    lds_load lds[112 + tx] 4 -> r19\n    alu 2 < r19\n"
        "  end\n"
        "  barrier\n"
        "  alu 1\n"
        "  if tx < 32\n"
        "    alu 4\n    store bflags[(bx*nbi + m0)*32 + tx] 4\n"
        "  end\n"
        "  alu 1\n"
        "  lds_load lds[3] 4 -> r2\n"
        "  alu 2 < r2\n"
        "end\n"
        "barrier\n"
        "alu 2\n"
        "if tx < 24                         # the virials\n"
        VIRIAL_OUT("144", "vbuf") VIRIAL_OUT("240", "svbuf")
        "end\n"
        KDW_SCOPED("", "fence", "release")  /* __threadfence, every warp */
        "barrier\n"
        "alu 2\n"
        "if tx < 1                          # atomicInc of the patch's counter\n"
        "  alu 1\n  lds_load lds[5] 4 -> r15\n  alu 2 < r15\n"
        KDW_SCOPED("  ", "atomic counters[(bx / nl)*32 + bx % nl] 4 -> r16", "acq_rel")
        "  alu 2 < r16\n"
        "  lds_store lds[888] 4 < r16\n"
        "end\n"
        "barrier\n"
        "lds_load lds[888] 4 -> r17\n"
        "alu 1 < r17\n"
        "if nl - 2 < bx % nl                # the block that completes the count\n"
        "  if tx < nl\n"
        KDW_SCOPED("    ", "load counters[(bx / nl)*32 + tx] 4 -> r18", "acquire spin spins")
        "  end\n"
        "  barrier\n"
        SUM_FORCES("fbuf", "vbuf", "forces", "virials")
        SUM_FORCES("sfbuf", "svbuf", "sforces", "svirials")
        "end\n",
};

enum { B_PAIRS, B_ATOMS, B_PARAMS, B_FTAB, B_FBUF, B_SFBUF, B_BFLAGS, B_VBUF, B_SVBUF,
       B_COUNTERS, B_FLISTS, B_FORCES, B_SFORCES, B_VIRIALS, B_SVIRIALS, B_N };

struct namd {
    struct kdw w;
    uint32_t p[3], n, nl, steps, npatch, npair;
    bool sys; /* the completion count at system scope */
    uint32_t *a2; /* [npair]: the first atom of each pair's second patch */
    const struct kernel_buf *bufs[B_N];
};

/* The 27 offsets (-1..1 in x, y, z, as 0..2), the patch itself first, then
 * the faces, edges and corners (each in z, y, x order). */
static void namd_offsets(uint32_t off[NAMD_NL])
{
    unsigned n = 0;
    for (unsigned dist = 0; dist < 4; dist++)
        for (uint32_t k = 0; k < NAMD_NL; k++) {
            unsigned dx = k % 3, dy = k / 3 % 3, dz = k / 9;
            if ((unsigned)(dx != 1) + (dy != 1) + (dz != 1) == dist)
                off[n++] = k;
        }
}

/* The patch pairs, patch by patch: pair p * nl + k joins patch p with its
 * k-th neighbour (namd_offsets), periodically. */
static void namd_pairs(struct namd *d)
{
    uint32_t off[NAMD_NL];
    namd_offsets(off);
    d->a2 = xmalloc(d->npair * sizeof *d->a2);
    for (uint32_t p = 0; p < d->npatch; p++) {
        uint32_t x = p % d->p[0], y = p / d->p[0] % d->p[1], z = p / (d->p[0] * d->p[1]);
        for (uint32_t k = 0; k < d->nl; k++) {
            uint32_t o = off[k];
            uint32_t nx = (x + d->p[0] + o % 3 - 1) % d->p[0];
            uint32_t ny = (y + d->p[1] + o / 3 % 3 - 1) % d->p[1];
            uint32_t nz = (z + d->p[2] + o / 9 - 1) % d->p[2];
            uint32_t q = (nz * d->p[1] + ny) * d->p[0] + nx;
            d->a2[p * d->nl + k] = q * d->n;
        }
    }
}

static int namd_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    struct namd *d = (struct namd *)w;
    static const char *const pk[] = {"px", "py", "pz"};
    for (unsigned i = 0; i < 3; i++)
        d->p[i] = (uint32_t)cfg_uint(sec, pk[i]);
    d->n = (uint32_t)cfg_uint(sec, "atoms");
    d->nl = (uint32_t)cfg_uint(sec, "list");
    d->steps = (uint32_t)cfg_uint(sec, "steps");
    d->sys = kdw_sync_sys(w, sec);
    if (d->n % 32)
        return cfg_err(e, sec, "atoms", "must be a multiple of 32 (the j tile)");
    d->npatch = d->p[0] * d->p[1] * d->p[2];
    d->npair = d->npatch * d->nl;
    if (d->npair > 65535)
        return cfg_err(e, sec, "pz", "%u patch pairs: one launch holds at most 65535",
                       d->npair);
    uint64_t na = (uint64_t)d->npatch * d->n, np = d->npair;
    const char *const names[B_N] = {"patch_pairs", "atoms", "atom_params", "force_table",
                                    "force_buffers", "slow_force_buffers", "block_flags",
                                    "virial_buffers", "slow_virial_buffers",
                                    "force_list_counters", "force_lists", "forces",
                                    "slow_forces", "virials", "slow_virials"};
    const uint64_t size[B_N] = {np * 64, na * 16, na * 16, NAMD_FT * 16, np * d->n * 16,
                                np * d->n * 16, np * div_ceil(d->n, 128) * 128, np * 64,
                                np * 64, d->npatch * 128ull, d->npatch * 32ull, na * 16,
                                na * 16, d->npatch * 64ull, d->npatch * 64ull};
    for (unsigned i = 0; i < B_N; i++)
        d->bufs[i] = wl_alloc(w->env, names[i], size[i]);
    namd_pairs(d);
    return 0;
}

static bool namd_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct namd *d = (const struct namd *)w;
    if (i == d->steps)
        return false;
    l->grid = (struct kernel_dim){d->npair, 1, 1};
    l->block = (struct kernel_dim){128, 1, 1};
    int64_t pv[] = {d->n, d->nl, div_ceil(d->n, 128), d->n / 32, NAMD_FT, d->nl / 4,
                    NAMD_SPINS, d->sys};
    memcpy(l->params, pv, sizeof pv);
    memcpy(l->bufs, d->bufs, sizeof d->bufs);
    l->arrays[0] = (struct kd_array){d->a2, d->npair};
    l->lds_b = NAMD_LDS_B;
    return true;
}

static uint64_t namd_count(const struct kdw *w)
{
    return ((const struct namd *)w)->steps;
}

static void namd_release(struct kdw *w)
{
    free(((struct namd *)w)->a2);
}

static const struct kd_desc *const namd_descs[] = {&namd_kd, NULL};
static const struct kdw_model namd_model = {.size = sizeof(struct namd), .descs = namd_descs,
                                            .setup = namd_setup, .plan = namd_plan,
                                            .count = namd_count, .release = namd_release};

static void *namd_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&namd_model, env, sec, e);
}

static const char *const namd_small[] = {"px=1", "py=1", "pz=2", "atoms=32", "list=2",
                                          NULL};

const struct wl_ops wl_namd = {
    .name = "namd",
    .suite = "HPC",
    .desc = "NAMD 2.10 non-bonded forces per patch pair, .gpu atomic completion counter and "
            "last-block force sum (ApoA1-sized; substitute for HMG's namd2.10)",
    .keys = namd_keys,
    .small = namd_small,
    .create = namd_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
    .kernels = kdw_kernels,
};
