/*
 * lulesh.c -- LULESH 1.0 (CORAL-2 / LLNL proxy app), the HIP/CUDA port with
 * one GPU kernel per loop of LagrangeLeapFrog: Sedov blast on a cube of
 * size^3 hexahedral elements and (size+1)^3 nodes. Table II "1.0e-2 10" is
 * read as stop time 1.0e-2 and at most 10 time steps, on LULESH 1.0's
 * default 45^3 mesh (docs/workloads/lulesh.md).
 *
 * Modelled: the real mesh connectivity (nodelist, the six face-neighbour
 * lists, the symmetry-plane node lists, the node-to-element-corner lists)
 * is built in create(); per time step 29 kernels (nodal forces with
 * hourglass control, the nodal update, kinematics, the monotonic Q, the
 * equation of state in its staged kernels, the volume update and the two
 * time constraints with LDS min-reductions) gather nodes through nodelist,
 * scatter corner forces through per-element-corner arrays and gather them
 * back per node through the corner lists. Per-element and per-node arrays
 * indexed by the thread's own item carry exact per-work-group ranges;
 * arrays reached through connectivity are declared without ranges.
 * Abstracted: no data values (so no physics: the step count comes from the
 * iteration cap and the fastest dt growth LULESH allows); ALU counts are
 * estimates of each loop body, given with the tables.
 */
#include <stdlib.h>

#include "workload/coral2/mk.h"

static const struct cfg_key lulesh_keys[] = {
    {"stoptime", CFG_FLOAT, "1.0e-2", 1e-12, 1e6, "simulated stop time (first argument)", NULL},
    {"iterations", CFG_INT, "10", 1, 1000000, "maximum time steps (second argument)", NULL},
    {"size", CFG_INT, "45", 1, 400, "elements per cube edge (edgeElems of LULESH 1.0)", NULL},
    {"block", CFG_INT, "256", 64, 1024, "threads per work-group of every kernel", NULL},
    CFG_END,
};

/* Buffer slots, created in this order. */
enum {
    /* nodes */
    B_X, B_Y, B_Z, B_XD, B_YD, B_ZD, B_XDD, B_YDD, B_ZDD, B_FX, B_FY, B_FZ, B_NMASS,
    B_NECOUNT, B_NESTART, B_NECORNER,
    /* symmetry planes */
    B_SYMMX, B_SYMMY, B_SYMMZ,
    /* elements */
    B_NODELIST, B_LXIM, B_ELEMBC, /* B_LXIM: lxim, lxip, letam, letap, lzetam, lzetap */
    B_DXX, B_DYY, B_DZZ, B_DELV_XI, B_DELV_ETA, B_DELV_ZETA, B_DELX_XI, B_DELX_ETA, B_DELX_ZETA,
    B_E, B_P, B_Q, B_QL, B_QQ, B_V, B_VOLO, B_VNEW, B_DELV, B_VDOV, B_AREALG, B_SS, B_EMASS,
    /* GPU temporaries */
    B_SIGXX, B_SIGYY, B_SIGZZ, B_DETERM, B_FXE, B_FYE, B_FZE,
    B_DVDX, B_DVDY, B_DVDZ, B_X8N, B_Y8N, B_Z8N,
    B_VNEWC, B_EOLD, B_DELVC, B_POLD, B_QOLD, B_COMPR, B_COMPH, B_QQOLD, B_QLOLD, B_WORK,
    B_ENEW, B_PNEW, B_QNEW, B_BVC, B_PBVC, B_PHALF,
    B_DTCOUR, B_DTHYDRO,
    B_LDS, NBUF
};
/* Map and list slots. */
enum { M_NL, M_LXIM, M_LXIP, M_LETAM, M_LETAP, M_LZETAM, M_LZETAP, M_SYMMX, M_SYMMY, M_SYMMZ };
enum { L_CORNERS };

#define ALU(n_) {.kind = KOP_ALU, .n = (n_)}
#define ALU2(n_, a, b) {.kind = KOP_ALU, .n = (n_), .src0 = (a), .src1 = (b)}
#define LD(b, d) {.kind = KOP_LOAD, .buf = (b), .ix = MK_ITEM, .dst = (d)}
#define ST(b, s) {.kind = KOP_STORE, .buf = (b), .ix = MK_ITEM, .src0 = (s)}
#define LDJ(b, d) {.kind = KOP_LOAD, .buf = (b), .ix = MK_ITEM, .flags = MK_J, .dst = (d)}
#define STJ(b, s) {.kind = KOP_STORE, .buf = (b), .ix = MK_ITEM, .flags = MK_J, .src0 = (s)}
/* x[nodelist[j * numElem + i]], waiting for the nodelist load in r1 */
#define LDN(b, d) \
    {.kind = KOP_LOAD, .buf = (b), .ix = MK_MAP, .map = M_NL, .flags = MK_J, .dst = (d), .src0 = 1}
