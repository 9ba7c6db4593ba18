/*
 * lulesh.c -- LULESH 1.0 (CORAL-2 / LLNL proxy app), the HIP/CUDA port with
 * one GPU kernel per loop of LagrangeLeapFrog: Sedov blast on a cube of
 * size^3 hexahedral elements and (size+1)^3 nodes. Table II "1.0e-2 10" is
 * read as stop time 1.0e-2 and at most 10 time steps, on LULESH 1.0's
 * default 45^3 mesh (docs/workloads/lulesh.md).
 *
 * Modelled: the real mesh connectivity (nodelist, the six face-neighbour
 * lists, the symmetry-plane node lists, the node-to-element-corner lists)
 * is built in create(); per time step the port's 28 kernels (nodal forces
 * with hourglass control, the nodal update, kinematics, the monotonic Q,
 * the equation of state in its staged kernels, the volume update and the
 * two time constraints) with the memory operations of their PTX, reloads
 * included, and the PTX's instruction counts between them (nvcc 13,
 * -arch=sm_90; every instruction but global and LDS loads and stores,
 * barriers, ret and cvta.to.global). The kernels written here are mk
 * scripts, a thread per element or node; the four whose threads meet in
 * LDS are in lulesh_wg.c. Arrays indexed by the thread's own item carry
 * exact per-work-group ranges, arrays reached through connectivity none.
 * Abstracted: no data values (no physics: the step count comes from the
 * iteration cap and the fastest dt growth LULESH allows; data-dependent
 * branches take the path of an element the blast has not reached).
 */
#include <stdlib.h>

#include "workload/coral2/lulesh.h"

static const struct cfg_key lulesh_keys[] = {
    {"stoptime", CFG_FLOAT, "1.0e-2", 1e-12, 1e6, "simulated stop time (first argument)", NULL},
    {"iterations", CFG_INT, "10", 1, 1000000, "maximum time steps (second argument)", NULL},
    {"size", CFG_INT, "45", 1, 400, "elements per cube edge (edgeElems of LULESH 1.0)", NULL},
    {"block", CFG_INT, "256", 64, 1024, "threads per work-group of every kernel", NULL},
    CFG_END,
};

/* Map and list slots. M_FACE: planes 0-5 face f of the element is interior
 * (has a neighbour), planes 6-11 it is on the boundary. L_CPOS: a node's
 * corner positions in nodeElemCornerList (i + numNode * j), L_CORNERS the
 * corners there (k * numElem + e). */
enum { M_NL, M_NB, M_FACE, M_SYMMX, M_SYMMY, M_SYMMZ };
enum { L_CORNERS, L_CPOS };

#define ALU(n_) {.kind = KOP_ALU, .n = (n_)}
#define ALU2(n_, a, b) {.kind = KOP_ALU, .n = (n_), .src0 = (a), .src1 = (b)}
#define LD(b, d) {.kind = KOP_LOAD, .buf = (b), .ix = MK_ITEM, .dst = (d)}
/* a load at the element matElemlist gives (the identity), waiting for it in s */
#define LDI(b, d, s) {.kind = KOP_LOAD, .buf = (b), .ix = MK_ITEM, .dst = (d), .src0 = (s)}
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
#define LOOP8(...) LOOP(8), __VA_ARGS__, END

/* The kernels' scripts, in launch order. Each compute op carries the PTX
 * instructions of the basic blocks up to the next memory operation (the
 * first op also the parameters, thread index, bounds test and the first
 * addresses); address arithmetic between back-to-back loads is counted in
 * the op before them. The comment gives the PTX count per thread. */

/* 20 */
static const struct mk_step k_init_stress[] = {
    ALU(15), LD(B_P, 1), LD(B_Q, 2), ALU2(5, 1, 2), ST(B_SIGZZ, 0), ST(B_SIGYY, 0),
    ST(B_SIGXX, 0),
};
/* 448: the nodes' indices and coordinates, the shape function derivatives
 * (the volume stored as determ), the node normals, the corner forces */
static const struct mk_step k_integrate_stress[] = {
    ALU(59), LOOP8(LDJ(B_NODELIST, 1)), ALU2(41, 1, 0),
    LOOP8(LDN(B_X, 2)), LOOP8(LDN(B_Y, 2)), LOOP8(LDN(B_Z, 2)), ALU2(23, 2, 0),
    ST(B_DETERM, 0), ALU(251), LD(B_SIGYY, 5), ALU(1), LD(B_SIGZZ, 5), ALU(3), LD(B_SIGXX, 5),
    ALU2(70, 5, 0), LOOP8(STJ(B_FXE, 0)), LOOP8(STJ(B_FYE, 0)), LOOP8(STJ(B_FZE, 0)),
};
/* The node's corner forces: count, then per corner its position in
 * nodeElemCornerList ([i + numNode * j], coalesced), the corner and three
 * loads. The PTX unrolls the loop four times: 9 instructions per corner;
 * a remainder loop of 11 per corner runs for nodes with 1-3 corners left. */
