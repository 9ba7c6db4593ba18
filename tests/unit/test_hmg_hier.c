/*
 * HMG's hierarchy (spec hmg.md 5) on 2 GPUs x 2 GPMs: the worked example of
 * 5.1, directory states after each step. Kernels have one work-group per
 * chiplet (work-group c on chiplet c: GPU c / 2, GPM c % 2); the first
 * kernel to touch a page makes the toucher's chiplet its system home.
 */
#include <criterion/criterion.h>
#include <stdio.h>

#include "coherence/hmg.h"
#include "machine.h"

enum role { NONE, READ, WRITE, ATOM_GPU, ATOM_SYS }; /* atomics: relaxed, at their scope */

#define LINES 4 /* one directory entry */

/* p[0]: base of the buffer; p[1 + wg]: role of work-group wg. */
static void roles_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    enum role r = (enum role)k->p[1 + w->wg];
    if (r == NONE || w->pc >= LINES) {
        op->kind = KOP_EXIT;
        return;
    }
    unsigned i = w->pc++;
    op->kind = r == READ ? KOP_LOAD : r == WRITE ? KOP_STORE : KOP_ATOMIC;
    op->dst = r != WRITE ? (uint8_t)(1 + i) : 0;
    if (r >= ATOM_GPU)
        kernel_op_scoped(op, r == ATOM_GPU ? SCOPE_GPU : SCOPE_SYS, SEM_RELAXED);
    op->size = 4;
    op->stride = 4;
    op->base = k->p[0] + i * 64;
}

static void kern(struct machine *m, const struct kernel_buf *x, const enum role r[4])
{
    struct kernel *k = &m->k[m->nk++];
    bool write = false;
    wl_kernel_init(k, "roles", 4, 1, 64, 1, roles_next);
    k->p[0] = x->base;
    for (unsigned c = 0; c < 4; c++) {
        k->p[1 + c] = r[c];
        write |= r[c] >= WRITE;
    }
    wl_kernel_arg(k, x, write ? KERNEL_RW : KERNEL_R);
}

#define HIER "[coherence]\nscheme = hmg\n[gpu]\ngpus = 2\nchiplets = 2\n"

/* Sharer bits of a 2 x 2 directory: GPMs of the node's GPU 0..1, GPUs 2..3. */
#define GPM(i) (1ull << (i))
#define GPU(g) (1ull << (2 + (g)))

static void dir_is(struct machine *m, unsigned node, addr_t a, bool valid, uint64_t sharers,
                   const char *step)
{
    uint64_t s;
    bool v = hmg_dir_lookup(m->g.coh_self, node, a, &s);
    cr_expect_eq(v, valid, "%s: chiplet %u's entry %s", step, node, v ? "V" : "I");
    cr_expect_eq(s, sharers, "%s: chiplet %u's sharers %#llx, expected %#llx", step, node,
                 (unsigned long long)s, (unsigned long long)sharers);
}

static bool cached(struct machine *m, unsigned ch, addr_t a)
{
    return cache_find(&m->g.ms.l2[ch], a) >= 0;
}

/* A: system home GPU0:GPM0 (chiplet 0), also GPU0's home of A; GPU1's home
 * of A is GPU1:GPM0 (chiplet 2). B: system home GPU1:GPM1 (chiplet 3);
 * GPU0's home of B is GPU0:GPM1 (chiplet 1). GPU1:GPM0 shares B; then
 * GPU0:GPM0 loads B, through its GPU home to the system home. */
