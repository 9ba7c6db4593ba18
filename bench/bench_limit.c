/*
 * bench_limit.c -- how far the simulator is from the least work its answer
 * could take: the L1 request stream of a run, recorded once, replayed
 * through bare tag arrays of the same geometry (LRU, no timing, no MSHRs, no
 * versions, no events): the L1s alone, and the L1s, L2s and L3 slices. The
 * simulator's wall time per L1 access (measured by the caller on runs
 * without the recording) is printed as a multiple of each.
 *
 * The bare hierarchy is functional only: every access looks up its CU's L1
 * and allocates on a miss; L1 misses and every store or atomic look up the
 * L2 of the line's home chiplet (the requests' home, as the run placed
 * them), allocating on a miss; L2 misses look up the home chiplet's L3
 * slice chosen as memsys chooses it. It is a yardstick of speed, not a
 * model: its hit counts are printed but mean nothing against the run's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli/setup.h"

/* ---- the recorded stream ------------------------------------------------------ */

struct access {
    uint64_t line;   /* line index */
    uint16_t cu, home;
    uint8_t write;   /* a store or an atomic */
};

static struct tap {
    struct access *a;
    size_t n, cap;
    void (*next)(void *obj, unsigned cu, struct req *r);
    void *next_obj;
    struct gpu *g;
    unsigned line_shift;
} tap;

static void tap_access(void *obj, unsigned cu, struct req *r)
{
    (void)obj;
    if (tap.n == tap.cap) {
        tap.cap = tap.cap ? 2 * tap.cap : 1 << 20;
        tap.a = xrealloc(tap.a, tap.cap * sizeof *tap.a);
    }
    tap.a[tap.n++] = (struct access){r->addr >> tap.line_shift, (uint16_t)cu, r->home,
                                     r->kind != REQ_READ};
    if (tap.next)
        tap.next(tap.next_obj, cu, r);
    else
        cache_access(tap.g->s, tap.g->cu[cu].l1, r);
}

/* ---- bare tag arrays ------------------------------------------------------------ */

struct tags {
    uint32_t sets, ways;
    uint64_t set_mask; /* sets - 1: every preset's set count is a power of two */
    uint64_t *tag;   /* line index + 1; 0 = invalid */
    uint32_t *stamp;
    uint32_t tick;
    uint64_t hits;
};

static void tags_init(struct tags *t, const struct cache *c)
{
    *t = (struct tags){.sets = c->sets, .ways = c->p.ways, .set_mask = c->sets - 1};
    BUG_ON(!is_pow2(c->sets));
    size_t n = (size_t)t->sets * t->ways;
    /* written here, so that no first-touch page fault falls in the timed replay */
    t->tag = memset(xmalloc(n * sizeof *t->tag), 0, n * sizeof *t->tag);
    t->stamp = memset(xmalloc(n * sizeof *t->stamp), 0, n * sizeof *t->stamp);
}

static void tags_free(struct tags *t)
{
    free(t->tag);
    free(t->stamp);
}

/* Look li up; on a miss install it over the least recently used way. */
static bool tags_access(struct tags *t, uint64_t li)
{
    size_t base = (size_t)(li & t->set_mask) * t->ways;
    uint64_t *tag = t->tag + base;
    uint32_t *st = t->stamp + base, lru = 0;
    for (uint32_t w = 0; w < t->ways; w++) {
        if (tag[w] == li + 1) {
            st[w] = ++t->tick;
            t->hits++;
            return true;
        }
        if (st[w] < st[lru])
            lru = w;
    }
    tag[lru] = li + 1;
    st[lru] = ++t->tick;
    return false;
}

struct level {
    struct tags *t;
    size_t n;
};

static struct level level_of(const struct cache *c, size_t n)
{
    struct level l = {xcalloc(n, sizeof *l.t), n};
    for (size_t i = 0; i < n; i++)
        tags_init(&l.t[i], &c[i]);
    return l;
}

