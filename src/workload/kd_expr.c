/*
 * kd_expr.c -- see kd_expr.h.
 */
#include "kd_expr.h"

#include <ctype.h>
#include <string.h>

static const char *const var_name[KD_P0] = {
    [KD_BX] = "bx",   [KD_BY] = "by",   [KD_BZ] = "bz",   [KD_WG0] = "wg0", [KD_WG1] = "wg1",
    [KD_TX] = "tx",   [KD_TY] = "ty",   [KD_TZ] = "tz",   [KD_M0] = "m0",   [KD_M1] = "m1",
    [KD_M2] = "m2",   [KD_M3] = "m3",   [KD_IND] = "ind", [KD_GDX] = "gdx", [KD_GDY] = "gdy",
    [KD_GDZ] = "gdz", [KD_BDX] = "bdx", [KD_BDY] = "bdy", [KD_BDZ] = "bdz",
};

/* ---- polynomials ---------------------------------------------------------------- */

static int find_mono(const struct kd_poly *p, const uint8_t pow[KD_NVARS])
{
    for (unsigned i = 0; i < p->n; i++)
        if (!memcmp(p->m[i].pow, pow, KD_NVARS))
            return (int)i;
    return -1;
}

/* p += c * (monomial of powers pow). */
static int add_mono(struct kd_poly *p, int64_t c, const uint8_t pow[KD_NVARS], struct err *e)
{
    if (!c)
        return 0;
    int i = find_mono(p, pow);
    if (i < 0) {
        if (p->n == KD_MAX_MONO)
            return err_set(e, "more than %d terms once expanded", KD_MAX_MONO);
        p->m[p->n].c = c;
        memcpy(p->m[p->n].pow, pow, KD_NVARS);
        p->n++;
        return 0;
    }
    if (__builtin_add_overflow(p->m[i].c, c, &p->m[i].c))
        return err_set(e, "a coefficient overflows 64 bits");
    if (!p->m[i].c) /* cancelled: drop it */
        p->m[i] = p->m[--p->n];
    return 0;
}

static int poly_add(struct kd_poly *d, const struct kd_poly *s, int sign, struct err *e)
{
    for (unsigned i = 0; i < s->n; i++)
        if (add_mono(d, sign * s->m[i].c, s->m[i].pow, e))
            return -1;
    return 0;
}

static int poly_mul(const struct kd_poly *a, const struct kd_poly *b, struct kd_poly *out,
                    struct err *e)
{
    struct kd_poly r = {.n = 0};
    for (unsigned i = 0; i < a->n; i++)
        for (unsigned j = 0; j < b->n; j++) {
            int64_t c;
            if (__builtin_mul_overflow(a->m[i].c, b->m[j].c, &c))
                return err_set(e, "a coefficient overflows 64 bits");
            uint8_t pow[KD_NVARS];
            for (unsigned v = 0; v < KD_NVARS; v++)
                pow[v] = (uint8_t)(a->m[i].pow[v] + b->m[j].pow[v]);
            if (add_mono(&r, c, pow, e))
                return -1;
        }
    *out = r;
    return 0;
}

static void poly_const(struct kd_poly *p, int64_t c)
{
    *p = (struct kd_poly){.n = 0};
    static const uint8_t none[KD_NVARS];
    add_mono(p, c, none, NULL);
}

static void poly_var(struct kd_poly *p, unsigned v)
{
    *p = (struct kd_poly){.n = 1};
    p->m[0].c = 1;
    p->m[0].pow[v] = 1;
}

bool kd_has(const struct kd_poly *p, enum kd_var v)
{
    for (unsigned i = 0; i < p->n; i++)
        if (p->m[i].pow[v])
            return true;
    return false;
}

/* ---- the parser -------------------------------------------------------------------- */

struct parser {
    const char *s;
    const char *const *params;
    unsigned nparams;
    struct err *e;
    struct kd_quot *q; /* the expression's quotient (NULL: `/` and `%` refused) */
};

static void skip_space(struct parser *ps)
{
    while (isspace((unsigned char)*ps->s))
        ps->s++;
}

static int expr(struct parser *ps, struct kd_poly *out);

