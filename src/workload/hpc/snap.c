/*
 * snap.c -- SNAP (LANL's SN Application Proxy, the transport sweep of
 * PARTISN): discrete-ordinates sweeps of a 3D structured grid, "HPC_snap"
 * of spec hmg.md 8 (3.44 GB; among the workloads with the most
 * fine-grained sharing). A substitute: the paper's trace is not public;
 * this is SNAP's inner iteration as a GPU port runs it, the sweep of each
 * octant a wavefront of diagonal planes, one launch per plane.
 *
 * Modelled (kernel descriptions, kd.h): per inner iteration the source
 * (inner_src: the external source plus the in-group scattering of every
 * group's flux moments, a thread per cell and group), the flux cleared
 * (flux_zero), then for each of the 8 octants the incoming boundary faces
 * cleared (sweep_init) and, diagonal by diagonal (i' + j' + k' = d, the
 * primed indices counted from the octant's corner), dim3_sweep: a
 * work-group per cell of the diagonal and group, a thread per angle; it
 * expands the source moments, reads the incoming x, y and z faces the
 * upstream cells wrote in the previous launch, the time-dependent angular
 * flux, solves the cell (diamond difference), writes the outgoing faces in
 * place (read by the downstream cells in the next launch) and the new
 * angular flux, and reduces w psi over its angles in LDS into the cell's
 * flux and flux moments. The host builds the diagonals' cell lists for
 * the 8 octants once (device array dlist, bound as arrays too).
 * ALU counts from nvcc 13 -arch=sm_90 PTX of a CUDA version
 * (docs/workloads/snap.md).
 * Abstracted: no values; one material; no fixup of negative fluxes.
 */
#include <string.h>

#include "workload/kdw.h"

#define SNAP_NOCT 8
#define SNAP_BLOCK 256

static const struct cfg_key snap_keys[] = {
    {"nx", CFG_INT, "32", 1, 1024, "cells along x", NULL},
    {"ny", CFG_INT, "32", 1, 1024, "cells along y", NULL},
    {"nz", CFG_INT, "32", 1, 1024, "cells along z", NULL},
    {"ng", CFG_INT, "16", 1, 1024, "energy groups", NULL},
    {"nang", CFG_INT, "48", 1, 1024, "angles per octant (threads per sweep work-group)", NULL},
    {"nmom", CFG_INT, "4", 1, 4, "scattering moments (cmom = nmom^2 flux moments)", NULL},
    {"iterations", CFG_INT, "1", 1, 10000, "inner iterations (a source and 8 octant sweeps "
     "each)", NULL},
    CFG_END,
};

/* One group of four moments of the source's expansion (PTX: 6 before,
 * 2, 2, 5 between the pairs of loads). */
#define SRC_MOM(M, N) \
    "    load ec[(oct*cmom + " M " + 4*m0)*nang + tx] 8 -> r4\n" \
    "    load qtot[(by*ncell + @cl[off + bx])*cmom + " M " + 4*m0] 8 -> r5\n" \
    "    alu " N " < r4 r5\n"

/* Four angles of the flux moments' sum (16-byte LDS loads of two). */
#define FLUX_EC(K, N) \
    "    load ec[(oct*cmom + tx)*nang + 4*m1 + " K "] 8 -> r18\n    alu " N " < r18\n"

static const char *const sweep_params[] = {"off", "oct", "ncell", "nang", "cmom", "ng", "nyz",
                                           "nxz", "nxy", "q", "qa", "L", NULL};
static const char *const sweep_bufs[] = {"dlist", "t_xs", "qtot", "ec", "ang", "psii", "psij",
                                         "psik", "ptr_in", "ptr_out", "flux", "fluxm", NULL};
