/*
 * cpelide.c -- CPElide (spec cpelide.md section 4): the global command
 * processor keeps a Chiplet Coherence Table of the data structures recent
 * kernels used, with 2 bits of state per chiplet (Not Present, Valid, Dirty,
 * Stale), and at each kernel launch flushes only the chiplets whose dirty
 * data another chiplet will access and invalidates only the chiplets that
 * may hold stale copies of data the kernel touches. L1s are still
 * invalidated at every launch; on a chiplet the (clean-only) invalidate
 * precedes the flush so written data survives as clean copies.
 *
 * The launch algorithm is the spec's 4.12 reference: per row and chiplet
 * the state, an xstale bit and the ranges the chiplet may hold clean (rd) or
 * dirty (wr), which handle the multi-range-write hazard of 4.14. Kernels
 * without annotations fall back to the baseline (flush then invalidate every
 * L2, at their launch and at the next one; the table is cleared). Costs
 * (4.8, D10, D14): the decision takes algo_us plus table_access_cycles per
 * row touched, counted from the kernel packet's arrival so it hides behind
 * the previous kernel; then a decision message (unicast or broadcast) to the
 * local CPs, their cache operations, ACKs and a launch-enable broadcast.
 */
#include <stdlib.h>
#include <string.h>

#include "coh.h"

enum { NP, VAL, DIR, STL };

struct cpe_row {
    bool used;
    addr_t lo, hi;            /* extent of the (possibly merged) structure */
    unsigned last;            /* last kernel that used it, for LRU eviction */
    uint8_t *st;              /* [nch] */
    bool *xstale;             /* [nch] */
    struct range_set *rd, *wr; /* [nch] */
};

/* One argument as the algorithm sees it (after coarsening). */
struct cpe_arg {
    addr_t lo, hi;
    bool write, same_pattern, ranged;
    struct range_set *r;      /* [nch] when ranged */
};

enum cpe_fault { F_NONE, F_NO_XSTALE, F_NO_FLUSH, F_NO_INVALIDATE, F_EVICT_INVALIDATE_FIRST };

struct cpe {
    const struct coh_machine *m;
    struct coh_d4 d4;
    struct coh_d4_sync sync;   /* scoped release/acquire inside kernels, as viper's */
    unsigned nch, nrows, per_kernel;
    addr_t line;              /* L2 line size: ranges are kept in whole lines */
    ps_t algo_ps, table_ps;
    enum cpe_fault fault;
    struct cpe_row *rows;
    struct cpe_arg args[COH_MAX_ARGS];
    struct range_set *argr;   /* [COH_MAX_ARGS * nch] ranges of coarsened args */
    bool prev_unannotated;
    uint64_t all;

    /* the launch in progress */
    struct coh_seq l1q, l2q;
    struct coh_round round;
    uint64_t inv, fl, ev;     /* ev: flushed, then invalidated (an evicted row) */
    bool full;
    unsigned parts, touched;

    struct {
        uint64_t l2_flushes, l2_invalidates, flushes_elided, invalidates_elided;
        uint64_t rows_max, coarsenings, evictions, full_syncs, xstale_invalidates;
    } st;
};

static const struct cfg_key cpe_keys[] = {
    /* spec cpelide 4.2 */
    {"table_rows", CFG_INT, "64", 1, 65536,
     "Chiplet Coherence Table capacity in rows (64 = 8 structures x 8 kernels)", NULL},
    /* spec cpelide 4.9 */
    {"rows_per_kernel", CFG_INT, "8", 1, 65536,
     "structures one kernel may occupy; kernels with more are coarsened", NULL},
    /* spec cpelide 4.2, D14 */
    {"table_access_cycles", CFG_INT, "31", 0, 1e6, "CP cycles per table row read or written",
     NULL},
    /* spec cpelide 4.8, D10 */
    {"algo_us", CFG_FLOAT, "6", 0, 1e6,
     "decision time per kernel, us, overlapped with the previous kernel", NULL},
    /* no_xstale: the hazard of spec cpelide 4.14; evict_invalidate_first: D14 */
    {"fault", CFG_ENUM, "none", 0, 0,
     "testing only, each drops an operation correctness needs, so the checker must fire: "
     "no_xstale ignores the multi-range-write hazard, no_flush drops every release, "
     "no_invalidate every invalidation, evict_invalidate_first invalidates an evicted row's "
     "chiplets before flushing them, so flushed lines outlive the row",
     "none|no_xstale|no_flush|no_invalidate|evict_invalidate_first"},
    CFG_END,
};

