/*
 * pennant.c -- PENNANT (CORAL-2 / LANL), the GPU version (HydroGPU): 2D
 * staggered-grid Lagrangian hydrodynamics on an unstructured mesh of points,
 * zones and sides, run on the Noh problem (noh.pnt: a pie mesh, a quarter
 * disc of radius 1 in 40 x 40 zones, uniform inflow u = -1, to t = 0.6).
 *
 * Modelled: the pie mesh built as PENNANT's GenMesh builds it (one centre
 * point; triangles in the inner ring, quads outside), the side maps
 * (mapsp1, mapsp2, mapsz, mapss3, mapss4), side chunks of at most 64 sides
 * holding whole zones, the point-to-side inverse map (mappsfirst /
 * mapssnext) made by gpuInvMap once, then per cycle gpuMain1 (points: save
 * and half-advance), gpuMain2 (sides: geometry, masses, forces; zone sums in
 * LDS across the chunk), gpuMain3 (points: gather corner masses and forces
 * along the mapssnext chains, boundary conditions, advance), gpuMain4
 * (sides: new geometry and work; zone sums in LDS) and gpuMain5 (zones:
 * energy, density, time-step constraints with an LDS min-reduction).
 * Abstracted: no data values; the cycle count comes from PENNANT's time
 * step rules evaluated on the initial state (docs/workloads/pennant.md);
 * the thrust sort before gpuInvMap is not modelled; ALU counts are
 * estimates given with the tables.
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
    B_MAPS, /* mapsp1, mapsp2, mapsz, mapss3, mapss4 (planes 0..4) */
    B_SPKEY, B_SPVAL, B_PSFIRST, B_SSNEXT,
    B_PX, B_PU, B_PX0, B_PU0, B_PXP,
    B_ZM, B_ZE, B_ZWRATE, B_ZVOL, B_ZVOL0, B_ZR, B_ZP, B_ZSS, B_ZDU, B_ZDL, B_ZW, B_ZETOT,
    B_SMF, B_CMASWT, B_SFP, B_SFQ, B_CFTOT,
    B_DTBLK,
    L_DSS4, L_DSS3, L_CT2, L_CT, L_CTB, L_RED, NBUF
};
enum { P_SP1, P_SP2, P_SZ, P_SS3, P_SS4 };
enum { M_SP1, M_SP2, M_SZ, M_ZFIRST, M_KEY, M_VAL, M_PREV, M_NEXT, M_RUN, NMAP };
enum { L_ZS, L_PS };

#define ALU(n_, a, b) {.kind = KOP_ALU, .n = (n_), .src0 = (a), .src1 = (b)}
#define LD(b, d) {.kind = KOP_LOAD, .buf = (b), .ix = MK_ITEM, .dst = (d)}
#define ST(b, s) {.kind = KOP_STORE, .buf = (b), .ix = MK_ITEM, .src0 = (s)}
#define LDMAP(pl, d) {.kind = KOP_LOAD, .buf = B_MAPS, .ix = MK_ITEM, .k = (pl), .dst = (d)}
/* a point or zone array reached through a side map */
#define LDVIA(b, m, d, s) \
    {.kind = KOP_LOAD, .buf = (b), .ix = MK_MAP, .map = (m), .dst = (d), .src0 = (s)}
/* a zone value stored by the zone's first side */
#define STZ(b)                                                                            \
    {.kind = KOP_STORE, .buf = (b), .ix = MK_MAP, .map = M_SZ, .flags = MK_IF, .pred = M_ZFIRST, \
     .src0 = 3}
#define LDS_ST(b) {.kind = KOP_LDS_STORE, .buf = (b), .ix = MK_ITEM}
#define BAR {.kind = KOP_BARRIER}
/* The zone's other sides, in mapss4 order, read from the chunk's LDS copy:
 * sn = s0 + dss4[s0]; while (sn != s0) { ... sn += dss4[sn]; } */
