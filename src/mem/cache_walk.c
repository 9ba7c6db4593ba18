/*
 * cache_walk.c -- whole-cache flush and invalidate (kernel-boundary
 * coherence): every bank walks its sets in parallel at walk_sets_per_cycle
 * sets per cycle, a flush sending a write-back for each dirty line with at
 * most wb_inflight in flight per bank (spec cpelide.md D9; docs/cache.md 3).
 */
#include "cache.h"
#include "cache_array.h"

static void op_check_done(struct sim *s, struct cache *c)
{
    if (c->banks_walking)
        return;
    for (uint32_t b = 0; b < c->p.banks; b++)
        if (c->bank[b].wb_out)
            return;
    cache_done_fn fn = c->op_fn;
    void *obj = c->op_obj;
    c->op = CACHE_OP_NONE;
    c->op_fn = NULL;
    c->op_obj = NULL;
    sim_progress(s);
    if (fn)
        fn(s, obj);
}

static void walk_step_ev(struct sim *s, void *obj, uint64_t arg);

static void flush_wb_done(struct sim *s, struct req *ch, void *obj)
{
    struct cache *c = obj;
    struct cache_bank *b = &c->bank[ch->tag];
    uint64_t bank = ch->tag;
    req_free(s, ch);
    b->wb_out--;
    sim_progress(s);
    if (b->paused) {
        /* resume on a cycle edge, never twice in one cycle */
        b->paused = false;
        ps_t t = max_u64(clock_edge(c->clk, s->now), b->last_step + c->clk->period);
        sim_at(s, t, walk_step_ev, c, bank);
    }
    op_check_done(s, c);
}

/* The invalidate of one valid line (clean_only, foreign_only as set). */
static void inval_line(struct cache *c, size_t set, uint32_t way)
{
    struct cache_line *mk = cache_rec(c, (int64_t)(set * c->p.ways + way));
    if (c->foreign_only && (!c->data_class || c->data_class[mk->home] == CACHE_DATA_LOCAL))
        return; /* homed here: stays */
    if (!c->clean_only || !way_dirty(c, set, way)) {
        drop_way(c, set, way);
        c->st.lines_invalidated++;
    } else {
        uint64_t d[2];
        rec_mask(c, mk, REC_DIRTY, d);
        rec_put(c, mk, REC_VALID, d);
    }
}

/* One line of a walk; false if a flush must pause at the write-back limit. */
static bool walk_line(struct sim *s, struct cache *c, uint32_t bank, size_t set, uint32_t way)
{
    int64_t l = (int64_t)(set * c->p.ways + way);
    struct cache_line *mk = cache_rec(c, l);
    if (c->op == CACHE_OP_INVALIDATE) {
        inval_line(c, set, way);
        return true;
    }
    if (!way_dirty(c, set, way))
        return true;
    struct cache_bank *b = &c->bank[bank];
    if (b->wb_out == c->p.wb_inflight)
        return false;
    struct req *ch = cache_wb_child(s, c, l);
    ch->tag = bank;
    req_on_done(ch, flush_wb_done, c);
    rec_clear(c, mk, REC_DIRTY);
    sync_dirty(c, l);
    b->wb_out++;
    c->st.flush_writebacks++;
    cache_send_at(s, c, ch, s->now);
    return true;
}

/* The first way >= w whose bit is set in a set's bitmap, or ways. */
static uint32_t next_way(const struct cache *c, const uint64_t *bits, uint32_t w)
{
    for (; w < c->p.ways; w = (w / 64 + 1) * 64) {
        uint64_t m = bits[w / 64] & (~0ull << (w % 64));
        if (m)
            return min_u64(w / 64 * 64 + (uint32_t)__builtin_ctzll(m), c->p.ways);
    }
    return c->p.ways;
}

/* Visit the ways a walk acts on, in way order: a flush only dirty lines
 * (walk_line() passes over clean ones), an invalidate every valid line. */
