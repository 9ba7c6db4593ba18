/*
 * trace_opcodes.c -- SASS opcodes: what each mnemonic does (operation kind,
 * address space, latency class), from which binary version it exists, the
 * access width its modifiers give, and the latency and issue interval of
 * each class per family of binary versions (docs/trace.md has the tables and
 * their sources). Accel-Sim keeps the same knowledge in per-ISA "ISA-def"
 * files; an unknown opcode aborts it, here it is timed as a generic integer
 * operation and reported once.
 *
 * The modifiers also give a memory instruction its scope and strength
 * (.STRONG.GPU ...) and a fence its scope and direction (docs/trace.md 3.1).
 *
 * Decoding happens once per distinct opcode spelling; struct trace_ops
 * caches the result, so the per-line cost is one hash lookup.
 */
#include "trace.h"

#include <stdlib.h>
#include <string.h>

const char *const trace_class_names[TC_N] = {
    "int", "imad", "fp32", "ffma", "fp64", "sfu", "tensor", "shfl", "ctrl", "const", "mem",
};

/* ---- latency and issue interval per family ------------------------------------ */

/* Latencies: the QV100 configuration's values (spec accelsim.md A2: int add
 * 4, mad 5; fp add 4, mad 5; dp 8; sfu 100; tensor 64; shfl 21), used for
 * every family; constant loads 28 (an L1 hit). Issue intervals: 128 divided
 * by the results per clock per SM of the CUDA C++ Programming Guide's
 * throughput table (a warp of 32 on a quarter of the SM's lanes), LD/ST from
 * the units per SM partition of the architecture whitepapers; tensor 8,
 * control and constant 1 are chipsim's assumptions. See docs/trace.md. */
#define LAT {4, 5, 4, 5, 8, 100, 64, 21, 1, 28, 1}
/* Hopper: Accel-Sim's SM90_H100 configuration (trace.config: int 4, sp 4, dp 8,
 * sfu 23; gpgpusim.config -ptx_opcode_latency_int 4,4,4,4 and _fp 4,4,4,4: add,
 * max, mul and mad all 4); tensor, shfl and const as above. */
#define LAT90 {4, 4, 4, 4, 8, 23, 64, 21, 1, 28, 1}

static const struct trace_isa isas[] = {
    /*                     int imad fp32 ffma fp64 sfu tensor shfl ctrl const mem */
    {70, "Volta (sm_70/72)", LAT, {2, 2, 2, 2, 4, 8, 8, 4, 1, 1, 4}},
    {75, "Turing (sm_75)", LAT, {2, 2, 2, 2, 64, 8, 8, 4, 1, 1, 8}},
    {80, "Ampere A100 (sm_80)", LAT, {2, 2, 2, 2, 4, 8, 8, 4, 1, 1, 4}},
    {86, "Ampere GA10x and Ada (sm_86/87/89)", LAT, {2, 2, 1, 1, 64, 8, 8, 4, 1, 1, 8}},
    {90, "Hopper (sm_90)", LAT90, {2, 2, 1, 1, 2, 8, 8, 4, 1, 1, 4}},
};

const struct trace_isa *trace_isa_for(unsigned binver)
{
    const struct trace_isa *best = &isas[0];
    for (size_t i = 0; i < sizeof isas / sizeof *isas; i++)
        if (binver >= isas[i].ver)
            best = &isas[i];
    return best;
}

/* ---- the mnemonics ------------------------------------------------------------ */

struct opdef {
    const char *name;
    uint8_t kind, space, cls;
    uint8_t minver; /* first binary version that has it */
};

#define A(n, c, v) {n, TK_ALU, TSP_NONE, c, v}
#define M(n, k, sp, v) {n, k, sp, TC_MEM, v}