#define ZLOOP(b, alu)                                                                     \
    {.kind = MK_LOOP, .map = L_ZS},                                                         \
        {.kind = KOP_LDS_LOAD, .buf = L_DSS4, .ix = MK_LIST, .map = L_ZS, .dst = 7},        \
        {.kind = KOP_LDS_LOAD, .buf = (b), .ix = MK_LIST, .map = L_ZS, .dst = 8},           \
        ALU(alu, 8, 0), {.kind = MK_END}
#define ZLOOP2(b1, b2, alu)                                                               \
    {.kind = MK_LOOP, .map = L_ZS},                                                         \
        {.kind = KOP_LDS_LOAD, .buf = L_DSS4, .ix = MK_LIST, .map = L_ZS, .dst = 7},        \
        {.kind = KOP_LDS_LOAD, .buf = (b1), .ix = MK_LIST, .map = L_ZS, .dst = 8},          \
        {.kind = KOP_LDS_LOAD, .buf = (b2), .ix = MK_LIST, .map = L_ZS, .dst = 8},          \
        ALU(alu, 8, 0), {.kind = MK_END}
/* A zone sum over the chunk: publish this side's value, then add the others. */
#define ZSUM(b, alu) BAR, LDS_ST(b), BAR, ZLOOP(b, alu)

/* gpuMain1 (per point): px0 = px, pu0 = pu, pxp = px0 + dth * pu0. */
static const struct mk_step k_main1[] = {
    LD(B_PX, 1), LD(B_PU, 2), ALU(6, 1, 2), ST(B_PX0, 1), ST(B_PU0, 2), ST(B_PXP, 1),
};
/* gpuMain2 (per side). Estimates: calcZoneCtrs and calcSideVols 30,
 * meshCalcCharLen 25, hydroCalcRho + calcCrnrMass 20, pgasCalcStateAtHalf
 * (gamma-law EOS, sqrt) 40, pgasCalcForce 20, ttsCalcForce 60,
 * qcsCalcForce (setCornerDiv, setQCnForce, setForce) 120, setVelDiff 30. */
static const struct mk_step k_main2[] = {
    LDMAP(P_SP1, 1), LDMAP(P_SP2, 2), LDMAP(P_SZ, 3), LDMAP(P_SS4, 4), LDMAP(P_SS3, 4),
    ALU(4, 4, 0), LDS_ST(L_DSS4), LDS_ST(L_DSS3),
    LDVIA(B_PXP, M_SP1, 5, 1), LDVIA(B_PXP, M_SP2, 5, 2), LDVIA(B_PU0, M_SP1, 6, 1),
    LDVIA(B_PU0, M_SP2, 6, 2),
    {.kind = KOP_LDS_STORE, .buf = L_CT2, .ix = MK_ITEM, .src0 = 5}, BAR, ZLOOP(L_CT2, 3),
    ALU(30, 5, 0), BAR, LDS_ST(L_CT), LDS_ST(L_CTB), BAR, ZLOOP2(L_CT, L_CTB, 2),
    ALU(25, 0, 0), ZSUM(L_CT, 1),
    LDVIA(B_ZM, M_SZ, 9, 3), LD(B_SMF, 9), ALU(20, 9, 0), ST(B_CMASWT, 0),
    LDVIA(B_ZE, M_SZ, 10, 3), LDVIA(B_ZWRATE, M_SZ, 10, 3), LDVIA(B_ZVOL0, M_SZ, 10, 3),
    ALU(40, 10, 0), ALU(20, 0, 0), ST(B_SFP, 0), ALU(60, 0, 0),
    ZSUM(L_CT2, 3), ALU(120, 6, 0), ST(B_SFQ, 0), ALU(30, 0, 0), ZSUM(L_CT, 1),
    ALU(6, 0, 0), ST(B_CFTOT, 0), STZ(B_ZSS), STZ(B_ZP), STZ(B_ZDU), STZ(B_ZDL),
};
/* gpuMain3 (per point): gatherToPoints twice along the chain, the fixed
 * boundary conditions (a test per boundary line), acceleration and
 * advPosFull (~14). */
