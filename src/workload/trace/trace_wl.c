/*
 * trace_wl.c -- the `trace` workload: runs Accel-Sim (NVBit) SASS traces
 * (src/trace/, docs/trace.md) as they were captured.
 *
 * Modelled: every kernel of kernelslist.g in order (CUDA streams are not
 * overlapped), with the trace's grid, block and shared-memory size and its
 * 32-thread warps on any CU; each MemcpyHtoD before a launch is handed to
 * the command processor (page placement, optional L2 warm-up). A thread
 * block's instructions are read from the file when the GPU dispatches it
 * and dropped when its last warp ends, so memory follows the resident
 * blocks. Each SASS instruction becomes one operation: compute with the
 * latency and issue interval of its class (per binary version, overridable
 * with the lat_* and ii_* keys), a global, local or shared access at the
 * traced addresses (generic LD/ST resolved by the header's windows), a
 * barrier, a fence or the warp's end. A global access carries the scope and
 * strength of its modifiers (.STRONG.GPU: relaxed at GPU scope), a MEMBAR is
 * a fence of both directions at its scope and CCTL.IVALL an acquire fence
 * at the scope of the warp's last scoped instruction (docs/trace.md 3.1).
 * Registers drive the scoreboard (trace.h: R n -> 1 + n mod 60).
 * Abstracted: local memory is laid out as hardware interleaves it (word w of
 * thread t at base + (w * threads + t) * 4, threads of the whole grid);
 * shared-memory offsets wrap inside the block's allocation; constant loads
 * have no address in the trace and take a fixed latency; asynchronous
 * copies (LDGSTS) are global loads whose completion every DEPBAR waits for.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/u64map.h"
#include "stats/stats.h"
#include "trace/trace.h"
#include "workload/wl.h"

#define LOCAL_BASE (1ull << 62) /* where per-thread local memory is laid out */
#define MAX_CURSORS 64

#define LATKEY(c, what)                                                                         \
    {"lat_" c, CFG_INT, "0", 0, 65535,                                                          \
     "cycles until a " what " result can be read (0: the binary version's table)", NULL},     \
    {"ii_" c, CFG_INT, "0", 0, 65535,                                                           \
     "cycles a " what " instruction occupies its sub-core (0: the binary version's table)",   \
     NULL}

/* In enum trace_class order. */
static const struct cfg_key trace_keys[] = {
    {"path", CFG_STR, "", 0, 0, "the trace's kernelslist.g (also: chipsim run --trace PATH)",
     NULL},
    {"kernels", CFG_INT, "0", 0, 1e9, "run only the first N kernels of the list (0: all)", NULL},
    {"shared_window_b", CFG_INT, "16777216", 1, 1ull << 40,
     "size of the generic shared-memory window from the header's shmem base_addr, bytes", NULL},
    {"local_window_b", CFG_INT, "16777216", 4, 1ull << 40,
     "size of the per-thread local-memory window from the header's local mem base_addr, "
     "bytes (a power of two; local offsets wrap inside it)", NULL},
    {"keep_mib", CFG_INT, "256", 0, 1 << 20,
     "thread blocks kept in compact form from the check at the start of the run, so that "
     "dispatch copies them instead of reading their lines again (MiB over all kernel files, "
     "in list order; 0: every block is read again)", NULL},
    {"xz_cursors", CFG_INT, "4", 1, MAX_CURSORS,
     "readers kept open per .xz kernel file (each skips forward to the blocks it reads)", NULL},
    LATKEY("int", "integer"), LATKEY("imad", "integer multiply"), LATKEY("fp32", "FP32/FP16"),
    LATKEY("ffma", "FP32/FP16 fused multiply-add"), LATKEY("fp64", "FP64"),
    LATKEY("sfu", "special-function or conversion"), LATKEY("tensor", "tensor-core"),
    LATKEY("shfl", "warp shuffle"), LATKEY("ctrl", "control (branch, barrier, exit)"),
    LATKEY("const", "constant-bank load"), LATKEY("mem", "memory-access issue"),
    CFG_END,
};