#define CORNERS                                                                             \
    LD(B_NECOUNT, 1), LLOOP(L_CORNERS),                                                     \
        {.kind = KOP_LOAD, .buf = B_NECORNER, .ix = MK_LIST, .map = L_CPOS, .dst = 3,       \
         .src0 = 1},                                                                        \
        ALU2(2, 3, 0), LDC(B_FXE), LDC(B_FYE), LDC(B_FZE), ALU2(7, 4, 0), END
#define LDC(b) {.kind = KOP_LOAD, .buf = (b), .ix = MK_LIST, .map = L_CORNERS, .dst = 4, .src0 = 3}
/* 39 + 9 per corner + 4 (115 for an interior node) */
static const struct mk_step k_add_forces[] = {
    ALU(39), CORNERS, ALU2(2, 4, 0), ST(B_FX, 0), ALU(1), ST(B_FY, 0), ALU(1), ST(B_FZ, 0),
};
/* 39 + 9 per corner + 7: the sums are added to fx, fy, fz */
#define ADDTO(b) LD(b, 5), ALU2(1, 5, 4), ST(b, 0)
static const struct mk_step k_add_forces2[] = {
    ALU(39), CORNERS, ALU(2), ADDTO(B_FX), ALU(1), ADDTO(B_FY), ALU(1), ADDTO(B_FZ),
};
/* 25: nodalMass reloaded after each store (the stores may alias it) */
#define ACCEL(f, dd) LD(B_NMASS, 2), LD(f, 1), ALU2(2, 1, 2), ST(dd, 0)
static const struct mk_step k_accel[] = {
    ALU(17), ACCEL(B_FX, B_XDD), ALU(1), ACCEL(B_FY, B_YDD), ALU(1), ACCEL(B_FZ, B_ZDD),
};
/* 24: xdd[symmX[i]] = 0 ... */
#define SYMM(s, m, dd, r, n)                                                                \
    LD(s, r), ALU2(n, r, 0), {.kind = KOP_STORE, .buf = dd, .ix = MK_MAP, .map = m, .src0 = r}
static const struct mk_step k_accel_bc[] = {
    ALU(15), SYMM(B_SYMMX, M_SYMMX, B_XDD, 1, 3), ALU(1), SYMM(B_SYMMY, M_SYMMY, B_YDD, 2, 2),
    ALU(1), SYMM(B_SYMMZ, M_SYMMZ, B_ZDD, 3, 2),
};
/* 34: xd += xdd * dt and the u_cut test, per component */
#define VEL(dd, d) LD(dd, 2), LD(d, 1), ALU2(4, 1, 2), ST(d, 0)
static const struct mk_step k_velocity[] = {
    ALU(18), VEL(B_XDD, B_XD), ALU(2), VEL(B_YDD, B_YD), ALU(2), VEL(B_ZDD, B_ZD),
};
/* 24 */
#define POS(d, x) LD(d, 2), LD(x, 1), ALU2(2, 1, 2), ST(x, 0)
static const struct mk_step k_position[] = {
    ALU(16), POS(B_XD, B_X), ALU(1), POS(B_YD, B_Y), ALU(1), POS(B_ZD, B_Z),
};
/* 512: the volume, vnew and delv, the characteristic length; the node
 * indices reloaded (the stores may alias them), the velocities, the
 * half-step positions, shape function derivatives and velocity gradient */
static const struct mk_step k_kinematics[] = {
    ALU(74), LOOP8(LDJ(B_NODELIST, 1)), ALU2(21, 1, 0),
    LOOP8(LDN(B_X, 2), LDN(B_Y, 2), LDN(B_Z, 2)), ALU2(69, 2, 0), LD(B_VOLO, 5), ALU2(2, 5, 0),
    ST(B_VNEW, 0), ALU(1), LD(B_V, 6), ALU2(2, 6, 0), ST(B_DELV, 0), ALU(128), ST(B_AREALG, 0),
    LOOP8(LDJ(B_NODELIST, 1)), ALU2(33, 1, 0), LOOP8(LDN(B_XD, 3), LDN(B_YD, 3), LDN(B_ZD, 3)),
    ALU2(182, 3, 0), ST(B_DXX, 0), ST(B_DYY, 0), ST(B_DZZ, 0),
};
/* 22: dxx, dyy, dzz reloaded after the store of vdov */
#define DEV(b) LD(b, 2), ALU2(1, 2, 0), ST(b, 0)
static const struct mk_step k_lagrange2[] = {
    ALU(14), LD(B_DYY, 1), LD(B_DXX, 1), ALU2(2, 1, 0), LD(B_DZZ, 1), ALU2(3, 1, 0),
    ST(B_VDOV, 0), DEV(B_DXX), DEV(B_DYY), DEV(B_DZZ),
};
/* 304: three face-normal / velocity-difference pairs, each a square root
 * and a division */
