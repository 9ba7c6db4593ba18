/*
 * wgsched.c -- the work-group scheduler's keys, per-kernel queues and
 * dispatch order (see wgsched.h); the policies are in wgs_policies.c.
 */
#include "wgsched.h"

#include <stdlib.h>
#include <string.h>

const struct cfg_key wgs_keys[] = {
    /* static: spec cpelide 2.3; the others: docs/sched.md */
    {"policy", CFG_ENUM, "static", 0, 0,
     "work-group to chiplet/CU mapping: static (a contiguous block per chiplet), round_robin "
     "(work-group i on chiplet i mod k), batched (batches of `batch` round-robin), hierarchical "
     "(a block per GPU, then batches of `hier_batch` round-robin over its chiplets), partition "
     "(a block per GPU, then one contiguous chunk per CU), ladm (LASP: by the locality of the "
     "kernel's largest buffer), coda (batches filling one [place] interleave unit, "
     "round-robin) or hcoda (coda's batches over the GPUs, then over each GPU's chiplets)",
     wgs_choices},
    /* spec ladm 2: Batch+FT hands out batches of 4-8 consecutive threadblocks */
    {"batch", CFG_INT, "4", 1, 1 << 24, "consecutive work-groups per batch under `batched`",
     NULL},
    /* spec ladm 7 and L13: single work-groups round-robin over a GPU's chiplets */
    {"hier_batch", CFG_INT, "1", 1, 1 << 24,
     "consecutive work-groups per batch of the round-robin over a GPU's chiplets under "
     "`hierarchical`", NULL},
    /* spec dualopt 10.2: MGPUSim's round-robin and greedy CU choice */
    {"cu_order", CFG_ENUM, "round_robin", 0, 0,
     "which CU with room a chiplet's CP serves next: round_robin (from the CU after the one "
     "visited last) or greedy (from CU 0)", "round_robin|greedy"},
    /* spec cpelide D12 */
    {"chiplets_per_kernel", CFG_INT, "0", 0, 4096,
     "chiplets each kernel uses, global chiplets 0 .. k-1 (0 = all)", NULL},
    CFG_END,
};

const struct wgs_ops *wgs_find(const char *name)
{
    for (const struct wgs_ops *const *o = wgs_registry; *o; o++)
        if (!strcmp((*o)->name, name))
            return *o;
    return NULL;
}

int wgs_init(struct wgs *w, const struct topo *t, const struct wgs_params *p,
             const struct cfg_sec *sec, struct err *e)
{
    *w = (struct wgs){.t = *t, .p = *p};
    w->qper = t->cus + 1;
    w->nq = topo_nchiplets(t) * w->qper;
    w->qstart = xcalloc(w->nq + 1, sizeof *w->qstart);
    w->qhead = xcalloc(w->nq, sizeof *w->qhead);
    w->left = xcalloc(topo_nchiplets(t), sizeof *w->left);
    if (p->ops->create && !(w->self = p->ops->create(sec, t, e))) {
        wgs_free(w);
        return -1;
    }
    return 0;
}

int wgs_init_cfg(struct wgs *w, const struct cfg_sec *sec, const struct topo *t, struct err *e)
{
    const char *name = cfg_item(sec, "policy")->value;
    struct wgs_params p = {
        .ops = wgs_find(name),
        .batch = (unsigned)cfg_uint(sec, "batch"),
        .hier_batch = (unsigned)cfg_uint(sec, "hier_batch"),
        .chiplets_per_kernel = (unsigned)cfg_uint(sec, "chiplets_per_kernel"),
        .cu_order = (enum wgs_cu_order)cfg_enum(sec, "cu_order"),
    };
    BUG_ON(!p.ops); /* the key's choices are the registry's names */
    return wgs_init(w, t, &p, sec, e);
}

void wgs_free(struct wgs *w)
{
    if (w->self && w->p.ops->destroy)
        w->p.ops->destroy(w->self);
    free(w->tgt);
    free(w->order);
    free(w->qstart);
    free(w->qhead);
    free(w->left);
    *w = (struct wgs){0};
}