static int name(struct parser *ps, struct kd_poly *out)
{
    const char *start = ps->s;
    while (isalnum((unsigned char)*ps->s) || *ps->s == '_')
        ps->s++;
    size_t len = (size_t)(ps->s - start);
    for (unsigned v = 0; v < KD_P0; v++)
        if (strlen(var_name[v]) == len && !strncmp(start, var_name[v], len)) {
            poly_var(out, v);
            return 0;
        }
    if (len == 3 && !strncmp(start, "gid", 3)) { /* bx * bdx + tx */
        struct kd_poly bx, bdx, tx;
        poly_var(&bx, KD_BX);
        poly_var(&bdx, KD_BDX);
        poly_var(&tx, KD_TX);
        return poly_mul(&bx, &bdx, out, ps->e) ? -1 : poly_add(out, &tx, 1, ps->e);
    }
    for (unsigned i = 0; i < ps->nparams; i++)
        if (strlen(ps->params[i]) == len && !strncmp(start, ps->params[i], len)) {
            poly_var(out, KD_P0 + i);
            return 0;
        }
    return err_set(ps->e, "unknown name '%.*s'", (int)len, start);
}

static int factor(struct parser *ps, struct kd_poly *out)
{
    skip_space(ps);
    char ch = *ps->s;
    if (ch == '-') {
        ps->s++;
        struct kd_poly f;
        if (factor(ps, &f))
            return -1;
        poly_const(out, 0);
        return poly_add(out, &f, -1, ps->e);
    }
    if (ch == '(') {
        ps->s++;
        if (expr(ps, out))
            return -1;
        skip_space(ps);
        if (*ps->s != ')')
            return err_set(ps->e, "')' expected at '%s'", ps->s);
        ps->s++;
        return 0;
    }
    if (isdigit((unsigned char)ch)) {
        int64_t v = 0;
        while (isdigit((unsigned char)*ps->s)) {
            if (__builtin_mul_overflow(v, 10, &v) ||
                __builtin_add_overflow(v, *ps->s - '0', &v))
                return err_set(ps->e, "a number overflows 64 bits");
            ps->s++;
        }
        poly_const(out, v);
        return 0;
    }
    if (isalpha((unsigned char)ch) || ch == '_')
        return name(ps, out);
    if (!ch)
        return err_set(ps->e, "unexpected end");
    return err_set(ps->e, "unexpected '%c'", ch);
}

static bool poly_same(const struct kd_poly *a, const struct kd_poly *b)
{
    struct kd_poly d = *a;
    return !poly_add(&d, b, -1, NULL) && d.n == 0;
}

/* x / den or x % den into x: `ind`, or x - den * ind, with floor(x / den)
 * the expression's one quotient. */
static int quotient(struct parser *ps, char op, struct kd_poly *x, const struct kd_poly *den)
{
    struct kd_quot *q = ps->q;
    if (!q)
        return err_set(ps->e, "'%c' is not allowed here", op);
    if (kd_has(x, KD_IND) || kd_has(den, KD_IND))
        return err_set(ps->e, "'%c': a quotient of `ind`", op);
    if (q->on && (!poly_same(&q->num, x) || !poly_same(&q->den, den)))
        return err_set(ps->e, "%s", "one quotient per expression");
    *q = (struct kd_quot){.num = *x, .den = *den, .on = true};
    struct kd_poly ind, t;
    poly_var(&ind, KD_IND);
    if (op == '/') {
        *x = ind;
        return 0;
    }
    return poly_mul(den, &ind, &t, ps->e) ? -1 : poly_add(x, &t, -1, ps->e);
}

static int term(struct parser *ps, struct kd_poly *out)
{
    if (factor(ps, out))
        return -1;
    for (;;) {
        skip_space(ps);
        char op = *ps->s;
        if (op != '*' && op != '/' && op != '%')
            return 0;
        ps->s++;
        struct kd_poly f;
        if (factor(ps, &f))
            return -1;
        if (op == '*' ? poly_mul(out, &f, out, ps->e) : quotient(ps, op, out, &f))
            return -1;
    }
}

static int expr(struct parser *ps, struct kd_poly *out)
{
    if (term(ps, out))
        return -1;
    for (;;) {
        skip_space(ps);
        char op = *ps->s;
        if (op != '+' && op != '-')
            return 0;
        ps->s++;
        struct kd_poly t;
        if (term(ps, &t) || poly_add(out, &t, op == '+' ? 1 : -1, ps->e))
            return -1;
    }
}

int kd_parse(const char *text, const char *const *params, unsigned nparams, struct kd_poly *out,
             struct err *e)
{
    return kd_parse_quot(text, params, nparams, out, NULL, e);
}