#define LOOP(n_) {.kind = MK_LOOP, .n = (n_)}
#define LLOOP(l) {.kind = MK_LOOP, .map = (l)}
#define END {.kind = MK_END}
#define NSTEPS(a) (sizeof(a) / sizeof((a)[0]))

/* The eight nodes of the element: nodelist, then three node arrays. */
#define GATHER8(b1, b2, b3, d) \
    LOOP(8), LDJ(B_NODELIST, 1), LDN(b1, d), LDN(b2, d), LDN(b3, d), END

static const struct mk_step k_init_stress[] = {
    LD(B_P, 1), LD(B_Q, 2), ALU(2), ST(B_SIGXX, 0), ST(B_SIGYY, 0), ST(B_SIGZZ, 0),
};
/* CalcElemShapeFunctionDerivatives (~90 flops), CalcElemNodeNormals (6
 * faces x ~25), SumElemStressesToNodeForces (24): ~260 instructions. */
static const struct mk_step k_integrate_stress[] = {
    GATHER8(B_X, B_Y, B_Z, 2), LD(B_SIGXX, 5), LD(B_SIGYY, 5), LD(B_SIGZZ, 5),
    ALU2(260, 2, 5), ST(B_DETERM, 0),
    LOOP(8), STJ(B_FXE, 0), STJ(B_FYE, 0), STJ(B_FZE, 0), END,
};
/* Sum of the node's corner forces: per corner the corner id, three loads
 * and three adds (3 instructions of loop control). */
/* the j-th entry of the node's corner list (.ix MK_LPOS: its position) */
#define LDC(b, ix_, d, s) \
    {.kind = KOP_LOAD, .buf = (b), .ix = (ix_), .map = L_CORNERS, .dst = (d), .src0 = (s)}
#define CORNER_GATHER                                                                   \
    LD(B_NECOUNT, 1), LD(B_NESTART, 2), LLOOP(L_CORNERS), LDC(B_NECORNER, MK_LPOS, 3, 2), \
        LDC(B_FXE, MK_LIST, 4, 3), LDC(B_FYE, MK_LIST, 4, 3), LDC(B_FZE, MK_LIST, 4, 3),  \
        ALU2(6, 4, 0), END
static const struct mk_step k_add_forces[] = {
    CORNER_GATHER, ST(B_FX, 0), ST(B_FY, 0), ST(B_FZ, 0),
};
static const struct mk_step k_add_forces2[] = {
    LD(B_FX, 5), LD(B_FY, 5), LD(B_FZ, 5), CORNER_GATHER,
    ALU2(3, 5, 0), ST(B_FX, 0), ST(B_FY, 0), ST(B_FZ, 0),
};
/* CalcElemVolumeDerivative: 8 nodes x 3 components x ~12 flops = ~290. */
static const struct mk_step k_hourglass_control[] = {
    GATHER8(B_X, B_Y, B_Z, 2), LD(B_VOLO, 5), LD(B_V, 5), ALU2(290, 2, 5),
    LOOP(8), STJ(B_DVDX, 0), STJ(B_DVDY, 0), STJ(B_DVDZ, 0), STJ(B_X8N, 0), STJ(B_Y8N, 0),
    STJ(B_Z8N, 0), END, ST(B_DETERM, 0),
};
/* CalcFBHourglassForceForElems: 4 hourglass modes (gamma 4x8), the
 * hourglass shape vectors (4 x 8 x 3), the forces (8 x 3 x 4): ~420. */
static const struct mk_step k_fb_hourglass[] = {
    LD(B_DETERM, 5), LD(B_SS, 5), LD(B_EMASS, 5),
    LOOP(8), LDJ(B_DVDX, 6), LDJ(B_DVDY, 6), LDJ(B_DVDZ, 6), LDJ(B_X8N, 6), LDJ(B_Y8N, 6),
    LDJ(B_Z8N, 6), END,
    GATHER8(B_XD, B_YD, B_ZD, 2), ALU2(420, 2, 6),
    LOOP(8), STJ(B_FXE, 0), STJ(B_FYE, 0), STJ(B_FZE, 0), END,
};
/* three double divisions (~10 instructions each) */
static const struct mk_step k_accel[] = {
    LD(B_FX, 1), LD(B_FY, 1), LD(B_FZ, 1), LD(B_NMASS, 2), ALU2(30, 1, 2),
    ST(B_XDD, 0), ST(B_YDD, 0), ST(B_ZDD, 0),
};
static const struct mk_step k_accel_bc[] = {
    LD(B_SYMMX, 1), {.kind = KOP_STORE, .buf = B_XDD, .ix = MK_MAP, .map = M_SYMMX, .src0 = 1},
    LD(B_SYMMY, 2), {.kind = KOP_STORE, .buf = B_YDD, .ix = MK_MAP, .map = M_SYMMY, .src0 = 2},
    LD(B_SYMMZ, 3), {.kind = KOP_STORE, .buf = B_ZDD, .ix = MK_MAP, .map = M_SYMMZ, .src0 = 3},
};
/* xd += xdd * dt, and the u_cut test, per component */
static const struct mk_step k_velocity[] = {
    LD(B_XD, 1), LD(B_YD, 1), LD(B_ZD, 1), LD(B_XDD, 2), LD(B_YDD, 2), LD(B_ZDD, 2),
    ALU2(12, 1, 2), ST(B_XD, 0), ST(B_YD, 0), ST(B_ZD, 0),
};
static const struct mk_step k_position[] = {
    LD(B_X, 1), LD(B_Y, 1), LD(B_Z, 1), LD(B_XD, 2), LD(B_YD, 2), LD(B_ZD, 2),
    ALU2(3, 1, 2), ST(B_X, 0), ST(B_Y, 0), ST(B_Z, 0),
};
/* CalcElemVolume (~110), CalcElemCharacteristicLength (~90), the half-step
 * node positions (48), shape derivatives (~90), velocity gradient (~60). */
