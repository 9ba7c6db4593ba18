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
 * instruction counts between them (nvcc 13, -arch=sm_90). The kernels are
 * kernel descriptions (src/workload/kd.h) run by the driver of
 * src/workload/kdw.h: the side kernels' work-groups are the side chunks
 * (wg_items), the mesh's maps, lists and chunks are arrays the host builds
 * once; the per-work-group ranges and same_pattern are derived from the
 * descriptions (points reached through the side maps, the chains and the
 * dt words: the whole structure).
 * Abstracted: no data values; the temporaries HydroGPU keeps in global
 * memory (zxp, ssurf, sareap, ...: docs/workloads/pennant.md); the cycle
 * count comes from PENNANT's time step rules evaluated on the initial
 * state; the host sort before gpuInvMap.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "workload/kdw.h"

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

/*
 * The kernels follow HydroGPU's PTX (nvcc 13, -arch=sm_90) memory operation
 * by memory operation on the arrays the model has (docs/workloads/pennant.md
 * lists the temporaries it leaves out); each ALU count is the PTX's
 * instructions between the same operations, the left-out accesses' address
 * arithmetic included. Registers: 1 indices (maps, chains), 2-4 zone, side
 * and point values, 5 pxp, 6 pu, 7 an LDS index (dss3, dss4), 8-10 LDS
 * values, 11-12 dtnext.
 *
 * The side kernels (gpuMain2, gpuMain4): work-group g is side chunk g, its
 * sides s = wg0 + tx below wg1 (@schs); @map holds the side maps as planes
 * of ns sides: mapsp1, mapsp2, mapsz, mapss4, then s3 (the zone's previous
 * side, which HydroGPU finds through dss3 in LDS) and p0 = mapsp1[s3]; a
 * side's zone's other sides, in order from the next, are @zo[3 s + m0],
 * m0 below @zc[s] (3 entries a side, a triangle's last its own side). LDS
 * per chunk of bdx threads: dss4 (4 B a slot), dss3 (at 4 bdx), ctemp2
 * (16 B, at 8 bdx), ctemp (8 B, at 24 bdx); a slot is a side's place in the
 * chunk.
 */
#define S "wg0 + tx"
#define SP1 "@map[" S "]"
#define SP2 "@map[ns + " S "]"
#define SZ "@map[2*ns + " S "]"
#define SS4 "@map[3*ns + " S "]"
#define SS3 "@map[4*ns + " S "]"
#define SP0 "@map[5*ns + " S "]"
#define DSS4(x) "lds[" x "] 4"
#define DSS3(x) "lds[bdx + " x "] 4"
#define CT2(x) "lds[bdx + 2*(" x ")] 16/8"
#define CT(x) "lds[3*bdx + " x "] 8"
#define ZO "@zo[3*(" S ") + m0]" /* the zone's other side m0 */
#define SN ZO " - wg0"              /* its slot */
#define ZSIDES "for m0 = 0 .. @zc[" S "]\n"

/* A load of point array b at map m into register d, after the map's load. */
#define PT(b, m, d) "load " #b "[" m "] 16 -> r" #d " < r1\n"
#define AL(n) "alu " #n "\n"
/* The four side maps and dss4[s0] (the side's slot). */
#define SIDE_MAPS                                                                           \
    AL(14) "load maps[" S "] 4 -> r1\n" AL(2) "load maps[ns + " S "] 4 -> r1\n" AL(2)       \
    "load maps[2*ns + " S "] 4 -> r1\n" AL(2) "load maps[3*ns + " S "] 4 -> r1\n"           \
    "alu 5 < r1\nlds_store " DSS4("tx") " < r1\n"
/* Publish a side's value (register s, or none) in LDS region R and read the
 * zone's first slot back (f: the instructions before the walk). */
#define ZPUB(R, s, f)                                                                       \
    "lds_store " R("tx") s "\nbarrier\nlds_load " R("tx") " -> r8\n"                        \
    "lds_load " DSS4("tx") " -> r7\n" AL(f)
/* The zone's other sides from the chunk's LDS copy (sn = s0 + dss4[s0];
 * while (sn != s0) sn += dss4[sn]): per side ALU a, the value, ALU m,
 * dss4[sn], ALU c. */