struct tw_stats {
    uint64_t kernels_checked, lines_checked, bytes_checked, unknown_opcodes;
    uint64_t tbs, tbs_absent, warps, warps_absent, insts, unknown_insts;
    uint64_t global_loads, global_stores, global_atomics, local_loads, local_stores;
    uint64_t shared_loads, shared_stores, shared_atomics, const_loads, async_copies;
    uint64_t mem_no_lanes, barriers, membars, strong_accesses, l1_invalidates;
    uint64_t blocks_kept, bytes_read, bytes_skipped, resident_tbs_peak, resident_bytes_peak;
    uint64_t memcpys_ignored;
};

static const struct stat_desc tw_desc[] = {
    STAT_DESC(struct tw_stats, kernels_checked, "kernel files checked when the run started"),
    STAT_DESC(struct tw_stats, lines_checked, "lines read by that check"),
    STAT_DESC(struct tw_stats, bytes_checked, "bytes read by that check (decompressed)"),
    STAT_DESC(struct tw_stats, unknown_opcodes, "distinct unknown opcodes (timed as integer ops)"),
    STAT_DESC(struct tw_stats, tbs, "thread blocks read from the trace when dispatched"),
    STAT_DESC(struct tw_stats, tbs_absent, "dispatched blocks the trace does not list (empty)"),
    STAT_DESC(struct tw_stats, warps, "warps run"),
    STAT_DESC(struct tw_stats, warps_absent, "warps the trace does not list (no instruction)"),
    STAT_DESC(struct tw_stats, insts, "trace instructions handed to the CUs"),
    STAT_DESC(struct tw_stats, unknown_insts, "of which with an unknown opcode"),
    STAT_DESC(struct tw_stats, global_loads, "global load instructions (incl. LDG, generic LD)"),
    STAT_DESC(struct tw_stats, global_stores, "global store instructions"),
    STAT_DESC(struct tw_stats, global_atomics, "global atomic and reduction instructions"),
    STAT_DESC(struct tw_stats, local_loads, "local-memory load instructions"),
    STAT_DESC(struct tw_stats, local_stores, "local-memory store instructions"),
    STAT_DESC(struct tw_stats, shared_loads, "shared-memory load instructions"),
    STAT_DESC(struct tw_stats, shared_stores, "shared-memory store instructions"),
    STAT_DESC(struct tw_stats, shared_atomics, "shared-memory atomic instructions"),
    STAT_DESC(struct tw_stats, const_loads, "constant-bank loads (no address traced)"),
    STAT_DESC(struct tw_stats, async_copies, "asynchronous global-to-shared copies (LDGSTS)"),
    STAT_DESC(struct tw_stats, mem_no_lanes, "memory instructions with no active lane"),
    STAT_DESC(struct tw_stats, barriers, "CTA barrier instructions that wait"),
    STAT_DESC(struct tw_stats, membars, "memory barrier instructions"),
    STAT_DESC(struct tw_stats, strong_accesses,
              "global loads, stores and atomics with a scope (.STRONG.<scope>; atomics)"),
    STAT_DESC(struct tw_stats, l1_invalidates, "L1 invalidations (CCTL.IVALL): acquire fences"),
    STAT_DESC(struct tw_stats, blocks_kept,
              "thread blocks kept from the check (workload.keep_mib), not read again"),
    STAT_DESC(struct tw_stats, bytes_read, "trace bytes read for dispatched blocks"),
    STAT_DESC(struct tw_stats, bytes_skipped, "xz bytes decompressed only to skip them"),
    STAT_DESC(struct tw_stats, resident_tbs_peak, "most thread blocks held at once"),
    STAT_DESC(struct tw_stats, resident_bytes_peak, "most bytes of block records held at once"),
    STAT_DESC(struct tw_stats, memcpys_ignored, "copies after the last kernel (no effect)"),
    {0},
};

/* One kernel of the list. */
struct tkern {
    struct trace_kfile kf;
    struct addr_range *copies;  /* MemcpyHtoD since the previous kernel */
    unsigned ncopies;
    uint16_t lat[TC_N], ii[TC_N];
    uint64_t threads;             /* of the whole grid */
    uint32_t lds_mod;             /* shared offsets wrap at this */
};

/* A resident thread block. */
struct tslot {
    struct trace_tb tb;
    uint64_t wg;
    uint32_t left;                /* warps not finished */
    uint32_t next_free;           /* free list: index + 1 */
};

