/*
 * comd.c -- substitute for HMG's "HPC_CoMD-xyz49" (spec hmg.md 8: 313 MB):
 * CoMD 1.1's classical molecular dynamics (ExMatEx) with the EAM potential
 * on an FCC copper lattice of x * y * z unit cells (49^3: 470,596 atoms),
 * as the CUDA port lays it out: atoms in link cells ("boxes", at least the
 * cutoff wide, N_MAX_ATOMS = 64 slots each), structure-of-arrays doubles,
 * 27 neighbour boxes per box. One time step is velocity Verlet: half kick,
 * drift, the EAM force in three passes (pair term and density; embedding;
 * embedding force from both atoms' derivatives), half kick.
 *
 * The force passes are one work-group per box, one thread per slot: per
 * neighbour box the work-group stages its atoms' positions (and, in pass 3,
 * embedding derivatives) in LDS, then each atom loops over them (CoMD-CUDA's
 * box-per-CTA methods). The lattice is built on the host (with CoMD's
 * random displacement, from sim.seed) and binned into boxes; the counts and
 * the neighbour lists are the arrays the kernels' bounds read. ALU counts
 * from nvcc 13 -arch=sm_90 PTX (docs/workloads/comd.md). Abstracted: every
 * pair is taken inside the cutoff (a warp almost always has a lane that is);
 * the potential tables are read at the neighbour shells' entries; atoms stay
 * in their boxes (no redistribution) and periodic images are read in place
 * (no halo exchange kernels).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "workload/kdw.h"

#define COMD_SLOTS 64    /* CoMD-CUDA's N_MAX_ATOMS */
#define COMD_LAT 3.615   /* Cu lattice constant (Angstrom) */
#define COMD_CUT 4.95    /* Cu_u6.eam cutoff (Angstrom) */
#define COMD_TAB 503     /* Cu_u6.eam's 500 points + CoMD's 3 extra */

static const struct cfg_key comd_keys[] = {
    {"x", CFG_INT, "49", 2, 128, "unit cells along x (CoMD -x)", NULL},
    {"y", CFG_INT, "49", 2, 128, "unit cells along y (CoMD -y)", NULL},
    {"z", CFG_INT, "49", 2, 128, "unit cells along z (CoMD -z)", NULL},
    {"delta", CFG_INT, "0", 0, 20,
     "largest random displacement of an atom, percent of the lattice constant (CoMD -d)", NULL},
    {"steps", CFG_INT, "1", 1, 1000, "time steps (6 kernels each)", NULL},
    CFG_END,
};

/* advance_velocity (p += dt f) and advance_position (r += dt p / m): one
 * thread per slot of box bx, the atoms' slots below nat[bx]. */
#define C_XYZ(f, g, a)                                                                       \
    "  load " f "x[bx*64 + tx] 8 -> r2\n  alu 1\n  load " g "x[bx*64 + tx] 8 -> r3\n  alu " a \
    " < r2 r3\n  store " g "x[bx*64 + tx] 8 < r3\n  alu 1\n"                                 \
    "  load " f "y[bx*64 + tx] 8 -> r2\n  alu 1\n  load " g "y[bx*64 + tx] 8 -> r3\n  alu " a \
    " < r2 r3\n  store " g "y[bx*64 + tx] 8 < r3\n  alu 1\n"                                 \
    "  load " f "z[bx*64 + tx] 8 -> r2\n  alu 1\n  load " g "z[bx*64 + tx] 8 -> r3\n  alu " a \
    " < r2 r3\n  store " g "z[bx*64 + tx] 8 < r3\n"
static const struct kd_desc comd_vel_kd = {
    .name = "advance_velocity",
    .bufs = (const char *const[]){"nat", "px", "py", "pz", "fx", "fy", "fz", NULL},
    .arrays = (const char *const[]){"n", NULL},
    .body = "alu 11\n"
            "load nat[bx] 4 -> r1\n"
            "alu 3 + 4 [tx < @n[bx]]\n"
            "if tx < @n[bx]\n" C_XYZ("f", "p", "1") "end\n",
};
static const struct kd_desc comd_pos_kd = {
    .name = "advance_position",
    .bufs = (const char *const[]){"nat", "sp", "mass", "px", "py", "pz", "rx", "ry", "rz", NULL},
    .arrays = (const char *const[]){"n", NULL},
    .body = "alu 13\n"
            "load nat[bx] 4 -> r1\n"
            "alu 3 + 4 [tx < @n[bx]]\n"
            "if tx < @n[bx]\n"
            "  load sp[bx*64 + tx] 4 -> r4\n"
            "  alu 2 < r4\n"
            "  load mass[0] 8 -> r5\n"
            "  alu 3 < r5\n" C_XYZ("p", "r", "1") "end\n",
};