#define ZLOOP(R, a, m, c)                                                                   \
    ZSIDES AL(a) "lds_load " R(SN) " -> r8 < r7\n" AL(m) "lds_load " DSS4(SN) " -> r7\n"    \
    "alu " #c " < r8\nend\n"
/* calcZoneVols walks mapss4 in global memory. */
#define ZVOLS                                                                               \
    "barrier\nload maps[3*ns + " S "] 4 -> r1\n" AL(2) ZSIDES AL(7)                         \
    "load maps[3*ns + " ZO "] 4 -> r1 < r1\n" AL(2) "end\n"

static const char *const side_params[] = {"ns", "nz", NULL};
static const char *const side_arrays[] = {"schs", "map", "zc", "zo", NULL};

/* gpuMain2 (per side). */
static const struct kd_desc k_main2 = {
    .name = "gpuMain2", .params = side_params, .arrays = side_arrays, .wg_items = "schs",
    .arrays_fixed = true, .range_reads = true, .whole = (const char *const[]){"pxp", "pu", NULL},
    .bufs = (const char *const[]){"maps", "smf", "pxp", "pu", "zm", "zr", "ze", "zwrate", "zvol",
                                  "cmaswt", "sfp", "sfq", "cftot", "zvol0", "zpss", "zdlu",
                                  NULL},
    .body = "if " S " < wg1\n" SIDE_MAPS AL(4) "lds_store " DSS3(SS4 " - wg0") " < r1\n"
            "barrier\n" AL(1) "lds_load " DSS3("tx") " -> r7\n"
            /* zvol0 = zvol; calcZoneCtrs */
            AL(4) "load zvol[" SZ "] 8 -> r2 < r1\nalu 2 < r2\nstore zvol0[" SZ "] 8 < r2\n"
            AL(8) PT(pxp, SP1, 5) ZPUB(CT2, " < r5", 5) ZLOOP(CT2, 2, 5, 3)
            /* meshCalcCharLen */
            AL(9) PT(pxp, SP2, 5) PT(pxp, SP1, 5) "alu 20 < r5\n" ZPUB(CT, "", 3)
            ZLOOP(CT, 2, 3, 3)
            /* zdl; ssurf and calcSideVols; calcZoneVols */
            AL(2) "store zdlu[" SZ "] 8 < r8\n" PT(pxp, SP1, 5) PT(pxp, SP2, 5) "alu 30 < r5\n"
            ZVOLS
            /* hydroCalcRho, calcCrnrMass */
            AL(5) "load zm[" SZ "] 8 -> r2 < r1\n" AL(9) "load smf[" S "] 8 -> r2\n"
            "load smf[" SS3 "] 8 -> r2\nalu 3 < r2\nstore cmaswt[" S "] 8\n" AL(3)
            /* pgasCalcStateAtHalf in the zone's first side (its s3 comes after it) */
            "if " S " < " SS3 "\n" AL(14) "load ze[" SZ "] 8 -> r2\n" AL(2)
            "load zr[" SZ "] 8 -> r2\n" AL(10) "store zpss[nz + " SZ "] 8 < r2\n" AL(1)
            "load zvol0[" SZ "] 8 -> r2\n" AL(8) "load zwrate[" SZ "] 8 -> r2\n" AL(8)
            "store zpss[" SZ "] 8 < r2\n" AL(1) "end\n" AL(5)
            /* pgasCalcForce, ttsCalcForce */
            AL(5) "barrier\n" AL(1) "load zpss[" SZ "] 8 -> r2 < r1\nalu 4 < r2\n"
            "store sfp[" S "] 16\n" AL(2) "load smf[" S "] 8 -> r2\n" AL(3)
            "load zpss[nz + " SZ "] 8 -> r2 < r1\nalu 13 < r2\n"
            /* qcsSetCornerDiv */
            PT(pu, SP1, 6) ZPUB(CT2, " < r6", 5) ZLOOP(CT2, 3, 5, 3) AL(7) PT(pu, SP1, 6)
            PT(pxp, SP1, 5) AL(1) PT(pu, SP2, 6) AL(4) PT(pxp, SP2, 5) AL(6)
            "load maps[" SS3 "] 4 -> r1\n" AL(2) PT(pu, SP0, 6) AL(5) PT(pxp, SP0, 5)
            "alu 38 < r5 r6\n"
            /* qcsSetQCnForce */
            AL(86) "load zpss[nz + " SZ "] 8 -> r2 < r1\nalu 10 < r2\n"
            "load maps[" SS3 "] 4 -> r1\n" PT(pxp, SP1, 5) AL(2) PT(pxp, SP0, 5) AL(5)
            PT(pxp, SP2, 5) AL(5) PT(pu, SP1, 6) AL(1) PT(pu, SP0, 6) "alu 11 < r5 r6\n"
            PT(pu, SP2, 6) PT(pu, SP1, 6)
            /* qcsSetForce; cftot */
            "alu 36 < r6\nbarrier\n" PT(pxp, SP1, 5) PT(pxp, SP2, 5) "alu 25 < r5\n"
            "store sfq[" S "] 16\nload sfp[" S "] 16 -> r2\nalu 4 < r2\n"
            "lds_store " CT2("tx") " < r2\nbarrier\nlds_load " CT2("tx") " -> r8\n"
            "lds_load " DSS3("tx") " -> r7\n" AL(1) "lds_load " CT2(SS3 " - wg0") " -> r9 < r7\n"
            "alu 4 < r8 r9\nstore cftot[" S "] 16\n"
            /* qcsSetVelDiff */
            PT(pxp, SP2, 5) PT(pxp, SP1, 5) AL(2) PT(pu, SP2, 6) PT(pu, SP1, 6)
            "alu 17 < r5 r6\n" ZPUB(CT, "", 3) ZLOOP(CT, 4, 3, 3) AL(2)
            "barrier\nload zpss[nz + " SZ "] 8 -> r2 < r1\nalu 5 < r2 r8\n"
            "store zdlu[nz + " SZ "] 8\nend\n",
};