static const struct kd_desc snap_sweep_kd = {
    .name = "dim3_sweep",
    .params = sweep_params,
    .bufs = sweep_bufs,
    .arrays = (const char *const[]){"cl", "jk", "ik", "ij", NULL},
    .range_reads = true,
    .arrays_fixed = true,
    .body =
        "alu 26\n"
        "load dlist[off + bx] 4 -> r1\n"
        "alu 3\n"
        "if tx < nang\n"
        "  alu 4 < r1\n"
        "  load t_xs[by*ncell + @cl[off + bx]] 8 -> r2\n"
        "  alu 3\n"
        "  load qtot[(by*ncell + @cl[off + bx])*cmom] 8 -> r3\n"
        "  alu 2 + 8 [1 < cmom] + 3 [0 < q]\n"
        "  for m0 = 0 .. q                  # the source's moments, four at a time\n"
        "    alu 6\n"
        SRC_MOM("1", "2") SRC_MOM("2", "2") SRC_MOM("3", "2") SRC_MOM("4", "5")
        "  end\n"
        "  alu 2 + 9 [4*q + 1 < cmom]\n"
        "  for m0 = 4*q + 1 .. cmom\n"
        "    load ec[(oct*cmom + m0)*nang + tx] 8 -> r4\n"
        "    load qtot[(by*ncell + @cl[off + bx])*cmom + m0] 8 -> r5\n"
        "    alu 6 < r4 r5\n"
        "  end\n"
        "  alu 12\n"
        "  load dlist[L + off + bx] 4 -> r6\n  alu 3\n"
        "  load dlist[2*L + off + bx] 4 -> r7\n  alu 3\n"
        "  load dlist[3*L + off + bx] 4 -> r8\n"
        "  alu 21 < r6 r7 r8\n"
        "  load ang[tx] 8 -> r9\n"
        "  load psii[(by*nyz + @jk[off + bx])*nang + tx] 8 -> r10   # the upstream faces\n"
        "  alu 1\n"
        "  load ang[nang + tx] 8 -> r11\n"
        "  load psij[(by*nxz + @ik[off + bx])*nang + tx] 8 -> r12\n"
        "  alu 1\n"
        "  load ang[2*nang + tx] 8 -> r13\n"
        "  load psik[(by*nxy + @ij[off + bx])*nang + tx] 8 -> r14\n"
        "  alu 1\n"
        "  load ptr_in[((oct*ng + by)*ncell + @cl[off + bx])*nang + tx] 8 -> r15\n"
        "  alu 8 < r2 r3 r9 r10 r11 r12 r13 r14 r15\n"
        "  store psii[(by*nyz + @jk[off + bx])*nang + tx] 8     # the downstream faces\n"
        "  alu 1\n"
        "  store psij[(by*nxz + @ik[off + bx])*nang + tx] 8\n"
        "  alu 1\n"
        "  store psik[(by*nxy + @ij[off + bx])*nang + tx] 8\n"
        "  alu 2\n"
        "  store ptr_out[((oct*ng + by)*ncell + @cl[off + bx])*nang + tx] 8\n"
        "  alu 1\n"
        "  load ang[3*nang + tx] 8 -> r16\n"
        "  alu 4 < r16\n"
        "  lds_store lds[tx] 8\n"
        "end\n"
        "barrier\n"
        "alu 2\n"
        "if tx < cmom                       # the flux and its moments\n"
        "  alu 3 + 9 [0 < nang] + 3 [0 < qa]\n"
        "  for m1 = 0 .. qa\n"
        "    alu 3\n"
        "    lds_load lds[4*m1] 16/8 -> r17\n"
        "    alu 3\n"
        FLUX_EC("0", "1") FLUX_EC("1", "1")
        "    lds_load lds[4*m1 + 2] 16/8 -> r17\n"
        FLUX_EC("2", "1") FLUX_EC("3", "5")
        "  end\n"
        "  alu 2 + 6 [4*qa < nang]\n"
        "  for m1 = 4*qa .. nang\n"
        "    load ec[(oct*cmom + tx)*nang + m1] 8 -> r18\n"
        "    lds_load lds[m1] 8 -> r17\n"
        "    alu 6 < r17 r18\n"
        "  end\n"
        "  alu 7\n"
        "  if tx < 1\n"
        "    alu 2\n"
        "    load flux[by*ncell + @cl[off + bx]] 8 -> r19\n    alu 1 < r19\n"
        "    store flux[by*ncell + @cl[off + bx]] 8\n"
        "  end\n"
        "  if 0 < tx\n"
        "    alu 7\n"
        "    load fluxm[(by*ncell + @cl[off + bx])*(cmom - 1) + tx - 1] 8 -> r19\n"
        "    alu 1 < r19\n"
        "    store fluxm[(by*ncell + @cl[off + bx])*(cmom - 1) + tx - 1] 8\n"
        "    alu 1\n"
        "  end\n"
        "end\n",
};

/* inner_src: four groups of the in-scattering sum (6 before; 3, 3, 5). */
#define SRC_G(G, N) \
    "    load slgg[(4*m0 + " G ")*ng + by] 8 -> r2\n" \
    "    load flux[(4*m0 + " G ")*ncell + gid] 8 -> r3\n    alu " N " < r2 r3\n"
#define SRC_GM(G, N) \
    "      load slgg[(m1*ng + 4*m0 + " G ")*ng + by] 8 -> r2\n" \
    "      load fluxm[((4*m0 + " G ")*ncell + gid)*(cmom - 1) + m1 - 1] 8 -> r3\n" \
    "      alu " N " < r2 r3\n"
