/*
 * kd.c -- see kd.h. The parser runs once per workload, the binder once per
 * distinct launch; the interpreter (kd_next) allocates nothing.
 *
 * Warp state: pc is the statement; r[0..3] count the iterations of the
 * loops over m0..m3 (a lane's variable is its own first value plus that
 * count), in their low 32 bits, and the loop's trip count in the high 32
 * bits when its bounds are the same in every lane (its later iterations are
 * not tested again); r[4..7] the active lanes inside the enclosing if or for
 * at depths 1..4.
 */
#include "kd.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An expression bound to a launch. */
struct kd_bix {
    struct kd_affine e, inner, inner2;
    const struct kd_array *arr; /* what `ind` reads, or NULL */
    int8_t fn;                  /* KD_IX_MIN, KD_IX_MAX: ind = min or max of inner, inner2;
                                   KD_IX_DIV: floor(inner / inner2), inner2 a constant */
};

/* floor(a / b) for b > 0. */
static int64_t floor_div(int64_t a, int64_t b)
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/* `ind` of a min, max or quotient from its arguments' values p and q. */
static inline int64_t fn_of(int8_t fn, int64_t p, int64_t q)
{
    if (fn == KD_IX_DIV)
        return floor_div(p, q);
    return (fn == KD_IX_MIN) == (p < q) ? p : q;
}

/* Whether x's value depends on `ind` from an array or a min/max. */
static inline bool reads(const struct kd_bix *x)
{
    return x->arr || x->fn;
}

/* A composed form (compose_lf) that may read the array of one enclosing
 * loop's first value (a loop `for m = @A[I] ..`): a + kg * garr[gi], each of
 * a and gi affine in the block and thread indices and the iterations of the
 * loops (kd_bstmt.fx). */
struct kd_lf1 {
    struct kd_affine a, gi;
    int64_t kg;                  /* 0: no array */
    const struct kd_array *garr;
};

/* An index or a side of a condition at each lane of a 1D block: v, plus
 * ki * arr[in] when it reads an array itself. */
struct kd_lform {
    struct kd_lf1 v, in;
    const struct kd_array *arr;
    int64_t ki;
    /* its shape (lf_prepare), fixed at the binding: the array read at a
     * fixed step per lane (g at gi, times kg; NULL for none) and whether
     * the form is that alone (LF_ONE), that inside arr[..] (LF_TWO) or any
     * other (LF_ANY) */
    const struct kd_array *g;
    const struct kd_affine *gi;
    int64_t kg;
    uint8_t shape;
};

struct kd_bstmt {
    struct kd_bix a, b, c;
    /* memory: the address moves by a fixed step per lane; if and for: a - b
     * does (by dk per lane; b - c by dk2), so its lanes below 0 are a run */
    bool linear;
    bool flat;    /* and the same in every lane of the warp (no thread index, any block) */
    bool flat_inner[3]; /* a's, b's, c's array index moves by a fixed step per lane (1D) */
    bool gather;  /* in a 1D block, a (memory: the index; if, for: the left side) an
                     array read whose index moves by a fixed step per lane, plus a part
                     that does, and b moving so too: one evaluation per warp, then an
                     array element per lane */
    /* memory, 2D or 3D block: the index less its thread terms is the same in
     * every lane of the warp; k: the coefficients of tx, ty, tz */
    bool split;
    int64_t k[3];
    int64_t dk, dk2;
    int64_t step; /* for: the step at this launch (1 without one) */
    uint8_t size; /* memory: bytes per lane at this launch */
    uint8_t unit; /* memory: bytes per element of the index (size, or SIZE/UNIT's) */
    uint32_t n;   /* alu N, spin N: N at this launch */
    /* The composed forms (compose()): fx, a memory access's index or a
     * loop's first value (fx_ok: known); fd, a condition's a - b, with a
     * loop's own iterations times its step; fd2, b - c. fast: the forms the
     * interpreter needs are known (the index; fd, and fd2 of a < b < c). */
    bool fx_ok, fast;
    struct kd_affine fx, fd, fd2;
    /* A loop whose first value reads an array, c * A[I] + rest: rest and I
     * composed (gx_ok: known). */
    bool gx_ok;
    int64_t gc;
    struct kd_affine grest, gin;
    /* A statement the forms above do not serve, in a 1D block: a's, b's
     * and c's lane forms (NULL: none) */
    struct kd_lform *lf;
    /* guard: an alu clause `+ M [A < B]` whose test is the next loop's own
     * at its entry (a compiler's loop guard) or the next if's (a predicate
     * computed, then branched on), its lanes kept in the loop's or the if's
     * mask register; guarded: that loop or if, which takes them */
    bool guard, guarded;
};

/* A statement as the interpreter's common cases need it (bind_hot): an op
 * whose operands are fixed, a memory access whose address moves by a fixed
 * step per lane (KD_H_MEM) or is given by its lane form (KD_H_LANES), an if
 * whose lanes are a run (KD_H_IF: a - b moving by 0 or 1 per lane; KD_H_IF2:
 * any other step, or a < b < c), the end of an if or loop. The others
 * (KD_H_SLOW) go through the general interpreter. */
enum {
    KD_H_SLOW, KD_H_OP, KD_H_MEM, KD_H_IF, KD_H_IF2, KD_H_END_FOR, KD_H_END_IF, KD_H_LANES,
    KD_H_EXIT
};

/* An affine form of the warp's first lane, c + k . (bx, by, bz, its thread
 * index in a 1D block, the iterations of the loops over m0..m3). */
struct kd_lin {
    int64_t c, k[8];
    bool one;  /* no terms but bx, the thread index and the loop over m0 */
};

struct kd_hot {
    uint8_t kind;
    uint8_t depth;
    bool two;            /* KD_H_IF2: a < b < c */
    uint8_t var;         /* KD_H_END_FOR: the loop's variable, 0 for m0 .. 3 for m3;
                            KD_H_MEM: the same of the loop it ends (next is the loop's
                            end), else KD_H_NO_LOOP */
    uint16_t out;        /* an if: the statement after its end; KD_H_END_FOR and a
                            KD_H_MEM that ends a loop: the loop's first statement */
    uint16_t next;       /* the statement after this one (an `end` of an if, which does
                            nothing, passed over) */
    int64_t dk, dk2;     /* an if: a - b (b - c) per lane */
    struct kd_lin x, x2; /* KD_H_MEM: the address; an if: a - b, b - c */
    struct kernel_op op; /* KD_H_OP, KD_H_MEM, KD_H_LANES: the op, its address aside */
    addr_t base;         /* KD_H_LANES: the buffer's base */
};
/* kd_next indexes the records by a shift. */
_Static_assert(sizeof(struct kd_hot) == 256, "struct kd_hot: 256 bytes");

struct kd_bound {
    const struct kd_prog *p;
    struct kd_hot *hot; /* [nstmt + 1], the last KD_H_EXIT */
    struct kd_bix *ox;  /* [p->nox]: the operand expressions */
    struct kernel_dim grid, block;
    int64_t params[KD_MAX_PARAMS];
    const struct kernel_buf *bufs[KD_MAX_BUFS];
    struct kd_array arrays[KD_MAX_ARRAYS];
    const struct kd_array *wgi; /* wg_items' array, or NULL */
    struct kd_bstmt *b; /* [nstmt] */
    struct kd_memo *memo; /* [nbufs]: ranges already derived */
    struct sched_locality loc[KD_MAX_BUFS]; /* LADM's table at this launch (buf_locality) */
};

/* The ranges of one argument that the work-groups of a binding have been
 * asked for (at KERNEL_MAX_RANGES): the command processor, the same_pattern
 * test of kdw.c and the annotation checker ask for the same ones. Kept while
 * the binding serves identical launches, unless the description reads
 * arrays, whose contents may change from one launch to the next (and does
 * not say they are fixed, arrays_fixed). */
struct kd_memo {
    uint32_t *at;        /* [nwg]: 1 + where the work-group's ranges start in r; 0: not yet */
    uint8_t *n;          /* [nwg]: how many (0: the whole structure) */
    struct addr_range *r;
    size_t nr, cap;
};

static void memo_clear(struct kd_bound *b)
{
    for (unsigned a = 0; b->memo && a < b->p->nbufs; a++) {
        struct kd_memo *m = &b->memo[a];
        free(m->at);
        free(m->n);
        free(m->r);
        *m = (struct kd_memo){0};
    }
}

static void bound_free(struct kd_bound *b)
{
    for (unsigned i = 0; b->b && i < b->p->nstmt; i++)
        free(b->b[i].lf);
    memo_clear(b);
    free(b->memo);
    free(b->hot);
    free(b->b);
    free(b->ox);
    free(b);
}

/* ---- parsing ---------------------------------------------------------------------- */

/* An alu statement's further `+ M [A < B]` clause, parsed into a statement
 * of its own (KD_S_MORE) once the line is done. */
struct clause {
    long m;
    char *a, *lt, *mx; /* mx: M as "(EXPR)", or NULL */
};

#define KD_MAX_CLAUSES 8

struct line {
    const struct kd_desc *d;
    struct kd_prog *p;
    unsigned nparams;
    unsigned no;     /* line number in the body, from 1 */
    char text[512];  /* the line, comment removed */
    char *at;        /* parse position */
    char *ands;      /* `if`: the conditions after the first `and`, or NULL */
    struct err *e;
    struct clause more[KD_MAX_CLAUSES - 1];
    unsigned nmore;
};

static int line_err(struct line *ln, const char *fmt, const char *arg)
{
    char msg[ERR_MSG_MAX];
    snprintf(msg, sizeof msg, fmt, arg);
    return err_set(ln->e, "kernel %s, line %u: %s", ln->d->name, ln->no, msg);
}

/* The next word; spaces inside parentheses do not end it (r(2*m1 + 1)). */
static char *word(struct line *ln)
{
    while (isspace((unsigned char)*ln->at))
        ln->at++;
    if (!*ln->at)
        return NULL;
    char *w = ln->at;
    for (int depth = 0; *ln->at && (depth || !isspace((unsigned char)*ln->at)); ln->at++)
        depth += *ln->at == '(' ? 1 : *ln->at == ')' ? -1 : 0;
    if (*ln->at)
        *ln->at++ = '\0';
    return w;
}

static int poly(struct line *ln, const char *text, struct kd_poly *out)
{
    struct err e = {0};
    if (kd_parse(text, ln->d->params, ln->nparams, out, &e))
        return line_err(ln, "%s", e.msg);
    return 0;
}

/* The index of name[0..len) in names (NULL-terminated, may be NULL), or -1. */
static int find_name(const char *const *names, const char *name, size_t len)
{
    for (unsigned i = 0; names && names[i]; i++)
        if (strlen(names[i]) == len && !strncmp(names[i], name, len))
            return (int)i;
    return -1;
}

static int name_index(struct line *ln, const char *const *names, const char *what,
                      const char *name, size_t len)
{
    int i = find_name(names, name, len);
    if (i >= 0)
        return i;
    char msg[96];
    snprintf(msg, sizeof msg, "unknown %s '%.*s'", what, (int)(len < 63 ? len : 63), name);
    return line_err(ln, "%s", msg);
}

/* The bracket that closes the '[' or '(' at open (NULL: none, or open is
 * NULL). */
static char *closing(const char *open)
{
    char c0 = open ? *open : 0, c1 = c0 == '(' ? ')' : ']';
    for (int depth = 0; open && *open; open++)
        if ((depth += *open == c0 ? 1 : *open == c1 ? -1 : 0) == 0)
            return (char *)open;
    return NULL;
}

/* An expression with one min(A, B) or max(A, B) as `ind`. */
static int minmax(struct line *ln, const char *text, const char *at, struct kd_ix *out)
{
    const char *open = at + 3, *close = closing(open), *comma = open + 1;
    for (int depth = 0; close && comma < close && (depth || *comma != ','); comma++)
        depth += *comma == '(' ? 1 : *comma == ')' ? -1 : 0;
    if (!close || comma >= close)
        return line_err(ln, "'%s': min(A, B) or max(A, B) expected", at);
    out->arr = at[1] == 'i' ? KD_IX_MIN : KD_IX_MAX;
    char a[512], b[512], outer[512];
    snprintf(a, sizeof a, "%.*s", (int)(comma - open - 1), open + 1);
    snprintf(b, sizeof b, "%.*s", (int)(close - comma - 1), comma + 1);
    snprintf(outer, sizeof outer, "%.*sind%s", (int)(at - text), text, close + 1);
    if (strpbrk(a, "@") || strpbrk(b, "@") || strstr(outer, "min(") || strstr(outer, "max(") ||
        strstr(a, "min(") || strstr(a, "max(") || strstr(b, "min(") || strstr(b, "max("))
        return line_err(ln, "'%s': one array read, min or max per expression", text);
    return poly(ln, outer, &out->e) || poly(ln, a, &out->inner) ? -1 : poly(ln, b, &out->inner2);
}

/* An expression with a quotient, `A / B` or `A % B`, as `ind`. */
static int quot(struct line *ln, const char *text, struct kd_ix *out)
{
    struct err e = {0};
    struct kd_quot q;
    if (kd_parse_quot(text, ln->d->params, ln->nparams, &out->e, &q, &e))
        return line_err(ln, "%s", e.msg);
    out->arr = KD_IX_DIV;
    out->inner = q.num;
    out->inner2 = q.den;
    return 0;
}

/* An expression that may read one array element, @ARRAY[INDEX], or hold one
 * min(A, B) or max(A, B), or one quotient, as `ind`. */
static int ix(struct line *ln, const char *text, struct kd_ix *out)
{
    out->arr = -1;
    const char *at = strchr(text, '@'), *mm = strstr(text, "min("), *dv = strpbrk(text, "/%");
    mm = mm ? mm : strstr(text, "max(");
    if (mm && at)
        return line_err(ln, "'%s': one array read, min or max per expression", text);
    if (dv && (mm || at))
        return line_err(ln, "'%s': one array read, min, max or quotient per expression", text);
    if (dv)
        return quot(ln, text, out);
    if (mm)
        return minmax(ln, text, mm, out);
    if (!at)
        return poly(ln, text, &out->e);
    const char *open = strchr(at, '['), *close = closing(open);
    if (!close)
        return line_err(ln, "'%s': @ARRAY[INDEX] expected", at);
    int a = name_index(ln, ln->d->arrays, "array", at + 1, (size_t)(open - at - 1));
    if (a < 0)
        return -1;
    out->arr = (int8_t)a;
    char inner[512], outer[512];
    snprintf(inner, sizeof inner, "%.*s", (int)(close - open - 1), open + 1);
    snprintf(outer, sizeof outer, "%.*sind%s", (int)(at - text), text, close + 1);
    if (strchr(inner, '@') || strchr(outer, '@'))
        return line_err(ln, "'%s': one array read per expression", text);
    return poly(ln, outer, &out->e) ? -1 : poly(ln, inner, &out->inner);
}

/* Whether word w is a decimal number in [lo, hi] (into *v). */
static bool number(const char *w, long lo, long hi, long *v)
{
    char *end;
    if (!w || !*w)
        return false;
    *v = strtol(w, &end, 10);
    return !*end && *v >= lo && *v <= hi;
}

/* The expressions of `A SEP B` (text, SEP at sep, seplen characters) into s->a
 * and s->b. */
static int two_ix(struct line *ln, char *text, char *sep, size_t seplen, struct kd_stmt *s)
{
    *sep = '\0';
    return ix(ln, text, &s->a) ? -1 : ix(ln, sep + seplen, &s->b);
}

/* "(EXPR)", an operand expression, into the program's list: *slot = its
 * index + 1. It must be the same in every lane. */
static int operand(struct line *ln, const char *w, uint8_t *slot)
{
    size_t len = strlen(w);
    struct kd_prog *p = ln->p;
    if (len < 3 || w[0] != '(' || w[len - 1] != ')' || p->nox >= 255)
        return line_err(ln, "'%s': (EXPR) expected", w);
    char text[512];
    snprintf(text, sizeof text, "%.*s", (int)(len - 2), w + 1);
    p->ox = xgrow(p->ox, sizeof *p->ox, &p->ox_cap, p->nox + 1);
    struct kd_ix *x = &p->ox[p->nox];
    if (ix(ln, text, x))
        return -1;
    for (unsigned v = KD_TX; v <= KD_TZ; v++)
        if (kd_has(&x->e, v) || (x->arr != -1 && kd_has(&x->inner, v)) ||
            (x->arr < -1 && kd_has(&x->inner2, v)))
            return line_err(ln, "'%s': the same in every lane expected (no thread index)", w);
    *slot = (uint8_t)++p->nox;
    return 0;
}

/* "rN" (1..63) into *r. */
static int reg(struct line *ln, const char *w, uint8_t *r)
{
    long v;
    if (!w || w[0] != 'r' || !number(w + 1, 1, 63, &v))
        return line_err(ln, "'%s' is not a register r1..r63", w ? w : "(end of line)");
    *r = (uint8_t)v;
    return 0;
}

static int scope_sem(struct line *ln, const char *w, struct kernel_op *op)
{
    static const char *const scopes[] = {"cta", "gpu", "sys"};
    static const char *const sems[] = {"relaxed", "acquire", "release", "acq_rel"};
    static const uint8_t sem_val[] = {SEM_RELAXED, SEM_ACQUIRE, SEM_RELEASE, SEM_ACQ_REL};
    for (unsigned i = 0; i < 3; i++)
        if (!strcmp(w, scopes[i])) {
            op->scope = (uint8_t)(SCOPE_CTA + i);
            return 0;
        }
    for (unsigned i = 0; i < 4; i++)
        if (!strcmp(w, sems[i])) {
            op->sem = sem_val[i];
            return 0;
        }
    return line_err(ln, "unexpected '%s'", w);
}