static const struct mk_step k_q_gradients[] = {
    ALU(49), LOOP8(LDJ(B_NODELIST, 1)), ALU2(42, 1, 0),
    LOOP8(LDN(B_XD, 3)), LOOP8(LDN(B_YD, 3)), LOOP8(LDN(B_ZD, 3)), ALU(3), LD(B_VNEW, 5),
    LD(B_VOLO, 5), ALU2(24, 1, 0), LOOP8(LDN(B_X, 2)), LOOP8(LDN(B_Y, 2)), LOOP8(LDN(B_Z, 2)),
    ALU2(64, 2, 3), ST(B_DELX_ZETA, 0), ALU(31), ST(B_DELV_ZETA, 0), ALU(16), ST(B_DELX_XI, 0),
    ALU(31), ST(B_DELV_XI, 0), ALU(16), ST(B_DELX_ETA, 0), ALU(28), ST(B_DELV_ETA, 0),
};
/* 185 for an interior element (vdov <= 0: the limiter and q terms). Per
 * face f of the element (xi-, xi+, eta-, eta+, zeta-, zeta+): an interior
 * face loads the neighbour list and the neighbour's delv (a, b
 * instructions before each), a boundary face runs its case instead (n);
 * each is issued if a lane of the warp takes it. */
#define FACE(f, dv, nbd, ni, nd)                                                            \
    {.kind = KOP_ALU, .n = (nbd), .flags = MK_IF, .pred = M_FACE, .k = 6 + (f)},            \
        {.kind = KOP_ALU, .n = (ni), .flags = MK_IF, .pred = M_FACE, .k = (f)},             \
        {.kind = KOP_LOAD, .buf = B_LXIM, .ix = MK_ITEM, .k = (f), .flags = MK_IF,          \
         .pred = M_FACE, .dst = 3, .src0 = 1},                                              \
        {.kind = KOP_ALU, .n = (nd), .flags = MK_IF, .pred = M_FACE, .k = (f), .src0 = 3},  \
        {.kind = KOP_LOAD, .buf = dv, .ix = MK_MAP, .map = M_NB, .k = (f), .flags = MK_IF,  \
         .pred = M_FACE, .dst = 4, .src0 = 3}
static const struct mk_step k_q_region[] = {
    ALU(33), LD(B_MATEL, 1), ALU2(5, 1, 0), LDI(B_DELV_XI, 2, 1), LDI(B_ELEMBC, 3, 1),
    ALU2(5, 3, 0), FACE(0, B_DELV_XI, 4, 2, 2), ALU(4), FACE(1, B_DELV_XI, 2, 2, 2),
    ALU2(8, 4, 2), LDI(B_DELV_ETA, 2, 1), ALU(3), FACE(2, B_DELV_ETA, 7, 3, 2), ALU(8),
    FACE(3, B_DELV_ETA, 2, 2, 2), ALU2(9, 4, 2), LDI(B_DELV_ZETA, 2, 1), ALU(3),
    FACE(4, B_DELV_ZETA, 7, 2, 2), ALU(8), FACE(5, B_DELV_ZETA, 2, 2, 2), ALU2(24, 4, 2),
    LDI(B_VDOV, 5, 1), ALU2(8, 5, 0), LDI(B_DELX_XI, 6, 1), LDI(B_DELX_ETA, 6, 1),
    LDI(B_DELX_ZETA, 6, 1), LDI(B_VNEW, 6, 1), LDI(B_VOLO, 6, 1), LDI(B_EMASS, 6, 1),
    ALU2(42, 6, 0), ST(B_QQ, 0), ST(B_QL, 0),
};
/* 26: vnewc = vnew[matElemlist[i]], clamped to eosvmin, eosvmax */
static const struct mk_step k_material[] = {
    ALU(14), LD(B_MATEL, 1), ALU2(4, 1, 0), LDI(B_VNEW, 2, 1), ALU2(8, 2, 0), ST(B_VNEWC, 0),
};
/* 64: the copies through matElemlist, compression and compHalfStep (vnewc
 * and delvc reloaded after the stores), the eosvmin / eosvmax tests (each
 * reloading vnewc), the q copies and work = 0 */