static const struct mk_step k_kinematics[] = {
    GATHER8(B_X, B_Y, B_Z, 2), GATHER8(B_XD, B_YD, B_ZD, 3), LD(B_VOLO, 5), LD(B_V, 5),
    ALU2(400, 2, 3), ALU2(1, 5, 0),
    ST(B_VNEW, 0), ST(B_DELV, 0), ST(B_AREALG, 0), ST(B_DXX, 0), ST(B_DYY, 0), ST(B_DZZ, 0),
};
static const struct mk_step k_lagrange2[] = {
    LD(B_DXX, 1), LD(B_DYY, 1), LD(B_DZZ, 1), LD(B_VNEW, 2), ALU2(8, 1, 2),
    ST(B_VDOV, 0), ST(B_DXX, 0), ST(B_DYY, 0), ST(B_DZZ, 0),
};
/* three face-normal/velocity-difference pairs, ~70 flops each */
static const struct mk_step k_q_gradients[] = {
    GATHER8(B_X, B_Y, B_Z, 2), GATHER8(B_XD, B_YD, B_ZD, 3), LD(B_VOLO, 5), LD(B_VNEW, 5),
    ALU2(210, 2, 3), ALU2(1, 5, 0),
    ST(B_DELV_XI, 0), ST(B_DELV_ETA, 0), ST(B_DELV_ZETA, 0),
    ST(B_DELX_XI, 0), ST(B_DELX_ETA, 0), ST(B_DELX_ZETA, 0),
};
/* the neighbour's delv through lxim .. lzetap (boundary cases by elemBC),
 * then the monotonic limiter per direction: ~90 */
#define NEIGH(m, db)                                                                      \
    {.kind = KOP_LOAD, .buf = B_LXIM, .ix = MK_ITEM, .k = (m) - M_LXIM, .dst = 3},          \
        {.kind = KOP_LOAD, .buf = db, .ix = MK_MAP, .map = m, .dst = 4, .src0 = 3}