/* "rN"; a window "rA..rB" (A < B): register A, which rotates with the
 * iterations of the innermost loop (bit `field` of s->rot marks it); or
 * "r(EXPR)", an operand expression (s->ox[field]). */
static int reg_rot(struct line *ln, const char *w, struct kd_stmt *s, unsigned field, uint8_t *r)
{
    if (w && w[0] == 'r' && w[1] == '(') /* r(EXPR): chosen at each issue */
        return operand(ln, w + 1, &s->ox[field]);
    const char *dots = w ? strstr(w, "..") : NULL;
    if (!dots)
        return reg(ln, w, r);
    char lo[16];
    snprintf(lo, sizeof lo, "%.*s", (int)(dots - w < 15 ? dots - w : 15), w);
    uint8_t hi;
    if (reg(ln, lo, r) || reg(ln, dots + 2, &hi))
        return -1;
    if (hi <= *r || (s->rot_n && s->rot_n != hi - *r + 1))
        return line_err(ln, "'%s': rA..rB with A < B, one length per statement, expected", w);
    s->rot_n = (uint8_t)(hi - *r + 1);
    s->rot |= (uint8_t)(1u << field);
    return 0;
}

/* A count: a number in [lo, hi] into *n, or a parameter (its index + 1
 * into *param: the count of each launch). */
static int count(struct line *ln, const char *w, long lo, long hi, uint32_t *n, uint8_t *param)
{
    int i = w ? find_name(ln->d->params, w, strlen(w)) : -1;
    long v;
    if (i >= 0)
        *param = (uint8_t)(i + 1);
    else if (number(w, lo, hi, &v))
        *n = (uint32_t)v;
    else
        return line_err(ln, "count '%s': a number or a parameter expected", w ? w : "");
    return 0;
}

/* A load's flags: spin N (KOP_F_SPIN, at most N re-issues), fresh
 * (KOP_F_FRESH), measure (KOP_F_MEASURE), measure_bw (KOP_F_MEASURE_BW);
 * 1 if w is none of them. */
static int load_flag(struct line *ln, const char *w, struct kd_stmt *s)
{
    static const char *const names[] = {"spin", "fresh", "measure", "measure_bw"};
    static const uint8_t flags[] = {KOP_F_SPIN, KOP_F_FRESH, KOP_F_MEASURE, KOP_F_MEASURE_BW};
    for (unsigned i = 0; i < 4; i++) {
        if (strcmp(w, names[i]))
            continue;
        if (s->op.kind != KOP_LOAD)
            return line_err(ln, "'%s': only a global load takes it", w);
        s->op.flags |= flags[i];
        return i ? 0 : count(ln, word(ln), 0, 1000000000, &s->op.n, &s->n_param);
    }
    return 1;
}

/* The rest of an operation: [lat L] [-> rD] [< rA ...] [SCOPE SEM] [FLAGS]. */
static int op_tail(struct line *ln, struct kd_stmt *s)
{
    struct kernel_op *op = &s->op;
    unsigned nsrc = 0;
    bool srcs = false;
    for (char *w; (w = word(ln));) {
        int f = load_flag(ln, w, s);
        if (f <= 0) {
            if (f < 0)
                return -1;
        } else if (!strcmp(w, "->")) {
            srcs = false;
            if (reg_rot(ln, word(ln), s, 0, &op->dst))
                return -1;
        } else if (!strcmp(w, "<")) {
            srcs = true;
        } else if (!strcmp(w, "lat")) {
            char *v = word(ln);
            long l;
            if (!number(v, 0, 65535, &l))
                return line_err(ln, "lat '%s': not a latency in cycles", v ? v : "");
            op->lat = (uint16_t)l;
        } else if (srcs && w[0] == 'r' && (isdigit((unsigned char)w[1]) || w[1] == '(')) {
            uint8_t r = 0;
            if (nsrc < 2 ? reg_rot(ln, w, s, 1 + nsrc, &r) : reg(ln, w, &r))
                return -1;
            if (nsrc < 2)
                op->src[nsrc++] = r;
            else
                op->srcs |= 1ull << r;
        } else if (scope_sem(ln, w, op)) {
            return -1;
        }
    }
    return 0;
}

static bool size_ok(int64_t size)
{
    return size == 1 || size == 2 || size == 4 || size == 8 || size == 16;
}

/* A memory statement's test and fallback, `if A < B [and ...] else [EXPR]`,
 * cut from the line: the conditions left in ln->ands (each a KD_S_AND
 * statement after it), the fallback index into s->b. */
static int fallback(struct line *ln, struct kd_stmt *s)
{
    char *t = strstr(ln->at, " if "), *el = t ? strstr(t, " else ") : NULL, *open = NULL;
    if (!t)
        return 0;
    if (el)
        for (open = el + 6; isspace((unsigned char)*open); open++)
            ;
    char *close = open && *open == '[' ? closing(open) : NULL;
    if (!close || close[1 + strspn(close + 1, " \t")])
        return line_err(ln, "'%s': if TEST else [INDEX] expected", t + 1);
    *t = *el = *close = '\0';
    s->fallback = true;
    ln->ands = t + 4;
    return ix(ln, open + 1, &s->b);
}

/* BUF[EXPR] SIZE (lds[EXPR] SIZE for the LDS), then the operation's tail. */
static int mem_stmt(struct line *ln, struct kd_stmt *s, uint8_t kind)
{
    s->op.kind = kind;
    s->mem = true;
    while (isspace((unsigned char)*ln->at))
        ln->at++;
    char *open = strchr(ln->at, '['), *close = closing(open);
    if (!open || !close)
        return line_err(ln, "'%s': BUF[INDEX] expected", ln->at);
    size_t len = (size_t)(open - ln->at);
    bool lds = kind == KOP_LDS_LOAD || kind == KOP_LDS_STORE;
    if (lds && (len != 3 || strncmp(ln->at, "lds", 3)))
        return line_err(ln, "'%s': lds[INDEX] expected", ln->at);
    int b = lds ? -1 : name_index(ln, ln->d->bufs, "buffer", ln->at, len);
    if (!lds && b < 0)
        return -1;
    s->buf = (int8_t)b;
    *close = '\0';
    if (ix(ln, open + 1, &s->a))
        return -1;
    ln->at = close + 1;
    if (fallback(ln, s))
        return -1;
    char *sz = word(ln), *slash = sz ? strchr(sz, '/') : NULL;
    long unit = 0;
    if (slash) { /* SIZE/UNIT: the index counts elements of UNIT bytes */
        *slash = '\0';
        if (!number(slash + 1, 1, 16, &unit) || !size_ok(unit))
            return line_err(ln, "unit '%s': 1, 2, 4, 8 or 16 bytes expected", slash + 1);
        s->unit = (uint8_t)unit;
    }
    int param = sz ? find_name(ln->d->params, sz, strlen(sz)) : -1;
    long size = 0;
    if (param >= 0) /* a parameter: the size at each launch */
        s->size_param = (uint8_t)(param + 1);
    else if (number(sz, 1, 16, &size) && size_ok(size))
        s->op.size = (uint8_t)size;
    else
        return line_err(ln, "size '%s': 1, 2, 4, 8 or 16 bytes, or a parameter, expected",
                        sz ? sz : "");
    return op_tail(ln, s);
}

/* "mK = LO .. HI [step S]" */
static int for_stmt(struct line *ln, struct kd_stmt *s)
{
    char *v = word(ln), *eq = word(ln);
    if (!v || v[0] != 'm' || v[1] < '0' || v[1] > '3' || v[2] || !eq || strcmp(eq, "="))
        return line_err(ln, "'%s': for mK = FROM .. TO expected (K 0..3)", v ? v : "");
    s->var = (uint8_t)(KD_M0 + v[1] - '0');
    char *dots = strstr(ln->at, "..");
    if (!dots)
        return line_err(ln, "'%s': FROM .. TO expected", ln->at);
    char *step = strstr(dots, " step ");
    if (step) {
        *step = '\0';
        s->stepped = true;
        if (poly(ln, step + 6, &s->step))
            return -1;
    }
    return two_ix(ln, ln->at, dots, 2, s);
}

/* One condition of an if, "A < B" or "A < B < C"; a further
 * ` and C < D ...` is left in ln->ands (each becomes a KD_S_AND statement). */
static int if_stmt(struct line *ln, struct kd_stmt *s)
{
    char *and = strstr(ln->at, " and ");
    ln->ands = NULL;
    if (and) {
        *and = '\0';
        ln->ands = and + 5;
    }
    char *lt = strchr(ln->at, '<'), *lt2 = lt ? strchr(lt + 1, '<') : NULL;
    if (!lt)
        return line_err(ln, "'%s': if A < B expected", ln->at);
    if (lt2) {
        s->two = true;
        *lt2 = '\0';
        if (ix(ln, lt2 + 1, &s->c))
            return -1;
    }
    return two_ix(ln, ln->at, lt, 1, s);
}

static int fence_stmt(struct line *ln, struct kd_stmt *s)
{
    s->op.kind = KOP_FENCE;
    s->op.sem = SEM_ACQ_REL;
    for (char *w; (w = word(ln));)
        if (scope_sem(ln, w, &s->op))
            return -1;
    if (s->op.scope == SCOPE_CTA)
        return line_err(ln, "%s", "fence: scope gpu or sys expected");
    return 0;
}

/* "+ M [A < B]" at ln->at: M into *m (or, given as "(EXPR)", into *mx), the
 * '\0'-ended A and the '<' between A and B (B ends at the ']'); ln->at past
 * the ']'. */
static int clause(struct line *ln, long *m, char **mx, char **a, char **lt)
{
    ln->at++;
    char *w = word(ln);
    char *open = strchr(ln->at, '['), *close = closing(open);
    *lt = close ? memchr(open, '<', (size_t)(close - open)) : NULL;
    *mx = w && w[0] == '(' ? w : NULL;
    *m = 1;
    if ((!*mx && !number(w, 1, 1000000, m)) || !*lt)
        return line_err(ln, "alu N + '%s': M [A < B] expected", w ? w : "");
    *close = '\0';
    *a = open + 1;
    ln->at = close + 1;
    return 0;
}

static void skip_space(struct line *ln)
{
    while (isspace((unsigned char)*ln->at))
        ln->at++;
}

static int alu_stmt(struct line *ln, struct kd_stmt *s)
{
    char *n = word(ln);
    long x;
    s->op.kind = KOP_ALU;
    if (n && n[0] == '(') {
        if (operand(ln, n, &s->ox[KD_OX_N]))
            return -1;
    } else if (count(ln, n, 1, 1000000, &s->op.n, &s->n_param)) {
        return -1;
    }
    skip_space(ln);
    if (*ln->at == '+') { /* + M [A < B]: M more where some active lane has A < B */
        char *a, *lt, *mx;
        if (clause(ln, &x, &mx, &a, &lt) || two_ix(ln, a, lt, 1, s) ||
            (mx && operand(ln, mx, &s->ox[KD_OX_M])))
            return -1;
        s->extra = (uint32_t)x;
    }
    for (skip_space(ln); *ln->at == '+'; skip_space(ln)) { /* further clauses */
        if (ln->nmore == KD_MAX_CLAUSES - 1)
            return line_err(ln, "more than %s clauses + M [A < B]", "8");
        struct clause *c = &ln->more[ln->nmore++];
        if (clause(ln, &c->m, &c->mx, &c->a, &c->lt))
            return -1;
    }
    return op_tail(ln, s);
}

static int statement(struct line *ln, struct kd_stmt *s)
{
    char *w = word(ln);
    s->buf = -1;
    s->a.arr = s->b.arr = s->c.arr = -1;
    s->kind = KD_S_OP;
    static const struct {
        const char *name;
        uint8_t kop;
    } mem[] = {{"load", KOP_LOAD},         {"store", KOP_STORE},        {"atomic", KOP_ATOMIC},
               {"lds_load", KOP_LDS_LOAD}, {"lds_store", KOP_LDS_STORE}};
    for (unsigned i = 0; i < 5; i++)
        if (!strcmp(w, mem[i].name))
            return mem_stmt(ln, s, mem[i].kop);
    if (!strcmp(w, "alu"))
        return alu_stmt(ln, s);
    if (!strcmp(w, "fence"))
        return fence_stmt(ln, s);
    if (!strcmp(w, "barrier")) {
        s->op.kind = KOP_BARRIER;
        return word(ln) ? line_err(ln, "%s", "barrier takes nothing") : 0;
    }
    if (!strcmp(w, "if")) {
        s->kind = KD_S_IF;
        return if_stmt(ln, s);
    }
    if (!strcmp(w, "for")) {
        s->kind = KD_S_FOR;
        return for_stmt(ln, s);
    }
    if (!strcmp(w, "end")) {
        s->kind = KD_S_END;
        return 0;
    }
    return line_err(ln, "unknown statement '%s'", w);
}

/* Link ifs and loops to their ends; set depths, enclosing loops and sites. */
static int structure(struct kd_prog *p, struct line *ln)
{
    unsigned stack[KD_MAX_DEPTH], depth = 0;
    for (unsigned i = 0; i < p->nstmt; i++) {
        struct kd_stmt *s = &p->s[i];
        ln->no = s->line;
        if (s->kind == KD_S_AND) { /* a further condition of the if before it: its place */
            const struct kd_stmt *f = &p->s[i - 1];
            s->depth = f->depth;
            s->nloops = f->nloops;
            memcpy(s->loops, f->loops, sizeof s->loops);
            memcpy(s->encl, f->encl, sizeof s->encl);
            continue;
        }
        if (s->kind == KD_S_END) {
            if (!depth)
                return line_err(ln, "%s", "'end' without an if or a for");
            s->match = (uint16_t)stack[--depth];
            p->s[s->match].match = (uint16_t)i;
        }
        s->depth = (uint8_t)depth;
        for (unsigned d = 0; d < depth; d++) {
            s->encl[d] = (uint16_t)stack[d];
            if (p->s[stack[d]].kind == KD_S_FOR)
                s->loops[s->nloops++] = (uint16_t)stack[d];
        }
        if (s->kind == KD_S_IF || s->kind == KD_S_FOR) {
            if (depth == KD_MAX_DEPTH)
                return line_err(ln, "more than %s ifs and loops nested", "4");
            for (unsigned d = 0; s->kind == KD_S_FOR && d < depth; d++)
                if (p->s[stack[d]].kind == KD_S_FOR && p->s[stack[d]].var == s->var)
                    return line_err(ln, "%s", "a loop inside another over the same variable");
            stack[depth++] = i;
        }
        if (s->rot && !s->nloops)
            return line_err(ln, "%s", "registers rA..rB rotate only inside a loop");
        if (s->rot)
            s->rot_var = p->s[s->loops[s->nloops - 1]].var;
        s->has_ox = s->ox[0] || s->ox[1] || s->ox[2] || s->ox[3];
        if (s->mem)
            s->op.site = (uint16_t)++p->nsites;
        if (s->buf >= 0)
            p->writes[s->buf] |= s->op.kind != KOP_LOAD;
    }
    if (depth) {
        ln->no = p->s[stack[depth - 1]].line;
        return line_err(ln, "%s", "no 'end' for this block");
    }
    return 0;
}

/* The statements of an alu line's further clauses, after the alu. */
static struct kd_stmt *new_stmt(struct kd_prog *p, size_t *cap, const struct line *ln);

static int more_clauses(struct kd_prog *p, struct line *ln, size_t *cap)
{
    for (unsigned c = 0; c < ln->nmore; c++) {
        struct kd_stmt *s = new_stmt(p, cap, ln);
        s->kind = KD_S_MORE;
        s->buf = -1;
        s->extra = (uint32_t)ln->more[c].m;
        s->a.arr = s->b.arr = -1;
        if (two_ix(ln, ln->more[c].a, ln->more[c].lt, 1, s) ||
            (ln->more[c].mx && operand(ln, ln->more[c].mx, &s->ox[KD_OX_M])))
            return -1;
    }
    return 0;
}

static int and_stmt(struct line *ln, struct kd_stmt *s)
{
    s->kind = KD_S_AND;
    s->buf = -1;
    s->a.arr = s->b.arr = s->c.arr = -1;
    return if_stmt(ln, s);
}

/* A new statement of line ln at the end of the program. */
static struct kd_stmt *new_stmt(struct kd_prog *p, size_t *cap, const struct line *ln)
{
    p->s = xgrow(p->s, sizeof *p->s, cap, p->nstmt + 1);
    struct kd_stmt *s = &p->s[p->nstmt++];
    *s = (struct kd_stmt){.line = (uint16_t)ln->no};
    return s;
}

/* Append a statement of line ln, parsed by fn. */
static int add_stmt(struct kd_prog *p, size_t *cap, struct line *ln,
                    int (*fn)(struct line *, struct kd_stmt *))
{
    return fn(ln, new_stmt(p, cap, ln));
}

/* The buffers named in the description's whole. */
static int whole_bufs(struct kd_prog *p, struct err *e)
{
    for (const char *const *n = p->d->whole; n && *n; n++) {
        int b = find_name(p->d->bufs, *n, strlen(*n));
        if (b < 0)
            return err_set(e, "kernel %s: whole '%s' is not a buffer", p->d->name, *n);
        p->whole[b] = true;
    }
    return 0;
}

/* The description's names: how many of each, the parameter that gives
 * range_join, the buffers annotated whole and the array of wg_items. */
