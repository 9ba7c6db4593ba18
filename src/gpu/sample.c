/*
 * sample.c -- kernel sampling (see sample.h and docs/sampling.md).
 */
#include "sample.h"

#include <math.h>
#include <stdlib.h>

const struct cfg_key sample_keys[] = {
    {"enable", CFG_BOOL, "false", 0, 0,
     "run only some kernels of each group of alike kernels in detail, the others functionally "
     "with their time estimated (docs/sampling.md)", NULL},
    {"first", CFG_INT, "2", 1, 1e9, "kernels of each group run in detail before any is skipped",
     NULL},
    {"every", CFG_INT, "10", 1, 1e9,
     "after those, one kernel in `every` of each group runs in detail (1: all), at first",
     NULL},
    {"backoff", CFG_INT, "8", 1, 1e6,
     "each of those periodic kernels whose estimate was within `tolerance` doubles its "
     "group's gap to the next one, up to `backoff` x `every` kernels; a miss sets it back to "
     "`every` (1: a fixed gap; with every = 1 every kernel runs in detail)", NULL},
    {"reach", CFG_FLOAT, "0.1", 0, 1e9,
     "a kernel also runs in detail when its group's last kernel ran more warp instructions "
     "than the detailed ones the estimate is fitted on by more than this fraction, or fewer "
     "(an estimate interpolates rather than extrapolates)", NULL},
    {"tolerance", CFG_FLOAT, "0.02", 0, 1e9,
     "a group's kernels keep running in detail while the last of them checked differed from "
     "its estimate by more than this fraction of its time", NULL},
    {"warm", CFG_INT, "0", 0, SAMPLE_WARM_MAX,
     "a kernel also runs in detail when one of the next `warm` kernels will, so that it starts "
     "from the caches a timed kernel leaves; the next kernels are predicted from the order in "
     "which the groups ran last (0: off)", NULL},
    CFG_END,
};

int sample_params_from_cfg(const struct cfg_sec *sec, struct sample_params *p, struct err *e)
{
    (void)e;
    *p = (struct sample_params){.on = cfg_bool(sec, "enable"),
                                .first = (uint32_t)cfg_uint(sec, "first"),
                                .every = (uint32_t)cfg_uint(sec, "every"),
                                .backoff = (uint32_t)cfg_uint(sec, "backoff"),
                                .reach = cfg_float(sec, "reach"),
                                .tolerance = cfg_float(sec, "tolerance"),
                                .warm = (uint32_t)cfg_uint(sec, "warm")};
    return 0;
}

static const struct stat_desc sample_desc[] = {
    STAT_DESC(__typeof__(((struct sample *)0)->st), groups, "groups of alike kernels"),
    STAT_DESC(__typeof__(((struct sample *)0)->st), detailed, "kernels run in detail"),
    STAT_DESC(__typeof__(((struct sample *)0)->st), skipped,
              "kernels run functionally, their time estimated"),
    STAT_DESC(__typeof__(((struct sample *)0)->st), warmed,
              "of the detailed kernels, those run in detail only because one of the next "
              "sample.warm kernels was to be"),
    STAT_DESC(__typeof__(((struct sample *)0)->st), skipped_insts,
              "warp instructions of the skipped kernels"),
    STAT_DESC(__typeof__(((struct sample *)0)->st), skipped_ps,
              "estimated run time of the skipped kernels, ps"),
    STAT_DESC(__typeof__(((struct sample *)0)->st), drain_ps,
              "of that time, the part from their dispatch until the traffic of the kernel "
              "before them had drained (their functional pass waits for it), ps"),
    STAT_DESC(__typeof__(((struct sample *)0)->st), checked,
              "detailed kernels whose run time was predicted before they ran"),
    STAT_DESC(__typeof__(((struct sample *)0)->st), checked_ps, "their run time, ps"),
    STAT_DESC(__typeof__(((struct sample *)0)->st), checked_err_ps,
              "the sum of the predictions' absolute errors, ps"),
    STAT_DESC(__typeof__(((struct sample *)0)->st), error_ps,
              "the estimate's error: skipped_ps x checked_err_ps / checked_ps (skipped_ps "
              "while none was checked), ps"),
    {0},
};

