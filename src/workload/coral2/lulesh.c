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
 * barriers, ret and cvta.to.global). The kernels are kernel descriptions
 * (src/workload/kd.h) run by the driver of src/workload/kdw.h, a thread per
 * element or node; the four whose threads meet in LDS are in lulesh_wg.c.
 * The connectivity is bound to them as arrays; the per-work-group ranges
 * and same_pattern are derived from the descriptions (arrays reached
 * through connectivity: the whole structure).
 * Abstracted: no data values (no physics: the step count comes from the
 * iteration cap and the fastest dt growth LULESH allows; data-dependent
 * branches take the path of an element the blast has not reached).
 */
#include <stdlib.h>
#include <string.h>

#include "workload/coral2/lulesh.h"

static const struct cfg_key lulesh_keys[] = {
    {"stoptime", CFG_FLOAT, "1.0e-2", 1e-12, 1e6, "simulated stop time (first argument)", NULL},
    {"iterations", CFG_INT, "10", 1, 1000000, "maximum time steps (second argument)", NULL},
    {"size", CFG_INT, "45", 1, 400, "elements per cube edge (edgeElems of LULESH 1.0)", NULL},
    {"block", CFG_INT, "256", 64, 1024, "threads per work-group of every kernel", NULL},
    CFG_END,
};

/* ---- the kernels as descriptions ---------------------------------------------------- */

/* Each alu carries the PTX instructions of the basic blocks up to the next
 * memory operation (the first also the parameters, thread index, bounds
 * test and the first addresses); address arithmetic between back-to-back
 * loads is counted in the alu before them. The comment gives the PTX count
 * per thread. A thread per item (element, node or symmetry-plane node) below
 * n; an array of 8 (6, 2) planes of items is indexed plane * n + item. */
#define AL(n) "alu " #n "\n"
#define AL1(n, a) "alu " #n " < r" #a "\n"
#define AL2(n, a, b) "alu " #n " < r" #a " r" #b "\n"
#define LD(b, d) "load " #b "[gid] 8 -> r" #d "\n"
#define LD4(b, d) "load " #b "[gid] 4 -> r" #d "\n"
/* a load at the element matElemlist gives (the identity), waiting for it */
#define LDI(b, d, s) "load " #b "[gid] 8 -> r" #d " < r" #s "\n"
#define ST(b) "store " #b "[gid] 8\n"
#define STS(b, s) "store " #b "[gid] 8 < r" #s "\n"
#define LOOP8(body) "for m0 = 0 .. 8\n" body "end\n"
#define LDJ(b, d) "load " #b "[m0*n + gid] 4 -> r" #d "\n"
#define STJ(b) "store " #b "[m0*n + gid] 8\n"
/* x[nodelist[m0 * numElem + i]], waiting for the nodelist load in r1 */
#define LDN(b, d) "load " #b "[@nl[m0*n + gid]] 8 -> r" #d " < r1\n"

static const char *const lk_n[] = {"n", NULL};
static const char *const lk_nl[] = {"nl", NULL};
#define LKD(nm, arr, text, ...)                                                             \
    {.name = nm, .params = lk_n, .bufs = (const char *const[]){__VA_ARGS__, NULL},          \
     .arrays = arr, .body = "if gid < n\n" text "end\n"}

/* 20 */
static const struct kd_desc k_init_stress = LKD(
    "InitStressTermsForElems", NULL,
    AL(15) LD(p, 1) LD(q, 2) AL2(5, 1, 2) ST(sigzz) ST(sigyy) ST(sigxx),
    "p", "q", "sigxx", "sigyy", "sigzz");
/* 448: the nodes' indices and coordinates, the shape function derivatives
 * (the volume stored as determ), the node normals, the corner forces */
static const struct kd_desc k_integrate_stress = LKD(
    "IntegrateStressForElems", lk_nl,
    AL(59) LOOP8(LDJ(nodelist, 1)) AL1(41, 1) LOOP8(LDN(x, 2)) LOOP8(LDN(y, 2))
    LOOP8(LDN(z, 2)) AL1(23, 2) ST(determ) AL(251) LD(sigyy, 5) AL(1) LD(sigzz, 5) AL(3)
    LD(sigxx, 5) AL1(70, 5) LOOP8(STJ(fx_elem)) LOOP8(STJ(fy_elem)) LOOP8(STJ(fz_elem)),
    "nodelist", "x", "y", "z", "sigxx", "sigyy", "sigzz", "determ", "fx_elem", "fy_elem",
    "fz_elem");