static int names(struct kd_prog *p, struct err *e)
{
    const struct kd_desc *d = p->d;
    while (d->params && d->params[p->nparams])
        p->nparams++;
    while (d->bufs && d->bufs[p->nbufs])
        p->nbufs++;
    while (d->arrays && d->arrays[p->narrays])
        p->narrays++;
    if (p->nparams > KD_MAX_PARAMS || p->nbufs > KD_MAX_BUFS || p->narrays > KD_MAX_ARRAYS)
        return err_set(e, "kernel %s: more than %d parameters, %d buffers or %d arrays", d->name,
                       KD_MAX_PARAMS, KD_MAX_BUFS, KD_MAX_ARRAYS);
    p->join_param = d->range_join_param ? find_name(d->params, d->range_join_param,
                                                    strlen(d->range_join_param))
                                        : -1;
    if (d->range_join_param && p->join_param < 0)
        return err_set(e, "kernel %s: range_join_param '%s' is not a parameter", d->name,
                       d->range_join_param);
    if (whole_bufs(p, e))
        return -1;
    p->wg_arr = d->wg_items ? find_name(d->arrays, d->wg_items, strlen(d->wg_items)) : -1;
    if (d->wg_items && p->wg_arr < 0)
        return err_set(e, "kernel %s: wg_items '%s' is not an array", d->name, d->wg_items);
    return 0;
}

/* Every line of the body into statements (comments and blank lines skipped). */
static int body(struct kd_prog *p, struct line *ln)
{
    size_t cap = 0;
    ln->nparams = p->nparams;
    for (const char *at = p->d->body; at && *at;) {
        const char *nl = strchr(at, '\n');
        size_t len = nl ? (size_t)(nl - at) : strlen(at);
        ln->no++;
        snprintf(ln->text, sizeof ln->text, "%.*s", (int)len, at);
        at += len + (nl != NULL);
        char *hash = strchr(ln->text, '#');
        if (hash)
            *hash = '\0';
        ln->at = ln->text;
        while (isspace((unsigned char)*ln->at))
            ln->at++;
        if (!*ln->at)
            continue;
        ln->nmore = 0;
        ln->ands = NULL;
        if (add_stmt(p, &cap, ln, statement) || more_clauses(p, ln, &cap))
            return -1;
        while (ln->ands) { /* if A < B and C < D: one KD_S_AND per further condition */
            ln->at = ln->ands;
            if (add_stmt(p, &cap, ln, and_stmt))
                return -1;
        }
    }
    return 0;
}

struct kd_prog *kd_compile(const struct kd_desc *d, struct err *e)
{
    struct kd_prog *p = xcalloc(1, sizeof *p);
    p->d = d;
    struct line ln = {.d = d, .p = p, .e = e};
    if (names(p, e) || body(p, &ln) || structure(p, &ln)) {
        kd_prog_free(p);
        return NULL;
    }
    for (unsigned i = p->nstmt; i-- > 1;)
        if (p->s[i].kind == KD_S_MORE)
            p->s[i - 1].nmore = (uint8_t)(p->s[i].nmore + 1);
    return p;
}

int kd_compile_all(const struct kd_desc *d, unsigned n, struct kd_prog **p, struct err *e)
{
    for (unsigned i = 0; i < n; i++)
        if (!(p[i] = kd_compile(&d[i], e)))
            return -1;
    return 0;
}

void kd_progs_free(struct kd_prog **p, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        kd_prog_free(p[i]);
}

void kd_prog_free(struct kd_prog *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->nlaunch; i++)
        bound_free(p->launch[i]);
    free(p->launch);
    free(p->ox);
    free(p->s);
    free(p);
}

/* ---- the interpreter ------------------------------------------------------------------- */

/* The iterations so far of the loop over variable var (r[var - KD_M0]'s low
 * 32 bits; the high 32 bits hold the trip count of a loop whose bounds are
 * the same in every lane, 0 if not known). */
static inline int64_t iters(const struct kernel_warp *w, unsigned var)
{
    return (uint32_t)w->r[var - KD_M0];
}

static inline uint64_t mask_at(const struct kernel_warp *w, unsigned depth)
{
    return depth ? w->r[3 + depth] : low_bits(w->nlanes);
}

/* The block indices, the chunk's bounds (wg0, wg1) and the thread indices
 * of lane l of warp w. */
static inline void thread_vars(const struct kd_bound *b, const struct kernel_warp *w, unsigned l,
                               int64_t v[KD_NDYN])
{
    uint32_t tid = w->warp * w->warp_size + l;
    v[KD_BX] = w->wg_id.x;
    v[KD_BY] = w->wg_id.y;
    v[KD_BZ] = w->wg_id.z;
    v[KD_WG0] = b->wgi ? b->wgi->v[w->wg] : 0;
    v[KD_WG1] = b->wgi ? b->wgi->v[w->wg + 1] : 0;
    if (b->block.y == 1 && b->block.z == 1) {
        v[KD_TX] = tid;
        v[KD_TY] = v[KD_TZ] = 0;
    } else {
        v[KD_TX] = tid % b->block.x;
        v[KD_TY] = tid / b->block.x % b->block.y;
        v[KD_TZ] = tid / (b->block.x * b->block.y);
    }
}

/* The variables of lane l of warp w for a composed form (kd_bstmt.fx):
 * thread_vars, and each loop's iterations so far in its variable's slot. */
static inline void warp_vars(const struct kd_bound *b, const struct kernel_warp *w, unsigned l,
                             int64_t v[KD_NDYN])
{
    thread_vars(b, w, l, v);
    for (unsigned m = 0; m < 4; m++)
        v[KD_M0 + m] = (uint32_t)w->r[m];
    v[KD_IND] = 0;
}

/* arr[at], which must be inside the array. */
static inline int64_t arr_at(const struct kd_array *arr, int64_t at)
{
    if ((uint64_t)at >= arr->n)
        BUG("kernel description: array index %lld out of 0..%llu", (long long)at,
            (unsigned long long)arr->n);
    return arr->v[at];
}

/* The value of x at v (an array read first, if it has one). */
static int64_t eval(const struct kd_bix *x, int64_t v[KD_NDYN])
{
    if (x->arr) {
        v[KD_IND] = arr_at(x->arr, kd_eval(&x->inner, v));
    } else if (x->fn) {
        v[KD_IND] = fn_of(x->fn, kd_eval(&x->inner, v), kd_eval(&x->inner2, v));
    }
    return kd_eval(&x->e, v);
}

/* a's constant and its block terms at warp w (its value where the thread
 * indices, loop variables and ind are 0). */
static inline int64_t block_terms(const struct kd_bound *b, const struct kernel_warp *w,
                                  const struct kd_affine *a)
{
    int64_t c = a->c + a->k[KD_BX] * w->wg_id.x + a->k[KD_BY] * w->wg_id.y +
                a->k[KD_BZ] * w->wg_id.z;
    if (b->wgi) /* an irregular chunk: wg0, wg1 */
        c += a->k[KD_WG0] * b->wgi->v[w->wg] + a->k[KD_WG1] * b->wgi->v[w->wg + 1];
    return c;
}

/* The variables of lane l of warp w inside statement i's loops. */
static void lane_vars(const struct kd_bound *b, const struct kernel_warp *w, unsigned l,
                      unsigned i, int64_t v[KD_NDYN])
{
    const struct kd_stmt *s = &b->p->s[i];
    thread_vars(b, w, l, v);
    for (unsigned j = 0; j < s->nloops; j++) {
        const struct kd_stmt *f = &b->p->s[s->loops[j]];
        const struct kd_bstmt *bf = &b->b[s->loops[j]];
        v[f->var] = eval(&bf->a, v) + iters(w, f->var) * bf->step;
    }
}

/* v from the previous lane's to the next lane's in the same row of the
 * block: tx one more, each loop variable whose first value moves by a fixed
 * step per lane moved by it, the others evaluated again. */
static void lane_next(const struct kd_bound *b, const struct kernel_warp *w, unsigned i,
                      int64_t v[KD_NDYN])
{
    const struct kd_stmt *s = &b->p->s[i];
    v[KD_TX]++;
    for (unsigned j = 0; j < s->nloops; j++) {
        const struct kd_stmt *f = &b->p->s[s->loops[j]];
        const struct kd_bstmt *bf = &b->b[s->loops[j]];
        if (bf->linear)
            v[f->var] += bf->a.e.k[KD_TX];
        else
            v[f->var] = eval(&bf->a, v) + iters(w, f->var) * bf->step;
    }
}

/* The variables of lane l, from those of lane *prev (-1: none) where l is
 * the next lane of its row. */
static void lane_at(const struct kd_bound *b, const struct kernel_warp *w, unsigned l, unsigned i,
                    int64_t v[KD_NDYN], int *prev)
{
    if (*prev >= 0 && (unsigned)*prev + 1 == l && v[KD_TX] + 1 < (int64_t)b->block.x)
        lane_next(b, w, i, v);
    else
        lane_vars(b, w, l, i, v);
    *prev = (int)l;
}

/* The end of the row of the block that lane l is in (the warp's lanes in a
 * 1D block). */
static unsigned row_end(const struct kd_bound *b, const struct kernel_warp *w, unsigned l)
{
    if (b->block.y == 1 && b->block.z == 1)
        return w->nlanes;
    uint32_t tid = w->warp * w->warp_size + l;
    unsigned end = l + (b->block.x - tid % b->block.x);
    return end < w->nlanes ? end : w->nlanes;
}

/* The lanes lo .. hi - 1 from the lowest to the highest of mask (mask != 0). */
#define LANE_SPAN(mask, lo, hi)                                                                  \
    unsigned lo = (unsigned)__builtin_ctzll(mask), hi = 64 - (unsigned)__builtin_clzll(mask)

static void lanes_eval(const struct kd_bound *b, const struct kernel_warp *w, unsigned i,
                       const struct kd_bix *x, uint64_t mask, int64_t *out);

/* Affine form a at the lanes of mask of warp w inside statement i's loops,
 * and at the lanes between them, into out[lane], term by term over the
 * lanes: the block and thread indices, each loop variable (its first bound
 * at each lane plus the iterations so far times the step) and the array
 * element ind[lane] (times ki). In a 1D block without a thread term the
 * constant joins the first term that varies. */
static void lanes_affine(const struct kd_bound *b, const struct kernel_warp *w, unsigned i,
                         const struct kd_affine *a, const int64_t *ind, int64_t ki,
                         uint64_t mask, int64_t *out)
{
    const struct kd_stmt *s = &b->p->s[i];
    LANE_SPAN(mask, lo, hi);
    int64_t c = block_terms(b, w, a), kx = a->k[KD_TX];
    uint32_t tid0 = w->warp * w->warp_size, bx = b->block.x, by = b->block.y;
    bool flat = by == 1 && b->block.z == 1, set = !flat || kx;
    for (unsigned l = lo; !flat && l < hi; l++) {
        uint32_t t = tid0 + l;
        out[l] = c + kx * (t % bx) + a->k[KD_TY] * (t / bx % by) + a->k[KD_TZ] * (t / (bx * by));
    }
    for (int64_t l = lo, v = c + kx * (int64_t)(tid0 + lo); flat && kx && l < hi; l++, v += kx)
        out[l] = v;
    for (unsigned j = 0; j < s->nloops; j++) {
        const struct kd_stmt *f = &b->p->s[s->loops[j]];
        const struct kd_bstmt *bf = &b->b[s->loops[j]];
        int64_t k = a->k[f->var], first[KERNEL_MAX_LANES];
        if (!k)
            continue;
        lanes_eval(b, w, s->loops[j], &bf->a, mask, first);
        int64_t it = iters(w, f->var) * bf->step, add = k * it + (set ? 0 : c);
        for (unsigned l = lo; l < hi; l++)
            out[l] = (set ? out[l] : 0) + k * first[l] + add;
        set = true;
    }
    for (unsigned l = lo; ki && l < hi; l++)
        out[l] = (set ? out[l] : c) + ki * ind[l];
    for (unsigned l = lo; !set && !ki && l < hi; l++)
        out[l] = c;
}

/* The elements of x's array at the lanes of mask into out[lane] (0 at the
 * lanes between them whose index is outside the array). An index that moves
 * by a fixed step from lane to lane (flat) is read without a test per lane
 * when its first and last are inside the array. */
static void lanes_gather(const struct kd_bound *b, const struct kernel_warp *w, unsigned i,
                         const struct kd_bix *x, bool flat, uint64_t mask, int64_t *out)
{
    const struct kd_array *arr = x->arr;
    LANE_SPAN(mask, lo, hi);
    if (flat) {
        const struct kd_affine *a = &x->inner;
        int64_t k = a->k[KD_TX],
                first = block_terms(b, w, a) + k * (int64_t)(w->warp * w->warp_size + lo),
                last = first + k * (hi - 1 - lo);
        if (first >= 0 && last >= 0 && (uint64_t)first < arr->n && (uint64_t)last < arr->n) {
            const uint32_t *v = arr->v + first;
            for (unsigned l = lo; l < hi; l++, v += k)
                out[l] = *v;
            return;
        }
    }
    lanes_affine(b, w, i, &x->inner, NULL, 0, mask, out);
    for (unsigned l = lo; l < hi; l++) {
        if ((uint64_t)out[l] < arr->n)
            out[l] = arr->v[out[l]];
        else if (mask >> l & 1)
            BUG("kernel description: array index %lld out of 0..%llu", (long long)out[l],
                (unsigned long long)arr->n);
        else
            out[l] = 0;
    }
}

/* x's min or max of its two arguments, or its quotient, at the lanes of
 * mask (and between them) into ind[lane]. */
static void lanes_minmax(const struct kd_bound *b, const struct kernel_warp *w, unsigned i,
                         const struct kd_bix *x, uint64_t mask, int64_t *ind)
{
    int64_t q[KERNEL_MAX_LANES];
    LANE_SPAN(mask, lo, hi);
    lanes_affine(b, w, i, &x->inner, NULL, 0, mask, ind);
    if (x->fn == KD_IX_DIV) {
        for (unsigned l = lo; l < hi; l++)
            ind[l] = floor_div(ind[l], x->inner2.c);
        return;
    }
    lanes_affine(b, w, i, &x->inner2, NULL, 0, mask, q);
    for (unsigned l = lo; l < hi; l++)
        ind[l] = (x->fn == KD_IX_MIN) == (ind[l] < q[l]) ? ind[l] : q[l];
}

/* x at the lanes of mask of warp w inside statement i's loops, and at the
 * lanes between them, into out[lane]: its array element (or min or max)
 * first, if it has one (an expression that is the element alone is read
 * into out). */
static void lanes_eval(const struct kd_bound *b, const struct kernel_warp *w, unsigned i,
                       const struct kd_bix *x, uint64_t mask, int64_t *out)
{
    int64_t ind[KERNEL_MAX_LANES];
    const struct kd_bstmt *bs = &b->b[i];
    bool flat = bs->flat_inner[x == &bs->a ? 0 : x == &bs->b ? 1 : 2];
    if (x->fn) {
        lanes_minmax(b, w, i, x, mask, ind);
        lanes_affine(b, w, i, &x->e, ind, x->e.k[KD_IND], mask, out);
    } else if (!x->arr) {
        lanes_affine(b, w, i, &x->e, NULL, 0, mask, out);
    } else if (x->e.c == 0 && x->e.nnz == 1 && x->e.k[KD_IND] == 1) {
        lanes_gather(b, w, i, x, flat, mask, out);
    } else {
        lanes_gather(b, w, i, x, flat, mask, ind);
        lanes_affine(b, w, i, &x->e, ind, x->e.k[KD_IND], mask, out);
    }
}

/* The integers v of [*lo, *hi] with c + k v < 0: *lo and *hi narrowed
 * (*lo > *hi: none). */
static void below_zero(int64_t c, int64_t k, int64_t *lo, int64_t *hi)
{
    if (k > 0) { /* v <= floor((-c - 1) / k) */
        int64_t top = floor_div(-c - 1, k);
        *hi = top < *hi ? top : *hi;
    } else if (k < 0) { /* -k v > c: v >= ceil((c + 1) / -k) */
        int64_t bot = -floor_div(-(c + 1), -k);
        *lo = bot > *lo ? bot : *lo;
    } else if (c >= 0) {
        *hi = *lo - 1;
    }
}

/* A kd_lform at the warp: its parts at lane 0 and their steps per lane. */
struct lf_run {
    const struct kd_lform *f;
    int64_t v0, vl, g0, gl, i0, il, h0, hl;
};

static void lf_start(struct lf_run *r, const struct kd_lform *f, const int64_t v0[KD_NDYN])
{
    *r = (struct lf_run){.f = f, .v0 = kd_eval(&f->v.a, v0), .vl = f->v.a.k[KD_TX]};
    if (f->v.garr) {
        r->g0 = kd_eval(&f->v.gi, v0);
        r->gl = f->v.gi.k[KD_TX];
    }
    if (f->arr) {
        r->i0 = kd_eval(&f->in.a, v0);
        r->il = f->in.a.k[KD_TX];
    }
    if (f->in.garr) {
        r->h0 = kd_eval(&f->in.gi, v0);
        r->hl = f->in.gi.k[KD_TX];
    }
}

/* The form at lane l. */
static inline int64_t lf_at(const struct lf_run *r, int64_t l)
{
    const struct kd_lform *f = r->f;
    int64_t x = r->v0 + r->vl * l;
    if (f->v.garr)
        x += f->v.kg * arr_at(f->v.garr, r->g0 + r->gl * l);
    if (f->arr) {
        int64_t at = r->i0 + r->il * l;
        if (f->in.garr)
            at += f->in.kg * arr_at(f->in.garr, r->h0 + r->hl * l);
        x += f->ki * arr_at(f->arr, at);
    }
    return x;
}