static const struct mk_step k_q_region[] = {
    LD(B_ELEMBC, 1), LD(B_DELV_XI, 2), LD(B_DELV_ETA, 2), LD(B_DELV_ZETA, 2),
    NEIGH(M_LXIM, B_DELV_XI), NEIGH(M_LXIP, B_DELV_XI), NEIGH(M_LETAM, B_DELV_ETA),
    NEIGH(M_LETAP, B_DELV_ETA), NEIGH(M_LZETAM, B_DELV_ZETA), NEIGH(M_LZETAP, B_DELV_ZETA),
    LD(B_DELX_XI, 5), LD(B_DELX_ETA, 5), LD(B_DELX_ZETA, 5), LD(B_VDOV, 6), LD(B_EMASS, 6),
    LD(B_VOLO, 6), LD(B_VNEW, 6), ALU2(90, 4, 6),
    ALU2(1, 5, 0),
    ST(B_QQ, 0), ST(B_QL, 0),
};
static const struct mk_step k_material[] = {
    LD(B_VNEW, 1), LD(B_V, 2), ALU2(6, 1, 2), ST(B_VNEWC, 0),
};
static const struct mk_step k_eos1[] = {
    LD(B_E, 1), LD(B_DELV, 1), LD(B_P, 1), LD(B_Q, 1), LD(B_QQ, 1), LD(B_QL, 1), LD(B_VNEWC, 2),
    ALU2(24, 1, 2), ST(B_EOLD, 0), ST(B_DELVC, 0), ST(B_POLD, 0),
    ST(B_QOLD, 0), ST(B_QQOLD, 0), ST(B_QLOLD, 0), ST(B_COMPR, 0), ST(B_COMPH, 0), ST(B_WORK, 0),
};
static const struct mk_step k_energy1[] = {
    LD(B_EOLD, 1), LD(B_DELVC, 1), LD(B_POLD, 1), LD(B_QOLD, 1), LD(B_WORK, 1),
    ALU2(8, 1, 0), ST(B_ENEW, 0),
};
/* CalcPressureForElems: bvc, pbvc, p = bvc * e, the cut-offs: ~14 */
static const struct mk_step k_pressure_half[] = {
    LD(B_ENEW, 1), LD(B_COMPH, 1), LD(B_VNEWC, 1), ALU2(14, 1, 0),
    ST(B_PHALF, 0), ST(B_BVC, 0), ST(B_PBVC, 0),
};
static const struct mk_step k_pressure[] = {
    LD(B_ENEW, 1), LD(B_COMPR, 1), LD(B_VNEWC, 1), ALU2(14, 1, 0),
    ST(B_PNEW, 0), ST(B_BVC, 0), ST(B_PBVC, 0),
};
/* the half-step sound speed (a sqrt, ~16) and q_new */
static const struct mk_step k_energy2[] = {
    LD(B_COMPH, 1), LD(B_DELVC, 1), LD(B_QQOLD, 1), LD(B_QLOLD, 1), LD(B_PBVC, 1), LD(B_BVC, 1),
    LD(B_PHALF, 1), LD(B_ENEW, 1), ALU2(34, 1, 0), ST(B_QNEW, 0), ST(B_ENEW,
    0),
};
static const struct mk_step k_energy3[] = {
    LD(B_ENEW, 1), LD(B_DELVC, 1), LD(B_POLD, 1), LD(B_QOLD, 1), LD(B_PHALF, 1), LD(B_QNEW, 1),
    ALU2(12, 1, 0), ST(B_ENEW, 0),
};
static const struct mk_step k_energy4[] = {
    LD(B_DELVC, 1), LD(B_PBVC, 1), LD(B_ENEW, 1), LD(B_VNEWC, 1), LD(B_BVC, 1), LD(B_PNEW, 1),
    LD(B_QLOLD, 1), LD(B_QQOLD, 1), LD(B_POLD, 1), LD(B_QOLD, 1), LD(B_PHALF, 1), LD(B_QNEW, 1),
    ALU2(44, 1, 0), ST(B_ENEW, 0),
};
static const struct mk_step k_energy5[] = {
    LD(B_DELVC, 1), LD(B_PBVC, 1), LD(B_ENEW, 1), LD(B_VNEWC, 1), LD(B_BVC, 1), LD(B_PNEW, 1),
    LD(B_QLOLD, 1), LD(B_QQOLD, 1), ALU2(34, 1, 0), ST(B_QNEW, 0),
};
static const struct mk_step k_eos2[] = {
    LD(B_PNEW, 1), LD(B_ENEW, 1), LD(B_QNEW, 1), ST(B_P, 1), ST(B_E, 1), ST(B_Q, 1),
};
static const struct mk_step k_sound_speed[] = {
    LD(B_VNEWC, 1), LD(B_ENEW, 1), LD(B_PNEW, 1), LD(B_PBVC, 1), LD(B_BVC, 1),
    ALU2(22, 1, 0), ST(B_SS, 0),
};
static const struct mk_step k_update_volumes[] = {
    LD(B_VNEW, 1), ALU2(3, 1, 0), ST(B_V, 0),
};
/* dtf = ss^2 + qqc2 * arealg^2 * vdov^2 (when vdov < 0), sqrt, division:
 * ~30; then the work-group's minimum in LDS and one value per work-group */
static const struct mk_step k_courant[] = {
    LD(B_SS, 1), LD(B_VDOV, 1), LD(B_AREALG, 1), ALU2(30, 1, 0),
    {.kind = KOP_LDS_STORE, .buf = B_LDS, .ix = MK_ITEM}, {.kind = MK_REDUCE, .buf = B_LDS},
    {.kind = KOP_LDS_LOAD, .buf = B_LDS, .ix = MK_WG, .dst = 2},
    {.kind = KOP_STORE, .buf = B_DTCOUR, .ix = MK_WG, .src0 = 2},
};
static const struct mk_step k_hydro[] = {
    LD(B_VDOV, 1), ALU2(12, 1, 0), {.kind = KOP_LDS_STORE, .buf = B_LDS,
    .ix = MK_ITEM},
    {.kind = MK_REDUCE, .buf = B_LDS}, {.kind = KOP_LDS_LOAD, .buf = B_LDS, .ix = MK_WG, .dst = 2},
    {.kind = KOP_STORE, .buf = B_DTHYDRO, .ix = MK_WG, .src0 = 2},
};

