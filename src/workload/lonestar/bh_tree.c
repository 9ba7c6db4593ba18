/*
 * bh_tree.c -- see bh_tree.h.
 */
#include "workload/lonestar/bh_tree.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BH_ITOLSQ 4.0f      /* 1 / theta^2, theta = 0.5 */
#define BH_EPSSQ 0.0025f    /* softening, 0.05^2 */

void bh_init(struct bh_tree *t, uint32_t nb, uint64_t seed)
{
    struct rng g;
    rng_seed(&g, seed);
    *t = (struct bh_tree){.nb = nb, .dmax = BH_MAX_DEPTH};
    float **f[] = {&t->vx, &t->vy, &t->vz, &t->ax, &t->ay, &t->az};
    for (size_t i = 0; i < sizeof f / sizeof *f; i++)
        *f[i] = xcalloc(nb, sizeof **f[i]);
    uint32_t **u[] = {&t->dep, &t->leaf, &t->nsub, &t->sorted};
    for (size_t i = 0; i < sizeof u / sizeof *u; i++)
        *u[i] = xcalloc(nb, sizeof **u[i]);
    t->path = xcalloc((size_t)nb * t->dmax, sizeof *t->path);
    t->nwarps = (uint32_t)div_ceil(nb, 256) * 8; /* whole work-groups of 8 warps */
    t->ne = xcalloc(t->nwarps, sizeof *t->ne);
    float *p[4];
    for (int i = 0; i < 4; i++)
        p[i] = xcalloc(nb, sizeof *p[i]);
    for (uint32_t i = 0; i < nb; i++) { /* a Plummer sphere: radius from the cumulative mass */
        double u1 = 0.999 * rng_unit(&g) + 0.0005;
        double r = 1.0 / sqrt(pow(u1, -2.0 / 3.0) - 1.0);
        double cz = 2 * rng_unit(&g) - 1, ph = 2 * M_PI * rng_unit(&g), s = sqrt(1 - cz * cz);
        p[0][i] = (float)(r * s * cos(ph)), p[1][i] = (float)(r * s * sin(ph));
        p[2][i] = (float)(r * cz), p[3][i] = 1.0f / (float)nb;
        t->vx[i] = (float)(0.1 * (rng_unit(&g) - 0.5));
        t->vy[i] = (float)(0.1 * (rng_unit(&g) - 0.5));
        t->vz[i] = (float)(0.1 * (rng_unit(&g) - 0.5));
    }
    t->x = p[0], t->y = p[1], t->z = p[2], t->m = p[3];
}

/* Room for cell k (node nb + k) in every per-node and per-cell array. */
static void grow(struct bh_tree *t, uint32_t k)
{
    if (k < t->cap)
        return;
    uint32_t cap = t->cap ? 2 * t->cap : t->nb / 2 + 64;
    size_t nodes = (size_t)t->nb + cap;
    float **f[] = {&t->x, &t->y, &t->z, &t->m};
    for (size_t i = 0; i < sizeof f / sizeof *f; i++)
        *f[i] = xrealloc(*f[i], nodes * sizeof **f[i]);
    t->count = xrealloc(t->count, nodes * sizeof *t->count);
    t->child = xrealloc(t->child, (size_t)8 * cap * sizeof *t->child);
    t->cn = xrealloc(t->cn, (size_t)8 * cap * sizeof *t->cn);
    t->sp = xrealloc(t->sp, (size_t)8 * cap * sizeof *t->sp);
    t->cap = cap;
}

static uint32_t new_cell(struct bh_tree *t)
{
    uint32_t k = t->ncells++;
    grow(t, k);
    for (int j = 0; j < 8; j++)
        t->child[8 * k + j] = -1;
    return k;
}

/* A cell's centre and half side, as the descent tracks them. */
struct cube {
    float x, y, z, r;
};

static unsigned octant(const struct bh_tree *t, uint32_t i, const struct cube *c)
{
    return (unsigned)(t->x[i] > c->x) | (unsigned)(t->y[i] > c->y) << 1 |
           (unsigned)(t->z[i] > c->z) << 2;
}

static struct cube sub(const struct cube *c, unsigned j)
{
    float h = c->r / 2;
    return (struct cube){c->x + (j & 1 ? h : -h), c->y + (j & 2 ? h : -h),
                         c->z + (j & 4 ? h : -h), h};
}

/* Body b, already in slot `slot` (in the cube of child j of c), and body
 * i, which takes it: new cells until they part; returns i's slot. */
