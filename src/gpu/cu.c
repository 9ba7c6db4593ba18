/*
 * cu.c -- compute unit model (see cu.h and docs/gpu.md).
 */
#include "cu.h"

#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"

const struct cfg_key cu_keys[] = {
    {"simds", CFG_INT, "4", 1, 64, "SIMD units per CU (Table I: 4)", NULL},
    {"warps_per_simd", CFG_INT, "10", 1, 64, "warp (wavefront) slots per SIMD (Table I: 10)",
     NULL},
    {"warp_size", CFG_INT, "64", 1, 64, "threads per warp (AMD wavefront: 64)", NULL},
    {"alu_cycles", CFG_INT, "4", 1, 1000,
     "SIMD cycles per warp instruction (64 lanes on a 16-lane SIMD: 4)", NULL},
    {"max_wgs", CFG_INT, "40", 1, 1024, "work-groups resident per CU", NULL},
    /* gto: spec accelsim.md A3 */
    {"sched", CFG_ENUM, "oldest", 0, 0,
     "warp scheduler of each SIMD (sub-core): gto (greedy then oldest: the warp issued last "
     "while it can, else the oldest; NVIDIA) or oldest (the oldest that can issue; gem5's GCN3 "
     "compute unit, OLDEST-FIRST)", "gto|oldest"},
    {"gmem_pipe_cycles", CFG_INT, "4", 0, 1000,
     "cycles the CU's one global-memory pipeline takes per vector memory instruction, shared "
     "by its SIMDs (gem5's GCN3 CU: the issue period, 4; 0 = no CU-wide limit)", NULL},
    {"lds_pipe_cycles", CFG_INT, "4", 0, 1000,
     "cycles the CU's one LDS pipeline takes per LDS instruction (gem5's GCN3 CU: 4; 0 = no "
     "CU-wide limit)", NULL},
    /* NVIDIA's sub-warp coalescer: spec accelsim.md 2.2 */
    {"coalesce_lanes", CFG_INT, "0", 0, 64,
     "lanes coalesced together: 0 = the whole warp into one request per line (GCN); 8 = each "
     "group of 8 lanes on its own (NVIDIA's sub-warp coalescer)", NULL},
    CFG_END,
};

static const struct stat_desc cu_desc[] = {
    STAT_DESC(struct cu_stats, warp_insts, "warp instructions issued"),
    STAT_DESC(struct cu_stats, alu_insts, "compute warp instructions"),
    STAT_DESC(struct cu_stats, mem_insts, "global memory warp instructions"),
    STAT_DESC(struct cu_stats, lds_insts, "LDS warp instructions"),
    STAT_DESC(struct cu_stats, load_lines, "load line requests sent to the L1"),
    STAT_DESC(struct cu_stats, store_lines, "store line requests sent to the L1"),
    STAT_DESC(struct cu_stats, atomic_lines, "atomic line requests sent to the L1"),
    STAT_DESC(struct cu_stats, wgs, "work-groups completed"),
    STAT_DESC(struct cu_stats, barriers, "work-group barriers completed"),
    STAT_DESC(struct cu_stats, fences, "device- or system-scope fences"),
    STAT_DESC(struct cu_stats, releases,
              "device- or system-scope releases (fences, releasing stores and atomics)"),
    STAT_DESC(struct cu_stats, acquires,
              "device- or system-scope acquires (fences, acquiring loads and atomics)"),
    STAT_DESC(struct cu_stats, spin_retries, "spin loads issued again (the flag not yet set)"),
    STAT_DESC(struct cu_stats, spins_exhausted,
              "spin loads that gave up after their most re-issues, the flag still not set"),
    STAT_DESC(struct cu_stats, stale_fresh_loads,
              "line requests of loads flagged fresh that returned a word not written this kernel"),
    STAT_DESC(struct cu_stats, measured_loads, "line requests of loads flagged for latency"),
    STAT_DESC(struct cu_stats, measured_latency_ps, "their summed latency, ps"),
    STAT_DESC(struct cu_stats, measured_bytes, "bytes of loads flagged for bandwidth"),
    {0},
};

int cu_params_from_cfg(const struct cfg_sec *sec, struct cu_params *p, struct err *e)
{
    *p = (struct cu_params){
        .simds = (unsigned)cfg_uint(sec, "simds"),
        .warps_per_simd = (unsigned)cfg_uint(sec, "warps_per_simd"),
        .warp_size = (unsigned)cfg_uint(sec, "warp_size"),
        .alu_cycles = (unsigned)cfg_uint(sec, "alu_cycles"),
        .max_wgs = (unsigned)cfg_uint(sec, "max_wgs"),
        .coalesce_lanes = (unsigned)cfg_uint(sec, "coalesce_lanes"),
        .sched = (enum cu_sched)cfg_enum(sec, "sched"),
        .gmem_pipe_cycles = (unsigned)cfg_uint(sec, "gmem_pipe_cycles"),
        .lds_pipe_cycles = (unsigned)cfg_uint(sec, "lds_pipe_cycles"),
    };
    if (p->simds * p->warps_per_simd > 64)
        return cfg_err(e, sec, "warps_per_simd", "simds x warps_per_simd must be at most 64");
    return 0;
}

/* Request tags: warp slot, destination register, kind, measure and check bits, registers
 * written. */
#define TAG(slot, reg, kind, meas, nreg)                                                     \
    ((uint64_t)(slot) | (uint64_t)(reg) << 8 | (uint64_t)(kind) << 16 |                     \
     (uint64_t)(meas) << 24 | (uint64_t)(nreg) << 32)
#define TAG_SLOT(t) ((unsigned)((t) & 0xff))
#define TAG_REG(t) ((unsigned)(((t) >> 8) & 0xff))
#define TAG_KIND(t) ((unsigned)(((t) >> 16) & 0xff))
#define TAG_MEAS(t) ((unsigned)(((t) >> 24) & 0xff))
enum { MEAS_LAT = 1, MEAS_BW = 2, MEAS_SPIN = 4, MEAS_FRESH = 8 }; /* TAG_MEAS bits */
#define TAG_NREG(t) ((unsigned)(((t) >> 32) & 0xff))