/* Per kernel: items (elements, nodes or symmetry-plane nodes) and arguments. */
enum { IT_ELEM, IT_NODE, IT_SYMM };
struct lk_def {
    const char *name;
    const struct mk_step *steps;
    unsigned nsteps, items;
    /* arguments: 1 + buffer slot (0 ends the list), mode, ranged; planes
     * come from the buffer */
    struct { uint8_t buf, mode, ranged; } args[16];
};
/* read with the work-group's range, read through connectivity (no range),
 * written with the range, written through connectivity */
#define RD(b) {1 + (b), KERNEL_R, 1}
#define RG(b) {1 + (b), KERNEL_R, 0}
#define WR(b) {1 + (b), KERNEL_RW, 1}
#define WG(b) {1 + (b), KERNEL_RW, 0}
#define K(nm, st, it) nm, st, NSTEPS(st), it

static const struct lk_def lk_defs[] = {
    {K("InitStressTermsForElems", k_init_stress, IT_ELEM),
     {RD(B_P), RD(B_Q), WR(B_SIGXX), WR(B_SIGYY), WR(B_SIGZZ)}},
    {K("IntegrateStressForElems", k_integrate_stress, IT_ELEM),
     {RD(B_NODELIST), RG(B_X), RG(B_Y), RG(B_Z), RD(B_SIGXX), RD(B_SIGYY), RD(B_SIGZZ),
      WR(B_DETERM), WR(B_FXE), WR(B_FYE), WR(B_FZE)}},
    {K("AddNodeForcesFromElems", k_add_forces, IT_NODE),
     {RD(B_NECOUNT), RD(B_NESTART), RG(B_NECORNER), RG(B_FXE), RG(B_FYE), RG(B_FZE), WR(B_FX),
      WR(B_FY), WR(B_FZ)}},
    {K("CalcHourglassControlForElems", k_hourglass_control, IT_ELEM),
     {RD(B_NODELIST), RG(B_X), RG(B_Y), RG(B_Z), RD(B_VOLO), RD(B_V), WR(B_DVDX), WR(B_DVDY),
      WR(B_DVDZ), WR(B_X8N), WR(B_Y8N), WR(B_Z8N), WR(B_DETERM)}},
    {K("CalcFBHourglassForceForElems", k_fb_hourglass, IT_ELEM),
     {RD(B_DETERM), RD(B_SS), RD(B_EMASS), RD(B_DVDX), RD(B_DVDY), RD(B_DVDZ), RD(B_X8N), RD(B_Y8N),
      RD(B_Z8N), RD(B_NODELIST), RG(B_XD), RG(B_YD), RG(B_ZD), WR(B_FXE), WR(B_FYE), WR(B_FZE)}},
    {K("AddNodeForcesFromElems2", k_add_forces2, IT_NODE),
     {RD(B_NECOUNT), RD(B_NESTART), RG(B_NECORNER), RG(B_FXE), RG(B_FYE), RG(B_FZE), WR(B_FX),
      WR(B_FY), WR(B_FZ)}},
    {K("CalcAccelerationForNodes", k_accel, IT_NODE),
     {RD(B_FX), RD(B_FY), RD(B_FZ), RD(B_NMASS), WR(B_XDD), WR(B_YDD), WR(B_ZDD)}},
    {K("ApplyAccelerationBoundaryConditionsForNodes", k_accel_bc, IT_SYMM),
     {RD(B_SYMMX), RD(B_SYMMY), RD(B_SYMMZ), WG(B_XDD), WG(B_YDD), WG(B_ZDD)}},
    {K("CalcVelocityForNodes", k_velocity, IT_NODE),
     {WR(B_XD), WR(B_YD), WR(B_ZD), RD(B_XDD), RD(B_YDD), RD(B_ZDD)}},
    {K("CalcPositionForNodes", k_position, IT_NODE),
     {WR(B_X), WR(B_Y), WR(B_Z), RD(B_XD), RD(B_YD), RD(B_ZD)}},
    {K("CalcKinematicsForElems", k_kinematics, IT_ELEM),
     {RD(B_NODELIST), RG(B_X), RG(B_Y), RG(B_Z), RG(B_XD), RG(B_YD), RG(B_ZD), RD(B_VOLO), RD(B_V),
      WR(B_VNEW), WR(B_DELV), WR(B_AREALG), WR(B_DXX), WR(B_DYY), WR(B_DZZ)}},
    {K("CalcLagrangeElementsPart2", k_lagrange2, IT_ELEM),
     {WR(B_DXX), WR(B_DYY), WR(B_DZZ), RD(B_VNEW), WR(B_VDOV)}},
    {K("CalcMonotonicQGradientsForElems", k_q_gradients, IT_ELEM),
     {RD(B_NODELIST), RG(B_X), RG(B_Y), RG(B_Z), RG(B_XD), RG(B_YD), RG(B_ZD), RD(B_VOLO),
      RD(B_VNEW), WR(B_DELV_XI), WR(B_DELV_ETA), WR(B_DELV_ZETA), WR(B_DELX_XI), WR(B_DELX_ETA),
      WR(B_DELX_ZETA)}},
    {K("CalcMonotonicQRegionForElems", k_q_region, IT_ELEM),
     {RD(B_ELEMBC), RG(B_DELV_XI), RG(B_DELV_ETA), RG(B_DELV_ZETA), RD(B_LXIM), RD(B_DELX_XI),
      RD(B_DELX_ETA), RD(B_DELX_ZETA), RD(B_VDOV), RD(B_EMASS), RD(B_VOLO), RD(B_VNEW), WR(B_QQ),
      WR(B_QL)}},
    {K("ApplyMaterialPropertiesForElems", k_material, IT_ELEM),
     {RD(B_VNEW), RD(B_V), WR(B_VNEWC)}},
    {K("EvalEOSForElemsPart1", k_eos1, IT_ELEM),
     {RD(B_E), RD(B_DELV), RD(B_P), RD(B_Q), RD(B_QQ), RD(B_QL), RD(B_VNEWC), WR(B_EOLD),
      WR(B_DELVC), WR(B_POLD), WR(B_QOLD), WR(B_QQOLD), WR(B_QLOLD), WR(B_COMPR), WR(B_COMPH),
      WR(B_WORK)}},
    {K("CalcEnergyForElemsPart1", k_energy1, IT_ELEM),
     {RD(B_EOLD), RD(B_DELVC), RD(B_POLD), RD(B_QOLD), RD(B_WORK), WR(B_ENEW)}},
    {K("CalcPressureForElemsHalfStep", k_pressure_half, IT_ELEM),
     {RD(B_ENEW), RD(B_COMPH), RD(B_VNEWC), WR(B_PHALF), WR(B_BVC), WR(B_PBVC)}},
    {K("CalcEnergyForElemsPart2", k_energy2, IT_ELEM),
     {RD(B_COMPH), RD(B_DELVC), RD(B_QQOLD), RD(B_QLOLD), RD(B_PBVC), RD(B_BVC), RD(B_PHALF),
      WR(B_ENEW), WR(B_QNEW)}},
    {K("CalcEnergyForElemsPart3", k_energy3, IT_ELEM),
     {WR(B_ENEW), RD(B_DELVC), RD(B_POLD), RD(B_QOLD), RD(B_PHALF), RD(B_QNEW)}},
    {K("CalcPressureForElems", k_pressure, IT_ELEM),
     {RD(B_ENEW), RD(B_COMPR), RD(B_VNEWC), WR(B_PNEW), WR(B_BVC), WR(B_PBVC)}},
    {K("CalcEnergyForElemsPart4", k_energy4, IT_ELEM),
     {RD(B_DELVC), RD(B_PBVC), WR(B_ENEW), RD(B_VNEWC), RD(B_BVC), RD(B_PNEW), RD(B_QLOLD),
      RD(B_QQOLD), RD(B_POLD), RD(B_QOLD), RD(B_PHALF), RD(B_QNEW)}},
    {K("CalcPressureForElems", k_pressure, IT_ELEM),
     {RD(B_ENEW), RD(B_COMPR), RD(B_VNEWC), WR(B_PNEW), WR(B_BVC), WR(B_PBVC)}},
    {K("CalcEnergyForElemsPart5", k_energy5, IT_ELEM),
     {RD(B_DELVC), RD(B_PBVC), RD(B_ENEW), RD(B_VNEWC), RD(B_BVC), RD(B_PNEW), RD(B_QLOLD),
      RD(B_QQOLD), WR(B_QNEW)}},
    {K("EvalEOSForElemsPart2", k_eos2, IT_ELEM),
     {RD(B_PNEW), RD(B_ENEW), RD(B_QNEW), WR(B_P), WR(B_E), WR(B_Q)}},
    {K("CalcSoundSpeedForElems", k_sound_speed, IT_ELEM),
     {RD(B_VNEWC), RD(B_ENEW), RD(B_PNEW), RD(B_PBVC), RD(B_BVC), WR(B_SS)}},
    {K("UpdateVolumesForElems", k_update_volumes, IT_ELEM),
     {RD(B_VNEW), WR(B_V)}},
    {K("CalcCourantConstraintForElems", k_courant, IT_ELEM),
     {RD(B_SS), RD(B_VDOV), RD(B_AREALG), WG(B_DTCOUR)}},
    {K("CalcHydroConstraintForElems", k_hydro, IT_ELEM),
     {RD(B_VDOV), WG(B_DTHYDRO)}},
};
#define LK_PER_STEP NSTEPS(lk_defs)