static uint32_t split(struct bh_tree *t, uint32_t i, uint32_t slot, struct cube c)
{
    int32_t b = t->child[slot];
    for (unsigned d = 0; d < BH_MAX_DEPTH; d++) {
        uint32_t k = new_cell(t);
        t->nsub[i]++;
        t->child[slot] = (int32_t)(t->nb + k);
        unsigned jb = octant(t, (uint32_t)b, &c), ji = octant(t, i, &c);
        t->child[8 * k + jb] = b;
        slot = 8 * k + ji;
        if (jb != ji)
            return slot;
        c = sub(&c, ji);
    }
    slot = slot - slot % 8 + (slot % 8 + 1) % 8; /* bodies that never part: a free slot */
    return slot;
}

/* Body i's descent from the root (cube c): the slots it reads, the slot it
 * locks, and the cells it adds. */
static void insert(struct bh_tree *t, uint32_t i, struct cube c)
{
    uint32_t k = 0, *path = t->path + (size_t)i * t->dmax, d = 0;
    t->nsub[i] = 0;
    for (;;) {
        unsigned j = octant(t, i, &c);
        uint32_t slot = 8 * k + j;
        if (d < t->dmax)
            path[d++] = slot;
        int32_t ch = t->child[slot];
        c = sub(&c, j);
        if (ch >= (int32_t)t->nb) {
            k = (uint32_t)ch - t->nb;
            continue;
        }
        t->leaf[i] = slot;
        t->dep[i] = d;
        if (ch >= 0)
            slot = split(t, i, slot, c);
        t->child[slot] = (int32_t)i;
        return;
    }
}