/* Whether arr[i0 + il * l] is inside the array for every l of lo .. hi - 1. */
static inline bool run_inside(const struct kd_array *arr, int64_t i0, int64_t il, unsigned lo,
                              unsigned hi)
{
    int64_t a = i0 + il * lo, z = i0 + il * (hi - 1);
    return a >= 0 && z >= 0 && (uint64_t)a < arr->n && (uint64_t)z < arr->n;
}

/* BODY for each lane l: every lane of lo .. hi - 1 when dense, else the
 * lanes of mask. */
#define EACH_LANE(l, dense, lo, hi, mask, BODY)                                                \
    do {                                                                                       \
        if (dense) {                                                                           \
            for (int64_t l = lo; l < (int64_t)(hi); l++) {                                     \
                BODY;                                                                          \
            }                                                                                  \
        } else {                                                                               \
            for (uint64_t m_ = mask; m_; m_ &= m_ - 1) {                                       \
                int64_t l = __builtin_ctzll(m_);                                               \
                BODY;                                                                          \
            }                                                                                  \
        }                                                                                      \
    } while (0)

/* A kd_lform at the lanes lo .. hi - 1 of a warp, in the shape it takes
 * there: v0 + vl * l + kg * gv[gl * l] (one array read at a fixed step per
 * lane, inside the array at every lane of the span; kg 0 for none), or
 * that plus ki * arr[i0 + kg * gv[gl * l]] (two: an array read at an index
 * read so; tested per lane), or any other (lf_at). */
enum { LF_ONE, LF_TWO, LF_ANY };

struct lf_fast {
    struct lf_run r; /* LF_ANY */
    const uint32_t *gv;
    const struct kd_array *arr;
    int64_t v0, vl, gl, kg, i0, ki;
    uint8_t shape;
};

static const uint32_t lf_zero;

/* Form f at the lanes lo .. hi - 1 of the warp whose lane 0 has the
 * variables v (warp_vars): its shape there and the values it needs. */
static void lf_prepare(struct lf_fast *q, const struct kd_lform *f, const int64_t v[KD_NDYN],
                       unsigned lo, unsigned hi)
{
    q->v0 = kd_eval(&f->v.a, v);
    q->vl = f->v.a.k[KD_TX];
    q->shape = f->shape;
    if (!f->g) {
        q->gv = &lf_zero;
        q->gl = q->kg = 0;
        return;
    }
    int64_t g0 = kd_eval(f->gi, v);
    q->gl = f->gi->k[KD_TX];
    q->kg = f->kg;
    q->gv = f->g->v + g0;
    if (q->shape == LF_ANY || !run_inside(f->g, g0, q->gl, lo, hi)) {
        q->shape = LF_ANY;
        lf_start(&q->r, f, v);
    } else if (q->shape == LF_TWO) {
        q->arr = f->arr;
        q->i0 = kd_eval(&f->in.a, v);
        q->ki = f->ki;
    }
}

/* Whether most lanes of mask's span are in mask: a pass over the span
 * costs less than one over mask's lanes. */
static inline bool dense_mask(uint64_t mask)
{
    LANE_SPAN(mask, lo, hi);
    return popcount64(mask) * 2 >= hi - lo;
}

/* off + scale times the prepared form q at the lanes of mask into x[lane]
 * (and at the lanes between them when they need no test and most lanes of
 * the span are in mask). True if every lane of the span was written. */
static bool lf_fill(const struct lf_fast *q, uint64_t mask, int64_t scale, int64_t off,
                    int64_t *x)
{
    LANE_SPAN(mask, lo, hi);
    bool dense = q->shape == LF_ONE && dense_mask(mask);
    if (q->shape == LF_ONE) {
        const uint32_t *gv = q->gv;
        int64_t v0 = q->v0, vl = q->vl, kg = q->kg, gl = q->gl;
        EACH_LANE(l, dense, lo, hi, mask, x[l] = off + (v0 + vl * l + kg * gv[gl * l]) * scale);
    } else if (q->shape == LF_TWO) {
        const uint32_t *gv = q->gv;
        const struct kd_array *arr = q->arr;
        int64_t v0 = q->v0, vl = q->vl, kg = q->kg, gl = q->gl, i0 = q->i0, ki = q->ki;
        EACH_LANE(l, false, lo, hi, mask,
                  x[l] = off + (v0 + vl * l + ki * arr_at(arr, i0 + kg * gv[gl * l])) * scale);
    } else {
        EACH_LANE(l, false, lo, hi, mask, x[l] = off + lf_at(&q->r, l) * scale);
    }
    return dense;
}

/* Lanes l of 0..63 with d0 + dk * l < 0. */
static uint64_t run_below(int64_t d0, int64_t dk)
{
    int64_t lo = 0, hi = 63;
    below_zero(d0, dk, &lo, &hi);
    return lo > hi ? 0 : low_bits((uint64_t)hi + 1) & ~low_bits((uint64_t)lo);
}

/* A gather (kd_bstmt.gather) from lane 0's variables: statement i's a is
 * c * arr[i0 + di * lane] + r0 + dr * lane, its b b0 + db * lane. */
struct gform {
    const struct kd_array *arr;
    int64_t i0, di, c, r0, dr, b0, db;
};

static void gather_form(const struct kd_bound *b, const struct kernel_warp *w, unsigned i,
                        uint64_t mask, struct gform *g)
{
    const struct kd_bix *x = &b->b[i].a, *y = &b->b[i].b;
    int64_t v[KD_NDYN] = {0};
    lane_vars(b, w, 0, i, v);
    *g = (struct gform){.arr = x->arr, .i0 = kd_eval(&x->inner, v), .di = x->inner.k[KD_TX],
                        .c = x->e.k[KD_IND], .dr = x->e.k[KD_TX], .b0 = kd_eval(&y->e, v),
                        .db = y->e.k[KD_TX]};
    v[KD_IND] = 0; /* (an enclosing loop's bound may have read an array) */
    g->r0 = kd_eval(&x->e, v);
    /* the index at the first and last lanes, and so at every lane between */
    int64_t f = g->i0 + g->di * __builtin_ctzll(mask);
    int64_t z = g->i0 + g->di * (63 - __builtin_clzll(mask));
    if ((f < z ? f : z) < 0 || (uint64_t)(f < z ? z : f) >= g->arr->n)
        BUG("kernel description: array index %lld out of 0..%llu", (long long)(f < z ? f : z),
            (unsigned long long)g->arr->n);
}

/* A gather's a at every lane of mask (from the lowest to the highest) into x. */
static void gather(const struct gform *g, uint64_t mask, int64_t x[KERNEL_MAX_LANES])
{
    LANE_SPAN(mask, lo, hi);
    int64_t at = g->i0 + g->di * lo, r = g->r0 + g->dr * lo;
    for (unsigned l = lo; l < hi; l++, at += g->di, r += g->dr)
        x[l] = g->c * g->arr->v[at] + r;
}

/* Lanes of mask where statement i's a < b (an if), or where its loop
 * variable, first value plus the iterations so far, is below its bound. */
/* cond_mask where a - b moves by a fixed step per lane: a run of lanes per
 * row, from its first lane's values and the step. */
static uint64_t cond_linear(const struct kd_bound *b, const struct kernel_warp *w, unsigned i,
                            uint64_t mask, int64_t iter)
{
    const struct kd_stmt *s = &b->p->s[i];
    const struct kd_bstmt *bs = &b->b[i];
    int64_t v[KD_NDYN] = {0};
    uint64_t out = 0;
    for (unsigned l0 = 0, l1; l0 < w->nlanes; l0 = l1) {
        l1 = bs->flat ? w->nlanes : row_end(b, w, l0);
        uint64_t row = low_bits(l1) & ~low_bits(l0);
        if (!(mask & row))
            continue;
        int64_t d, d2 = 0, l = l0;
        if (bs->fast) {
            warp_vars(b, w, l0, v);
            d = kd_eval(&bs->fd, v);
            d2 = s->two ? kd_eval(&bs->fd2, v) : 0;
        } else {
            lane_vars(b, w, l0, i, v);
            int64_t y = eval(&bs->b, v);
            d = eval(&bs->a, v) + iter - y;
            d2 = s->two ? y - eval(&bs->c, v) : 0;
        }
        uint64_t run = run_below(d - bs->dk * l, bs->dk);
        if (s->two)
            run &= run_below(d2 - bs->dk2 * l, bs->dk2);
        out |= row & run;
    }
    return mask & out;
}

/* cond_mask by the statement's lane forms (kd_bstmt.lf); mask is not 0. */
static uint64_t cond_lforms(const struct kd_bound *b, const struct kernel_warp *w, unsigned i,
                            uint64_t mask, int64_t iter)
{
    int64_t x[KERNEL_MAX_LANES], y[KERNEL_MAX_LANES], z[KERNEL_MAX_LANES], v[KD_NDYN];
    int64_t *xs[3] = {x, y, z};
    bool dense = true, two = b->p->s[i].two;
    uint64_t out = 0;
    struct lf_fast f[3];
    LANE_SPAN(mask, lo, hi);
    warp_vars(b, w, 0, v);
    for (unsigned j = 0; j < (two ? 3u : 2u); j++)
        lf_prepare(&f[j], &b->b[i].lf[j], v, lo, hi);
    if (!two) { /* a < b in one pass when both are of the common shape */
        const struct lf_fast *p = &f[0], *q = &f[1];
        if (p->shape == LF_ONE && q->shape == LF_ONE) {
            const uint32_t *pg = p->gv, *qg = q->gv;
            int64_t pv = p->v0 + iter, qv = q->v0, pk = p->kg, qk = q->kg, ps = p->gl;
            int64_t qs = q->gl, pl = p->vl, ql = q->vl;
            EACH_LANE(l, dense_mask(mask), lo, hi, mask,
                      out |= (uint64_t)(pv + pl * l + pk * pg[ps * l] <
                                        qv + ql * l + qk * qg[qs * l]) << l);
            return out & mask;
        }
    }
    for (unsigned j = 0; j < (two ? 3u : 2u); j++)
        dense &= lf_fill(&f[j], mask, 1, 0, xs[j]);
    EACH_LANE(l, dense, lo, hi, mask,
              out |= (uint64_t)(x[l] + iter < y[l] && (!two || y[l] < z[l])) << l);
    return out & mask;
}

static uint64_t cond_mask(const struct kd_bound *b, const struct kernel_warp *w, unsigned i,
                          uint64_t mask)
{
    const struct kd_stmt *s = &b->p->s[i];
    const struct kd_bstmt *bs = &b->b[i];
    int64_t iter = s->kind == KD_S_FOR ? iters(w, s->var) * bs->step : 0;
    uint64_t out = 0;
    if (bs->linear)
        return cond_linear(b, w, i, mask, iter);
    if (!mask)
        return 0;
    if (bs->lf)
        return cond_lforms(b, w, i, mask, iter);
    int64_t x[KERNEL_MAX_LANES], y[KERNEL_MAX_LANES], z[KERNEL_MAX_LANES];
    if (bs->gather) {
        struct gform g;
        gather_form(b, w, i, mask, &g);
        gather(&g, mask, x);
        for (uint64_t m = mask; m; m &= m - 1) {
            int64_t l = __builtin_ctzll(m);
            out |= (uint64_t)(x[l] + iter < g.b0 + g.db * l) << l;
        }
        return out;
    }
    lanes_eval(b, w, i, &bs->a, mask, x);
    lanes_eval(b, w, i, &bs->b, mask, y);
    if (s->two)
        lanes_eval(b, w, i, &bs->c, mask, z);
    LANE_SPAN(mask, lo, hi);
    for (unsigned l = lo; l < hi; l++)
        out |= (uint64_t)(x[l] + iter < y[l] && (!s->two || y[l] < z[l])) << l;
    return out & mask;
}

/* The operands of statement i given by expressions (kd.h: register numbers
 * and ALU counts), from the warp's first lane's loop variables. */
static void operands(const struct kd_bound *b, const struct kernel_warp *w, unsigned i,
                     struct kernel_op *op)
{
    const struct kd_stmt *s = &b->p->s[i];
    int64_t v[KD_NDYN] = {0};
    lane_vars(b, w, 0, i, v);
    uint8_t *reg[3] = {&op->dst, &op->src[0], &op->src[1]};
    for (unsigned j = 0; j < KD_OX_N; j++) {
        int64_t x = s->ox[j] ? eval(&b->ox[s->ox[j] - 1], v) : 1;
        if (x < 1 || x > 63)
            BUG("kernel %s, line %u: register r%lld out of r1..r63", b->p->d->name, s->line,
                (long long)x);
        if (s->ox[j])
            *reg[j] = (uint8_t)x;
    }
    if (s->ox[KD_OX_N]) {
        int64_t n = eval(&b->ox[s->ox[KD_OX_N] - 1], v);
        if (n < 1 || n > 1000000)
            BUG("kernel %s, line %u: alu count %lld out of 1..1000000", b->p->d->name, s->line,
                (long long)n);
        op->n = (uint32_t)n;
    }
}

/* The count M of statement i's clause `+ M [A < B]` (an expression's, from
 * the warp's first lane's loop variables). */
static uint32_t clause_m(const struct kd_bound *b, const struct kernel_warp *w, unsigned i)
{
    const struct kd_stmt *s = &b->p->s[i];
    if (!s->ox[KD_OX_M])
        return s->extra;
    int64_t v[KD_NDYN] = {0};
    lane_vars(b, w, 0, i, v);
    int64_t m = eval(&b->ox[s->ox[KD_OX_M] - 1], v);
    if (m < 0 || m > 1000000)
        BUG("kernel %s, line %u: alu count %lld out of 0..1000000", b->p->d->name, s->line,
            (long long)m);
    return (uint32_t)m;
}

/* The values off + (v0 + k . (tx, ty, tz)) * scale of lanes 0 .. nlanes-1
 * of w: a run of steps along each row of the block. */
static void row_sweep(const struct kd_bound *b, const struct kernel_warp *w, int64_t v0,
                  const int64_t k[3], uint64_t off, int64_t scale, uint64_t *out)
{
    uint32_t tid = w->warp * w->warp_size, bx = b->block.x, by = b->block.y;
    uint32_t tx = tid % bx, ty = tid / bx % by;
    int64_t v = v0 + k[0] * tx + k[1] * ty + k[2] * (tid / (bx * by));
    uint64_t step = (uint64_t)(k[0] * scale);
    for (unsigned l = 0; l < w->nlanes; tx = 0) {
        unsigned run = bx - tx < w->nlanes - l ? bx - tx : w->nlanes - l;
        uint64_t a = off + (uint64_t)(v * scale);
        for (unsigned j = 0; j < run; j++, a += step)
            out[l + j] = a;
        l += run;
        v += k[1] - k[0] * tx; /* the next row's first lane */
        if (++ty == by) {
            ty = 0;
            v += k[2] - k[1] * by;
        }
    }
}

/* The addresses of memory statement i at the lanes of mask by its lane form
 * (kd_bstmt.lf) into the warp's lane_addr. */
static void lf_addresses(const struct kd_bound *b, struct kernel_warp *w, unsigned i,
                         uint64_t mask, addr_t base)
{
    struct lf_fast q;
    int64_t v[KD_NDYN];
    warp_vars(b, w, 0, v);
    LANE_SPAN(mask, lo, hi);
    lf_prepare(&q, &b->b[i].lf[0], v, lo, hi);
    lf_fill(&q, mask, b->b[i].unit, (int64_t)base, (int64_t *)w->lane_addr);
}

/* The addresses of memory statement i: base + lane * stride where the index
 * moves by a fixed step from lane to lane (per row of a 2D or 3D block),
 * else per lane. */
static void addresses(const struct kd_bound *b, unsigned i, struct kernel_warp *w,
                      struct kernel_op *op)
{
    const struct kd_bstmt *bs = &b->b[i];
    int64_t v[KD_NDYN] = {0};
    int8_t buf = b->p->s[i].buf;
    addr_t base = buf >= 0 ? b->bufs[buf]->base : 0;
    int64_t unit = bs->unit, stride = bs->a.e.k[KD_TX] * unit;
    uint64_t mask = op->mask ? op->mask : low_bits(w->nlanes);
    bool one_row = b->block.y == 1 && b->block.z == 1;
    if (bs->linear && (one_row || bs->flat)) {
        if (bs->fast)
            warp_vars(b, w, 0, v);
        else
            lane_vars(b, w, 0, i, v);
        op->base = base + (addr_t)((bs->fast ? kd_eval(&bs->fx, v) : eval(&bs->a, v)) * unit);
        op->stride = stride;
        return;
    }
    op->lanes = true;
    if (bs->split) { /* once per warp, then the thread terms lane by lane */
        lane_vars(b, w, 0, i, v);
        v[KD_TX] = v[KD_TY] = v[KD_TZ] = 0;
        row_sweep(b, w, eval(&bs->a, v), bs->k, base, unit, w->lane_addr);
        return;
    }
    if (bs->lf) {
        lf_addresses(b, w, i, mask, base);
        return;
    }
    if (!bs->linear) {
        int64_t x[KERNEL_MAX_LANES];
        struct gform g;
        if (bs->gather) {
            gather_form(b, w, i, mask, &g);
            gather(&g, mask, x);
        } else {
            lanes_eval(b, w, i, &bs->a, mask, x);
        }
        LANE_SPAN(mask, lo, hi);
        for (unsigned l = lo; l < hi; l++)
            w->lane_addr[l] = base + (addr_t)(x[l] * unit);
        return;
    }
    int prev = -1;
    for (uint64_t m = mask; m; m &= m - 1) {
        unsigned l = (unsigned)__builtin_ctzll(m);
        bool next = bs->linear && prev >= 0 && (unsigned)prev + 1 == l &&
                    v[KD_TX] + 1 < (int64_t)b->block.x;
        if (next) { /* the next lane of a row: one stride on */
            v[KD_TX]++;
            w->lane_addr[l] = w->lane_addr[prev] + (addr_t)stride;
            prev = (int)l;
            continue;
        }
        lane_at(b, w, l, i, v, &prev);
        w->lane_addr[l] = base + (addr_t)(eval(&bs->a, v) * unit);
    }
}

