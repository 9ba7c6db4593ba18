/*
 * pennant.c -- PENNANT (CORAL-2 / LANL), the GPU version (HydroGPU): 2D
 * staggered-grid Lagrangian hydrodynamics on an unstructured mesh of points,
 * zones and sides, run on the Noh problem (noh.pnt: a pie mesh, a quarter
 * disc of radius 1 in 40 x 40 zones, uniform inflow u = -1, to t = 0.6).
 *
 * Modelled: the pie mesh built as PENNANT's GenMesh builds it (one centre
 * point; triangles in the inner ring, quads outside), the side maps
 * (mapsp1, mapsp2, mapsz, mapss4), side chunks of at most 64 sides holding
 * whole zones, the point-to-side inverse map (mappsfirst / mapssnext) made
 * by gpuInvMap once, then per cycle gpuMain1 (points: save and
 * half-advance), gpuMain2 (sides: geometry, masses, forces; zone sums in LDS
 * across the chunk), gpuMain3 (points: gather corner masses and forces along
 * the mapssnext chains, boundary conditions, advance), gpuMain4 (sides: new
 * geometry and work) and gpuMain5 (zones: energy, density, time-step
 * constraints, an LDS minimum and an atomic one on dtnext). The memory
 * operations are HydroGPU's on the arrays the model has, with the PTX's
 * instruction counts between them (nvcc 13, -arch=sm_90).
 * Abstracted: no data values; the temporaries HydroGPU keeps in global
 * memory (zxp, ssurf, sareap, ...: docs/workloads/pennant.md); the cycle
 * count comes from PENNANT's time step rules evaluated on the initial
 * state; the host sort before gpuInvMap.
 */
#include <math.h>
#include <stdlib.h>

#include "workload/coral2/mk.h"

static const struct cfg_key pennant_keys[] = {
    {"nzx", CFG_INT, "40", 1, 100000, "zones in the angular direction (meshparams 1)", NULL},
    {"nzy", CFG_INT, "40", 1, 100000, "zones in the radial direction (meshparams 2)", NULL},
    {"lenx", CFG_FLOAT, "90", 1, 360, "angle of the pie in degrees (meshparams 3)", NULL},
    {"leny", CFG_FLOAT, "1.0", 1e-6, 1e6, "radius of the pie (meshparams 4)", NULL},
    {"tstop", CFG_FLOAT, "0.6", 0, 1e9, "simulated stop time", NULL},
    {"cstop", CFG_INT, "999999", 1, 100000000, "maximum cycles", NULL},
    {"dtinit", CFG_FLOAT, "0.0025", 1e-12, 1e9, "first time step", NULL},
    {"dtmax", CFG_FLOAT, "1.0", 1e-12, 1e9, "largest time step", NULL},
    {"dtfac", CFG_FLOAT, "1.2", 1, 100, "largest growth of the time step per cycle", NULL},
    {"cfl", CFG_FLOAT, "0.6", 1e-6, 10, "Courant number", NULL},
    {"cflv", CFG_FLOAT, "0.1", 1e-6, 10, "largest relative volume change per cycle", NULL},
    {"ssmin", CFG_FLOAT, "0.1", 0, 1e9, "smallest sound speed", NULL},
    {"uinitradial", CFG_FLOAT, "-1.0", -1e9, 1e9, "initial radial velocity", NULL},
    {"chunk", CFG_INT, "64", 64, 1024, "CHUNK_SIZE: threads per work-group, sides per chunk",
     NULL},
    CFG_END,
};

enum {
    B_MAPS, /* mapsp1, mapsp2, mapsz, mapss4 (planes 0..3) */
    B_SPKEY, B_SPVAL, B_PSFIRST, B_SSNEXT,
    B_PX, B_PU, B_PX0, B_PU0, B_PXP,
    B_ZM, B_ZE, B_ZWRATE, B_ZVOL, B_ZVOL0, B_ZR, B_ZPSS, B_ZDLU, B_ZW, B_ZETOT,
    B_SMF, B_CMASWT, B_SFP, B_SFQ, B_CFTOT,
    B_DTNEXT, B_IDTNEXT,
    L_DSS4, L_DSS3, L_CT2, L_CT, L_DT, L_DTI, /* LDS: gpuMain2/4's, gpuMain5's ctemp, ctempi */
    V_PU0, V_PXP, /* 8-byte views of pu0 and pxp: plane 0 = x, 1 = y */
    NBUF
};
enum { P_SP1, P_SP2, P_SZ, P_SS4 };  /* planes of B_MAPS */
enum { P_ZP = 0, P_ZSS = 1 };        /* of B_ZPSS */
enum { P_ZDL = 0, P_ZDU = 1 };       /* of B_ZDLU */
enum {
    M_SP1, M_SP2, M_SZ, M_ZFIRST, M_SS3, M_SS4, M_SP0,         /* per side */
    M_KEY, M_VAL, M_PREV, M_NEXT, M_RUN, M_NOT0, M_LAST, M_NOTLAST, /* per sorted entry */
    M_BCX, M_BCY,                                              /* per point */
    M_Z0,                                                      /* per zone */
    M_ZERO,                                                    /* any item: 0 */
    NMAP
};
enum { L_ZS, L_PS, L_MIN, L_MINS }; /* lists: zone sides, point sides, dt reduction */

/* Registers: 1 indices (maps, chains), 2-4 zone, side and point values,
 * 5 pxp, 6 pu, 7 an LDS index (dss3, dss4), 8-10 LDS values, 11-12 dtnext. */
#define ALU(n_) {.kind = KOP_ALU, .n = (n_)}
#define ALUW(n_, a, b) {.kind = KOP_ALU, .n = (n_), .src0 = (a), .src1 = (b)}
#define ALUIF(n_, m) {.kind = KOP_ALU, .n = (n_), .flags = MK_IF, .pred = (m)}
#define BAR {.kind = KOP_BARRIER}
#define END {.kind = MK_END}
/* global: the item's element (plane pl), through map m, under predicate c */
#define LD(b, d) LDK(b, 0, d)
#define LDK(b, pl, d) {.kind = KOP_LOAD, .buf = (b), .ix = MK_ITEM, .k = (pl), .dst = (d)}
#define ST(b, s) {.kind = KOP_STORE, .buf = (b), .ix = MK_ITEM, .src0 = (s)}
#define LDM(b, m, d, s) LDMK(b, 0, m, d, s)
#define LDMK(b, pl, m, d, s) \
    {.kind = KOP_LOAD, .buf = (b), .ix = MK_MAP, .k = (pl), .map = (m), .dst = (d), .src0 = (s)}