/* The node's corner forces: count, then per corner (up to 8) its position in
 * nodeElemCornerList ([i + numNode * j], coalesced), the corner (@corner,
 * laid out as that list) and three loads. The PTX unrolls the loop four
 * times: 9 instructions per corner; a remainder loop of 11 per corner runs
 * for nodes with 1-3 corners left. */
#define LDC(b) "load " #b "[@corner[m0*n + gid]] 8 -> r4 < r3\n"
#define CORNERS                                                                             \
    LD4(nodeElemCount, 1) "for m0 = 0 .. 8\nif m0 < @count[gid]\n"                          \
    "load nodeElemCornerList[m0*n + gid] 4 -> r3 < r1\n" AL1(2, 3) LDC(fx_elem)              \
    LDC(fy_elem) LDC(fz_elem) AL1(7, 4) "end\nend\n"
#define CORNER_BUFS                                                                         \
    "nodeElemCount", "nodeElemCornerList", "fx_elem", "fy_elem", "fz_elem", "fx", "fy", "fz"
static const char *const lk_corners[] = {"count", "corner", NULL};
/* 39 + 9 per corner + 4 (115 for an interior node) */
static const struct kd_desc k_add_forces = LKD(
    "AddNodeForcesFromElems", lk_corners,
    AL(39) CORNERS AL1(2, 4) ST(fx) AL(1) ST(fy) AL(1) ST(fz), CORNER_BUFS);
/* 39 + 9 per corner + 7: the sums are added to fx, fy, fz */
#define ADDTO(b) LD(b, 5) AL2(1, 5, 4) ST(b)
static const struct kd_desc k_add_forces2 = LKD(
    "AddNodeForcesFromElems2", lk_corners,
    AL(39) CORNERS AL(2) ADDTO(fx) AL(1) ADDTO(fy) AL(1) ADDTO(fz), CORNER_BUFS);
/* 25: nodalMass reloaded after each store (the stores may alias it) */
#define ACCEL(f, dd) LD(nodalMass, 2) LD(f, 1) AL2(2, 1, 2) ST(dd)
static const struct kd_desc k_accel = LKD(
    "CalcAccelerationForNodes", NULL,
    AL(17) ACCEL(fx, xdd) AL(1) ACCEL(fy, ydd) AL(1) ACCEL(fz, zdd),
    "fx", "fy", "fz", "nodalMass", "xdd", "ydd", "zdd");
/* 24: xdd[symmX[i]] = 0 ... */
#define SYMM(s, a, dd, r, k) \
    LD4(s, r) AL1(k, r) "store " #dd "[@" #a "[gid]] 8 < r" #r "\n"
static const struct kd_desc k_accel_bc = LKD(
    "ApplyAccelerationBoundaryConditionsForNodes",
    ((const char *const[]){"sx", "sy", "sz", NULL}),
    AL(15) SYMM(symmX, sx, xdd, 1, 3) AL(1) SYMM(symmY, sy, ydd, 2, 2) AL(1)
    SYMM(symmZ, sz, zdd, 3, 2),
    "symmX", "symmY", "symmZ", "xdd", "ydd", "zdd");
/* 34: xd += xdd * dt and the u_cut test, per component */
#define VEL(dd, d) LD(dd, 2) LD(d, 1) AL2(4, 1, 2) ST(d)
static const struct kd_desc k_velocity = LKD(
    "CalcVelocityForNodes", NULL,
    AL(18) VEL(xdd, xd) AL(2) VEL(ydd, yd) AL(2) VEL(zdd, zd),
    "xd", "yd", "zd", "xdd", "ydd", "zdd");
/* 24 */
#define POS(d, x) LD(d, 2) LD(x, 1) AL2(2, 1, 2) ST(x)
static const struct kd_desc k_position = LKD(
    "CalcPositionForNodes", NULL,
    AL(16) POS(xd, x) AL(1) POS(yd, y) AL(1) POS(zd, z),
    "x", "y", "z", "xd", "yd", "zd");
/* 512: the volume, vnew and delv, the characteristic length; the node
 * indices reloaded (the stores may alias them), the velocities, the
 * half-step positions, shape function derivatives and velocity gradient */