/* gpuMain4 (per side): calcZoneCtrs, calcSideVols, calcZoneVols along
 * mapss4, hydroCalcWork (pxp's x only). */
static const struct kd_desc k_main4 = {
    .name = "gpuMain4", .params = side_params, .arrays = side_arrays, .wg_items = "schs",
    .arrays_fixed = true, .range_reads = true,
    .whole = (const char *const[]){"px", "pu", "pu0", "pxp", NULL},
    .bufs = (const char *const[]){"maps", "sfp", "sfq", "px", "pu", "pu0", "pxp", "zvol",
                                  "zetot", "zw", NULL},
    .body = "if " S " < wg1\n" SIDE_MAPS "barrier\n" AL(8) PT(px, SP1, 5)
            ZPUB(CT2, " < r5", 5) ZLOOP(CT2, 2, 5, 3) AL(9) PT(px, SP2, 5) PT(px, SP1, 5)
            "alu 19 < r5\n" ZVOLS AL(3) "store zvol[" SZ "] 8\n" AL(10)
            "load sfp[" S "] 16 -> r2\n" AL(1) "load sfq[" S "] 16 -> r2\n" AL(4)
            PT(pu0, SP1, 6) AL(1) PT(pu, SP1, 6) AL(5) PT(pu0, SP2, 6) AL(1) PT(pu, SP2, 6)
            AL(8) "load pxp[" SP1 "] 8/16 -> r5 < r1\n" AL(1)
            "load pxp[" SP2 "] 8/16 -> r5 < r1\nalu 6 < r5 r6\nlds_store " CT("tx") "\n"
            AL(1) "load zetot[" SZ "] 8 -> r2 < r1\nbarrier\nlds_load " CT("tx") " -> r8\n"
            "lds_load " DSS4("tx") " -> r7\n" AL(3) ZLOOP(CT, 2, 3, 3) "alu 1 < r2 r8\n"
            "store zetot[" SZ "] 8\n" AL(1) "store zw[" SZ "] 8\nend\n",
};

/* gpuMain1 (per point): px0 = px, pu0 = pu, pxp = px0 + dth pu0 (px0 is
 * read back: the stores may alias). */