/* Memory statement i's lanes where its test fails: at its fallback index
 * (lane addresses from then on). */
static void fallback_lanes(const struct kd_bound *b, unsigned i, struct kernel_warp *w,
                           struct kernel_op *op)
{
    const struct kd_prog *p = b->p;
    uint64_t mask = op->mask ? op->mask : low_bits(w->nlanes), pass = mask;
    for (unsigned j = i + 1; pass && j < p->nstmt && p->s[j].kind == KD_S_AND; j++)
        pass = cond_mask(b, w, j, pass);
    uint64_t fail = mask & ~pass;
    if (!fail)
        return;
    for (uint64_t m = op->lanes ? 0 : mask; m; m &= m - 1) {
        unsigned l = (unsigned)__builtin_ctzll(m);
        w->lane_addr[l] = op->base + (addr_t)(op->stride * (int64_t)l);
    }
    op->lanes = true;
    op->base = 0;
    op->stride = 0;
    int64_t x[KERNEL_MAX_LANES];
    int8_t buf = p->s[i].buf;
    addr_t base = buf >= 0 ? b->bufs[buf]->base : 0;
    lanes_eval(b, w, i, &b->b[i].b, fail, x);
    for (uint64_t m = fail; m; m &= m - 1) {
        unsigned l = (unsigned)__builtin_ctzll(m);
        w->lane_addr[l] = base + (addr_t)(x[l] * b->b[i].unit);
    }
}

/* Registers rA..rB of statement s: A + the iterations of its loop mod B - A + 1. */
static void rotate(const struct kd_stmt *s, const struct kernel_warp *w, struct kernel_op *op)
{
    uint8_t off = (uint8_t)(iters(w, s->rot_var) % s->rot_n);
    op->dst += s->rot & 1 ? off : 0;
    op->src[0] += s->rot & 2 ? off : 0;
    op->src[1] += s->rot & 4 ? off : 0;
}

/* The trip count of loop i whose bounds are the same in every lane (entered:
 * one or more), 0 if it does not fit in 32 bits. */
static uint64_t trips(const struct kd_bound *b, const struct kernel_warp *w, unsigned i)
{
    const struct kd_bstmt *bs = &b->b[i];
    int64_t v[KD_NDYN] = {0};
    lane_vars(b, w, 0, i, v);
    int64_t from = eval(&bs->a, v), to = eval(&bs->b, v);
    uint64_t n = (uint64_t)((to - from + bs->step - 1) / bs->step);
    return n >> 32 ? 0 : n;
}

/* The statement after the `end` i of a loop: the loop's first again, with
 * the lanes still in it, or the one after the end. */
static uint32_t loop_end(const struct kd_bound *b, struct kernel_warp *w, unsigned i)
{
    unsigned j = b->p->s[i].match;
    const struct kd_stmt *f = &b->p->s[j];
    uint64_t *r = &w->r[f->var - KD_M0];
    if (++*r >> 32) /* a known trip count: the same lanes until it is done */
        return (uint32_t)*r < *r >> 32 ? j + 1 : i + 1;
    uint64_t m = cond_mask(b, w, j, w->r[4 + f->depth]); /* lanes done stay done */
    if (!m)
        return i + 1;
    w->r[4 + f->depth] = m;
    return j + 1;
}

/* One statement of the general interpreter (the cases kd_hot does not
 * cover): true when it gave an op. */
static __attribute__((noinline)) bool kd_step(const struct kd_bound *b, struct kernel_warp *w,
                                               struct kernel_op *op)
{
    const struct kd_prog *p = b->p;
    unsigned i = w->pc;
    const struct kd_stmt *s = &p->s[i];
    uint64_t outer = mask_at(w, s->depth);
    switch (s->kind) {
    case KD_S_MORE: /* only after its alu */
    case KD_S_OP:
        *op = s->op;
        if (s->n_param)
            op->n = b->b[i].n;
        if (s->rot)
            rotate(s, w, op);
        if (s->has_ox)
            operands(b, w, i, op);
        if (s->extra) {
            uint64_t m = cond_mask(b, w, i, outer);
            if (b->b[i].guard)
                w->r[4 + s->depth] = m;
            op->n += m ? clause_m(b, w, i) : 0;
        }
        for (unsigned j = i + 1; j <= i + s->nmore; j++)
            op->n += cond_mask(b, w, j, outer) ? clause_m(b, w, j) : 0;
        i += s->nmore;
        if (s->mem) {
            op->size = b->b[i].size;
            op->mask = s->depth ? outer : 0; /* 0: the warp's lanes, as outside any block */
            addresses(b, i, w, op);
            if (s->fallback)
                fallback_lanes(b, i, w, op);
        }
        w->pc = i + 1;
        return true;
    case KD_S_FOR:
        w->r[s->var - KD_M0] = 0;
        /* fall through */
    case KD_S_IF: {
        uint64_t m = b->b[i].guarded ? w->r[4 + s->depth] : cond_mask(b, w, i, outer);
        unsigned j = i + 1;
        for (; m && j < p->nstmt && p->s[j].kind == KD_S_AND; j++)
            m = cond_mask(b, w, j, m);
        w->r[4 + s->depth] = m;
        w->pc = m ? j : s->match + 1u;
        if (m && s->kind == KD_S_FOR && b->b[i].flat)
            w->r[s->var - KD_M0] = trips(b, w, i) << 32;
        return false;
    }
    case KD_S_AND: /* evaluated with its if */
        w->pc = i + 1;
        return false;
    default: /* KD_S_END */
        w->pc = p->s[s->match].kind == KD_S_FOR ? loop_end(b, w, i) : i + 1;
        return false;
    }
}

/* x at the warp's first lane. */
static inline int64_t lin_at(const struct kd_lin *x, const struct kernel_warp *w)
{
    if (x->one)
        return x->c + x->k[0] * w->wg_id.x + x->k[3] * (int64_t)(w->warp * w->warp_size) +
               x->k[4] * (uint32_t)w->r[0];
    return x->c + x->k[0] * w->wg_id.x + x->k[1] * w->wg_id.y + x->k[2] * w->wg_id.z +
           x->k[3] * (int64_t)(w->warp * w->warp_size) + x->k[4] * (uint32_t)w->r[0] +
           x->k[5] * (uint32_t)w->r[1] + x->k[6] * (uint32_t)w->r[2] +
           x->k[7] * (uint32_t)w->r[3];
}

/* run_below, with its common steps 0 and 1 first. */
static inline uint64_t lanes_below(int64_t d0, int64_t dk)
{
    if (dk == 1)
        return d0 >= 0 ? 0 : low_bits((uint64_t)-d0);
    if (dk == 0)
        return d0 < 0 ? ~0ull : 0;
    return run_below(d0, dk);
}

/* The lanes of an if (KD_H_IF, KD_H_IF2) among those of mask. */
static inline uint64_t hot_if(const struct kd_hot *h, const struct kernel_warp *w, uint64_t mask)
{
    uint64_t run = lanes_below(lin_at(&h->x, w), h->dk);
    if (h->two)
        run &= lanes_below(lin_at(&h->x2, w), h->dk2);
    return mask & run;
}

enum { HOT_OP, HOT_ON, HOT_SLOW };
#define KD_H_NO_LOOP 0xff

/* Statement pc of warp w if it is one of the common cases, with no call:
 * HOT_OP when it gave op, HOT_ON when the warp moved on to another
 * statement, HOT_SLOW when the statement needs more. */
static inline int hot_step(const struct kd_bound *b, struct kernel_warp *w, struct kernel_op *op)
{
    const struct kd_hot *h = &b->hot[w->pc];
    if (h->kind == KD_H_OP) { /* op comes zeroed: its fields before mask (after it, a
                                 description sets none but mask, base and stride) */
        memcpy(op, &h->op, offsetof(struct kernel_op, mask));
        w->pc = h->next;
        return HOT_OP;
    }
    if (h->kind == KD_H_MEM) {
        memcpy(op, &h->op, offsetof(struct kernel_op, mask));
        op->mask = h->depth ? w->r[3 + h->depth] : 0;
        op->base = (addr_t)lin_at(&h->x, w);
        op->stride = h->op.stride;
        w->pc = h->next;
        if (h->var != KD_H_NO_LOOP && (w->r[h->var] + 1) >> 32) { /* KD_H_END_FOR's */
            uint64_t r = ++w->r[h->var];
            w->pc = (uint32_t)r < r >> 32 ? h->out : b->hot[h->next].next;
        }
        return HOT_OP;
    }
    if (h->kind == KD_H_IF) { /* a - b moving by 0 or 1 per lane */
        int64_t d = lin_at(&h->x, w); /* lanes_below's steps 0 and 1, with no call */
        uint64_t run = h->dk ? (d >= 0 ? 0 : low_bits((uint64_t)-d)) : d < 0 ? ~0ull : 0;
        uint64_t m = mask_at(w, h->depth) & run;
        w->r[4 + h->depth] = m;
        w->pc = m ? h->next : h->out;
        return HOT_ON;
    }
    if (h->kind == KD_H_END_FOR && (w->r[h->var] + 1) >> 32) { /* a known trip count */
        uint64_t r = ++w->r[h->var];
        w->pc = (uint32_t)r < r >> 32 ? h->out : h->next;
        return HOT_ON;
    }
    if (h->kind == KD_H_END_IF) {
        w->pc = h->next;
        return HOT_ON;
    }
    return HOT_SLOW;
}

/* kd_next from a statement hot_step does not take. */
static __attribute__((noinline)) void kd_next_more(const struct kd_bound *b,
                                                    struct kernel_warp *w, struct kernel_op *op)
{
    for (;;) {
        unsigned i = w->pc;
        const struct kd_hot *h = &b->hot[i];
        if (h->kind == KD_H_IF2) {
            uint64_t m = hot_if(h, w, mask_at(w, h->depth));
            w->r[4 + h->depth] = m;
            w->pc = m ? h->next : h->out;
        } else if (h->kind == KD_H_END_FOR) {
            w->pc = loop_end(b, w, i);
        } else if (h->kind == KD_H_LANES) { /* addresses as addresses() gives them */
            uint64_t m = h->depth ? w->r[3 + h->depth] : 0;
            memcpy(op, &h->op, offsetof(struct kernel_op, mask));
            op->mask = m;
            lf_addresses(b, w, i, m ? m : low_bits(w->nlanes), h->base);
            w->pc = h->next;
            return;
        } else if (h->kind == KD_H_EXIT) {
            op->kind = KOP_EXIT;
            return;
        } else if (kd_step(b, w, op)) {
            return;
        }
        int r;
        while ((r = hot_step(b, w, op)) == HOT_ON)
            ;
        if (r == HOT_OP)
            return;
    }
}

/* The common statements (hot_step), without a call and so without saving
 * registers; the others through kd_next_more. */
static void kd_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    const struct kd_bound *b = k->ctx;
    for (;;) {
        int r = hot_step(b, w, op);
        if (r == HOT_OP)
            return;
        if (r == HOT_SLOW) {
            kd_next_more(b, w, op);
            return;
        }
    }
}

/* ---- ranges of a work-group ------------------------------------------------------------- */

/* Smallest and largest value of a over the box lo[v] .. hi[v]. */
static void affine_span(const struct kd_affine *a, const int64_t lo[KD_NDYN],
                        const int64_t hi[KD_NDYN], int64_t *mn, int64_t *mx)
{
    *mn = *mx = a->c;
    for (unsigned i = 0; i < a->nnz; i++) {
        unsigned v = a->nz[i];
        int64_t p = a->k[v] * lo[v], q = a->k[v] * hi[v];
        *mn += p < q ? p : q;
        *mx += p < q ? q : p;
    }
}

/* The ranges of one argument in one work-group, gathered statement by
 * statement in a range list (base/range.h). */
struct walk {
    const struct kd_bound *b;
    const struct kd_bix *x;    /* the statement's index */
    const struct kd_affine *a; /* its affine form (in ind, when it reads an array) */
    int64_t lo[KD_NDYN], hi[KD_NDYN];
    bool unknown[KD_NDYN];     /* variables whose values come from arrays */
    int64_t budget;            /* loop iterations left to enumerate */
    addr_t base, end;
    int64_t size, unit;
    struct range_list l;
    bool whole;
    const struct kd_bix *q;    /* the index's quotient, or NULL */
    bool q_on;                 /* lo, hi[KD_IND] hold its values */
    unsigned test;             /* the statement's first test (its KD_S_AND), or 0 */
    bool fails;                /* some lane of the work-group fails the test */
};

#define KD_RANGE_ITERATIONS 4096 /* loop iterations enumerated per statement */

static void emit(struct walk *w, addr_t lo, addr_t hi)
{
    range_list_add(&w->l, lo > w->base ? lo : w->base, hi < w->end ? hi : w->end);
}

/* The indices [*i0, *i1] of x's array that the box reads (clipped to the
 * array); false if none. */
static bool read_span(const struct walk *w, const struct kd_bix *x, int64_t *i0, int64_t *i1)
{
    affine_span(&x->inner, w->lo, w->hi, i0, i1);
    *i0 = *i0 > 0 ? *i0 : 0;
    *i1 = *i1 < (int64_t)x->arr->n - 1 ? *i1 : (int64_t)x->arr->n - 1;
    return *i0 <= *i1;
}

/* The statement's index where it reads an array (range_reads): a piece per
 * run of consecutive values read. */
static void emit_reads(struct walk *w, int64_t cap)
{
    const struct kd_array *arr = w->x->arr;
    int64_t i0, i1;
    if (!read_span(w, w->x, &i0, &i1))
        return;
    for (int64_t i = i0, j; i <= i1; i = j) {
        for (j = i + 1; j <= i1 && arr->v[j] == arr->v[j - 1] + 1; j++)
            ;
        int64_t mn, mx;
        w->lo[KD_IND] = arr->v[i];
        w->hi[KD_IND] = arr->v[j - 1];
        affine_span(w->a, w->lo, w->hi, &mn, &mx);
        mx = mx < cap ? mx : cap;
        if (mn <= mx)
            emit(w, w->base + (addr_t)(mn * w->unit), w->base + (addr_t)(mx * w->unit + w->size));
    }
    w->lo[KD_IND] = w->hi[KD_IND] = 0;
}

/* A condition a < b in which one variable v still spans values (a thread
 * index, a loop variable spanned) and every other is fixed narrows v to the
 * values that pass: v, with [*lo, *hi]; -2 if none passes; -1 if the
 * condition is not of that form. */
static int64_t narrow(const struct walk *w, const struct kd_affine *a, const struct kd_affine *b,
                      int64_t *lo, int64_t *hi)
{
    int64_t v = -1, rest = a->c - b->c, k = 0;
    for (unsigned i = 0; i < a->nnz + b->nnz; i++) { /* the variables of a, then b's others */
        unsigned u = i < a->nnz ? a->nz[i] : b->nz[i - a->nnz];
        int64_t d = a->k[u] - b->k[u];
        if (!d || (i >= a->nnz && a->k[u]))
            continue;
        if (w->lo[u] == w->hi[u] && !w->unknown[u]) {
            rest += d * w->lo[u];
        } else if (v < 0 && !w->unknown[u]) {
            v = u;
            k = d;
        } else {
            return -1;
        }
    }
    if (v < 0)
        return rest < 0 ? -1 : -2; /* fixed: all pass (nothing to narrow) or none */
    *lo = w->lo[v];
    *hi = w->hi[v];
    below_zero(rest, k, lo, hi);
    return *lo <= *hi ? v : -2;
}

/* Whether thread index v makes pieces of its own: the rows and planes of a
 * block (ty, tz), and lanes whose elements are not adjacent (tx with a
 * coefficient other than 1 or -1). */
static bool piecewise(const struct kd_affine *a, unsigned v)
{
    return v == KD_TX ? a->k[v] < -1 || a->k[v] > 1 : a->k[v] != 0;
}

/* Whether x reads the walk's quotient, now known (lo, hi[KD_IND]). */
static bool q_known(const struct walk *w, const struct kd_bix *x)
{
    return w->q_on && x->fn == KD_IX_DIV && x->inner.c == w->q->inner.c &&
           !memcmp(x->inner.k, w->q->inner.k, sizeof x->inner.k) &&
           x->inner2.c == w->q->inner2.c;
}

/* A variable narrowed by a condition, and its bounds before (v -1: none). */
struct narrowed {
    int64_t v, lo, hi;
};

/* Narrow the walk to where x < y (an if, or one half of A < B < C): an
 * index equal to x is clipped below y where y is the same across the
 * work-group (*cap), and a variable that still spans values narrowed (*n,
 * to undo with unnarrow). False, with nothing changed, if no lane of the
 * work-group passes. */
