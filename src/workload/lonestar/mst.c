/*
 * mst.c -- Lonestar MST (Boruvka) on a road network ("Lonestar_mst-road-fla"
 * of spec hmg.md 8: 83 MB, explicit .gpu-scoped synchronization). Each
 * round: every vertex finds its lightest arc to another component and
 * folds it into its component's minimum with a 64-bit atomicMin (weight,
 * arc); every component root takes its minimum arc and hooks onto the
 * component at its other end (of two components that chose each other, the
 * lower id stays a root), marking the arc in the tree; pointer jumping
 * (launched until nothing changes) flattens the components. Rounds go on
 * until one hooks nothing.
 *
 * Modelled (kernel descriptions, kd.h): find_min, hook and jump, one
 * thread per vertex. The host runs Boruvka in C and binds, at each launch,
 * what the kernel's reads would find: the vertex's component, which arcs
 * cross components, each root's minimum arc, its head and the head's
 * component, that component's own minimum arc and head, and which roots
 * hook; for jump the component it gathers and whether it changes. These
 * arrays are recomputed in place between launches (a launch is planned
 * once the previous one has ended; the interpreter reads them as the
 * kernel runs). Input: lsgraph.h (FLA; weights random where the file has
 * none). ALU counts from nvcc 13 -arch=sm_90 PTX of a CUDA version of
 * these kernels (docs/workloads/mst.md).
 * Abstracted: no data values; Lonestar's own kernel split (its worklists
 * and locks) is replaced by the three kernels above.
 */
#include <stdlib.h>
#include <string.h>

#include "workload/kdw.h"
#include "workload/lonestar/lsgraph.h"

#define MST_NONE UINT64_MAX

static const struct cfg_key mst_keys[] = {
    LSGRAPH_KEYS,
    {"block", CFG_INT, "256", 1, 1024, "threads per work-group", NULL},
    CFG_END,
};

/* PTX, find_min: entry 14, between the loads of comp[u] and the bounds 1
 * and 4, the loop set-up 8; per arc after col[i] 2, after comp[col[i]] 2,
 * after wt[i] 3, the key's compare and the loop step 6; before the atomic 4.
 * hook: entry 15, after comp[u] 4 (the root test), after cmin[u] 7 (the
 * NONE test, the arc, &col[e]), then 2, 2, 6, 2 between the gathers, 1 (the
 * mutual test), 6 before the tree flag, 1 after it, 2 before nxt[u]. jump:
 * 13, 2 between the loads, 1 before dst[u], 3 before the minimum's reset, 3
 * before the flag. */