#define COPY(src, dst) ALU(1), LDI(src, 2, 1), ALU(1), ST(dst, 2)
static const struct mk_step k_eos1[] = {
    ALU(29), LD(B_MATEL, 1), ALU2(3, 1, 0), LDI(B_E, 2, 1), ALU2(2, 2, 0), ST(B_EOLD, 2),
    COPY(B_DELV, B_DELVC), COPY(B_P, B_POLD), COPY(B_Q, B_QOLD), ALU(1), LD(B_VNEWC, 3),
    ALU2(3, 3, 0), ST(B_COMPR, 0), LD(B_DELVC, 4), LD(B_VNEWC, 4), ALU2(4, 4, 0),
    ST(B_COMPH, 0), ALU(2), LD(B_VNEWC, 5), ALU2(4, 5, 0), LD(B_VNEWC, 5), ALU2(4, 5, 0),
    LDI(B_QQ, 6, 1), ALU2(2, 6, 0), ST(B_QQOLD, 6), ALU(1), LDI(B_QL, 6, 1), ALU(1),
    {.kind = KOP_STORE, .buf = B_QQOLD, .ix = MK_ITEM, .k = 1, .src0 = 6}, ALU(2),
    ST(B_WORK, 0),
};
/* 28 */
static const struct mk_step k_energy1[] = {
    ALU(17), LD(B_DELVC, 1), ALU2(3, 1, 0), LD(B_QOLD, 2), LD(B_POLD, 2), ALU2(2, 2, 0),
    LD(B_EOLD, 3), ALU2(2, 3, 0), LD(B_WORK, 4), ALU2(2, 4, 0), ST(B_ENEW, 0), ALU(2),
};
/* 37: bvc, pbvc, p = bvc * e (bvc reloaded after the store of pbvc), the
 * cut-offs */
#define PRESSURE(comp, pout)                                                                \
    ALU(19), LD(comp, 1), ALU2(3, 1, 0), ST(B_BVC, 0), ALU(1), ST(B_PBVC, 0), ALU(1),       \
        LD(B_ENEW, 2), LD(B_BVC, 2), ALU2(5, 2, 0), ST(pout, 0), ALU(1), LD(B_VNEWC, 3),    \
        ALU2(7, 3, 0)
static const struct mk_step k_pressure_half[] = {PRESSURE(B_COMPH, B_PHALF)};
static const struct mk_step k_pressure[] = {PRESSURE(B_COMPR, B_PNEW)};
/* the sound speed of the q terms: ssc <= 0 (no square root) for an element
 * the blast has not reached */
#define SSC(p, r)                                                                           \
    LD(B_ENEW, 2), LD(B_PBVC, 2), ALU(1), LD(r, 3), ALU(2), LD(B_BVC, 3), ALU(p), LD(B_PNEW, 4)
#define QL(b) {.kind = KOP_LOAD, .buf = B_QQOLD, .ix = MK_ITEM, .k = (b), .dst = 5}
/* 64: vhalf, q_new, then e_new twice (reloads after each store) */
static const struct mk_step k_energy2[] = {
    ALU(25), LD(B_DELVC, 1), ALU2(8, 1, 0), LD(B_COMPH, 2), ALU2(3, 2, 0), LD(B_ENEW, 3),
    LD(B_PBVC, 3), ALU(1), LD(B_BVC, 3), ALU(2), LD(B_PHALF, 4), ALU2(6, 3, 4), ALU(1), QL(1),
    ALU(1), QL(0), ALU2(1, 5, 0), ST(B_QNEW, 0), LD(B_DELVC, 6), ALU(3), LD(B_QOLD, 6), ALU(1),
    LD(B_POLD, 6), ALU(1), LD(B_PHALF, 6), ALU2(3, 6, 0), LD(B_ENEW, 7), ALU2(1, 7, 0),
    ST(B_ENEW, 0), ALU(1), LD(B_WORK, 8), ALU2(4, 8, 0), ST(B_ENEW, 0), ALU(2),
};
/* 65: q_tilde, e_new */
static const struct mk_step k_energy3[] = {
    ALU(26), LD(B_DELVC, 1), ALU2(7, 1, 0), SSC(1, B_VNEWC), ALU2(6, 3, 4), ALU(1), QL(1),
    ALU(1), QL(0), ALU2(3, 5, 0), LD(B_QOLD, 6), ALU(1), LD(B_POLD, 6), ALU(2), LD(B_QNEW, 6),
    ALU(1), LD(B_PHALF, 6), ALU2(11, 6, 0), ST(B_ENEW, 0), ALU(2),
};
/* 45: q_new, stored again as 0 under q_cut */
static const struct mk_step k_energy4[] = {
    ALU(21), LD(B_DELVC, 1), ALU2(5, 1, 0), SSC(2, B_VNEWC), ALU2(6, 3, 4), ALU(1), QL(1),
    ALU(1), QL(0), ALU2(2, 5, 0), ST(B_QNEW, 0), ALU(4), ST(B_QNEW, 0),
};
/* 24: p, e, q at matElemlist[i] */
static const struct mk_step k_eos2[] = {
    ALU(18), LD(B_PNEW, 1), LD(B_MATEL, 2), ALU2(2, 2, 0), ST(B_P, 1), ALU(1), LD(B_ENEW, 3),
    ALU(1), ST(B_E, 3), ALU(1), LD(B_QNEW, 4), ALU(1), ST(B_Q, 4),
};
/* 33: the clamp and square root are selects, no branch */
static const struct mk_step k_sound_speed[] = {
    ALU(20), SSC(2, B_VNEWC), ALU2(6, 3, 4), LD(B_MATEL, 5), ALU2(2, 5, 0), ST(B_SS, 0),
};
/* 17 */
static const struct mk_step k_update_volumes[] = {
    ALU(12), LD(B_VNEW, 1), ALU2(5, 1, 0), ST(B_V, 0),
};