static bool cond_narrow(struct walk *w, const struct kd_bix *x, const struct kd_bix *y,
                        int64_t *cap, struct narrowed *n)
{
    n->v = -1;
    if ((reads(x) && !q_known(w, x)) || (reads(y) && !q_known(w, y)))
        return true;
    int64_t b0, b1, lo = 0, hi = 0;
    affine_span(&y->e, w->lo, w->hi, &b0, &b1);
    int64_t v = narrow(w, &x->e, &y->e, &lo, &hi);
    if (v == -2)
        return false;
    if (b0 == b1 && x->e.c == w->a->c && !memcmp(x->e.k, w->a->k, sizeof x->e.k) && b0 - 1 < *cap)
        *cap = b0 - 1;
    if (v >= 0) {
        *n = (struct narrowed){v, w->lo[v], w->hi[v]};
        w->lo[v] = lo;
        w->hi[v] = hi;
    }
    return true;
}

static void unnarrow(struct walk *w, const struct narrowed *n)
{
    if (n->v >= 0) {
        w->lo[n->v] = n->lo;
        w->hi[n->v] = n->hi;
    }
}

/* At the statement: thread indices span the block, its rows (and planes)
 * and its strided lanes one by one while the budget lasts. */
/* Whether v's values are pieces of their own (piecewise), through a min or
 * max too: its coefficient there is the outer one plus ind's times its own
 * in either argument. */
static bool pieces(const struct walk *w, unsigned v)
{
    if (piecewise(w->a, v) || !w->x->fn || w->x->fn == KD_IX_DIV)
        return piecewise(w->a, v);
    struct kd_affine k1 = {0}, k2 = {0};
    k1.k[v] = w->a->k[v] + w->a->k[KD_IND] * w->x->inner.k[v];
    k2.k[v] = w->a->k[v] + w->a->k[KD_IND] * w->x->inner2.k[v];
    return piecewise(&k1, v) || piecewise(&k2, v);
}

/* The span of a min or max, or a quotient, over the box, into lo,
 * hi[KD_IND]. */
static void minmax_span(struct walk *w)
{
    int64_t p0, p1, q0, q1;
    affine_span(&w->x->inner, w->lo, w->hi, &p0, &p1);
    affine_span(&w->x->inner2, w->lo, w->hi, &q0, &q1);
    if (w->x->fn == KD_IX_DIV) { /* nondecreasing in the dividend */
        w->lo[KD_IND] = floor_div(p0, q0);
        w->hi[KD_IND] = floor_div(p1, q0);
        return;
    }
    bool mn = w->x->fn == KD_IX_MIN;
    w->lo[KD_IND] = (p0 < q0) == mn ? p0 : q0;
    w->hi[KD_IND] = (p1 < q1) == mn ? p1 : q1;
}

/* Whether the statement's index uses a variable whose values the walk does
 * not know. */
static bool uses_unknown(const struct walk *w)
{
    const struct kd_affine *f[3] = {w->a, &w->x->inner, &w->x->inner2};
    for (unsigned j = 0; j < (w->x->fn ? 3u : 1u); j++)
        for (unsigned i = 0; i < f[j]->nnz; i++)
            if (w->unknown[f[j]->nz[i]])
                return true;
    return false;
}

/* Whether the pieces of v, one per value, would all merge in the range list
 * anyway (less than range_join apart): then v spans its values, and the
 * enumeration budget is kept for the loops and pieces that stay apart. */
static bool joined(const struct walk *w, unsigned v)
{
    int64_t lo[KD_NDYN], hi[KD_NDYN], mn, mx;
    if (w->x->fn || !w->l.join)
        return false;
    memcpy(lo, w->lo, sizeof lo);
    memcpy(hi, w->hi, sizeof hi);
    hi[v] = lo[v];
    affine_span(w->a, lo, hi, &mn, &mx);
    int64_t step = w->a->k[v] < 0 ? -w->a->k[v] : w->a->k[v];
    return step * w->unit - ((mx - mn) * w->unit + w->size) < (int64_t)w->l.join;
}

static void walk_leaf(struct walk *w, int64_t cap)
{
    w->whole |= uses_unknown(w);
    for (unsigned v = KD_TZ; v >= KD_TX && !w->whole; v--) {
        int64_t lo = w->lo[v], hi = w->hi[v];
        if (!pieces(w, v) || lo == hi || joined(w, v) || w->budget < hi - lo + 1)
            continue;
        w->budget -= hi - lo + 1;
        for (int64_t t = lo; t <= hi; t++) {
            w->lo[v] = w->hi[v] = t;
            walk_leaf(w, cap);
        }
        w->lo[v] = lo;
        w->hi[v] = hi;
        return;
    }
    if (w->x->fn && !(w->q_on && w->q == w->x))
        minmax_span(w);
    int64_t mn, mx;
    affine_span(w->a, w->lo, w->hi, &mn, &mx);
    mx = mx < cap ? mx : cap;
    if (!w->whole && mn <= mx)
        emit(w, w->base + (addr_t)(mn * w->unit), w->base + (addr_t)(mx * w->unit + w->size));
}

static void walk(struct walk *w, const uint16_t *encl, unsigned nb, int64_t cap);

/* The loop encl[0], its first value from f[0] to f[1] across the work-group,
 * its bound from f[5] to f[2], step f[3], f[4] iterations from f[0]:
 * enumerated while the budget lasts if no two iterations' values overlap
 * (one first value, or a step wider than their span) and the bound is the
 * same for the work-group, each iteration's values clipped at it; else its
 * variable spans first value to bound. */
static void walk_loop(struct walk *w, const uint16_t *encl, unsigned nb, int64_t cap,
                      const int64_t f[6])
{
    unsigned v = w->b->p->s[encl[0]].var;
    if (f[5] == f[2] && f[3] > f[1] - f[0] && w->budget >= f[4]) {
        w->budget -= f[4];
        for (int64_t k = 0; k < f[4]; k++) {
            w->lo[v] = f[0] + k * f[3];
            w->hi[v] = f[1] + k * f[3] < f[2] ? f[1] + k * f[3] : f[2] - 1;
            walk(w, encl + 1, nb - 1, cap);
        }
        return;
    }
    w->lo[v] = f[0];
    w->hi[v] = f[2] - 1;
    walk(w, encl + 1, nb - 1, cap);
}

/* The span of x over the walk's box into [*mn, *mx]. An array read at an
 * index that spans at most KD_RANGE_ITERATIONS elements, all in the array,
 * takes the smallest to the largest of them. False if x depends on a value
 * the walk does not know. */
static bool ix_span(const struct walk *w, const struct kd_bix *x, int64_t *mn, int64_t *mx)
{
    int64_t lo[KD_NDYN], hi[KD_NDYN];
    if (x->fn && x->fn != KD_IX_DIV) /* a min or max: not followed in loop bounds */
        return false;
    memcpy(lo, w->lo, sizeof lo);
    memcpy(hi, w->hi, sizeof hi);
    for (unsigned v = 0; v < KD_NDYN; v++)
        if (w->unknown[v] && ((x->e.k[v] && !(v == KD_IND && reads(x))) ||
                              (reads(x) && x->inner.k[v])))
            return false;
    if (x->fn) { /* a quotient: from its dividend's span */
        int64_t i0, i1;
        affine_span(&x->inner, w->lo, w->hi, &i0, &i1);
        lo[KD_IND] = floor_div(i0, x->inner2.c);
        hi[KD_IND] = floor_div(i1, x->inner2.c);
    }
    if (x->arr) {
        int64_t i0, i1;
        affine_span(&x->inner, w->lo, w->hi, &i0, &i1);
        if (i0 < 0 || (uint64_t)i1 >= x->arr->n || i1 - i0 >= KD_RANGE_ITERATIONS)
            return false;
        lo[KD_IND] = hi[KD_IND] = x->arr->v[i0];
        for (int64_t i = i0 + 1; i <= i1; i++) {
            lo[KD_IND] = x->arr->v[i] < lo[KD_IND] ? x->arr->v[i] : lo[KD_IND];
            hi[KD_IND] = x->arr->v[i] > hi[KD_IND] ? x->arr->v[i] : hi[KD_IND];
        }
    }
    affine_span(&x->e, lo, hi, mn, mx);
    return true;
}

/* At the statement of a description with range_reads, an index that reads
 * an array at an index with one value in the walk (block indices,
 * enumerated loops) reads that element: ind is known; at an index that
 * spans values (thread indices, loops spanned), each run of consecutive
 * values read is a piece. */
static void walk_read(struct walk *w, int64_t cap)
{
    const struct kd_bix *x = w->x;
    int64_t mn, mx;
    affine_span(&x->inner, w->lo, w->hi, &mn, &mx);
    bool known = mn == mx && mn >= 0 && (uint64_t)mn < x->arr->n, fixed = true;
    for (unsigned v = 0; v < KD_NDYN; v++) {
        known &= !(w->unknown[v] && x->inner.k[v]);
        fixed &= v == KD_IND || !(w->unknown[v] && (x->inner.k[v] || x->e.k[v]));
    }
    if (!known && fixed) {
        emit_reads(w, cap);
        return;
    }
    if (known) {
        w->unknown[KD_IND] = false;
        w->lo[KD_IND] = w->hi[KD_IND] = x->arr->v[mn];
    }
    walk_leaf(w, cap);
    w->unknown[KD_IND] = true;
    w->lo[KD_IND] = w->hi[KD_IND] = 0;
}

static void walk(struct walk *w, const uint16_t *encl, unsigned nb, int64_t cap);

/* Whether x < y in every lane of the walk's box (not if either reads what
 * the walk does not know). */
static bool holds(const struct walk *w, const struct kd_bix *x, const struct kd_bix *y)
{
    if ((reads(x) && !q_known(w, x)) || (reads(y) && !q_known(w, y)))
        return false;
    struct kd_affine d = x->e;
    d.c -= y->e.c;
    for (unsigned v = 0; v < KD_NDYN; v++) {
        d.k[v] -= y->e.k[v];
        if (d.k[v] && w->unknown[v])
            return false;
    }
    kd_affine_terms(&d);
    int64_t mn, mx;
    affine_span(&d, w->lo, w->hi, &mn, &mx);
    return mx < 0;
}

/* Whether the walk's quotient can be split before the blocks encl[0..nb):
 * none of them is a loop over a variable of its dividend, which holds no
 * variable but thread indices that still spans values. */
static bool q_ready(const struct walk *w, const uint16_t *encl, unsigned nb)
{
    for (unsigned j = 0; j < nb; j++)
        if (w->b->p->s[encl[j]].kind == KD_S_FOR && w->q->inner.k[w->b->p->s[encl[j]].var])
            return false;
    for (unsigned v = 0; v < KD_NDYN; v++)
        if (w->q->inner.k[v] && (v < KD_TX || v > KD_TZ) &&
            (w->lo[v] != w->hi[v] || w->unknown[v]))
            return false;
    return true;
}

/* The walk with the quotient's values at lo, hi[KD_IND] [q0, q1]. */
static void q_walk(struct walk *w, const uint16_t *encl, unsigned nb, int64_t cap, int64_t q0,
                   int64_t q1)
{
    bool unknown = w->unknown[KD_IND];
    w->q_on = true;
    w->unknown[KD_IND] = false;
    w->lo[KD_IND] = q0;
    w->hi[KD_IND] = q1;
    walk(w, encl, nb, cap);
    w->q_on = false;
    w->unknown[KD_IND] = unknown;
    w->lo[KD_IND] = w->hi[KD_IND] = 0;
}

/* Each value q of the quotient floor(N / D) with thread index col (-1:
 * none), the one that still spans values in N, narrowed to where N / D = q. */
static void q_values(struct walk *w, const uint16_t *encl, unsigned nb, int64_t cap, int col)
{
    const struct kd_affine *n = &w->q->inner;
    int64_t d = w->q->inner2.c, n0, n1;
    affine_span(n, w->lo, w->hi, &n0, &n1);
    int64_t q0 = floor_div(n0, d), q1 = floor_div(n1, d);
    if (col < 0 || w->budget < q1 - q0 + 1) {
        q_walk(w, encl, nb, cap, q0, q1);
        return;
    }
    w->budget -= q1 - q0 + 1;
    int64_t lo = w->lo[col], hi = w->hi[col], k = n->k[col], rest = n0 - (k > 0 ? k * lo : k * hi);
    for (int64_t q = q0; q <= q1; q++) {
        int64_t a = lo, b = hi; /* q d <= rest + k t < (q + 1) d */
        below_zero(q * d - rest - 1, -k, &a, &b);
        below_zero(rest - (q + 1) * d, k, &a, &b);
        if (a > b)
            continue;
        w->lo[col] = a;
        w->hi[col] = b;
        q_walk(w, encl, nb, cap, q, q);
    }
    w->lo[col] = lo;
    w->hi[col] = hi;
}

/* Split the walk at the index's quotient floor(N / D): the thread indices
 * in N enumerated but the one of least step (col), then each value of the
 * quotient (the rows of a flat tile element); while the budget lasts, else
 * the quotient spans its values. */
static void q_split(struct walk *w, const uint16_t *encl, unsigned nb, int64_t cap)
{
    const struct kd_affine *n = &w->q->inner;
    int col = -1;
    for (unsigned v = KD_TX; v <= KD_TZ; v++)
        if (n->k[v] && w->lo[v] < w->hi[v] &&
            (col < 0 || llabs(n->k[v]) < llabs(n->k[col])))
            col = (int)v;
    for (unsigned v = KD_TZ; v >= KD_TX; v--) {
        int64_t lo = w->lo[v], hi = w->hi[v];
        if ((int)v == col || !n->k[v] || lo == hi)
            continue;
        if (w->budget < hi - lo + 1) {
            q_values(w, encl, nb, cap, -1);
            return;
        }
        w->budget -= hi - lo + 1;
        for (int64_t t = lo; t <= hi; t++) {
            w->lo[v] = w->hi[v] = t;
            q_split(w, encl, nb, cap);
        }
        w->lo[v] = lo;
        w->hi[v] = hi;
        return;
    }
    q_values(w, encl, nb, cap, col);
}

/* Condition j of an if that encloses the statement (the if itself, then its
 * further conditions, KD_S_AND): it narrows the one index that still spans
 * values, or skips the walk if no lane passes; `if I < B` with B the same
 * for the whole work-group clips an index equal to I (cap). */
static void walk_if(struct walk *w, unsigned j, const uint16_t *encl, unsigned nb, int64_t cap)
{
    const struct kd_stmt *s = &w->b->p->s[j];
    const struct kd_bix *x = &w->b->b[j].a, *y = &w->b->b[j].b;
    struct narrowed n1, n2 = {.v = -1};
    if (w->test && j >= w->test)
        w->fails |= !holds(w, x, y) || (s->two && !holds(w, y, &w->b->b[j].c));
    if (cond_narrow(w, x, y, &cap, &n1) &&
        (!s->two || cond_narrow(w, y, &w->b->b[j].c, &cap, &n2))) {
        if (j + 1 < w->b->p->nstmt && w->b->p->s[j + 1].kind == KD_S_AND)
            walk_if(w, j + 1, encl, nb, cap);
        else
            walk(w, encl + 1, nb - 1, cap);
    }
    unnarrow(w, &n2);
    unnarrow(w, &n1);
}

/* Walk the enclosing blocks encl[0..nb) of a statement, outermost first:
 * a loop with the same bounds for the whole work-group is enumerated (while
 * the budget lasts), any other spans its bounds (bounds read from an array:
 * from the least to the greatest the work-group reads); an if narrows or
 * clips (walk_if). At the statement, thread indices span the block. */
static void walk(struct walk *w, const uint16_t *encl, unsigned nb, int64_t cap)
{
    if (w->q && !w->q_on && q_ready(w, encl, nb)) {
        q_split(w, encl, nb, cap);
        return;
    }
    if (!nb) {
        if (w->x->arr && w->b->p->d->range_reads)
            walk_read(w, cap);
        else
            walk_leaf(w, cap);
        return;
    }
    const struct kd_stmt *s = &w->b->p->s[encl[0]];
    if (s->kind == KD_S_IF || s->kind == KD_S_AND) { /* an if, or a statement's test */
        walk_if(w, encl[0], encl, nb, cap);
        return;
    }
    const struct kd_bix *x = &w->b->b[encl[0]].a, *y = &w->b->b[encl[0]].b;
    unsigned v = s->var;
    int64_t lo = w->lo[v], hi = w->hi[v], a0, a1, b0, b1;
    if (!ix_span(w, x, &a0, &a1) || !ix_span(w, y, &b0, &b1)) {
        w->unknown[v] = true;
        walk(w, encl + 1, nb - 1, cap);
        w->unknown[v] = false;
    } else if (a0 < b1) {
        int64_t step = w->b->b[encl[0]].step, n = (b1 - a0 + step - 1) / step;
        walk_loop(w, encl, nb, cap, (int64_t[]){a0, a1, b1, step, n, b0});
    }
    w->lo[v] = lo;
    w->hi[v] = hi;
}

static unsigned derive_ranges(const struct kd_bound *b, uint32_t wg, unsigned arg,
                              struct addr_range *out, unsigned max);

/* What the work-group's statements on the argument touch, within the
 * buffer: sorted and merged ranges (their span if more than max); one empty
 * range at the base if nothing; 0 (the whole structure) if an index reads
 * an array. */
static unsigned kd_ranges(const struct kernel *k, uint32_t wg, unsigned arg,
                          struct addr_range *out, unsigned max)
{
    const struct kd_bound *b = k->ctx;
    if (arg >= b->p->nbufs || max != KERNEL_MAX_RANGES)
        return derive_ranges(b, wg, arg, out, max);
    struct kd_memo *m = &b->memo[arg];
    if (!m->at) {
        uint32_t nwg = b->grid.x * b->grid.y * b->grid.z;
        m->at = xcalloc(nwg, sizeof *m->at);
        m->n = xcalloc(nwg, sizeof *m->n);
    }
    if (!m->at[wg]) {
        m->r = xgrow(m->r, sizeof *m->r, &m->cap, m->nr + KERNEL_MAX_RANGES);
        m->n[wg] = (uint8_t)derive_ranges(b, wg, arg, &m->r[m->nr], max);
        m->at[wg] = (uint32_t)(m->nr + 1);
        m->nr += m->n[wg];
    }
    memcpy(out, &m->r[m->at[wg] - 1], m->n[wg] * sizeof *out);
    return m->n[wg];
}