/* A neighbour shell's table entries tt[K - 1 .. K + 2] in the order the
 * compiled code loads them (K - 1, K + 1, K, K + 2; pass 1's density
 * without K + 2, whose derivative it does not use). */
#define C_SHELL "(ts + ((tx + m1) % 3)*tstep)"
#define C_TAB4(t, a)                                                                         \
    "      load " t "[" C_SHELL " - 1] 8 -> r10\n      load " t "[" C_SHELL " + 1] 8 -> r11\n" \
    "      alu 1\n      load " t "[" C_SHELL "] 8 -> r12\n      load " t "[" C_SHELL         \
    " + 2] 8 -> r13\n      alu " a " < r10 r11 r12 r13\n"
/* Per neighbour box m0: its index and count, the staging of its atoms'
 * positions (and `more`) into LDS between two barriers, then per atom of
 * it: the three LDS reads, the cutoff test (8), `pair` (the pair's work
 * with the tables) and the loop's end (`loop`); the neighbour loop's end
 * (3), and after it the exit test (4). */
#define C_NEIGH(stage, more, pair, loop)                                                     \
    "for m0 = 0 .. 27\n"                                                                     \
    "  alu 4\n"                                                                              \
    "  load nbr[bx*27 + m0] 4 -> r20\n"                                                     \
    "  alu 2 < r20\n"                                                                        \
    "  load nat[@nbr[bx*27 + m0]] 4 -> r21\n"                                               \
    "  barrier\n"                                                                            \
    "  alu 2 + 4 [tx < @nn[bx*27 + m0]]\n"                                                  \
    "  if tx < @nn[bx*27 + m0]\n"                                                           \
    "    load rx[@nbr[bx*27 + m0]*64 + tx] 8 -> r22\n    lds_store lds[tx] 8 < r22\n"       \
    "    alu 1\n"                                                                            \
    "    load ry[@nbr[bx*27 + m0]*64 + tx] 8 -> r22\n    lds_store lds[64 + tx] 8 < r22\n"  \
    "    alu 1\n"                                                                            \
    "    load rz[@nbr[bx*27 + m0]*64 + tx] 8 -> r22\n    lds_store lds[128 + tx] 8 < r22\n" \
    more "  end\n"                                                                           \
    "  barrier\n"                                                                            \
    "  alu 3 + " stage " [tx < @n[bx]]\n"                                                   \
    "  if tx < @n[bx]\n"                                                                    \
    "    for m1 = 0 .. @nn[bx*27 + m0]\n"                                                   \
    "      alu 2\n      lds_load lds[m1] 8 -> r6\n      alu 1\n"                            \
    "      lds_load lds[64 + m1] 8 -> r7\n      alu 1\n      lds_load lds[128 + m1] 8 -> r8\n" \
    "      alu 8 < r6 r7 r8\n" pair "      alu " loop "\n"                                   \
    "    end\n"                                                                              \
    "  end\n"                                                                                \
    "  alu 3\n"                                                                              \
    "end\n"                                                                                  \
    "alu 4\n"
static const char *const comd_eam_params[] = {"ts", "tstep", NULL};