static const struct mk_step k_main3[] = {
    LD(B_PSFIRST, 1),
    {.kind = MK_LOOP, .map = L_PS},
        {.kind = KOP_LOAD, .buf = B_CMASWT, .ix = MK_LIST, .map = L_PS, .dst = 2, .src0 = 1},
        {.kind = KOP_LOAD, .buf = B_CFTOT, .ix = MK_LIST, .map = L_PS, .dst = 2, .src0 = 1},
        {.kind = KOP_LOAD, .buf = B_SSNEXT, .ix = MK_LIST, .map = L_PS, .dst = 1, .src0 = 1},
        ALU(4, 2, 0),
    {.kind = MK_END},
    LD(B_PXP, 3), LD(B_PU0, 4), LD(B_PX0, 4), ALU(8, 3, 0), ALU(14, 2, 4), ST(B_PU, 0),
    ST(B_PX, 0),
};
/* gpuMain4 (per side): the new geometry (30), hydroCalcWork (20). */
static const struct mk_step k_main4[] = {
    LDMAP(P_SP1, 1), LDMAP(P_SP2, 2), LDMAP(P_SZ, 3), LDMAP(P_SS4, 4), ALU(2, 4, 0),
    LDS_ST(L_DSS4),
    LDVIA(B_PX, M_SP1, 5, 1), LDVIA(B_PX, M_SP2, 5, 2), LDVIA(B_PU, M_SP1, 6, 1),
    LDVIA(B_PU, M_SP2, 6, 2), LDVIA(B_PU0, M_SP1, 6, 1), LDVIA(B_PU0, M_SP2, 6, 2),
    {.kind = KOP_LDS_STORE, .buf = L_CT2, .ix = MK_ITEM, .src0 = 5}, BAR, ZLOOP(L_CT2, 3),
    ALU(30, 5, 0), BAR, LDS_ST(L_CT), LDS_ST(L_CTB), BAR, ZLOOP2(L_CT, L_CTB, 2),
    STZ(B_ZVOL), LD(B_SFP, 9), LD(B_SFQ, 9), ALU(20, 6, 9), ZSUM(L_CT, 1),
    LDVIA(B_ZETOT, M_SZ, 10, 3), ALU(2, 10, 0), STZ(B_ZW), STZ(B_ZETOT),
};
/* gpuMain5 (per zone): hydroCalcWorkRate, hydroCalcEnergy, hydroCalcRho
 * (three divisions, ~30), hydroCalcDtCourant and hydroCalcDtVolume (~30),
 * then the work-group's minimum dt in LDS, one value per work-group. */
static const struct mk_step k_main5[] = {
    LD(B_ZW, 1), LD(B_ZP, 1), LD(B_ZVOL, 1), LD(B_ZVOL0, 1), LD(B_ZETOT, 1), LD(B_ZM, 1),
    ALU(30, 1, 0), ST(B_ZWRATE, 0), ST(B_ZE, 0), ST(B_ZR, 0),
    LD(B_ZDU, 2), LD(B_ZSS, 2), LD(B_ZDL, 2), ALU(30, 2, 0), ST(B_ZVOL0, 1),
    {.kind = KOP_LDS_STORE, .buf = L_RED, .ix = MK_ITEM}, {.kind = MK_REDUCE, .buf = L_RED},
    {.kind = KOP_LDS_LOAD, .buf = L_RED, .ix = MK_WG, .dst = 3},
    {.kind = KOP_STORE, .buf = B_DTBLK, .ix = MK_WG, .src0 = 3},
};
/* gpuInvMap (per sorted side entry i): compare the key with its
 * neighbours; the first entry of a point's run sets mappsfirst, every entry
 * links mapssnext to the next entry of the run (or -1). */
