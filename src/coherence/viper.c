/*
 * viper.c -- the baseline of a chiplet GPU: gem5's VIPER protocol extended
 * to several chiplets, as spec cpelide.md section 3 describes it.
 *
 * Request path: L1s are write-through (configured in [l1d]); each chiplet's
 * L2 is write-back with write-validate for lines homed on it; lines homed
 * elsewhere follow the D4 switches (default: the requester's L2 keeps no
 * copy of remote reads and writes remote stores through to the home). The
 * home serves remote reads from its L2 or relays them from its L3 without
 * allocating (coh_default_remote_in).
 * Kernel boundaries (D11): release = flush every chiplet's L2 at the end of
 * each kernel; acquire = invalidate every L1 and every L2 at each launch, so
 * no L2 data survives a boundary. `release_at = launch` gives the artifact's
 * order instead (both at launch: flush, then invalidate). Each is a
 * command-processor round (coh_round: request, operations, ACK and, at a
 * launch, launch-enable).
 * `fault` drops one required operation; it exists to prove in tests that
 * the checker notices.
 */
#include <stdlib.h>

#include "coh.h"

enum viper_fault { F_NONE, F_SKIP_L1_INV, F_SKIP_L2_INV, F_SKIP_L2_FLUSH, F_SKIP_ACQUIRE_INV };
enum viper_release { REL_KERNEL_END, REL_LAUNCH };

struct viper {
    const struct coh_machine *m;
    struct coh_d4 d4;
    enum viper_fault fault;
    enum viper_release release_at;
    struct coh_seq l1q, l2q;
    struct coh_d4_sync sync;
    struct coh_round round;
    unsigned parts;            /* parallel parts of the current boundary still running */
    uint64_t all;              /* mask of every chiplet */
    struct {
        uint64_t l2_flushes, l2_invalidates, l1_invalidates;
    } st;
};

static const struct cfg_key viper_keys[] = {
    /* spec cpelide D11 */
    {"release_at", CFG_ENUM, "kernel_end", 0, 0,
     "flush the L2s at the end of each kernel, or at the next launch before the invalidate "
     "(the gem5 artifact)", "kernel_end|launch"},
    {"fault", CFG_ENUM, "none", 0, 0,
     "testing only: drop one required kernel-boundary operation so the checker must fire",
     "none|skip_l1_inv|skip_l2_inv|skip_l2_flush|skip_acquire_inv"},
    CFG_END,
};

static void *viper_create(const struct coh_machine *m, const struct cfg_sec *sec, struct err *e)
{
    (void)e;
    struct viper *v = xcalloc(1, sizeof *v);
    v->m = m;
    coh_d4_from_cfg(sec, &v->d4);
    v->all = low_bits(m->nch);
    coh_seq_init(&v->l1q, v->m);
    coh_seq_init(&v->l2q, v->m);
    v->fault = (enum viper_fault)cfg_enum(sec, "fault");
    v->release_at = (enum viper_release)cfg_enum(sec, "release_at");
    coh_d4_sync_init(&v->sync);
    v->sync.skip_acquire_inv = v->fault == F_SKIP_ACQUIRE_INV;
    return v;
}

static void viper_destroy(void *self)
{
    struct viper *v = self;
    coh_d4_sync_free(&v->sync);
    free(v);
}

static const struct stat_desc viper_desc[] = {
    STAT_DESC(__typeof__(((struct viper *)0)->st), l2_flushes, "L2 flush operations issued"),
    STAT_DESC(__typeof__(((struct viper *)0)->st), l2_invalidates,
              "L2 invalidate operations issued"),
    STAT_DESC(__typeof__(((struct viper *)0)->st), l1_invalidates,
              "kernel boundaries at which every L1 was invalidated"),
    {0},
};

static void viper_reg_stats(void *self, struct stats *st)
{
    stats_reg_block(st, "coherence", viper_desc, &((struct viper *)self)->st);
}