#define STM(b, m, s) STMK(b, 0, m, s)
#define STMK(b, pl, m, s) \
    {.kind = KOP_STORE, .buf = (b), .ix = MK_MAP, .k = (pl), .map = (m), .src0 = (s)}
#define IFC(c) .flags = MK_IF, .pred = (c)
#define LDIF(b, c, d) {.kind = KOP_LOAD, .buf = (b), .ix = MK_ITEM, IFC(c), .dst = (d)}
#define STIF(b, c, s) {.kind = KOP_STORE, .buf = (b), .ix = MK_ITEM, IFC(c), .src0 = (s)}
#define LDMIF(b, pl, m, c, d) \
    {.kind = KOP_LOAD, .buf = (b), .ix = MK_MAP, .k = (pl), .map = (m), IFC(c), .dst = (d)}
#define STMIF(b, pl, m, c, s) \
    {.kind = KOP_STORE, .buf = (b), .ix = MK_MAP, .k = (pl), .map = (m), IFC(c), .src0 = (s)}
#define ATOMIF(b, m, c, d) \
    {.kind = KOP_ATOMIC, .buf = (b), .ix = MK_MAP, .map = (m), IFC(c), .dst = (d)}
/* list loops: element of the j-th list entry */
#define LOOP(l) {.kind = MK_LOOP, .map = (l)}
#define LDL(b, pl, l, d, s) \
    {.kind = KOP_LOAD, .buf = (b), .ix = MK_LIST, .k = (pl), .map = (l), .dst = (d), .src0 = (s)}
/* LDS: the item's slot, another item's (map m), a list entry's */
#define LDS_ST(b, s) {.kind = KOP_LDS_STORE, .buf = (b), .ix = MK_ITEM, .src0 = (s)}
#define LDS_LD(b, d) {.kind = KOP_LDS_LOAD, .buf = (b), .ix = MK_ITEM, .dst = (d)}
#define LDS_STM(b, m) {.kind = KOP_LDS_STORE, .buf = (b), .ix = MK_LMAP, .map = (m), .src0 = 1}
#define LDS_LDM(b, m, d) \
    {.kind = KOP_LDS_LOAD, .buf = (b), .ix = MK_LMAP, .map = (m), .dst = (d), .src0 = 7}
#define LDS_LDL(b, l, d, s) \
    {.kind = KOP_LDS_LOAD, .buf = (b), .ix = MK_LIST, .map = (l), .dst = (d), .src0 = (s)}
#define LDS_STL(b, l, s) \
    {.kind = KOP_LDS_STORE, .buf = (b), .ix = MK_LIST, .map = (l), .src0 = (s)}
#define LDS_LD0(b, d) {.kind = KOP_LDS_LOAD, .buf = (b), .ix = MK_WG, .dst = (d)}
/* The zone's other sides from the chunk's LDS copy (sn = s0 + dss4[s0];
 * while (sn != s0) sn += dss4[sn]), after the own slot and dss4[s0]: per
 * side ALU a, the value, ALU m, dss4[sn], ALU c. */
#define ZLOOP(b, a, m, c)                                                          \
    LOOP(L_ZS), ALU(a), LDS_LDL(b, L_ZS, 8, 7), ALU(m), LDS_LDL(L_DSS4, L_ZS, 7, 0), \
        ALUW(c, 8, 0), END
/* Publish a side's value in LDS and read the zone's others (f: the ALU
 * before the loop, with its set-up). */
#define ZPUB(b, s, f) LDS_ST(b, s), BAR, LDS_LD(b, 8), LDS_LD(L_DSS4, 7), ALU(f)

/*
 * The kernels follow HydroGPU's PTX (nvcc 13, -arch=sm_90) memory operation
 * by memory operation on the arrays the model has (docs/workloads/pennant.md
 * lists the temporaries it leaves out); each ALU count is the PTX's
 * instructions between the same operations, the left-out accesses' address
 * arithmetic included.
 */

/* gpuMain1 (per point): px0 = px, pu0 = pu, pxp = px0 + dth pu0 (px0 is
 * read back: the stores may alias). */
static const struct mk_step k_main1[] = {
    ALU(14), LD(B_PX, 1), ST(B_PX0, 1), ALU(3), LD(B_PU, 2), ALU(1), ST(B_PU0, 2), ALU(1),
    LD(B_PX0, 1), ALUW(3, 1, 2), ST(B_PXP, 0),
};

