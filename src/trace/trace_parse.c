/*
 * trace_parse.c -- the .traceg grammar (spec accelsim.md 4.3-4.5): the
 * kernel header, thread-block sections and instruction lines, read with a
 * hand-written tokenizer. One function reads a thread block for both passes:
 * checking (trace_check_kernel: every block, nothing kept but counts and the
 * block index) and loading (trace_read_tb: one block into struct trace_rec
 * records). Every error names the file and line.
 */
#include "trace.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- context and errors --------------------------------------------------------- */

struct pctx {
    struct trace_in *in;
    const struct trace_kfile *kf;
    struct trace_ops *ops;
    struct err *e;
};

static int perr(const struct pctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int perr(const struct pctx *c, const char *fmt, ...)
{
    char why[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    if (!c->in->line) /* nothing read: the file is empty */
        return err_set(c->e, "%s: %s", c->in->path, why);
    return err_set(c->e, "%s:%llu: %s", c->in->path, (unsigned long long)c->in->line, why);
}

/* A short quote of a token for messages. */
static const char *quote(const char *p, char *buf, size_t n)
{
    size_t len = strcspn(p, " \t");
    if (!len)
        return "end of line";
    snprintf(buf, n, "'%.*s%s'", (int)(len > 40 ? 40 : len), p, len > 40 ? "..." : "");
    return buf;
}

/* ---- tokens ------------------------------------------------------------------------ */

static inline void skip_ws(const char **p)
{
    while (**p == ' ' || **p == '\t')
        (*p)++;
}

static inline bool at_end(const char *p) { return !*p || *p == ' ' || *p == '\t'; }

/* Length of the token at p: up to white space or the end. */
static inline size_t token_len(const char *p)
{
    size_t n = 0;
    while (!at_end(p + n))
        n++;
    return n;
}

/* Each byte's value as a hexadecimal digit plus one, or 0. */
static const uint8_t hexdigit1[256] = {
    ['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5,
    ['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
    ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
    ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* A byte's value as a hexadecimal digit, or -1. */
static inline int hexval(char ch) { return hexdigit1[(unsigned char)ch] - 1; }

/* Hexadecimal, optional 0x, at most maxdig digits. */
static bool get_hex(const char **pp, uint64_t *out, unsigned maxdig)
{
    const char *p = *pp;
    skip_ws(&p);
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        p += 2;
    const char *first = p;
    uint64_t v = 0;
    for (int d; (d = hexval(*p)) >= 0; p++)
        v = v << 4 | (uint64_t)d;
    size_t n = (size_t)(p - first);
    if (!n || n > maxdig || !at_end(p))
        return false;
    *out = v;
    *pp = p;
    return true;
}

static bool get_udec(const char **pp, uint64_t *out, uint64_t max)
{
    const char *p = *pp;
    skip_ws(&p);
    uint64_t v = 0;
    unsigned n = 0;
    /* up to 19 digits cannot overflow; from the 20th each is checked */
    for (; (unsigned)(*p - '0') < 10 && n < 19; p++, n++)
        v = v * 10 + (uint64_t)(*p - '0');
    for (; (unsigned)(*p - '0') < 10; p++, n++) {
        if (v > (UINT64_MAX - 9) / 10)
            return false;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    if (!n || v > max || !at_end(p))
        return false;
    *out = v;
    *pp = p;
    return true;
}

static bool get_sdec(const char **pp, int64_t *out)
{
    const char *p = *pp;
    skip_ws(&p);
    bool neg = *p == '-';
    if (neg || *p == '+')
        p++;
    uint64_t v;
    if (at_end(p) || *p == '-' || *p == '+' || !get_udec(&p, &v, (uint64_t)INT64_MAX + neg))
        return false;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    *pp = p;
    return true;
}

/* ---- registers ------------------------------------------------------------------------- */

#define REG_NONE 0xffff /* RZ and the registers that are not tracked */

/* "R12" -> 12; RZ, UR.., P.., UP.. -> REG_NONE; anything else false. */
static bool get_reg(const char **pp, unsigned *out)
{
    const char *p = *pp;
    skip_ws(&p);
    const char *t = p;
    size_t n = token_len(p);
    bool r = t[0] == 'R';
    size_t skip = r ? 1 : t[0] == 'P' ? 1 : (t[0] == 'U' && (t[1] == 'R' || t[1] == 'P')) ? 2 : 0;
    if (!skip || n <= skip)
        return false;
    *pp = p + n;
    if ((n == skip + 1 && t[skip] == 'Z') || (n == skip + 1 && t[skip] == 'T')) {
        *out = REG_NONE; /* RZ, URZ, PT, UPT */
        return true;
    }
    uint64_t v = 0;
    for (size_t i = skip; i < n; i++) {
        if (t[i] < '0' || t[i] > '9' || v > 100000)
            return false;
        v = v * 10 + (uint64_t)(t[i] - '0');
    }
    *out = r && v < 255 ? (unsigned)v : REG_NONE;
    return true;
}

static inline unsigned sb_reg(unsigned r) { return 1 + r % TRACE_SB_REGS; }

/* ---- one instruction line ------------------------------------------------------------- */

struct inst {
    struct trace_rec rec;
    uint64_t addr[32];       /* TRF_STRIDE: base, stride; TRF_LIST: per lane of rec.mask */
};

static int bad(const struct pctx *c, const char *what, const char *p)
{
    char q[64];
    skip_ws(&p);
    return perr(c, "malformed instruction line: expected %s, found %s", what, quote(p, q, sizeof q));
}

/* The addresses after MEMW; `mask` the active lanes. */
static int parse_addrs(const struct pctx *c, const char **pp, uint32_t mask, struct inst *x,
                       uint64_t *form_out)
{
    uint64_t form;
    if (!get_udec(pp, &form, 99))
        return bad(c, "an address format (0, 1 or 2)", *pp);
    *form_out = form;
    unsigned pc = (unsigned)popcount64(mask);
    if (form == 0) {
        for (unsigned i = 0; i < pc; i++)
            if (!get_hex(pp, &x->addr[i], 16)) {
                skip_ws(pp);
                if (!**pp)
                    return perr(c, "wrong count: mask %08x has %u active lanes, the address "
                                "list has %u", mask, pc, i);
                return bad(c, "a hexadecimal address", *pp);
            }
        return 0;
    }
    if (form == 1 || form == 2) {
        if (!get_hex(pp, &x->addr[0], 16))
            return bad(c, "a hexadecimal base address", *pp);
        int64_t d;
        if (form == 1) {
            if (!get_sdec(pp, &d))
                return bad(c, "a decimal stride", *pp);
            if (d > (int64_t)1 << 48 || d < -((int64_t)1 << 48))
                return perr(c, "stride %lld out of range (at most 2^48 bytes)", (long long)d);
            x->addr[1] = (uint64_t)d;
            return 0;
        }
        for (unsigned i = 1; i < pc; i++) {
            if (!get_sdec(pp, &d)) {
                skip_ws(pp);
                if (!**pp)
                    return perr(c, "wrong count: mask %08x has %u active lanes, so %u deltas "
                                "are expected, found %u", mask, pc, pc - 1, i - 1);
                return bad(c, "a decimal address delta", *pp);
            }
            x->addr[i] = x->addr[i - 1] + (uint64_t)d;
        }
        return 0;
    }
    if (form == 3 || form == 4)
        return perr(c, "address format %llu (TMA bulk tensor lists) is not supported",
                    (unsigned long long)form);
    return perr(c, "unknown address format %llu (expected 0, 1 or 2)", (unsigned long long)form);
}

/* Fill the record from what the line said. */
static void make_rec(const struct pctx *c, struct inst *x, uint64_t memw, uint64_t form,
                     unsigned dst)
{
    struct trace_rec *r = &x->rec;
    const struct trace_opinfo *o = &c->ops->v[r->opc];
    bool mem = o->kind == TK_LOAD || o->kind == TK_STORE || o->kind == TK_ATOMIC ||
               o->kind == TK_ASYNC;
    bool writes = o->kind != TK_STORE && o->kind != TK_BARRIER && o->kind != TK_MEMBAR &&
                  o->kind != TK_EXIT && o->kind != TK_WAIT;
    if (o->kind == TK_ASYNC) {
        r->dst = TRACE_SB_ASYNC;
        r->ndst = 1;
    } else if (writes && dst != REG_NONE) {
        r->dst = (uint8_t)sb_reg(dst);
        unsigned n = mem && o->size > 4 ? o->size / 4u : 1;
        r->ndst = (uint8_t)(n < TRACE_SB_REGS + 1u - r->dst ? n : TRACE_SB_REGS + 1u - r->dst);
    }
    if (o->kind == TK_WAIT)
        r->srcs |= 1ull << TRACE_SB_ASYNC;
    r->form = TRF_NONE;
    if (!mem || !memw || !r->mask) {
        if (mem && memw)
            r->mask = 0;
        return;
    }
    if (form == 1) {
        /* lanes from the first active one while they stay active */
        unsigned first = (unsigned)__builtin_ctz(r->mask);
        uint32_t run = r->mask >> first;
        unsigned len = run == 0xffffffffu ? 32 : (unsigned)__builtin_ctz(~run);
        r->mask = (len == 32 ? 0xffffffffu : ((1u << len) - 1)) << first;
        r->form = TRF_STRIDE;
    } else {
        r->form = TRF_LIST;
    }
}

static int parse_inst(const struct pctx *c, char *line, struct inst *x)
{
    const struct trace_header *h = &c->kf->h;
    const char *p = line;
    uint64_t v, mask, memw, form = 0;
    unsigned dst = REG_NONE, reg;
    memset(&x->rec, 0, sizeof x->rec);
    if (h->lineinfo && !get_udec(&p, &v, UINT64_MAX))
        return bad(c, "a decimal source line number", p);
    if (!get_hex(&p, &v, 16))
        return bad(c, "a hexadecimal PC", p);
    x->rec.site = (uint16_t)(v / 8 < 65534 ? v / 8 + 1 : 65535);
    if (!get_hex(&p, &mask, 8))
        return bad(c, "a hexadecimal active mask of at most 8 digits", p);
    x->rec.mask = (uint32_t)mask;
    uint64_t nd, ns;
    if (!get_udec(&p, &nd, 16))
        return bad(c, "the number of destination registers", p);
    for (uint64_t i = 0; i < nd; i++) {
        if (!get_reg(&p, &reg))
            return bad(c, "a destination register", p);
        if (dst == REG_NONE)
            dst = reg;
    }
    skip_ws(&p);
    const char *op = p;
    size_t oplen = token_len(p);
    if (!(op[0] >= 'A' && op[0] <= 'Z'))
        return bad(c, "an opcode", p);
    for (size_t i = 0; i < oplen; i++)
        if (!((op[i] >= 'A' && op[i] <= 'Z') || (op[i] >= 'a' && op[i] <= 'z') ||
              (op[i] >= '0' && op[i] <= '9') || op[i] == '_' || op[i] == '.'))
            return bad(c, "an opcode (letters, digits, '_' and '.')", p);
    p += oplen;
    x->rec.opc = trace_ops_get(c->ops, op, oplen, h->binver, c->in->path, c->in->line);
    if (!get_udec(&p, &ns, 16))
        return bad(c, "the number of source registers", p);
    for (uint64_t i = 0; i < ns; i++) {
        if (!get_reg(&p, &reg))
            return bad(c, "a source register", p);
        if (reg != REG_NONE)
            x->rec.srcs |= 1ull << sb_reg(reg);
    }
    if (h->tracer >= 6 && memmem(op, oplen, "GMMA", 4)) {
        skip_ws(&p); /* GMMA_COMMIT */
        p += strcspn(p, " \t");
    }
    if (!get_udec(&p, &memw, 65535))
        return bad(c, "the memory width", p);
    if (memw && parse_addrs(c, &p, x->rec.mask, x, &form))
        return -1;
    int64_t imm;
    skip_ws(&p);
    if (*p && !get_sdec(&p, &imm))
        return bad(c, memw ? "a decimal immediate (more addresses than active lanes?)"
                           : "a decimal immediate", p);
    skip_ws(&p);
    if (*p && h->tracer < 6) {
        char q[64];
        return perr(c, "unexpected %s after the immediate (wrong count of addresses or "
                    "registers?)", quote(p, q, sizeof q));
    }
    make_rec(c, x, memw, form, dst);
    return 0;
}

/* ---- thread blocks --------------------------------------------------------------------- */

/* Where a block's records go: nowhere (checking) or a struct trace_tb. */
struct sink {
    struct trace_tb *tb;     /* NULL: count only */
    uint64_t insts, warps, unknown;
    size_t bytes;            /* compact size */
    uint8_t seen[8];         /* warps seen, bit per warp (64 at most) */
};

static void put_rec(struct sink *s, const struct inst *x)
{
    size_t n = trace_rec_size(&x->rec);
    s->bytes += n;
    if (!s->tb)
        return;
    struct trace_tb *tb = s->tb;
    if (tb->len + n > tb->cap) {
        tb->cap = max_u64(2 * tb->cap, tb->len + n);
        tb->data = xrealloc(tb->data, tb->cap);
    }
    uint8_t *d = tb->data + tb->len;
    memcpy(d, &x->rec, sizeof x->rec);
    size_t words = (n - sizeof x->rec) / 8;
    memcpy(d + sizeof x->rec, x->addr, words * 8);
    tb->len += n;
}

/* Inline comparisons: these run on every line. */
static inline bool starts(const char *line, const char *word)
{
    for (; *word; line++, word++)
        if (*line != *word)
            return false;
    return true;
}

static inline bool is_blank(const char *line)
{
    while (*line == ' ' || *line == '\t')
        line++;
    return !*line;
}

/* Next non-blank line and its offset; 0 at the end of the file. */
static int next_line_at(const struct pctx *c, char **line, uint64_t *off)
{
    size_t len;
    int rc;
    do
        *off = trace_in_tell(c->in);
    while ((rc = trace_in_line(c->in, line, &len, c->e)) == 1 && is_blank(*line));
    return rc;
}

static int next_line(const struct pctx *c, char **line)
{
    uint64_t off;
    return next_line_at(c, line, &off);
}

/* Three decimals of at most 10 digits, "a,b,c" with white space around each,
 * from *pp; the last is followed by `last` (0: the end of the text). */
static bool get_dec3(const char **pp, uint64_t v[3], char last)
{
    const char *p = *pp;
    for (int i = 0; i < 3; i++) {
        skip_ws(&p);
        const char *q = p;
        while (*q >= '0' && *q <= '9')
            q++;
        if (q == p || q - p > 10)
            return false;
        v[i] = strtoull(p, NULL, 10);
        p = q;
        skip_ws(&p);
        if (i < 2 ? *p++ != ',' : *p != last)
            return false;
    }
    *pp = last ? p + 1 : p;
    return true;
}

/* "key = a,b,c" (three decimals) after `key`. */
static bool get_triple(const char *p, const char *key, uint64_t v[3])
{
    p += strlen(key);
    skip_ws(&p);
    return *p++ == '=' && get_dec3(&p, v, 0);
}

/* "key = N" after `key`. */
static bool get_keyed(const char *p, const char *key, uint64_t *v, uint64_t max)
{
    p += strlen(key);
    skip_ws(&p);
    if (*p++ != '=')
        return false;
    return get_udec(&p, v, max) && (skip_ws(&p), !*p);
}

static int read_warp(const struct pctx *c, struct sink *s, uint64_t w, const uint64_t tbv[3])
{
    char *line;
    int rc = next_line(c, &line);
    uint64_t n;
    if (rc < 0)
        return -1;
    if (!rc)
        return perr(c, "truncated file: warp %llu of thread block %llu,%llu,%llu has no "
                    "'insts = ' line", (unsigned long long)w, (unsigned long long)tbv[0],
                    (unsigned long long)tbv[1], (unsigned long long)tbv[2]);
    if (!starts(line, "insts") || !get_keyed(line, "insts", &n, UINT32_MAX))
        return perr(c, "expected 'insts = N' after 'warp = %llu'", (unsigned long long)w);
    if (s->tb) {
        s->tb->warp[w].off = (uint32_t)s->tb->len;
        s->tb->warp[w].n = (uint32_t)n;
    }
    struct inst x;
    for (uint64_t i = 0; i < n; i++) {
        rc = next_line(c, &line);
        if (rc < 0)
            return -1;
        if (!rc || line[0] == '#' || starts(line, "warp"))
            return perr(c, "%swarp %llu: insts = %llu but %llu instruction lines follow",
                        rc ? "wrong count: " : "truncated file: ", (unsigned long long)w,
                        (unsigned long long)n, (unsigned long long)i);
        if (parse_inst(c, line, &x))
            return -1;
        s->unknown += (c->ops->v[x.rec.opc].flags & TOP_UNKNOWN) != 0;
        put_rec(s, &x);
    }
    s->insts += n;
    s->warps++;
    return 0;
}

/* A block's body, after its #BEGIN_TB line; *tb_out its linear id. */
static int read_tb(const struct pctx *c, struct sink *s, uint64_t *tb_out)
{
    const struct trace_kfile *kf = c->kf;
    char *line;
    uint64_t tbv[3], w;
    int rc = next_line(c, &line);
    if (rc <= 0)
        return rc ? -1 : perr(c, "truncated file: #BEGIN_TB without a thread block");
    if (!starts(line, "thread block") || !get_triple(line, "thread block", tbv))
        return perr(c, "expected 'thread block = x,y,z' after #BEGIN_TB");
    const struct trace_dim *g = &kf->h.grid;
    if (tbv[0] >= g->x || tbv[1] >= g->y || tbv[2] >= g->z)
        return perr(c, "thread block %llu,%llu,%llu lies outside the grid (%u,%u,%u)",
                    (unsigned long long)tbv[0], (unsigned long long)tbv[1],
                    (unsigned long long)tbv[2], g->x, g->y, g->z);
    *tb_out = tbv[0] + tbv[1] * g->x + tbv[2] * (uint64_t)g->x * g->y;
    memset(s->seen, 0, sizeof s->seen);
    for (;;) {
        rc = next_line(c, &line);
        if (rc < 0)
            return -1;
        if (!rc)
            return perr(c, "truncated file: thread block %llu,%llu,%llu has no #END_TB",
                        (unsigned long long)tbv[0], (unsigned long long)tbv[1],
                        (unsigned long long)tbv[2]);
        if (starts(line, "#END_TB"))
            return 0;
        if (starts(line, "cluster id") || starts(line, "cluster cta") ||
            starts(line, "cluster rank"))
            continue; /* version 6 (Hopper clusters): not modelled */
        if (starts(line, "#BEGIN_TB"))
            return perr(c, "#BEGIN_TB inside thread block %llu,%llu,%llu (no #END_TB before)",
                        (unsigned long long)tbv[0], (unsigned long long)tbv[1],
                        (unsigned long long)tbv[2]);
        if (!starts(line, "warp")) {
            if (hexval(line[0]) >= 0)
                return perr(c, "wrong count: an instruction line after the last warp's "
                            "'insts = N' lines");
            char q[64];
            return perr(c, "expected 'warp = N' or #END_TB, found %s", quote(line, q, sizeof q));
        }
        if (!get_keyed(line, "warp", &w, UINT32_MAX))
            return perr(c, "malformed 'warp = N' line");
        if (w >= kf->warps_per_tb)
            return perr(c, "warp %llu: a block of %u threads has %u warps",
                        (unsigned long long)w, kf->h.block.x * kf->h.block.y * kf->h.block.z,
                        kf->warps_per_tb);
        if (s->seen[w / 8] >> (w % 8) & 1)
            return perr(c, "warp %llu appears twice in thread block %llu,%llu,%llu",
                        (unsigned long long)w, (unsigned long long)tbv[0],
                        (unsigned long long)tbv[1], (unsigned long long)tbv[2]);
        s->seen[w / 8] |= (uint8_t)(1u << (w % 8));
        if (read_warp(c, s, w, tbv))
            return -1;
    }
}

/* ---- the header ------------------------------------------------------------------------ */

enum { HK_NAME, HK_ID, HK_GRID, HK_BLOCK, HK_SHMEM, HK_NREGS, HK_BINVER, HK_STREAM,
       HK_SHMEM_BASE, HK_LOCAL_BASE, HK_NVBIT, HK_TRACER, HK_LINEINFO, HK_N };

static const char *const hkeys[HK_N] = {
    "kernel name", "kernel id", "grid dim", "block dim", "shmem", "nregs", "binary version",
    "cuda stream id", "shmem base_addr", "local mem base_addr", "nvbit version",
    "accelsim tracer version", "enable lineinfo",
};

static bool get_dim(const char *p, struct trace_dim *d)
{
    uint64_t v[3];
    skip_ws(&p);
    if (*p++ != '(' || !get_dec3(&p, v, ')'))
        return false;
    skip_ws(&p);
    if (*p || !v[0] || !v[1] || !v[2] || v[0] > UINT32_MAX || v[1] > UINT32_MAX ||
        v[2] > UINT32_MAX)
        return false;
    *d = (struct trace_dim){(uint32_t)v[0], (uint32_t)v[1], (uint32_t)v[2]};
    return true;
}

static bool get_num_value(const char *v, uint64_t *out, uint64_t max)
{
    const char *p = v;
    if (!get_udec(&p, out, max))
        return false;
    skip_ws(&p);
    return !*p;
}

static bool get_hex_value(const char *v, uint64_t *out)
{
    const char *p = v;
    if (!get_hex(&p, out, 16))
        return false;
    skip_ws(&p);
    return !*p;
}

static int header_value(const struct pctx *c, struct trace_header *h, int k, const char *v)
{
    uint64_t x;
    bool ok = true;
    switch (k) {
    case HK_NAME:
        free(h->name);
        h->name = xstrdup(v);
        break;
    case HK_ID: ok = get_num_value(v, &x, UINT32_MAX); h->id = (uint32_t)x; break;
    case HK_GRID: ok = get_dim(v, &h->grid); break;
    case HK_BLOCK: ok = get_dim(v, &h->block); break;
    case HK_SHMEM: ok = get_num_value(v, &x, UINT32_MAX); h->shmem = (uint32_t)x; break;
    case HK_NREGS: ok = get_num_value(v, &x, UINT32_MAX); h->nregs = (uint32_t)x; break;
    case HK_BINVER: ok = get_num_value(v, &x, 9999); h->binver = (uint32_t)x; break;
    case HK_STREAM: ok = get_num_value(v, &h->stream, UINT64_MAX); break;
    case HK_SHMEM_BASE: ok = get_hex_value(v, &h->shmem_base); break;
    case HK_LOCAL_BASE: ok = get_hex_value(v, &h->local_base); break;
    case HK_NVBIT: snprintf(h->nvbit, sizeof h->nvbit, "%s", v); break;
    case HK_TRACER: ok = get_num_value(v, &x, 9999); h->tracer = (uint32_t)x; break;
    case HK_LINEINFO: ok = get_num_value(v, &x, 1); h->lineinfo = x; break;
    }
    if (!ok) {
        char q[64];
        return perr(c, "bad value %s for header key '%s'", quote(v, q, sizeof q), hkeys[k]);
    }
    return 0;
}

/* "-key = value" */
static int header_line(const struct pctx *c, struct trace_header *h, char *line, unsigned *seen)
{
    char *eq = strchr(line, '=');
    if (!eq)
        return perr(c, "malformed header line (expected '-key = value')");
    char *end = eq;
    while (end > line + 1 && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    size_t klen = (size_t)(end - (line + 1));
    const char *v = eq + 1;
    if (*v == ' ')
        v++;
    for (int k = 0; k < HK_N; k++)
        if (strlen(hkeys[k]) == klen && !memcmp(hkeys[k], line + 1, klen)) {
            if (*seen >> k & 1)
                return perr(c, "header key '%s' given twice", hkeys[k]);
            *seen |= 1u << k;
            return header_value(c, h, k, v);
        }
    return perr(c, "unknown header key '%.*s'", (int)(klen > 60 ? 60 : klen), line + 1);
}

static int check_header(const struct pctx *c, struct trace_kfile *kf, unsigned seen)
{
    const struct trace_header *h = &kf->h;
    static const int need[] = {HK_GRID, HK_BLOCK, HK_BINVER, HK_TRACER};
    for (size_t i = 0; i < sizeof need / sizeof *need; i++)
        if (!(seen >> need[i] & 1))
            return perr(c, "the header has no '-%s' line", hkeys[need[i]]);
    if (h->tracer < 3 || h->tracer > 6)
        return perr(c, "accelsim tracer version %u: chipsim reads versions 3 to 6", h->tracer);
    uint64_t threads = (uint64_t)h->block.x * h->block.y * h->block.z;
    if (threads > 2048)
        return perr(c, "block dim (%u,%u,%u): %llu threads per block (at most 2048)",
                    h->block.x, h->block.y, h->block.z, (unsigned long long)threads);
    kf->ntb = (uint64_t)h->grid.x * h->grid.y * h->grid.z;
    if (kf->ntb > UINT32_MAX)
        return perr(c, "grid dim (%u,%u,%u): more than 2^32 - 1 thread blocks", h->grid.x,
                    h->grid.y, h->grid.z);
    kf->warps_per_tb = (uint32_t)div_ceil(threads, 32);
    return 0;
}

/* The header up to its first '#' line, which is returned in *line (at *off). */
static int read_header(const struct pctx *c, struct trace_kfile *kf, char **line, uint64_t *off)
{
    unsigned seen = 0;
    for (;;) {
        int rc = next_line_at(c, line, off);
        if (rc < 0)
            return -1;
        if (!rc)
            return perr(c, c->in->line ? "truncated file: the header ends without a '#' line"
                                       : "empty file: no header");
        if (**line == '#')
            break;
        if (**line != '-') {
            char q[64];
            return perr(c, "expected a header line '-key = value', found %s",
                        quote(*line, q, sizeof q));
        }
        if (header_line(c, &kf->h, *line, &seen))
            return -1;
    }
    if (!kf->h.name)
        kf->h.name = xstrdup("kernel");
    return check_header(c, kf, seen);
}

/* ---- the checking pass ------------------------------------------------------------------- */

static int idx_cmp(const void *a, const void *b)
{
    const struct trace_tbidx *x = a, *y = b;
    return x->tb < y->tb ? -1 : x->tb > y->tb;
}

static int index_finish(const struct pctx *c, struct trace_kfile *kf, bool sorted)
{
    if (!sorted)
        qsort(kf->idx, kf->nidx, sizeof *kf->idx, idx_cmp);
    for (size_t i = 1; i < kf->nidx; i++)
        if (kf->idx[i].tb == kf->idx[i - 1].tb) {
            uint64_t tb = kf->idx[i].tb, gx = kf->h.grid.x, gy = kf->h.grid.y;
            return err_set(c->e, "%s:%llu: thread block %llu,%llu,%llu appears twice (also at "
                           "line %llu)", c->in->path, (unsigned long long)kf->idx[i].line,
                           (unsigned long long)(tb % gx), (unsigned long long)(tb / gx % gy),
                           (unsigned long long)(tb / gx / gy),
                           (unsigned long long)kf->idx[i - 1].line);
        }
    return 0;
}

/* Make tb an empty block of kf: a warp table with no records. */
static void tb_clear(struct trace_tb *tb, const struct trace_kfile *kf)
{
    tb->nwarps = kf->warps_per_tb;
    tb->warp = xgrow(tb->warp, sizeof *tb->warp, &tb->warps_cap, tb->nwarps);
    memset(tb->warp, 0, tb->nwarps * sizeof *tb->warp);
    tb->len = 0;
}

/* The sink's block, just read, into kf's kept blocks if it fits; false once
 * it does not (no later block is kept either). */
static bool keep_block(struct trace_kfile *kf, const struct trace_tb *tb, struct trace_tbidx *ix)
{
    size_t table = kf->warps_per_tb * sizeof *tb->warp, need = table + tb->len;
    if (kf->kept_len + need > kf->keep_b)
        return false;
    if (kf->kept_len + need > kf->kept_cap) {
        size_t cap = max_u64(2 * kf->kept_cap, kf->kept_len + need);
        kf->kept_cap = cap < kf->keep_b ? cap : kf->keep_b;
        kf->kept = xrealloc(kf->kept, kf->kept_cap);
    }
    memcpy(kf->kept + kf->kept_len, tb->warp, table);
    memcpy(kf->kept + kf->kept_len + table, tb->data, tb->len);
    ix->kept = kf->kept_len + 1;
    kf->kept_len += need; /* never past keep_b: the caller's budget is exact */
    return true;
}

static int check_body(const struct pctx *c, struct trace_kfile *kf, char *line, uint64_t off)
{
    struct trace_tb tb = {0};
    struct sink s = {.tb = kf->keep_b ? &tb : NULL};
    bool sorted = true;
    int rc = 0;
    /* the header's last line may be #BEGIN_TB already; else the format comment */
    bool have = starts(line, "#BEGIN_TB");
    for (;;) {
        if (!have) {
            rc = next_line_at(c, &line, &off);
            if (rc <= 0)
                break;
        }
        have = false;
        if (!starts(line, "#BEGIN_TB")) {
            if (starts(line, "#END_TB")) {
                rc = perr(c, "#END_TB without #BEGIN_TB");
                break;
            }
            if (line[0] == '#')
                continue; /* another comment */
            char q[64];
            rc = perr(c, "expected #BEGIN_TB, found %s", quote(line, q, sizeof q));
            break;
        }
        uint64_t at = c->in->line, tb_id;
        size_t bytes0 = s.bytes;
        if (s.tb)
            tb_clear(&tb, kf);
        if ((rc = read_tb(c, &s, &tb_id)))
            break;
        kf->max_tb_bytes = max_u64(kf->max_tb_bytes, s.bytes - bytes0);
        if (s.bytes - bytes0 > UINT32_MAX) {
            rc = perr(c, "thread block too large (over 4 GiB in memory)");
            break;
        }
        sorted &= !kf->nidx || kf->idx[kf->nidx - 1].tb < tb_id;
        kf->idx = xgrow(kf->idx, sizeof *kf->idx, &kf->idx_cap, kf->nidx + 1);
        struct trace_tbidx *ix = &kf->idx[kf->nidx++];
        *ix = (struct trace_tbidx){off, at, (uint32_t)tb_id, (uint32_t)(s.bytes - bytes0), 0};
        if (s.tb && !keep_block(kf, &tb, ix))
            s.tb = NULL;
    }
    trace_tb_free(&tb);
    if (rc < 0)
        return -1;
    kf->warps = s.warps;
    kf->insts = s.insts;
    kf->unknown_insts = s.unknown;
    kf->tbs = kf->nidx;
    return index_finish(c, kf, sorted);
}

int trace_check_kernel(struct trace_kfile *kf, struct trace_ops *ops, struct err *e)
{
    struct trace_in in;
    if (trace_in_open(&in, kf->path, e))
        return -1;
    struct pctx c = {.in = &in, .kf = kf, .ops = ops, .e = e};
    char *line;
    uint64_t off;
    int rc = read_header(&c, kf, &line, &off);
    if (!rc)
        rc = check_body(&c, kf, line, off);
    kf->lines = in.line;
    kf->bytes = in.bytes;
    trace_in_close(&in);
    return rc;
}

void trace_kfile_free(struct trace_kfile *kf)
{
    free(kf->path);
    free(kf->h.name);
    free(kf->idx);
    free(kf->kept);
    *kf = (struct trace_kfile){0};
}

/* ---- loading one thread block ---------------------------------------------------------------- */

void trace_tb_free(struct trace_tb *tb)
{
    free(tb->warp);
    free(tb->data);
    *tb = (struct trace_tb){0};
}

const struct trace_tbidx *trace_kfile_find(const struct trace_kfile *kf, uint64_t tb)
{
    size_t lo = 0, hi = kf->nidx;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (kf->idx[mid].tb < tb)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < kf->nidx && kf->idx[lo].tb == tb ? &kf->idx[lo] : NULL;
}

int trace_read_tb(struct trace_in *in, const struct trace_kfile *kf, struct trace_ops *ops,
                  uint64_t tb, struct trace_tb *out, struct err *e)
{
    tb_clear(out, kf);
    const struct trace_tbidx *ix = trace_kfile_find(kf, tb);
    if (!ix)
        return 0;
    if (out->cap < ix->bytes) { /* the size the check found: no growing while reading */
        free(out->data);
        out->data = xmalloc(ix->bytes);
        out->cap = ix->bytes;
    }
    if (ix->kept) {
        const uint8_t *k = kf->kept + ix->kept - 1;
        size_t table = out->nwarps * sizeof *out->warp;
        memcpy(out->warp, k, table);
        memcpy(out->data, k + table, ix->bytes);
        out->len = ix->bytes;
        return 0;
    }
    struct pctx c = {.in = in, .kf = kf, .ops = ops, .e = e};
    if (trace_in_seek(in, ix->off, ix->line, e))
        return -1;
    char *line;
    size_t len;
    int rc = trace_in_line(in, &line, &len, e);
    if (rc <= 0 || !starts(line, "#BEGIN_TB"))
        return rc < 0 ? -1 : perr(&c, "expected #BEGIN_TB (the file changed after it was read)");
    struct sink s = {.tb = out};
    uint64_t id;
    if (read_tb(&c, &s, &id))
        return -1;
    if (id != tb)
        return perr(&c, "expected thread block %llu (the file changed after it was read)",
                    (unsigned long long)tb);
    return 0;
}

/* ---- kernelslist.g ------------------------------------------------------------------------------ */

static bool ends_with(const char *s, size_t n, const char *suf)
{
    size_t m = strlen(suf);
    return n >= m && !memcmp(s + n - m, suf, m);
}

static int list_line(struct trace_list *l, char *line, size_t len, uint64_t no, const char *dir,
                     struct err *e)
{
    while (len && (line[len - 1] == ' ' || line[len - 1] == '\t'))
        line[--len] = 0;
    if (!len)
        return 0;
    struct trace_cmd cmd = {.line = no};
    if (starts(line, "MemcpyHtoD,")) {
        const char *p = line + strlen("MemcpyHtoD,");
        char *comma = strchr(p, ',');
        if (!comma)
            return err_set(e, "%s:%llu: expected MemcpyHtoD,ADDRESS,BYTES", l->path,
                           (unsigned long long)no);
        *comma = 0;
        const char *q = comma + 1;
        if (!get_hex(&p, &cmd.addr, 16) || (skip_ws(&p), *p))
            return err_set(e, "%s:%llu: bad hex address in MemcpyHtoD", l->path,
                           (unsigned long long)no);
        if (!get_udec(&q, &cmd.bytes, UINT64_MAX - cmd.addr) || (skip_ws(&q), *q))
            return err_set(e, "%s:%llu: bad byte count in MemcpyHtoD", l->path,
                           (unsigned long long)no);
        cmd.kind = TCMD_MEMCPY;
    } else if (starts(line, "kernel")) {
        if (!ends_with(line, len, ".traceg") && !ends_with(line, len, ".traceg.xz"))
            return err_set(e, "%s:%llu: kernel file '%s' is neither .traceg nor .traceg.xz",
                           l->path, (unsigned long long)no, line);
        cmd.kind = TCMD_KERNEL;
        cmd.path = xasprintf("%s%s", dir, line);
    } else {
        return 0; /* other commands: ignored, as the reference reader does */
    }
    l->cmd = xgrow(l->cmd, sizeof *l->cmd, &l->cap, l->n + 1);
    l->cmd[l->n++] = cmd;
    return 0;
}

int trace_list_read(struct trace_list *l, const char *path, struct err *e)
{
    *l = (struct trace_list){.path = xstrdup(path)};
    struct trace_in in;
    if (trace_in_open(&in, path, e))
        return -1;
    const char *slash = strrchr(path, '/');
    char *dir = slash ? xasprintf("%.*s", (int)(slash - path + 1), path) : xstrdup("");
    char *line;
    size_t len;
    int rc;
    while ((rc = trace_in_line(&in, &line, &len, e)) == 1)
        if ((rc = list_line(l, line, len, in.line, dir, e)))
            break;
    free(dir);
    trace_in_close(&in);
    return rc < 0 ? -1 : 0;
}

void trace_list_free(struct trace_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->cmd[i].path);
    free(l->cmd);
    free(l->path);
    *l = (struct trace_list){0};
}