static const struct kd_desc snap_src_kd = {
    .name = "inner_src",
    .params = (const char *const[]){"ncell", "ng", "cmom", "qg", NULL},
    .bufs = (const char *const[]){"qi", "flux", "fluxm", "slgg", "qtot", NULL},
    .body =
        "alu 15\n"
        "if gid < ncell\n"
        "  alu 4\n"
        "  load qi[by*ncell + gid] 8 -> r1\n"
        "  alu 2 + 5 [0 < ng] + 4 [0 < qg]\n"
        "  for m0 = 0 .. qg                 # the flux of every group, four at a time\n"
        "    alu 6\n" SRC_G("0", "3") SRC_G("1", "3") SRC_G("2", "3") SRC_G("3", "5")
        "  end\n"
        "  alu 2\n"
        "  for m0 = 4*qg .. ng\n"
        "    alu 6\n"
        "    load slgg[m0*ng + by] 8 -> r2\n    load flux[m0*ncell + gid] 8 -> r3\n"
        "    alu 5 < r2 r3\n"
        "  end\n"
        "  alu 4\n"
        "  store qtot[(by*ncell + gid)*cmom] 8\n"
        "  alu 2 + 23 [1 < cmom]\n"
        "  for m1 = 1 .. cmom               # the higher moments from the flux moments\n"
        "    alu 7 + 10 [0 < qg]\n"
        "    for m0 = 0 .. qg\n" SRC_GM("0", "4") SRC_GM("1", "3") SRC_GM("2", "3")
                                  SRC_GM("3", "8")
        "    end\n"
        "    alu 2\n"
        "    for m0 = 4*qg .. ng\n"
        "      alu 11\n"
        "      load slgg[(m1*ng + m0)*ng + by] 8 -> r2\n"
        "      load fluxm[(m0*ncell + gid)*(cmom - 1) + m1 - 1] 8 -> r3\n"
        "      alu 2 < r2 r3\n"
        "    end\n"
        "    alu 2\n"
        "    store qtot[(by*ncell + gid)*cmom + m1] 8\n"
        "    alu 3\n"
        "  end\n"
        "end\n",
};

/* Clears of two or three arrays, a thread per element (PTX: 12 or 10, then
 * 2 per further test, 3 before each store). */
static const struct kd_desc snap_init_kd = {
    .name = "sweep_init",
    .params = (const char *const[]){"ni", "nj", "nk", NULL},
    .bufs = (const char *const[]){"psii", "psij", "psik", NULL},
    .body = "alu 12\n"
            "if gid < ni\n  alu 3\n  store psii[gid] 8\nend\n"
            "alu 2\n"
            "if gid < nj\n  alu 3\n  store psij[gid] 8\nend\n"
            "alu 2\n"
            "if gid < nk\n  alu 3\n  store psik[gid] 8\nend\n",
};
static const struct kd_desc snap_zero_kd = {
    .name = "flux_zero",
    .params = (const char *const[]){"n", "nm", NULL},
    .bufs = (const char *const[]){"flux", "fluxm", NULL},
    .body = "alu 10\n"
            "if gid < n\n  alu 3\n  store flux[gid] 8\nend\n"
            "alu 2\n"
            "if gid < nm\n  alu 3\n  store fluxm[gid] 8\nend\n",
};

enum { K_SWEEP, K_SRC, K_INIT, K_ZERO };
enum { B_DLIST, B_TXS, B_QTOT, B_EC, B_ANG, B_PSII, B_PSIJ, B_PSIK, B_PIN, B_POUT, B_FLUX,
       B_FLUXM, B_QI, B_SLGG, B_N };

struct snap {
    struct kdw w;
    uint32_t n[3], ng, nang, cmom, iterations, ncell, ndiag;
    uint32_t *list;        /* 4 rows of 8 ncell: cell, j + ny k, i + nx k, i + nx j */
    uint32_t *doff;        /* [8 * ndiag + 1]: where (octant, diagonal) begins in a row */
    const struct kernel_buf *bufs[B_N];
};

/* The diagonals of each octant: octant o sweeps x downward when bit 0 is
 * set (y bit 1, z bit 2); diagonal d holds the cells whose primed indices
 * (counted from the octant's first corner) sum to d, in k', j', i' order. */