static const char *const mst_params[] = {"n", "m", NULL};
static const char *const find_bufs[] = {"row", "col", "wt", "comp", "cmin", NULL};
static const char *const find_arrays[] = {"row", "col", "cu", "hf", "x", NULL};
static const char *const hook_bufs[] = {"col", "comp", "cmin", "nxt", "inmst", NULL};
static const char *const hook_arrays[] = {"rt", "be", "hv", "hc", "e2", "h2", "hk", NULL};
static const char *const jump_bufs[] = {"src", "dst", "cmin", "changed", NULL};
static const char *const jump_arrays[] = {"cu", "jc", NULL};
enum { K_FIND, K_HOOK, K_JUMP };
static const struct kd_desc mst_kd[] = {
    [K_FIND] = {.name = "find_min", .params = mst_params, .bufs = find_bufs,
                .arrays = find_arrays,
                .body = "alu 14\n"
                        "if gid < n\n"
                        "  load comp[gid] 4 -> r1\n"
                        "  alu 1\n"
                        "  load row[gid] 4 -> r2\n"
                        "  alu 4\n"
                        "  load row[gid + 1] 4 -> r3\n"
                        "  alu 8 < r2 r3\n"
                        "  for m0 = @row[gid] .. @row[gid + 1]\n"
                        "    load col[m0] 4 -> r4\n"
                        "    alu 2 < r4\n"
                        "    load comp[@col[m0]] 4 -> r5\n"
                        "    alu 2 < r1 r5\n"
                        "    if 0 < @x[m0]                    # another component\n"
                        "      load wt[m0] 4 -> r6\n"
                        "      alu 3 < r6\n"
                        "    end\n"
                        "    alu 6\n"
                        "  end\n"
                        "  if 0 < @hf[gid]                    # an arc was found\n"
                        "    alu 4\n"
                        "    atomic cmin[@cu[gid]] 8 -> r7 gpu relaxed\n"
                        "  end\n"
                        "end\n"},
    [K_HOOK] = {.name = "hook", .params = mst_params, .bufs = hook_bufs, .arrays = hook_arrays,
                .body = "alu 15\n"
                        "if gid < n\n"
                        "  load comp[gid] 4 -> r1\n"
                        "  alu 4 < r1\n"
                        "  if 0 < @rt[gid]                    # a root\n"
                        "    load cmin[gid] 8 -> r2\n"
                        "    alu 7 < r2\n"
                        "    if @be[gid] < m                  # its component has an arc out\n"
                        "      load col[@be[gid]] 4 -> r3\n"
                        "      alu 2 < r3\n"
                        "      load comp[@hv[gid]] 4 -> r4\n"
                        "      alu 2 < r4\n"
                        "      load cmin[@hc[gid]] 8 -> r5\n"
                        "      alu 6 < r5\n"
                        "      load col[@e2[gid]] 4 -> r6\n"
                        "      alu 2 < r6\n"
                        "      load comp[@h2[gid]] 4 -> r7\n"
                        "      alu 1 < r7\n"
                        "      if 0 < @hk[gid]                # it hooks\n"
                        "        alu 6\n"
                        "        store inmst[@be[gid]] 1\n"
                        "        alu 1\n"
                        "      end\n"
                        "    end\n"
                        "  end\n"
                        "  alu 2\n"
                        "  store nxt[gid] 4\n"
                        "end\n"},
    [K_JUMP] = {.name = "jump", .params = mst_params, .bufs = jump_bufs, .arrays = jump_arrays,
                .body = "alu 13\n"
                        "if gid < n\n"
                        "  load src[gid] 4 -> r1\n"
                        "  alu 2 < r1\n"
                        "  load src[@cu[gid]] 4 -> r2\n"
                        "  alu 1 < r2\n"
                        "  store dst[gid] 4 < r2\n"
                        "  alu 3\n"
                        "  store cmin[gid] 8\n"
                        "  alu 3\n"
                        "  if 0 < @jc[gid]                    # it moved\n"
                        "    store changed[0] 1\n"
                        "  end\n"
                        "end\n"},
};

enum { B_ROW, B_COL, B_WT, B_COMP, B_NXT, B_CMIN, B_INMST, B_CHANGED, B_N };

struct mst {
    struct kdw w;
    struct graph g;
    uint32_t *comp, *tmp; /* the components now; scratch for a jump step */
    uint64_t *cmin;       /* each component's minimum key (weight << 32 | the edge's hash) */
    uint32_t *marc;       /* and its arc */
    uint32_t *cu, *hf, *x, *rt, *be, *hv, *hc, *e2, *h2, *hk, *jc; /* the launch arrays */
    unsigned phase;       /* of the next launch: K_FIND, K_HOOK or K_JUMP */
    bool at_nxt;          /* the components are in buffer nxt (else comp) */
    bool hooked, done;    /* this round hooked something; the last jump has run */
    unsigned jumps;       /* jump launches so far this round */
    uint32_t block;
    uint64_t rounds;
    const struct kernel_buf *bufs[B_N];
};

#define MST_MAX_JUMPS 64 /* pointer jumping halves paths: 2^64 is beyond any graph */

/* An arc's key: its weight, then a hash of its edge (the same both ways), so
 * that the two arcs of an edge compare equal and all edges are ordered. */
static uint64_t arc_key(const struct graph *g, uint32_t u, uint32_t e)
{
    uint64_t lo = min_u64(u, g->col[e]), hi = max_u64(u, g->col[e]);
    return (uint64_t)(uint32_t)g->w[e] << 32 | (uint32_t)hash64(lo << 32 | hi);
}