static const struct kd_desc k_kinematics = LKD(
    "CalcKinematicsForElems", lk_nl,
    AL(74) LOOP8(LDJ(nodelist, 1)) AL1(21, 1) LOOP8(LDN(x, 2) LDN(y, 2) LDN(z, 2)) AL1(69, 2)
    LD(volo, 5) AL1(2, 5) ST(vnew) AL(1) LD(v, 6) AL1(2, 6) ST(delv) AL(128) ST(arealg)
    LOOP8(LDJ(nodelist, 1)) AL1(33, 1) LOOP8(LDN(xd, 3) LDN(yd, 3) LDN(zd, 3)) AL1(182, 3)
    ST(dxx) ST(dyy) ST(dzz),
    "nodelist", "volo", "v", "x", "y", "z", "xd", "yd", "zd", "vnew", "delv", "arealg", "dxx",
    "dyy", "dzz");
/* 22: dxx, dyy, dzz reloaded after the store of vdov */
#define DEV(b) LD(b, 2) AL1(1, 2) ST(b)
static const struct kd_desc k_lagrange2 = LKD(
    "CalcLagrangeElementsPart2", NULL,
    AL(14) LD(dyy, 1) LD(dxx, 1) AL1(2, 1) LD(dzz, 1) AL1(3, 1) ST(vdov) DEV(dxx) DEV(dyy)
    DEV(dzz),
    "dxx", "dyy", "dzz", "vdov");
/* 304: three face-normal / velocity-difference pairs, each a square root
 * and a division */
static const struct kd_desc k_q_gradients = LKD(
    "CalcMonotonicQGradientsForElems", lk_nl,
    AL(49) LOOP8(LDJ(nodelist, 1)) AL1(42, 1) LOOP8(LDN(xd, 3)) LOOP8(LDN(yd, 3))
    LOOP8(LDN(zd, 3)) AL(3) LD(vnew, 5) LD(volo, 5) AL1(24, 1) LOOP8(LDN(x, 2))
    LOOP8(LDN(y, 2)) LOOP8(LDN(z, 2)) AL2(64, 2, 3) ST(delx_zeta) AL(31) ST(delv_zeta) AL(16)
    ST(delx_xi) AL(31) ST(delv_xi) AL(16) ST(delx_eta) AL(28) ST(delv_eta),
    "nodelist", "x", "y", "z", "xd", "yd", "zd", "volo", "vnew", "delx_zeta", "delv_zeta",
    "delx_xi", "delv_xi", "delx_eta", "delv_eta");
/* 185 for an interior element (vdov <= 0: the limiter and q terms). Per
 * face f of the element (xi-, xi+, eta-, eta+, zeta-, zeta+): a boundary face
 * runs its case (nbd instructions), an interior face loads the neighbour
 * list and the neighbour's delv (ni, nd instructions before each); @face
 * marks the interior faces (planes 0-5) and the boundary ones (6-11), @nb
 * gives the neighbours. */
#define FACE(f, dv, nbd, ni, nd)                                                            \
    "if 0 < @face[" #f "*n + 6*n + gid]\n" AL(nbd) "end\n"                                    \
    "if 0 < @face[" #f "*n + gid]\n" AL(ni) "load lxim[" #f "*n + gid] 4 -> r3 < r1\n"        \
    AL1(nd, 3) "load " #dv "[@nb[" #f "*n + gid]] 8 -> r4 < r3\nend\n"
static const struct kd_desc k_q_region = LKD(
    "CalcMonotonicQRegionForElems", ((const char *const[]){"face", "nb", NULL}),
    AL(33) LD4(matElemlist, 1) AL1(5, 1) LDI(delv_xi, 2, 1)
    "load elemBC[gid] 4 -> r3 < r1\n" AL1(5, 3) FACE(0, delv_xi, 4, 2, 2) AL(4)
    FACE(1, delv_xi, 2, 2, 2) AL2(8, 4, 2) LDI(delv_eta, 2, 1) AL(3) FACE(2, delv_eta, 7, 3, 2)
    AL(8) FACE(3, delv_eta, 2, 2, 2) AL2(9, 4, 2) LDI(delv_zeta, 2, 1) AL(3)
    FACE(4, delv_zeta, 7, 2, 2) AL(8) FACE(5, delv_zeta, 2, 2, 2) AL2(24, 4, 2)
    LDI(vdov, 5, 1) AL1(8, 5) LDI(delx_xi, 6, 1) LDI(delx_eta, 6, 1) LDI(delx_zeta, 6, 1)
    LDI(vnew, 6, 1) LDI(volo, 6, 1) LDI(elemMass, 6, 1) AL1(42, 6) ST(qq) ST(ql),
    "matElemlist", "elemBC", "lxim", "delv_xi", "delv_eta", "delv_zeta", "delx_xi",
    "delx_eta", "delx_zeta", "vdov", "elemMass", "volo", "vnew", "qq", "ql");
