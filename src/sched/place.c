/*
 * place.c -- the page table, the placement rules, buffers' first launches,
 * and the first-touch fault gates (see place.h); the policies are in
 * place_policies.c.
 */
#include "place.h"

#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"

#define PLACE_HOME_MASK 0xffffull
#define PLACE_F_FAULT (1ull << 16) /* placed by a kernel access; fault not yet served */

const struct cfg_key place_keys[] = {
    {"policy", CFG_ENUM, "first_touch", 0, 0,
     "page placement: first_touch (home = chiplet of the first toucher), interleave (unit i on "
     "chiplet i mod N), chunk (each buffer a kernel declares: a contiguous run of pages per "
     "GPU, then per chiplet; other pages by first touch) or ladm (LASP: each buffer a kernel "
     "declares by its locality class at its first launch; other pages by first touch)",
     place_choices},
    /* spec cpelide 2.3 and ladm L1: 4 KB; ladm L1 and hmg H1: 64 KB, 2 MB as options */
    {"page_b", CFG_INT, "4096", 4096, 2 << 20,
     "placement page size in bytes (a power of two; also the alignment of buffers)", NULL},
    /* spec ladm 6 Eq. 3.1 (page multiples) and L12 (CODA's 1 KB sub-pages) */
    {"interleave_b", CFG_INT, "0", 0, 1 << 30,
     "unit of `interleave` in bytes: a power of two below page_b (sub-page) or a multiple of "
     "page_b (0 = page_b)", NULL},
    /* spec ladm L12: H-CODA interleaves over the GPUs, then over each GPU's chiplets */
    {"interleave_order", CFG_ENUM, "flat", 0, 0,
     "`interleave`: unit i on chiplet i mod N (flat), or on GPU i mod G and there on its "
     "chiplet (i / G) mod C (hier, H-CODA's)", "flat|hier"},
    /* spec dualopt 2.2 (contiguous), ladm L4 (page round-robin inside a GPU) */
    {"chunk_chiplets", CFG_ENUM, "contiguous", 0, 0,
     "`chunk`: a GPU's run of a buffer's pages over its chiplets, split the same way "
     "(contiguous) or page i of the run on chiplet i mod chiplets (interleave)",
     "contiguous|interleave"},
    /* spec ladm 1 and L12: Batch+FT 20 us (50 as option); CPElide's first touch: free */
    {"fault_us", CFG_FLOAT, "0", 0, 1e6,
     "first-touch page fault, us: requests to a page a kernel access placed wait this long "
     "from the first of them leaving an L1", NULL},
    /* no spec gives a figure: 0 */
    {"migrate_us", CFG_FLOAT, "0", 0, 1e6,
     "moving one placed page to another home (a policy placing a buffer at its first launch), "
     "us; the launch waits for the moves one after another", NULL},
    CFG_END,
};

const struct place_ops *place_find(const char *name)
{
    for (const struct place_ops *const *o = place_registry; *o; o++)
        if (!strcmp((*o)->name, name))
            return *o;
    return NULL;
}

void place_init(struct place *p, const struct place_params *pp, const struct topo *t)
{
    *p = (struct place){.p = *pp, .t = *t, .page_shift = ilog2(pp->page_b),
                        .nhomes = topo_nchiplets(t)};
    if (!p->p.interleave_b)
        p->p.interleave_b = pp->page_b;
    pagemap_init(&p->pages);
    u64map_init(&p->faults, 16);
    u64map_init(&p->bufs, 16);
}

static int check_interleave(const struct cfg_sec *sec, uint64_t page_b, uint64_t ilv,
                            struct err *e)
{
    if (!ilv || (ilv >= page_b && ilv % page_b == 0) || (ilv < page_b && is_pow2(ilv) && ilv >= 64))
        return 0;
    return cfg_err(e, sec, "interleave_b",
                   ilv < page_b ? "below page_b: must be a power of two of at least 64"
                                : "not a multiple of page_b (%llu)",
                   (unsigned long long)page_b);
}

int place_init_cfg(struct place *p, const struct cfg_sec *sec, const struct topo *t,
                   struct err *e)
{
    struct place_params pp = {
        .ops = place_find(cfg_item(sec, "policy")->value),
        .page_b = cfg_uint(sec, "page_b"),
        .interleave_b = cfg_uint(sec, "interleave_b"),
        .chunk_chiplets = (enum place_chunk_chiplets)cfg_enum(sec, "chunk_chiplets"),
        .interleave_hier = cfg_enum(sec, "interleave_order") == 1,
        .fault_ps = (ps_t)(cfg_float(sec, "fault_us") * 1e6 + 0.5),
        .migrate_ps = (ps_t)(cfg_float(sec, "migrate_us") * 1e6 + 0.5),
    };
    BUG_ON(!pp.ops); /* the key's choices are the registry's names */
    if (!is_pow2(pp.page_b))
        return cfg_err(e, sec, "page_b", "not a power of two");
    if (check_interleave(sec, pp.page_b, pp.interleave_b, e))
        return -1;
    place_init(p, &pp, t);
    return 0;
}

void place_free(struct place *p)
{
    pagemap_free(&p->pages);
    u64map_free(&p->faults);
    u64map_free(&p->bufs);
    free(p->gates);
    *p = (struct place){0};
}