struct lulesh {
    struct mk_ctx c;
    struct mk_kernel k[LK_PER_STEP];
    int32_t *nl, *nb[6], *symm[3];
    uint32_t *cstart, *cent;
    uint64_t size, nelem, nnode, nsymm;
    unsigned steps, launched;
};

/* LULESH 1.0's element and node numbering: x fastest, then y, then z. */
static void lulesh_mesh(struct lulesh *l)
{
    uint64_t s = l->size, en = s + 1, ne = l->nelem;
    for (uint64_t p = 0, e = 0; p < s; p++)
        for (uint64_t r = 0; r < s; r++)
            for (uint64_t c = 0; c < s; c++, e++) {
                int32_t n = (int32_t)((p * en + r) * en + c), pl = (int32_t)(en * en);
                int32_t nl[8] = {n, n + 1, n + (int32_t)en + 1, n + (int32_t)en,
                                 n + pl, n + pl + 1, n + pl + (int32_t)en + 1,
                                 n + pl + (int32_t)en};
                for (int k = 0; k < 8; k++)
                    l->nl[k * ne + e] = nl[k];
                int32_t ei = (int32_t)e, row = (int32_t)s, pla = (int32_t)(s * s);
                l->nb[0][e] = c ? ei - 1 : ei;
                l->nb[1][e] = c + 1 < s ? ei + 1 : ei;
                l->nb[2][e] = r ? ei - row : ei;
                l->nb[3][e] = r + 1 < s ? ei + row : ei;
                l->nb[4][e] = p ? ei - pla : ei;
                l->nb[5][e] = p + 1 < s ? ei + pla : ei;
            }
    for (uint64_t a = 0, i = 0; a < en; a++)
        for (uint64_t b = 0; b < en; b++, i++) {
            l->symm[0][i] = (int32_t)((a * en + b) * en);     /* x = 0 */
            l->symm[1][i] = (int32_t)(a * en * en + b);       /* y = 0 */
            l->symm[2][i] = (int32_t)(a * en + b);            /* z = 0 */
        }
}