static uint64_t level_free(struct level *l)
{
    uint64_t hits = 0;
    for (size_t i = 0; i < l->n; i++) {
        hits += l->t[i].hits;
        tags_free(&l->t[i]);
    }
    free(l->t);
    return hits;
}

/* Seconds to replay the stream through the L1s (deep: and L2s and L3s). */
static double replay(const struct memsys *ms, bool deep, uint64_t hits[3])
{
    struct level l1 = level_of(ms->l1, ms->ncu), l2 = level_of(ms->l2, ms->nch);
    unsigned slices = ms->t.llc_slices;
    struct level l3 = level_of(ms->l3, (size_t)ms->nch * slices);
    double t0 = bench_now();
    for (size_t i = 0; i < tap.n; i++) {
        const struct access *a = &tap.a[i];
        bool hit = tags_access(&l1.t[a->cu], a->line);
        if (!deep || (hit && !a->write))
            continue;
        if (tags_access(&l2.t[a->home], a->line) || !slices)
            continue;
        unsigned k = slices > 1 ? (unsigned)(hash64(a->line) % slices) : 0;
        tags_access(&l3.t[a->home * slices + k], a->line);
    }
    double dt = bench_now() - t0;
    hits[0] = level_free(&l1);
    hits[1] = level_free(&l2);
    hits[2] = level_free(&l3);
    return dt;
}

/* ---- the benchmark ---------------------------------------------------------------- */

void bench_limit(const char *config, const char *const *args, unsigned reps, double sim_ns)
{
    const char *overrides[32];
    size_t n = 0;
    const char *workload = NULL;
    for (const char *const *a = args; *a; a += 2) {
        if (!strcmp(a[0], "-w"))
            workload = a[1];
        else
            overrides[n++] = a[1];
    }
    struct run_opts o = {.configs = &config, .nconfigs = 1, .overrides = overrides,
                         .noverrides = n, .workload = workload};
    struct setup_machine m = {0};
    struct err e;
    cfg_init(&m.cfg);
    if (setup_config(&m.cfg, &o, &e) || setup_build(&m, &e))
        BUG("%s", e.msg);
    tap = (struct tap){.g = &m.g, .line_shift = ilog2(m.g.ms.line_b)};
    for (unsigned i = 0; i < m.g.ms.ncu; i++) { /* every CU's L1 path, through the tap */
        struct cu_env *env = &m.g.cu[i].env;
        BUG_ON(i && (env->l1_access != tap.next || env->mem_obj != tap.next_obj));
        tap.next = env->l1_access;
        tap.next_obj = env->mem_obj;
        env->l1_access = tap_access;
        env->mem_obj = NULL;
    }
    cp_start(&m.g.cp, setup_next_kernel, &m, NULL, NULL);
    if (sim_run(&m.s, 0) != SIM_DONE || !m.g.cp.finished)
        BUG("benchmark run did not finish");
    double bare[2] = {1e30, 1e30};
    uint64_t hits[2][3];
    for (unsigned r = 0; r < reps; r++)
        for (unsigned d = 0; d < 2; d++) {
            double dt = replay(&m.g.ms, d, hits[d]);
            bare[d] = dt < bare[d] ? dt : bare[d];
        }
    double ns[2] = {bare[0] / (double)tap.n * 1e9, bare[1] / (double)tap.n * 1e9};
    fprintf(stderr,
            "  %-38s %8.1f ns per L1 access: chipsim (%.0f ns) is %.0fx (hits %llu of %zu)\n",
            "bare replay, L1 only", ns[0], sim_ns, sim_ns / ns[0],
            (unsigned long long)hits[0][0], tap.n);
    fprintf(stderr, "  %-38s %8.1f ns per L1 access: chipsim is %.0fx (hits L1 %llu, L2 %llu, "
            "L3 %llu)\n", "bare replay, L1 + L2 + L3", ns[1], sim_ns / ns[1],
            (unsigned long long)hits[1][0], (unsigned long long)hits[1][1],
            (unsigned long long)hits[1][2]);
    free(tap.a);
    tap = (struct tap){0};
    setup_teardown(&m);
}