static const struct opdef opdefs[] = {
    /* integer */
    A("IADD3", TC_INT, 70), A("IADD", TC_INT, 0), A("IADD32I", TC_INT, 0),
    A("IABS", TC_INT, 70), A("IMNMX", TC_INT, 0), A("ISETP", TC_INT, 0),
    A("ISCADD", TC_INT, 0), A("ISCADD32I", TC_INT, 0), A("LEA", TC_INT, 0),
    A("LOP", TC_INT, 0), A("LOP3", TC_INT, 0), A("LOP32I", TC_INT, 0), A("SHF", TC_INT, 0),
    A("SHL", TC_INT, 0), A("SHR", TC_INT, 0), A("SEL", TC_INT, 0), A("MOV", TC_INT, 0),
    A("MOV32I", TC_INT, 0), A("PRMT", TC_INT, 0), A("SGXT", TC_INT, 70), A("BMSK", TC_INT, 70),
    A("BREV", TC_INT, 0), A("FLO", TC_INT, 0), A("POPC", TC_INT, 0), A("P2R", TC_INT, 0),
    A("R2P", TC_INT, 0), A("PLOP3", TC_INT, 70), A("PSETP", TC_INT, 0), A("CS2R", TC_INT, 70),
    A("S2R", TC_INT, 0), A("VABSDIFF", TC_INT, 0), A("VABSDIFF4", TC_INT, 0),
    A("VOTE", TC_INT, 0), A("MATCH", TC_INT, 70), A("QSPC", TC_INT, 70), A("ISET", TC_INT, 0),
    A("ICMP", TC_INT, 0), A("REDUX", TC_INT, 80), A("VIADD", TC_INT, 90),
    A("VIADDMNMX", TC_INT, 90), A("VIMNMX", TC_INT, 90), A("VIMNMX3", TC_INT, 90),
    /* the uniform datapath (Turing on) */
    A("UIADD3", TC_INT, 75), A("UMOV", TC_INT, 75), A("ULOP", TC_INT, 75),
    A("ULOP3", TC_INT, 75), A("ULOP32I", TC_INT, 75), A("USHF", TC_INT, 75),
    A("USHL", TC_INT, 75), A("USHR", TC_INT, 75), A("USEL", TC_INT, 75),
    A("UISETP", TC_INT, 75), A("ULEA", TC_INT, 75), A("UPLOP3", TC_INT, 75),
    A("UPRMT", TC_INT, 75), A("UFLO", TC_INT, 75), A("UPOPC", TC_INT, 75),
    A("UBREV", TC_INT, 75), A("USGXT", TC_INT, 75), A("UBMSK", TC_INT, 75),
    A("UPSETP", TC_INT, 75), A("VOTEU", TC_INT, 75), A("R2UR", TC_INT, 75),
    A("S2UR", TC_INT, 75), A("UP2UR", TC_INT, 80), A("UR2UP", TC_INT, 80),
    A("USETMAXREG", TC_INT, 90), A("UIMAD", TC_IMAD, 75),
    /* integer multiply */
    A("IMAD", TC_IMAD, 0), A("IMAD32I", TC_IMAD, 0), A("IMUL", TC_IMAD, 0),
    A("IMUL32I", TC_IMAD, 0), A("IMADSP", TC_IMAD, 0), A("IDP", TC_IMAD, 0),
    A("XMAD", TC_IMAD, 0),
    /* FP32 and FP16 */
    A("FADD", TC_FP32, 0), A("FADD32I", TC_FP32, 0), A("FMUL", TC_FP32, 0),
    A("FMUL32I", TC_FP32, 0), A("FSETP", TC_FP32, 0), A("FSET", TC_FP32, 0),
    A("FSEL", TC_FP32, 0), A("FMNMX", TC_FP32, 0), A("FCHK", TC_FP32, 0),
    A("FSWZADD", TC_FP32, 0), A("FCMP", TC_FP32, 0), A("HADD2", TC_FP32, 0),
    A("HADD2_32I", TC_FP32, 0), A("HMUL2", TC_FP32, 0), A("HMUL2_32I", TC_FP32, 0),
    A("HSETP2", TC_FP32, 0), A("HSET2", TC_FP32, 0), A("HMNMX2", TC_FP32, 80),
    A("F2FP", TC_FP32, 80), A("I2FP", TC_FP32, 90),
    A("FFMA", TC_FFMA, 0), A("FFMA32I", TC_FFMA, 0), A("HFMA2", TC_FFMA, 0),
    A("HFMA2_32I", TC_FFMA, 0),
    /* FP64 */
    A("DADD", TC_FP64, 0), A("DMUL", TC_FP64, 0), A("DFMA", TC_FP64, 0),
    A("DSETP", TC_FP64, 0), A("DMNMX", TC_FP64, 0),
    /* special functions and conversions */
    A("MUFU", TC_SFU, 0), A("F2F", TC_SFU, 0), A("F2I", TC_SFU, 0), A("I2F", TC_SFU, 0),
    A("I2I", TC_SFU, 0), A("FRND", TC_SFU, 0), A("F2IP", TC_SFU, 80), A("I2IP", TC_SFU, 80),
    /* tensor cores */
    A("HMMA", TC_TENSOR, 70), A("IMMA", TC_TENSOR, 75), A("BMMA", TC_TENSOR, 75),
    A("DMMA", TC_TENSOR, 80), A("HGMMA", TC_TENSOR, 90), A("IGMMA", TC_TENSOR, 90),
    A("BGMMA", TC_TENSOR, 90), A("QGMMA", TC_TENSOR, 90),
    A("SHFL", TC_SHFL, 0),
    /* control */
    A("BRA", TC_CTRL, 0), A("BRX", TC_CTRL, 0), A("BRXU", TC_CTRL, 75), A("JMP", TC_CTRL, 0),
    A("JMX", TC_CTRL, 0), A("JMXU", TC_CTRL, 75), A("CALL", TC_CTRL, 0), A("RET", TC_CTRL, 0),
    A("BSSY", TC_CTRL, 70), A("BSYNC", TC_CTRL, 70), A("BREAK", TC_CTRL, 70),
    A("BMOV", TC_CTRL, 70), A("BPT", TC_CTRL, 0), A("KILL", TC_CTRL, 0),
    A("NANOSLEEP", TC_CTRL, 70), A("NOP", TC_CTRL, 0), A("PMTRIG", TC_CTRL, 0),
    A("RPCMOV", TC_CTRL, 70), A("WARPSYNC", TC_CTRL, 70), A("YIELD", TC_CTRL, 70),
    A("CCTL", TC_CTRL, 0), A("CCTLL", TC_CTRL, 0), A("CCTLT", TC_CTRL, 0),
    A("ERRBAR", TC_CTRL, 70), A("CGAERRBAR", TC_CTRL, 90), A("LEPC", TC_CTRL, 70),
    A("B2R", TC_CTRL, 0), A("R2B", TC_CTRL, 0), A("SETCTAID", TC_CTRL, 0),
    A("SETLMEMBASE", TC_CTRL, 0), A("GETLMEMBASE", TC_CTRL, 0), A("TXQ", TC_CTRL, 0),
    A("SUQUERY", TC_CTRL, 0),
    A("ACQBULK", TC_CTRL, 90), A("ELECT", TC_CTRL, 90), A("ENDCOLLECTIVE", TC_CTRL, 90),
    A("UCGABAR_ARV", TC_CTRL, 90), A("UCGABAR_WAIT", TC_CTRL, 90), A("SYNCS", TC_CTRL, 90),
    A("FENCE", TC_CTRL, 90), A("WARPGROUP", TC_CTRL, 90), A("UTMACCTL", TC_CTRL, 90),
    A("UTMACMDFLUSH", TC_CTRL, 90), A("PREEXIT", TC_CTRL, 90),
    {"DEPBAR", TK_WAIT, TSP_NONE, TC_CTRL, 0},
    {"LDGDEPBAR", TK_WAIT, TSP_NONE, TC_CTRL, 80},
    {"ARRIVES", TK_WAIT, TSP_NONE, TC_CTRL, 80},
    {"BAR", TK_BARRIER, TSP_NONE, TC_CTRL, 0},
    {"MEMBAR", TK_MEMBAR, TSP_NONE, TC_CTRL, 0},
    {"EXIT", TK_EXIT, TSP_NONE, TC_CTRL, 0},
    {"LDC", TK_CONST, TSP_NONE, TC_CONST, 0},
    {"ULDC", TK_CONST, TSP_NONE, TC_CONST, 75},
    /* memory */
    M("LDG", TK_LOAD, TSP_GLOBAL, 0), M("STG", TK_STORE, TSP_GLOBAL, 0),
    M("LD", TK_LOAD, TSP_GENERIC, 0), M("ST", TK_STORE, TSP_GENERIC, 0),
    M("LDL", TK_LOAD, TSP_LOCAL, 0), M("STL", TK_STORE, TSP_LOCAL, 0),
    M("LDS", TK_LOAD, TSP_SHARED, 0), M("STS", TK_STORE, TSP_SHARED, 0),
    M("LDSM", TK_LOAD, TSP_SHARED, 75), M("STSM", TK_STORE, TSP_SHARED, 90),
    M("ATOM", TK_ATOMIC, TSP_GENERIC, 0), M("RED", TK_ATOMIC, TSP_GENERIC, 0),
    M("ATOMG", TK_ATOMIC, TSP_GLOBAL, 70), M("REDG", TK_ATOMIC, TSP_GLOBAL, 90),
    M("ATOMS", TK_ATOMIC, TSP_SHARED, 0), M("LDGSTS", TK_ASYNC, TSP_GLOBAL, 80),
    M("TEX", TK_LOAD, TSP_GLOBAL, 0), M("TLD", TK_LOAD, TSP_GLOBAL, 0),
    M("TLD4", TK_LOAD, TSP_GLOBAL, 0), M("TMML", TK_LOAD, TSP_GLOBAL, 0),
    M("TXD", TK_LOAD, TSP_GLOBAL, 0), M("SULD", TK_LOAD, TSP_GLOBAL, 0),
    M("SUST", TK_STORE, TSP_GLOBAL, 0), M("SUATOM", TK_ATOMIC, TSP_GLOBAL, 0),
    M("SURED", TK_ATOMIC, TSP_GLOBAL, 0),
    M("UTMALDG", TK_LOAD, TSP_GLOBAL, 90), M("UTMAPF", TK_LOAD, TSP_GLOBAL, 90),
    M("UBLKCP", TK_LOAD, TSP_GLOBAL, 90), M("UBLKPF", TK_LOAD, TSP_GLOBAL, 90),
    M("UTMASTG", TK_STORE, TSP_GLOBAL, 90), M("UTMAREDG", TK_ATOMIC, TSP_GLOBAL, 90),
    M("UBLKRED", TK_ATOMIC, TSP_GLOBAL, 90),
};