/* nodeElemStart / nodeElemCornerList: each node's element corners
 * (k * numElem + e), in element order. */
static void lulesh_corners(struct lulesh *l)
{
    uint64_t ne = l->nelem;
    l->cstart = xcalloc(l->nnode + 1, sizeof *l->cstart);
    l->cent = xmalloc(8 * ne * sizeof *l->cent);
    for (uint64_t i = 0; i < 8 * ne; i++)
        l->cstart[l->nl[i] + 1]++;
    for (uint64_t n = 0; n < l->nnode; n++)
        l->cstart[n + 1] += l->cstart[n];
    uint32_t *fill = xmalloc(l->nnode * sizeof *fill);
    for (uint64_t n = 0; n < l->nnode; n++)
        fill[n] = l->cstart[n];
    for (uint64_t e = 0; e < ne; e++)
        for (uint64_t k = 0; k < 8; k++)
            l->cent[fill[l->nl[k * ne + e]]++] = (uint32_t)(k * ne + e);
    free(fill);
}

static const char *const lulesh_bufs[NBUF] = {
    "x", "y", "z", "xd", "yd", "zd", "xdd", "ydd", "zdd", "fx", "fy", "fz", "nodalMass",
    "nodeElemCount", "nodeElemStart", "nodeElemCornerList", "symmX", "symmY", "symmZ",
    "nodelist", "lxim..lzetap", "elemBC",
    "dxx", "dyy", "dzz", "delv_xi", "delv_eta", "delv_zeta", "delx_xi", "delx_eta", "delx_zeta",
    "e", "p", "q", "ql", "qq", "v", "volo", "vnew", "delv", "vdov", "arealg", "ss", "elemMass",
    "sigxx", "sigyy", "sigzz", "determ", "fx_elem", "fy_elem", "fz_elem",
    "dvdx", "dvdy", "dvdz", "x8n", "y8n", "z8n",
    "vnewc", "e_old", "delvc", "p_old", "q_old", "compression", "compHalfStep", "qq_old",
    "ql_old", "work", "e_new", "p_new", "q_new", "bvc", "pbvc", "pHalfStep",
    "dtcourant_blk", "dthydro_blk", NULL,
};

static void lulesh_buffers(struct lulesh *l, struct wl_env *env, uint32_t block)
{
    uint64_t nblk = div_ceil(l->nelem, block);
    for (unsigned b = 0; b < B_LDS; b++) {
        uint64_t items = b < B_SYMMX ? l->nnode : b < B_NODELIST ? l->nsymm : l->nelem;
        uint32_t esize = 8, planes = 1;
        if ((b >= B_NECOUNT && b <= B_NECORNER) || (b >= B_SYMMX && b <= B_ELEMBC))
            esize = 4;
        if (b == B_NECORNER || b == B_NODELIST || (b >= B_FXE && b <= B_Z8N))
            planes = 8;
        if (b == B_LXIM)
            planes = 6;
        if (b == B_NECORNER) /* indexed by list position: 8 entries per element */
            items = l->nelem;
        if (b == B_DTCOUR || b == B_DTHYDRO)
            items = nblk;
        BUG_ON(mk_buf(&l->c, env, lulesh_bufs[b], items, esize, 1, planes) != b);
    }
    BUG_ON(mk_lds(&l->c, 0, 8) != B_LDS);
}