/* gpuMain2 (per side). */
static const struct mk_step k_main2[] = {
    /* the side's maps; dss4, dss3 */
    ALU(14), LDK(B_MAPS, P_SP1, 1), ALU(2), LDK(B_MAPS, P_SP2, 1), ALU(2), LDK(B_MAPS, P_SZ, 1),
    ALU(2), LDK(B_MAPS, P_SS4, 1), ALUW(5, 1, 0), LDS_ST(L_DSS4, 1), ALU(4), LDS_STM(L_DSS3, M_SS4),
    BAR, ALU(1), LDS_LD(L_DSS3, 7),
    /* zvol0 = zvol; calcZoneCtrs */
    ALU(4), LDM(B_ZVOL, M_SZ, 2, 1), ALUW(2, 2, 0), STM(B_ZVOL0, M_SZ, 2), ALU(8),
    LDM(B_PXP, M_SP1, 5, 1), ZPUB(L_CT2, 5, 3 + 2), ZLOOP(L_CT2, 2, 5, 3),
    /* meshCalcCharLen */
    ALU(9), LDM(B_PXP, M_SP2, 5, 1), LDM(B_PXP, M_SP1, 5, 1), ALUW(20, 5, 0),
    ZPUB(L_CT, 0, 2 + 1), ZLOOP(L_CT, 2, 3, 3),
    /* zdl; ssurf and calcSideVols; calcZoneVols walks mapss4 */
    ALU(2), STMK(B_ZDLU, P_ZDL, M_SZ, 8), LDM(B_PXP, M_SP1, 5, 1), LDM(B_PXP, M_SP2, 5, 1),
    ALUW(28 + 2, 5, 0), BAR, LDK(B_MAPS, P_SS4, 1), ALU(2),
    LOOP(L_ZS), ALU(7), LDL(B_MAPS, P_SS4, L_ZS, 1, 1), ALU(2), END,
    /* hydroCalcRho, calcCrnrMass */
    ALU(5), LDM(B_ZM, M_SZ, 2, 1), ALU(9), LD(B_SMF, 2), LDM(B_SMF, M_SS3, 2, 0), ALUW(3, 2, 0),
    ST(B_CMASWT, 0), ALU(3),
    /* pgasCalcStateAtHalf in the zone's first side */
    ALUIF(14, M_ZFIRST), LDMIF(B_ZE, 0, M_SZ, M_ZFIRST, 2), ALUIF(2, M_ZFIRST),
    LDMIF(B_ZR, 0, M_SZ, M_ZFIRST, 2), ALUIF(10, M_ZFIRST), STMIF(B_ZPSS, P_ZSS, M_SZ, M_ZFIRST, 2),
    ALUIF(1, M_ZFIRST), LDMIF(B_ZVOL0, 0, M_SZ, M_ZFIRST, 2), ALUIF(8, M_ZFIRST),
    LDMIF(B_ZWRATE, 0, M_SZ, M_ZFIRST, 2), ALUIF(8, M_ZFIRST),
    STMIF(B_ZPSS, P_ZP, M_SZ, M_ZFIRST, 2), ALUIF(1, M_ZFIRST), ALU(1 + 4),
    /* pgasCalcForce, ttsCalcForce */
    ALU(5), BAR, ALU(1), LDMK(B_ZPSS, P_ZP, M_SZ, 2, 1), ALUW(4, 2, 0), ST(B_SFP, 0), ALU(2),
    LD(B_SMF, 2), ALU(3), LDMK(B_ZPSS, P_ZSS, M_SZ, 2, 1), ALUW(13, 2, 0),
    /* qcsSetCornerDiv */
    LDM(B_PU, M_SP1, 6, 1), ZPUB(L_CT2, 6, 3 + 2), ZLOOP(L_CT2, 3, 5, 3),
    ALU(7), LDM(B_PU, M_SP1, 6, 1), LDM(B_PXP, M_SP1, 5, 1), ALU(1), LDM(B_PU, M_SP2, 6, 1),
    ALU(4), LDM(B_PXP, M_SP2, 5, 1), ALU(6), LDMK(B_MAPS, P_SP1, M_SS3, 1, 0), ALU(2),
    LDM(B_PU, M_SP0, 6, 1), ALU(5), LDM(B_PXP, M_SP0, 5, 1), ALUW(34 + 4, 5, 6),
    /* qcsSetQCnForce */
    ALU(86), LDMK(B_ZPSS, P_ZSS, M_SZ, 2, 1), ALUW(10, 2, 0), LDMK(B_MAPS, P_SP1, M_SS3, 1, 0),
    LDM(B_PXP, M_SP1, 5, 1), ALU(2), LDM(B_PXP, M_SP0, 5, 1), ALU(5), LDM(B_PXP, M_SP2, 5, 1),
    ALU(5), LDM(B_PU, M_SP1, 6, 1), ALU(1), LDM(B_PU, M_SP0, 6, 1), ALUW(11, 5, 6),
    LDM(B_PU, M_SP2, 6, 1), LDM(B_PU, M_SP1, 6, 1),
    /* qcsSetForce; cftot */
    ALUW(11 + 1 + 5 + 19, 6, 0), BAR, LDM(B_PXP, M_SP1, 5, 1), LDM(B_PXP, M_SP2, 5, 1),
    ALUW(25, 5, 0), ST(B_SFQ, 0), LD(B_SFP, 2), ALUW(4, 2, 0), LDS_ST(L_CT2, 2), BAR,
    LDS_LD(L_CT2, 8), LDS_LD(L_DSS3, 7), ALU(1), LDS_LDM(L_CT2, M_SS3, 9), ALUW(4, 8, 9),
    ST(B_CFTOT, 0),
    /* qcsSetVelDiff */
    LDM(B_PXP, M_SP2, 5, 1), LDM(B_PXP, M_SP1, 5, 1), ALU(2), LDM(B_PU, M_SP2, 6, 1),
    LDM(B_PU, M_SP1, 6, 1), ALUW(9 + 2 + 6, 5, 6), ZPUB(L_CT, 0, 2 + 1), ZLOOP(L_CT, 4, 3, 3),
    ALU(2), BAR, LDMK(B_ZPSS, P_ZSS, M_SZ, 2, 1), ALUW(5, 2, 8), STMK(B_ZDLU, P_ZDU, M_SZ, 0),
};

/* gpuMain3 (per point): gatherToPoints twice along the chain, the fixed
 * boundary conditions x = 0 and y = 0 (pu0 projected at the points on
 * them), calcAccel, advPosFull (pu0 read as two 8-byte halves, again after
 * the store to pu). */