int kd_parse_quot(const char *text, const char *const *params, unsigned nparams,
                  struct kd_poly *out, struct kd_quot *q, struct err *e)
{
    if (nparams > KD_MAX_PARAMS)
        return err_set(e, "more than %d parameters", KD_MAX_PARAMS);
    if (q)
        q->on = false;
    struct parser ps = {text, params, nparams, e, q};
    if (expr(&ps, out))
        return err_prefix(e, "index '%s'", text);
    skip_space(&ps);
    if (*ps.s)
        return err_set(e, "index '%s': unexpected '%s'", text, ps.s);
    return 0;
}

/* ---- binding to a launch ------------------------------------------------------------- */

int kd_bind(const struct kd_poly *p, const struct kd_launch *l, struct kd_affine *out,
            struct err *e)
{
    *out = (struct kd_affine){0};
    for (unsigned i = 0; i < p->n; i++) {
        const struct kd_mono *m = &p->m[i];
        int64_t c = m->c;
        int dyn = -1;
        for (unsigned v = 0; v < KD_NVARS; v++) {
            if (!m->pow[v])
                continue;
            if (v < KD_NDYN) {
                if (dyn >= 0 || m->pow[v] > 1)
                    return err_set(e, "a term multiplies %s by %s: not affine per thread",
                                   var_name[dyn >= 0 ? dyn : (int)v], var_name[v]);
                dyn = (int)v;
                continue;
            }
            for (unsigned k = 0; k < m->pow[v]; k++)
                if (__builtin_mul_overflow(c, l->v[v], &c))
                    return err_set(e, "a coefficient overflows 64 bits at this launch");
        }
        int64_t *slot = dyn >= 0 ? &out->k[dyn] : &out->c;
        if (__builtin_add_overflow(*slot, c, slot))
            return err_set(e, "a coefficient overflows 64 bits at this launch");
    }
    kd_affine_terms(out);
    return 0;
}

int kd_subst_ind(const struct kd_poly *p, const struct kd_poly *v, struct kd_poly *out,
                 struct err *e)
{
    *out = (struct kd_poly){.n = 0};
    for (unsigned i = 0; i < p->n; i++) {
        struct kd_poly t = {.n = 0}, r;
        unsigned k = p->m[i].pow[KD_IND];
        struct kd_mono mono = p->m[i];
        mono.pow[KD_IND] = 0;
        t.m[t.n++] = mono;
        for (unsigned j = 0; j < k; j++) {
            if (poly_mul(&t, v, &r, e))
                return -1;
            t = r;
        }
        if (poly_add(out, &t, 1, e))
            return -1;
    }
    return 0;
}

/* ---- Algorithm 1 ------------------------------------------------------------------------ */

void kd_classify(const struct kd_poly *p, enum kd_var m, bool grid_2d, struct kd_class *out)
{
    struct kd_poly inv = {.n = 0}, var = {.n = 0};
    *out = (struct kd_class){.loc = SCHED_LOC_UNCL};
    for (unsigned i = 0; i < p->n; i++) {
        struct kd_poly *g = p->m[i].pow[m] ? &var : &inv;
        g->m[g->n++] = p->m[i];
    }
    /* loopVariant(m, ...) == m: each thread walks its own consecutive elements */
    bool just_m = var.n == 1 && var.m[0].c == 1 && var.m[0].pow[m] == 1;
    for (unsigned v = 0; just_m && v < KD_NVARS; v++)
        just_m = v == (unsigned)m || !var.m[0].pow[v];
    if (just_m) {
        out->loc = SCHED_LOC_ITL;
        return;
    }
    if (kd_has(p, KD_IND)) /* data-dependent, not intra-thread */
        return;
    for (unsigned i = 0; i < var.n; i++) { /* the motion's stride: variant / m */
        out->stride.m[i] = var.m[i];
        out->stride.m[i].pow[m]--;
    }
    out->stride.n = var.n;
    /* a work-group's chunk (wg0, wg1) is a block index's function */
    bool bx = kd_has(&inv, KD_BX) || kd_has(&inv, KD_WG0) || kd_has(&inv, KD_WG1);
    bool by = kd_has(&inv, KD_BY);
    if (bx && (by || !grid_2d)) {
        out->loc = SCHED_LOC_NL;
        return;
    }
    if (!grid_2d || bx == by) {
        out->stride.n = 0;
        return; /* unclassified */
    }
    bool vertical = kd_has(&var, KD_GDX); /* each iteration jumps whole rows */
    if (by)
        out->loc = vertical ? SCHED_LOC_ROW_V : SCHED_LOC_ROW_H;
    else
        out->loc = vertical ? SCHED_LOC_COL_V : SCHED_LOC_COL_H;
}