/* Per kernel: items (elements, nodes or symmetry-plane nodes), script or
 * lulesh_wg.c kernel, arguments. */
enum { IT_ELEM, IT_NODE, IT_SYMM };
struct lk_def {
    const char *name;
    const struct mk_step *steps;
    unsigned nsteps;
    uint8_t items, lw;
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
#define K(nm, st, it) nm, st, NSTEPS(st), it, LW_NONE
#define KW(nm, lw) nm, NULL, 0, IT_ELEM, lw
#define PRESSURE_ARGS(comp, pout) \
    {RD(comp), WR(B_BVC), WR(B_PBVC), RD(B_ENEW), WR(pout), RD(B_VNEWC)}
#define CORNER_ARGS(m) \
    {RD(B_NECOUNT), RD(B_NECORNER), RG(B_FXE), RG(B_FYE), RG(B_FZE), m(B_FX), m(B_FY), m(B_FZ)}

static const struct lk_def lk_defs[] = {
    {K("InitStressTermsForElems", k_init_stress, IT_ELEM),
     {RD(B_P), RD(B_Q), WR(B_SIGXX), WR(B_SIGYY), WR(B_SIGZZ)}},
    {K("IntegrateStressForElems", k_integrate_stress, IT_ELEM),
     {RD(B_NODELIST), RG(B_X), RG(B_Y), RG(B_Z), RD(B_SIGXX), RD(B_SIGYY), RD(B_SIGZZ),
      WR(B_DETERM), WR(B_FXE), WR(B_FYE), WR(B_FZE)}},
    {K("AddNodeForcesFromElems", k_add_forces, IT_NODE), CORNER_ARGS(WR)},
    {KW("CalcHourglassControlForElems", LW_HG_CONTROL),
     {RD(B_NODELIST), RG(B_X), RG(B_Y), RG(B_Z), WR(B_DETERM), RD(B_VOLO), RD(B_V), WR(B_DVDX),
      WR(B_DVDY), WR(B_DVDZ), WR(B_X8N), WR(B_Y8N), WR(B_Z8N)}},
    {KW("CalcFBHourglassForceForElems", LW_FB_HOURGLASS),
     {RD(B_DETERM), RD(B_X8N), RD(B_Y8N), RD(B_Z8N), RD(B_DVDX), RD(B_DVDY), RD(B_DVDZ),
      RD(B_NODELIST), RD(B_SS), RD(B_EMASS), RG(B_XD), RG(B_YD), RG(B_ZD), WR(B_FXE), WR(B_FYE),
      WR(B_FZE)}},
    {K("AddNodeForcesFromElems2", k_add_forces2, IT_NODE), CORNER_ARGS(WR)},
    {K("CalcAccelerationForNodes", k_accel, IT_NODE),
     {RD(B_FX), RD(B_FY), RD(B_FZ), RD(B_NMASS), WR(B_XDD), WR(B_YDD), WR(B_ZDD)}},
    {K("ApplyAccelerationBoundaryConditionsForNodes", k_accel_bc, IT_SYMM),
     {RD(B_SYMMX), RD(B_SYMMY), RD(B_SYMMZ), WG(B_XDD), WG(B_YDD), WG(B_ZDD)}},
    {K("CalcVelocityForNodes", k_velocity, IT_NODE),
     {WR(B_XD), WR(B_YD), WR(B_ZD), RD(B_XDD), RD(B_YDD), RD(B_ZDD)}},
    {K("CalcPositionForNodes", k_position, IT_NODE),
     {WR(B_X), WR(B_Y), WR(B_Z), RD(B_XD), RD(B_YD), RD(B_ZD)}},
    {K("CalcKinematicsForElems", k_kinematics, IT_ELEM),
     {RD(B_NODELIST), RD(B_VOLO), RD(B_V), RG(B_X), RG(B_Y), RG(B_Z), RG(B_XD), RG(B_YD),
      RG(B_ZD), WR(B_VNEW), WR(B_DELV), WR(B_AREALG), WR(B_DXX), WR(B_DYY), WR(B_DZZ)}},
    {K("CalcLagrangeElementsPart2", k_lagrange2, IT_ELEM),
     {WR(B_DXX), WR(B_DYY), WR(B_DZZ), WR(B_VDOV)}},
    {K("CalcMonotonicQGradientsForElems", k_q_gradients, IT_ELEM),
     {RD(B_NODELIST), RG(B_X), RG(B_Y), RG(B_Z), RG(B_XD), RG(B_YD), RG(B_ZD), RD(B_VOLO),
      RD(B_VNEW), WR(B_DELX_ZETA), WR(B_DELV_ZETA), WR(B_DELX_XI), WR(B_DELV_XI),
      WR(B_DELX_ETA), WR(B_DELV_ETA)}},
    {K("CalcMonotonicQRegionForElems", k_q_region, IT_ELEM),
     {RD(B_MATEL), RD(B_ELEMBC), RD(B_LXIM), RG(B_DELV_XI), RG(B_DELV_ETA), RG(B_DELV_ZETA),
      RD(B_DELX_XI), RD(B_DELX_ETA), RD(B_DELX_ZETA), RD(B_VDOV), RD(B_EMASS), RD(B_VOLO),
      RD(B_VNEW), WR(B_QQ), WR(B_QL)}},
    {K("ApplyMaterialPropertiesForElemsPart1", k_material, IT_ELEM),
     {RD(B_MATEL), RD(B_VNEW), WR(B_VNEWC)}},
    {K("EvalEOSForElemsPart1", k_eos1, IT_ELEM),
     {RD(B_MATEL), RD(B_E), RD(B_DELV), RD(B_P), RD(B_Q), RD(B_QQ), RD(B_QL), RD(B_VNEWC),
      WR(B_EOLD), WR(B_DELVC), WR(B_POLD), WR(B_QOLD), WR(B_COMPR), WR(B_COMPH), WR(B_QQOLD),
      WR(B_WORK)}},
    {K("CalcEnergyForElemsPart1", k_energy1, IT_ELEM),
     {RD(B_EOLD), RD(B_DELVC), RD(B_POLD), RD(B_QOLD), RD(B_WORK), WR(B_ENEW)}},
    {K("CalcPressureForElems", k_pressure_half, IT_ELEM), PRESSURE_ARGS(B_COMPH, B_PHALF)},
    {K("CalcEnergyForElemsPart2", k_energy2, IT_ELEM),
     {RD(B_DELVC), RD(B_COMPH), WR(B_ENEW), RD(B_PBVC), RD(B_BVC), RD(B_PHALF), RD(B_QQOLD),
      WR(B_QNEW), RD(B_QOLD), RD(B_POLD), RD(B_WORK)}},
    {K("CalcPressureForElems", k_pressure, IT_ELEM), PRESSURE_ARGS(B_COMPR, B_PNEW)},
    {K("CalcEnergyForElemsPart3", k_energy3, IT_ELEM),
     {RD(B_DELVC), WR(B_ENEW), RD(B_PBVC), RD(B_VNEWC), RD(B_BVC), RD(B_PNEW), RD(B_QQOLD),
      RD(B_QOLD), RD(B_POLD), RD(B_QNEW), RD(B_PHALF)}},
    {K("CalcPressureForElems", k_pressure, IT_ELEM), PRESSURE_ARGS(B_COMPR, B_PNEW)},
    {K("CalcEnergyForElemsPart4", k_energy4, IT_ELEM),
     {RD(B_DELVC), RD(B_ENEW), RD(B_PBVC), RD(B_VNEWC), RD(B_BVC), RD(B_PNEW), RD(B_QQOLD),
      WR(B_QNEW)}},
    {K("EvalEOSForElemsPart2", k_eos2, IT_ELEM),
     {RD(B_PNEW), RD(B_MATEL), WR(B_P), RD(B_ENEW), WR(B_E), RD(B_QNEW), WR(B_Q)}},
    {K("CalcSoundSpeedForElems", k_sound_speed, IT_ELEM),
     {RD(B_ENEW), RD(B_PBVC), RD(B_VNEWC), RD(B_BVC), RD(B_PNEW), RD(B_MATEL), WR(B_SS)}},
    {K("UpdateVolumesForElems", k_update_volumes, IT_ELEM), {RD(B_VNEW), WR(B_V)}},
    {KW("CalcCourantConstraintForElems", LW_COURANT),
     {RD(B_MATEL), RD(B_SS), RD(B_VDOV), RD(B_AREALG), WG(B_DTCOUR)}},
    {KW("CalcHydroConstraintForElems", LW_HYDRO), {RD(B_MATEL), RD(B_VDOV), WG(B_DTHYDRO)}},
};
#define LK_PER_STEP NSTEPS(lk_defs)

struct lulesh {
    struct mk_ctx c;
    struct lw_kernel k[LK_PER_STEP];
    int32_t *nl, *nb, *face, *symm[3];
    uint32_t *cstart, *cent, *cpos, *part8;
    uint64_t size, nelem, nnode, nsymm;
    unsigned steps, launched;
};

/* LULESH 1.0's element and node numbering: x fastest, then y, then z. The
 * six face neighbours (an element on the boundary is its own) and which
 * faces are interior (M_FACE). */
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
                int64_t step[6] = {-1, 1, -(int64_t)s, (int64_t)s, -(int64_t)(s * s),
                                   (int64_t)(s * s)};
                bool in[6] = {c > 0, c + 1 < s, r > 0, r + 1 < s, p > 0, p + 1 < s};
                for (int f = 0; f < 6; f++) {
                    l->nb[f * ne + e] = (int32_t)(in[f] ? (int64_t)e + step[f] : (int64_t)e);
                    l->face[f * ne + e] = in[f];
                    l->face[(6 + f) * ne + e] = !in[f];
                }
            }
    for (uint64_t a = 0, i = 0; a < en; a++)
        for (uint64_t b = 0; b < en; b++, i++) {
            l->symm[0][i] = (int32_t)((a * en + b) * en);     /* x = 0 */
            l->symm[1][i] = (int32_t)(a * en * en + b);       /* y = 0 */
            l->symm[2][i] = (int32_t)(a * en + b);            /* z = 0 */
        }
}

