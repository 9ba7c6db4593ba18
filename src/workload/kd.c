/*
 * kd.c -- see kd.h. The parser runs once per workload, the binder once per
 * distinct launch; the interpreter (kd_next) allocates nothing.
 *
 * Warp state: pc is the statement; r[0..3] hold the loop variables m0..m3;
 * r[4..7] the active lanes inside the enclosing if or for at depths 1..4.
 */
#include "kd.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kd_bstmt {
    struct kd_affine a, b;
};

struct kd_bound {
    const struct kd_prog *p;
    struct kernel_dim grid, block;
    int64_t params[KD_MAX_PARAMS];
    const struct kernel_buf *bufs[KD_MAX_BUFS];
    struct kd_bstmt *b; /* [nstmt] */
};

/* ---- parsing ---------------------------------------------------------------------- */

struct line {
    const struct kd_desc *d;
    unsigned no;     /* line number in the body, from 1 */
    char text[512];  /* the line, comment removed */
    char *at;        /* parse position */
    struct err *e;
};

static int line_err(struct line *ln, const char *fmt, const char *arg)
{
    char msg[ERR_MSG_MAX];
    snprintf(msg, sizeof msg, fmt, arg);
    return err_set(ln->e, "kernel %s, line %u: %s", ln->d->name, ln->no, msg);
}

static char *word(struct line *ln)
{
    while (isspace((unsigned char)*ln->at))
        ln->at++;
    if (!*ln->at)
        return NULL;
    char *w = ln->at;
    while (*ln->at && !isspace((unsigned char)*ln->at))
        ln->at++;
    if (*ln->at)
        *ln->at++ = '\0';
    return w;
}

static int poly(struct line *ln, const char *text, struct kd_poly *out)
{
    const char *const *pp = ln->d->params;
    unsigned n = 0;
    while (pp && pp[n])
        n++;
    struct err e = {0};
    if (kd_parse(text, pp, n, out, &e))
        return line_err(ln, "%s", e.msg);
    return 0;
}

