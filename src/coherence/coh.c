/*
 * coh.c -- scheme lookup, the default request-path hooks, the keys shared
 * by every scheme, and the sequencer that runs a flush or invalidate on many
 * caches at once (kernel-boundary operations).
 */
#include "coh.h"

#include <stdlib.h>
#include <string.h>

const struct cfg_key coh_common_keys[] = {
    {"scheme", CFG_STR, "viper", 0, 0, "coherence scheme (see `chipsim list schemes`)", NULL},
    /* the two request-path choices of spec cpelide D4 */
    {"remote_read_alloc", CFG_ENUM, "requester_no", 0, 0,
     "does the requesting chiplet's L2 keep data read from another chiplet (requester_yes is "
     "the gem5 artifact's behaviour)", "requester_no|requester_yes"},
    {"remote_store", CFG_ENUM, "write_through", 0, 0,
     "stores to lines homed elsewhere are written through to the home, or kept in the local L2 "
     "and written back at flush/eviction (the gem5 artifact)", "write_through|write_back"},
    CFG_END,
};

const struct coh_ops *coh_find(const char *name)
{
    for (const struct coh_ops *const *c = coh_registry; *c; c++)
        if (!strcmp((*c)->name, name))
            return *c;
    return NULL;
}

/* Spec cpelide 3.2/3.3: the home serves remote reads from its L2 or relays
 * them from its L3 without allocating; remote stores are written through
 * toward memory; write-backs of remote lines (artifact D4 mode) go to the L3
 * without updating the home's copy. */
struct coh_route coh_default_remote_in(const struct req *r)
{
    switch (r->kind) {
    case REQ_WRITEBACK:
        return coh_route_to(COH_HOP_L3, REQ_F_REMOTE);
    case REQ_ATOMIC:
        return (struct coh_route){COH_HOP_L2, REQ_F_REMOTE, REQ_F_NOALLOC};
    case REQ_WRITE:
        return coh_route_to(COH_HOP_L2, REQ_F_REMOTE | REQ_F_NOALLOC | REQ_F_WT);
    default:
        return coh_route_to(COH_HOP_L2, REQ_F_REMOTE | REQ_F_NOALLOC);
    }
}

int coh_home_alloc_check(const struct coh_machine *m, const struct cfg_sec *sec, const char *key,
                         bool on, struct err *e)
{
    if (!on || m->l2[0].p.mshrs_remote)
        return 0;
    cfg_err(e, sec, key, "needs MSHRs kept for remote requests ([l2] mshrs_remote > 0), or local "
            "and remote misses could deadlock over the L2's MSHRs");
    return -1;
}

void coh_d4_from_cfg(const struct cfg_sec *sec, struct coh_d4 *d)
{
    d->read_alloc = cfg_enum(sec, "remote_read_alloc") == 1;
    d->store_local = cfg_enum(sec, "remote_store") == 1;
}

struct coh_route coh_d4_l2_access(const struct coh_d4 *d, unsigned ch, const struct req *r)
{
    if (coh_strong_remote(ch, r))
        return coh_route_to(COH_HOP_HOME, 0);
    unsigned set = 0;
    if (r->home != ch) {
        bool store = r->kind == REQ_WRITE || r->kind == REQ_WRITEBACK;
        if (r->kind == REQ_ATOMIC || (store && !d->store_local))
            set = REQ_F_NOALLOC | REQ_F_WT;
        else if (r->kind == REQ_READ && !d->read_alloc)
            set = REQ_F_NOALLOC;
    }
    return coh_route_to(COH_HOP_L2, set);
}

/* ---- sequencer ---------------------------------------------------------- */

void coh_seq_init(struct coh_seq *q, const struct coh_machine *m)
{
    *q = (struct coh_seq){.m = m};
    for (unsigned c = 0; c < COH_MAX_CHIPLETS; c++)
        q->slot[c] = (struct coh_seq_slot){.q = q, .ch = c};
}

static void seq_one_done(struct sim *s, void *obj)
{
    struct coh_seq *q = obj;
    if (--q->outstanding == 0 && q->done)
        q->done(s, q->arg);
}

/* Start the walk `op` (not COH_NONE) of cache c. */
static void walk(struct sim *s, struct cache *c, enum coh_cache_op op, cache_done_fn fn, void *obj)
{
    if (op == COH_FLUSH)
        cache_flush(s, c, fn, obj);
    else if (op == COH_INVALIDATE_FOREIGN)
        cache_invalidate_foreign(s, c, fn, obj);
    else
        cache_invalidate(s, c, op == COH_INVALIDATE_CLEAN, fn, obj);
}