struct twl {
    struct trace_list list;
    struct trace_ops ops;
    struct tkern *k;
    size_t nk, next;
    struct tkern *cur;
    struct trace_in in[MAX_CURSORS];
    uint64_t in_used[MAX_CURSORS];
    unsigned nin, ncursors;
    uint64_t tick;
    struct u64map resident;       /* wg -> slot index + 1 */
    struct tslot *slot;
    size_t nslot, slot_cap;
    uint32_t free_head;
    uint64_t resident_n, resident_bytes;
    uint64_t shared_window, local_window;
    uint64_t keep_left;           /* of workload.keep_mib, bytes */
    struct tw_stats st;
};

/* ---- set-up ---------------------------------------------------------------------- */

static void kern_params(struct tkern *tk, const struct cfg_sec *sec)
{
    const struct trace_isa *isa = trace_isa_for(tk->kf.h.binver);
    char key[32];
    for (int c = 0; c < TC_N; c++) {
        snprintf(key, sizeof key, "lat_%s", trace_class_names[c]);
        uint64_t v = cfg_uint(sec, key);
        tk->lat[c] = (uint16_t)(v ? v : isa->lat[c]);
        snprintf(key, sizeof key, "ii_%s", trace_class_names[c]);
        v = cfg_uint(sec, key);
        tk->ii[c] = (uint16_t)(v ? v : isa->ii[c]);
    }
    const struct trace_header *h = &tk->kf.h;
    tk->threads = tk->kf.ntb * h->block.x * h->block.y * h->block.z;
    tk->lds_mod = h->shmem ? h->shmem : 1024;
}

/* Whether the kernel fits a CU of this machine and the local-memory layout. */
static int kern_fits(const struct twl *t, const struct tkern *tk, const struct wl_env *env,
                     struct err *e)
{
    const struct trace_header *h = &tk->kf.h;
    if (env->warp_slots && tk->kf.warps_per_tb > env->warp_slots)
        return err_set(e, "%s: block dim (%u,%u,%u) needs %u warps of 32 threads; a CU of this "
                       "configuration has %u warp slots", tk->kf.path, h->block.x, h->block.y,
                       h->block.z, tk->kf.warps_per_tb, env->warp_slots);
    if (env->lds_b && h->shmem > env->lds_b)
        return err_set(e, "%s: shmem = %u bytes per block; the configuration's LDS has %u",
                       tk->kf.path, h->shmem, env->lds_b);
    if ((double)t->local_window * (double)tk->threads >= (double)(1ull << 61))
        return err_set(e, "%s: %llu threads x a %llu-byte local window do not fit the "
                       "local-memory layout (lower workload.local_window_b)", tk->kf.path,
                       (unsigned long long)tk->threads, (unsigned long long)t->local_window);
    return 0;
}

static uint64_t kept_blocks(const struct trace_kfile *kf)
{
    uint64_t n = 0;
    for (size_t i = 0; i < kf->nidx; i++)
        n += kf->idx[i].kept != 0;
    return n;
}

static int add_kernel(struct twl *t, const struct trace_cmd *c, struct addr_range *copies,
                      unsigned ncopies, const struct wl_env *env, const struct cfg_sec *sec,
                      struct err *e)
{
    t->k = realloc(t->k, (t->nk + 1) * sizeof *t->k);
    if (!t->k)
        BUG("out of memory");
    struct tkern *tk = &t->k[t->nk++];
    *tk = (struct tkern){.copies = copies, .ncopies = ncopies};
    tk->kf.path = xstrdup(c->path);
    tk->kf.keep_b = t->keep_left;
    if (trace_check_kernel(&tk->kf, &t->ops, e))
        return -1;
    t->keep_left -= tk->kf.kept_len;
    t->st.blocks_kept += kept_blocks(&tk->kf);
    t->st.kernels_checked++;
    t->st.lines_checked += tk->kf.lines;
    t->st.bytes_checked += tk->kf.bytes;
    kern_params(tk, sec);
    return kern_fits(t, tk, env, e);
}