/* Pass 1: the pair term and the density (tables phi and rho). */
static const struct kd_desc comd_eam1_kd = {
    .name = "eam_force_1",
    .params = comd_eam_params,
    .bufs = (const char *const[]){"nat", "nbr", "rx", "ry", "rz", "fx", "fy", "fz", "e", "rho",
                                  "tphi", "trho", NULL},
    .arrays = (const char *const[]){"n", "nbr", "nn", NULL},
    .range_reads = true,
    .arrays_fixed = true,
    .body = "alu 15\n"
            "load nat[bx] 4 -> r1\n"
            "alu 6 + 2 [tx < @n[bx]]\n"
            "if tx < @n[bx]\n"
            "  load rx[bx*64 + tx] 8 -> r2\n  alu 1\n  load ry[bx*64 + tx] 8 -> r3\n  alu 1\n"
            "  load rz[bx*64 + tx] 8 -> r4\n"
            "end\n"
            "alu 15\n" C_NEIGH("4", "", "      alu 16\n" C_TAB4("tphi", "14")
                                           "      load trho[" C_SHELL " - 1] 8 -> r14\n"
                                           "      load trho[" C_SHELL " + 1] 8 -> r15\n"
                                           "      alu 4\n"
                                           "      load trho[" C_SHELL "] 8 -> r16\n"
                                           "      alu 15 < r14 r15 r16\n",
                               "6")
            "if tx < @n[bx]\n"
            "  alu 11\n"
            "  store fx[bx*64 + tx] 8\n  alu 1\n  store fy[bx*64 + tx] 8\n  alu 1\n"
            "  store fz[bx*64 + tx] 8\n  alu 2\n  store e[bx*64 + tx] 8\n  alu 1\n"
            "  store rho[bx*64 + tx] 8\n"
            "end\n",
};

/* Pass 2: the embedding energy and its derivative from the density. */
static const struct kd_desc comd_eam2_kd = {
    .name = "eam_force_2",
    .params = (const char *const[]){"fi", NULL},
    .bufs = (const char *const[]){"nat", "e", "rho", "df", "tf", NULL},
    .arrays = (const char *const[]){"n", NULL},
    .body = "alu 11\n"
            "load nat[bx] 4 -> r1\n"
            "alu 3 + 5 [tx < @n[bx]]\n"
            "if tx < @n[bx]\n"
            "  load rho[bx*64 + tx] 8 -> r2\n"
            "  alu 11 < r2\n"
            "  load tf[fi - 1] 8 -> r3\n  load tf[fi + 1] 8 -> r4\n  alu 1\n"
            "  load tf[fi] 8 -> r5\n  load tf[fi + 2] 8 -> r6\n"
            "  alu 14 < r3 r4 r5 r6\n"
            "  store df[bx*64 + tx] 8\n"
            "  alu 1\n"
            "  load e[bx*64 + tx] 8 -> r7\n"
            "  alu 1 < r7\n"
            "  store e[bx*64 + tx] 8 < r7\n"
            "end\n",
};

/* Pass 3: the embedding force, (dF_i + dF_j) drho_ij, added to the force. */
static const struct kd_desc comd_eam3_kd = {
    .name = "eam_force_3",
    .params = comd_eam_params,
    .bufs = (const char *const[]){"nat", "nbr", "rx", "ry", "rz", "fx", "fy", "fz", "df", "trho",
                                  NULL},
    .arrays = (const char *const[]){"n", "nbr", "nn", NULL},
    .range_reads = true,
    .arrays_fixed = true,
    .body = "alu 18\n"
            "load nat[bx] 4 -> r1\n"
            "alu 13\n"
            "if tx < @n[bx]\n"
            "  load fx[bx*64 + tx] 8 -> r2\n  load fy[bx*64 + tx] 8 -> r3\n"
            "  load fz[bx*64 + tx] 8 -> r4\n  alu 1\n  load df[bx*64 + tx] 8 -> r5\n  alu 1\n"
            "  load rx[bx*64 + tx] 8 -> r2\n  alu 1\n  load ry[bx*64 + tx] 8 -> r3\n  alu 1\n"
            "  load rz[bx*64 + tx] 8 -> r4\n"
            "end\n"
            "alu 13\n" C_NEIGH("5", "    alu 1\n    load df[@nbr[bx*27 + m0]*64 + tx] 8 -> r22\n"
                                    "    lds_store lds[192 + tx] 8 < r22\n",
                               "      alu 13\n" C_TAB4("trho", "6")
                               "      lds_load lds[192 + m1] 8 -> r9\n      alu 9 < r9\n",
                               "7")
            "if tx < @n[bx]\n"
            "  alu 11\n"
            "  store fx[bx*64 + tx] 8\n  store fy[bx*64 + tx] 8\n  store fz[bx*64 + tx] 8\n"
            "end\n",
};

enum { K_VEL, K_POS, K_EAM1, K_EAM2, K_EAM3 };
enum { B_NAT, B_NBR, B_SP, B_MASS, B_RX, B_RY, B_RZ, B_PX, B_PY, B_PZ, B_FX, B_FY, B_FZ,
       B_E, B_RHO, B_DF, B_TPHI, B_TRHO, B_TF, B_N };