static void simd_kick(struct cu *cu, unsigned si);

/* Every change of a warp's state goes through here, so that the schedulers
 * can walk only the warps that may issue (cu->run_slots). */
static inline void set_state(struct cu *cu, struct cu_warp *w, uint8_t st)
{
    uint64_t bit = 1ull << (w - cu->warps);
    w->state = st;
    cu->run_slots = st == W_RUN ? cu->run_slots | bit : cu->run_slots & ~bit;
}

/* w may issue again from t on: its sub-core's scheduler will consider it. */
static void wake_at(struct cu *cu, struct cu_warp *w, ps_t t)
{
    set_state(cu, w, W_RUN);
    w->ready_at = max_u64(w->ready_at, t);
    simd_kick(cu, w->simd);
}

static inline uint64_t reg_bit(unsigned r) { return r ? 1ull << r : 0; }

/* Registers the op reads. */
static inline uint64_t src_bits(const struct kernel_op *op)
{
    return (reg_bit(op->src[0]) | reg_bit(op->src[1]) | op->srcs) & ~1ull;
}

/* Registers the op writes: dst .. dst + ndst - 1. */
static inline unsigned dst_count(const struct kernel_op *op)
{
    return op->dst ? (op->ndst ? op->ndst : 1) : 0;
}

static bool deps_ready(const struct cu_warp *w)
{
    return !(w->pending & w->op_srcs);
}

/* The CU-wide pipelines of gem5's GCN3 CU: one for global memory and one for
 * the LDS, each taking an instruction per issue period. */
enum cu_pipe { PIPE_NONE, PIPE_GMEM, PIPE_LDS };

static enum cu_pipe op_pipe(const struct cu *cu, const struct kernel_op *op)
{
    switch (op->kind) {
    case KOP_LOAD:
    case KOP_STORE:
    case KOP_ATOMIC:
        return cu->p.gmem_pipe_cycles ? PIPE_GMEM : PIPE_NONE;
    case KOP_LDS_LOAD:
    case KOP_LDS_STORE:
        return cu->p.lds_pipe_cycles ? PIPE_LDS : PIPE_NONE;
    default:
        return PIPE_NONE;
    }
}

/* What the schedulers ask of w's op, once per op (see struct cu_warp): its
 * pipeline, the registers it reads and when the last ALU result among them
 * is ready. */
static void op_fetched(const struct cu *cu, struct cu_warp *w)
{
    ps_t t = 0;
    w->op_pipe = (uint8_t)op_pipe(cu, &w->op);
    w->op_srcs = src_bits(&w->op);
    for (uint64_t b = w->op_srcs; b; b &= b - 1)
        t = max_u64(t, w->reg_at[__builtin_ctzll(b)]);
    w->op_srcs_at = t;
}

static inline unsigned op_ii(const struct cu *cu, const struct kernel_op *op)
{
    return op->ii ? op->ii : cu->p.alu_cycles;
}

/* ---- coalescer --------------------------------------------------------- */

/* Up to 64 lanes of 16 B, each in two lines or (interleaved) four words. */
#define LINE_SET_MAX (4 * KERNEL_MAX_LANES)

struct line_set {
    unsigned n;
    unsigned first;           /* lines before it belong to earlier lane groups */
    addr_t line[LINE_SET_MAX];
    uint64_t mask[LINE_SET_MAX][2];
};

static void add_bytes(struct line_set *ls, addr_t a, unsigned len, unsigned line_b)
{
    while (len) {
        addr_t line = a & ~(addr_t)(line_b - 1);
        unsigned off = (unsigned)(a - line), n = off + len > line_b ? line_b - off : len;
        unsigned i = ls->n;
        while (i > ls->first && ls->line[i - 1] != line)
            i--;
        if (i == ls->first) {
            BUG_ON(ls->n == LINE_SET_MAX);
            i = ++ls->n;
            ls->line[i - 1] = line;
            ls->mask[i - 1][0] = ls->mask[i - 1][1] = 0;
        }
        uint64_t m[2];
        req_mask_range(m, off, n);
        ls->mask[i - 1][0] |= m[0];
        ls->mask[i - 1][1] |= m[1];
        a += n;
        len -= n;
    }
}

static inline uint64_t active_mask(const struct cu_warp *w)
{
    if (w->op.mask)
        return w->op.mask;
    return low_bits(w->kw.nlanes);
}

static inline addr_t lane_addr(const struct cu_warp *w, unsigned l)
{
    return w->op.lanes ? w->kw.lane_addr[l] : w->op.base + (addr_t)((int64_t)l * w->op.stride);
}

static void coalesce_lanes(const struct cu *cu, const struct cu_warp *w, struct line_set *ls,
                           uint64_t m);

/* Sub-warp coalescing (coalesce_lanes = 8 on NVIDIA since Pascal, spec
 * accelsim.md 2.2 and A7): each group of lanes gets its own requests, even to
 * a line another group also touches. */
static void coalesce(const struct cu *cu, const struct cu_warp *w, struct line_set *ls)
{
    uint64_t m = active_mask(w);
    ls->n = ls->first = 0;
    unsigned g = cu->p.coalesce_lanes;
    if (!g || g >= w->kw.warp_size) {
        coalesce_lanes(cu, w, ls, m);
        return;
    }
    uint64_t gm = low_bits(g);
    for (unsigned l = 0; l < w->kw.warp_size; l += g) {
        ls->first = ls->n;
        if (m & gm << l)
            coalesce_lanes(cu, w, ls, m & gm << l);
    }
}