unsigned wgs_used(const struct wgs *w)
{
    unsigned k = w->p.chiplets_per_kernel, nch = topo_nchiplets(&w->t);
    return k && k < nch ? k : nch;
}

static unsigned queue_of(const struct wgs *w, struct wgs_target t)
{
    return t.chiplet * w->qper + (t.cu == WGS_ANY_CU ? 0 : t.cu + 1u);
}

static void check_targets(const struct wgs *w, unsigned used)
{
    for (uint32_t i = 0; i < w->n; i++) {
        struct wgs_target t = w->tgt[i];
        if (t.chiplet >= used || (t.cu != WGS_ANY_CU && t.cu >= w->t.cus))
            BUG("work-group policy %s: work-group %u on chiplet %u CU %u (%u chiplets used, "
                "%u CUs each)", w->p.ops->name, i, t.chiplet, t.cu, used, w->t.cus);
    }
}

/* Counting sort of the work-groups by queue; ascending ids within each. */
static void fill_queues(struct wgs *w)
{
    memset(w->qstart, 0, (w->nq + 1) * sizeof *w->qstart);
    memset(w->left, 0, topo_nchiplets(&w->t) * sizeof *w->left);
    for (uint32_t i = 0; i < w->n; i++) {
        w->qstart[queue_of(w, w->tgt[i]) + 1]++;
        w->left[w->tgt[i].chiplet]++;
    }
    for (unsigned q = 0; q < w->nq; q++)
        w->qstart[q + 1] += w->qstart[q];
    memcpy(w->qhead, w->qstart, w->nq * sizeof *w->qhead);
    for (uint32_t i = 0; i < w->n; i++)
        w->order[w->qhead[queue_of(w, w->tgt[i])]++] = i;
    memcpy(w->qhead, w->qstart, w->nq * sizeof *w->qhead);
}

void wgs_plan(struct wgs *w, const struct sched_launch *l)
{
    uint32_t n = sched_nwg(l);
    unsigned used = wgs_used(w);
    if (n > w->cap) {
        w->cap = max_u64(n, 2 * w->cap);
        w->tgt = xrealloc(w->tgt, w->cap * sizeof *w->tgt);
        w->order = xrealloc(w->order, w->cap * sizeof *w->order);
    }
    w->n = n;
    struct wgs_ctx x = {.t = &w->t, .p = &w->p, .l = l, .n = n, .used = used};
    if (n)
        w->p.ops->map(w->self, &x, w->tgt);
    check_targets(w, used);
    fill_queues(w);
}

static bool queue_more(const struct wgs *w, unsigned q) { return w->qhead[q] < w->qstart[q + 1]; }

bool wgs_has(const struct wgs *w, unsigned ch, unsigned cu)
{
    unsigned q = ch * w->qper;
    return queue_more(w, q + 1 + cu) || queue_more(w, q);
}

uint32_t wgs_take(struct wgs *w, unsigned ch, unsigned cu)
{
    unsigned q = ch * w->qper;
    q = queue_more(w, q + 1 + cu) ? q + 1 + cu : q;
    BUG_ON(!queue_more(w, q));
    w->left[ch]--;
    return w->order[w->qhead[q]++];
}

const uint32_t *wgs_chiplet_wgs(const struct wgs *w, unsigned ch, uint32_t *n)
{
    unsigned q = ch * w->qper;
    *n = w->qstart[q + w->qper] - w->qstart[q];
    return w->order + w->qstart[q];
}

void wgs_define_section(struct cfg *c)
{
    cfg_define(c, "sched", "work-group scheduling: the chiplet and CU of each work-group",
               wgs_keys, NULL);
    for (const struct wgs_ops *const *o = wgs_registry; *o; o++)
        if ((*o)->keys)
            cfg_define(c, "sched", NULL, (*o)->keys, NULL);
}