static int read_list(struct twl *t, const struct wl_env *env, const struct cfg_sec *sec,
                     struct err *e)
{
    uint64_t limit = cfg_uint(sec, "kernels");
    struct addr_range *copies = NULL;
    unsigned ncopies = 0;
    size_t cap = 0;
    for (size_t i = 0; i < t->list.n && (!limit || t->nk < limit); i++) {
        const struct trace_cmd *c = &t->list.cmd[i];
        if (c->kind == TCMD_MEMCPY) {
            copies = xgrow(copies, sizeof *copies, &cap, ncopies + 1);
            copies[ncopies++] = (struct addr_range){c->addr, c->addr + c->bytes};
            continue;
        }
        if (access(c->path, R_OK)) {
            free(copies);
            return err_set(e, "%s:%llu: cannot open kernel file %s: %s", t->list.path,
                           (unsigned long long)c->line, c->path, strerror(errno));
        }
        if (add_kernel(t, c, copies, ncopies, env, sec, e))
            return -1;
        copies = NULL;
        ncopies = 0;
        cap = 0;
    }
    t->st.memcpys_ignored = ncopies;
    free(copies);
    if (!t->nk)
        return err_set(e, "%s: the list names no kernel file", t->list.path);
    return 0;
}

static void tw_destroy(void *self);

static void *tw_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    const char *path = cfg_str(sec, "path");
    if (!*path) {
        cfg_err(e, sec, "path", "no trace given (chipsim run --trace DIR/kernelslist.g)");
        return NULL;
    }
    struct twl *t = xcalloc(1, sizeof *t);
    t->shared_window = cfg_uint(sec, "shared_window_b");
    t->local_window = cfg_uint(sec, "local_window_b");
    t->ncursors = (unsigned)cfg_uint(sec, "xz_cursors");
    t->keep_left = cfg_uint(sec, "keep_mib") << 20;
    trace_ops_init(&t->ops, stderr);
    u64map_init(&t->resident, 64);
    if (!is_pow2(t->local_window)) {
        cfg_err(e, sec, "local_window_b", "must be a power of two");
        tw_destroy(t);
        return NULL;
    }
    if (trace_list_read(&t->list, path, e) || read_list(t, env, sec, e)) {
        tw_destroy(t);
        return NULL;
    }
    t->st.unknown_opcodes = t->ops.nunknown;
    return t;
}

/* ---- reading blocks -------------------------------------------------------------- */

static void close_cursors(struct twl *t)
{
    for (unsigned i = 0; i < t->nin; i++) {
        t->st.bytes_read += t->in[i].bytes;
        t->st.bytes_skipped += t->in[i].skipped;
        trace_in_close(&t->in[i]);
    }
    t->nin = 0;
}

/* The reader for offset off: the open reader closest before off (blocks
 * are dispatched in order within each chiplet's share, so each reader moves
 * forward, mostly inside its buffer), else a new one, else the least
 * recently used (an .xz reader sent back decompresses from the start). */
static struct trace_in *cursor_for(struct twl *t, uint64_t off)
{
    const struct trace_kfile *kf = &t->cur->kf;
    int best = -1;
    for (unsigned i = 0; i < t->nin; i++)
        if (trace_in_tell(&t->in[i]) <= off &&
            (best < 0 || trace_in_tell(&t->in[i]) > trace_in_tell(&t->in[best])))
            best = (int)i;
    if (best < 0 && t->nin < t->ncursors) {
        struct err e;
        if (trace_in_open(&t->in[t->nin], kf->path, &e))
            BUG("%s (the trace changed while it was simulated)", e.msg);
        best = (int)t->nin++;
    }
    if (best < 0) {
        best = 0;
        for (unsigned i = 1; i < t->nin; i++)
            if (t->in_used[i] < t->in_used[best])
                best = (int)i;
    }
    t->in_used[best] = ++t->tick;
    return &t->in[best];
}

static uint32_t slot_get(struct twl *t)
{
    if (t->free_head) {
        uint32_t i = t->free_head - 1;
        t->free_head = t->slot[i].next_free;
        return i;
    }
    t->slot = xgrow(t->slot, sizeof *t->slot, &t->slot_cap, t->nslot + 1);
    t->slot[t->nslot] = (struct tslot){0};
    return (uint32_t)t->nslot++;
}