static void coalesce_lanes(const struct cu *cu, const struct cu_warp *w, struct line_set *ls,
                           uint64_t m)
{
    const struct kernel_op *op = &w->op;
    if (op->wstride && op->size > 4) {
        /* interleaved per-thread memory: each lane's words lie wstride apart */
        for (; m; m &= m - 1) {
            addr_t a = lane_addr(w, (unsigned)__builtin_ctzll(m));
            for (unsigned j = 0; j < op->size / 4u; j++)
                add_bytes(ls, a + (addr_t)j * op->wstride, 4, cu->line_b);
        }
        return;
    }
    if (!op->lanes && op->stride == op->size && m && !((m >> __builtin_ctzll(m)) &
                                                       ((m >> __builtin_ctzll(m)) + 1))) {
        /* consecutive lanes at consecutive addresses: one span */
        unsigned n = (unsigned)popcount64(m), l0 = (unsigned)__builtin_ctzll(m);
        add_bytes(ls, op->base + (addr_t)((int64_t)l0 * op->stride), n * op->size, cu->line_b);
        return;
    }
    for (; m; m &= m - 1)
        add_bytes(ls, lane_addr(w, (unsigned)__builtin_ctzll(m)), op->size, cu->line_b);
}

/* ---- memory operations ------------------------------------------------- */

static void line_done(struct sim *s, struct req *r, void *obj);

/* Checking mode: every access must fall inside a declared structure, with
 * a mode that allows it, and inside its work-group's declared ranges. */
static void check_annotation(struct cu *cu, const struct cu_warp *w, addr_t line,
                             const uint64_t mask[2])
{
    const struct kernel *k = w->kw.k;
    unsigned first = mask[0] ? (unsigned)__builtin_ctzll(mask[0])
                             : 64 + (unsigned)__builtin_ctzll(mask[1]);
    unsigned last = mask[1] ? 127 - (unsigned)__builtin_clzll(mask[1])
                            : 63 - (unsigned)__builtin_clzll(mask[0]);
    addr_t lo = line + first, hi = line + last + 1;
    const char *why = "outside every declared data structure";
    for (unsigned a = 0; a < k->nargs; a++) {
        const struct kernel_buf *b = k->args[a].buf;
        if (lo < b->base || hi > b->base + b->size)
            continue;
        if (w->op.kind != KOP_LOAD && k->args[a].mode == KERNEL_R) {
            why = "write to a structure declared read-only";
            break;
        }
        struct addr_range rg[64];
        unsigned n = k->ranges ? k->ranges(k, w->kw.wg, a, rg, 64) : 0;
        for (unsigned i = 0; i < n; i++)
            if (lo >= rg[i].lo && hi <= rg[i].hi)
                return;
        if (!n)
            return;
        why = "outside the work-group's declared ranges";
        break;
    }
    chk_annotation(cu->env.chk, k->name, w->kw.wg, lo, why);
}

/* Registers reg .. reg + nreg - 1 wait for n more responses. */
static void regs_pending(struct cu_warp *w, unsigned reg, unsigned nreg, unsigned n)
{
    BUG_ON(reg + nreg > KERNEL_MAX_REGS);
    for (unsigned i = 0; i < nreg; i++) {
        w->reg_lines[reg + i] += (uint16_t)n;
        w->pending |= reg_bit(reg + i);
    }
}

/* The checker's agent of warp w: its work-group's slot on the CU. */
static inline unsigned wg_agent(const struct cu *cu, const struct cu_warp *w)
{
    return chk_agent(cu->env.chk, cu->id, (unsigned)(w->wg - cu->wgs));
}

static void func_line_done(struct sim *s, struct req *r, void *obj);

/* func: the warming pass (cu_func_round): each line completes before the
 * next is sent, and the warp waits for nothing. */
static void issue_lines(struct cu *cu, struct cu_warp *w, const struct line_set *ls, bool func)
{
    struct sim *s = cu->env.s;
    const struct kernel_op *op = &w->op;
    uint8_t kind = op->kind == KOP_LOAD ? REQ_READ : op->kind == KOP_STORE ? REQ_WRITE : REQ_ATOMIC;
    unsigned meas = (op->flags & KOP_F_MEASURE ? MEAS_LAT : 0) |
                    (op->flags & KOP_F_MEASURE_BW ? MEAS_BW : 0);
    if (kind == REQ_READ)
        meas |= (op->flags & KOP_F_SPIN ? MEAS_SPIN : 0) |
                (op->flags & KOP_F_FRESH ? MEAS_FRESH : 0);
    uint8_t scope = op->sem == SEM_WEAK ? SCOPE_CTA : op->scope;
    unsigned slot = (unsigned)(w - cu->warps), agent = wg_agent(cu, w);
    for (unsigned i = 0; i < ls->n; i++) {
        struct req *r = req_alloc(s);
        r->addr = ls->line[i];
        r->size = cu->line_b;
        r->site = op->site;
        r->kind = kind;
        r->flags = op->flags & KOP_F_LOCAL ? REQ_F_LOCAL : 0;
        r->scope = scope;
        r->sem = op->sem;
        r->mask[0] = ls->mask[i][0];
        r->mask[1] = ls->mask[i][1];
        r->src = (uint16_t)cu->id;
        r->home = (uint16_t)cu->env.home(cu->env.home_obj, r->addr, cu->id);
        r->tag = TAG(slot, op->dst, kind, meas, dst_count(op));
        if (cu->env.chk->annotations && w->kw.k->nargs) /* unannotated: nothing declared */
            check_annotation(cu, w, r->addr, r->mask);
        if (kind != REQ_READ)
            chk_store_cu(cu->env.chk, r->addr, r->mask, r->ver, agent);
        req_on_done(r, func ? func_line_done : line_done, cu);
        cu->reqs_out += !func;
        if (cu->env.l1_access)
            cu->env.l1_access(cu->env.mem_obj, cu->id, r);
        else
            cache_access(s, cu->l1, r);
    }
    uint64_t *lines = kind == REQ_WRITE    ? &cu->st.store_lines
                      : kind == REQ_ATOMIC ? &cu->st.atomic_lines
                                           : &cu->st.load_lines;
    *lines += ls->n;
    if (func)
        return;
    if (kind != REQ_READ)
        w->stores_out += ls->n;
    if (kind == REQ_WRITE)
        return;
    w->loads_out += ls->n;
    if (ls->n)
        regs_pending(w, op->dst, dst_count(op), ls->n);
}