void sample_init(struct sample *sm, const struct sample_params *p)
{
    *sm = (struct sample){.p = *p};
    uint64_t most = p->every > 1 && p->backoff > 1 ? (uint64_t)p->every * p->backoff : p->every;
    sm->max_gap = most < UINT32_MAX ? (uint32_t)most : UINT32_MAX;
}

void sample_free(struct sample *sm)
{
    free(sm->g);
    *sm = (struct sample){0};
}

void sample_reg_stats(struct sample *sm, struct stats *st, const char *prefix)
{
    stats_reg_block(st, prefix, sample_desc, &sm->st);
}

static uint64_t mix(uint64_t h, uint64_t x) { return hash64(h ^ x) + 0x9e3779b97f4a7c15ull; }

static uint64_t signature(const struct kernel *k)
{
    uint64_t h = 0;
    for (const char *c = k->name; *c; c++)
        h = mix(h, (unsigned char)*c);
    h = mix(h, (uint64_t)k->grid.x << 32 | k->grid.y);
    h = mix(h, (uint64_t)k->grid.z << 32 | k->block.x);
    h = mix(h, (uint64_t)k->block.y << 32 | k->block.z);
    for (unsigned a = 0; a < k->nargs; a++) {
        h = mix(h, k->args[a].buf->base);
        h = mix(h, k->args[a].buf->size << 1 | (k->args[a].mode == KERNEL_RW));
    }
    return h;
}

/* The points the group's estimate is fitted on: its latest detailed kernels
 * after its first, or the first while it is the only one. */
static unsigned points(const struct sample_group *g, const uint64_t **x, const ps_t **y)
{
    if (g->n) {
        *x = g->x;
        *y = g->y;
        return g->n;
    }
    *x = &g->x0;
    *y = &g->y0;
    return g->have0;
}

/* Whether x warp instructions lie within reach of the instruction counts of
 * the points the estimate is fitted on. */
static bool in_reach(const struct sample *sm, const struct sample_group *g, uint64_t x)
{
    const uint64_t *px;
    const ps_t *py;
    unsigned n = points(g, &px, &py);
    uint64_t lo = UINT64_MAX, hi = 0;
    for (unsigned i = 0; i < n; i++) {
        lo = px[i] < lo ? px[i] : lo;
        hi = px[i] > hi ? px[i] : hi;
    }
    double r = 1 + sm->p.reach;
    return n && (double)x * r >= (double)lo && (double)x <= (double)hi * r;
}

/* Would the group's kernel of index n run in detail (its last kernel's work
 * and its last miss as they stand)? */
static bool in_detail(const struct sample *sm, const struct sample_group *g, uint32_t n)
{
    return !sm->p.on || g->sync || n < sm->p.first || n == g->due ||
           !in_reach(sm, g, g->last) || g->miss > sm->p.tolerance;
}

/* Will one of the next p.warm kernels after one of group gi run in detail?
 * Each group is followed by the group that followed it last time. */
static bool detail_ahead(const struct sample *sm, unsigned gi)
{
    unsigned chain[SAMPLE_WARM_MAX + 1] = {gi};
    for (unsigned j = 1; j <= sm->p.warm; j++) {
        uint32_t succ = sm->g[chain[j - 1]].succ;
        if (!succ)
            return false;
        chain[j] = succ - 1;
        uint32_t n = sm->g[chain[j]].seen; /* its next index, past those ahead of it */
        for (unsigned t = 1; t < j; t++)
            n += chain[t] == chain[j];
        if (in_detail(sm, &sm->g[chain[j]], n))
            return true;
    }
    return false;
}