/* The root cube around every body, then the bodies inserted in order. */
static void build(struct bh_tree *t)
{
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    const float *p[3] = {t->x, t->y, t->z};
    for (uint32_t i = 0; i < t->nb; i++)
        for (int a = 0; a < 3; a++)
            lo[a] = fminf(lo[a], p[a][i]), hi[a] = fmaxf(hi[a], p[a][i]);
    float r = fmaxf(hi[0] - lo[0], fmaxf(hi[1] - lo[1], hi[2] - lo[2])) * 0.5f * 1.0001f + 1e-6f;
    struct cube c = {(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2, r};
    t->rootdiam = 2 * r;
    t->ncells = 0;
    new_cell(t);
    for (uint32_t i = 0; i < t->nb; i++)
        insert(t, i, c);
}

/* Centres of mass and counts, children before parents (a cell is made
 * after its parent), and each slot's child for the kernels. */
static void summarize(struct bh_tree *t)
{
    for (uint32_t k = t->ncells; k-- > 0;) {
        double m = 0, x = 0, y = 0, z = 0;
        uint32_t cnt = 0;
        for (int j = 0; j < 8; j++) {
            int32_t ch = t->child[8 * k + j];
            t->cn[8 * k + j] = (uint32_t)(ch + 1);
            if (ch < 0)
                continue;
            m += t->m[ch], x += (double)t->m[ch] * t->x[ch], y += (double)t->m[ch] * t->y[ch];
            z += (double)t->m[ch] * t->z[ch];
            cnt += ch >= (int32_t)t->nb ? t->count[ch] : 1;
        }
        uint32_t n = t->nb + k;
        t->m[n] = (float)m, t->x[n] = (float)(x / m), t->y[n] = (float)(y / m);
        t->z[n] = (float)(z / m), t->count[n] = cnt;
    }
}

/* Tree order: each cell's bodies from its start, children in slot order. */
static void order(struct bh_tree *t)
{
    uint32_t *start = xcalloc(t->ncells, sizeof *start);
    for (uint32_t k = 0; k < t->ncells; k++) {
        uint32_t s = start[k];
        for (int j = 0; j < 8; j++) {
            int32_t ch = t->child[8 * k + j];
            if (ch >= (int32_t)t->nb) {
                start[(uint32_t)ch - t->nb] = s;
                s += t->count[ch];
            } else if (ch >= 0) {
                t->sp[8 * k + j] = s;
                t->sorted[s++] = (uint32_t)ch;
            }
        }
    }
    free(start);
}

/* A warp's walk, its events appended to ev (4 words each: slot, node + 1,
 * act, depth); the forces on its bodies. */
struct walk {
    const uint32_t *body;
    unsigned nl;
    uint32_t *ev;
    size_t n, cap;
};

static void event(struct walk *w, uint32_t slot, int32_t node, enum bh_act a, uint32_t depth)
{
    w->ev = xgrow(w->ev, 4 * sizeof *w->ev, &w->cap, w->n + 1);
    uint32_t *e = w->ev + 4 * w->n++;
    e[0] = slot, e[1] = (uint32_t)(node + 1), e[2] = a, e[3] = depth;
}

/* Whether node n is far enough from every body of the warp at this depth;
 * with use, add its pull to each body (not to itself). */
static bool far_all(struct bh_tree *t, const struct walk *w, int32_t n, float dq, bool use)
{
    bool far = true;
    for (unsigned l = 0; l < w->nl; l++) {
        uint32_t b = w->body[l];
        float dx = t->x[n] - t->x[b], dy = t->y[n] - t->y[b], dz = t->z[n] - t->z[b];
        float d2 = dx * dx + dy * dy + dz * dz + BH_EPSSQ;
        far &= d2 >= dq;
        if (use && (uint32_t)n != b) {
            float s = t->m[n] / (d2 * sqrtf(d2));
            t->ax[b] += dx * s, t->ay[b] += dy * s, t->az[b] += dz * s;
        }
    }
    return far;
}

/* Burtscher and Pingali's walk: a stack of (cell, next child); children
 * read in compacted order (a cell with fewer than 8 ends on an empty read). */
static void walk(struct bh_tree *t, struct walk *w)
{
    uint32_t node[BH_MAX_DEPTH + 1] = {0}, pos[BH_MAX_DEPTH + 1] = {0};
    float dq[BH_MAX_DEPTH + 1];
    dq[0] = t->rootdiam * t->rootdiam * BH_ITOLSQ;
    for (int d = 1; d <= BH_MAX_DEPTH; d++)
        dq[d] = dq[d - 1] * 0.25f;
    int depth = 0;
    while (depth >= 0) {
        uint32_t k = node[depth], p = pos[depth];
        if (p == 8) {
            depth--;
            continue;
        }
        int32_t ch = -1;
        for (uint32_t j = 0, seen = 0; j < 8 && ch < 0; j++)
            if (t->child[8 * k + j] >= 0 && seen++ == p)
                ch = t->child[8 * k + j];
        pos[depth]++;
        if (ch < 0) {
            event(w, 8 * k + p, -1, BH_EMPTY, (uint32_t)depth);
            depth--;
        } else if (ch < (int32_t)t->nb || depth == BH_MAX_DEPTH ||
                   far_all(t, w, ch, dq[depth], false)) {
            far_all(t, w, ch, 0, true);
            event(w, 8 * k + p, ch, BH_USE, (uint32_t)depth);
        } else {
            event(w, 8 * k + p, ch, BH_OPEN, (uint32_t)depth);
            node[++depth] = (uint32_t)ch - t->nb, pos[depth] = 0;
        }
    }
}

/* Every warp's walk into the padded event arrays (warp W's event e at
 * W * len + e). */
static void walks(struct bh_tree *t)
{
    struct walk w = {0};
    size_t *at = xmalloc((t->nwarps + 1) * sizeof *at);
    memset(t->ax, 0, t->nb * sizeof *t->ax), memset(t->ay, 0, t->nb * sizeof *t->ay);
    memset(t->az, 0, t->nb * sizeof *t->az);
    t->len = 1;
    for (uint32_t W = 0; W < t->nwarps; W++) {
        at[W] = w.n;
        w.body = t->sorted + (size_t)W * BH_WARP;
        w.nl = (uint64_t)W * BH_WARP < t->nb
                   ? (unsigned)min_u64(BH_WARP, t->nb - (uint64_t)W * BH_WARP) : 0;
        if (w.nl)
            walk(t, &w);
        t->ne[W] = (uint32_t)(w.n - at[W]);
        t->len = t->ne[W] > t->len ? t->ne[W] : t->len;
    }
    size_t need = (size_t)t->nwarps * t->len;
    if (need > t->ev_cap) {
        uint32_t **a[] = {&t->es, &t->en, &t->ea, &t->ed};
        for (int i = 0; i < 4; i++)
            *a[i] = xrealloc(*a[i], need * sizeof **a[i]);
        t->ev_cap = need;
    }
    for (uint32_t W = 0; W < t->nwarps; W++)
        for (uint32_t e = 0; e < t->ne[W]; e++) {
            const uint32_t *v = w.ev + 4 * (at[W] + e);
            size_t o = (size_t)W * t->len + e;
            t->es[o] = v[0], t->en[o] = v[1], t->ea[o] = v[2], t->ed[o] = v[3];
        }
    free(at);
    free(w.ev);
}

void bh_step(struct bh_tree *t, float dt)
{
    build(t);
    summarize(t);
    order(t);
    walks(t);
    for (uint32_t i = 0; i < t->nb; i++) {
        t->vx[i] += t->ax[i] * dt, t->vy[i] += t->ay[i] * dt, t->vz[i] += t->az[i] * dt;
        t->x[i] += t->vx[i] * dt, t->y[i] += t->vy[i] * dt, t->z[i] += t->vz[i] * dt;
    }
}

void bh_free(struct bh_tree *t)
{
    void *p[] = {t->x, t->y, t->z, t->m, t->vx, t->vy, t->vz, t->ax, t->ay, t->az, t->count,
                 t->child, t->dep, t->path, t->leaf, t->nsub, t->cn, t->sp, t->sorted, t->ne,
                 t->es, t->en, t->ea, t->ed};
    for (size_t i = 0; i < sizeof p / sizeof *p; i++)
        free(p[i]);
}