static void reg_arrived(struct cu *cu, struct cu_warp *w, unsigned reg, unsigned nreg)
{
    bool freed = false;
    for (unsigned i = 0; i < nreg; i++)
        if (--w->reg_lines[reg + i] == 0) {
            w->pending &= ~reg_bit(reg + i);
            freed = true;
        }
    if (freed && w->state == W_WAIT_REG && deps_ready(w))
        wake_at(cu, w, cu->env.s->now);
}

static void warp_exit(struct cu *cu, struct cu_warp *w);
static void sync_step(struct cu *cu, struct cu_warp *w);

/* ---- scoped synchronization ------------------------------------------------ */

/* A release or acquire of warp w has ended (coh.h: when the scheme says so):
 * the checker learns it, and the warp takes its next synchronization step. */
static void sync_done(struct sim *s, void *arg)
{
    (void)s;
    struct cu_warp *w = arg;
    struct cu *cu = w->cu;
    if (w->sync_step == SYNC_REL)
        chk_release(cu->env.chk, wg_agent(cu, w), (enum mem_scope)w->sync_scope);
    else
        chk_acquire(cu->env.chk, wg_agent(cu, w), (enum mem_scope)w->sync_scope);
    sync_step(cu, w);
}

/* The release (step SYNC_REL) or acquire (SYNC_ACQ) of warp w at its
 * sync_scope (GPU or system), through the coherence scheme (coh.h release
 * and acquire). A release comes after the drain of the warp's stores and
 * atomics, an acquire after that of its loads; the warp goes on when it ends. */
static void cu_fence_sync(struct cu *cu, struct cu_warp *w, unsigned step)
{
    w->sync_step = (uint8_t)step;
    if (step == SYNC_REL)
        cu->st.releases++;
    else
        cu->st.acquires++;
    if (!cu->env.sync) {
        sync_done(cu->env.s, w);
        return;
    }
    cu->env.sync(cu->env.mem_obj, cu->id, step == SYNC_REL, (enum mem_scope)w->sync_scope,
                 sync_done, w);
}

/* A spin load came back: true if the warp issues it again (the flag not yet
 * set and re-issues left); the re-issue needs no release again. */
static bool spin_again(struct cu *cu, struct cu_warp *w)
{
    if (!w->spin_old) {
        w->spins = 0;
        return false;
    }
    if (w->spins < w->op.n) {
        w->spins++;
        cu->st.spin_retries++;
        w->sync = 0;
        w->have_op = true;
        w->released = true;
        wake_at(cu, w, cu->env.s->now);
        return true;
    }
    cu->st.spins_exhausted++;
    w->spins = 0;
    return false;
}

/* The next step of w's synchronization: spin check, release, acquire, then
 * the warp goes on (with the op it has not issued yet, if the release came
 * before it). */
static void sync_step(struct cu *cu, struct cu_warp *w)
{
    if (w->sync & SYNC_SPIN) {
        w->sync &= (uint8_t)~SYNC_SPIN;
        if (spin_again(cu, w))
            return;
    }
    if (w->sync & SYNC_REL) {
        w->sync &= (uint8_t)~SYNC_REL;
        w->released = w->have_op;
        cu_fence_sync(cu, w, SYNC_REL);
        return;
    }
    if (w->sync & SYNC_ACQ) {
        w->sync &= (uint8_t)~SYNC_ACQ;
        cu_fence_sync(cu, w, SYNC_ACQ);
        return;
    }
    wake_at(cu, w, cu->env.s->now);
}

static void drain_check(struct cu *cu, struct cu_warp *w)
{
    if (w->state != W_DRAIN)
        return;
    if (w->drain == DR_EXIT) {
        if (!w->stores_out && !w->loads_out)
            warp_exit(cu, w);
        return;
    }
    if (w->drain == DR_RELEASE ? w->stores_out : w->loads_out)
        return;
    set_state(cu, w, W_SYNC);
    sync_step(cu, w);
}

/* Stop w until what `drain` names is done, then run the `sync` steps at the
 * op's scope; false (the warp does not go on now). */
static bool begin_sync(struct cu *cu, struct cu_warp *w, enum cu_drain drain, unsigned sync)
{
    set_state(cu, w, W_DRAIN);
    w->drain = (uint8_t)drain;
    w->sync = (uint8_t)sync;
    w->sync_scope = w->op.scope;
    drain_check(cu, w);
    return false;
}

/* Whether every word a read returned was written during the current kernel:
 * a version the checker handed out after the kernel began. */
static bool written_this_kernel(const struct chk *c, const struct req *r)
{
    uint32_t first = chk_kernel_first(c);
    for (uint32_t wm = req_word_mask(r->mask); wm; wm &= wm - 1)
        if (r->ver[__builtin_ctz(wm)] <= first)
            return false;
    return true;
}

/* What a returning load line tells the checker, and whether its words are
 * this kernel's (spin and fresh loads). */
static void load_checks(struct cu *cu, struct cu_warp *w, const struct req *r)
{
    chk_load(cu->env.chk, r->addr, r->mask, r->ver, wg_agent(cu, w));
    if (TAG_MEAS(r->tag) & (MEAS_SPIN | MEAS_FRESH) && cu->env.chk->on &&
        !written_this_kernel(cu->env.chk, r)) {
        w->spin_old |= (TAG_MEAS(r->tag) & MEAS_SPIN) != 0;
        cu->st.stale_fresh_loads += (TAG_MEAS(r->tag) & MEAS_FRESH) != 0;
    }
}

static void func_line_done(struct sim *s, struct req *r, void *obj)
{
    struct cu *cu = obj;
    if (TAG_KIND(r->tag) == REQ_READ)
        load_checks(cu, &cu->warps[TAG_SLOT(r->tag)], r);
    req_free(s, r);
}