void place_reg_stats(struct place *p, struct stats *st, const char *prefix)
{
    stats_reg(st, prefix, "first_touches", &p->st.first_touches,
              "pages placed by a kernel's first touch");
    stats_reg(st, prefix, "faults", &p->st.faults,
              "first-touch page faults served (place.fault_us > 0)");
    stats_reg(st, prefix, "fault_waits", &p->st.fault_waits,
              "requests that left an L1 while their page's fault was served");
    stats_reg(st, prefix, "policy_pages", &p->st.policy_pages,
              "pages the placement policy placed at their buffer's first launch");
    stats_reg(st, prefix, "migrations", &p->st.migrations,
              "placed pages the placement policy moved to another home");
}

/* ---- homes ------------------------------------------------------------------ */

static unsigned interleave_home(const struct place *p, addr_t addr)
{
    uint64_t u = addr / p->p.interleave_b;
    if (!p->p.interleave_hier)
        return (unsigned)(u % p->nhomes);
    unsigned g = (unsigned)(u % p->t.gpus);
    return g * p->t.chiplets + (unsigned)((u / p->t.gpus) % p->t.chiplets);
}

unsigned place_home(struct place *p, addr_t addr, unsigned toucher)
{
    uint64_t page = addr >> p->page_shift;
    if (p->p.ops->rule == PLACE_INTERLEAVE) {
        const uint64_t *v = p->pages.n ? pagemap_get(&p->pages, page) : NULL;
        return v ? (unsigned)(*v & PLACE_HOME_MASK) : interleave_home(p, addr);
    }
    bool added;
    uint64_t *home = pagemap_put(&p->pages, page, &added);
    if (added) {
        *home = toucher | (p->p.fault_ps ? PLACE_F_FAULT : 0);
        p->st.first_touches++;
    }
    return (unsigned)(*home & PLACE_HOME_MASK);
}

int place_lookup(const struct place *p, addr_t addr)
{
    const uint64_t *v = pagemap_get(&p->pages, addr >> p->page_shift);
    if (v)
        return (int)(*v & PLACE_HOME_MASK);
    return p->p.ops->rule == PLACE_INTERLEAVE ? (int)interleave_home(p, addr) : -1;
}

void place_copy(struct place *p, addr_t addr, unsigned home)
{
    if (p->p.ops->rule == PLACE_INTERLEAVE)
        return;
    bool added;
    uint64_t *v = pagemap_put(&p->pages, addr >> p->page_shift, &added);
    if (added)
        *v = home;
}

void place_set(struct place *p, addr_t addr, unsigned home)
{
    BUG_ON(home >= p->nhomes);
    bool added;
    uint64_t *v = pagemap_put(&p->pages, addr >> p->page_shift, &added);
    if (!added && (*v & PLACE_HOME_MASK) != home) {
        p->st.migrations++;
        p->owed_ps += p->p.migrate_ps;
    }
    *v = home;
    p->st.policy_pages++;
}

ps_t place_launch(struct place *p, const struct sched_launch *l)
{
    p->owed_ps = 0;
    if (!p->p.ops->first_launch)
        return 0;
    for (unsigned b = 0; b < l->nbufs; b++) {
        size_t n = p->bufs.n;
        u64map_put(&p->bufs, l->bufs[b].base);
        if (p->bufs.n != n)
            p->p.ops->first_launch(p, l, b);
    }
    return p->owed_ps;
}

/* ---- first-touch faults -------------------------------------------------------- */

ps_t place_ready(struct place *p, addr_t addr, ps_t now)
{
    uint64_t page = addr >> p->page_shift;
    uint64_t *v = pagemap_get(&p->pages, page);
    if (!v || !(*v & PLACE_F_FAULT))
        return 0;
    size_t n = p->faults.n;
    uint64_t *ready = u64map_put(&p->faults, page);
    if (p->faults.n != n) {
        *ready = now + p->p.fault_ps;
        p->st.faults++;
    }
    if (*ready > now)
        return *ready;
    *v &= ~PLACE_F_FAULT;
    u64map_del(&p->faults, page);
    return 0;
}

static void gate_release(struct sim *s, void *obj, uint64_t arg)
{
    struct place_gate *g = obj;
    mem_send(s, &g->down, (struct req *)(uintptr_t)arg);
}

/* A long fault keeps the deadlock watchdog informed that nothing is stuck. */
static void fault_tick(struct sim *s, void *obj, uint64_t until)
{
    (void)obj;
    sim_progress(s);
    ps_t step = s->watchdog_ps / 2;
    if (step && s->now + step < until)
        sim_at(s, s->now + step, fault_tick, NULL, until);
}

static void gate_access(struct sim *s, void *self, struct req *r)
{
    struct place_gate *g = self;
    if (s->functional) { /* a page fault takes no time */
        mem_send(s, &g->down, r);
        return;
    }
    uint64_t faults = g->p->st.faults;
    ps_t t = place_ready(g->p, r->addr, s->now);
    if (t <= s->now) {
        mem_send(s, &g->down, r);
        return;
    }
    g->p->st.fault_waits++;
    if (g->p->st.faults != faults)
        fault_tick(s, NULL, t);
    sim_at(s, t, gate_release, g, (uint64_t)(uintptr_t)r);
}

void place_gate_l1s(struct place *p, struct cache *l1, unsigned n)
{
    if (!p->p.fault_ps)
        return;
    p->gates = xcalloc(n, sizeof *p->gates);
    p->ngates = n;
    for (unsigned i = 0; i < n; i++) {
        p->gates[i] = (struct place_gate){p, l1[i].lower};
        l1[i].lower = (struct mem_port){gate_access, &p->gates[i]};
    }
}

void place_define_section(struct cfg *c)
{
    cfg_define(c, "place", "page placement and its costs", place_keys, NULL);
    for (const struct place_ops *const *o = place_registry; *o; o++)
        if ((*o)->keys)
            cfg_define(c, "place", NULL, (*o)->keys, NULL);
}