Test(hmg_hier, the_worked_example_of_section_5_1)
{
    struct machine *m = machine_new(HIER);
    const struct kernel_buf *a = wl_alloc(&m->env, "A", m->env.page_b);
    const struct kernel_buf *b = wl_alloc(&m->env, "B", m->env.page_b);
    kern(m, a, (enum role[4]){WRITE, NONE, NONE, NONE}); /* A's page: chiplet 0 */
    kern(m, b, (enum role[4]){NONE, NONE, NONE, WRITE}); /* B's page: chiplet 3 */
    kern(m, b, (enum role[4]){NONE, NONE, READ, NONE});  /* GPU1:GPM0 shares B */
    kern(m, b, (enum role[4]){READ, NONE, NONE, NONE});  /* GPU0:GPM0 loads B */
    m->nk = 3;
    cr_assert_eq(machine_run(m), SIM_DONE);
    dir_is(m, 3, b->base, true, GPM(0), "GPU1:GPM0 loaded B");
    dir_is(m, 1, b->base, false, 0, "GPU1:GPM0 loaded B");
    m->nk = 4;
    cr_assert_eq(machine_run(m), SIM_DONE);
    /* the system home records GPU0, not a GPM of it: V:B:[GPU0, GPM0] */
    dir_is(m, 3, b->base, true, GPU(0) | GPM(0), "GPU0:GPM0 loaded B");
    /* GPU0's home records its GPM0: V:B:[GPM0] */
    dir_is(m, 1, b->base, true, GPM(0), "GPU0:GPM0 loaded B");
    /* B is cached in the GPU home and in the requester */
    cr_expect(cached(m, 1, b->base), "B not in GPU0:GPM1's L2");
    cr_expect(cached(m, 0, b->base), "B not in GPU0:GPM0's L2");
    /* no other directory tracks B, and none tracks A (only its home touched it) */
    dir_is(m, 0, b->base, false, 0, "GPU0:GPM0 loaded B");
    dir_is(m, 2, b->base, false, 0, "GPU0:GPM0 loaded B");
    for (unsigned c = 0; c < 4; c++)
        dir_is(m, c, a->base, false, 0, "A");
    cr_expect_eq(machine_stat(m, "checker.stale_reads"), 0);
    machine_free(m);
}

/* A strong atomic is a store for coherence and takes the stores' route
 * (spec hmg.md 5.2): through the requester's L2 and its GPU home, each
 * dropping its copy, to the home of its scope. X and Y are homed on chiplet
 * 1 (GPU0:GPM1). GPU0:GPM0 caches X and then performs a .gpu atomic on it
 * (at chiplet 1, its GPU home); GPU1:GPM0 caches Y (so does GPU1's home of
 * Y, chiplet 3) and then performs a .sys atomic on it (at chiplet 1). No
 * copy from before an atomic may stay where the directories, recording the
 * atomic's requester as a sharer, would not invalidate it: the next
 * kernel's reads must see the atomics. */
Test(hmg_hier, a_strong_atomic_drops_the_copies_on_its_way)
{
    const char *modes[] = {"hier", "flat"};
    for (unsigned f = 0; f < 2; f++) {
        char ini[128];
        snprintf(ini, sizeof ini, "[coherence]\nscheme = hmg\nmode = %s\n[gpu]\ngpus = 2\n"
                                  "chiplets = 2\n", modes[f]);
        struct machine *m = machine_new(ini);
        const struct kernel_buf *x = wl_alloc(&m->env, "X", m->env.page_b);
        const struct kernel_buf *y = wl_alloc(&m->env, "Y", m->env.page_b);
        kern(m, x, (enum role[4]){NONE, WRITE, NONE, NONE});
        kern(m, y, (enum role[4]){NONE, WRITE, NONE, NONE});
        kern(m, x, (enum role[4]){READ, NONE, NONE, NONE});
        kern(m, y, (enum role[4]){NONE, NONE, READ, NONE});
        m->nk = 4;
        cr_assert_eq(machine_run(m), SIM_DONE);
        cr_assert(cached(m, 0, x->base) && cached(m, 2, y->base), "%s: the reads cached",
                  modes[f]);
        cr_assert_eq(cached(m, 3, y->base), f == 0, "%s: Y at GPU1's home", modes[f]);
        kern(m, x, (enum role[4]){ATOM_GPU, NONE, NONE, NONE});
        kern(m, y, (enum role[4]){NONE, NONE, ATOM_SYS, NONE});
        m->nk = 6;
        cr_assert_eq(machine_run(m), SIM_DONE);
        cr_expect(!cached(m, 0, x->base), "%s: GPU0:GPM0 kept X past its atomic", modes[f]);
        cr_expect(!cached(m, 2, y->base), "%s: GPU1:GPM0 kept Y past its atomic", modes[f]);
        cr_expect(!cached(m, 3, y->base), "%s: GPU1's home kept Y", modes[f]);
        kern(m, x, (enum role[4]){READ, NONE, NONE, NONE});
        kern(m, y, (enum role[4]){NONE, NONE, READ, NONE});
        m->nk = 8;
        cr_assert_eq(machine_run(m), SIM_DONE);
        cr_expect_eq(machine_stat(m, "checker.stale_reads"), 0, "%s: stale reads after the atomics",
                     modes[f]);
        machine_free(m);
    }
}