/* find_min: each vertex's lightest crossing arc into its component's minimum. */
static void mst_find(struct mst *t)
{
    const struct graph *g = &t->g;
    for (uint32_t u = 0; u < g->n; u++)
        t->cmin[u] = MST_NONE;
    for (uint32_t u = 0; u < g->n; u++) {
        uint32_t c = t->comp[u];
        t->cu[u] = c;
        t->hf[u] = 0;
        for (uint32_t e = g->row[u]; e < g->row[u + 1]; e++) {
            t->x[e] = t->comp[g->col[e]] != c;
            if (!t->x[e])
                continue;
            t->hf[u] = 1;
            uint64_t k = arc_key(g, u, e);
            if (k < t->cmin[c])
                t->cmin[c] = k, t->marc[c] = e;
        }
    }
}

/* hook: what each root reads; the roots that hook; the components after. */
static void mst_hook(struct mst *t)
{
    const struct graph *g = &t->g;
    t->hooked = false;
    for (uint32_t u = 0; u < g->n; u++) {
        uint32_t c = t->comp[u];
        t->rt[u] = c == u;
        t->be[u] = g->m;
        t->tmp[u] = c;
        if (c != u || t->cmin[u] == MST_NONE)
            continue;
        uint32_t e = t->marc[u], cv = t->comp[g->col[e]];
        uint32_t e2 = t->cmin[cv] == MST_NONE ? e : t->marc[cv];
        t->be[u] = e, t->hv[u] = g->col[e], t->hc[u] = cv;
        t->e2[u] = e2, t->h2[u] = g->col[e2];
        bool mutual = t->comp[g->col[e2]] == u;
        t->hk[u] = !(mutual && u < cv);
        if (t->hk[u])
            t->tmp[u] = cv, t->hooked = true;
    }
    uint32_t *s = t->comp;
    t->comp = t->tmp, t->tmp = s;
}

/* One pointer-jumping step; whether anything moved. */
static bool mst_jump(struct mst *t)
{
    bool moved = false;
    for (uint32_t u = 0; u < t->g.n; u++) {
        t->cu[u] = t->comp[u];
        t->tmp[u] = t->comp[t->comp[u]];
        t->jc[u] = t->tmp[u] != t->comp[u];
        moved |= t->jc[u];
    }
    uint32_t *s = t->comp;
    t->comp = t->tmp, t->tmp = s;
    return moved;
}

static int mst_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    struct mst *t = (struct mst *)w;
    if (lsgraph_load(&t->g, sec, w->env->seed, e))
        return -1;
    t->block = (uint32_t)cfg_uint(sec, "block");
    uint32_t n = t->g.n;
    uint32_t **a[] = {&t->comp, &t->tmp, &t->marc, &t->cu, &t->hf, &t->rt, &t->be,
                      &t->hv, &t->hc, &t->e2, &t->h2, &t->hk, &t->jc};
    for (size_t i = 0; i < sizeof a / sizeof *a; i++)
        *a[i] = xcalloc(n, sizeof **a[i]);
    t->x = xcalloc(t->g.m ? t->g.m : 1, sizeof *t->x);
    t->cmin = xmalloc(n * sizeof *t->cmin);
    for (uint32_t u = 0; u < n; u++)
        t->comp[u] = u;
    const char *const names[B_N] = {"row", "col", "wt", "comp", "nxt", "cmin", "inmst",
                                    "changed"};
    const uint64_t size[B_N] = {(n + 1ull) * 4, t->g.m * 4ull, t->g.m * 4ull, n * 4ull,
                                n * 4ull, n * 8ull, t->g.m ? t->g.m : 1, 1};
    for (unsigned i = 0; i < B_N; i++)
        t->bufs[i] = wl_alloc(w->env, names[i], size[i]);
    return 0;
}

/* Bind launch l to kernel k with the components in `cur`, the other
 * component buffer `oth`. */