static uint32_t load_tb(struct twl *t, uint64_t wg)
{
    uint32_t i = slot_get(t);
    struct tslot *sl = &t->slot[i];
    const struct trace_kfile *kf = &t->cur->kf;
    struct err e;
    const struct trace_tbidx *ix = trace_kfile_find(kf, wg);
    bool present = ix != NULL;
    struct trace_in *in = present && !ix->kept ? cursor_for(t, ix->off) : NULL;
    if (trace_read_tb(in, kf, &t->ops, wg, &sl->tb, &e))
        BUG("%s (the trace changed while it was simulated)", e.msg);
    sl->wg = wg;
    sl->left = sl->tb.nwarps;
    t->st.tbs++;
    t->st.tbs_absent += !present;
    t->resident_n++;
    t->resident_bytes += sl->tb.cap;
    t->st.resident_tbs_peak = max_u64(t->st.resident_tbs_peak, t->resident_n);
    t->st.resident_bytes_peak = max_u64(t->st.resident_bytes_peak, t->resident_bytes);
    *u64map_put(&t->resident, wg) = i + 1;
    return i;
}

static void release(struct twl *t, struct kernel_warp *w)
{
    uint32_t i = (uint32_t)w->r[0] - 1;
    struct tslot *sl = &t->slot[i];
    w->r[0] = 0;
    if (--sl->left)
        return;
    u64map_del(&t->resident, sl->wg);
    t->resident_n--;
    t->resident_bytes -= sl->tb.cap;
    sl->next_free = t->free_head;
    t->free_head = i + 1;
}

/* A warp's first call: its block (read now if it is the first warp there). */
static void attach(struct twl *t, struct kernel_warp *w)
{
    uint64_t *v = u64map_get(&t->resident, w->wg);
    uint32_t i = v ? (uint32_t)*v - 1 : load_tb(t, w->wg);
    const struct trace_tb_warp *tw = &t->slot[i].tb.warp[w->warp];
    w->r[0] = i + 1;
    w->r[1] = tw->off;
    w->r[2] = tw->n;
    w->r[3] = 1; /* attached */
    t->st.warps++;
    t->st.warps_absent += !tw->n;
}

/* ---- instructions to operations ---------------------------------------------------- */

static unsigned space_of(const struct twl *t, const struct trace_opinfo *o, addr_t a)
{
    if (o->space != TSP_GENERIC)
        return o->space;
    const struct trace_header *h = &t->cur->kf.h;
    if (h->shmem_base && a >= h->shmem_base && a - h->shmem_base < t->shared_window)
        return TSP_SHARED;
    if (h->local_base && a >= h->local_base && a - h->local_base < t->local_window)
        return TSP_LOCAL;
    return TSP_GLOBAL;
}

/* Lane l's address of a record. */
static inline addr_t rec_lane(const struct trace_rec *r, const uint64_t *a, unsigned l,
                              unsigned *k)
{
    if (r->form == TRF_STRIDE)
        return a[0] + (addr_t)(l - (unsigned)__builtin_ctz(r->mask)) * a[1];
    return a[(*k)++];
}

static void global_op(struct kernel_op *op, struct kernel_warp *w, const struct trace_rec *r,
                      const uint64_t *a)
{
    if (r->form == TRF_STRIDE) {
        unsigned first = (unsigned)__builtin_ctz(r->mask);
        op->stride = (int64_t)a[1];
        op->base = a[0] - (addr_t)first * a[1];
        return;
    }
    op->lanes = true;
    unsigned k = 0;
    for (uint32_t m = r->mask; m; m &= m - 1)
        w->lane_addr[__builtin_ctz(m)] = a[k++];
}

/* Word w of thread t at LOCAL_BASE + (w * threads + t) * 4. */
static void local_op(const struct twl *t, struct kernel_op *op, struct kernel_warp *w,
                     const struct trace_rec *r, const uint64_t *a)
{
    const struct tkern *tk = t->cur;
    const struct trace_header *h = &tk->kf.h;
    uint64_t gtid0 = (uint64_t)w->wg * (h->block.x * h->block.y * h->block.z) + w->warp * 32u;
    unsigned k = 0;
    op->lanes = true;
    for (uint32_t m = r->mask; m; m &= m - 1) {
        unsigned l = (unsigned)__builtin_ctz(m);
        addr_t x = rec_lane(r, a, l, &k);
        if (h->local_base && x >= h->local_base && x - h->local_base < t->local_window)
            x -= h->local_base;
        x &= t->local_window - 1;
        w->lane_addr[l] = LOCAL_BASE + ((x >> 2) * tk->threads + gtid0 + l) * 4 + (x & 3);
    }
    if (op->size > 4) /* a thread's next word: one row of words further */
        op->wstride = tk->threads * 4;
    op->flags |= KOP_F_LOCAL;
}