/* The quotient of statement i's index x, else of its test's, or NULL. */
static const struct kd_bix *quotient_of(const struct kd_bound *b, unsigned i,
                                        const struct kd_bix *x)
{
    if (x->fn == KD_IX_DIV || x != &b->b[i].a)
        return x->fn == KD_IX_DIV ? x : NULL;
    for (unsigned j = i + 1; j < b->p->nstmt && b->p->s[j].kind == KD_S_AND; j++)
        for (const struct kd_bix *y = &b->b[j].a; y <= &b->b[j].c; y++)
            if (y->fn == KD_IX_DIV)
                return y;
    return NULL;
}

/* The walk of statement i's index x from work-group wg's box. */
static void walk_start(struct walk *w, uint32_t wg, unsigned i, const struct kd_bix *x)
{
    const struct kd_bound *b = w->b;
    memset(w->lo, 0, sizeof w->lo);
    memset(w->hi, 0, sizeof w->hi);
    w->lo[KD_BX] = w->hi[KD_BX] = wg % b->grid.x;
    w->lo[KD_BY] = w->hi[KD_BY] = wg / b->grid.x % b->grid.y;
    w->lo[KD_BZ] = w->hi[KD_BZ] = wg / (b->grid.x * b->grid.y);
    if (b->wgi) {
        w->lo[KD_WG0] = w->hi[KD_WG0] = b->wgi->v[wg];
        w->lo[KD_WG1] = w->hi[KD_WG1] = b->wgi->v[wg + 1];
    }
    w->hi[KD_TX] = b->block.x - 1;
    w->hi[KD_TY] = b->block.y - 1;
    w->hi[KD_TZ] = b->block.z - 1;
    w->budget = KD_RANGE_ITERATIONS;
    w->x = x;
    w->a = &x->e;
    w->unknown[KD_IND] = !x->fn; /* a min or max spans what its arguments do */
    w->q = quotient_of(b, i, x);
    w->q_on = false;
    w->size = b->b[i].size;
    w->unit = b->b[i].unit;
}

static unsigned derive_ranges(const struct kd_bound *b, uint32_t wg, unsigned arg,
                              struct addr_range *out, unsigned max)
{
    const struct kd_prog *p = b->p;
    if (arg >= p->nbufs || max < 1 || p->whole[arg])
        return 0;
    const struct kernel_buf *buf = b->bufs[arg];
    struct walk w = {.b = b, .base = buf->base, .end = buf->base + buf->size};
    range_list_init(&w.l, out, max,
                    p->join_param >= 0 ? (addr_t)b->params[p->join_param] : p->d->range_join);
    for (unsigned i = 0; i < p->nstmt && !w.whole; i++) {
        const struct kd_stmt *s = &p->s[i];
        if (s->buf != (int)arg)
            continue;
        walk_start(&w, wg, i, &b->b[i].a);
        if (!s->fallback) {
            walk(&w, s->encl, s->depth, INT64_MAX);
            continue;
        }
        uint16_t encl[KD_MAX_DEPTH + 1]; /* the test, the innermost condition */
        memcpy(encl, s->encl, sizeof s->encl);
        encl[s->depth] = (uint16_t)(i + 1);
        w.test = i + 1;
        w.fails = false;
        walk(&w, encl, s->depth + 1u, INT64_MAX);
        w.test = 0;
        if (w.fails) { /* the fallback index, where some lane may take it */
            walk_start(&w, wg, i, &b->b[i].b);
            walk(&w, s->encl, s->depth, INT64_MAX);
        }
    }
    return w.whole ? 0 : range_list_done(&w.l, buf->base);
}

/* ---- launches -------------------------------------------------------------------------------- */

static int bind_ix(struct kd_bound *b, const struct kd_ix *x, const struct kd_launch *l,
                   struct kd_bix *out, struct err *e)
{
    out->arr = x->arr >= 0 ? &b->arrays[x->arr] : NULL;
    out->fn = x->arr < -1 ? x->arr : 0;
    if (kd_bind(&x->e, l, &out->e, e) || (x->arr != -1 && kd_bind(&x->inner, l, &out->inner, e)))
        return -1;
    if (out->fn && kd_bind(&x->inner2, l, &out->inner2, e))
        return -1;
    if (out->fn == KD_IX_DIV && (out->inner2.nnz || out->inner2.c < 1))
        return err_set(e, "a divisor of %lld: a positive value, the same in every thread, "
                          "expected", (long long)out->inner2.c);
    return 0;
}

static bool uniform_loop(const struct kd_bound *b, unsigned j, bool row);

/* Whether x, inside statement i's loops, has the same value in every lane
 * of a row of the block (row; of the warp in a 1D block) or of the warp:
 * no thread index (but ty and tz along a row), only loop variables that
 * are, and an array read (or a min or max) at such indices. part: x's
 * index (0), its array read's or min's first argument (1), the second (2). */
static bool uniform(const struct kd_bound *b, unsigned i, const struct kd_bix *x, unsigned part,
                    bool row)
{
    const struct kd_affine *a = part == 0 ? &x->e : part == 1 ? &x->inner : &x->inner2;
    if (a->k[KD_TX] || (!row && (a->k[KD_TY] || a->k[KD_TZ])))
        return false;
    if (a->k[KD_IND] &&
        (part || !uniform(b, i, x, 1, row) || (x->fn && !uniform(b, i, x, 2, row))))
        return false;
    const struct kd_stmt *s = &b->p->s[i];
    for (unsigned k = 0; k < s->nloops; k++)
        if (a->k[b->p->s[s->loops[k]].var] && !uniform_loop(b, s->loops[k], row))
            return false;
    return true;
}

/* Whether loop j's variable is the same in every lane of a row (of the warp). */
static bool uniform_loop(const struct kd_bound *b, unsigned j, bool row)
{
    return uniform(b, j, &b->b[j].a, 0, row);
}

/* Whether x moves by a fixed step from lane to lane of a row of the block:
 * x less its tx term the same in every lane of a row. */
/* Whether x's array index moves by a fixed step from lane to lane: a 1D
 * block, and no variable but the block and thread indices in it. */
static bool flat_inner(const struct kd_bound *b, const struct kd_bix *x)
{
    for (unsigned v = KD_TY; v < KD_NDYN && x->arr; v++)
        if (v != KD_TX && x->inner.k[v])
            return false;
    return x->arr && b->block.y == 1 && b->block.z == 1;
}

static bool linear(const struct kd_bound *b, unsigned i, const struct kd_bix *x)
{
    struct kd_bix y = *x;
    y.e.k[KD_TX] = 0;
    kd_affine_terms(&y.e);
    return uniform(b, i, &y, 0, true);
}

/* Whether x has the same value in every lane of the warp, in any block. */
static bool flat(const struct kd_bound *b, unsigned i, const struct kd_bix *x)
{
    return uniform(b, i, x, 0, false);
}

/* Whether statement i's expressions (a memory access's index; a condition's
 * or loop's a, b and c) move by a fixed step along a row, and whether they
 * are the same in every lane of the warp. */
/* Whether statement i is a gather (kd_bstmt.gather). */
static bool gathers(const struct kd_bound *b, unsigned i, const struct kd_bstmt *bs)
{
    const struct kd_stmt *s = &b->p->s[i];
    struct kd_bix rest = {.e = bs->a.e}, index = {.e = bs->a.inner};
    rest.e.k[KD_IND] = 0;
    kd_affine_terms(&rest.e);
    return s->kind != KD_S_END && !s->two && bs->a.arr && !bs->b.arr && !bs->linear &&
           b->block.y == 1 && b->block.z == 1 && linear(b, i, &rest) && linear(b, i, &index) &&
           linear(b, i, &bs->b);
}

static void bind_shape(const struct kd_bound *b, unsigned i, struct kd_bstmt *bs)
{
    const struct kd_stmt *s = &b->p->s[i];
    const struct kd_bix *x[3] = {&bs->a, &bs->b, &bs->c};
    unsigned n = s->kind == KD_S_END ? 0 : s->mem ? 1 : s->two ? 3 : 2;
    bs->linear = bs->flat = n > 0;
    for (unsigned j = 0; j < n; j++) {
        bs->linear = bs->linear && linear(b, i, x[j]);
        bs->flat = bs->flat && flat(b, i, x[j]);
    }
    struct kd_bix y = bs->a;
    for (unsigned t = 0; t < 3; t++) {
        bs->k[t] = y.e.k[KD_TX + t];
        y.e.k[KD_TX + t] = 0;
    }
    kd_affine_terms(&y.e);
    bs->split = s->mem && (b->block.y > 1 || b->block.z > 1) && !bs->flat &&
                uniform(b, i, &y, false, false);
}

/* k * f added to *a. */
static void affine_add(struct kd_affine *a, int64_t k, const struct kd_affine *f)
{
    a->c += k * f->c;
    for (unsigned v = 0; v < KD_NDYN; v++)
        a->k[v] += k * f->k[v];
}

/* e (no array element in it) of statement i as an affine form of the block
 * and thread indices and the iterations so far of the enclosing loops (each
 * in its variable's slot): every loop variable replaced by its loop's first
 * value, composed so too, plus its iterations times its step. The same
 * value, with fewer steps to evaluate. A loop whose first value reads an
 * array gives the form's kg * garr[gi] (at most one such loop). False where
 * a first value it needs cannot be so written. */
static bool compose_lf(const struct kd_bound *b, unsigned i, const struct kd_affine *e,
                       struct kd_lf1 *out)
{
    const struct kd_stmt *s = &b->p->s[i];
    *out = (struct kd_lf1){.a = *e};
    for (unsigned v = KD_M0; v <= KD_M3; v++)
        out->a.k[v] = 0;
    for (unsigned j = 0; j < s->nloops; j++) {
        const struct kd_bstmt *f = &b->b[s->loops[j]];
        unsigned var = b->p->s[s->loops[j]].var;
        int64_t k = e->k[var];
        if (!k)
            continue;
        if (f->fx_ok) {
            affine_add(&out->a, k, &f->fx);
        } else if (f->gx_ok && !out->garr) {
            affine_add(&out->a, k, &f->grest);
            out->kg = k * f->gc;
            out->gi = f->gin;
            out->garr = f->a.arr;
        } else {
            return false;
        }
        out->a.k[var] += k * f->step;
    }
    kd_affine_terms(&out->a);
    return true;
}

/* x of statement i composed (compose_lf) with no array read. */
static bool compose(const struct kd_bound *b, unsigned i, const struct kd_bix *x,
                    struct kd_affine *out)
{
    struct kd_lf1 f;
    if (reads(x) || !compose_lf(b, i, &x->e, &f) || f.garr)
        return false;
    *out = f.a;
    return true;
}

/* x of statement i at each lane (kd_lform); false if it cannot be so written. */
static bool lform_of(const struct kd_bound *b, unsigned i, const struct kd_bix *x,
                     struct kd_lform *out)
{
    struct kd_affine rest = x->e;
    *out = (struct kd_lform){.arr = x->arr, .ki = x->e.k[KD_IND]};
    rest.k[KD_IND] = 0;
    kd_affine_terms(&rest);
    if (x->fn || !compose_lf(b, i, &rest, &out->v))
        return false;
    return !x->arr || compose_lf(b, i, &x->inner, &out->in);
}

/* a - b into *d. */
static void affine_sub(const struct kd_affine *a, const struct kd_affine *b, struct kd_affine *d)
{
    d->c = a->c - b->c;
    for (unsigned v = 0; v < KD_NDYN; v++)
        d->k[v] = a->k[v] - b->k[v];
    kd_affine_terms(d);
}

/* A loop whose first value reads an array (kd_bstmt.gx_ok). */
static void bind_gather_first(const struct kd_bound *b, unsigned i, struct kd_bstmt *bs)
{
    struct kd_lform f;
    bs->gx_ok = bs->a.arr && lform_of(b, i, &bs->a, &f) && !f.v.garr && !f.in.garr;
    if (!bs->gx_ok)
        return;
    bs->gc = f.ki;
    bs->grest = f.v.a;
    bs->gin = f.in.a;
}

/* f's shape (kd_lform.g, gi, kg, shape). */
static void lf_shape(struct kd_lform *f)
{
    bool one = (!f->arr || !f->in.garr) && (!f->v.garr || !f->arr);
    f->g = f->arr && !f->in.garr ? f->arr : f->v.garr ? f->v.garr : f->in.garr;
    f->gi = f->g == f->arr ? &f->in.a : f->g == f->v.garr ? &f->v.gi : &f->in.gi;
    f->kg = f->g == f->arr ? f->ki : f->g == f->v.garr ? f->v.kg : f->in.kg;
    f->shape = one ? LF_ONE : f->v.garr || f->in.a.k[KD_TX] ? LF_ANY : LF_TWO;
}

/* Statement i's lane forms (kd_bstmt.lf) of its index or its condition's
 * sides, if every one can be so written. */
static void bind_lforms(const struct kd_bound *b, unsigned i, struct kd_bstmt *bs)
{
    const struct kd_stmt *s = &b->p->s[i];
    const struct kd_bix *x[3] = {&bs->a, &bs->b, &bs->c};
    unsigned n = s->mem ? 1 : s->two ? 3 : 2;
    struct kd_lform f[3];
    if (s->kind == KD_S_OP && !s->mem && !s->extra)
        return;
    for (unsigned j = 0; j < n; j++)
        if (!lform_of(b, i, x[j], &f[j]))
            return;
    bs->lf = xcalloc(n, sizeof *bs->lf);
    memcpy(bs->lf, f, n * sizeof *f);
    for (unsigned j = 0; j < n; j++)
        lf_shape(&bs->lf[j]);
}

static bool affine_eq(const struct kd_affine *x, const struct kd_affine *y)
{
    return x->c == y->c && !memcmp(x->k, y->k, sizeof x->k);
}

static bool bix_eq(const struct kd_bix *x, const struct kd_bix *y)
{
    return x->arr == y->arr && x->fn == y->fn && affine_eq(&x->e, &y->e) &&
           affine_eq(&x->inner, &y->inner) && affine_eq(&x->inner2, &y->inner2);
}

/* Loop i right after an alu clause that tests its own bounds, or if i
 * (whose test is not a run of lanes, KD_H_IF) right after one that makes
 * its own test (kd_bstmt.guard). */
static void bind_guard(struct kd_bound *b, unsigned i)
{
    const struct kd_stmt *f = &b->p->s[i], *g = i ? &b->p->s[i - 1] : NULL;
    bool test = f->kind == KD_S_FOR || (f->kind == KD_S_IF && !f->two && !b->b[i].fast);
    if (!test || !g || g->kind != KD_S_OP || g->mem || !g->extra || g->nmore ||
        g->depth != f->depth || !bix_eq(&b->b[i - 1].a, &b->b[i].a) ||
        !bix_eq(&b->b[i - 1].b, &b->b[i].b))
        return;
    b->b[i - 1].guard = b->b[i].guarded = true;
}

/* Statement i's composed forms (kd_bstmt.fx, fd, fd2). */
static void bind_composed(const struct kd_bound *b, unsigned i, struct kd_bstmt *bs)
{
    const struct kd_stmt *s = &b->p->s[i];
    struct kd_affine y, z;
    if (s->kind == KD_S_END)
        return;
    bs->fx_ok = compose(b, i, &bs->a, &bs->fx);
    if (s->kind == KD_S_FOR && !bs->fx_ok)
        bind_gather_first(b, i, bs);
    if (b->block.y == 1 && b->block.z == 1 && !bs->linear && !bs->gather)
        bind_lforms(b, i, bs);
    if (s->mem) {
        bs->fast = bs->fx_ok;
        return;
    }
    bs->fast = bs->fx_ok && compose(b, i, &bs->b, &y) && (!s->two || compose(b, i, &bs->c, &z));
    if (!bs->fast)
        return;
    affine_sub(&bs->fx, &y, &bs->fd);
    if (s->kind == KD_S_FOR) {
        bs->fd.k[s->var] += bs->step;
        kd_affine_terms(&bs->fd);
    }
    if (s->two)
        affine_sub(&y, &z, &bs->fd2);
}

/* f as a form of the warp's first lane (kd_lin), times scale plus off;
 * false when it needs the thread indices of a 2D or 3D block, or a chunk's
 * bounds (wg0, wg1). */
static bool lin_of(const struct kd_bound *b, const struct kd_affine *f, int64_t scale,
                   int64_t off, struct kd_lin *x)
{
    bool one_row = b->block.y == 1 && b->block.z == 1;
    if ((!one_row && (f->k[KD_TX] || f->k[KD_TY] || f->k[KD_TZ])) || f->k[KD_WG0] ||
        f->k[KD_WG1])
        return false;
    int64_t k[8] = {f->k[KD_BX], f->k[KD_BY], f->k[KD_BZ], one_row ? f->k[KD_TX] : 0,
                    f->k[KD_M0], f->k[KD_M1], f->k[KD_M2], f->k[KD_M3]};
    *x = (struct kd_lin){.c = off + f->c * scale, .one = !k[1] && !k[2] && !k[5] && !k[6] &&
                                                          !k[7]};
    for (unsigned j = 0; j < 8; j++)
        x->k[j] = k[j] * scale;
    return true;
}