/* The ranges of argument a on chiplet c: declared, or the whole structure. */
static const struct range_set *arg_ranges(const struct cpe_arg *a, unsigned c,
                                          struct range_set *whole)
{
    if (a->ranged)
        return &a->r[c];
    range_set_clear(whole);
    range_set_add(whole, a->lo, a->hi);
    return whole;
}

/* ---- table rows ------------------------------------------------------------ */

static void row_clear(struct cpe *p, struct cpe_row *r)
{
    r->used = false;
    for (unsigned c = 0; c < p->nch; c++) {
        r->st[c] = NP;
        r->xstale[c] = false;
        range_set_clear(&r->rd[c]);
        range_set_clear(&r->wr[c]);
    }
}

static unsigned rows_used(const struct cpe *p)
{
    unsigned n = 0;
    for (unsigned i = 0; i < p->nrows; i++)
        n += p->rows[i].used;
    return n;
}

/* Merge row b into row a (conservatively), freeing b. */
static void row_merge(struct cpe *p, struct cpe_row *a, struct cpe_row *b)
{
    static const uint8_t rank[] = {[NP] = 0, [VAL] = 1, [STL] = 2, [DIR] = 3};
    a->lo = min_u64(a->lo, b->lo);
    a->hi = max_u64(a->hi, b->hi);
    a->last = a->last > b->last ? a->last : b->last;
    for (unsigned c = 0; c < p->nch; c++) {
        if (rank[b->st[c]] > rank[a->st[c]])
            a->st[c] = b->st[c];
        a->xstale[c] |= b->xstale[c];
        range_set_union(&a->rd[c], &b->rd[c]);
        range_set_union(&a->wr[c], &b->wr[c]);
    }
    row_clear(p, b);
}

/* Evict the least recently used row not used by kernel k (spec D14): the
 * chiplets that may hold it dirty are flushed and then invalidated, so that
 * no copy survives the row; those holding it clean are invalidated. */
static void evict_lru(struct cpe *p, unsigned k)
{
    struct cpe_row *victim = NULL;
    for (unsigned i = 0; i < p->nrows; i++) {
        struct cpe_row *r = &p->rows[i];
        if (r->used && r->last != k && (!victim || r->last < victim->last))
            victim = r;
    }
    if (!victim)
        BUG("cpelide: table full with rows of the current kernel only");
    for (unsigned c = 0; c < p->nch; c++) {
        if (victim->st[c] == DIR && p->fault == F_EVICT_INVALIDATE_FIRST) {
            p->fl |= 1ull << c;
            p->inv |= 1ull << c;
        } else if (victim->st[c] == DIR)
            p->ev |= 1ull << c;
        else if (victim->st[c] != NP)
            p->inv |= 1ull << c;
    }
    p->st.evictions++;
    row_clear(p, victim);
}

static inline bool row_overlaps(const struct cpe_row *r, addr_t lo, addr_t hi)
{
    return r->used && r->lo < hi && lo < r->hi;
}

static bool has_row(const struct cpe *p, addr_t lo, addr_t hi)
{
    for (unsigned i = 0; i < p->nrows; i++)
        if (row_overlaps(&p->rows[i], lo, hi))
            return true;
    return false;
}

/* The row of [lo, hi): rows it overlaps are merged into one; a new row is
 * made (evicting if the table is full) if none. */
static struct cpe_row *row_for(struct cpe *p, addr_t lo, addr_t hi, unsigned k)
{
    struct cpe_row *row = NULL;
    for (unsigned i = 0; i < p->nrows; i++) {
        struct cpe_row *r = &p->rows[i];
        if (!row_overlaps(r, lo, hi))
            continue;
        p->touched++;
        if (row)
            row_merge(p, row, r);
        else
            row = r;
    }
    if (!row) {
        if (rows_used(p) == p->nrows)
            evict_lru(p, k);
        for (unsigned i = 0; i < p->nrows && !row; i++)
            if (!p->rows[i].used)
                row = &p->rows[i];
        row->used = true;
        row->lo = lo;
        row->hi = hi;
        p->touched++;
    }
    row->lo = min_u64(row->lo, lo);
    row->hi = max_u64(row->hi, hi);
    row->last = k;
    return row;
}