static void shared_op(const struct twl *t, struct kernel_op *op, struct kernel_warp *w,
                      const struct trace_rec *r, const uint64_t *a)
{
    const struct trace_header *h = &t->cur->kf.h;
    unsigned k = 0;
    op->lanes = true;
    for (uint32_t m = r->mask; m; m &= m - 1) {
        unsigned l = (unsigned)__builtin_ctz(m);
        addr_t x = rec_lane(r, a, l, &k);
        if (h->shmem_base && x >= h->shmem_base && x - h->shmem_base < t->shared_window)
            x -= h->shmem_base;
        w->lane_addr[l] = x % t->cur->lds_mod;
    }
}

static void count_mem(struct twl *t, unsigned kind, unsigned space)
{
    static const size_t at[3][3] = {
        /* load, store, atomic */
        {offsetof(struct tw_stats, global_loads), offsetof(struct tw_stats, global_stores),
         offsetof(struct tw_stats, global_atomics)},
        {offsetof(struct tw_stats, local_loads), offsetof(struct tw_stats, local_stores),
         offsetof(struct tw_stats, global_atomics)},
        {offsetof(struct tw_stats, shared_loads), offsetof(struct tw_stats, shared_stores),
         offsetof(struct tw_stats, shared_atomics)},
    };
    unsigned s = space == TSP_LOCAL ? 1 : space == TSP_SHARED ? 2 : 0;
    unsigned k = kind == TK_STORE ? 1 : kind == TK_ATOMIC ? 2 : 0;
    ++*(uint64_t *)((char *)&t->st + at[s][k]);
}

/* A load, store or atomic with at least one lane. */
static void mem_op(struct twl *t, const struct trace_opinfo *o, struct kernel_op *op,
                   struct kernel_warp *w, const struct trace_rec *r)
{
    const uint64_t *a = (const uint64_t *)(r + 1);
    unsigned space = space_of(t, o, a[0]);
    count_mem(t, o->kind, space);
    t->st.async_copies += o->kind == TK_ASYNC;
    op->size = o->size;
    op->mask = r->mask;
    op->site = r->site;
    if (space == TSP_SHARED) {
        op->kind = o->kind == TK_STORE || (o->kind == TK_ATOMIC && !r->dst) ? KOP_LDS_STORE
                                                                            : KOP_LDS_LOAD;
        shared_op(t, op, w, r, a);
        return;
    }
    op->kind = o->kind == TK_STORE ? KOP_STORE : o->kind == TK_ATOMIC ? KOP_ATOMIC : KOP_LOAD;
    if (space == TSP_LOCAL) {
        local_op(t, op, w, r, a); /* private to its thread: a scope means nothing */
        return;
    }
    global_op(op, w, r, a);
    if (o->sem != SEM_WEAK) {
        op->scope = o->scope;
        op->sem = o->sem;
        w->r[4] = o->scope + 1u;
        t->st.strong_accesses++;
    }
}

/* A fence: MEMBAR of its own scope, CCTL.IVALL of the warp's last scoped
 * instruction (w->r[4]: scope + 1, 0 = none yet). */
static void fence_op(struct twl *t, const struct trace_opinfo *o, struct kernel_op *op,
                     struct kernel_warp *w, const struct trace_rec *r)
{
    bool prev = o->flags & TOP_SCOPE_PREV;
    if (prev)
        t->st.l1_invalidates++;
    else
        t->st.membars++;
    if (!r->mask)
        return; /* predicated off */
    op->kind = KOP_FENCE;
    op->scope = prev && w->r[4] ? (uint8_t)(w->r[4] - 1) : o->scope;
    op->sem = o->sem;
    if (!prev)
        w->r[4] = o->scope + 1u;
}