/* A scoped release waits until the invalidations sent before it have
 * arrived (spec hmg.md 4.3, H7): flag's consumer on the other GPU holds the
 * data (preread) when its producer overwrites it and releases at system
 * scope; with the directory's invalidations leaving 2,000 cycles after the
 * stores, a release that did not wait for its acknowledgements would let
 * the consumer read its stale copy after acquiring the flag. */
Test(hmg_hier, a_release_waits_for_the_invalidations_sent_before_it)
{
    extern const struct wl_ops wl_flag;
    const char *fault[] = {"", "fault = no_release_wait\n"};
    for (unsigned f = 0; f < 2; f++) {
        char ini[512];
        snprintf(ini, sizeof ini,
                 "[coherence]\nscheme = hmg\ndir_lookup_cycles = 2000\n%s[gpu]\ngpus = 2\n"
                 "chiplets = 2\n[workload]\nplace = other_gpu\nscope = sys\npreread = true\n"
                 "pairs = 2\n",
                 fault[f]);
        struct err e = {0};
        struct machine *m = machine_new_wl(ini, &wl_flag, &e);
        cr_assert(m, "%s", e.msg);
        cr_assert_eq(machine_run(m), SIM_DONE);
        uint64_t stale = machine_stat(m, "checker.stale_reads");
        if (f)
            cr_expect_gt(stale, 0, "no stale read with the release not waiting");
        else
            cr_expect_eq(stale, 0, "%llu stale reads", (unsigned long long)stale);
        machine_free(m);
    }
}

/* Software coherence's bulk invalidation (spec hmg.md 6, H11) at a kernel
 * launch, a .sys acquire everywhere: every L2 drops the clean lines homed on
 * another chiplet and keeps its own. A is homed on chiplet 0, X on chiplet
 * 2 (GPU1:GPM0). GPU0:GPM1 reads A, then (in the next kernel, whose launch
 * drops A from its L2) X, which GPU0's home of it (chiplet 0) keeps on the
 * way under hier; the launch after leaves X only in chiplet 2 and A only in
 * chiplet 0. */
Test(swcoh_hier, a_launch_drops_every_l2s_lines_homed_elsewhere)
{
    const char *modes[] = {"hier", "flat"};
    for (unsigned v = 0; v < 4; v++) { /* each mode, with a flash clear and with a tag walk */
        unsigned f = v % 2;
        char ini[256];
        snprintf(ini, sizeof ini, "[coherence]\nscheme = swcoh\nmode = %s\nbulk_inv = %s\n[gpu]\n"
                                  "gpus = 2\nchiplets = 2\n", modes[f], v < 2 ? "flash" : "walk");
        struct machine *m = machine_new(ini);
        const struct kernel_buf *a = wl_alloc(&m->env, "A", m->env.page_b);
        const struct kernel_buf *x = wl_alloc(&m->env, "X", m->env.page_b);
        kern(m, a, (enum role[4]){WRITE, NONE, NONE, NONE});
        kern(m, x, (enum role[4]){NONE, NONE, WRITE, NONE});
        kern(m, a, (enum role[4]){READ, READ, NONE, NONE});
        kern(m, x, (enum role[4]){NONE, READ, NONE, NONE});
        m->nk = 4;
        cr_assert_eq(machine_run(m), SIM_DONE);
        cr_expect(cached(m, 1, x->base), "%s: GPU0:GPM1 read X", modes[f]);
        cr_expect(!cached(m, 1, a->base), "%s: GPU0:GPM1 kept A past a launch", modes[f]);
        /* flat reads go straight to the system home */
        cr_expect_eq(cached(m, 0, x->base), f == 0, "%s: X in chiplet 0", modes[f]);
        cr_expect(cached(m, 0, a->base), "%s: A not in its home's L2", modes[f]);
        kern(m, a, (enum role[4]){NONE, NONE, NONE, NONE});
        m->nk = 5;
        cr_assert_eq(machine_run(m), SIM_DONE);
        cr_expect(!cached(m, 1, a->base) && !cached(m, 1, x->base), "%s: GPU0:GPM1 kept a "
                  "remote line", modes[f]);
        cr_expect(!cached(m, 0, x->base), "%s: chiplet 0 kept X", modes[f]);
        cr_expect(cached(m, 0, a->base), "%s: chiplet 0 dropped its own A", modes[f]);
        cr_expect(cached(m, 2, x->base), "%s: chiplet 2 dropped its own X", modes[f]);
        cr_expect_eq(machine_stat(m, "checker.stale_reads"), 0);
        machine_free(m);
    }
}