static const struct mk_step k_main3[] = {
    ALU(12), LD(B_PSFIRST, 1), ALU(8),
    LOOP(L_PS), ALU(2), LDL(B_CMASWT, 0, L_PS, 2, 1), ALU(3), LDL(B_SSNEXT, 0, L_PS, 1, 1),
    ALUW(2, 2, 0), END,
    ALU(9),
    LOOP(L_PS), ALU(2), LDL(B_CFTOT, 0, L_PS, 2, 1), ALU(4), LDL(B_SSNEXT, 0, L_PS, 1, 1),
    ALUW(2, 2, 0), END,
    ALU(10), LD(B_PXP, 3), ALUW(21, 3, 0),
    LDIF(B_PU0, M_BCX, 4), ALUIF(6, M_BCX), STIF(B_PU0, M_BCX, 4), ALUIF(6, M_BCX),
    ALU(12), LD(B_PXP, 3), ALUW(18, 3, 0),
    LDIF(B_PU0, M_BCY, 4), ALUIF(6, M_BCY), STIF(B_PU0, M_BCY, 4), ALUIF(6, M_BCY),
    ALU(16), LDK(V_PU0, 0, 4), LDK(V_PU0, 1, 4), ALUW(3, 4, 2), ST(B_PU, 0), LDK(V_PU0, 0, 4),
    ALU(1), LDK(V_PU0, 1, 4), ALU(4), LD(B_PX0, 3), ALUW(3, 3, 4), ST(B_PX, 0),
};

/* gpuMain4 (per side): calcZoneCtrs, calcSideVols, calcZoneVols along
 * mapss4, hydroCalcWork (pxp's x only). */
static const struct mk_step k_main4[] = {
    ALU(14), LDK(B_MAPS, P_SP1, 1), ALU(2), LDK(B_MAPS, P_SP2, 1), ALU(2), LDK(B_MAPS, P_SZ, 1),
    ALU(2), LDK(B_MAPS, P_SS4, 1), ALUW(5, 1, 0), LDS_ST(L_DSS4, 1), BAR,
    ALU(8), LDM(B_PX, M_SP1, 5, 1), ZPUB(L_CT2, 5, 3 + 2), ZLOOP(L_CT2, 2, 5, 3),
    ALU(9), LDM(B_PX, M_SP2, 5, 1), LDM(B_PX, M_SP1, 5, 1), ALUW(17 + 2, 5, 0), BAR,
    LDK(B_MAPS, P_SS4, 1), ALU(2), LOOP(L_ZS), ALU(7), LDL(B_MAPS, P_SS4, L_ZS, 1, 1), ALU(2), END,
    ALU(3), STM(B_ZVOL, M_SZ, 0), ALU(10), LD(B_SFP, 2), ALU(1), LD(B_SFQ, 2), ALU(4),
    LDM(B_PU0, M_SP1, 6, 1), ALU(1), LDM(B_PU, M_SP1, 6, 1), ALU(5), LDM(B_PU0, M_SP2, 6, 1),
    ALU(1), LDM(B_PU, M_SP2, 6, 1), ALU(8), LDM(V_PXP, M_SP1, 5, 1), ALU(1),
    LDM(V_PXP, M_SP2, 5, 1), ALUW(6, 5, 6), LDS_ST(L_CT, 0), ALU(1), LDM(B_ZETOT, M_SZ, 2, 1),
    BAR, LDS_LD(L_CT, 8), LDS_LD(L_DSS4, 7), ALU(2 + 1), ZLOOP(L_CT, 2, 3, 3),
    ALUW(1, 2, 8), STM(B_ZETOT, M_SZ, 0), ALU(1), STM(B_ZW, M_SZ, 0),
};

/* gpuMain5 (per zone): hydroCalcWorkRate, hydroCalcEnergy, hydroCalcRho,
 * hydroCalcDtCourant and hydroCalcDtVolume, then hydroFindMinDt: the
 * chunk's minimum in LDS (the smaller value and its index moved down each
 * step: assumed in every step, the data decide), and thread 0's atomicMin
 * on dtnext (a compare-and-swap, assumed to succeed at once) and idtnext. */
static const struct mk_step k_main5[] = {
    ALU(18), LD(B_ZVOL0, 1), LD(B_ZVOL, 1), ALU(3), LDK(B_ZPSS, P_ZP, 1), LD(B_ZW, 1),
    ALUW(3, 1, 0), ST(B_ZWRATE, 0), ALU(5), LD(B_ZM, 2), ALU(2), LD(B_ZETOT, 2), ALUW(2, 2, 0),
    ST(B_ZE, 0), ALU(3), ST(B_ZR, 0), ALU(7), LDK(B_ZPSS, P_ZSS, 3), ALU(1),
    LDK(B_ZDLU, P_ZDU, 3), ALU(3), LDK(B_ZDLU, P_ZDL, 3), ALUW(14, 3, 0), LDS_ST(L_DT, 0),
    ALU(3), LDS_ST(L_DTI, 0), BAR, ALU(3),
    LOOP(L_MIN), ALU(4), LDS_LDL(L_DT, L_MINS, 8, 0), LDS_LDL(L_DT, L_MIN, 9, 0),
    ALUW(2, 8, 9), LDS_STL(L_DT, L_MINS, 9), ALU(2), LDS_LDL(L_DTI, L_MIN, 10, 0),
    LDS_STL(L_DTI, L_MINS, 10), BAR, ALU(3), END,
    ALU(2), LDS_LD0(L_DT, 8), LDMIF(B_DTNEXT, 0, M_ZERO, M_Z0, 11), ALUIF(2 + 1 + 3, M_Z0),
    ATOMIF(B_DTNEXT, M_ZERO, M_Z0, 12), ALUIF(3, M_Z0), LDMIF(B_DTNEXT, 0, M_ZERO, M_Z0, 11),
    ALUIF(2, M_Z0), LDS_LD0(L_DTI, 10), STMIF(B_IDTNEXT, 0, M_ZERO, M_Z0, 10),
};

/* gpuInvMap (per sorted side entry i): the first entry of a point's run
 * sets mappsfirst, every entry links mapssnext to the next entry of the run
 * or -1 (two stores: the branches of the if). */
static const struct mk_step k_invmap[] = {
    ALU(14), LD(B_SPKEY, 1), LDM(B_SPKEY, M_NEXT, 1, 0), ALU(3),
    LDMIF(B_SPKEY, 0, M_PREV, M_NOT0, 1), ALU(2), LD(B_SPVAL, 2), LDM(B_SPVAL, M_NEXT, 2, 0),
    ALUW(5, 1, 2), ALUIF(2, M_RUN), STMIF(B_PSFIRST, 0, M_KEY, M_RUN, 2), ALU(7),
    ALUIF(2, M_LAST), STMIF(B_SSNEXT, 0, M_VAL, M_LAST, 0), ALUIF(1, M_NOTLAST),
    STMIF(B_SSNEXT, 0, M_VAL, M_NOTLAST, 2),
};
#define NSTEPS(a) (unsigned)(sizeof(a) / sizeof((a)[0]))