static bool walk_set(struct sim *s, struct cache *c, uint32_t bank)
{
    struct cache_bank *b = &c->bank[bank];
    size_t set = (size_t)bank * c->sets_per_bank + b->walk_set;
    const uint64_t *bits = set_bits(c, set) + (c->op == CACHE_OP_FLUSH ? c->bits_row : 0);
    while ((b->walk_way = next_way(c, bits, b->walk_way)) < c->p.ways) {
        if (!walk_line(s, c, bank, set, b->walk_way))
            return false;
        b->walk_way++;
    }
    b->walk_way = 0;
    b->walk_set++;
    return true;
}

static void walk_end_ev(struct sim *s, void *obj, uint64_t arg)
{
    struct cache *c = obj;
    c->bank[arg].walking = false;
    c->banks_walking--;
    op_check_done(s, c);
}

/* A step visits up to walk_sets_per_cycle sets; the walk of a bank is over
 * one cycle after its last step (a set takes a cycle). */
static void walk_step_ev(struct sim *s, void *obj, uint64_t arg)
{
    struct cache *c = obj;
    struct cache_bank *b = &c->bank[arg];
    b->last_step = s->now;
    sim_progress(s); /* a long walk is work being done, not a livelock */
    for (uint32_t n = 0; n < c->p.walk_sets_per_cycle && b->walk_set < c->sets_per_bank; n++) {
        if (!walk_set(s, c, (uint32_t)arg)) {
            b->paused = true;
            return;
        }
    }
    ev_fn next = b->walk_set < c->sets_per_bank ? walk_step_ev : walk_end_ev;
    sim_at(s, s->now + c->clk->period, next, c, arg);
}

static void op_start(struct sim *s, struct cache *c, enum cache_op op, cache_done_fn fn,
                     void *obj)
{
    if (c->op != CACHE_OP_NONE)
        SIM_BUG(s, c->name, "flush/invalidate started while another is in progress");
    c->op = op;
    c->op_fn = fn;
    c->op_obj = obj;
    c->banks_walking = c->p.banks;
    ps_t t0 = clock_edge(c->clk, s->now);
    for (uint32_t i = 0; i < c->p.banks; i++) {
        struct cache_bank *b = &c->bank[i];
        b->walk_set = b->walk_way = 0;
        b->walking = true;
        b->paused = false;
        sim_at(s, t0, walk_step_ev, c, i);
    }
}

void cache_flush(struct sim *s, struct cache *c, cache_done_fn fn, void *obj)
{
    c->st.flushes++;
    op_start(s, c, CACHE_OP_FLUSH, fn, obj);
}

static void invalidate_start(struct sim *s, struct cache *c, bool clean_only, bool foreign_only,
                             cache_done_fn fn, void *obj)
{
    c->st.invalidates++;
    c->clean_only = clean_only;
    c->foreign_only = foreign_only;
    op_start(s, c, CACHE_OP_INVALIDATE, fn, obj);
}

void cache_invalidate(struct sim *s, struct cache *c, bool clean_only, cache_done_fn fn,
                      void *obj)
{
    invalidate_start(s, c, clean_only, false, fn, obj);
}

void cache_invalidate_foreign(struct sim *s, struct cache *c, cache_done_fn fn, void *obj)
{
    invalidate_start(s, c, true, true, fn, obj);
}

void cache_flash_invalidate_foreign(struct cache *c)
{
    bool clean_only = c->clean_only, foreign_only = c->foreign_only; /* a walk's, if any */
    c->st.invalidates++;
    c->clean_only = c->foreign_only = true;
    for (size_t set = 0; set < (size_t)c->p.banks * c->sets_per_bank; set++) {
        const uint64_t *bits = set_bits(c, set);
        for (uint32_t w = next_way(c, bits, 0); w < c->p.ways; w = next_way(c, bits, w + 1))
            inval_line(c, set, w);
    }
    c->clean_only = clean_only;
    c->foreign_only = foreign_only;
}

