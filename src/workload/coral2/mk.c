/*
 * mk.c -- the op-script interpreter of mk.h. Warp state: pc is the step,
 * r[0] the loop counter j, r[1] the loop's trip count, r[2] the loop's step,
 * r[3] the offset and r[4] the sub-step of an MK_REDUCE.
 */
#include "mk.h"

unsigned mk_buf(struct mk_ctx *c, struct wl_env *env, const char *name, uint64_t items,
                uint32_t esize, uint32_t scale, unsigned nplanes)
{
    BUG_ON(c->nbufs == MK_MAX_BUFS);
    struct mk_buf *b = &c->buf[c->nbufs];
    uint64_t plane = items * scale;
    *b = (struct mk_buf){.esize = esize, .scale = scale, .plane = nplanes > 1 ? plane : 0};
    b->b = wl_alloc(env, name, plane * nplanes * esize);
    return c->nbufs++;
}

unsigned mk_lds(struct mk_ctx *c, uint32_t off, uint32_t esize)
{
    BUG_ON(c->nbufs == MK_MAX_BUFS);
    c->buf[c->nbufs] = (struct mk_buf){.esize = esize, .scale = 1, .lds_off = off};
    return c->nbufs++;
}

void mk_arg(struct mk_kernel *mk, unsigned buf, enum kernel_mode mode, bool ranged,
            unsigned nplanes)
{
    BUG_ON(mk->nargs == MK_MAX_ARGS);
    mk->args[mk->nargs++] = (struct mk_arg){(uint8_t)buf, (uint8_t)mode, ranged,
                                            (uint8_t)(nplanes ? nplanes : 1), NULL};
}

void mk_arg_rt(struct mk_kernel *mk, unsigned buf, enum kernel_mode mode, const uint32_t *rfirst)
{
    mk_arg(mk, buf, mode, true, 1);
    mk->args[mk->nargs - 1].rfirst = rfirst;
}

uint32_t mk_nwg(const struct mk_kernel *mk)
{
    return mk->wg_first ? mk->nwg : (uint32_t)div_ceil(mk->nitems, mk->block);
}

void mk_wg_items(const struct mk_kernel *mk, uint32_t wg, uint32_t *first, uint32_t *last)
{
    if (mk->wg_first) {
        *first = mk->wg_first[wg];
        *last = mk->wg_first[wg + 1];
        return;
    }
    *first = wg * mk->block;
    *last = (uint32_t)min_u64(mk->nitems, (uint64_t)*first + mk->block);
}

void mk_launch(struct mk_ctx *c, const struct mk_kernel *mk, struct kernel *k)
{
    wl_kernel_init(k, mk->name, mk_nwg(mk), 1, mk->block, 1, mk_next);
    k->lds_b = mk->lds_b;
    k->ranges = mk_ranges;
    k->ctx = mk;
    uint64_t sig =
        hash64(mk->nitems ^ hash64(mk->block ^ hash64((uintptr_t)mk->wg_first ^ mk_nwg(mk))));
    for (unsigned i = 0; i < mk->nargs; i++) {
        const struct mk_arg *a = &mk->args[i];
        struct mk_buf *b = &c->buf[a->buf];
        wl_kernel_arg(k, b->b, a->mode);
        uint64_t asig =
            hash64((a->rfirst ? hash64((uintptr_t)a->rfirst ^ mk_nwg(mk)) : sig) ^ a->nplanes);
        k->args[i].same_pattern = a->ranged && b->last_ranged && b->last_sig == asig;
        b->last_sig = asig;
        b->last_ranged = a->ranged;
    }
}

static int64_t map_val(const struct mk_map *m, uint64_t i, unsigned kk)
{
    return m->v[i * m->stride + kk * m->plane];
}