static void lulesh_maps(struct lulesh *l)
{
    struct mk_ctx *c = &l->c;
    c->map[M_NL] = (struct mk_map){l->nl, 1, l->nelem};
    for (int i = 0; i < 6; i++)
        c->map[M_LXIM + i] = (struct mk_map){l->nb[i], 1, 0};
    for (int i = 0; i < 3; i++)
        c->map[M_SYMMX + i] = (struct mk_map){l->symm[i], 1, 0};
    c->list[L_CORNERS] = (struct mk_list){l->cstart, l->cent};
}

static void lulesh_kernels(struct lulesh *l, uint32_t block)
{
    for (unsigned i = 0; i < LK_PER_STEP; i++) {
        const struct lk_def *d = &lk_defs[i];
        struct mk_kernel *k = &l->k[i];
        *k = (struct mk_kernel){.name = d->name, .ctx = &l->c, .steps = d->steps,
                                .nsteps = d->nsteps, .block = block};
        k->nitems = (uint32_t)(d->items == IT_ELEM ? l->nelem : d->items == IT_NODE ? l->nnode
                                                                                    : l->nsymm);
        if (d->steps == k_courant || d->steps == k_hydro)
            k->lds_b = block * 8;
        for (unsigned a = 0; a < 16 && d->args[a].buf; a++) {
            unsigned b = d->args[a].buf - 1u;
            mk_arg(k, b, d->args[a].mode, d->args[a].ranged,
            b == B_LXIM ? 6 : l->c.buf[b].plane ? 8 : 1);
        }
    }
}

/* Time steps: LULESH 1.0 starts at dt = 1e-7 and grows dt by at most
 * deltatimemultub = 1.2 per step up to dtmax = 1e-2; this is the fewest
 * steps that can reach stoptime, capped by `iterations`. */
static unsigned lulesh_steps(double stoptime, unsigned cap)
{
    double t = 0, dt = 1e-7;
    unsigned n = 0;
    while (t < stoptime && n < cap) {
        double target = stoptime - t;
        if (target > dt && target < 4.0 * dt / 3.0)
            dt = 2.0 * target / 3.0;
        if (target < dt)
            dt = target;
        t += dt;
        n++;
        dt = dt * 1.2 < 1e-2 ? dt * 1.2 : 1e-2;
    }
    return n;
}

static void *lulesh_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    uint64_t block = cfg_uint(sec, "block");
    if (block % env->warp_size || !is_pow2(block)) {
        cfg_err(e, sec, "block", "must be a power of two and a multiple of the warp size (%u)",
                env->warp_size);
        return NULL;
    }
    struct lulesh *l = xcalloc(1, sizeof *l);
    l->size = cfg_uint(sec, "size");
    l->nelem = l->size * l->size * l->size;
    l->nnode = (l->size + 1) * (l->size + 1) * (l->size + 1);
    l->nsymm = (l->size + 1) * (l->size + 1);
    l->steps = lulesh_steps(cfg_float(sec, "stoptime"), (unsigned)cfg_uint(sec, "iterations"));
    l->nl = xmalloc(8 * l->nelem * sizeof *l->nl);
    for (int i = 0; i < 6; i++)
        l->nb[i] = xmalloc(l->nelem * sizeof *l->nb[i]);
    for (int i = 0; i < 3; i++)
        l->symm[i] = xmalloc(l->nsymm * sizeof *l->symm[i]);
    lulesh_mesh(l);
    lulesh_corners(l);
    lulesh_buffers(l, env, (uint32_t)block);
    lulesh_maps(l);
    lulesh_kernels(l, (uint32_t)block);
    return l;
}

static void lulesh_destroy(void *self)
{
    struct lulesh *l = self;
    free(l->nl);
    for (int i = 0; i < 6; i++)
        free(l->nb[i]);
    for (int i = 0; i < 3; i++)
        free(l->symm[i]);
    free(l->cstart);
    free(l->cent);
    free(l);
}

static bool lulesh_next_kernel(void *self, struct kernel *k)
{
    struct lulesh *l = self;
    if (l->launched == l->steps * LK_PER_STEP)
        return false;
    mk_launch(&l->c, &l->k[l->launched % LK_PER_STEP], k);
    l->launched++;
    return true;
}

static const char *const lulesh_small[] = {"size=4", "iterations=2", "block=64", NULL};

const struct wl_ops wl_lulesh = {
    .name = "lulesh",
    .desc = "LULESH 1.0 (CORAL-2): Sedov blast on a hex mesh, 29 kernels per time step",
    .keys = lulesh_keys,
    .small = lulesh_small,
    .create = lulesh_create,
    .next_kernel = lulesh_next_kernel,
    .destroy = lulesh_destroy,
};