enum { K_INVMAP, K_MAIN1, K_MAIN2, K_MAIN3, K_MAIN4, K_MAIN5, NK };

struct pennant {
    struct mk_ctx c;
    struct mk_kernel k[NK];
    uint32_t nzx, nzy, npts, nzones, nsides, chunk;
    int32_t *m[NMAP];             /* host maps, see M_* */
    uint32_t *zs_start, *zs_ent;  /* L_ZS */
    uint32_t *ps_start, *ps_ent;  /* L_PS */
    uint32_t *mn_start, *mn_ent, *mn_self; /* L_MIN, L_MINS */
    uint32_t *schs, *schz;        /* side chunks: first side / first zone of chunk w (nsch + 1) */
    uint32_t nsch;
    double *px, *py;
    unsigned cycles, launched;
};

static uint32_t pt_index(const struct pennant *p, uint32_t j, uint32_t i)
{
    return j ? 1 + (j - 1) * (p->nzx + 1) + i : 0;
}

/* GenMesh::generatePie: points and the zones' point lists; returns the
 * zone starts (nzones + 1) and the flat point list. */
static uint32_t *pie_zones(struct pennant *p, uint32_t **zpts)
{
    uint32_t *zstart = xmalloc((p->nzones + 1) * sizeof *zstart);
    *zpts = xmalloc(4ull * p->nzones * sizeof **zpts);
    uint32_t n = 0, z = 0;
    for (uint32_t j = 0; j < p->nzy; j++)
        for (uint32_t i = 0; i < p->nzx; i++, z++) {
            zstart[z] = n;
            if (j == 0) {
                (*zpts)[n++] = 0;
                (*zpts)[n++] = pt_index(p, 1, i);
                (*zpts)[n++] = pt_index(p, 1, i + 1);
                continue;
            }
            (*zpts)[n++] = pt_index(p, j, i);
            (*zpts)[n++] = pt_index(p, j + 1, i);
            (*zpts)[n++] = pt_index(p, j + 1, i + 1);
            (*zpts)[n++] = pt_index(p, j, i + 1);
        }
    zstart[z] = n;
    return zstart;
}

static void pie_points(struct pennant *p, double lenx, double leny)
{
    p->px = xcalloc(p->npts, sizeof *p->px);
    p->py = xcalloc(p->npts, sizeof *p->py);
    double dth = lenx * M_PI / 180.0 / p->nzx, dr = leny / p->nzy;
    for (uint32_t j = 1; j <= p->nzy; j++)
        for (uint32_t i = 0; i <= p->nzx; i++) {
            uint32_t q = pt_index(p, j, i);
            p->px[q] = dr * j * cos(dth * i);
            p->py[q] = dr * j * sin(dth * i);
        }
}

/* Side maps and the zone-side lists from the zones' point lists. */
static void pennant_sides(struct pennant *p, const uint32_t *zstart, const uint32_t *zpts)
{
    uint32_t ns = p->nsides;
    for (int i = M_SP1; i <= M_SP0; i++)
        p->m[i] = xmalloc(ns * sizeof *p->m[i]);
    int32_t *ss3 = p->m[M_SS3], *ss4 = p->m[M_SS4];
    p->zs_start = xmalloc((ns + 1) * sizeof *p->zs_start);
    p->zs_ent = xmalloc(ns * 3 * sizeof *p->zs_ent);
    uint32_t ne = 0;
    for (uint32_t z = 0; z < p->nzones; z++) {
        uint32_t s0 = zstart[z], n = zstart[z + 1] - s0;
        for (uint32_t k = 0; k < n; k++) {
            uint32_t s = s0 + k;
            p->m[M_SP1][s] = (int32_t)zpts[s];
            p->m[M_SP2][s] = (int32_t)zpts[s0 + (k + 1) % n];
            p->m[M_SZ][s] = (int32_t)z;
            p->m[M_ZFIRST][s] = k == 0;
            ss4[s] = (int32_t)(s0 + (k + 1) % n);
            ss3[s] = (int32_t)(s0 + (k + n - 1) % n);
            p->zs_start[s] = ne;
            for (uint32_t d = 1; d < n; d++)
                p->zs_ent[ne++] = s0 + (k + d) % n;
        }
    }
    p->zs_start[ns] = ne;
    for (uint32_t s = 0; s < ns; s++)
        p->m[M_SP0][s] = p->m[M_SP1][ss3[s]];
}

/* Mesh::initChunks: at most `chunk` sides, never splitting a zone. */
static void pennant_chunks(struct pennant *p)
{
    p->schs = xmalloc((p->nsides + 1) * sizeof *p->schs);
    p->schz = xmalloc((p->nsides + 1) * sizeof *p->schz);
    uint32_t s2 = 0, n = 0;
    const int32_t *sz = p->m[M_SZ];
    while (s2 < p->nsides) {
        uint32_t s1 = s2;
        s2 = (uint32_t)min_u64(s2 + p->chunk, p->nsides);
        while (s2 < p->nsides && sz[s2] == sz[s2 - 1])
            s2--;
        p->schs[n] = s1;
        p->schz[n++] = (uint32_t)sz[s1];
    }
    p->schs[n] = p->nsides;
    p->schz[n] = p->nzones;
    p->nsch = n;
}

/* The inverse map gpuInvMap builds: sides sorted by mapsp1 (stable), each
 * point's run in side order; L_PS lists each point's sides in that order. */