static void start_op(struct coh_seq *q, struct cache *c, enum coh_cache_op op, cache_done_fn fn,
                     void *obj)
{
    q->outstanding++;
    walk(q->m->s, c, op, fn, obj);
}

static void log_op(struct coh_seq *q, unsigned ch, enum coh_cache_op op)
{
    struct coh_log *l = q->m->log;
    if (!l)
        return;
    l->v = xgrow(l->v, sizeof *l->v, &l->cap, l->n + 1);
    l->v[l->n++] = (struct coh_log_ent){q->m->s->now, q->kernel, ch, op};
}

static void slot_done(struct sim *s, void *obj)
{
    struct coh_seq_slot *sl = obj;
    struct coh_seq *q = sl->q;
    if (sl->again) {
        sl->again = false;
        log_op(q, sl->ch, sl->second);
        start_op(q, &q->m->l2[sl->ch], sl->second, slot_done, sl);
    }
    seq_one_done(s, q);
}

/* The guard count of 1 keeps done() from running before every op started
 * (an op on an empty cache may finish within its start). */
static void seq_begin(struct coh_seq *q, coh_done_fn done, void *arg)
{
    q->outstanding = 1;
    q->done = done;
    q->arg = arg;
}

void coh_all_l1(struct coh_seq *q, enum coh_cache_op op, coh_done_fn done, void *arg)
{
    seq_begin(q, done, arg);
    for (unsigned i = 0; i < q->m->ncu; i++)
        start_op(q, &q->m->l1[i], op, seq_one_done, q);
    seq_one_done(q->m->s, q);
}

void coh_l2_each(struct coh_seq *q, const enum coh_cache_op (*ops)[2], coh_done_fn done,
                 void *arg)
{
    seq_begin(q, done, arg);
    for (unsigned c = 0; c < q->m->nch; c++) {
        struct coh_seq_slot *sl = &q->slot[c];
        enum coh_cache_op op = ops[c][0] != COH_NONE ? ops[c][0] : ops[c][1];
        if (op == COH_NONE)
            continue;
        sl->again = ops[c][0] != COH_NONE && ops[c][1] != COH_NONE;
        sl->second = ops[c][1];
        log_op(q, c, op);
        start_op(q, &q->m->l2[c], op, slot_done, sl);
    }
    seq_one_done(q->m->s, q);
}

void coh_l2_pair(struct coh_seq *q, uint64_t mask1, enum coh_cache_op first, uint64_t mask2,
                 enum coh_cache_op second, coh_done_fn done, void *arg)
{
    enum coh_cache_op ops[COH_MAX_CHIPLETS][2];
    for (unsigned c = 0; c < q->m->nch; c++) {
        ops[c][0] = mask1 >> c & 1 ? first : COH_NONE;
        ops[c][1] = mask2 >> c & 1 ? second : COH_NONE;
    }
    coh_l2_each(q, (const enum coh_cache_op (*)[2])ops, done, arg);
}

void coh_l2s(struct coh_seq *q, uint64_t chiplets, enum coh_cache_op op, coh_done_fn done,
             void *arg)
{
    coh_l2_pair(q, chiplets, op, 0, op, done, arg);
}

/* ---- command-processor rounds ------------------------------------------- */

void coh_cp_timing(struct coh_machine *m, double cp_mhz, unsigned unicast_cycles,
                   unsigned broadcast_cycles)
{
    m->cp_period_ps = 1e6 / cp_mhz;
    m->cp_unicast_ps = (ps_t)(m->cp_period_ps * unicast_cycles + 0.5);
    m->cp_broadcast_ps = (ps_t)(m->cp_period_ps * broadcast_cycles + 0.5);
}

static void round_ops_ev(struct sim *s, void *obj, uint64_t arg)
{
    (void)s;
    (void)arg;
    struct coh_round *r = obj;
    r->ops(r->obj);
}

static void round_end_ev(struct sim *s, void *obj, uint64_t arg)
{
    (void)arg;
    struct coh_round *r = obj;
    r->done(s, r->arg);
}

void coh_round(struct coh_round *r, const struct coh_machine *m, ps_t at, unsigned targets,
               bool enable, void (*ops)(void *obj), void *obj, coh_done_fn done, void *arg)
{
    *r = (struct coh_round){.m = m, .enable = enable, .ops = ops, .obj = obj, .done = done,
                            .arg = arg};
    ps_t msg = targets > 1 ? m->cp_broadcast_ps : m->cp_unicast_ps;
    sim_at(m->s, (at > m->s->now ? at : m->s->now) + msg, round_ops_ev, r, 0);
}

void coh_round_ops_done(struct sim *s, void *round)
{
    struct coh_round *r = round;
    ps_t back = r->m->cp_unicast_ps + (r->enable ? r->m->cp_broadcast_ps : 0);
    sim_after(s, back, round_end_ev, r, 0);
}