static char *xstrndup(const char *s, size_t n)
{
    char *d = xmalloc(n + 1);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

static const struct opdef *find_def(const char *base, size_t len)
{
    for (size_t i = 0; i < sizeof opdefs / sizeof *opdefs; i++)
        if (!strncmp(opdefs[i].name, base, len) && !opdefs[i].name[len])
            return &opdefs[i];
    return NULL;
}

static bool all_digits(const char *s, size_t n)
{
    if (!n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

static bool tok_is(const char *s, size_t n, const char *word)
{
    return strlen(word) == n && !memcmp(s, word, n);
}

/* Width per lane from the modifiers, as Accel-Sim's reader derives it: the
 * first purely numeric modifier in bits (.64, .128), or a U<bits> (and
 * here also S<bits>) modifier; 4 bytes otherwise. */
static unsigned width_of(const char *mods)
{
    const char *p = mods;
    while (*p) {
        size_t n = strcspn(p, ".");
        unsigned bits = 0;
        if (all_digits(p, n) && n <= 3)
            bits = (unsigned)atoi(p);
        else if ((p[0] == 'U' || p[0] == 'S') && n > 1 && n <= 4 && all_digits(p + 1, n - 1))
            bits = (unsigned)atoi(p + 1);
        if (bits) {
            unsigned b = bits / 8;
            return b == 1 || b == 2 || b == 4 || b == 8 || b == 16 ? b : 4;
        }
        p += n + (p[n] == '.');
    }
    return 4;
}

/* A scope modifier: CTA, GPU (GL on pre-Volta MEMBAR), SYS; -1 for any other token. */
static int scope_of(const char *p, size_t n)
{
    if (tok_is(p, n, "CTA"))
        return SCOPE_CTA;
    if (tok_is(p, n, "GPU") || tok_is(p, n, "GL"))
        return SCOPE_GPU;
    if (tok_is(p, n, "SYS"))
        return SCOPE_SYS;
    return -1;
}

/* Scope, strength and barrier modifiers (docs/trace.md 3.1). A load or store
 * is strong only with .STRONG and a scope: a lone .SYS is how CUDA 10 and 11
 * spell every plain Volta/Turing access (LDG.E.SYS, LDG.E.128.CONSTANT.SYS),
 * and cache hints (.CONSTANT, .EF, .EL, .LU, .NA ...) leave an access weak.
 * A global atomic is relaxed at its .STRONG scope, or at GPU scope without
 * one (PTX atom's default; pre-Volta SASS names no scope). MEMBAR (.SC and
 * .ALL alike) orders both ways at its scope (GPU when it names none);
 * CCTL.IVALL, the L1 invalidation the compiler puts after an acquiring
 * access, is an acquire fence whose scope is that access's. */
static void modifiers(const struct opdef *d, const char *mods, struct trace_opinfo *o)
{
    const char *p = mods;
    bool strong = false, ivall = false;
    int scope = -1;
    while (*p) {
        size_t n = strcspn(p, ".");
        int sc = scope_of(p, n);
        if (sc >= 0)
            scope = sc;
        strong |= tok_is(p, n, "STRONG");
        ivall |= tok_is(p, n, "IVALL");
        if (o->kind == TK_BARRIER && tok_is(p, n, "ARV"))
            o->flags |= TOP_ARRIVE;
        p += n + (p[n] == '.');
    }
    bool access = o->kind == TK_LOAD || o->kind == TK_STORE || o->kind == TK_ATOMIC ||
                  o->kind == TK_ASYNC;
    if (o->kind == TK_MEMBAR) {
        o->scope = (uint8_t)(scope >= 0 ? scope : SCOPE_GPU);
        o->sem = SEM_ACQ_REL;
    } else if (access && strong && scope >= 0) {
        o->scope = (uint8_t)scope;
        o->sem = SEM_RELAXED;
    } else if (o->kind == TK_ATOMIC && o->space != TSP_SHARED) {
        o->scope = SCOPE_GPU;
        o->sem = SEM_RELAXED;
    } else if (ivall && !strcmp(d->name, "CCTL")) {
        o->kind = TK_MEMBAR;
        o->scope = SCOPE_GPU;
        o->sem = SEM_ACQUIRE;
        o->flags |= TOP_SCOPE_PREV;
    }
}

void trace_opcode_decode(const char *name, unsigned binver, struct trace_opinfo *o)
{
    size_t blen = strcspn(name, ".");
    const char *mods = name[blen] ? name + blen + 1 : name + blen;
    *o = (struct trace_opinfo){.binver = binver, .kind = TK_ALU, .cls = TC_INT, .size = 4};
    const struct opdef *d = find_def(name, blen);
    if (!d || binver < d->minver) {
        o->flags = TOP_UNKNOWN;
        return;
    }
    o->kind = d->kind;
    o->space = d->space;
    o->cls = d->cls;
    o->size = (uint8_t)width_of(mods);
    modifiers(d, mods, o);
}

/* ---- the table of opcodes met ---------------------------------------------------- */

void trace_ops_init(struct trace_ops *o, FILE *warn)
{
    *o = (struct trace_ops){.warn = warn, .hcap = 256};
    o->hash = xcalloc(o->hcap, sizeof *o->hash);
}

void trace_ops_free(struct trace_ops *o)
{
    for (size_t i = 0; i < o->n; i++)
        free(o->v[i].name);
    for (size_t i = 0; i < o->nunknown; i++)
        free(o->unknown[i]);
    free(o->v);
    free(o->hash);
    free(o->unknown);
    *o = (struct trace_ops){0};
}

static uint64_t hash_str(const char *s, size_t n, unsigned binver)
{
    uint64_t h = 0xcbf29ce484222325ull ^ binver;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 0x100000001b3ull;
    return h;
}

static void rehash(struct trace_ops *o)
{
    free(o->hash);
    o->hcap *= 2;
    o->hash = xcalloc(o->hcap, sizeof *o->hash);
    for (size_t i = 0; i < o->n; i++) {
        const struct trace_opinfo *x = &o->v[i];
        size_t j = hash_str(x->name, strlen(x->name), x->binver) & (o->hcap - 1);
        while (o->hash[j])
            j = (j + 1) & (o->hcap - 1);
        o->hash[j] = (uint32_t)i + 1;
    }
}

static void note_unknown(struct trace_ops *o, const char *name, unsigned binver,
                         const char *file, uint64_t line)
{
    size_t blen = strcspn(name, ".");
    for (size_t i = 0; i < o->nunknown; i++)
        if (!strncmp(o->unknown[i], name, blen) && !o->unknown[i][blen])
            return;
    o->unknown = xgrow(o->unknown, sizeof *o->unknown, &o->unknown_cap, o->nunknown + 1);
    o->unknown[o->nunknown++] = xstrndup(name, blen);
    if (o->warn)
        fprintf(o->warn,
                "chipsim: warning: %s:%llu: unknown opcode %.*s (binary version %u): timed as "
                "a generic integer operation\n", file, (unsigned long long)line, (int)blen, name,
                binver);
}

uint32_t trace_ops_get(struct trace_ops *o, const char *name, size_t len, unsigned binver,
                       const char *file, uint64_t line)
{
    size_t j = hash_str(name, len, binver) & (o->hcap - 1);
    for (uint32_t k; (k = o->hash[j]); j = (j + 1) & (o->hcap - 1)) {
        const struct trace_opinfo *x = &o->v[k - 1];
        if (x->binver == binver && !strncmp(x->name, name, len) && !x->name[len])
            return k - 1;
    }
    if (2 * (o->n + 1) > o->hcap) {
        rehash(o);
        return trace_ops_get(o, name, len, binver, file, line);
    }
    o->v = xgrow(o->v, sizeof *o->v, &o->cap, o->n + 1);
    char *s = xstrndup(name, len);
    trace_opcode_decode(s, binver, &o->v[o->n]);
    o->v[o->n].name = s;
    if (o->v[o->n].flags & TOP_UNKNOWN)
        note_unknown(o, s, binver, file, line);
    o->hash[j] = (uint32_t)++o->n;
    return (uint32_t)(o->n - 1);
}