/* Each node's element corners (k * numElem + e), in element order, and their
 * positions in nodeElemCornerList: the j-th corner of node i at
 * i + numNode * j, as the port lays it out. */
static void lulesh_corners(struct lulesh *l)
{
    uint64_t ne = l->nelem, nn = l->nnode;
    l->cstart = xcalloc(nn + 1, sizeof *l->cstart);
    l->cent = xmalloc(8 * ne * sizeof *l->cent);
    l->cpos = xmalloc(8 * ne * sizeof *l->cpos);
    for (uint64_t i = 0; i < 8 * ne; i++)
        l->cstart[l->nl[i] + 1]++;
    for (uint64_t n = 0; n < nn; n++)
        l->cstart[n + 1] += l->cstart[n];
    uint32_t *fill = xmalloc(nn * sizeof *fill);
    for (uint64_t n = 0; n < nn; n++)
        fill[n] = l->cstart[n];
    for (uint64_t e = 0; e < ne; e++)
        for (uint64_t k = 0; k < 8; k++) {
            uint32_t n = (uint32_t)l->nl[k * ne + e], a = fill[n]++;
            l->cent[a] = (uint32_t)(k * ne + e);
            l->cpos[a] = (uint32_t)(n + nn * (a - l->cstart[n]));
        }
    free(fill);
}