/* Statement j, or the first after it that is not the `end` of an if. */
static uint16_t past_end_ifs(const struct kd_prog *p, unsigned j)
{
    while (j < p->nstmt && p->s[j].kind == KD_S_END && p->s[p->s[j].match].kind == KD_S_IF)
        j++;
    return (uint16_t)j;
}

/* Statement i's kd_hot: KD_H_SLOW unless it is one of the common cases. */
static void bind_hot(const struct kd_bound *b, unsigned i, struct kd_hot *h)
{
    const struct kd_stmt *s = &b->p->s[i];
    const struct kd_bstmt *bs = &b->b[i];
    bool plain = !s->rot && !s->has_ox && !s->extra && !s->nmore && !s->fallback;
    *h = (struct kd_hot){.kind = KD_H_SLOW, .depth = s->depth, .op = s->op, .two = s->two,
                         .next = past_end_ifs(b->p, i + 1)};
    if (s->kind == KD_S_END) {
        const struct kd_stmt *f = &b->p->s[s->match];
        h->kind = f->kind == KD_S_FOR ? KD_H_END_FOR : KD_H_END_IF;
        h->var = f->kind == KD_S_FOR ? (uint8_t)(f->var - KD_M0) : 0;
        h->out = (uint16_t)(s->match + 1);
    } else if (s->kind == KD_S_OP && plain && !s->mem) {
        h->kind = KD_H_OP;
        h->op.n = bs->n;
    } else if (s->kind == KD_S_OP && plain && bs->fast && bs->linear &&
               (bs->flat || (b->block.y == 1 && b->block.z == 1))) {
        addr_t base = s->buf >= 0 ? b->bufs[s->buf]->base : 0;
        h->op.n = bs->n;
        h->op.size = bs->size;
        h->op.stride = bs->a.e.k[KD_TX] * bs->unit;
        h->kind = lin_of(b, &bs->fx, bs->unit, (int64_t)base, &h->x) ? KD_H_MEM : KD_H_SLOW;
    } else if (s->kind == KD_S_OP && plain && s->mem && bs->lf) {
        h->kind = KD_H_LANES;
        h->op.n = bs->n;
        h->op.size = bs->size;
        h->op.lanes = true;
        h->base = s->buf >= 0 ? b->bufs[s->buf]->base : 0;
    } else if (s->kind == KD_S_IF && bs->fast &&
               (i + 1 >= b->p->nstmt || b->p->s[i + 1].kind != KD_S_AND)) {
        h->out = past_end_ifs(b->p, s->match + 1u);
        h->dk = b->block.y == 1 && b->block.z == 1 ? bs->fd.k[KD_TX] : 0;
        h->dk2 = b->block.y == 1 && b->block.z == 1 ? bs->fd2.k[KD_TX] : 0;
        bool ok = lin_of(b, &bs->fd, 1, 0, &h->x) && (!s->two || lin_of(b, &bs->fd2, 1, 0, &h->x2));
        bool simple = !s->two && (h->dk == 0 || h->dk == 1);
        h->kind = !ok ? KD_H_SLOW : simple ? KD_H_IF : KD_H_IF2;
    }
}

/* A loop's step at this launch: fixed for the launch, 1 or more. */
/* The values a binding fixes for its launch: grid and block dimensions,
 * parameters. */
static void launch_values(const struct kd_bound *b, struct kd_launch *l)
{
    *l = (struct kd_launch){0};
    l->v[KD_GDX] = b->grid.x;
    l->v[KD_GDY] = b->grid.y;
    l->v[KD_GDZ] = b->grid.z;
    l->v[KD_BDX] = b->block.x;
    l->v[KD_BDY] = b->block.y;
    l->v[KD_BDZ] = b->block.z;
    for (unsigned i = 0; i < b->p->nparams; i++)
        l->v[KD_P0 + i] = b->params[i];
}

static int bind_step(const struct kd_prog *p, unsigned i, const struct kd_launch *l,
                     struct kd_bstmt *bs, struct err *e)
{
    struct kd_affine a = {.c = 1};
    if (p->s[i].stepped && kd_bind(&p->s[i].step, l, &a, e))
        return -1;
    if (a.nnz || a.c < 1)
        return err_set(e, "kernel %s, statement %u: step %lld: a positive value, the same in "
                          "every thread, expected", p->d->name, i + 1, (long long)a.c);
    bs->step = a.c;
    return 0;
}

/* Statement i's size and count (alu N, spin N) at this launch. */
static int bind_counts(struct kd_bound *b, unsigned i, struct err *e)
{
    const struct kd_prog *p = b->p;
    const struct kd_stmt *s = &p->s[i];
    int64_t size = s->size_param ? b->params[s->size_param - 1] : s->op.size;
    if (s->mem && !size_ok(size))
        return err_set(e, "kernel %s, statement %u: size %lld: 1, 2, 4, 8 or 16 bytes expected",
                       p->d->name, i + 1, (long long)size);
    b->b[i].size = (uint8_t)size;
    int64_t n = s->n_param ? b->params[s->n_param - 1] : s->op.n;
    bool alu = s->kind == KD_S_OP && s->op.kind == KOP_ALU && !s->ox[KD_OX_N];
    if (n < alu || n > UINT32_MAX)
        return err_set(e, "kernel %s, statement %u: count %lld: %s expected", p->d->name, i + 1,
                       (long long)n, alu ? "1 or more" : "0 or more");
    b->b[i].n = (uint32_t)n;
    return 0;
}

static int bind(struct kd_bound *b, struct err *e)
{
    const struct kd_prog *p = b->p;
    struct kd_launch l;
    launch_values(b, &l);
    b->wgi = p->wg_arr >= 0 ? &b->arrays[p->wg_arr] : NULL;
    b->b = xcalloc(p->nstmt, sizeof *b->b);
    b->ox = xcalloc(p->nox ? p->nox : 1, sizeof *b->ox);
    for (unsigned i = 0; i < p->nox; i++)
        if (bind_ix(b, &p->ox[i], &l, &b->ox[i], e))
            return err_prefix(e, "kernel %s, operand %u", p->d->name, i + 1);
    for (unsigned i = 0; i < p->nstmt; i++) {
        const struct kd_stmt *s = &p->s[i];
        if (s->kind != KD_S_END &&
            (bind_ix(b, &s->a, &l, &b->b[i].a, e) || bind_ix(b, &s->b, &l, &b->b[i].b, e) ||
             (s->two && bind_ix(b, &s->c, &l, &b->b[i].c, e))))
            return err_prefix(e, "kernel %s, statement %u", p->d->name, i + 1);
        if (bind_step(p, i, &l, &b->b[i], e))
            return -1;
    }
    for (unsigned i = 0; i < p->nstmt; i++) {
        const struct kd_stmt *s = &p->s[i];
        struct kd_bstmt *bs = &b->b[i];
        if (bind_counts(b, i, e))
            return -1;
        bs->unit = s->unit ? s->unit : bs->size;
        bind_shape(b, i, bs);
        bs->dk = bs->a.e.k[KD_TX] - bs->b.e.k[KD_TX];
        bs->dk2 = bs->b.e.k[KD_TX] - bs->c.e.k[KD_TX];
        bs->flat_inner[0] = flat_inner(b, &bs->a);
        bs->flat_inner[1] = flat_inner(b, &bs->b);
        bs->flat_inner[2] = flat_inner(b, &bs->c);
        bs->gather = gathers(b, i, bs);
        if (!p->d->general_only) {
            bind_composed(b, i, bs);
            bind_guard(b, i);
        }
    }
    b->hot = xcalloc(p->nstmt + 1, sizeof *b->hot); /* KD_H_SLOW */
    for (unsigned i = 0; i < p->nstmt && !p->d->general_only; i++)
        bind_hot(b, i, &b->hot[i]);
    b->hot[p->nstmt].kind = KD_H_EXIT;
    for (unsigned i = 0; i < p->nstmt; i++) { /* a memory access that ends a loop */
        struct kd_hot *h = &b->hot[i], *end = &b->hot[h->next];
        if (h->kind != KD_H_MEM)
            continue;
        h->var = end->kind == KD_H_END_FOR ? end->var : KD_H_NO_LOOP;
        h->out = end->out;
    }
    return 0;
}

static struct kd_bound *find_launch(const struct kd_prog *p, const struct kd_bound *want)
{
    for (size_t i = 0; i < p->nlaunch; i++) {
        const struct kd_bound *b = p->launch[i];
        if (!memcmp(&b->grid, &want->grid, sizeof b->grid) &&
            !memcmp(&b->block, &want->block, sizeof b->block) &&
            !memcmp(b->params, want->params, sizeof b->params) &&
            !memcmp(b->bufs, want->bufs, sizeof b->bufs) &&
            !memcmp(b->arrays, want->arrays, sizeof b->arrays))
            return p->launch[i];
    }
    return NULL;
}

/* Keep binding b for later identical launches: in a new slot while there
 * are fewer than KD_MAX_LAUNCHES, else in place of the oldest. */
static void keep_launch(struct kd_prog *p, struct kd_bound *b)
{
    if (p->nlaunch < KD_MAX_LAUNCHES) {
        p->launch = xgrow(p->launch, sizeof *p->launch, &p->launch_cap, p->nlaunch + 1);
        p->launch[p->nlaunch++] = b;
        return;
    }
    struct kd_bound **old = &p->launch[p->oldest];
    bound_free(*old);
    *old = b;
    p->oldest = (p->oldest + 1) % KD_MAX_LAUNCHES;
}

static void buf_locality(const struct kd_bound *b, unsigned buf, struct sched_locality *out);

int kd_launch(struct kd_prog *p, struct kernel *k, struct kernel_dim grid, struct kernel_dim block,
              const int64_t *params, const struct kernel_buf *const *bufs,
              const struct kd_array *arrays, struct err *e)
{
    struct kd_bound want = {.p = p, .grid = grid, .block = block};
    memcpy(want.params, params, p->nparams * sizeof *params);
    memcpy(want.bufs, bufs, p->nbufs * sizeof *bufs);
    if (p->narrays && !arrays)
        BUG("kernel %s: launched without its arrays", p->d->name);
    if (p->narrays)
        memcpy(want.arrays, arrays, p->narrays * sizeof *arrays);
    uint64_t nwg = (uint64_t)grid.x * grid.y * grid.z;
    if (p->wg_arr >= 0 && arrays[p->wg_arr].n < nwg + 1)
        return err_set(e, "kernel %s: wg_items '%s' has %llu entries, %llu work-groups need "
                          "%llu", p->d->name, p->d->wg_items,
                       (unsigned long long)arrays[p->wg_arr].n, (unsigned long long)nwg,
                       (unsigned long long)nwg + 1);
    struct kd_bound *b = find_launch(p, &want);
    if (!b) {
        b = xcalloc(1, sizeof *b);
        *b = want;
        b->memo = xcalloc(p->nbufs ? p->nbufs : 1, sizeof *b->memo);
        if (bind(b, e)) {
            bound_free(b);
            return -1;
        }
        for (unsigned i = 0; i < p->nbufs; i++)
            buf_locality(b, i, &b->loc[i]);
        keep_launch(p, b);
    } else if (p->narrays && !p->d->arrays_fixed) {
        memo_clear(b);
    }
    *k = (struct kernel){.grid = grid, .block = block, .next = kd_next, .ranges = kd_ranges,
                         .ctx = b};
    snprintf(k->name, sizeof k->name, "%s", p->d->name);
    for (unsigned i = 0; i < p->nbufs; i++)
        k->args[k->nargs++] = (struct kernel_arg){
            .buf = bufs[i], .mode = p->writes[i] ? KERNEL_RW : KERNEL_R, .loc = b->loc[i]};
    return 0;
}

/* ---- locality (spec ladm.md 5) ---------------------------------------------------------- */

const struct kd_prog *kd_kernel_prog(const struct kernel *k)
{
    return k->next == kd_next ? ((const struct kd_bound *)k->ctx)->p : NULL;
}

/* Whether t is `ind` alone (coefficient 1). */
static bool ind_alone(const struct kd_mono *t)
{
    for (unsigned v = 0; v < KD_NVARS; v++)
        if (t->pow[v] != (v == KD_IND))
            return false;
    return t->c == 1;
}

/* Spec ladm.md 4: intra-thread locality also walks "data-dependent, irregular"
 * datablocks. An index A[i] + f, with i's loop-variant group m alone (a table
 * read at the loop's own variable: a datablock's start per iteration) and f
 * free of m and holding a thread index (the thread's place in that
 * datablock): each thread walks its element of each irregular datablock.
 * Parboil's SpMV-jds reads d_data[jds_ptr[k] + ix], which Table 3.4 has ITL.
 * A gather at the value alone (x[col[m]]) keeps no place per thread: it stays
 * data-dependent. [INF: the rule behind Table 3.4's SpMV-jds row.] */
static bool irregular_walk(const struct kd_ix *ix, enum kd_var m)
{
    struct kd_class in;
    if (ix->arr < 0 || kd_has(&ix->e, m))
        return false;
    kd_classify(&ix->inner, m, false, &in);
    if (in.loc != SCHED_LOC_ITL)
        return false;
    unsigned reads = 0;
    bool place = false;
    for (unsigned i = 0; i < ix->e.n; i++) {
        const struct kd_mono *t = &ix->e.m[i];
        if (t->pow[KD_IND] && !ind_alone(t))
            return false; /* the value scaled or multiplied: not a datablock's start */
        reads += t->pow[KD_IND] != 0;
        place = place || t->pow[KD_TX] || t->pow[KD_TY] || t->pow[KD_TZ];
    }
    return reads == 1 && place;
}

/* ix's index with a min or max clamp taken as its unclamped argument (a
 * stencil's edge); false, and the index as written, when that is too large
 * to expand. */
static bool unclamped(const struct kd_ix *ix, struct kd_poly *e)
{
    struct err er;
    *e = ix->e;
    bool clamp = ix->arr == KD_IX_MIN || ix->arr == KD_IX_MAX;
    if (clamp && kd_subst_ind(&ix->e, &ix->inner, e, &er)) {
        *e = ix->e;
        return false;
    }
    return true;
}

/* The class of one access's index ix, m its outermost loop's variable. */
static void ix_class(const struct kd_ix *ix, enum kd_var m, bool grid_2d, struct kd_class *out)
{
    struct kd_poly e;
    unclamped(ix, &e); /* too large to expand: left data-dependent */
    if (irregular_walk(ix, m)) {
        *out = (struct kd_class){.loc = SCHED_LOC_ITL};
        return;
    }
    kd_classify(&e, m, grid_2d, out);
}

unsigned kd_buf_class(const struct kd_prog *p, unsigned buf, bool grid_2d, struct kd_class *out)
{
    *out = (struct kd_class){.loc = SCHED_LOC_UNCL};
    unsigned n = 0, depth = 0;
    bool agree = true;
    for (unsigned i = 0; i < p->nstmt; i++) {
        const struct kd_stmt *s = &p->s[i];
        if (s->kind != KD_S_OP || !s->mem || s->buf != (int)buf)
            continue;
        enum kd_var m = s->nloops ? (enum kd_var)p->s[s->loops[0]].var : KD_M0;
        struct kd_class c;
        ix_class(&s->a, m, grid_2d, &c);
        if (!n++ || s->nloops > depth) {
            *out = c;
            out->stmt = i;
            depth = s->nloops;
            agree = true;
        } else if (s->nloops == depth) {
            agree = agree && c.loc == out->loc;
        }
    }
    if (!agree)
        *out = (struct kd_class){.loc = SCHED_LOC_UNCL};
    return n;
}

/* p bound to launch b; false when it is not affine there. */
static bool bind_at(const struct kd_bound *b, const struct kd_poly *p, struct kd_affine *a)
{
    struct kd_launch l;
    launch_values(b, &l);
    struct err e;
    return !kd_bind(p, &l, a, &e);
}

/* Spec ladm.md 3: buffer buf's row of the locality table at launch b (its
 * class on this grid, its element size, stride and row width in bytes, and
 * the distance between consecutive work-groups' datablocks); all zero when
 * the description never names it. From the index of its first deciding
 * access: the row width is its coefficient of ty (one row per thread row),
 * else that of by over the block's rows; the datablock distance (spec 4: a
 * datablock's size follows from the element size, the block and the index
 * terms) is the coefficient of bx on a 1D grid, that of by over gx on a 2D
 * one (a row of work-groups covers by's step), 0 where the index has none;
 * the offset, its constant term (the index of thread 0 of work-group 0 in
 * the first iteration). */
static void buf_locality(const struct kd_bound *b, unsigned buf, struct sched_locality *out)
{
    *out = (struct sched_locality){0};
    struct kd_class c;
    if (!kd_buf_class(b->p, buf, b->grid.y > 1, &c))
        return;
    int64_t unit = b->b[c.stmt].unit;
    out->loc = (uint8_t)c.loc;
    out->elem_b = (uint8_t)unit;
    struct kd_affine a;
    if (c.stride.n && bind_at(b, &c.stride, &a) && !a.nnz)
        out->stride_b = a.c * unit;
    struct kd_poly e;
    if (!unclamped(&b->p->s[c.stmt].a, &e) || !bind_at(b, &e, &a))
        return;
    int64_t by = llabs(a.k[KD_BY]), rows = b->block.y;
    out->row_b = (a.k[KD_TY] ? llabs(a.k[KD_TY]) : by % rows ? 0 : by / rows) * unit;
    int64_t step = b->grid.y > 1 ? (by % b->grid.x ? 0 : by / b->grid.x) : llabs(a.k[KD_BX]);
    out->block_b = step * unit;
    out->offset_b = a.c * unit;
}