static void part_done(struct sim *s, void *obj)
{
    struct viper *v = obj;
    if (--v->parts == 0)
        coh_round_ops_done(s, &v->round);
}

static void l2_flush(struct viper *v)
{
    v->st.l2_flushes += v->m->nch;
    coh_l2s(&v->l2q, v->all, COH_FLUSH, part_done, v);
}

static void l2_inv(struct viper *v)
{
    v->st.l2_invalidates += v->m->nch;
    coh_l2s(&v->l2q, v->all, COH_INVALIDATE_CLEAN, part_done, v);
}

/* The artifact's order at a launch: on each chiplet, flush then invalidate. */
static void l2_flush_then_inv(struct viper *v)
{
    v->st.l2_flushes += v->m->nch;
    v->st.l2_invalidates += v->m->nch;
    coh_l2_pair(&v->l2q, v->all, COH_FLUSH, v->all, COH_INVALIDATE_CLEAN, part_done, v);
}

/* At the local CPs, a launch: every L1 and every L2 (the guard part ends
 * last, so that operations finishing at once cannot end the round early). */
static void launch_ops(void *obj)
{
    struct viper *v = obj;
    struct sim *s = v->m->s;
    v->parts = 3;
    if (v->fault != F_SKIP_L1_INV) {
        v->st.l1_invalidates++;
        coh_all_l1(&v->l1q, COH_INVALIDATE, part_done, v);
    } else {
        part_done(s, v);
    }
    if (v->fault == F_SKIP_L2_INV)
        part_done(s, v);
    else if (v->release_at == REL_LAUNCH && v->fault != F_SKIP_L2_FLUSH)
        l2_flush_then_inv(v);
    else
        l2_inv(v);
    part_done(s, v);
}

static void release_ops(void *obj)
{
    struct viper *v = obj;
    v->parts = 2;
    l2_flush(v);
    part_done(v->m->s, v);
}

static void viper_kernel_launch(void *self, const struct coh_kernel *k, coh_done_fn done,
                                void *arg)
{
    struct viper *v = self;
    v->l2q.kernel = k->id;
    coh_round(&v->round, v->m, v->m->s->now, v->m->nch, true, launch_ops, v, done, arg);
}

/* The release at kernel end (D11): every L2 flushed, in a round of its own. */
static void viper_kernel_end(void *self, const struct coh_kernel *k, coh_done_fn done, void *arg)
{
    struct viper *v = self;
    v->l2q.kernel = k->id;
    if (v->release_at == REL_KERNEL_END && v->fault != F_SKIP_L2_FLUSH)
        coh_round(&v->round, v->m, v->m->s->now, v->m->nch, false, release_ops, v, done, arg);
    else
        done(v->m->s, arg);
}

static struct coh_route viper_l2_access(void *self, unsigned ch, struct req *r)
{
    struct viper *v = self;
    return coh_d4_l2_access(&v->d4, ch, r);
}

static void viper_release(void *self, unsigned cu, enum mem_scope scope, coh_done_fn done,
                          void *arg)
{
    struct viper *v = self;
    coh_d4_release(v->m, &v->d4, cu, scope, done, arg);
}

static void viper_acquire(void *self, unsigned cu, enum mem_scope scope, coh_done_fn done,
                          void *arg)
{
    struct viper *v = self;
    coh_d4_acquire(v->m, &v->d4, &v->sync, cu, scope, done, arg);
}

const struct coh_ops coh_viper = {
    .name = "viper",
    /* spec cpelide 3 */
    .desc = "baseline: VIPER extended to chiplets; every L2 flushed and invalidated at every "
            "kernel boundary",
    .keys = viper_keys,
    .create = viper_create,
    .destroy = viper_destroy,
    .reg_stats = viper_reg_stats,
    .kernel_launch = viper_kernel_launch,
    .kernel_end = viper_kernel_end,
    .l2_access = viper_l2_access,
    .release = viper_release,
    .acquire = viper_acquire,
};