static void pennant_invmap(struct pennant *p)
{
    uint32_t ns = p->nsides, np = p->npts;
    p->ps_start = xcalloc(np + 1, sizeof *p->ps_start);
    p->ps_ent = xmalloc(ns * sizeof *p->ps_ent);
    for (uint32_t s = 0; s < ns; s++)
        p->ps_start[p->m[M_SP1][s] + 1]++;
    for (uint32_t q = 0; q < np; q++)
        p->ps_start[q + 1] += p->ps_start[q];
    uint32_t *fill = xmalloc(np * sizeof *fill);
    for (uint32_t q = 0; q < np; q++)
        fill[q] = p->ps_start[q];
    for (uint32_t s = 0; s < ns; s++)
        p->ps_ent[fill[p->m[M_SP1][s]]++] = s;
    free(fill);
    for (int i = M_KEY; i <= M_NOTLAST; i++)
        p->m[i] = xmalloc(ns * sizeof *p->m[i]);
    for (uint32_t q = 0, i = 0; q < np; q++)
        for (uint32_t a = p->ps_start[q]; a < p->ps_start[q + 1]; a++, i++) {
            p->m[M_KEY][i] = (int32_t)q;
            p->m[M_VAL][i] = (int32_t)p->ps_ent[a];
            p->m[M_RUN][i] = a == p->ps_start[q];
            p->m[M_LAST][i] = a + 1 == p->ps_start[q + 1];
            p->m[M_NOTLAST][i] = !p->m[M_LAST][i];
        }
    for (uint32_t i = 0; i < ns; i++) {
        p->m[M_PREV][i] = (int32_t)(i ? i - 1 : i);
        p->m[M_NEXT][i] = (int32_t)(i + 1 < ns ? i + 1 : i);
        p->m[M_NOT0][i] = i != 0;
    }
}

/* Points on the fixed boundaries x = 0 and y = 0 (noh.pnt's bcx and bcy:
 * applyFixedBC's test |dot(p, vfix) - bc| < 1e-12, on the initial mesh:
 * the flow is radial, so the points stay on them). */
static void pennant_pointmaps(struct pennant *p)
{
    p->m[M_BCX] = xmalloc(p->npts * sizeof *p->m[M_BCX]);
    p->m[M_BCY] = xmalloc(p->npts * sizeof *p->m[M_BCY]);
    for (uint32_t q = 0; q < p->npts; q++) {
        p->m[M_BCX][q] = fabs(p->px[q]) < 1e-12;
        p->m[M_BCY][q] = fabs(p->py[q]) < 1e-12;
    }
    uint32_t n = (uint32_t)max_u64(max_u64(p->nsides, p->npts), p->nzones);
    p->m[M_ZERO] = xcalloc(n, sizeof *p->m[M_ZERO]);
    p->m[M_Z0] = xmalloc(p->nzones * sizeof *p->m[M_Z0]);
    for (uint32_t z = 0; z < p->nzones; z++)
        p->m[M_Z0][z] = z % p->chunk == 0;
}

/* hydroFindMinDt's steps: in a chunk of `len` zones, zone z0 takes part
 * while z0 < half (= len / 2), comparing with z0 + len', len' = half +
 * (len & 1), then len = len'. L_MIN lists the zones compared with, L_MINS
 * the zone itself as often. */
static void pennant_minlists(struct pennant *p)
{
    uint32_t nz = p->nzones, maxsteps = 2 + ilog2(p->chunk), n = 0;
    p->mn_start = xmalloc((nz + 1) * sizeof *p->mn_start);
    p->mn_ent = xmalloc((uint64_t)nz * maxsteps * sizeof *p->mn_ent);
    p->mn_self = xmalloc((uint64_t)nz * maxsteps * sizeof *p->mn_self);
    for (uint32_t z = 0; z < nz; z++) {
        uint32_t z0 = z % p->chunk, len = (uint32_t)min_u64(p->chunk, nz - (z - z0));
        uint32_t half = len >> 1;
        p->mn_start[z] = n;
        while (z0 < half) {
            len = half + (len & 1);
            p->mn_ent[n] = z + len;
            p->mn_self[n++] = z;
            half = len >> 1;
        }
    }
    p->mn_start[nz] = n;
}

enum { IT_SIDE, IT_POINT, IT_ZONE, IT_ONE };

static const struct pbuf {
    const char *name;
    uint8_t items, esize, planes;
} pennant_bufs[L_DSS4] = {
    [B_MAPS] = {"mapsp1..mapss4", IT_SIDE, 4, 4},
    [B_SPKEY] = {"mapspkey", IT_SIDE, 4, 1},
    [B_SPVAL] = {"mapspval", IT_SIDE, 4, 1},
    [B_PSFIRST] = {"mappsfirst", IT_POINT, 4, 1},
    [B_SSNEXT] = {"mapssnext", IT_SIDE, 4, 1},
    [B_PX] = {"px", IT_POINT, 16, 1},
    [B_PU] = {"pu", IT_POINT, 16, 1},
    [B_PX0] = {"px0", IT_POINT, 16, 1},
    [B_PU0] = {"pu0", IT_POINT, 16, 1},
    [B_PXP] = {"pxp", IT_POINT, 16, 1},
    [B_ZM] = {"zm", IT_ZONE, 8, 1},
    [B_ZE] = {"ze", IT_ZONE, 8, 1},
    [B_ZWRATE] = {"zwrate", IT_ZONE, 8, 1},
    [B_ZVOL] = {"zvol", IT_ZONE, 8, 1},
    [B_ZVOL0] = {"zvol0", IT_ZONE, 8, 1},
    [B_ZR] = {"zr", IT_ZONE, 8, 1},
    [B_ZPSS] = {"zp, zss", IT_ZONE, 8, 2},
    [B_ZDLU] = {"zdl, zdu", IT_ZONE, 8, 2},
    [B_ZW] = {"zw", IT_ZONE, 8, 1},
    [B_ZETOT] = {"zetot", IT_ZONE, 8, 1},
    [B_SMF] = {"smf", IT_SIDE, 8, 1},
    [B_CMASWT] = {"cmaswt", IT_SIDE, 8, 1},
    [B_SFP] = {"sfp", IT_SIDE, 16, 1},
    [B_SFQ] = {"sfq", IT_SIDE, 16, 1},
    [B_CFTOT] = {"cftot", IT_SIDE, 16, 1},
    [B_DTNEXT] = {"dtnext", IT_ONE, 8, 1},
    [B_IDTNEXT] = {"idtnext", IT_ONE, 4, 1},
};