static void mst_bind(const struct mst *t, unsigned k, struct kdw_launch *l)
{
    const struct graph *g = &t->g;
    const struct kernel_buf *cur = t->bufs[t->at_nxt ? B_NXT : B_COMP],
                            *oth = t->bufs[t->at_nxt ? B_COMP : B_NXT];
    struct kd_array n = {NULL, g->n};
    l->prog = k;
    l->grid = (struct kernel_dim){(uint32_t)div_ceil(g->n, t->block), 1, 1};
    l->block = (struct kernel_dim){t->block, 1, 1};
    l->params[0] = g->n;
    l->params[1] = g->m;
    if (k == K_FIND) {
        const struct kernel_buf *b[] = {t->bufs[B_ROW], t->bufs[B_COL], t->bufs[B_WT], cur,
                                        t->bufs[B_CMIN]};
        memcpy(l->bufs, b, sizeof b);
        l->arrays[0] = (struct kd_array){g->row, g->n + 1ull};
        l->arrays[1] = (struct kd_array){g->col, g->m};
        n.v = t->cu, l->arrays[2] = n;
        n.v = t->hf, l->arrays[3] = n;
        l->arrays[4] = (struct kd_array){t->x, g->m};
    } else if (k == K_HOOK) {
        const struct kernel_buf *b[] = {t->bufs[B_COL], cur, t->bufs[B_CMIN], oth,
                                        t->bufs[B_INMST]};
        memcpy(l->bufs, b, sizeof b);
        const uint32_t *v[] = {t->rt, t->be, t->hv, t->hc, t->e2, t->h2, t->hk};
        for (unsigned i = 0; i < 7; i++)
            n.v = v[i], l->arrays[i] = n;
    } else {
        const struct kernel_buf *b[] = {cur, oth, t->bufs[B_CMIN], t->bufs[B_CHANGED]};
        memcpy(l->bufs, b, sizeof b);
        n.v = t->cu, l->arrays[0] = n;
        n.v = t->jc, l->arrays[1] = n;
    }
}

/* The next launch of the round: find_min, hook, then jump until nothing
 * moves; rounds until one hooks nothing. */
static bool mst_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    (void)i;
    struct mst *t = (struct mst *)w;
    if (t->done)
        return false;
    unsigned k = t->phase;
    if (k == K_FIND)
        mst_find(t);
    else if (k == K_HOOK)
        mst_hook(t);
    bool moved = k == K_JUMP && mst_jump(t) && t->jumps + 1 < MST_MAX_JUMPS;
    mst_bind(t, k, l);
    if (k != K_FIND)
        t->at_nxt = !t->at_nxt;
    t->jumps = k == K_JUMP ? t->jumps + 1 : 0;
    if (k == K_JUMP && !moved) {
        t->done = !t->hooked;
        t->rounds++;
    }
    t->phase = k == K_FIND ? K_HOOK : k == K_HOOK || moved ? K_JUMP : K_FIND;
    return true;
}

static void mst_release(struct kdw *w)
{
    struct mst *t = (struct mst *)w;
    graph_free(&t->g);
    uint32_t *a[] = {t->comp, t->tmp, t->marc, t->cu, t->hf, t->x, t->rt, t->be,
                     t->hv, t->hc, t->e2, t->h2, t->hk, t->jc};
    for (size_t i = 0; i < sizeof a / sizeof *a; i++)
        free(a[i]);
    free(t->cmin);
}

static const struct kd_desc *const mst_descs[] = {&mst_kd[K_FIND], &mst_kd[K_HOOK],
                                                  &mst_kd[K_JUMP], NULL};
static const struct kdw_model mst_model = {.size = sizeof(struct mst), .descs = mst_descs,
                                           .setup = mst_setup, .plan = mst_plan,
                                           .release = mst_release};

static void *mst_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&mst_model, env, sec, e);
}

static const char *const mst_small[] = {"nodes=128", "edges=0", NULL};

const struct wl_ops wl_mst = {
    .name = "mst",
    .suite = "Lonestar",
    .desc = "Lonestar MST (Boruvka): lightest arcs by atomicMin, hooking, pointer jumping "
            "(FLA-sized road graph; FLA.gr via input)",
    .keys = mst_keys,
    .small = mst_small,
    .create = mst_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
};