/* 26: vnewc = vnew[matElemlist[i]], clamped to eosvmin, eosvmax */
static const struct kd_desc k_material = LKD(
    "ApplyMaterialPropertiesForElemsPart1", NULL,
    AL(14) LD4(matElemlist, 1) AL1(4, 1) LDI(vnew, 2, 1) AL1(8, 2) ST(vnewc),
    "matElemlist", "vnew", "vnewc");
/* 64: the copies through matElemlist, compression and compHalfStep (vnewc
 * and delvc reloaded after the stores), the eosvmin / eosvmax tests (each
 * reloading vnewc), the q copies (qq_old and ql_old, two planes) and
 * work = 0 */
#define COPY(src, dst) AL(1) LDI(src, 2, 1) AL(1) STS(dst, 2)
static const struct kd_desc k_eos1 = LKD(
    "EvalEOSForElemsPart1", NULL,
    AL(29) LD4(matElemlist, 1) AL1(3, 1) LDI(e, 2, 1) AL1(2, 2) STS(e_old, 2)
    COPY(delv, delvc) COPY(p, p_old) COPY(q, q_old) AL(1) LD(vnewc, 3) AL1(3, 3)
    ST(compression) LD(delvc, 4) LD(vnewc, 4) AL1(4, 4) ST(compHalfStep) AL(2) LD(vnewc, 5)
    AL1(4, 5) LD(vnewc, 5) AL1(4, 5) LDI(qq, 6, 1) AL1(2, 6) STS(qq_old, 6) AL(1)
    LDI(ql, 6, 1) AL(1) "store qq_old[n + gid] 8 < r6\n" AL(2) ST(work),
    "matElemlist", "e", "delv", "p", "q", "qq", "ql", "vnewc", "e_old", "delvc", "p_old",
    "q_old", "compression", "compHalfStep", "qq_old", "work");
/* 28 */
static const struct kd_desc k_energy1 = LKD(
    "CalcEnergyForElemsPart1", NULL,
    AL(17) LD(delvc, 1) AL1(3, 1) LD(q_old, 2) LD(p_old, 2) AL1(2, 2) LD(e_old, 3) AL1(2, 3)
    LD(work, 4) AL1(2, 4) ST(e_new) AL(2),
    "e_old", "delvc", "p_old", "q_old", "work", "e_new");
/* 37: bvc, pbvc, p = bvc * e (bvc reloaded after the store of pbvc), the
 * cut-offs; at the half step on compHalfStep into pHalfStep, then on
 * compression into p_new */