static void line_done(struct sim *s, struct req *r, void *obj)
{
    struct cu *cu = obj;
    struct cu_warp *w = &cu->warps[TAG_SLOT(r->tag)];
    unsigned kind = TAG_KIND(r->tag);
    cu->reqs_out--;
    if (kind == REQ_READ) {
        load_checks(cu, w, r);
        if (TAG_MEAS(r->tag) & MEAS_LAT) {
            cu->st.measured_loads++;
            cu->st.measured_latency_ps += s->now - r->issued;
        }
        if (TAG_MEAS(r->tag) & MEAS_BW) {
            if (!cu->st.measured_bytes || r->issued < cu->meas_first)
                cu->meas_first = r->issued;
            cu->meas_last = s->now;
            cu->st.measured_bytes += req_mask_bytes(r->mask);
        }
    }
    uint64_t tag = r->tag;
    req_free(s, r);
    sim_progress(s);
    if (kind != REQ_READ)
        w->stores_out--;
    if (kind != REQ_WRITE) {
        w->loads_out--;
        reg_arrived(cu, w, TAG_REG(tag), TAG_NREG(tag));
    }
    drain_check(cu, w);
}

static void lds_done_ev(struct sim *s, void *obj, uint64_t arg)
{
    (void)s;
    struct cu *cu = obj;
    struct cu_warp *w = &cu->warps[arg & 0xff];
    w->loads_out--;
    reg_arrived(cu, w, (unsigned)(arg >> 8) & 0xff, (unsigned)(arg >> 16));
    drain_check(cu, w);
}

/* The LDS access of w's op: its cycles. */
static uint32_t lds_op(struct cu *cu, struct cu_warp *w)
{
    uint32_t addr[KERNEL_MAX_LANES];
    uint64_t m = active_mask(w);
    for (uint64_t b = m; b; b &= b - 1) {
        unsigned l = (unsigned)__builtin_ctzll(b);
        addr[l] = (uint32_t)lane_addr(w, l);
    }
    uint32_t cyc = lds_access(cu->lds, addr, m, w->kw.warp_size, w->op.kind == KOP_LDS_STORE);
    if (cyc == LDS_ERR_RANGE)
        SIM_BUG(cu->env.s, "cu", "kernel %s: LDS address 0x%llx outside the LDS",
                w->kw.k->name, (unsigned long long)cu->lds->err_addr);
    cu->st.lds_insts++;
    return cyc;
}

static void do_lds(struct cu *cu, struct cu_warp *w)
{
    uint32_t cyc = lds_op(cu, w);
    if (w->op.kind == KOP_LDS_LOAD) {
        unsigned nreg = dst_count(&w->op);
        regs_pending(w, w->op.dst, nreg, 1);
        w->loads_out++;
        sim_after_cycles(cu->env.s, cu->env.clk, cyc, lds_done_ev, cu,
                         (uint64_t)(w - cu->warps) | (uint64_t)w->op.dst << 8 |
                             (uint64_t)nreg << 16);
    }
}

/* ---- barriers, exit ------------------------------------------------------ */

/* Whether every warp of g still running has reached the barrier; if so the
 * barrier is counted and reset, and the caller lets them go on. */
static bool barrier_full(struct cu *cu, struct cu_wg *g)
{
    if (!g->at_barrier || g->at_barrier < g->nwarps - g->exited)
        return false;
    g->at_barrier = 0;
    cu->st.barriers++;
    return true;
}

static void barrier_check(struct cu *cu, struct cu_wg *g)
{
    if (!barrier_full(cu, g))
        return;
    ps_t t = cu->env.s->now + cu->env.clk->period;
    for (unsigned i = 0; i < cu->nslots; i++)
        if (cu->warps[i].wg == g && cu->warps[i].state == W_WAIT_BAR)
            wake_at(cu, &cu->warps[i], t);
}

/* Work-group g has ended: its slots and LDS are free. */
static void wg_end(struct cu *cu, struct cu_wg *g)
{
    cu->free_slots |= g->slots;
    cu->lds_used -= g->lds_b;
    cu->nwgs--;
    cu->st.wgs++;
    g->busy = false;
}

static void warp_exit(struct cu *cu, struct cu_warp *w)
{
    struct cu_wg *g = w->wg;
    set_state(cu, w, W_FREE);
    g->exited++;
    if (g->exited < g->nwarps) {
        barrier_check(cu, g);
        return;
    }
    wg_end(cu, g);
    cu->env.wg_done(cu->env.wg_done_obj, cu, g->wg);
}

/* ---- the warp ------------------------------------------------------------ */

/* A spin load that waits for its flag (it needs the checker's versions). */
static inline bool spins(const struct cu *cu, const struct kernel_op *op)
{
    return op->kind == KOP_LOAD && op->flags & KOP_F_SPIN && cu->env.chk->on;
}

/* After a global access issued: a spin load and an acquiring load or atomic
 * make the warp wait for their result (and a spin load may come again). */
static bool after_access(struct cu *cu, struct cu_warp *w)
{
    const struct kernel_op *op = &w->op;
    bool spin = spins(cu, op);
    bool acq = mem_sem_acquires(op->sem) && op->scope != SCOPE_CTA;
    if (!spin && !acq)
        return true;
    return begin_sync(cu, w, DR_LOADS, (spin ? SYNC_SPIN : 0) | (acq ? SYNC_ACQ : 0));
}

/* A fence of device or system scope: an acquire waits for the warp's loads
 * and atomics; a release, or both directions (SEM_ACQ_REL, and SEM_WEAK or
 * SEM_RELAXED), for its stores and atomics, and then acquires at once. */
static bool fence(struct cu *cu, struct cu_warp *w)
{
    unsigned sem = w->op.sem;
    cu->st.fences++;
    if (sem == SEM_ACQUIRE)
        return begin_sync(cu, w, DR_LOADS, SYNC_ACQ);
    return begin_sync(cu, w, DR_RELEASE, SYNC_REL | (sem == SEM_RELEASE ? 0 : SYNC_ACQ));
}