/* ---- walks inside kernels ------------------------------------------------ */

void coh_walkq_init(struct coh_walkq *q, struct sim *s, struct cache *c)
{
    *q = (struct coh_walkq){.s = s, .c = c};
}

void coh_walkq_free(struct coh_walkq *q)
{
    free(q->w);
    q->w = NULL;
}

static void walkq_start(struct coh_walkq *q);

static void walkq_done(struct sim *s, void *obj)
{
    struct coh_walkq *q = obj;
    struct coh_walk_wait done[64];
    size_t k = q->running;
    while (k) { /* hand back the batch, at most 64 at a time, before its callbacks run */
        size_t m = k < 64 ? k : 64;
        memcpy(done, q->w, m * sizeof *done);
        memmove(q->w, q->w + m, (q->n - m) * sizeof *q->w);
        q->n -= m;
        k -= m;
        q->running = k;
        for (size_t i = 0; i < m; i++)
            done[i].fn(s, done[i].arg);
    }
    if (q->n && !q->running)
        walkq_start(q);
}

static void walkq_start(struct coh_walkq *q)
{
    size_t k = 1;
    while (k < q->n && q->w[k].op == q->w[0].op)
        k++;
    q->running = k;
    if (q->w[0].op == COH_FLUSH)
        q->flushes++;
    else
        q->invalidates++;
    walk(q->s, q->c, q->w[0].op, walkq_done, q);
}

void coh_walkq_add(struct coh_walkq *q, int op, coh_done_fn fn, void *arg)
{
    q->w = xgrow(q->w, sizeof *q->w, &q->cap, q->n + 1);
    q->w[q->n++] = (struct coh_walk_wait){fn, arg, (uint8_t)op};
    if (!q->running)
        walkq_start(q);
}

/* ---- scoped synchronization under D4 ---------------------------------------- */

struct d4_step {
    const struct coh_machine *m;
    struct coh_d4_sync *y;
    unsigned cu;
    coh_done_fn fn;
    void *arg;
};

void coh_d4_sync_init(struct coh_d4_sync *y) { pool_init(&y->steps, sizeof(struct d4_step), 64); }

void coh_d4_sync_free(struct coh_d4_sync *y) { pool_destroy(&y->steps); }

void coh_d4_release(const struct coh_machine *m, const struct coh_d4 *d, unsigned cu,
                    enum mem_scope scope, coh_done_fn done, void *arg)
{
    if (scope >= SCOPE_GPU && d->store_local)
        coh_walkq_add(&m->l2q[cu / m->cu_per_ch], COH_FLUSH, done, arg);
    else
        done(m->s, arg);
}

static void d4_l2_invalidated(struct sim *s, void *obj)
{
    (void)s;
    struct d4_step st = *(struct d4_step *)obj;
    pool_put(&st.y->steps, obj);
    coh_walkq_add(&st.m->l1q[st.cu], COH_INVALIDATE, st.fn, st.arg);
}

void coh_d4_acquire(const struct coh_machine *m, const struct coh_d4 *d, struct coh_d4_sync *y,
                    unsigned cu, enum mem_scope scope, coh_done_fn done, void *arg)
{
    if (scope < SCOPE_GPU || y->skip_acquire_inv) {
        done(m->s, arg);
    } else if (!d->read_alloc) {
        coh_walkq_add(&m->l1q[cu], COH_INVALIDATE, done, arg);
    } else {
        struct d4_step *st = pool_get(&y->steps);
        *st = (struct d4_step){m, y, cu, done, arg};
        coh_walkq_add(&m->l2q[cu / m->cu_per_ch], COH_INVALIDATE_CLEAN, d4_l2_invalidated, st);
    }
}

/* ---- the L1s' launch round ------------------------------------------------ */

void coh_l1_launch_init(struct coh_l1_launch *l, const struct coh_machine *m, uint64_t *count,
                        bool skip)
{
    coh_seq_init(&l->q, m);
    l->count = count;
    l->skip = skip;
}

static void l1_launch_ops(void *obj)
{
    struct coh_l1_launch *l = obj;
    if (l->skip) {
        coh_round_ops_done(l->q.m->s, &l->round);
        return;
    }
    if (l->count)
        (*l->count)++;
    coh_all_l1(&l->q, COH_INVALIDATE, coh_round_ops_done, &l->round);
}

void coh_l1_launch(struct coh_l1_launch *l, const struct coh_kernel *k, coh_done_fn done,
                   void *arg)
{
    const struct coh_machine *m = l->q.m;
    l->q.kernel = k->id;
    coh_round(&l->round, m, m->s->now, m->nch, true, l1_launch_ops, l, done, arg);
}