struct comd {
    struct kdw w;
    uint32_t nb[3], boxes, steps;
    uint32_t *nat;      /* [boxes]: atoms per box */
    uint32_t *nbr, *nn; /* [boxes * 27]: neighbour boxes and their counts */
    const struct kernel_buf *b[B_N];
};

/* The 27 neighbours of every box (dz, dy, dx from -1 to 1, periodic), in
 * CoMD's box order (x fastest), and their counts. */
static void comd_neighbours(struct comd *c)
{
    const uint32_t *n = c->nb;
    for (uint32_t b = 0; b < c->boxes; b++) {
        uint32_t ix = b % n[0], iy = b / n[0] % n[1], iz = b / n[0] / n[1], k = 0;
        for (int dz = -1; dz <= 1; dz++)
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++, k++) {
                    uint32_t jx = (ix + n[0] + (uint32_t)dx) % n[0];
                    uint32_t jy = (iy + n[1] + (uint32_t)dy) % n[1];
                    uint32_t jz = (iz + n[2] + (uint32_t)dz) % n[2];
                    uint32_t j = jx + n[0] * (jy + n[1] * jz);
                    c->nbr[b * 27 + k] = j;
                    c->nn[b * 27 + k] = c->nat[j];
                }
    }
}

/* The box of one coordinate (periodic). */
static uint32_t comd_bin(double pos, double len, uint32_t nb)
{
    double span = len * nb;
    pos = fmod(fmod(pos, span) + span, span);
    uint32_t i = (uint32_t)(pos / len);
    return i < nb ? i : nb - 1;
}

/* CoMD's FCC lattice, each atom displaced by up to delta, binned into the
 * boxes; 0, or -1 when a box would hold more than its 64 slots. */
static int comd_lattice(struct comd *c, const uint32_t *cells, uint32_t delta, struct err *e,
                        const struct cfg_sec *sec)
{
    static const double basis[4][3] = {{0.25, 0.25, 0.25}, {0.25, 0.75, 0.75},
                                       {0.75, 0.25, 0.75}, {0.75, 0.75, 0.25}};
    double len[3];
    for (unsigned d = 0; d < 3; d++)
        len[d] = cells[d] * COMD_LAT / c->nb[d];
    struct rng g;
    rng_seed(&g, c->w.env->seed);
    for (uint32_t k = 0; k < cells[0] * cells[1] * cells[2]; k++)
        for (unsigned a = 0; a < 4; a++) {
            uint32_t cell[3] = {k % cells[0], k / cells[0] % cells[1], k / cells[0] / cells[1]};
            uint32_t box = 0;
            for (int d = 2; d >= 0; d--) {
                double off = delta ? (2 * rng_unit(&g) - 1) * delta / 100.0 : 0;
                double pos = (cell[d] + basis[a][d] + off) * COMD_LAT;
                box = box * c->nb[d] + comd_bin(pos, len[d], c->nb[d]);
            }
            if (++c->nat[box] > COMD_SLOTS)
                return cfg_err(e, sec, "delta", "box %u holds more than %d atoms", box,
                               COMD_SLOTS);
        }
    return 0;
}

static void comd_alloc(struct comd *c)
{
    static const char *const names[B_N] = {"nat", "nbr", "sp", "mass", "rx", "ry", "rz", "px",
                                           "py", "pz", "fx", "fy", "fz", "e", "rho", "df",
                                           "tphi", "trho", "tf"};
    uint64_t slots = (uint64_t)c->boxes * COMD_SLOTS;
    for (unsigned i = 0; i < B_N; i++) {
        uint64_t size = i >= B_TPHI ? COMD_TAB * 8 : i == B_MASS ? 8 : slots * 8;
        if (i == B_NAT)
            size = (uint64_t)c->boxes * 4;
        else if (i == B_NBR)
            size = (uint64_t)c->boxes * 27 * 4;
        else if (i == B_SP)
            size = slots * 4;
        c->b[i] = wl_alloc(c->w.env, names[i], size);
    }
}