static const char *const lulesh_bufs[NBUF] = {
    "x", "y", "z", "xd", "yd", "zd", "xdd", "ydd", "zdd", "fx", "fy", "fz", "nodalMass",
    "nodeElemCount", "nodeElemCornerList", "symmX", "symmY", "symmZ",
    "matElemlist", "nodelist", "lxim..lzetap", "elemBC",
    "dxx", "dyy", "dzz", "delv_xi", "delv_eta", "delv_zeta", "delx_xi", "delx_eta", "delx_zeta",
    "e", "p", "q", "ql", "qq", "v", "volo", "vnew", "delv", "vdov", "arealg", "ss", "elemMass",
    "sigxx", "sigyy", "sigzz", "determ", "fx_elem", "fy_elem", "fz_elem",
    "dvdx", "dvdy", "dvdz", "x8n", "y8n", "z8n",
    "vnewc", "e_old", "delvc", "p_old", "q_old", "compression", "compHalfStep", "qq_old..ql_old",
    "work", "e_new", "p_new", "q_new", "bvc", "pbvc", "pHalfStep",
    "dtcourant_blk", "dthydro_blk",
};

static unsigned buf_planes(unsigned b)
{
    return b == B_NECORNER || b == B_NODELIST || (b >= B_FXE && b <= B_Z8N) ? 8
           : b == B_LXIM                                                   ? 6
           : b == B_QQOLD                                                  ? 2
                                                                           : 1;
}