static const struct kd_desc k_main1 = {
    .name = "gpuMain1", .params = (const char *const[]){"n", NULL},
    .bufs = (const char *const[]){"px", "pu", "px0", "pu0", "pxp", NULL},
    .body = "if gid < n\n" AL(14) "load px[gid] 16 -> r1\nstore px0[gid] 16 < r1\n" AL(3)
            "load pu[gid] 16 -> r2\n" AL(1) "store pu0[gid] 16 < r2\n" AL(1)
            "load px0[gid] 16 -> r1\nalu 3 < r1 r2\nstore pxp[gid] 16\nend\n",
};

/* gpuMain3 (per point): gatherToPoints twice along the chain (@pse[@ps[p]
 * .. @ps[p + 1]), the point's sides in chain order), the fixed boundary
 * conditions x = 0 and y = 0 (pu0 projected at the points on them, planes
 * of @bc), calcAccel, advPosFull (pu0 read as two 8-byte halves, again
 * after the store to pu). */
#define CHAIN(b, size, n)                                                                   \
    "for m0 = @ps[gid] .. @ps[gid + 1]\n" AL(2)                                             \
    "load " #b "[@pse[m0]] " #size " -> r2 < r1\n"                                          \
    AL(n) "load ssnext[@pse[m0]] 4 -> r1 < r1\nalu 2 < r2\nend\n"
#define FIXED(plane)                                                                        \
    "if 0 < @bc[" plane "gid]\nload pu0[gid] 16 -> r4\n" AL(6) "store pu0[gid] 16 < r4\n"   \
    AL(6) "end\n"
#define PU0_XY(between) "load pu0[gid] 8/16 -> r4\n" between "load pu0[2*gid + 1] 8 -> r4\n"
static const struct kd_desc k_main3 = {
    .name = "gpuMain3", .params = (const char *const[]){"n", NULL},
    .arrays = (const char *const[]){"ps", "pse", "bc", NULL}, .arrays_fixed = true,
    .bufs = (const char *const[]){"psfirst", "pxp", "px0", "ssnext", "cmaswt", "cftot", "pu0",
                                  "pu", "px", NULL},
    .body = "if gid < n\n" AL(12) "load psfirst[gid] 4 -> r1\n" AL(8) CHAIN(cmaswt, 8, 3) AL(9)
            CHAIN(cftot, 16, 4) AL(10) "load pxp[gid] 16 -> r3\nalu 21 < r3\n" FIXED("")
            AL(12) "load pxp[gid] 16 -> r3\nalu 18 < r3\n" FIXED("n + ") AL(16) PU0_XY("")
            "alu 3 < r4 r2\nstore pu[gid] 16\n" PU0_XY(AL(1)) AL(4)
            "load px0[gid] 16 -> r3\nalu 3 < r3 r4\nstore px[gid] 16\nend\n",
};

/* gpuMain5 (per zone): hydroCalcWorkRate, hydroCalcEnergy, hydroCalcRho,
 * hydroCalcDtCourant and hydroCalcDtVolume, then hydroFindMinDt: the
 * chunk's minimum in LDS (ctemp, 8 B a slot; ctempi, 4 B at 8 bdx; the
 * smaller value and its index moved down each step: assumed in every step,
 * the data decide; zone z takes part in the first @mc[z] steps, step m0's
 * partner at the distance @mnd[bx*bdx + m0] of its chunk), and thread 0's
 * atomicMin on dtnext (a compare-and-swap, assumed to succeed at once) and
 * idtnext. */