static int comd_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    struct comd *c = (struct comd *)w;
    static const char *const keys[] = {"x", "y", "z"};
    uint32_t cells[3];
    c->boxes = 1;
    for (unsigned d = 0; d < 3; d++) {
        cells[d] = (uint32_t)cfg_uint(sec, keys[d]);
        c->nb[d] = (uint32_t)(cells[d] * COMD_LAT / COMD_CUT);
        if (!c->nb[d])
            return cfg_err(e, sec, keys[d], "%u unit cells are narrower than the cutoff "
                           "(%.2f A)", cells[d], COMD_CUT);
        c->boxes *= c->nb[d];
    }
    c->steps = (uint32_t)cfg_uint(sec, "steps");
    c->nat = xcalloc(c->boxes, sizeof *c->nat);
    c->nbr = xmalloc((size_t)c->boxes * 27 * sizeof *c->nbr);
    c->nn = xmalloc((size_t)c->boxes * 27 * sizeof *c->nn);
    if (comd_lattice(c, cells, (uint32_t)cfg_uint(sec, "delta"), e, sec))
        return -1;
    comd_neighbours(c);
    comd_alloc(c);
    return 0;
}

/* Launch k of a step: half kick, drift, the three EAM passes, half kick. */
static const struct {
    unsigned prog, lds_b;
    signed char bufs[13];
} comd_launches[6] = {
    {K_VEL, 0, {B_NAT, B_PX, B_PY, B_PZ, B_FX, B_FY, B_FZ, -1}},
    {K_POS, 0, {B_NAT, B_SP, B_MASS, B_PX, B_PY, B_PZ, B_RX, B_RY, B_RZ, -1}},
    {K_EAM1, 3 * 64 * 8,
     {B_NAT, B_NBR, B_RX, B_RY, B_RZ, B_FX, B_FY, B_FZ, B_E, B_RHO, B_TPHI, B_TRHO, -1}},
    {K_EAM2, 0, {B_NAT, B_E, B_RHO, B_DF, B_TF, -1}},
    {K_EAM3, 4 * 64 * 8, {B_NAT, B_NBR, B_RX, B_RY, B_RZ, B_FX, B_FY, B_FZ, B_DF, B_TRHO, -1}},
    {K_VEL, 0, {B_NAT, B_PX, B_PY, B_PZ, B_FX, B_FY, B_FZ, -1}},
};

/* Cu_u6.eam's grid is 0.01 A: the FCC shells inside the cutoff (2.56, 3.62,
 * 4.43 A) are near entries 256 + 93 k; the perfect lattice's one density
 * sits at embedding entry 250 (a placeholder: no values). */
static bool comd_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct comd *c = (const struct comd *)w;
    if (i >= 6ull * c->steps)
        return false;
    unsigned k = (unsigned)(i % 6), p = comd_launches[k].prog;
    *l = (struct kdw_launch){.prog = p, .grid = {c->boxes, 1, 1}, .block = {COMD_SLOTS, 1, 1},
                             .lds_b = comd_launches[k].lds_b,
                             .arrays = {{c->nat, c->boxes},
                                        {c->nbr, (uint64_t)c->boxes * 27},
                                        {c->nn, (uint64_t)c->boxes * 27}}};
    for (unsigned a = 0; comd_launches[k].bufs[a] >= 0; a++)
        l->bufs[a] = c->b[comd_launches[k].bufs[a]];
    l->params[0] = p == K_EAM2 ? 250 : 256;
    l->params[1] = 93;
    return true;
}

static uint64_t comd_count(const struct kdw *w)
{
    return 6ull * ((const struct comd *)w)->steps;
}

static void comd_release(struct kdw *w)
{
    struct comd *c = (struct comd *)w;
    free(c->nat);
    free(c->nbr);
    free(c->nn);
}

static const struct kd_desc *const comd_descs[] = {&comd_vel_kd, &comd_pos_kd, &comd_eam1_kd,
                                                   &comd_eam2_kd, &comd_eam3_kd, NULL};
static const struct kdw_model comd_model = {.size = sizeof(struct comd), .descs = comd_descs,
                                            .setup = comd_setup, .plan = comd_plan,
                                            .count = comd_count, .release = comd_release};

static void *comd_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&comd_model, env, sec, e);
}

static const char *const comd_small[] = {"x=2", "y=2", "z=3", NULL};

const struct wl_ops wl_comd = {
    .name = "comd",
    .suite = "HPC",
    .desc = "CoMD EAM molecular dynamics on link cells: three force passes reading the 27 "
            "neighbour boxes, velocity Verlet (HMG CoMD-xyz49; substitute)",
    .keys = comd_keys,
    .small = comd_small,
    .create = comd_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
    .kernels = kdw_kernels,
};