static const struct mk_step k_invmap[] = {
    LD(B_SPKEY, 1), LD(B_SPVAL, 2), LDVIA(B_SPKEY, M_PREV, 1, 0), LDVIA(B_SPKEY, M_NEXT, 1, 0),
    LDVIA(B_SPVAL, M_NEXT, 2, 0), ALU(6, 1, 2),
    {.kind = KOP_STORE, .buf = B_PSFIRST, .ix = MK_MAP, .map = M_KEY, .flags = MK_IF,
     .pred = M_RUN, .src0 = 1},
    {.kind = KOP_STORE, .buf = B_SSNEXT, .ix = MK_MAP, .map = M_VAL, .src0 = 2},
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
    for (int i = 0; i < 4; i++)
        p->m[i] = xmalloc(ns * sizeof *p->m[i]); /* M_SP1, M_SP2, M_SZ, M_ZFIRST */
    int32_t *ss3 = xmalloc(ns * sizeof *ss3), *ss4 = xmalloc(ns * sizeof *ss4);
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
    free(ss3);
    free(ss4);
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
    for (int i = M_KEY; i <= M_RUN; i++)
        p->m[i] = xmalloc(ns * sizeof *p->m[i]);
    for (uint32_t q = 0, i = 0; q < np; q++)
        for (uint32_t a = p->ps_start[q]; a < p->ps_start[q + 1]; a++, i++) {
            p->m[M_KEY][i] = (int32_t)q;
            p->m[M_VAL][i] = (int32_t)p->ps_ent[a];
            p->m[M_RUN][i] = a == p->ps_start[q];
        }
    for (uint32_t i = 0; i < ns; i++) {
        p->m[M_PREV][i] = (int32_t)(i ? i - 1 : i);
        p->m[M_NEXT][i] = (int32_t)(i + 1 < ns ? i + 1 : i);
    }
}

static const char *const pennant_names[NBUF] = {
    "mapsp1..mapss4", "mapspkey", "mapspval", "mappsfirst", "mapssnext",
    "px", "pu", "px0", "pu0", "pxp",
    "zm", "ze", "zwrate", "zvol", "zvol0", "zr", "zp", "zss", "zdu", "zdl", "zw", "zetot",
    "smf", "cmaswt", "sfp", "sfq", "cftot", "dtblk",
};

static void pennant_buffers(struct pennant *p, struct wl_env *env)
{
    struct mk_ctx *c = &p->c;
    uint32_t nzch = (uint32_t)div_ceil(p->nzones, p->chunk);
    for (unsigned b = 0; b < L_DSS4; b++) {
        uint64_t items = p->nsides;
        uint32_t esize = 8, planes = b == B_MAPS ? 5 : 1;
        if (b <= B_SSNEXT)
            esize = 4;
        if (b == B_PSFIRST)
            items = p->npts;
        if (b >= B_PX && b <= B_PXP)
            items = p->npts, esize = 16;
        if (b >= B_ZM && b <= B_ZETOT)
            items = p->nzones;
        if (b >= B_SFP && b <= B_CFTOT)
            esize = 16;
        if (b == B_DTBLK)
            items = nzch;
        BUG_ON(mk_buf(c, env, pennant_names[b], items, esize, 1, planes) != b);
    }
    uint32_t ch = p->chunk;
    BUG_ON(mk_lds(c, 0, 4) != L_DSS4);
    BUG_ON(mk_lds(c, 4 * ch, 4) != L_DSS3);
    BUG_ON(mk_lds(c, 8 * ch, 16) != L_CT2);
    BUG_ON(mk_lds(c, 24 * ch, 8) != L_CT);
    BUG_ON(mk_lds(c, 32 * ch, 8) != L_CTB);
    BUG_ON(mk_lds(c, 0, 8) != L_RED);
    for (unsigned m = 0; m < NMAP; m++)
        c->map[m] = (struct mk_map){p->m[m], 1, 0};
    c->list[L_ZS] = (struct mk_list){p->zs_start, p->zs_ent};
    c->list[L_PS] = (struct mk_list){p->ps_start, p->ps_ent};
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
        if (rfirst)
            mk_arg_rt(k, *bufs, mode, rfirst);
        else
            mk_arg(k, *bufs, mode, ranged, *bufs == B_MAPS ? 5 : 1);
    }
}