/* An 8-byte view of double2 buffer b: plane 0 the x, plane 1 the y. */
static void view_xy(struct mk_ctx *c, unsigned b, unsigned v)
{
    BUG_ON(c->nbufs != v);
    c->buf[c->nbufs++] = (struct mk_buf){.b = c->buf[b].b, .esize = 8, .scale = 2, .plane = 1};
}

static void pennant_buffers(struct pennant *p, struct wl_env *env)
{
    struct mk_ctx *c = &p->c;
    const uint64_t items[] = {p->nsides, p->npts, p->nzones, 1};
    for (unsigned b = 0; b < L_DSS4; b++) {
        const struct pbuf *d = &pennant_bufs[b];
        BUG_ON(mk_buf(c, env, d->name, items[d->items], d->esize, 1, d->planes) != b);
    }
    uint32_t ch = p->chunk;
    BUG_ON(mk_lds(c, 0, 4) != L_DSS4);
    BUG_ON(mk_lds(c, 4 * ch, 4) != L_DSS3);
    BUG_ON(mk_lds(c, 8 * ch, 16) != L_CT2);
    BUG_ON(mk_lds(c, 24 * ch, 8) != L_CT);
    BUG_ON(mk_lds(c, 0, 8) != L_DT);
    BUG_ON(mk_lds(c, 8 * ch, 4) != L_DTI);
    view_xy(c, B_PU0, V_PU0);
    view_xy(c, B_PXP, V_PXP);
    for (unsigned m = 0; m < NMAP; m++)
        c->map[m] = (struct mk_map){p->m[m], 1, 0};
    c->list[L_ZS] = (struct mk_list){p->zs_start, p->zs_ent};
    c->list[L_PS] = (struct mk_list){p->ps_start, p->ps_ent};
    c->list[L_MIN] = (struct mk_list){p->mn_start, p->mn_ent};
    c->list[L_MINS] = (struct mk_list){p->mn_start, p->mn_self};
}

static struct mk_kernel *pk(struct pennant *p, unsigned i, const char *name,
                            const struct mk_step *steps, unsigned n, uint32_t items)
{
    struct mk_kernel *k = &p->k[i];
    *k = (struct mk_kernel){.name = name, .ctx = &p->c, .steps = steps, .nsteps = n,
                            .block = p->chunk, .nitems = items};
    return k;
}

static void args(struct mk_kernel *k, const uint8_t *bufs, enum kernel_mode mode, int ranged,
                 const uint32_t *rfirst)
{
    for (; *bufs != NBUF; bufs++) {
        unsigned planes = pennant_bufs[*bufs].planes;
        if (!rfirst) {
            mk_arg(k, *bufs, mode, ranged, planes);
            continue;
        }
        mk_arg_rt(k, *bufs, mode, rfirst);
        k->args[k->nargs - 1].nplanes = (uint8_t)planes;
    }
}

#define A(...) (const uint8_t[]){__VA_ARGS__, NBUF}

/* The side kernels gpuMain2 and gpuMain4: one work-group per side chunk. */
static void side_kernels(struct pennant *p)
{
    for (unsigned i = K_MAIN2; i <= K_MAIN4; i += 2) {
        struct mk_kernel *k =
            pk(p, i, i == K_MAIN2 ? "gpuMain2" : "gpuMain4", i == K_MAIN2 ? k_main2 : k_main4,
               i == K_MAIN2 ? NSTEPS(k_main2) : NSTEPS(k_main4), p->nsides);
        k->wg_first = p->schs;
        k->nwg = p->nsch;
        k->lds_b = 32 * p->chunk; /* dss3, dss4, ctemp, ctemp2 */
    }
    struct mk_kernel *k = &p->k[K_MAIN2];
    args(k, A(B_MAPS, B_SMF), KERNEL_R, 1, NULL);
    args(k, A(B_PXP, B_PU), KERNEL_R, 0, NULL);
    args(k, A(B_ZM, B_ZR, B_ZE, B_ZWRATE, B_ZVOL), KERNEL_R, 1, p->schz);
    args(k, A(B_CMASWT, B_SFP, B_SFQ, B_CFTOT), KERNEL_RW, 1, NULL);
    args(k, A(B_ZVOL0, B_ZPSS, B_ZDLU), KERNEL_RW, 1, p->schz);
    k = &p->k[K_MAIN4];
    args(k, A(B_MAPS, B_SFP, B_SFQ), KERNEL_R, 1, NULL);
    args(k, A(B_PX, B_PU, B_PU0, B_PXP), KERNEL_R, 0, NULL);
    args(k, A(B_ZVOL, B_ZETOT, B_ZW), KERNEL_RW, 1, p->schz);
}

static void pennant_kernels(struct pennant *p)
{
    struct mk_kernel *k = pk(p, K_INVMAP, "gpuInvMap", k_invmap, NSTEPS(k_invmap), p->nsides);
    args(k, A(B_SPKEY, B_SPVAL), KERNEL_R, 0, NULL);
    args(k, A(B_PSFIRST, B_SSNEXT), KERNEL_RW, 0, NULL);
    k = pk(p, K_MAIN1, "gpuMain1", k_main1, NSTEPS(k_main1), p->npts);
    args(k, A(B_PX, B_PU), KERNEL_R, 1, NULL);
    args(k, A(B_PX0, B_PU0, B_PXP), KERNEL_RW, 1, NULL);
    side_kernels(p);
    k = pk(p, K_MAIN3, "gpuMain3", k_main3, NSTEPS(k_main3), p->npts);
    args(k, A(B_PSFIRST, B_PXP, B_PX0), KERNEL_R, 1, NULL);
    args(k, A(B_SSNEXT, B_CMASWT, B_CFTOT), KERNEL_R, 0, NULL);
    args(k, A(B_PU0, B_PU, B_PX), KERNEL_RW, 1, NULL);
    k = pk(p, K_MAIN5, "gpuMain5", k_main5, NSTEPS(k_main5), p->nzones);
    k->lds_b = 24 * p->chunk; /* ctemp, ctemp2 */
    args(k, A(B_ZVOL0, B_ZVOL, B_ZPSS, B_ZW, B_ZM, B_ZETOT, B_ZDLU), KERNEL_R, 1, NULL);
    args(k, A(B_ZWRATE, B_ZE, B_ZR), KERNEL_RW, 1, NULL);
    args(k, A(B_DTNEXT, B_IDTNEXT), KERNEL_RW, 0, NULL);
}