/* "rN" (1..63) into *r. */
static int reg(struct line *ln, const char *w, uint8_t *r)
{
    char *end;
    long v = w && w[0] == 'r' ? strtol(w + 1, &end, 10) : 0;
    if (!w || w[0] != 'r' || *end || v < 1 || v > 63)
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

/* The rest of an operation: [lat L] [-> rD] [< rA ...] [SCOPE SEM]. */
static int op_tail(struct line *ln, struct kernel_op *op)
{
    unsigned nsrc = 0;
    bool srcs = false;
    for (char *w; (w = word(ln));) {
        if (!strcmp(w, "->")) {
            srcs = false;
            if (reg(ln, word(ln), &op->dst))
                return -1;
        } else if (!strcmp(w, "<")) {
            srcs = true;
        } else if (!strcmp(w, "lat")) {
            char *v = word(ln), *end;
            long l = v ? strtol(v, &end, 10) : -1;
            if (!v || *end || l < 0 || l > 65535)
                return line_err(ln, "lat '%s': not a latency in cycles", v ? v : "");
            op->lat = (uint16_t)l;
        } else if (srcs && w[0] == 'r' && isdigit((unsigned char)w[1])) {
            uint8_t r;
            if (reg(ln, w, &r))
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

static int buf_index(struct line *ln, const char *name, size_t len)
{
    for (unsigned i = 0; ln->d->bufs && ln->d->bufs[i]; i++)
        if (strlen(ln->d->bufs[i]) == len && !strncmp(ln->d->bufs[i], name, len))
            return (int)i;
    char n[64];
    snprintf(n, sizeof n, "%.*s", (int)(len < 63 ? len : 63), name);
    return line_err(ln, "unknown buffer '%s'", n);
}

/* BUF[EXPR] SIZE, then the operation's tail. */
static int mem_stmt(struct line *ln, struct kd_stmt *s, uint8_t kind)
{
    s->op.kind = kind;
    while (isspace((unsigned char)*ln->at))
        ln->at++;
    char *open = strchr(ln->at, '['), *close = open ? strrchr(open, ']') : NULL;
    if (!open || !close)
        return line_err(ln, "'%s': BUF[INDEX] expected", ln->at);
    int b = buf_index(ln, ln->at, (size_t)(open - ln->at));
    if (b < 0)
        return -1;
    s->buf = (int8_t)b;
    *close = '\0';
    if (poly(ln, open + 1, &s->a))
        return -1;
    ln->at = close + 1;
    char *sz = word(ln), *end;
    long size = sz ? strtol(sz, &end, 10) : 0;
    if (!sz || *end || (size != 1 && size != 2 && size != 4 && size != 8 && size != 16))
        return line_err(ln, "size '%s': 1, 2, 4, 8 or 16 bytes expected", sz ? sz : "");
    s->op.size = (uint8_t)size;
    return op_tail(ln, &s->op);
}

/* "mK = LO .. HI" */
static int for_stmt(struct line *ln, struct kd_stmt *s)
{
    char *v = word(ln), *eq = word(ln);
    if (!v || v[0] != 'm' || v[1] < '0' || v[1] > '3' || v[2] || !eq || strcmp(eq, "="))
        return line_err(ln, "'%s': for mK = FROM .. TO expected (K 0..3)", v ? v : "");
    s->var = (uint8_t)(KD_M0 + v[1] - '0');
    char *dots = strstr(ln->at, "..");
    if (!dots)
        return line_err(ln, "'%s': FROM .. TO expected", ln->at);
    *dots = '\0';
    return poly(ln, ln->at, &s->a) ? -1 : poly(ln, dots + 2, &s->b);
}

static int if_stmt(struct line *ln, struct kd_stmt *s)
{
    char *lt = strchr(ln->at, '<');
    if (!lt)
        return line_err(ln, "'%s': if A < B expected", ln->at);
    *lt = '\0';
    return poly(ln, ln->at, &s->a) ? -1 : poly(ln, lt + 1, &s->b);
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

static int alu_stmt(struct line *ln, struct kd_stmt *s)
{
    char *n = word(ln), *end;
    long v = n ? strtol(n, &end, 10) : 0;
    if (!n || *end || v < 1 || v > 1000000)
        return line_err(ln, "alu '%s': an instruction count 1..1000000 expected", n ? n : "");
    s->op.kind = KOP_ALU;
    s->op.n = (uint32_t)v;
    return op_tail(ln, &s->op);
}

static int statement(struct line *ln, struct kd_stmt *s)
{
    char *w = word(ln);
    s->buf = -1;
    s->kind = KD_S_OP;
    static const struct {
        const char *name;
        uint8_t kop;
    } mem[] = {{"load", KOP_LOAD}, {"store", KOP_STORE}, {"atomic", KOP_ATOMIC}};
    for (unsigned i = 0; i < 3; i++)
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

/* Link ifs and loops to their ends and set depths and sites. */
static int structure(struct kd_prog *p, struct line *ln, const unsigned *line_of)
{
    unsigned stack[KD_MAX_DEPTH], depth = 0;
    for (unsigned i = 0; i < p->nstmt; i++) {
        struct kd_stmt *s = &p->s[i];
        ln->no = line_of[i];
        if (s->kind == KD_S_END) {
            if (!depth)
                return line_err(ln, "%s", "'end' without an if or a for");
            s->match = (uint16_t)stack[--depth];
            p->s[s->match].match = (uint16_t)i;
        }
        s->depth = (uint8_t)depth;
        if (s->kind == KD_S_IF || s->kind == KD_S_FOR) {
            if (depth == KD_MAX_DEPTH)
                return line_err(ln, "more than %s ifs and loops nested", "4");
            stack[depth++] = i;
        }
        if (s->buf >= 0) {
            s->site = (uint16_t)p->nsites++;
            p->writes[s->buf] |= s->op.kind != KOP_LOAD;
        }
    }
    if (depth) {
        ln->no = line_of[stack[depth - 1]];
        return line_err(ln, "%s", "no 'end' for this block");
    }
    return 0;
}

struct kd_prog *kd_compile(const struct kd_desc *d, struct err *e)
{
    struct kd_prog *p = xcalloc(1, sizeof *p);
    p->d = d;
    while (d->params && d->params[p->nparams])
        p->nparams++;
    while (d->bufs && d->bufs[p->nbufs])
        p->nbufs++;
    if (p->nparams > KD_MAX_PARAMS || p->nbufs > KD_MAX_BUFS) {
        err_set(e, "kernel %s: more than %d parameters or %d buffers", d->name, KD_MAX_PARAMS,
                KD_MAX_BUFS);
        kd_prog_free(p);
        return NULL;
    }
    size_t cap = 0;
    unsigned *line_of = NULL;
    size_t lcap = 0;
    struct line ln = {.d = d, .e = e};
    for (const char *at = d->body; at && *at;) {
        const char *nl = strchr(at, '\n');
        size_t len = nl ? (size_t)(nl - at) : strlen(at);
        ln.no++;
        snprintf(ln.text, sizeof ln.text, "%.*s", (int)len, at);
        at += len + (nl != NULL);
        char *hash = strchr(ln.text, '#');
        if (hash)
            *hash = '\0';
        ln.at = ln.text;
        while (isspace((unsigned char)*ln.at))
            ln.at++;
        if (!*ln.at)
            continue;
        p->s = xgrow(p->s, sizeof *p->s, &cap, p->nstmt + 1);
        line_of = xgrow(line_of, sizeof *line_of, &lcap, p->nstmt + 1);
        struct kd_stmt *s = &p->s[p->nstmt];
        *s = (struct kd_stmt){0};
        line_of[p->nstmt++] = ln.no;
        if (statement(&ln, s)) {
            free(line_of);
            kd_prog_free(p);
            return NULL;
        }
    }
    int rc = structure(p, &ln, line_of);
    free(line_of);
    if (rc) {
        kd_prog_free(p);
        return NULL;
    }
    return p;
}

void kd_prog_free(struct kd_prog *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->nlaunch; i++) {
        free(p->launch[i]->b);
        free(p->launch[i]);
    }
    free(p->launch);
    free(p->s);
    free(p);
}

/* ---- the interpreter ------------------------------------------------------------------- */

static inline uint64_t lanes(unsigned n) { return n >= 64 ? ~0ull : (1ull << n) - 1; }

static inline uint64_t mask_at(const struct kernel_warp *w, unsigned depth)
{
    return depth ? w->r[3 + depth] : lanes(w->nlanes);
}

/* The warp's variables (block indices and loop variables; thread indices 0). */
static void warp_vars(const struct kernel_warp *w, int64_t x[KD_NDYN])
{
    memset(x, 0, KD_NDYN * sizeof *x);
    x[KD_BX] = w->wg_id.x;
    x[KD_BY] = w->wg_id.y;
    x[KD_BZ] = w->wg_id.z;
    for (unsigned k = 0; k < 4; k++)
        x[KD_M0 + k] = (int64_t)w->r[k];
}

static inline void lane_tid(const struct kd_bound *b, uint32_t tid, int64_t x[KD_NDYN])
{
    x[KD_TX] = tid % b->block.x;
    x[KD_TY] = tid / b->block.x % b->block.y;
    x[KD_TZ] = tid / (b->block.x * b->block.y);
}

/* Lanes of mask where a < b. */
static uint64_t cond_mask(const struct kd_bound *b, const struct kernel_warp *w,
                          const struct kd_bstmt *bs, uint64_t mask)
{
    int64_t x[KD_NDYN];
    warp_vars(w, x);
    uint64_t out = 0;
    for (uint64_t m = mask; m; m &= m - 1) {
        unsigned l = (unsigned)__builtin_ctzll(m);
        lane_tid(b, w->warp * w->warp_size + l, x);
        if (kd_eval(&bs->a, x) < kd_eval(&bs->b, x))
            out |= 1ull << l;
    }
    return out;
}

/* The addresses of a memory statement: base + lane * stride where the index
 * moves by a fixed step from lane to lane (a 1D block), else per lane. */
static void addresses(const struct kd_bound *b, const struct kd_stmt *s,
                      const struct kd_bstmt *bs, struct kernel_warp *w, struct kernel_op *op)
{
    int64_t x[KD_NDYN];
    warp_vars(w, x);
    addr_t base = b->bufs[s->buf]->base;
    int64_t size = s->op.size;
    if (b->block.y == 1 && b->block.z == 1) {
        lane_tid(b, w->warp * w->warp_size, x);
        op->base = base + (addr_t)(kd_eval(&bs->a, x) * size);
        op->stride = bs->a.k[KD_TX] * size;
        return;
    }
    op->lanes = true;
    for (uint64_t m = op->mask; m; m &= m - 1) {
        unsigned l = (unsigned)__builtin_ctzll(m);
        lane_tid(b, w->warp * w->warp_size + l, x);
        w->lane_addr[l] = base + (addr_t)(kd_eval(&bs->a, x) * size);
    }
}

static void kd_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    const struct kd_bound *b = k->ctx;
    const struct kd_prog *p = b->p;
    for (;;) {
        if (w->pc >= p->nstmt) {
            op->kind = KOP_EXIT;
            return;
        }
        const struct kd_stmt *s = &p->s[w->pc];
        const struct kd_bstmt *bs = &b->b[w->pc];
        uint64_t outer = mask_at(w, s->depth);
        int64_t x[KD_NDYN];
        switch (s->kind) {
        case KD_S_OP:
            *op = s->op;
            if (s->buf >= 0) {
                op->mask = outer;
                addresses(b, s, bs, w, op);
            }
            w->pc++;
            return;
        case KD_S_IF: {
            uint64_t m = cond_mask(b, w, bs, outer);
            w->r[4 + s->depth] = m;
            w->pc = m ? w->pc + 1 : s->match + 1u;
            continue;
        }
        case KD_S_FOR: {
            warp_vars(w, x);
            int64_t from = kd_eval(&bs->a, x);
            w->r[s->var - KD_M0] = (uint64_t)from;
            w->r[4 + s->depth] = outer; /* the same bounds for every lane */
            w->pc = from < kd_eval(&bs->b, x) ? w->pc + 1 : s->match + 1u;
            continue;
        }
        case KD_S_END:
            if (p->s[s->match].kind == KD_S_FOR) {
                const struct kd_stmt *f = &p->s[s->match];
                w->r[f->var - KD_M0]++;
                warp_vars(w, x);
                if (x[f->var] < kd_eval(&b->b[s->match].b, x)) {
                    w->pc = s->match + 1u;
                    continue;
                }
            }
            w->pc++;
            continue;
        }
    }
}

/* ---- ranges of a work-group ------------------------------------------------------------- */

/* Smallest and largest value of a over the box lo[v] .. hi[v]. */
static void affine_span(const struct kd_affine *a, const int64_t lo[KD_NDYN],
                        const int64_t hi[KD_NDYN], int64_t *mn, int64_t *mx)
{
    *mn = *mx = a->c;
    for (unsigned v = 0; v < KD_NDYN; v++) {
        int64_t p = a->k[v] * lo[v], q = a->k[v] * hi[v];
        *mn += p < q ? p : q;
        *mx += p < q ? q : p;
    }
}

static bool same_affine(const struct kd_affine *a, const struct kd_affine *b)
{
    return !memcmp(a, b, sizeof *a);
}

/* The elements one statement touches in work-group wg: [*mn, *mx]; false if
 * none. The loops' variables span their bounds (outer ones first); an
 * enclosing `if I < B` with B the same for the whole work-group clips an
 * index equal to I. */
static bool stmt_span(const struct kd_bound *b, unsigned i, const struct kernel_dim *wg,
                      int64_t *mn, int64_t *mx)
{
    const struct kd_prog *p = b->p;
    int64_t lo[KD_NDYN] = {0}, hi[KD_NDYN] = {0};
    lo[KD_BX] = hi[KD_BX] = wg->x;
    lo[KD_BY] = hi[KD_BY] = wg->y;
    lo[KD_BZ] = hi[KD_BZ] = wg->z;
    hi[KD_TX] = b->block.x - 1;
    hi[KD_TY] = b->block.y - 1;
    hi[KD_TZ] = b->block.z - 1;
    int64_t cap = INT64_MAX;
    for (unsigned j = 0; j < i; j++) { /* the enclosing blocks, outermost first */
        const struct kd_stmt *s = &p->s[j];
        if ((s->kind != KD_S_IF && s->kind != KD_S_FOR) || s->match < i)
            continue;
        int64_t a0, a1, b0, b1;
        affine_span(&b->b[j].a, lo, hi, &a0, &a1);
        affine_span(&b->b[j].b, lo, hi, &b0, &b1);
        if (s->kind == KD_S_FOR) {
            if (a0 >= b1)
                return false;
            lo[s->var] = a0;
            hi[s->var] = b1 - 1;
        } else if (b0 == b1 && same_affine(&b->b[j].a, &b->b[i].a)) {
            cap = b0 - 1 < cap ? b0 - 1 : cap;
        }
    }
    affine_span(&b->b[i].a, lo, hi, mn, mx);
    *mx = *mx < cap ? *mx : cap;
    return *mn <= *mx;
}

/* The hull of what the work-group's statements on the argument touch,
 * within the buffer; one empty range at the base if nothing. */
static unsigned kd_ranges(const struct kernel *k, uint32_t wg, unsigned arg,
                          struct kernel_range *out, unsigned max)
{
    const struct kd_bound *b = k->ctx;
    const struct kd_prog *p = b->p;
    if (arg >= p->nbufs || max < 1)
        return 0;
    struct kernel_dim id = {wg % b->grid.x, wg / b->grid.x % b->grid.y,
                            wg / (b->grid.x * b->grid.y)};
    const struct kernel_buf *buf = b->bufs[arg];
    addr_t lo = buf->base + buf->size, hi = buf->base;
    for (unsigned i = 0; i < p->nstmt; i++) {
        const struct kd_stmt *s = &p->s[i];
        int64_t mn, mx;
        if (s->buf != (int)arg || !stmt_span(b, i, &id, &mn, &mx))
            continue;
        if (b->b[i].a.k[KD_IND])
            return 0; /* data-dependent: the whole structure */
        int64_t size = s->op.size;
        addr_t a = buf->base + (addr_t)(mn > 0 ? mn * size : 0);
        addr_t z = buf->base + (addr_t)((mx + 1) * size);
        lo = a < lo ? a : lo;
        hi = z > hi ? z : hi;
    }
    hi = hi < buf->base + buf->size ? hi : buf->base + buf->size;
    out[0] = lo < hi ? (struct kernel_range){lo, hi} : (struct kernel_range){buf->base, buf->base};
    return 1;
}

/* ---- launches -------------------------------------------------------------------------------- */

static int bind(struct kd_bound *b, struct err *e)
{
    const struct kd_prog *p = b->p;
    struct kd_launch l = {0};
    l.v[KD_GDX] = b->grid.x;
    l.v[KD_GDY] = b->grid.y;
    l.v[KD_GDZ] = b->grid.z;
    l.v[KD_BDX] = b->block.x;
    l.v[KD_BDY] = b->block.y;
    l.v[KD_BDZ] = b->block.z;
    for (unsigned i = 0; i < p->nparams; i++)
        l.v[KD_P0 + i] = b->params[i];
    b->b = xcalloc(p->nstmt, sizeof *b->b);
    for (unsigned i = 0; i < p->nstmt; i++) {
        const struct kd_stmt *s = &p->s[i];
        if ((s->kind != KD_S_OP || s->buf >= 0) && s->kind != KD_S_END &&
            (kd_bind(&s->a, &l, &b->b[i].a, e) || kd_bind(&s->b, &l, &b->b[i].b, e)))
            return err_prefix(e, "kernel %s, statement %u", p->d->name, i + 1);
        static const enum kd_var per_lane[] = {KD_TX, KD_TY, KD_TZ, KD_IND};
        for (unsigned v = 0; s->kind == KD_S_FOR && v < 4; v++)
            if (b->b[i].a.k[per_lane[v]] || b->b[i].b.k[per_lane[v]])
                return err_set(e, "kernel %s, statement %u: loop bounds differ between lanes",
                               p->d->name, i + 1);
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
            !memcmp(b->bufs, want->bufs, sizeof b->bufs))
            return p->launch[i];
    }
    return NULL;
}

int kd_launch(struct kd_prog *p, struct kernel *k, struct kernel_dim grid, struct kernel_dim block,
              const int64_t *params, const struct kernel_buf *const *bufs, struct err *e)
{
    struct kd_bound want = {.p = p, .grid = grid, .block = block};
    memcpy(want.params, params, p->nparams * sizeof *params);
    memcpy(want.bufs, bufs, p->nbufs * sizeof *bufs);
    struct kd_bound *b = find_launch(p, &want);
    if (!b) {
        b = xcalloc(1, sizeof *b);
        *b = want;
        if (bind(b, e)) {
            free(b->b);
            free(b);
            return -1;
        }
        p->launch = xgrow(p->launch, sizeof *p->launch, &p->launch_cap, p->nlaunch + 1);
        p->launch[p->nlaunch++] = b;
    }
    *k = (struct kernel){.grid = grid, .block = block, .next = kd_next, .ranges = kd_ranges,
                         .ctx = b};
    snprintf(k->name, sizeof k->name, "%s", p->d->name);
    for (unsigned i = 0; i < p->nbufs; i++)
        k->args[k->nargs++] =
            (struct kernel_arg){.buf = bufs[i], .mode = p->writes[i] ? KERNEL_RW : KERNEL_R};
    return 0;
}