#define MIN_LDS(reg, x) "lds_load lds[" x "tx + @mnd[bx*bdx + m0]] " reg "\n"
static const struct kd_desc k_main5 = {
    .name = "gpuMain5", .params = (const char *const[]){"n", NULL},
    .arrays = (const char *const[]){"mc", "mnd", NULL}, .arrays_fixed = true,
    .whole = (const char *const[]){"dtnext", "idtnext", NULL},
    .bufs = (const char *const[]){"zvol0", "zvol", "zpss", "zw", "zm", "zetot", "zdlu", "zwrate",
                                  "ze", "zr", "dtnext", "idtnext", NULL},
    .body = "if gid < n\n" AL(18) "load zvol0[gid] 8 -> r1\nload zvol[gid] 8 -> r1\n" AL(3)
            "load zpss[gid] 8 -> r1\nload zw[gid] 8 -> r1\nalu 3 < r1\nstore zwrate[gid] 8\n"
            AL(5) "load zm[gid] 8 -> r2\n" AL(2) "load zetot[gid] 8 -> r2\nalu 2 < r2\n"
            "store ze[gid] 8\n" AL(3) "store zr[gid] 8\n" AL(7) "load zpss[n + gid] 8 -> r3\n"
            AL(1) "load zdlu[n + gid] 8 -> r3\n" AL(3) "load zdlu[gid] 8 -> r3\nalu 14 < r3\n"
            "lds_store lds[tx] 8\n" AL(3) "lds_store lds[2*bdx + tx] 4\nbarrier\n" AL(3)
            "for m0 = 0 .. @mc[gid]\n" AL(4) "lds_load lds[tx] 8 -> r8\n"
            MIN_LDS("8 -> r9", "") "alu 2 < r8 r9\nlds_store lds[tx] 8 < r9\n" AL(2)
            MIN_LDS("4 -> r10", "2*bdx + ") "lds_store lds[2*bdx + tx] 4 < r10\nbarrier\n"
            AL(3) "end\n" AL(2) "if tx < 1\nlds_load lds[0] 8 -> r8\n"
            "load dtnext[0] 8 -> r11\n" AL(6) "atomic dtnext[0] 8 -> r12\n" AL(3)
            "load dtnext[0] 8 -> r11\n" AL(2) "lds_load lds[2*bdx] 4 -> r10\n"
            "store idtnext[0] 4 < r10\nend\nend\n",
};

/* gpuInvMap (per sorted side entry i, of n): the first entry of a point's
 * run (@run) sets mappsfirst, every entry links mapssnext to the next entry
 * of the run or -1 (@last: two stores, the branches of the if); @key and
 * @val are the sorted mapspkey and mapspval the host built. */
static const struct kd_desc k_invmap = {
    .name = "gpuInvMap", .params = (const char *const[]){"n", NULL},
    .arrays = (const char *const[]){"key", "val", "run", "last", NULL},
    .arrays_fixed = true,
    .whole = (const char *const[]){"spkey", "spval", NULL},
    .bufs = (const char *const[]){"spkey", "spval", "psfirst", "ssnext", NULL},
    .body = "if gid < n\n" AL(14) "load spkey[gid] 4 -> r1\n"
            "load spkey[min(gid + 1, n - 1)] 4 -> r1\n" AL(3)
            "if 0 < gid\nload spkey[gid - 1] 4 -> r1\nend\n" AL(2) "load spval[gid] 4 -> r2\n"
            "load spval[min(gid + 1, n - 1)] 4 -> r2\nalu 5 < r1 r2\n"
            "if 0 < @run[gid]\n" AL(2) "store psfirst[@key[gid]] 4 < r2\nend\n" AL(7)
            "if 0 < @last[gid]\n" AL(2) "store ssnext[@val[gid]] 4\nend\n"
            "if @last[gid] < 1\n" AL(1) "store ssnext[@val[gid]] 4 < r2\nend\nend\n",
};

enum { K_INVMAP, K_MAIN1, K_MAIN2, K_MAIN3, K_MAIN4, K_MAIN5, NK };
static const struct kd_desc *const pennant_descs[NK + 1] = {
    &k_invmap, &k_main1, &k_main2, &k_main3, &k_main4, &k_main5, NULL,
};

/* The device buffers, allocated in this order: their names, the names the
 * descriptions give them, what they are indexed by and their planes. */