#define A(...) (const uint8_t[]){__VA_ARGS__, NBUF}

static void pennant_kernels(struct pennant *p)
{
    struct mk_kernel *k = pk(p, K_INVMAP, "gpuInvMap", k_invmap, NSTEPS(k_invmap), p->nsides);
    args(k, A(B_SPKEY, B_SPVAL), KERNEL_R, 0, NULL);
    args(k, A(B_PSFIRST, B_SSNEXT), KERNEL_RW, 0, NULL);
    k = pk(p, K_MAIN1, "gpuMain1", k_main1, NSTEPS(k_main1), p->npts);
    args(k, A(B_PX, B_PU), KERNEL_R, 1, NULL);
    args(k, A(B_PX0, B_PU0, B_PXP), KERNEL_RW, 1, NULL);
    for (unsigned i = K_MAIN2; i <= K_MAIN4; i += 2) {
        k = pk(p, i, i == K_MAIN2 ? "gpuMain2" : "gpuMain4", i == K_MAIN2 ? k_main2 : k_main4,
               i == K_MAIN2 ? NSTEPS(k_main2) : NSTEPS(k_main4), p->nsides);
        k->wg_first = p->schs;
        k->nwg = p->nsch;
        k->lds_b = 40 * p->chunk;
    }
    k = &p->k[K_MAIN2];
    args(k, A(B_MAPS, B_SMF), KERNEL_R, 1, NULL);
    args(k, A(B_PXP, B_PU0), KERNEL_R, 0, NULL);
    args(k, A(B_ZM, B_ZE, B_ZWRATE, B_ZVOL0), KERNEL_R, 1, p->schz);
    args(k, A(B_CMASWT, B_SFP, B_SFQ, B_CFTOT), KERNEL_RW, 1, NULL);
    args(k, A(B_ZSS, B_ZP, B_ZDU, B_ZDL), KERNEL_RW, 1, p->schz);
    k = pk(p, K_MAIN3, "gpuMain3", k_main3, NSTEPS(k_main3), p->npts);
    args(k, A(B_PSFIRST, B_PXP, B_PU0, B_PX0), KERNEL_R, 1, NULL);
    args(k, A(B_SSNEXT, B_CMASWT, B_CFTOT), KERNEL_R, 0, NULL);
    args(k, A(B_PU, B_PX), KERNEL_RW, 1, NULL);
    k = &p->k[K_MAIN4];
    args(k, A(B_MAPS, B_SFP, B_SFQ), KERNEL_R, 1, NULL);
    args(k, A(B_PX, B_PU, B_PU0), KERNEL_R, 0, NULL);
    args(k, A(B_ZVOL, B_ZETOT, B_ZW), KERNEL_RW, 1, p->schz);
    k = pk(p, K_MAIN5, "gpuMain5", k_main5, NSTEPS(k_main5), p->nzones);
    k->lds_b = 8 * p->chunk;
    args(k, A(B_ZW, B_ZP, B_ZVOL, B_ZETOT, B_ZM, B_ZDU, B_ZSS, B_ZDL), KERNEL_R, 1, NULL);
    args(k, A(B_ZVOL0, B_ZWRATE, B_ZE, B_ZR), KERNEL_RW, 1, NULL);
    args(k, A(B_DTBLK), KERNEL_RW, 0, NULL);
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
    .desc = "PENNANT (CORAL-2): Noh problem on a pie mesh, 5 kernels per cycle",
    .keys = pennant_keys,
    .small = pennant_small,
    .create = pennant_create,
    .next_kernel = pennant_next_kernel,
    .destroy = pennant_destroy,
};