static inline bool is_access(unsigned kind)
{
    return kind == KOP_LOAD || kind == KOP_STORE || kind == KOP_ATOMIC;
}

/* Carry out the op (all its dependencies ready, issue time = now); false if
 * the warp must stop (waiting, or gone). A releasing access first waits for
 * its release, without issuing. */
static bool execute(struct cu *cu, struct cu_warp *w)
{
    struct sim *s = cu->env.s;
    if (is_access(w->op.kind) && mem_sem_releases(w->op.sem) && w->op.scope != SCOPE_CTA &&
        !w->released)
        return begin_sync(cu, w, DR_RELEASE, SYNC_REL);
    w->released = false;
    ps_t done = s->now + clock_cycles(cu->env.clk, op_ii(cu, &w->op));
    cu->simd[w->simd].free = done;
    w->ready_at = done;
    w->have_op = false;
    if (!(w->op.flags & KOP_F_NOCOUNT))
        cu->st.warp_insts++;
    struct line_set ls;
    switch (w->op.kind) {
    case KOP_LOAD:
    case KOP_STORE:
    case KOP_ATOMIC:
        cu->st.mem_insts++;
        cu->gmem_free = s->now + clock_cycles(cu->env.clk, cu->p.gmem_pipe_cycles);
        if (w->op.flags & KOP_F_SPIN)
            w->spin_old = false;
        coalesce(cu, w, &ls);
        issue_lines(cu, w, &ls, false);
        return after_access(cu, w);
    case KOP_LDS_LOAD:
    case KOP_LDS_STORE:
        cu->lds_free = s->now + clock_cycles(cu->env.clk, cu->p.lds_pipe_cycles);
        do_lds(cu, w);
        return true;
    case KOP_BARRIER:
        w->wg->at_barrier++;
        set_state(cu, w, W_WAIT_BAR);
        barrier_check(cu, w->wg);
        return false;
    case KOP_FENCE:
        return w->op.scope == SCOPE_CTA || fence(cu, w);
    case KOP_EXIT:
        return begin_sync(cu, w, DR_EXIT, 0);
    default:
        SIM_BUG(s, "cu", "kernel %s: unknown op kind %u", w->kw.k->name, w->op.kind);
    }
}

/* The warp instructions of a compute op. */
static inline void count_alu(struct cu *cu, const struct kernel_op *op)
{
    uint64_t n = op->flags & KOP_F_NOCOUNT ? 0 : op->n ? op->n : 1;
    cu->st.warp_insts += n;
    cu->st.alu_insts += n;
}

/* A compute op issued at t (which may lie ahead of now: runs of compute are
 * accounted without events). */
static void alu_issue(struct cu *cu, struct cu_warp *w, ps_t t)
{
    const struct kernel_op *op = &w->op;
    const ps_t period = cu->env.clk->period;
    uint64_t n = op->n ? op->n : 1, ii = op_ii(cu, op);
    w->ready_at = cu->simd[w->simd].free = t + n * ii * period;
    if (op->dst && op->lat) {
        ps_t at = t + ((n - 1) * ii + op->lat) * period;
        for (unsigned i = 0; i < dst_count(op); i++)
            w->reg_at[op->dst + i] = at;
    }
    count_alu(cu, op);
    w->have_op = false;
}

/* ---- the sub-core schedulers ----------------------------------------------- */

#define NEVER UINT64_MAX

/* When the CU-wide pipeline w's op needs is free. */
static ps_t pipe_free(const struct cu *cu, const struct cu_warp *w)
{
    return w->op_pipe == PIPE_GMEM ? cu->gmem_free : w->op_pipe == PIPE_LDS ? cu->lds_free : 0;
}

/* w's next operation, fetched if needed, and the earliest time it can issue:
 * NEVER (and W_WAIT_REG) while it reads a register a load has not returned. */
static ps_t warp_ready(struct cu *cu, struct cu_warp *w)
{
    if (!w->have_op) {
        memset(&w->op, 0, sizeof w->op);
        w->kw.k->next(w->kw.k, &w->kw, &w->op);
        w->have_op = true;
        op_fetched(cu, w);
    }
    if (!deps_ready(w)) {
        set_state(cu, w, W_WAIT_REG);
        return NEVER;
    }
    return max_u64(max_u64(w->ready_at, w->op_srcs_at), pipe_free(cu, w));
}

/* Whether an older warp of another SIMD could take the CU-wide pipeline that
 * w's operation needs at T: the pipeline goes to the oldest wavefront ready
 * for it (gem5's GCN3 CU: one scheduler per execution unit, oldest first). */
static bool older_wants_pipe(struct cu *cu, const struct cu_warp *w, ps_t T)
{
    uint8_t p = w->op_pipe;
    if (p == PIPE_NONE)
        return false;
    for (uint64_t m = cu->run_slots & ~cu->simd[w->simd].slots; m; m &= m - 1) {
        struct cu_warp *o = &cu->warps[__builtin_ctzll(m)];
        if (o->age > w->age || !o->have_op || cu->simd[o->simd].free > T)
            continue;
        if (o->op_pipe == p && warp_ready(cu, o) <= T)
            return true;
    }
    return false;
}

/* The warp sub-core si issues at T: under GTO the one it issued last if it
 * can, else the oldest that can (oldest first: always the oldest). *next: the
 * earliest time another runnable warp could issue, if none can at T. */
static struct cu_warp *pick(struct cu *cu, unsigned si, ps_t T, ps_t *next)
{
    struct cu_simd *sd = &cu->simd[si];
    struct cu_warp *best = NULL;
    *next = NEVER;
    if (cu->p.sched == CU_SCHED_GTO && sd->last >= 0) {
        struct cu_warp *g = &cu->warps[sd->last];
        ps_t r = g->state == W_RUN ? warp_ready(cu, g) : NEVER;
        if (r <= T && !older_wants_pipe(cu, g, T))
            return g;
    }
    for (uint64_t m = cu->run_slots & sd->slots; m; m &= m - 1) {
        struct cu_warp *w = &cu->warps[__builtin_ctzll(m)];
        ps_t r = warp_ready(cu, w);
        if (r <= T && older_wants_pipe(cu, w, T)) /* look again next cycle */
            *next = min_u64(*next, T + cu->env.clk->period);
        else if (r <= T && (!best || w->age < best->age))
            best = w;
        else if (r > T)
            *next = min_u64(*next, r);
    }
    return best;
}