enum { IT_SIDE, IT_POINT, IT_ZONE, IT_ONE };
static const struct pbuf {
    const char *name, *id;
    uint8_t items, esize, planes;
} pennant_bufs[] = {
    {"mapsp1..mapss4", "maps", IT_SIDE, 4, 4}, {"mapspkey", "spkey", IT_SIDE, 4, 1},
    {"mapspval", "spval", IT_SIDE, 4, 1},      {"mappsfirst", "psfirst", IT_POINT, 4, 1},
    {"mapssnext", "ssnext", IT_SIDE, 4, 1},    {"px", "px", IT_POINT, 16, 1},
    {"pu", "pu", IT_POINT, 16, 1},             {"px0", "px0", IT_POINT, 16, 1},
    {"pu0", "pu0", IT_POINT, 16, 1},           {"pxp", "pxp", IT_POINT, 16, 1},
    {"zm", "zm", IT_ZONE, 8, 1},               {"ze", "ze", IT_ZONE, 8, 1},
    {"zwrate", "zwrate", IT_ZONE, 8, 1},       {"zvol", "zvol", IT_ZONE, 8, 1},
    {"zvol0", "zvol0", IT_ZONE, 8, 1},         {"zr", "zr", IT_ZONE, 8, 1},
    {"zp, zss", "zpss", IT_ZONE, 8, 2},        {"zdl, zdu", "zdlu", IT_ZONE, 8, 2},
    {"zw", "zw", IT_ZONE, 8, 1},               {"zetot", "zetot", IT_ZONE, 8, 1},
    {"smf", "smf", IT_SIDE, 8, 1},             {"cmaswt", "cmaswt", IT_SIDE, 8, 1},
    {"sfp", "sfp", IT_SIDE, 16, 1},            {"sfq", "sfq", IT_SIDE, 16, 1},
    {"cftot", "cftot", IT_SIDE, 16, 1},        {"dtnext", "dtnext", IT_ONE, 8, 1},
    {"idtnext", "idtnext", IT_ONE, 4, 1},
};
#define NBUF (sizeof pennant_bufs / sizeof pennant_bufs[0])

/* The host arrays the descriptions read, by the names they give them. */
enum {
    A_SCHS, A_MAP, A_ZC, A_ZO, A_KEY, A_VAL, A_RUN, A_LAST, A_PS, A_PSE, A_BC, A_MC, A_MND,
    NARR
};
static const char *const pennant_arrays[NARR] = {
    "schs", "map", "zc", "zo", "key", "val", "run", "last", "ps", "pse", "bc", "mc", "mnd",
};
enum { P_SP1, P_SP2, P_SZ, P_SS4, P_SS3, P_SP0, NPLANES }; /* planes of A_MAP */

struct pennant {
    struct kdw w;
    uint32_t nzx, nzy, npts, nzones, nsides, chunk, nsch;
    uint32_t *a[NARR];
    struct kd_array arr[NARR];
    double *px, *py;
    unsigned cycles;
    struct kdw_launch launch[NK];
};

static const uint32_t *plane(const struct pennant *p, unsigned pl)
{
    return p->a[A_MAP] + (size_t)pl * p->nsides;
}

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

/* A host array of n entries, bound by the name arrays[a]. */
static uint32_t *host(struct pennant *p, unsigned a, uint64_t n)
{
    p->a[a] = xcalloc(n ? n : 1, sizeof *p->a[a]);
    p->arr[a] = (struct kd_array){p->a[a], n};
    return p->a[a];
}

/* The side maps (planes of A_MAP) and each side's zone's other sides, in
 * order from the next (A_ZC, A_ZO), from the zones' point lists. */
static void pennant_sides(struct pennant *p, const uint32_t *zstart, const uint32_t *zpts)
{
    uint32_t ns = p->nsides, *m = host(p, A_MAP, (uint64_t)NPLANES * ns);
    uint32_t *zc = host(p, A_ZC, ns), *zo = host(p, A_ZO, 3ull * ns);
    for (uint32_t z = 0; z < p->nzones; z++) {
        uint32_t s0 = zstart[z], n = zstart[z + 1] - s0;
        for (uint32_t k = 0; k < n; k++) {
            uint32_t s = s0 + k;
            m[P_SP1 * ns + s] = zpts[s];
            m[P_SP2 * ns + s] = zpts[s0 + (k + 1) % n];
            m[P_SZ * ns + s] = z;
            m[P_SS4 * ns + s] = s0 + (k + 1) % n;
            m[P_SS3 * ns + s] = s0 + (k + n - 1) % n;
            zc[s] = n - 1;
            for (uint32_t d = 0; d < 3; d++)
                zo[3 * s + d] = d + 1 < n ? s0 + (k + d + 1) % n : s;
        }
    }
    for (uint32_t s = 0; s < ns; s++)
        m[P_SP0 * ns + s] = m[P_SP1 * ns + m[P_SS3 * ns + s]];
}

/* Mesh::initChunks: at most `chunk` sides, never splitting a zone; chunk w
 * holds sides schs[w] .. schs[w + 1] - 1. */