/* Element (item-index) that item i's lane touches in step s; -1: inactive. */
static int64_t step_index(const struct mk_ctx *c, const struct mk_step *s, uint64_t i, uint64_t j,
                          unsigned kk)
{
    if (s->flags & MK_IF && !map_val(&c->map[s->pred], i, kk))
        return -1;
    if (s->ix == MK_ITEM)
        return (int64_t)i;
    if (s->ix != MK_LIST && s->ix != MK_LPOS)
        return map_val(&c->map[s->map], i, kk);
    const struct mk_list *l = &c->list[s->map];
    uint64_t a = l->start[i] + j;
    if (a >= l->start[i + 1])
        return -1;
    return s->ix == MK_LPOS ? (int64_t)a : l->ent[a];
}

/* Whether map `pred` holds for any of the warp's items [i0, i0 + act). */
static bool any_pred(const struct mk_ctx *c, const struct mk_step *s, uint64_t i0, uint64_t act,
                     uint64_t j)
{
    unsigned kk = s->k + (s->flags & MK_J ? (unsigned)j : 0);
    for (uint64_t i = i0; i < i0 + act; i++)
        if (map_val(&c->map[s->pred], i, kk))
            return true;
    return false;
}

/* A memory or LDS step for the warp's items [i0, i0 + act); false if no
 * lane is active (the warp branches over it). */
static bool mem_step(const struct mk_kernel *mk, struct kernel_warp *w, const struct mk_step *s,
                     uint64_t i0, uint64_t act, uint32_t first, struct kernel_op *op)
{
    const struct mk_ctx *c = mk->ctx;
    const struct mk_buf *b = &c->buf[s->buf];
    unsigned kk = s->k + (s->flags & MK_J ? (unsigned)w->r[0] : 0);
    bool lds = s->kind == KOP_LDS_LOAD || s->kind == KOP_LDS_STORE;
    addr_t base = (lds ? b->lds_off : b->b->base) + kk * b->plane * b->esize;
    uint64_t mask = 0, rel = lds ? first : 0;
    if (s->ix == MK_WG) {
        if (w->warp)
            return false;
        mask = 1; /* LDS: slot 0 */
        op->base = base + (lds ? 0 : (uint64_t)w->wg * b->scale * b->esize);
    } else if (s->ix == MK_ITEM && !(s->flags & MK_IF)) {
        mask = low_bits(act);
        op->base = base + (i0 - rel) * b->scale * b->esize;
        op->stride = (int64_t)(b->scale * b->esize);
    } else {
        op->lanes = true;
        for (unsigned l = 0; l < act; l++) {
            int64_t x = step_index(c, s, i0 + l, w->r[0], kk);
            if (x < 0)
                continue;
            w->lane_addr[l] = base + ((uint64_t)x - rel) * b->scale * b->esize;
            mask |= 1ull << l;
        }
    }
    if (!mask)
        return false;
    op->kind = s->kind;
    op->size = (uint8_t)b->esize;
    op->mask = mask;
    return true;
}

/* Trip count of a loop: fixed, or the longest list among the warp's items. */
static uint64_t loop_count(const struct mk_ctx *c, const struct mk_step *s, uint64_t i0,
                           uint64_t act)
{
    if (s->n)
        return s->n;
    const struct mk_list *l = &c->list[s->map];
    uint64_t m = 0;
    for (uint64_t i = i0; i < i0 + act; i++)
        m = max_u64(m, l->start[i + 1] - l->start[i]);
    return m;
}

static unsigned loop_end(const struct mk_kernel *mk, unsigned pc)
{
    while (pc < mk->nsteps && mk->steps[pc].kind != MK_END)
        pc++;
    return pc;
}