static void lulesh_buffers(struct lulesh *l, struct wl_env *env, uint32_t block)
{
    uint64_t nblk = div_ceil(l->nelem, block);
    for (unsigned b = 0; b < NBUF; b++) {
        uint64_t items = b < B_SYMMX ? l->nnode : b < B_MATEL ? l->nsymm : l->nelem;
        uint32_t esize = b >= B_NECOUNT && b <= B_ELEMBC ? 4 : 8;
        if (b == B_DTCOUR || b == B_DTHYDRO)
            items = nblk;
        BUG_ON(mk_buf(&l->c, env, lulesh_bufs[b], items, esize, 1, buf_planes(b)) != b);
    }
}

static void lulesh_maps(struct lulesh *l)
{
    struct mk_ctx *c = &l->c;
    c->map[M_NL] = (struct mk_map){l->nl, 1, l->nelem};
    c->map[M_NB] = (struct mk_map){l->nb, 1, l->nelem};
    c->map[M_FACE] = (struct mk_map){l->face, 1, l->nelem};
    for (int i = 0; i < 3; i++)
        c->map[M_SYMMX + i] = (struct mk_map){l->symm[i], 1, 0};
    c->list[L_CORNERS] = (struct mk_list){l->cstart, l->cent};
    c->list[L_CPOS] = (struct mk_list){l->cstart, l->cpos};
}

static void lulesh_kernels(struct lulesh *l, uint32_t block)
{
    uint32_t per = block / 8, nwg = (uint32_t)div_ceil(l->nelem, per);
    l->part8 = xmalloc((nwg + 1ull) * sizeof *l->part8);
    for (uint32_t w = 0; w <= nwg; w++)
        l->part8[w] = w < nwg ? w * per : (uint32_t)l->nelem;
    for (unsigned i = 0; i < LK_PER_STEP; i++) {
        const struct lk_def *d = &lk_defs[i];
        struct lw_kernel *lk = &l->k[i];
        struct mk_kernel *k = &lk->mk;
        *k = (struct mk_kernel){.name = d->name, .ctx = &l->c, .steps = d->steps,
                                .nsteps = d->nsteps, .block = block};
        k->nitems = (uint32_t)(d->items == IT_ELEM ? l->nelem : d->items == IT_NODE ? l->nnode
                                                                                    : l->nsymm);
        if (d->lw)
            lw_build(lk, d->lw, l->nl, (uint32_t)l->nelem, l->part8);
        for (unsigned a = 0; a < 16 && d->args[a].buf; a++) {
            unsigned b = d->args[a].buf - 1u;
            mk_arg(k, b, d->args[a].mode, d->args[a].ranged, buf_planes(b));
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
    l->nb = xmalloc(6 * l->nelem * sizeof *l->nb);
    l->face = xmalloc(12 * l->nelem * sizeof *l->face);
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
    for (unsigned i = 0; i < LK_PER_STEP; i++)
        lw_free(&l->k[i]);
    free(l->nl);
    free(l->nb);
    free(l->face);
    for (int i = 0; i < 3; i++)
        free(l->symm[i]);
    free(l->cstart);
    free(l->cent);
    free(l->cpos);
    free(l->part8);
    free(l);
}

static bool lulesh_next_kernel(void *self, struct kernel *k)
{
    struct lulesh *l = self;
    if (l->launched == l->steps * LK_PER_STEP)
        return false;
    const struct lw_kernel *lk = &l->k[l->launched % LK_PER_STEP];
    mk_launch(&l->c, &lk->mk, k);
    if (lk->ops)
        k->next = lw_next;
    l->launched++;
    return true;
}

static const char *const lulesh_small[] = {"size=4", "iterations=2", "block=64", NULL};

const struct wl_ops wl_lulesh = {
    .name = "lulesh",
    .suite = "CORAL-2",
    .desc = "LULESH 1.0 (CORAL-2): Sedov blast on a hex mesh, 28 kernels per time step",
    .keys = lulesh_keys,
    .small = lulesh_small,
    .create = lulesh_create,
    .next_kernel = lulesh_next_kernel,
    .destroy = lulesh_destroy,
};