#define MAX_ALU_RUN 4096 /* compute ops issued in one go before yielding */

/* Under oldest-first, when an older runnable warp of w's sub-core could issue. */
static ps_t older_ready(struct cu *cu, const struct cu_warp *w)
{
    ps_t t = NEVER;
    if (cu->p.sched == CU_SCHED_GTO)
        return t;
    for (uint64_t m = cu->run_slots & cu->simd[w->simd].slots; m; m &= m - 1) {
        struct cu_warp *o = &cu->warps[__builtin_ctzll(m)];
        if (o->age < w->age)
            t = min_u64(t, warp_ready(cu, o));
    }
    return t;
}

/* Issue w's operations from T (= now) on: a run of compute each ready at its
 * slot goes at once, without events, as long as no other warp would take the
 * slot (under GTO none would; under oldest-first, until an older warp can
 * issue); a memory, LDS or synchronization operation only at now. A warp
 * woken by a returning load during such a run waits for its end. */
static void issue_run(struct cu *cu, struct cu_warp *w, ps_t T)
{
    struct sim *s = cu->env.s;
    ps_t t = T, stop = older_ready(cu, w);
    for (unsigned alu = 0; alu < MAX_ALU_RUN; alu++) {
        ps_t r = warp_ready(cu, w);
        if (r > t || (t > T && t >= stop))
            return;
        if (w->op.kind == KOP_ALU) {
            alu_issue(cu, w, t);
            t = cu->simd[w->simd].free;
            continue;
        }
        if (t > s->now || !execute(cu, w))
            return;
        t = cu->simd[w->simd].free;
    }
}

static void simd_ev(struct sim *s, void *obj, uint64_t si);

/* The earliest time one of sub-core si's runnable warps could issue. */
static ps_t earliest(struct cu *cu, unsigned si)
{
    ps_t t = NEVER;
    for (uint64_t m = cu->run_slots & cu->simd[si].slots; m; m &= m - 1)
        t = min_u64(t, warp_ready(cu, &cu->warps[__builtin_ctzll(m)]));
    return t;
}

/* Have sub-core si's scheduler look again at t (the earliest pending look wins). */
static void simd_arm(struct cu *cu, unsigned si, ps_t t)
{
    struct cu_simd *sd = &cu->simd[si];
    t = max_u64(t, sd->free);
    if (sd->armed <= t)
        return;
    sd->armed = t;
    sim_at(cu->env.s, t, simd_ev, cu, si);
}

static void simd_kick(struct cu *cu, unsigned si)
{
    simd_arm(cu, si, clock_edge(cu->env.clk, cu->env.s->now));
}

static void simd_ev(struct sim *s, void *obj, uint64_t si)
{
    struct cu *cu = obj;
    struct cu_simd *sd = &cu->simd[si];
    if (s->now != sd->armed)
        return; /* superseded by an earlier look */
    sd->armed = NEVER;
    ps_t next;
    struct cu_warp *w = pick(cu, (unsigned)si, s->now, &next);
    if (w) {
        sd->last = (int)(w - cu->warps);
        issue_run(cu, w, s->now);
        next = earliest(cu, (unsigned)si);
    }
    if (next != NEVER)
        simd_arm(cu, (unsigned)si, next);
}

/* ---- dispatch -------------------------------------------------------------- */

static unsigned warp_size_of(const struct cu *cu, const struct kernel *k)
{
    return k->warp_size ? k->warp_size : cu->p.warp_size;
}

static unsigned warps_of(const struct cu *cu, const struct kernel *k)
{
    return (unsigned)div_ceil(kernel_wg_threads(k), warp_size_of(cu, k));
}

bool cu_can_accept(const struct cu *cu, const struct kernel *k)
{
    return cu->nwgs < cu->p.max_wgs && popcount64(cu->free_slots) >= warps_of(cu, k) &&
           cu->lds_used + k->lds_b <= cu->lds_size;
}

static void init_warp(struct cu *cu, struct cu_warp *w, struct cu_wg *g, unsigned idx)
{
    const struct kernel *k = g->k;
    uint32_t threads = kernel_wg_threads(k), ws = warp_size_of(cu, k);
    *w = (struct cu_warp){.simd = w->simd, .wg = g, .cu = cu};
    set_state(cu, w, W_RUN);
    w->kw.k = k;
    w->kw.wg = g->wg;
    w->kw.wg_id = (struct kernel_dim){g->wg % k->grid.x, (g->wg / k->grid.x) % k->grid.y,
                                      g->wg / (k->grid.x * k->grid.y)};
    w->kw.warp = idx;
    w->kw.warp_size = ws;
    w->kw.nlanes = threads - idx * ws < ws ? threads - idx * ws : ws;
    w->ready_at = cu->env.s->now;
    w->age = cu->next_age++;
}

/* Give work-group wg of k a work-group slot, its LDS and warp slots. */
static struct cu_wg *place_wg(struct cu *cu, const struct kernel *k, uint32_t wg)
{
    SIM_ASSERT(cu->env.s, "cu", cu_can_accept(cu, k));
    struct cu_wg *g = cu->wgs;
    while (g->busy)
        g++;
    unsigned nw = warps_of(cu, k);
    *g = (struct cu_wg){.k = k, .wg = wg, .nwarps = nw, .lds_b = k->lds_b, .busy = true};
    cu->nwgs++;
    cu->lds_used += k->lds_b;
    for (unsigned i = 0; i < nw; i++) {
        unsigned slot = (unsigned)__builtin_ctzll(cu->free_slots);
        cu->free_slots &= cu->free_slots - 1;
        g->slots |= 1ull << slot;
        init_warp(cu, &cu->warps[slot], g, i);
    }
    return g;
}