unsigned sample_begin(struct sample *sm, const struct kernel *k, bool *detailed)
{
    uint64_t sig = signature(k);
    size_t i = 0;
    while (i < sm->ng && sm->g[i].sig != sig)
        i++;
    if (i == sm->ng) {
        sm->g = xgrow(sm->g, sizeof *sm->g, &sm->cap, sm->ng + 1);
        sm->g[sm->ng++] = (struct sample_group){
            .sig = sig, .gap = sm->p.every, .due = sm->p.first + sm->p.every - 1};
        sm->st.groups++;
    }
    if (sm->prev)
        sm->g[sm->prev - 1].succ = (uint32_t)i + 1;
    sm->prev = (uint32_t)i + 1;
    struct sample_group *g = &sm->g[i];
    uint32_t n = g->seen++;
    g->due_now = n == g->due; /* the next is due when this one has been checked */
    *detailed = in_detail(sm, g, n);
    if (!*detailed && sm->p.warm && detail_ahead(sm, (unsigned)i)) {
        *detailed = true;
        sm->st.warmed++;
    }
    return (unsigned)i;
}

/* Least squares through the points when their instruction counts differ
 * (and the line stays positive at x), else their mean time in proportion to
 * their mean count. */
static double predict(const struct sample_group *g, uint64_t x)
{
    const uint64_t *px;
    const ps_t *py;
    unsigned n = points(g, &px, &py);
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (unsigned i = 0; i < n; i++) {
        sx += (double)px[i];
        sy += (double)py[i];
        sxx += (double)px[i] * (double)px[i];
        sxy += (double)px[i] * (double)py[i];
    }
    double d = n * sxx - sx * sx;
    if (n >= 2 && d > 1e-9 * n * sxx) {
        double b = (n * sxy - sx * sy) / d, a = (sy - b * sx) / n;
        if (a + b * (double)x > 0)
            return a + b * (double)x;
    }
    return sx > 0 ? (double)x * sy / sx : sy / n;
}

/* With no detailed kernel predicted, nothing bounds the estimate but itself:
 * the whole estimated time counts as the error. */
static void update_error(struct sample *sm)
{
    sm->st.error_ps = sm->st.checked_ps ? (uint64_t)llround((double)sm->st.skipped_ps *
                                                            (double)sm->st.checked_err_ps /
                                                            (double)sm->st.checked_ps)
                                        : sm->st.skipped_ps;
}

void sample_detailed(struct sample *sm, unsigned gi, uint64_t insts, ps_t run_ps, bool sync)
{
    struct sample_group *g = &sm->g[gi];
    g->sync |= sync;
    sm->st.detailed++;
    /* checked as a skipped kernel would be estimated: only within reach */
    bool confirmed = false;
    if (sm->p.on && in_reach(sm, g, insts)) {
        double err = fabs(predict(g, insts) - (double)run_ps);
        sm->st.checked++;
        sm->st.checked_ps += run_ps;
        sm->st.checked_err_ps += (uint64_t)llround(err);
        g->miss = run_ps ? err / (double)run_ps : 0;
        confirmed = g->miss <= sm->p.tolerance;
        update_error(sm);
    }
    if (g->due_now) { /* a periodic kernel: the gap to the next */
        g->gap = !confirmed ? sm->p.every
                 : g->gap > sm->max_gap / 2 ? sm->max_gap
                                            : 2 * g->gap;
        g->due += g->gap;
        g->due_now = false;
    }
    if (!g->have0) {
        g->x0 = insts;
        g->y0 = run_ps;
        g->have0 = true;
    } else {
        g->x[g->next] = insts;
        g->y[g->next] = run_ps;
        g->next = (g->next + 1) % SAMPLE_WINDOW;
        g->n += g->n < SAMPLE_WINDOW;
    }
    g->last = insts;
}

ps_t sample_skipped(struct sample *sm, unsigned gi, uint64_t insts, bool sync, ps_t waited)
{
    struct sample_group *g = &sm->g[gi];
    ps_t est = (ps_t)llround(predict(g, insts));
    g->sync |= sync;
    g->last = insts;
    sm->st.skipped++;
    sm->st.skipped_insts += insts;
    sm->st.skipped_ps += est;
    sm->st.drain_ps += waited < est ? waited : est;
    update_error(sm);
    return waited < est ? est : waited;
}