static void snap_lists(struct snap *s)
{
    uint32_t nx = s->n[0], ny = s->n[1], nz = s->n[2], at = 0, L = SNAP_NOCT * s->ncell;
    s->list = xmalloc(4ull * L * sizeof *s->list);
    s->doff = xmalloc((SNAP_NOCT * s->ndiag + 1ull) * sizeof *s->doff);
    for (uint32_t o = 0; o < SNAP_NOCT; o++)
        for (uint32_t d = 0; d < s->ndiag; d++) {
            s->doff[o * s->ndiag + d] = at;
            for (uint32_t kp = 0; kp < nz; kp++)
                for (uint32_t jp = 0; jp < ny; jp++) {
                    if (kp + jp > d || d - kp - jp >= nx)
                        continue;
                    uint32_t ip = d - kp - jp;
                    uint32_t i = o & 1 ? nx - 1 - ip : ip, j = o & 2 ? ny - 1 - jp : jp;
                    uint32_t k = o & 4 ? nz - 1 - kp : kp;
                    s->list[at] = (k * ny + j) * nx + i;
                    s->list[L + at] = j + ny * k;
                    s->list[2 * L + at] = i + nx * k;
                    s->list[3 * L + at] = i + nx * j;
                    at++;
                }
        }
    s->doff[SNAP_NOCT * s->ndiag] = at;
}

static int snap_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    struct snap *s = (struct snap *)w;
    static const char *const nk[] = {"nx", "ny", "nz"};
    for (unsigned i = 0; i < 3; i++)
        s->n[i] = (uint32_t)cfg_uint(sec, nk[i]);
    s->ng = (uint32_t)cfg_uint(sec, "ng");
    s->nang = (uint32_t)cfg_uint(sec, "nang");
    uint32_t nmom = (uint32_t)cfg_uint(sec, "nmom");
    s->cmom = nmom * nmom;
    s->iterations = (uint32_t)cfg_uint(sec, "iterations");
    uint64_t ncell = (uint64_t)s->n[0] * s->n[1] * s->n[2];
    uint64_t psi = SNAP_NOCT * ncell * s->ng * s->nang * 8;
    if (ncell > (1u << 24) || psi > (64ull << 30))
        return cfg_err(e, sec, "ng", "%llu cells, %llu bytes of angular flux: at most 2^24 "
                       "cells and 64 GiB", (unsigned long long)ncell, (unsigned long long)psi);
    if (s->cmom > s->nang)
        return cfg_err(e, sec, "nmom", "%u moments need as many threads: nang is %u", s->cmom,
                       s->nang);
    s->ncell = (uint32_t)ncell;
    s->ndiag = s->n[0] + s->n[1] + s->n[2] - 2;
    snap_lists(s);
    uint64_t gc = (uint64_t)s->ng * ncell * 8, fa = (uint64_t)s->ng * s->nang * 8;
    const char *const names[B_N] = {"dlist", "t_xs", "qtot", "ec", "angles", "psii", "psij",
                                    "psik", "ptr_in", "ptr_out", "flux", "fluxm", "qi", "slgg"};
    const uint64_t size[B_N] = {4ull * 4 * SNAP_NOCT * ncell, gc, gc * s->cmom,
                                SNAP_NOCT * s->cmom * s->nang * 8ull, 4 * s->nang * 8ull,
                                fa * s->n[1] * s->n[2], fa * s->n[0] * s->n[2],
                                fa * s->n[0] * s->n[1], psi, psi, gc,
                                gc * (s->cmom > 1 ? s->cmom - 1 : 1), gc,
                                (uint64_t)s->cmom * s->ng * s->ng * 8};
    for (unsigned i = 0; i < B_N; i++)
        s->bufs[i] = wl_alloc(w->env, names[i], size[i]);
    return 0;
}

/* dim3_sweep over diagonal d of octant o. */
static void snap_sweep(const struct snap *s, uint32_t o, uint32_t d, struct kdw_launch *l)
{
    uint32_t L = SNAP_NOCT * s->ncell, at = s->doff[o * s->ndiag + d];
    l->prog = K_SWEEP;
    l->grid = (struct kernel_dim){s->doff[o * s->ndiag + d + 1] - at, s->ng, 1};
    l->block = (struct kernel_dim){s->nang, 1, 1};
    int64_t pv[] = {at, o, s->ncell, s->nang, s->cmom, s->ng,
                    (int64_t)s->n[1] * s->n[2], (int64_t)s->n[0] * s->n[2],
                    (int64_t)s->n[0] * s->n[1], (s->cmom - 1) / 4, s->nang / 4, L};
    memcpy(l->params, pv, sizeof pv);
    static const unsigned b[] = {B_DLIST, B_TXS, B_QTOT, B_EC, B_ANG, B_PSII, B_PSIJ, B_PSIK,
                                 B_PIN, B_POUT, B_FLUX, B_FLUXM};
    for (unsigned i = 0; i < 12; i++)
        l->bufs[i] = s->bufs[b[i]];
    for (unsigned r = 0; r < 4; r++)
        l->arrays[r] = (struct kd_array){s->list + (uint64_t)r * L, L};
    l->lds_b = s->nang * 8;
}