void cu_dispatch(struct cu *cu, const struct kernel *k, uint32_t wg)
{
    struct cu_wg *g = place_wg(cu, k, wg);
    for (uint64_t m = g->slots; m; m &= m - 1)
        wake_at(cu, &cu->warps[__builtin_ctzll(m)], cu->env.s->now);
}

/* ---- the warming pass of kernel sampling (gpu/sample.h) ------------------------ */

void cu_func_dispatch(struct cu *cu, const struct kernel *k, uint32_t wg)
{
    SIM_ASSERT(cu->env.s, "cu", cu->env.s->functional);
    place_wg(cu, k, wg);
}

/* Warp w's next operation, carried out at once. */
static void func_op(struct cu *cu, struct cu_warp *w, bool *sync)
{
    const struct kernel_op *op = &w->op;
    memset(&w->op, 0, sizeof w->op);
    w->kw.k->next(w->kw.k, &w->kw, &w->op);
    if (op->kind == KOP_ALU) {
        count_alu(cu, op);
        return;
    }
    cu->st.warp_insts += !(op->flags & KOP_F_NOCOUNT);
    struct line_set ls;
    switch (op->kind) {
    case KOP_LOAD:
    case KOP_STORE:
    case KOP_ATOMIC:
        cu->st.mem_insts++;
        /* what makes a warp wait on another: not done here (the kernel's group
         * runs in detail from now on) */
        if (spins(cu, op) || (op->scope != SCOPE_CTA &&
                              (mem_sem_acquires(op->sem) || mem_sem_releases(op->sem))))
            *sync = true;
        coalesce(cu, w, &ls);
        issue_lines(cu, w, &ls, true);
        return;
    case KOP_LDS_LOAD:
    case KOP_LDS_STORE:
        lds_op(cu, w);
        return;
    case KOP_BARRIER:
        set_state(cu, w, W_WAIT_BAR);
        w->wg->at_barrier++;
        return;
    case KOP_FENCE:
        if (op->scope != SCOPE_CTA) {
            cu->st.fences++;
            *sync = true;
        }
        return;
    case KOP_EXIT:
        set_state(cu, w, W_FREE);
        w->wg->exited++;
        return;
    default:
        SIM_BUG(cu->env.s, "cu", "kernel %s: unknown op kind %u", w->kw.k->name, op->kind);
    }
}

bool cu_func_round(struct cu *cu, bool *sync)
{
    bool stopped = false; /* a warp reached a barrier or its end */
    for (uint64_t m = ~cu->free_slots & low_bits(cu->nslots); m; m &= m - 1) {
        struct cu_warp *w = &cu->warps[__builtin_ctzll(m)];
        if (w->state == W_RUN) {
            func_op(cu, w, sync);
            stopped |= w->state != W_RUN;
        }
    }
    for (unsigned j = 0; stopped && j < cu->p.max_wgs; j++) {
        struct cu_wg *g = &cu->wgs[j];
        if (!g->busy)
            continue;
        if (g->exited == g->nwarps) {
            wg_end(cu, g);
        } else if (barrier_full(cu, g)) {
            for (uint64_t m = g->slots; m; m &= m - 1)
                if (cu->warps[__builtin_ctzll(m)].state == W_WAIT_BAR)
                    set_state(cu, &cu->warps[__builtin_ctzll(m)], W_RUN);
        }
    }
    return cu->nwgs > 0;
}

/* ---- set-up ---------------------------------------------------------------- */

static uint64_t cu_pending(void *obj)
{
    const struct cu *cu = obj;
    return cu->nwgs + cu->reqs_out;
}

static void cu_dump(void *obj, FILE *out)
{
    const struct cu *cu = obj;
    static const char *const st[] = {"free", "run", "wait-reg", "wait-barrier", "drain",
                                     "sync"};
    for (unsigned i = 0; i < cu->nslots; i++) {
        const struct cu_warp *w = &cu->warps[i];
        if (w->state != W_FREE)
            fprintf(out, "    warp slot %u: %s, kernel %s wg %u warp %u, pc %u, %u stores and %u "
                    "loads out\n", i, st[w->state], w->kw.k->name, w->kw.wg, w->kw.warp, w->kw.pc,
                    w->stores_out, w->loads_out);
    }
}

void cu_init(struct cu *cu, unsigned id, const struct cu_params *p, const struct cu_env *env,
             struct cache *l1, struct lds *lds, unsigned lds_size)
{
    *cu = (struct cu){.id = id, .p = *p, .env = *env, .l1 = l1, .lds = lds, .lds_size = lds_size};
    cu->line_b = l1->p.line_b;
    cu->nslots = p->simds * p->warps_per_simd;
    cu->free_slots = low_bits(cu->nslots);
    cu->warps = xcalloc_aligned(cu->nslots, sizeof *cu->warps);
    for (unsigned i = 0; i < cu->nslots; i++)
        cu->warps[i].simd = (uint8_t)(i % p->simds);
    cu->wgs = xcalloc(p->max_wgs, sizeof *cu->wgs);
    cu->simd = xcalloc(p->simds, sizeof *cu->simd);
    for (unsigned i = 0; i < p->simds; i++)
        cu->simd[i] = (struct cu_simd){.armed = NEVER, .last = -1};
    for (unsigned i = 0; i < cu->nslots; i++)
        cu->simd[i % p->simds].slots |= 1ull << i;
    snprintf(cu->name, sizeof cu->name, "cu%u", id);
    sim_watch(env->s, cu->name, cu_pending, cu_dump, cu);
}

void cu_free(struct cu *cu)
{
    free(cu->warps);
    free(cu->wgs);
    free(cu->simd);
    *cu = (struct cu){0};
}

void cu_reg_stats(struct cu *cu, struct stats *st, const char *prefix)
{
    stats_reg_block(st, prefix, cu_desc, &cu->st);
}