static void to_op(struct twl *t, struct kernel_warp *w, const struct trace_rec *r,
                  struct kernel_op *op, bool last)
{
    const struct trace_opinfo *o = &t->ops.v[r->opc];
    const struct tkern *tk = t->cur;
    op->srcs = r->srcs;
    op->dst = r->dst;
    op->ndst = r->ndst;
    op->ii = tk->ii[o->cls];
    op->kind = KOP_ALU;
    op->n = 1;
    t->st.insts++;
    t->st.unknown_insts += (o->flags & TOP_UNKNOWN) != 0;
    switch (o->kind) {
    case TK_LOAD:
    case TK_STORE:
    case TK_ATOMIC:
    case TK_ASYNC:
        if (r->form != TRF_NONE && r->mask) {
            mem_op(t, o, op, w, r);
            return;
        }
        t->st.mem_no_lanes++;
        op->dst = 0; /* predicated off: writes nothing */
        return;
    case TK_CONST:
        t->st.const_loads++;
        break;
    case TK_BARRIER:
        if (r->mask && !(o->flags & TOP_ARRIVE)) {
            t->st.barriers++;
            op->kind = KOP_BARRIER;
        }
        return;
    case TK_MEMBAR:
        fence_op(t, o, op, w, r);
        return;
    case TK_EXIT:
        if (last)
            op->kind = KOP_EXIT;
        return;
    default:
        break;
    }
    op->lat = op->dst ? tk->lat[o->cls] : 0;
}

static void tw_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    struct twl *t = (struct twl *)k->ctx;
    if (!w->r[3])
        attach(t, w);
    if (!w->r[2]) {
        /* the trace lists no (more) instruction and none was an exit */
        op->kind = KOP_EXIT;
        op->flags = KOP_F_NOCOUNT;
        if (w->r[0])
            release(t, w);
        return;
    }
    const struct trace_rec *r = (const void *)(t->slot[w->r[0] - 1].tb.data + w->r[1]);
    w->r[1] += trace_rec_size(r);
    w->r[2]--;
    w->pc++;
    to_op(t, w, r, op, !w->r[2]);
    if (op->kind == KOP_EXIT)
        release(t, w);
}

/* ---- kernels --------------------------------------------------------------------------- */

static bool tw_next_kernel(void *self, struct kernel *k)
{
    struct twl *t = self;
    close_cursors(t);
    BUG_ON(t->resident_n);
    if (t->cur) { /* its kept blocks are not needed again */
        free(t->cur->kf.kept);
        t->cur->kf.kept = NULL;
    }
    if (t->next == t->nk)
        return false;
    struct tkern *tk = t->cur = &t->k[t->next++];
    const struct trace_header *h = &tk->kf.h;
    *k = (struct kernel){.grid = {h->grid.x, h->grid.y, h->grid.z},
                         .block = {h->block.x, h->block.y, h->block.z}, .lds_b = h->shmem,
                         .warp_size = 32, .next = tw_next, .ctx = t, .copies = tk->copies,
                         .ncopies = tk->ncopies};
    snprintf(k->name, sizeof k->name, "%s", h->name);
    return true;
}

static void tw_destroy(void *self)
{
    struct twl *t = self;
    close_cursors(t);
    for (size_t i = 0; i < t->nk; i++) {
        trace_kfile_free(&t->k[i].kf);
        free(t->k[i].copies);
    }
    for (size_t i = 0; i < t->nslot; i++)
        trace_tb_free(&t->slot[i].tb);
    free(t->slot);
    free(t->k);
    u64map_free(&t->resident);
    trace_ops_free(&t->ops);
    trace_list_free(&t->list);
    free(t);
}

static void tw_reg_stats(void *self, struct stats *st)
{
    struct twl *t = self;
    stats_reg_block(st, "trace", tw_desc, &t->st);
}

static const char *const tw_small[] = {"path=tests/data/trace/kernelslist.g", NULL};

static size_t tw_kernels(void *self)
{
    return ((const struct twl *)self)->nk;
}

const struct wl_ops wl_trace = {
    .name = "trace",
    .suite = "Accel-Sim",
    .desc = "an Accel-Sim (NVBit) SASS trace: -p workload.path=DIR/kernelslist.g (or --trace)",
    .keys = trace_keys,
    .small = tw_small,
    .create = tw_create,
    .next_kernel = tw_next_kernel,
    .destroy = tw_destroy,
    .reg_stats = tw_reg_stats,
    .kernels = tw_kernels,
    .needs_input = true,
};