/* An element-wise launch of kernel prog over n threads. */
static void snap_flat(struct kdw_launch *l, unsigned prog, uint64_t n)
{
    l->prog = prog;
    l->grid = (struct kernel_dim){(uint32_t)div_ceil(n ? n : 1, SNAP_BLOCK), 1, 1};
    l->block = (struct kernel_dim){SNAP_BLOCK, 1, 1};
}

static void snap_other(const struct snap *s, unsigned k, struct kdw_launch *l)
{
    uint64_t gc = (uint64_t)s->ng * s->ncell, fa = (uint64_t)s->ng * s->nang;
    if (k == K_SRC) {
        snap_flat(l, K_SRC, s->ncell);
        l->grid.y = s->ng;
        int64_t pv[] = {s->ncell, s->ng, s->cmom, s->ng / 4};
        memcpy(l->params, pv, sizeof pv);
        const unsigned b[] = {B_QI, B_FLUX, B_FLUXM, B_SLGG, B_QTOT};
        for (unsigned i = 0; i < 5; i++)
            l->bufs[i] = s->bufs[b[i]];
    } else if (k == K_ZERO) {
        snap_flat(l, K_ZERO, gc * (s->cmom > 1 ? s->cmom - 1 : 1));
        l->params[0] = (int64_t)gc;
        l->params[1] = (int64_t)(s->cmom > 1 ? gc * (s->cmom - 1) : 0);
        l->bufs[0] = s->bufs[B_FLUX];
        l->bufs[1] = s->bufs[B_FLUXM];
    } else {
        uint64_t ni = fa * s->n[1] * s->n[2], nj = fa * s->n[0] * s->n[2];
        uint64_t nk = fa * s->n[0] * s->n[1];
        snap_flat(l, K_INIT, max_u64(ni, max_u64(nj, nk)));
        int64_t pv[] = {(int64_t)ni, (int64_t)nj, (int64_t)nk};
        memcpy(l->params, pv, sizeof pv);
        for (unsigned i = 0; i < 3; i++)
            l->bufs[i] = s->bufs[B_PSII + i];
    }
}

/* Per inner iteration: inner_src, flux_zero, then per octant sweep_init
 * and its diagonals. */
static bool snap_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct snap *s = (const struct snap *)w;
    uint64_t per = 2 + SNAP_NOCT * (1ull + s->ndiag);
    if (i >= per * s->iterations)
        return false;
    uint64_t j = i % per;
    if (j < 2) {
        snap_other(s, j ? K_ZERO : K_SRC, l);
        return true;
    }
    uint32_t o = (uint32_t)((j - 2) / (1 + s->ndiag)), d = (uint32_t)((j - 2) % (1 + s->ndiag));
    if (d == 0)
        snap_other(s, K_INIT, l);
    else
        snap_sweep(s, o, d - 1, l);
    return true;
}

static uint64_t snap_count(const struct kdw *w)
{
    const struct snap *s = (const struct snap *)w;
    return (2 + SNAP_NOCT * (1ull + s->ndiag)) * s->iterations;
}

static void snap_release(struct kdw *w)
{
    struct snap *s = (struct snap *)w;
    free(s->list);
    free(s->doff);
}

static const struct kd_desc *const snap_descs[] = {&snap_sweep_kd, &snap_src_kd, &snap_init_kd,
                                                   &snap_zero_kd, NULL};
static const struct kdw_model snap_model = {.size = sizeof(struct snap), .descs = snap_descs,
                                            .setup = snap_setup, .plan = snap_plan,
                                            .count = snap_count, .release = snap_release};

static void *snap_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&snap_model, env, sec, e);
}

static const char *const snap_small[] = {"nx=2", "ny=2", "nz=2", "ng=1", "nang=8", "nmom=2",
                                         NULL};

const struct wl_ops wl_snap = {
    .name = "snap",
    .suite = "HPC",
    .desc = "SNAP transport sweep: 8 octants, a launch per diagonal wavefront, a work-group per "
            "cell and group, upstream faces in place (32^3 cells, 16 groups, 48 angles; "
            "substitute for HMG's snap)",
    .keys = snap_keys,
    .small = snap_small,
    .create = snap_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
    .kernels = kdw_kernels,
};