/* The smallest characteristic length of the initial mesh (meshCalcCharLen:
 * per side (3 or 4) x side area / base length, per zone the minimum). */
static double pennant_min_zdl(const struct pennant *p)
{
    double best = INFINITY;
    for (uint32_t s = 0; s < p->nsides;) {
        uint32_t z = (uint32_t)p->m[M_SZ][s], e = s, n;
        while (e < p->nsides && (uint32_t)p->m[M_SZ][e] == z)
            e++;
        n = e - s;
        double cx = 0, cy = 0;
        for (uint32_t t = s; t < e; t++) {
            cx += p->px[p->m[M_SP1][t]] / n;
            cy += p->py[p->m[M_SP1][t]] / n;
        }
        for (uint32_t t = s; t < e; t++) {
            double x1 = p->px[p->m[M_SP1][t]], y1 = p->py[p->m[M_SP1][t]];
            double x2 = p->px[p->m[M_SP2][t]], y2 = p->py[p->m[M_SP2][t]];
            double area = 0.5 * fabs((x2 - x1) * (cy - y1) - (y2 - y1) * (cx - x1));
            best = fmin(best, (n == 3 ? 3.0 : 4.0) * area / hypot(x2 - x1, y2 - y1));
        }
        s = e;
    }
    return best;
}

/* Cycles to tstop (at most cstop) under PENNANT's rules: dtinit first, then
 * growth by at most dtfac, capped by dtmax and by the hydro recommendation
 * -- the Courant limit cfl * zdl / max(ssmin, |du|) and the volume limit
 * cflv * dr / (2 |u|) of the innermost zones under the uniform inflow --
 * evaluated on the initial state and held for the whole run. */
static unsigned pennant_cycles(const struct pennant *p, const struct cfg_sec *sec)
{
    double u = fabs(cfg_float(sec, "uinitradial")), dr = cfg_float(sec, "leny") / p->nzy;
    double dth = cfg_float(sec, "lenx") * M_PI / 180.0 / p->nzx;
    double cdu = fmax(cfg_float(sec, "ssmin"), 2.0 * u * sin(dth / 2));
    double dtrec = cdu > 0 ? cfg_float(sec, "cfl") * pennant_min_zdl(p) / cdu : INFINITY;
    if (u > 0)
        dtrec = fmin(dtrec, cfg_float(sec, "cflv") * dr / (2.0 * u));
    double tstop = cfg_float(sec, "tstop"), dtmax = cfg_float(sec, "dtmax");
    double dtfac = cfg_float(sec, "dtfac"), t = 0, dt = 0;
    uint64_t cstop = cfg_uint(sec, "cstop"), n = 0;
    while (n < cstop && t < tstop * (1 - 1e-12)) {
        dt = n == 0 ? cfg_float(sec, "dtinit") : fmin(dt * dtfac, dtrec);
        dt = fmin(fmin(dt, dtmax), tstop - t);
        t += dt;
        n++;
    }
    return (unsigned)n;
}

static void *pennant_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    uint64_t chunk = cfg_uint(sec, "chunk");
    if (!is_pow2(chunk)) {
        cfg_err(e, sec, "chunk", "must be a power of two (the dt reduction halves it)");
        return NULL;
    }
    struct pennant *p = xcalloc(1, sizeof *p);
    p->nzx = (uint32_t)cfg_uint(sec, "nzx");
    p->nzy = (uint32_t)cfg_uint(sec, "nzy");
    p->chunk = (uint32_t)chunk;
    p->npts = 1 + p->nzy * (p->nzx + 1);
    p->nzones = p->nzx * p->nzy;
    p->nsides = 3 * p->nzx + 4 * p->nzx * (p->nzy - 1);
    uint32_t *zpts, *zstart = pie_zones(p, &zpts);
    pie_points(p, cfg_float(sec, "lenx"), cfg_float(sec, "leny"));
    pennant_sides(p, zstart, zpts);
    free(zstart);
    free(zpts);
    pennant_chunks(p);
    pennant_invmap(p);
    pennant_pointmaps(p);
    pennant_minlists(p);
    pennant_buffers(p, env);
    pennant_kernels(p);
    p->cycles = pennant_cycles(p, sec);
    return p;
}

static void pennant_destroy(void *self)
{
    struct pennant *p = self;
    for (unsigned m = 0; m < NMAP; m++)
        free(p->m[m]);
    free(p->zs_start);
    free(p->zs_ent);
    free(p->ps_start);
    free(p->ps_ent);
    free(p->mn_start);
    free(p->mn_ent);
    free(p->mn_self);
    free(p->schs);
    free(p->schz);
    free(p->px);
    free(p->py);
    free(p);
}

/* gpuInvMap once, then gpuMain1..5 per cycle. */
static bool pennant_next_kernel(void *self, struct kernel *k)
{
    struct pennant *p = self;
    if (p->launched == 1 + 5 * p->cycles)
        return false;
    unsigned i = p->launched ? K_MAIN1 + (p->launched - 1) % 5 : K_INVMAP;
    mk_launch(&p->c, &p->k[i], k);
    p->launched++;
    return true;
}

static const char *const pennant_small[] = {"nzx=8", "nzy=6", "cstop=3", NULL};

const struct wl_ops wl_pennant = {
    .name = "pennant",
    .suite = "CORAL-2",
    .desc = "PENNANT (CORAL-2): Noh problem on a pie mesh, 5 kernels per cycle",
    .keys = pennant_keys,
    .small = pennant_small,
    .create = pennant_create,
    .next_kernel = pennant_next_kernel,
    .destroy = pennant_destroy,
};