/* ---- coarsening (spec 4.9) ------------------------------------------------- */

static int arg_cmp(const void *a, const void *b)
{
    const struct cpe_arg *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static addr_t line_down(const struct cpe *p, addr_t a) { return a & ~(p->line - 1); }
static addr_t line_up(const struct cpe *p, addr_t a) { return line_down(p, a + p->line - 1); }

/* Copy the kernel's arguments, widened to whole L2 lines: two chiplets whose
 * ranges share a line share it in their caches. If more than rows_per_kernel,
 * merge the structures closest to each other in memory (contiguous ones
 * first) until they fit. Returns the count. */
static unsigned take_args(struct cpe *p, const struct coh_kernel *k)
{
    unsigned n = k->nargs;
    for (unsigned a = 0; a < n; a++) {
        const struct coh_arg *ca = &k->args[a];
        struct cpe_arg *x = &p->args[a];
        *x = (struct cpe_arg){line_down(p, ca->base), line_up(p, ca->base + ca->size),
                              ca->write, ca->same_pattern, ca->ranged, &p->argr[a * p->nch]};
        for (unsigned c = 0; c < p->nch; c++) {
            range_set_clear(&x->r[c]);
            for (unsigned i = 0; ca->ranged && i < ca->ranges[c].n; i++)
                range_set_add(&x->r[c], line_down(p, ca->ranges[c].v[i].lo),
                              line_up(p, ca->ranges[c].v[i].hi));
        }
    }
    if (n <= p->per_kernel)
        return n;
    p->st.coarsenings++;
    qsort(p->args, n, sizeof *p->args, arg_cmp); /* each arg keeps its own range arrays */
    while (n > p->per_kernel) {
        unsigned best = 0;
        for (unsigned a = 1; a + 1 < n; a++)
            if (p->args[a + 1].lo - p->args[a].hi < p->args[best + 1].lo - p->args[best].hi)
                best = a;
        struct cpe_arg *x = &p->args[best], *y = &p->args[best + 1];
        x->hi = max_u64(x->hi, y->hi);
        x->write |= y->write;
        x->same_pattern = false;
        x->ranged = x->ranged && y->ranged;
        for (unsigned c = 0; c < p->nch; c++)
            range_set_union(&x->r[c], &y->r[c]);
        memmove(y, y + 1, (n - best - 2) * sizeof *y);
        n--;
    }
    return n;
}

/* ---- the launch algorithm (spec 4.12) --------------------------------------- */

static void release_and_acquire_rules(struct cpe *p, struct cpe_row *e, const struct cpe_arg *a,
                                      uint64_t S)
{
    struct range_set whole = {0};
    for (unsigned c = 0; c < p->nch; c++)
        if ((S >> c & 1) && (e->st[c] == STL || e->xstale[c])) {
            if (e->st[c] != STL)
                p->st.xstale_invalidates++;
            p->inv |= 1ull << c;
        }
    for (unsigned j = 0; j < p->nch; j++) {
        if (e->st[j] != DIR)
            continue;
        for (unsigned s = 0; s < p->nch; s++)
            if ((S >> s & 1) && s != j && range_set_overlap(arg_ranges(a, s, &whole), &e->wr[j])) {
                p->fl |= 1ull << j;
                break;
            }
    }
    range_set_free(&whole);
}

/* Whole-cache effects of this launch's operations on every row. */
static void whole_cache_effects(struct cpe *p)
{
    for (unsigned i = 0; i < p->nrows; i++) {
        struct cpe_row *r = &p->rows[i];
        if (!r->used)
            continue;
        for (unsigned c = 0; c < p->nch; c++) {
            if (p->ev >> c & 1) {
                r->st[c] = NP;
                range_set_clear(&r->rd[c]);
                range_set_clear(&r->wr[c]);
                r->xstale[c] = false;
                continue;
            }
            if (p->inv >> c & 1) {
                if (r->st[c] == VAL || r->st[c] == STL)
                    r->st[c] = NP;
                range_set_clear(&r->rd[c]);
                r->xstale[c] = false;
            }
            if (p->fl >> c & 1 && r->st[c] == DIR) {
                r->st[c] = VAL;
                range_set_union(&r->rd[c], &r->wr[c]);
                range_set_clear(&r->wr[c]);
            }
        }
    }
}

static void kernel_effects(struct cpe *p, struct cpe_row *e, const struct cpe_arg *a, uint64_t S)
{
    struct range_set whole = {0}, held = {0};
    for (unsigned c = 0; c < p->nch; c++) {
        if (!(S >> c & 1))
            continue;
        const struct range_set *R = arg_ranges(a, c, &whole);
        range_set_union(&e->rd[c], R);
        if (a->write) {
            e->st[c] = DIR;
            range_set_union(&e->wr[c], R);
        } else if (e->st[c] != DIR) {
            e->st[c] = VAL;
        }
    }
    /* the artifact's same-pattern flag: no maintenance beyond the upgrade */
    if (!a->write || a->same_pattern) {
        range_set_free(&whole);
        return;
    }
    for (unsigned c = 0; c < p->nch; c++) {
        if (!(S >> c & 1) && e->st[c] == VAL)
            e->st[c] = STL;
        if (p->fault == F_NO_XSTALE)
            continue;
        range_set_clear(&held);
        range_set_union(&held, &e->rd[c]);
        range_set_union(&held, &e->wr[c]);
        for (unsigned s = 0; s < p->nch && !e->xstale[c]; s++)
            if ((S >> s & 1) && s != c && range_set_overlap(arg_ranges(a, s, &whole), &held))
                e->xstale[c] = true;
    }
    range_set_free(&whole);
    range_set_free(&held);
}

static void drop_empty_rows(struct cpe *p)
{
    for (unsigned i = 0; i < p->nrows; i++) {
        struct cpe_row *r = &p->rows[i];
        bool any = false;
        for (unsigned c = 0; c < p->nch && r->used; c++)
            any |= r->st[c] != NP;
        if (r->used && !any)
            row_clear(p, r);
    }
}

static void clear_table(struct cpe *p)
{
    for (unsigned i = 0; i < p->nrows; i++)
        if (p->rows[i].used)
            row_clear(p, &p->rows[i]);
}

/* The row holding [lo, hi) after every argument has its row. */
static struct cpe_row *row_find(struct cpe *p, addr_t lo, addr_t hi)
{
    for (unsigned i = 0; i < p->nrows; i++) {
        struct cpe_row *r = &p->rows[i];
        if (r->used && r->lo <= lo && hi <= r->hi) {
            p->touched++;
            return r;
        }
    }
    BUG("cpelide: no row for [0x%llx, 0x%llx)", (unsigned long long)lo, (unsigned long long)hi);
}

/* Decide this launch's operations (p->inv, p->fl, p->full) and update the
 * table: rows for every argument first (merging and evicting as needed),
 * then the release and acquire rules, the whole-cache effects of the chosen
 * operations on every row, and the kernel's own effects. */
static void decide(struct cpe *p, const struct coh_kernel *k)
{
    uint64_t S = k->chiplets & p->all;
    p->inv = p->fl = p->ev = 0;
    p->full = false;
    p->touched = 0;
    if (!k->nargs || p->prev_unannotated) {
        p->full = true;
        p->st.full_syncs++;
        clear_table(p);
        p->prev_unannotated = !k->nargs;
        if (!k->nargs)
            return;
    }
    unsigned n = take_args(p, k);
    /* rows that exist first, so that no row of this kernel is evicted for it */
    bool had[COH_MAX_ARGS];
    for (unsigned i = 0; i < n; i++)
        had[i] = has_row(p, p->args[i].lo, p->args[i].hi);
    for (unsigned pass = 0; pass < 2; pass++)
        for (unsigned i = 0; i < n; i++)
            if (had[i] == !pass)
                row_for(p, p->args[i].lo, p->args[i].hi, k->id);
    for (unsigned i = 0; i < n; i++)
        if (!p->args[i].same_pattern)
            release_and_acquire_rules(p, row_find(p, p->args[i].lo, p->args[i].hi),
                                      &p->args[i], S);
    if (p->fault == F_NO_FLUSH)
        p->fl = 0;
    if (p->fault == F_NO_INVALIDATE)
        p->inv = 0;
    whole_cache_effects(p);
    for (unsigned i = 0; i < n; i++)
        kernel_effects(p, row_find(p, p->args[i].lo, p->args[i].hi), &p->args[i], S);
    drop_empty_rows(p);
    unsigned used = rows_used(p);
    if (used > p->st.rows_max)
        p->st.rows_max = used;
}

/* ---- the launch protocol (spec 4.7, 4.8) ------------------------------------ */

static void ops_done(struct sim *s, void *obj)
{
    struct cpe *p = obj;
    if (--p->parts == 0)
        coh_round_ops_done(s, &p->round);
}

/* The decision reached the local CPs: L1s everywhere, L2s as decided. On a
 * chiplet the invalidate precedes the flush, except where a row was evicted
 * and in the fallback (baseline order: flush, then invalidate). */
static void local_ops(void *obj)
{
    struct cpe *p = obj;
    enum coh_cache_op ops[COH_MAX_CHIPLETS][2];
    uint64_t ev = p->full ? p->all : p->ev;
    for (unsigned c = 0; c < p->nch; c++) {
        bool i = p->inv >> c & 1, f = p->fl >> c & 1;
        if (ev >> c & 1) {
            ops[c][0] = COH_FLUSH;
            ops[c][1] = COH_INVALIDATE_CLEAN;
        } else {
            ops[c][0] = i ? COH_INVALIDATE_CLEAN : COH_NONE;
            ops[c][1] = f ? COH_FLUSH : COH_NONE;
        }
    }
    p->parts = 2;
    coh_all_l1(&p->l1q, COH_INVALIDATE, ops_done, p);
    coh_l2_each(&p->l2q, (const enum coh_cache_op (*)[2])ops, ops_done, p);
}

static void count_ops(struct cpe *p)
{
    uint64_t inv = p->full ? p->all : p->inv | p->ev, fl = p->full ? p->all : p->fl | p->ev;
    unsigned ni = popcount64(inv), nf = popcount64(fl);
    p->st.l2_invalidates += ni;
    p->st.l2_flushes += nf;
    p->st.invalidates_elided += p->nch - ni;
    p->st.flushes_elided += p->nch - nf;
}

static void cpe_kernel_launch(void *self, const struct coh_kernel *k, coh_done_fn done, void *arg)
{
    struct cpe *p = self;
    decide(p, k);
    count_ops(p);
    p->l1q.kernel = p->l2q.kernel = k->id;
    /* the decision runs from the packet's arrival, behind the previous kernel;
     * every local CP takes part (its L1s are invalidated) */
    ps_t ready = k->ready_ps + p->algo_ps + (ps_t)p->touched * p->table_ps;
    coh_round(&p->round, p->m, ready, p->nch, true, local_ops, p, done, arg);
}

/* Releases are lazy: nothing at kernel end (the warps' stores are already
 * acknowledged when the CP calls this). */
static void cpe_kernel_end(void *self, const struct coh_kernel *k, coh_done_fn done, void *arg)
{
    struct cpe *p = self;
    (void)k;
    done(p->m->s, arg);
}

static struct coh_route cpe_l2_access(void *self, unsigned ch, struct req *r)
{
    struct cpe *p = self;
    return coh_d4_l2_access(&p->d4, ch, r);
}

/* ---- set-up -------------------------------------------------------------------- */

static void *cpe_create(const struct coh_machine *m, const struct cfg_sec *sec, struct err *e)
{
    unsigned rows = (unsigned)cfg_uint(sec, "table_rows");
    if (cfg_uint(sec, "rows_per_kernel") > rows) {
        cfg_err(e, sec, "rows_per_kernel", "more than table_rows (%u): a kernel must fit", rows);
        return NULL;
    }
    struct cpe *p = xcalloc(1, sizeof *p);
    p->m = m;
    p->nch = m->nch;
    p->line = m->l2[0].p.line_b;
    p->all = low_bits(m->nch);
    coh_d4_from_cfg(sec, &p->d4);
    p->nrows = rows;
    p->per_kernel = (unsigned)cfg_uint(sec, "rows_per_kernel");
    if (p->per_kernel > COH_MAX_ARGS)
        p->per_kernel = COH_MAX_ARGS;
    p->table_ps = (ps_t)(m->cp_period_ps * (double)cfg_uint(sec, "table_access_cycles") + 0.5);
    p->algo_ps = (ps_t)(cfg_float(sec, "algo_us") * 1e6 + 0.5);
    p->fault = (enum cpe_fault)cfg_enum(sec, "fault");
    p->rows = xcalloc(p->nrows, sizeof *p->rows);
    for (unsigned i = 0; i < p->nrows; i++) {
        struct cpe_row *r = &p->rows[i];
        r->st = xcalloc(p->nch, sizeof *r->st);
        r->xstale = xcalloc(p->nch, sizeof *r->xstale);
        r->rd = xcalloc(p->nch, sizeof *r->rd);
        r->wr = xcalloc(p->nch, sizeof *r->wr);
    }
    p->argr = xcalloc((size_t)COH_MAX_ARGS * p->nch, sizeof *p->argr);
    coh_seq_init(&p->l1q, m);
    coh_seq_init(&p->l2q, m);
    coh_d4_sync_init(&p->sync);
    return p;
}

static void cpe_destroy(void *self)
{
    struct cpe *p = self;
    for (unsigned i = 0; i < p->nrows; i++) {
        struct cpe_row *r = &p->rows[i];
        for (unsigned c = 0; c < p->nch; c++) {
            range_set_free(&r->rd[c]);
            range_set_free(&r->wr[c]);
        }
        free(r->st);
        free(r->xstale);
        free(r->rd);
        free(r->wr);
    }
    for (size_t i = 0; i < (size_t)COH_MAX_ARGS * p->nch; i++)
        range_set_free(&p->argr[i]);
    free(p->argr);
    free(p->rows);
    coh_d4_sync_free(&p->sync);
    free(p);
}

/* Inside a kernel the table plays no part: scoped synchronization is D4's
 * (coh_d4_release/acquire); cleaning more than the table asks is safe. */
static void cpe_release(void *self, unsigned cu, enum mem_scope scope, coh_done_fn done,
                        void *arg)
{
    struct cpe *p = self;
    coh_d4_release(p->m, &p->d4, cu, scope, done, arg);
}

static void cpe_acquire(void *self, unsigned cu, enum mem_scope scope, coh_done_fn done,
                        void *arg)
{
    struct cpe *p = self;
    coh_d4_acquire(p->m, &p->d4, &p->sync, cu, scope, done, arg);
}

#define CPE_ST(f, h) STAT_DESC(__typeof__(((struct cpe *)0)->st), f, h)
static const struct stat_desc cpe_desc[] = {
    CPE_ST(l2_flushes, "L2 flushes issued (one per chiplet)"),
    CPE_ST(l2_invalidates, "L2 invalidates issued (one per chiplet)"),
    CPE_ST(flushes_elided, "L2 flushes the baseline would issue at these launches, elided"),
    CPE_ST(invalidates_elided, "L2 invalidates the baseline would issue, elided"),
    CPE_ST(rows_max, "Chiplet Coherence Table rows in use, maximum"),
    CPE_ST(coarsenings, "kernels whose structures were coarsened to fit"),
    CPE_ST(evictions, "rows evicted from a full table (with flush and invalidate)"),
    CPE_ST(full_syncs, "launches with full baseline synchronization (unannotated kernels)"),
    CPE_ST(xstale_invalidates, "invalidates caused by the multi-range-write hazard (xstale)"),
    {0},
};

static void cpe_reg_stats(void *self, struct stats *st)
{
    stats_reg_block(st, "coherence", cpe_desc, &((struct cpe *)self)->st);
}

const struct coh_ops coh_cpelide = {
    .annotations = true,
    .name = "cpelide",
    /* spec cpelide 4 */
    .desc = "CPElide: the command processor tracks which chiplets hold which data structures and "
            "elides needless L2 flushes and invalidates",
    .keys = cpe_keys,
    .create = cpe_create,
    .destroy = cpe_destroy,
    .reg_stats = cpe_reg_stats,
    .kernel_launch = cpe_kernel_launch,
    .kernel_end = cpe_kernel_end,
    .l2_access = cpe_l2_access,
    .release = cpe_release,
    .acquire = cpe_acquire,
};