#define PRESSURE(comp, pout)                                                                \
    LKD("CalcPressureForElems", NULL,                                                        \
        AL(19) LD(comp, 1) AL1(3, 1) ST(bvc) AL(1) ST(pbvc) AL(1) LD(e_new, 2) LD(bvc, 2)    \
        AL1(5, 2) ST(pout) AL(1) LD(vnewc, 3) AL1(7, 3),                                     \
        #comp, "bvc", "pbvc", "e_new", #pout, "vnewc")
static const struct kd_desc k_pressure_half = PRESSURE(compHalfStep, pHalfStep);
static const struct kd_desc k_pressure = PRESSURE(compression, p_new);
/* the sound speed of the q terms: ssc <= 0 (no square root) for an element
 * the blast has not reached */
#define SSC(p)                                                                              \
    LD(e_new, 2) LD(pbvc, 2) AL(1) LD(vnewc, 3) AL(2) LD(bvc, 3) AL(p) LD(p_new, 4)
#define QL AL(1) "load qq_old[n + gid] 8 -> r5\n" AL(1) LD(qq_old, 5)
/* 64: vhalf, q_new, then e_new twice (reloads after each store) */
static const struct kd_desc k_energy2 = LKD(
    "CalcEnergyForElemsPart2", NULL,
    AL(25) LD(delvc, 1) AL1(8, 1) LD(compHalfStep, 2) AL1(3, 2) LD(e_new, 3) LD(pbvc, 3) AL(1)
    LD(bvc, 3) AL(2) LD(pHalfStep, 4) AL2(6, 3, 4) QL AL1(1, 5) ST(q_new) LD(delvc, 6) AL(3)
    LD(q_old, 6) AL(1) LD(p_old, 6) AL(1) LD(pHalfStep, 6) AL1(3, 6) LD(e_new, 7) AL1(1, 7)
    ST(e_new) AL(1) LD(work, 8) AL1(4, 8) ST(e_new) AL(2),
    "delvc", "compHalfStep", "e_new", "pbvc", "bvc", "pHalfStep", "qq_old", "q_new", "q_old",
    "p_old", "work");
/* 65: q_tilde, e_new */
static const struct kd_desc k_energy3 = LKD(
    "CalcEnergyForElemsPart3", NULL,
    AL(26) LD(delvc, 1) AL1(7, 1) SSC(1) AL2(6, 3, 4) QL AL1(3, 5) LD(q_old, 6) AL(1)
    LD(p_old, 6) AL(2) LD(q_new, 6) AL(1) LD(pHalfStep, 6) AL1(11, 6) ST(e_new) AL(2),
    "delvc", "e_new", "pbvc", "vnewc", "bvc", "p_new", "qq_old", "q_old", "p_old", "q_new",
    "pHalfStep");
/* 45: q_new, stored again as 0 under q_cut */
static const struct kd_desc k_energy4 = LKD(
    "CalcEnergyForElemsPart4", NULL,
    AL(21) LD(delvc, 1) AL1(5, 1) SSC(2) AL2(6, 3, 4) QL AL1(2, 5) ST(q_new) AL(4) ST(q_new),
    "delvc", "e_new", "pbvc", "vnewc", "bvc", "p_new", "qq_old", "q_new");
/* 24: p, e, q at matElemlist[i] */
static const struct kd_desc k_eos2 = LKD(
    "EvalEOSForElemsPart2", NULL,
    AL(18) LD(p_new, 1) LD4(matElemlist, 2) AL1(2, 2) STS(p, 1) AL(1) LD(e_new, 3) AL(1)
    STS(e, 3) AL(1) LD(q_new, 4) AL(1) STS(q, 4),
    "p_new", "matElemlist", "p", "e_new", "e", "q_new", "q");
/* 33: the clamp and square root are selects, no branch */
static const struct kd_desc k_sound_speed = LKD(
    "CalcSoundSpeedForElems", NULL,
    AL(20) SSC(2) AL2(6, 3, 4) LD4(matElemlist, 5) AL1(2, 5) ST(ss),
    "e_new", "pbvc", "vnewc", "bvc", "p_new", "matElemlist", "ss");
/* 17 */
static const struct kd_desc k_update_volumes = LKD(
    "UpdateVolumesForElems", NULL, AL(12) LD(vnew, 1) AL1(5, 1) ST(v), "vnew", "v");

/* The kernels of a time step, in launch order, and of each its items (a
 * thread per element, node or symmetry-plane node; IT_HG: eight threads per
 * element) and LDS regions of 8 bytes per thread. */
static const struct kd_desc *const lulesh_descs[] = {
    &k_init_stress, &k_integrate_stress, &k_add_forces, &lulesh_hg_control_kd[0],
    &lulesh_fb_hourglass_kd[0], &k_add_forces2, &k_accel, &k_accel_bc, &k_velocity, &k_position,
    &k_kinematics, &k_lagrange2, &k_q_gradients, &k_q_region, &k_material, &k_eos1,
    &k_energy1, &k_pressure_half, &k_energy2, &k_pressure, &k_energy3, &k_pressure, &k_energy4,
    &k_eos2, &k_sound_speed, &k_update_volumes, &lulesh_courant_kd, &lulesh_hydro_kd,
    &lulesh_hg_control_kd[1], &lulesh_fb_hourglass_kd[1], NULL,
};
/* the hourglass kernels that clamp the element: the last two, in place of */
#define LK_PER_STEP (sizeof lulesh_descs / sizeof lulesh_descs[0] - 3)
#define LK_HG 3
enum { IT_ELEM, IT_NODE, IT_SYMM, IT_HG };
static const struct lk_def {
    uint8_t items, lds;
} lk_defs[LK_PER_STEP] = {
    [2] = {IT_NODE, 0}, [3] = {IT_HG, 2}, [4] = {IT_HG, 1}, [5] = {IT_NODE, 0},
    [6] = {IT_NODE, 0}, [7] = {IT_SYMM, 0}, [8] = {IT_NODE, 0}, [9] = {IT_NODE, 0},
    [26] = {IT_ELEM, 1}, [27] = {IT_ELEM, 1},
};

/* Buffer slots, created in this order. */
enum {
    /* nodes */
    B_X, B_Y, B_Z, B_XD, B_YD, B_ZD, B_XDD, B_YDD, B_ZDD, B_FX, B_FY, B_FZ, B_NMASS,
    B_NECOUNT, B_NECORNER, /* nodeElemCornerList: 8 planes of nodes, [i + numNode * j] */
    /* symmetry planes */
    B_SYMMX, B_SYMMY, B_SYMMZ,
    /* elements */
    B_MATEL, B_NODELIST, B_LXIM, B_ELEMBC, /* B_LXIM: lxim, lxip, letam, letap, lzetam, lzetap */
    B_DXX, B_DYY, B_DZZ, B_DELV_XI, B_DELV_ETA, B_DELV_ZETA, B_DELX_XI, B_DELX_ETA, B_DELX_ZETA,
    B_E, B_P, B_Q, B_QL, B_QQ, B_V, B_VOLO, B_VNEW, B_DELV, B_VDOV, B_AREALG, B_SS, B_EMASS,
    /* GPU temporaries */
    B_SIGXX, B_SIGYY, B_SIGZZ, B_DETERM, B_FXE, B_FYE, B_FZE,
    B_DVDX, B_DVDY, B_DVDZ, B_X8N, B_Y8N, B_Z8N,
    B_VNEWC, B_EOLD, B_DELVC, B_POLD, B_QOLD, B_COMPR, B_COMPH, B_QQOLD, B_WORK,
    B_ENEW, B_PNEW, B_QNEW, B_BVC, B_PBVC, B_PHALF,
    B_DTCOUR, B_DTHYDRO,
    NBUF
    /* B_QQOLD holds the EOS copies of qq and ql as two planes, and B_LXIM the six
     * neighbour lists as six, so that EvalEOSForElemsPart1 and
     * CalcMonotonicQRegionForElems fit KERNEL_MAX_ARGS structures */
};

/* Their names; a description names lxim..lzetap and qq_old..ql_old by
 * their first part. */
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

/* The host arrays the descriptions read, by name. */
enum {
    A_NL, A_COUNT, A_CORNER, A_SX, A_SY, A_SZ, A_FACE, A_NB, A_NLC, A_ELC, A_NBN, A_SW, A_SETS,
    NARR
};
static const char *const lulesh_arrays[NARR] = {
    "nl", "count", "corner", "sx", "sy", "sz", "face", "nb", "nlc", "elc", "nbn", "sw", "sets",
};

struct lulesh {
    struct kdw w;
    struct kd_array arr[NARR];
    uint32_t *data[NARR];       /* the arrays the model allocated */
    uint64_t size, nelem, nnode, nsymm;
    unsigned steps;
    struct kdw_launch launch[LK_PER_STEP];
};

/* LULESH 1.0's element and node numbering: x fastest, then y, then z. The
 * six face neighbours (an element on the boundary is its own) and which
 * faces are interior (planes 0-5 of face) or on the boundary (6-11). */
static void lulesh_mesh(const struct lulesh *l, uint32_t *nl, uint32_t *nb, uint32_t *face)
{
    uint64_t s = l->size, en = s + 1, ne = l->nelem, pl = en * en;
    for (uint64_t p = 0, e = 0; p < s; p++)
        for (uint64_t r = 0; r < s; r++)
            for (uint64_t c = 0; c < s; c++, e++) {
                uint64_t n = (p * en + r) * en + c;
                uint64_t nodes[8] = {n, n + 1, n + en + 1, n + en,
                                     n + pl, n + pl + 1, n + pl + en + 1, n + pl + en};
                for (int k = 0; k < 8; k++)
                    nl[k * ne + e] = (uint32_t)nodes[k];
                int64_t step[6] = {-1, 1, -(int64_t)s, (int64_t)s, -(int64_t)(s * s),
                                   (int64_t)(s * s)};
                bool in[6] = {c > 0, c + 1 < s, r > 0, r + 1 < s, p > 0, p + 1 < s};
                for (int f = 0; f < 6; f++) {
                    nb[f * ne + e] = (uint32_t)(in[f] ? (int64_t)e + step[f] : (int64_t)e);
                    face[f * ne + e] = in[f];
                    face[(6 + f) * ne + e] = !in[f];
                }
            }
}

/* The symmetry planes' node lists: x = 0, y = 0, z = 0. */
static void lulesh_symm(const struct lulesh *l, uint32_t *sx, uint32_t *sy, uint32_t *sz)
{
    uint64_t en = l->size + 1;
    for (uint64_t a = 0, i = 0; a < en; a++)
        for (uint64_t b = 0; b < en; b++, i++) {
            sx[i] = (uint32_t)((a * en + b) * en);
            sy[i] = (uint32_t)(a * en * en + b);
            sz[i] = (uint32_t)(a * en + b);
        }
}

/* Each node's corner count and its element corners (k * numElem + e), in
 * element order, laid out as the port's nodeElemCornerList: the j-th corner
 * of node i at i + numNode * j. */
static void lulesh_corners(const struct lulesh *l, const uint32_t *nl, uint32_t *count,
                           uint32_t *corner)
{
    uint64_t ne = l->nelem, nn = l->nnode;
    for (uint64_t e = 0; e < ne; e++)
        for (uint64_t k = 0; k < 8; k++) {
            uint32_t n = nl[k * ne + e];
            corner[n + nn * count[n]++] = (uint32_t)(k * ne + e);
        }
}

/* The element and its nodelist per thread slot of the hourglass kernels
 * (bx * E + tx, ty * s + bx * E + tx), the slots past the last element
 * holding the last element. */
static void lulesh_slots(const struct lulesh *l, const uint32_t *nl, uint32_t *elc,
                         uint32_t *nlc, uint64_t s)
{
    for (uint64_t e = 0; e < s; e++)
        elc[e] = (uint32_t)(e < l->nelem ? e : l->nelem - 1);
    for (uint64_t k = 0; k < 8; k++)
        for (uint64_t e = 0; e < s; e++)
            nlc[k * s + e] = nl[k * l->nelem + elc[e]];
}

static const struct {
    uint8_t a;
    uint8_t n; /* elements, of nelem, nnode or nsymm; or of E * 8 (nlc) */
} arr_size[NARR] = {
    [A_NL] = {0, 8}, [A_COUNT] = {1, 1}, [A_CORNER] = {1, 8}, [A_SX] = {2, 1}, [A_SY] = {2, 1},
    [A_SZ] = {2, 1}, [A_FACE] = {0, 12}, [A_NB] = {0, 6}, [A_NLC] = {3, 8},
    [A_ELC] = {3, 1},
};

static void lulesh_host(struct lulesh *l, uint64_t s, uint32_t block, unsigned warp)
{
    uint64_t per[4] = {l->nelem, l->nnode, l->nsymm, s};
    for (unsigned a = 0; a <= A_ELC; a++) {
        uint64_t n = per[arr_size[a].a] * arr_size[a].n;
        l->data[a] = xcalloc(n, sizeof *l->data[a]);
        l->arr[a] = (struct kd_array){l->data[a], n};
    }
    lulesh_mesh(l, l->data[A_NL], l->data[A_NB], l->data[A_FACE]);
    lulesh_symm(l, l->data[A_SX], l->data[A_SY], l->data[A_SZ]);
    lulesh_corners(l, l->data[A_NL], l->data[A_COUNT], l->data[A_CORNER]);
    lulesh_slots(l, l->data[A_NL], l->data[A_ELC], l->data[A_NLC], s);
    l->data[A_SW] = xcalloc(LULESH_SW_BITS * block, sizeof *l->data[A_SW]);
    l->data[A_SETS] = xcalloc(LULESH_SETS * 8, sizeof *l->data[A_SETS]);
    lulesh_hg_tables(block, warp, l->data[A_SW], l->data[A_SETS]);
    l->arr[A_SW] = (struct kd_array){l->data[A_SW], LULESH_SW_BITS * block};
    l->arr[A_SETS] = (struct kd_array){l->data[A_SETS], LULESH_SETS * 8};
    l->arr[A_NBN] = (struct kd_array){lulesh_nb_node, 48};
}

static unsigned buf_planes(unsigned b)
{
    return b == B_NECORNER || b == B_NODELIST || (b >= B_FXE && b <= B_Z8N) ? 8
           : b == B_LXIM                                                   ? 6
           : b == B_QQOLD                                                  ? 2
                                                                           : 1;
}

static void lulesh_buffers(struct lulesh *l, const struct kernel_buf **bufs, uint32_t block)
{
    for (unsigned b = 0; b < NBUF; b++) {
        uint64_t items = b < B_SYMMX ? l->nnode : b < B_MATEL ? l->nsymm : l->nelem;
        uint64_t esize = b >= B_NECOUNT && b <= B_ELEMBC ? 4 : 8;
        if (b == B_DTCOUR || b == B_DTHYDRO)
            items = div_ceil(l->nelem, block);
        bufs[b] = wl_alloc(l->w.env, lulesh_bufs[b], items * buf_planes(b) * esize);
    }
}

/* The index of name in names (a name may stand for "name..rest"). */
static unsigned find(const char *const *names, unsigned n, const char *name)
{
    size_t len = strlen(name);
    for (unsigned i = 0; i < n; i++)
        if (!strncmp(names[i], name, len) && (!names[i][len] || names[i][len] == '.'))
            return i;
    BUG("lulesh: no buffer or array '%s'", name);
}

/* Kernel i of a time step: its geometry, parameters, buffers and arrays. */
static void lulesh_launch(struct lulesh *l, unsigned i, const struct kernel_buf *const *bufs,
                          uint32_t block)
{
    const struct lk_def *d = &lk_defs[i];
    struct kdw_launch *k = &l->launch[i];
    uint64_t items[3] = {l->nelem, l->nnode, l->nsymm};
    uint32_t per = d->items == IT_HG ? block / 8 : block;
    uint64_t n = d->items == IT_HG ? l->nelem : items[d->items];
    k->prog = d->items == IT_HG && n % per ? (unsigned)LK_PER_STEP + i - LK_HG : i;
    const struct kd_desc *kd = lulesh_descs[k->prog];
    k->grid = (struct kernel_dim){(uint32_t)div_ceil(n, per), 1, 1};
    k->block = d->items == IT_HG ? (struct kernel_dim){per, 8, 1}
                                 : (struct kernel_dim){block, 1, 1};
    k->params[0] = (int64_t)n;
    k->params[1] = (int64_t)k->grid.x * per; /* s: the hourglass kernels' slots per node */
    k->lds_b = d->lds * block * 8;
    for (unsigned b = 0; kd->bufs[b]; b++)
        k->bufs[b] = bufs[find(lulesh_bufs, NBUF, kd->bufs[b])];
    for (unsigned a = 0; kd->arrays && kd->arrays[a]; a++)
        k->arrays[a] = l->arr[find(lulesh_arrays, NARR, kd->arrays[a])];
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

static int lulesh_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    struct lulesh *l = (struct lulesh *)w;
    uint64_t block = cfg_uint(sec, "block");
    if (block % w->env->warp_size || !is_pow2(block))
        return cfg_err(e, sec, "block",
                       "must be a power of two and a multiple of the warp size (%u)",
                       w->env->warp_size);
    l->size = cfg_uint(sec, "size");
    l->nelem = l->size * l->size * l->size;
    l->nnode = (l->size + 1) * (l->size + 1) * (l->size + 1);
    l->nsymm = (l->size + 1) * (l->size + 1);
    l->steps = lulesh_steps(cfg_float(sec, "stoptime"), (unsigned)cfg_uint(sec, "iterations"));
    lulesh_host(l, div_ceil(l->nelem, block / 8) * (block / 8), (uint32_t)block,
                w->env->warp_size);
    const struct kernel_buf *bufs[NBUF];
    lulesh_buffers(l, bufs, (uint32_t)block);
    for (unsigned i = 0; i < LK_PER_STEP; i++)
        lulesh_launch(l, i, bufs, (uint32_t)block);
    return 0;
}

static void lulesh_release(struct kdw *w)
{
    struct lulesh *l = (struct lulesh *)w;
    for (unsigned a = 0; a < NARR; a++)
        free(l->data[a]);
}

static bool lulesh_plan(struct kdw *w, uint64_t i, struct kdw_launch *k)
{
    const struct lulesh *l = (const struct lulesh *)w;
    if (i == (uint64_t)l->steps * LK_PER_STEP)
        return false;
    *k = l->launch[i % LK_PER_STEP];
    return true;
}

static uint64_t lulesh_count(const struct kdw *w)
{
    return (uint64_t)((const struct lulesh *)w)->steps * LK_PER_STEP;
}

static const struct kdw_model lulesh_model = {
    .size = sizeof(struct lulesh), .descs = lulesh_descs, .setup = lulesh_setup,
    .plan = lulesh_plan, .count = lulesh_count, .release = lulesh_release};

static void *lulesh_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&lulesh_model, env, sec, e);
}

static const char *const lulesh_small[] = {"size=4", "iterations=2", "block=64", NULL};

const struct wl_ops wl_lulesh = {
    .name = "lulesh",
    .suite = "CORAL-2",
    .desc = "LULESH 1.0 (CORAL-2): Sedov blast on a hex mesh, 28 kernels per time step",
    .keys = lulesh_keys,
    .small = lulesh_small,
    .create = lulesh_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
    .kernels = kdw_kernels,
};