/* One op of an MK_REDUCE (see mk.h); false when the reduction is over. */
static bool reduce_step(const struct mk_kernel *mk, struct kernel_warp *w, const struct mk_step *s,
                        struct kernel_op *op)
{
    const struct mk_buf *b = &mk->ctx->buf[s->buf];
    if (!w->r[3]) {
        w->r[3] = (s->n ? s->n : mk->block) / 2;
        w->r[4] = 0;
    }
    uint64_t off = w->r[3], tid0 = kernel_tid(w, 0);
    uint64_t act = tid0 < off ? min_u64(w->nlanes, off - tid0) : 0;
    unsigned sub = (unsigned)w->r[4];
    w->r[4] = sub == 4 || (sub == 0 && !act) ? 0 : sub + 1;
    if (!w->r[4]) {
        w->r[3] = off / 2;
        if (!w->r[3])
            w->pc++;
    }
    if (sub == 0) {
        op->kind = KOP_BARRIER;
        return true;
    }
    if (sub == 3) {
        op->kind = KOP_ALU;
        op->n = 1;
        op->src[0] = 14;
        op->src[1] = 15;
        return true;
    }
    op->kind = sub == 4 ? KOP_LDS_STORE : KOP_LDS_LOAD;
    op->size = (uint8_t)b->esize;
    op->stride = b->esize;
    op->base = b->lds_off + (tid0 + (sub == 1 ? off : 0)) * b->esize;
    op->mask = low_bits(act);
    op->dst = sub == 1 ? 14 : sub == 2 ? 15 : 0;
    if (sub == 4) {
        op->src[0] = 14;
        op->src[1] = 15;
    }
    return true;
}

void mk_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    const struct mk_kernel *mk = k->ctx;
    uint32_t first, last;
    mk_wg_items(mk, w->wg, &first, &last);
    uint64_t i0 = (uint64_t)first + kernel_tid(w, 0);
    uint64_t act = i0 < last ? min_u64(w->nlanes, last - i0) : 0;
    while (act && w->pc < mk->nsteps) {
        const struct mk_step *s = &mk->steps[w->pc];
        if (s->kind == MK_LOOP) {
            w->r[1] = loop_count(mk->ctx, s, i0, act);
            w->r[0] = 0;
            w->r[2] = w->pc;
            w->pc = w->r[1] ? w->pc + 1 : loop_end(mk, w->pc) + 1;
            continue;
        }
        if (s->kind == MK_END) {
            w->pc = ++w->r[0] < w->r[1] ? (uint32_t)w->r[2] + 1 : w->pc + 1;
            continue;
        }
        if (s->kind == MK_REDUCE) {
            if ((s->n ? s->n : mk->block) < 2) {
                w->pc++;
                continue;
            }
            reduce_step(mk, w, s, op);
            return;
        }
        w->pc++;
        if (s->kind == KOP_ALU && s->flags & MK_IF && !any_pred(mk->ctx, s, i0, act, w->r[0]))
            continue;
        if (s->kind == KOP_ALU || s->kind == KOP_BARRIER || s->kind == KOP_FENCE) {
            op->kind = s->kind;
            op->n = s->n;
        } else if (!mem_step(mk, w, s, i0, act, first, op)) {
            continue;
        }
        op->dst = s->dst;
        op->src[0] = s->src0;
        op->src[1] = s->src1;
        op->flags = s->flags & MK_MEAS ? KOP_F_MEASURE : 0;
        return;
    }
    op->kind = KOP_EXIT;
}

unsigned mk_ranges(const struct kernel *k, uint32_t wg, unsigned arg, struct addr_range *out,
                   unsigned max)
{
    const struct mk_kernel *mk = k->ctx;
    if (arg >= mk->nargs || !mk->args[arg].ranged)
        return 0;
    const struct mk_arg *a = &mk->args[arg];
    const struct mk_buf *b = &mk->ctx->buf[a->buf];
    uint32_t first, last;
    mk_wg_items(mk, wg, &first, &last);
    if (a->rfirst) {
        first = a->rfirst[wg];
        last = a->rfirst[wg + 1];
    }
    addr_t base = b->b->base;
    uint64_t lo = (uint64_t)first * b->scale, hi = (uint64_t)last * b->scale;
    /* planes that lie inside each item's own stretch: the items' span covers them */
    unsigned planes = b->plane * a->nplanes <= b->scale ? 1 : a->nplanes;
    struct range_list l;
    range_list_init(&l, out, max, 0);
    for (unsigned p = 0; p < planes; p++)
        range_list_add(&l, base + (lo + p * b->plane) * b->esize,
                       base + (hi + p * b->plane) * b->esize);
    return range_list_done(&l, base);
}