static void pennant_chunks(struct pennant *p)
{
    uint32_t *schs = host(p, A_SCHS, p->nsides + 1ull), s2 = 0, n = 0;
    const uint32_t *sz = plane(p, P_SZ);
    while (s2 < p->nsides) {
        uint32_t s1 = s2;
        s2 = (uint32_t)min_u64(s2 + p->chunk, p->nsides);
        while (s2 < p->nsides && sz[s2] == sz[s2 - 1])
            s2--;
        schs[n++] = s1;
    }
    schs[n] = p->nsides;
    p->nsch = n;
    p->arr[A_SCHS].n = n + 1ull;
}

/* The inverse map gpuInvMap builds: sides stably sorted by mapsp1, each
 * point's run in side order (A_PS, A_PSE: each point's sides in that
 * order); the sorted keys and values, where a run starts and where it ends. */
static void pennant_invmap(struct pennant *p)
{
    uint32_t ns = p->nsides, np = p->npts;
    uint32_t *ps = host(p, A_PS, np + 1ull), *pse = host(p, A_PSE, ns);
    const uint32_t *sp1 = plane(p, P_SP1);
    for (uint32_t s = 0; s < ns; s++)
        ps[sp1[s] + 1]++;
    for (uint32_t q = 0; q < np; q++)
        ps[q + 1] += ps[q];
    uint32_t *fill = xmalloc(np * sizeof *fill);
    memcpy(fill, ps, np * sizeof *fill);
    for (uint32_t s = 0; s < ns; s++)
        pse[fill[sp1[s]]++] = s;
    free(fill);
    uint32_t *key = host(p, A_KEY, ns), *val = host(p, A_VAL, ns);
    uint32_t *run = host(p, A_RUN, ns), *last = host(p, A_LAST, ns);
    for (uint32_t q = 0; q < np; q++)
        for (uint32_t a = ps[q]; a < ps[q + 1]; a++) {
            key[a] = q;
            val[a] = pse[a];
            run[a] = a == ps[q];
            last[a] = a + 1 == ps[q + 1];
        }
}

/* Points on the fixed boundaries x = 0 and y = 0 (noh.pnt's bcx and bcy,
 * planes of A_BC: applyFixedBC's test |dot(p, vfix) - bc| < 1e-12, on the
 * initial mesh: the flow is radial, so the points stay on them). */
static void pennant_boundaries(struct pennant *p)
{
    uint32_t *bc = host(p, A_BC, 2ull * p->npts);
    for (uint32_t q = 0; q < p->npts; q++) {
        bc[q] = fabs(p->px[q]) < 1e-12;
        bc[p->npts + q] = fabs(p->py[q]) < 1e-12;
    }
}

/* hydroFindMinDt's steps: in a chunk of `len` zones, zone z0 takes part
 * while z0 < half (= len / 2), comparing with z0 + len', len' = half +
 * (len & 1), then len = len'. A_MC: the steps each zone takes part in;
 * A_MND: each chunk's distances len', `chunk` entries a chunk. */
static void pennant_minlists(struct pennant *p)
{
    uint32_t nz = p->nzones, ch = p->chunk;
    uint32_t *mc = host(p, A_MC, nz), *mnd = host(p, A_MND, div_ceil(nz, ch) * ch);
    for (uint32_t z = 0; z < nz; z++) {
        uint32_t z0 = z % ch, len = (uint32_t)min_u64(ch, nz - (z - z0)), half = len >> 1;
        for (uint32_t *d = &mnd[z - z0]; z0 < half; mc[z]++, d++) {
            len = half + (len & 1);
            *d = len;
            half = len >> 1;
        }
    }
}

/* The smallest characteristic length of the initial mesh (meshCalcCharLen:
 * per side (3 or 4) x side area / base length, per zone the minimum). */
