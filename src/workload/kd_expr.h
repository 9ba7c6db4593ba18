/*
 * kd_expr.h -- index expressions of kernel descriptions: integer polynomials
 * over the prime variables of spec ladm.md 5 (block and thread indices, loop
 * induction variables, grid and block dimensions, kernel parameters), parsed
 * from text, bound to a launch as affine functions of the per-thread
 * variables, and classified as Algorithm 1 and Table 3.2 of spec ladm.md do.
 *
 * Text form (docs/workloads.md, "Index expressions"):
 *   expr   := term (('+' | '-') term)*
 *   term   := factor (('*' | '/' | '%') factor)*
 *   factor := INTEGER | NAME | '(' expr ')' | '-' factor
 * NAME is a prime variable (bx by bz tx ty tz m0 m1 m2 m3 gdx gdy gdz bdx bdy
 * bdz), the work-group's chunk of an irregular partition (wg0 wg1), `gid` (bx * bdx + tx), `ind` (a value read from memory: an indirect
 * index), or one of the kernel's parameters (declared by name when parsing).
 * Products are expanded, so an expression is a sum of monomials, each an
 * integer coefficient times a product of variables. `A / B` and `A % B`
 * (kd_parse_quot only; A the term so far, B a factor) are the floor of the
 * quotient and the remainder A - B * floor(A / B): `ind` stands for the
 * quotient, one per expression (A and B the same at each of them).
 */
#ifndef CHIPSIM_KD_EXPR_H
#define CHIPSIM_KD_EXPR_H

#include "base/base.h"
#include "sched/launch.h"

/* The variables. The first KD_NDYN vary within a launch (per thread or per
 * loop iteration); the others are fixed for a launch. KD_WG0, KD_WG1: the
 * first item and one past the last of the work-group's chunk where a
 * description partitions its items irregularly (kd.h, wg_items). */
enum kd_var {
    KD_BX, KD_BY, KD_BZ, KD_WG0, KD_WG1, KD_TX, KD_TY, KD_TZ, KD_M0, KD_M1, KD_M2, KD_M3, KD_IND,
    KD_NDYN,
    KD_GDX = KD_NDYN, KD_GDY, KD_GDZ, KD_BDX, KD_BDY, KD_BDZ,
    KD_P0, /* kernel parameters KD_P0 .. KD_P0 + KD_MAX_PARAMS - 1 */
};
#define KD_MAX_PARAMS 16
#define KD_NVARS (KD_P0 + KD_MAX_PARAMS)
#define KD_MAX_MONO 24

/* c * prod var^pow[var]. */
struct kd_mono {
    int64_t c;
    uint8_t pow[KD_NVARS];
};

struct kd_poly {
    struct kd_mono m[KD_MAX_MONO];
    unsigned n; /* monomials, none with c = 0, no two with the same powers */
};

/* Parse `text` with parameter names params[0 .. nparams-1] (KD_P0 ...).
 * Returns 0, or -1 with the reason in e (unknown name, syntax, too many
 * monomials, overflow). */
int kd_parse(const char *text, const char *const *params, unsigned nparams, struct kd_poly *out,
             struct err *e);

/* The quotient floor(num / den) that `ind` stands for, if on. */
struct kd_quot {
    struct kd_poly num, den;
    bool on;
};

/* kd_parse with `/` and `%`: the expression's one quotient into *q (q->on
 * false if it has none). */
int kd_parse_quot(const char *text, const char *const *params, unsigned nparams,
                  struct kd_poly *out, struct kd_quot *q, struct err *e);

/* p with `ind` replaced by v (an index clamped by min or max taken as its
 * unclamped argument). Returns 0, or -1 with the reason in e (too many
 * monomials, overflow). */
int kd_subst_ind(const struct kd_poly *p, const struct kd_poly *v, struct kd_poly *out,
                 struct err *e);

/* Whether variable v appears in the polynomial. */
bool kd_has(const struct kd_poly *p, enum kd_var v);

/* The values of the launch-fixed variables. */
struct kd_launch {
    int64_t v[KD_NVARS]; /* only KD_GDX .. end are read */
};

/* An affine function of the varying variables: c + sum k[v] * x[v]; nz
 * lists the v with k[v] != 0 (nnz of them), for evaluation. */
struct kd_affine {
    int64_t c;
    int64_t k[KD_NDYN];
    uint8_t nnz;
    uint8_t nz[KD_NDYN];
};

/* Bind p to a launch. Returns 0, or -1 with the reason in e when a monomial
 * holds two varying variables (or one squared): not affine per thread. */
int kd_bind(const struct kd_poly *p, const struct kd_launch *l, struct kd_affine *out,
            struct err *e);

static inline int64_t kd_eval(const struct kd_affine *a, const int64_t x[KD_NDYN])
{
    int64_t s = a->c;
    for (unsigned i = 0; i < a->nnz; i++)
        s += a->k[a->nz[i]] * x[a->nz[i]];
    return s;
}

/* Recompute nz after changing k. */
static inline void kd_affine_terms(struct kd_affine *a)
{
    a->nnz = 0;
    for (unsigned v = 0; v < KD_NDYN; v++)
        if (a->k[v])
            a->nz[a->nnz++] = (uint8_t)v;
}

struct kd_class {
    enum sched_loc loc;    /* Table 3.2's row (sched/launch.h) */
    struct kd_poly stride; /* NL and the row/column classes: the loop-variant group / m (in
                              elements); empty without a loop term */
    unsigned stmt;         /* kd_buf_class: the statement of the first access that decides */
};

/* Algorithm 1 of spec ladm.md 5 for index p, with m = loop variable `m`
 * (the kernel's outermost loop) and a 2D grid or not. */
void kd_classify(const struct kd_poly *p, enum kd_var m, bool grid_2d, struct kd_class *out);


#endif