static double pennant_min_zdl(const struct pennant *p)
{
    const uint32_t *sz = plane(p, P_SZ), *sp1 = plane(p, P_SP1), *sp2 = plane(p, P_SP2);
    double best = INFINITY;
    for (uint32_t s = 0; s < p->nsides;) {
        uint32_t e = s, n;
        while (e < p->nsides && sz[e] == sz[s])
            e++;
        n = e - s;
        double cx = 0, cy = 0;
        for (uint32_t t = s; t < e; t++) {
            cx += p->px[sp1[t]] / n;
            cy += p->py[sp1[t]] / n;
        }
        for (uint32_t t = s; t < e; t++) {
            double x1 = p->px[sp1[t]], y1 = p->py[sp1[t]];
            double x2 = p->px[sp2[t]], y2 = p->py[sp2[t]];
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

/* Kernel i: its geometry (side chunks, or points or zones in chunks), its
 * parameters, buffers, arrays and LDS. */
static void pennant_launch(struct pennant *p, unsigned i, const struct kernel_buf *const *bufs)
{
    const struct kd_desc *d = pennant_descs[i];
    struct kdw_launch *l = &p->launch[i];
    uint32_t items = i == K_INVMAP ? p->nsides : i == K_MAIN5 ? p->nzones : p->npts;
    bool side = i == K_MAIN2 || i == K_MAIN4;
    l->prog = i;
    l->grid = (struct kernel_dim){side ? p->nsch : (uint32_t)div_ceil(items, p->chunk), 1, 1};
    l->block = (struct kernel_dim){p->chunk, 1, 1};
    l->params[0] = side ? p->nsides : items;
    l->params[1] = p->nzones;
    l->lds_b = side ? 32 * p->chunk : i == K_MAIN5 ? 24 * p->chunk : 0;
    for (unsigned b = 0; d->bufs[b]; b++) /* by the names the description gives them */
        for (unsigned j = 0; j < NBUF; j++)
            l->bufs[b] = strcmp(pennant_bufs[j].id, d->bufs[b]) ? l->bufs[b] : bufs[j];
    for (unsigned a = 0; d->arrays && d->arrays[a]; a++)
        for (unsigned j = 0; j < NARR; j++)
            l->arrays[a] = strcmp(pennant_arrays[j], d->arrays[a]) ? l->arrays[a] : p->arr[j];
}

static int pennant_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    struct pennant *p = (struct pennant *)w;
    uint64_t chunk = cfg_uint(sec, "chunk");
    if (!is_pow2(chunk))
        return cfg_err(e, sec, "chunk", "must be a power of two (the dt reduction halves it)");
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
    pennant_boundaries(p);
    pennant_minlists(p);
    const uint64_t items[] = {p->nsides, p->npts, p->nzones, 1};
    const struct kernel_buf *bufs[NBUF];
    for (unsigned b = 0; b < NBUF; b++) {
        const struct pbuf *d = &pennant_bufs[b];
        bufs[b] = wl_alloc(w->env, d->name, items[d->items] * d->esize * d->planes);
    }
    for (unsigned i = 0; i < NK; i++)
        pennant_launch(p, i, bufs);
    p->cycles = pennant_cycles(p, sec);
    return 0;
}

static void pennant_release(struct kdw *w)
{
    struct pennant *p = (struct pennant *)w;
    for (unsigned a = 0; a < NARR; a++)
        free(p->a[a]);
    free(p->px);
    free(p->py);
}

/* gpuInvMap once, then gpuMain1..5 per cycle. */
static bool pennant_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct pennant *p = (const struct pennant *)w;
    if (i == 1 + 5ull * p->cycles)
        return false;
    *l = p->launch[i ? K_MAIN1 + (i - 1) % 5 : K_INVMAP];
    return true;
}

static uint64_t pennant_count(const struct kdw *w)
{
    return 1 + 5ull * ((const struct pennant *)w)->cycles;
}

static const struct kdw_model pennant_model = {
    .size = sizeof(struct pennant), .descs = pennant_descs, .setup = pennant_setup,
    .plan = pennant_plan, .count = pennant_count, .release = pennant_release};

static void *pennant_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&pennant_model, env, sec, e);
}

static const char *const pennant_small[] = {"nzx=8", "nzy=6", "cstop=3", NULL};

const struct wl_ops wl_pennant = {
    .name = "pennant",
    .suite = "CORAL-2",
    .desc = "PENNANT (CORAL-2): Noh problem on a pie mesh, 5 kernels per cycle",
    .keys = pennant_keys,
    .small = pennant_small,
    .create = pennant_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
    .kernels = kdw_kernels,
};
