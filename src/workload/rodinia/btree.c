/*
 * btree.c -- Rodinia b+tree (main.c, kernel/kernel_gpu_cuda*.cu): batched
 * B+ tree searches. The model builds the tree with the real insertion
 * algorithm (Rodinia's bpt code, order DEFAULT_ORDER = 508: leaves split at
 * cut(order - 1), inner nodes at cut(order)) from `keys` generated keys,
 * lays it out breadth-first as the knode array of transform_to_cuda()
 * (keys[0] = INT_MIN, keys[num_keys - 1] = INT_MAX, indices = child
 * locations or record indices), and runs every query on it, so each work-group
 * visits exactly the nodes of its search path.
 *
 * Modelled: the command file "j 6000 3000" then "k 10000": findRangeK (one
 * work-group per query, order threads, two searches per level for start and
 * end) and findK (one work-group per query); per tree level each thread
 * loads currKnode[bid], the query key and knodes[cur].keys[thid], [thid+1];
 * the one thread whose interval holds the key loads the child index and
 * stores offset[bid]; thread 0 copies offset into currKnode between the two
 * __syncthreads(); at the leaf the matching thread reads the record (findK)
 * or the record index (findRangeK). Structures: knodes and records (R, one
 * shared copy: the UVM port of the gem5 suite), the per-query arrays (R or
 * R/W, ranges = the work-group's own element). ALU counts per basic block
 * from nvcc 13 -arch=sm_90 PTX of Rodinia 3.1's kernel_gpu_cuda.cu and
 * kernel_gpu_cuda_2.cu, see docs/workloads/btree.md.
 * Abstracted: key values are a seeded permutation of [0, keys) inserted in
 * that order (mil.txt is not available); query keys are uniform in [0, keys)
 * from the seed (the real code uses rand()); no data values are simulated.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "workload/rodinia/rod2.h"

static const struct cfg_key btree_keys[] = {
    {"keys", CFG_INT, "1000000", 1, 16777216, "keys in the tree (mil.txt: one million)", NULL},
    {"order", CFG_INT, "508", 3, 1024, "tree order = threads per work-group (DEFAULT_ORDER)",
     NULL},
    {"k_count", CFG_INT, "10000", 0, 65535, "findK queries (command 'k 10000')", NULL},
    {"j_count", CFG_INT, "6000", 0, 65535, "findRangeK queries (command 'j 6000 3000')", NULL},
    {"j_range", CFG_INT, "3000", 0, 16777216, "findRangeK range size (rSize)", NULL},
    CFG_END,
};

/* ---- the tree (Rodinia's bpt insertion) ------------------------------------ */

struct bpt {
    int order;
    size_t n, cap;
    int32_t *nkeys, *parent;
    bool *leaf;
    int32_t *keys; /* order per node */
    int32_t *ptr;  /* order + 1 per node: children, or nothing for leaves */
    int32_t root;
};

static int32_t bpt_new(struct bpt *t, bool leaf)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        t->nkeys = xrealloc(t->nkeys, cap * sizeof *t->nkeys);
        t->parent = xrealloc(t->parent, cap * sizeof *t->parent);
        t->leaf = xrealloc(t->leaf, cap * sizeof *t->leaf);
        t->keys = xrealloc(t->keys, cap * (size_t)t->order * sizeof *t->keys);
        t->ptr = xrealloc(t->ptr, cap * (size_t)(t->order + 1) * sizeof *t->ptr);
        t->cap = cap;
    }
    int32_t id = (int32_t)t->n++;
    t->nkeys[id] = 0;
    t->parent[id] = -1;
    t->leaf[id] = leaf;
    return id;
}

static int32_t *bpt_keys(const struct bpt *t, int32_t id) { return t->keys + (size_t)id * t->order; }
static int32_t *bpt_ptr(const struct bpt *t, int32_t id)
{
    return t->ptr + (size_t)id * (t->order + 1);
}

static int bpt_cut(int len) { return len % 2 ? len / 2 + 1 : len / 2; }

/* Number of keys of node id that are <= key (the child / thread index). */
static int bpt_upper(const struct bpt *t, int32_t id, int32_t key)
{
    const int32_t *k = bpt_keys(t, id);
    int lo = 0, hi = t->nkeys[id];
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (key >= k[mid])
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void bpt_into_parent(struct bpt *t, int32_t left, int32_t key, int32_t right);

static void bpt_node_split(struct bpt *t, int32_t old, int left_index, int32_t key, int32_t right,
                           int32_t *tk, int32_t *tp)
{
    int order = t->order, n = t->nkeys[old];
    int32_t *ok = bpt_keys(t, old), *op = bpt_ptr(t, old);
    for (int i = 0, j = 0; i < n + 1; i++, j++) {
        if (j == left_index + 1)
            j++;
        tp[j] = op[i];
    }
    for (int i = 0, j = 0; i < n; i++, j++) {
        if (j == left_index)
            j++;
        tk[j] = ok[i];
    }
    tp[left_index + 1] = right;
    tk[left_index] = key;
    int split = bpt_cut(order), i, j;
    int32_t nn = bpt_new(t, false);
    ok = bpt_keys(t, old); /* bpt_new may move the arrays */
    op = bpt_ptr(t, old);
    for (i = 0; i < split - 1; i++) {
        op[i] = tp[i];
        ok[i] = tk[i];
    }
    op[i] = tp[i];
    t->nkeys[old] = split - 1;
    int32_t kprime = tk[split - 1];
    int32_t *nk = bpt_keys(t, nn), *np = bpt_ptr(t, nn);
    for (++i, j = 0; i < order; i++, j++) {
        np[j] = tp[i];
        nk[j] = tk[i];
    }
    np[j] = tp[i];
    t->nkeys[nn] = j;
    t->parent[nn] = t->parent[old];
    for (i = 0; i <= j; i++)
        t->parent[np[i]] = nn;
    bpt_into_parent(t, old, kprime, nn);
}

static void bpt_into_parent(struct bpt *t, int32_t left, int32_t key, int32_t right)
{
    int32_t p = t->parent[left];
    if (p < 0) {
        int32_t r = bpt_new(t, false);
        bpt_keys(t, r)[0] = key;
        bpt_ptr(t, r)[0] = left;
        bpt_ptr(t, r)[1] = right;
        t->nkeys[r] = 1;
        t->parent[left] = t->parent[right] = r;
        t->root = r;
        return;
    }
    int32_t *pk = bpt_keys(t, p), *pp = bpt_ptr(t, p);
    int n = t->nkeys[p], li = 0;
    while (li <= n && pp[li] != left)
        li++;
    if (n < t->order - 1) {
        memmove(pp + li + 2, pp + li + 1, (size_t)(n - li) * sizeof *pp);
        memmove(pk + li + 1, pk + li, (size_t)(n - li) * sizeof *pk);
        pp[li + 1] = right;
        pk[li] = key;
        t->nkeys[p] = n + 1;
        t->parent[right] = p;
        return;
    }
    int32_t *tk = xmalloc((size_t)t->order * sizeof *tk);
    int32_t *tp = xmalloc((size_t)(t->order + 1) * sizeof *tp);
    bpt_node_split(t, p, li, key, right, tk, tp);
    free(tk);
    free(tp);
}

static void bpt_leaf_split(struct bpt *t, int32_t leaf, int32_t key, int32_t *tk)
{
    int order = t->order, ins = 0;
    int32_t *lk = bpt_keys(t, leaf);
    while (ins < order - 1 && lk[ins] < key)
        ins++;
    for (int i = 0, j = 0; i < t->nkeys[leaf]; i++, j++) {
        if (j == ins)
            j++;
        tk[j] = lk[i];
    }
    tk[ins] = key;
    int split = bpt_cut(order - 1);
    int32_t nl = bpt_new(t, true);
    lk = bpt_keys(t, leaf);
    memcpy(lk, tk, (size_t)split * sizeof *tk);
    t->nkeys[leaf] = split;
    memcpy(bpt_keys(t, nl), tk + split, (size_t)(order - split) * sizeof *tk);
    t->nkeys[nl] = order - split;
    t->parent[nl] = t->parent[leaf];
    bpt_into_parent(t, leaf, bpt_keys(t, nl)[0], nl);
}

static void bpt_insert(struct bpt *t, int32_t key, int32_t *tmp)
{
    if (t->root < 0) {
        t->root = bpt_new(t, true);
        bpt_keys(t, t->root)[0] = key;
        t->nkeys[t->root] = 1;
        return;
    }
    int32_t c = t->root;
    while (!t->leaf[c])
        c = bpt_ptr(t, c)[bpt_upper(t, c, key)];
    int32_t *k = bpt_keys(t, c);
    int n = t->nkeys[c], i = bpt_upper(t, c, key);
    if (i > 0 && k[i - 1] == key)
        return; /* duplicates are ignored */
    if (n < t->order - 1) {
        memmove(k + i + 1, k + i, (size_t)(n - i) * sizeof *k);
        k[i] = key;
        t->nkeys[c] = n + 1;
        return;
    }
    bpt_leaf_split(t, c, key, tmp);
}

static void bpt_free(struct bpt *t)
{
    free(t->nkeys);
    free(t->parent);
    free(t->leaf);
    free(t->keys);
    free(t->ptr);
}

/* ---- the model ---------------------------------------------------------------- */

#define BT_PATHS 2 /* findRangeK: start and end; findK uses path 0 */

/* One command: its buffers and the precomputed search of every query. */
struct bt_cmd {
    const struct btree *b;
    bool range;                         /* findRangeK */
    uint32_t count;
    const struct kernel_buf *arr[8];    /* per-query arrays, see bt_arr */
    uint32_t *node;  /* [q][p][level 0..height] knode locations */
    int16_t *thr;    /* [q][p][level 0..height-1] thread that takes the branch */
    int16_t *match;  /* [q][p] leaf thread holding the key, -1 if none */
    uint32_t *rec;   /* [q] record index of the findK match */
};

/* Per-query arrays, in argument order after knodes (and records). */
enum { A_CUR, A_OFF, A_KEY, A_ANS, A_LAST, A_OFF2, A_END, A_LEN };

struct btree {
    const struct kernel_buf *knodes, *records;
    uint32_t order, height, nknodes, knode_b;
    struct bt_cmd cmd[2]; /* 0: j (findRangeK), 1: k (findK) */
    unsigned next;
};

static uint32_t bt_knode_b(uint32_t order)
{
    /* int location; int indices[order+1]; int keys[order+1]; bool is_leaf; int num_keys */
    return 4 + 8 * (order + 1) + 4 + 4;
}
#define BT_IND_OFF 4u
static uint32_t bt_keys_off(uint32_t order) { return 4 + 4 * (order + 1); }

/* Breadth-first locations of the nodes (transform_to_cuda) and the record
 * index of the first key of each leaf. */
static void bt_layout(const struct bpt *t, uint32_t *loc, uint32_t *rec0)
{
    int32_t *q = xmalloc(t->n * sizeof *q);
    size_t head = 0, tail = 0;
    uint32_t recs = 0;
    q[tail++] = t->root;
    while (head < tail) {
        int32_t id = q[head];
        loc[id] = (uint32_t)head++;
        if (t->leaf[id]) {
            rec0[id] = recs;
            recs += (uint32_t)t->nkeys[id];
            continue;
        }
        for (int i = 0; i <= t->nkeys[id]; i++)
            q[tail++] = bpt_ptr(t, id)[i];
    }
    free(q);
}

/* The search of one key: nodes and branch threads per level, the leaf match. */
static void bt_search(const struct btree *b, const struct bpt *t, const uint32_t *loc,
                      const uint32_t *rec0, int32_t key, uint32_t *node, int16_t *thr,
                      int16_t *match, uint32_t *rec)
{
    int32_t c = t->root;
    for (uint32_t l = 0; l < b->height; l++) {
        int i = bpt_upper(t, c, key); /* keys[i] <= key < keys[i+1], with the INT_MIN shift */
        node[l] = loc[c];
        thr[l] = (int16_t)i;
        c = bpt_ptr(t, c)[i];
    }
    node[b->height] = loc[c];
    int i = bpt_upper(t, c, key);
    bool found = i > 0 && bpt_keys(t, c)[i - 1] == key;
    *match = found ? (int16_t)i : -1; /* knode keys[i] holds node key i - 1 */
    if (rec)
        *rec = found ? rec0[c] + (uint32_t)(i - 1) : 0;
}

static void bt_cmd_init(struct wl_env *env, struct btree *b, struct bt_cmd *c, bool range,
                        uint32_t count)
{
    static const char *const names[] = {"currKnodeD", "offsetD", "keysD", "ansD",
                                        "lastKnodeD", "offset_2D", "endD", "ansDLength"};
    static const char *const rnames[] = {"currKnodeD_j", "offsetD_j", "startD", "ansDStart",
                                         "lastKnodeD", "offset_2D", "endD", "ansDLength"};
    static const uint32_t elem[] = {8, 8, 4, 4, 8, 8, 4, 4};
    c->b = b;
    c->range = range;
    c->count = count;
    for (unsigned a = 0; a < (range ? 8u : 4u); a++)
        c->arr[a] = wl_alloc(env, range ? rnames[a] : names[a], (uint64_t)count * elem[a]);
    size_t paths = (size_t)count * BT_PATHS;
    c->node = xcalloc(paths * (b->height + 1), sizeof *c->node);
    c->thr = xcalloc(paths * (b->height + 1), sizeof *c->thr);
    c->match = xcalloc(paths, sizeof *c->match);
    c->rec = xcalloc(count ? count : 1, sizeof *c->rec);
}

static void bt_queries(struct btree *b, const struct bpt *t, const uint32_t *loc,
                       const uint32_t *rec0, uint64_t size, uint64_t rsize, struct rng *r)
{
    for (unsigned ci = 0; ci < 2; ci++) {
        struct bt_cmd *c = &b->cmd[ci];
        for (uint32_t q = 0; q < c->count; q++) {
            int64_t key[2];
            key[0] = (int64_t)(rng_unit(r) * (double)size);
            key[1] = key[0] + (int64_t)rsize;
            if (c->range && key[1] >= (int64_t)size) { /* main.c's clipping of the range */
                key[0] -= key[1] - (int64_t)size;
                key[1] = (int64_t)size - 1;
            }
            for (unsigned p = 0; p < (c->range ? 2u : 1u); p++) {
                size_t i = (size_t)q * BT_PATHS + p;
                bt_search(b, t, loc, rec0, (int32_t)key[p], &c->node[i * (b->height + 1)],
                          &c->thr[i * (b->height + 1)], &c->match[i],
                          c->range ? NULL : &c->rec[q]);
            }
        }
    }
}

static void *btree_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    (void)e; /* the key table's ranges are the only constraints */
    uint64_t nkeys = cfg_uint(sec, "keys");
    struct btree *b = xcalloc(1, sizeof *b);
    b->order = (uint32_t)cfg_uint(sec, "order");
    b->knode_b = bt_knode_b(b->order);
    struct bpt t = {.order = (int)b->order, .root = -1};
    struct rng r;
    rng_seed(&r, env->seed);
    int32_t *perm = xmalloc(nkeys * sizeof *perm), *tmp = xmalloc(b->order * sizeof *tmp);
    for (uint64_t i = 0; i < nkeys; i++)
        perm[i] = (int32_t)i;
    for (uint64_t i = nkeys - 1; i > 0; i--) {
        uint64_t j = rng_below(&r, i + 1);
        int32_t x = perm[i];
        perm[i] = perm[j];
        perm[j] = x;
    }
    for (uint64_t i = 0; i < nkeys; i++)
        bpt_insert(&t, perm[i], tmp);
    free(perm);
    free(tmp);
    for (int32_t c = t.root; !t.leaf[c]; c = bpt_ptr(&t, c)[0])
        b->height++;
    b->nknodes = (uint32_t)t.n;
    uint32_t *loc = xmalloc(t.n * sizeof *loc), *rec0 = xcalloc(t.n, sizeof *rec0);
    bt_layout(&t, loc, rec0);
    b->records = wl_alloc(env, "recordsD", nkeys * 4);
    b->knodes = wl_alloc(env, "knodesD", (uint64_t)b->nknodes * b->knode_b);
    bt_cmd_init(env, b, &b->cmd[0], true, (uint32_t)cfg_uint(sec, "j_count"));
    bt_cmd_init(env, b, &b->cmd[1], false, (uint32_t)cfg_uint(sec, "k_count"));
    bt_queries(b, &t, loc, rec0, nkeys, cfg_uint(sec, "j_range"), &r);
    free(loc);
    free(rec0);
    bpt_free(&t);
    return b;
}

static void btree_destroy(void *self)
{
    struct btree *b = self;
    for (unsigned i = 0; i < 2; i++) {
        free(b->cmd[i].node);
        free(b->cmd[i].thr);
        free(b->cmd[i].match);
        free(b->cmd[i].rec);
    }
    free(b);
}

/* ---- the kernels: a step table per kernel, the level loop first ---------------- */

enum bt_cond { C_ALL, C_SEL0, C_SEL1, C_T0, C_MATCH0, C_MATCH1, C_LOOP_END, C_END };
enum bt_tgt {
    T_NONE, T_CUR, T_OFF, T_KEY, T_ANS, T_LAST, T_OFF2, T_END, T_LEN, /* arrays [bid] */
    T_KEYS0, T_KEYS0_1, T_KEYS1, T_KEYS1_1, /* knodes[node of path p].keys[thid (+1)] */
    T_IND0, T_IND1,                         /* knodes[node].indices[selected thread] */
    T_REC,                                  /* recordsD[match record] */
};

struct bt_step {
    uint8_t kind, cond, tgt, dst, src0, src1;
    uint16_t n;
};

#define ALU(n_, s0, s1) {KOP_ALU, C_ALL, T_NONE, 0, s0, s1, n_}
#define LD(c, t, d, s) {KOP_LOAD, c, t, d, s, 0, 0}
#define ST(c, t, s) {KOP_STORE, c, t, 0, s, 0, 0}
#define BAR {KOP_BARRIER, C_ALL, T_NONE, 0, 0, 0, 0}

/* ALU counts per basic block: the PTX of Rodinia 3.1's kernels (nvcc 13,
 * -arch=sm_90, see docs/workloads/btree.md), every instruction but global
 * loads and stores, barriers, ret and cvta.to.global, counted where the
 * loop runs at Table II's height 2. Step 0 is the prologue (parameters,
 * thread and block ids, the key's address, the loop set-up), run once; the
 * level loop starts at BT_LOOP. Per level: loop control and the thid == 0
 * test between the barriers (findK 3 + 2), the knode address (64-bit
 * multiply-add: 4), the two compares with their branches and the address
 * of keys[thid + 1], which the rolled loop recomputes (8); in the branch
 * thread, the indices address and the knodes_elem test (6). findRangeK's
 * loop is unrolled twice: its counts are the mean of the two halves. The
 * address arithmetic of the one matching thread after the loop (4 to 8
 * instructions in one warp per query, under 1% of the kernel) is left out. */
#define BT_LOOP 1
static const struct bt_step bt_findk[] = {
    ALU(30, 0, 0),
    ALU(5, 0, 0), LD(C_ALL, T_CUR, 1, 0), LD(C_ALL, T_KEY, 2, 0), ALU(4, 1, 0),
    LD(C_ALL, T_KEYS0, 3, 1), LD(C_ALL, T_KEYS0_1, 4, 1), ALU(8, 3, 4),
    LD(C_SEL0, T_OFF, 5, 0), LD(C_SEL0, T_IND0, 6, 5), {KOP_ALU, C_SEL0, T_NONE, 0, 6, 0, 6},
    ST(C_SEL0, T_OFF, 6), BAR, LD(C_T0, T_OFF, 7, 0), ST(C_T0, T_CUR, 7), BAR,
    {0, C_LOOP_END, 0, 0, 0, 0, 0},
    LD(C_ALL, T_CUR, 1, 0), LD(C_ALL, T_KEY, 2, 0), ALU(4, 1, 0), LD(C_ALL, T_KEYS0, 3, 1),
    ALU(2, 2, 3), LD(C_MATCH0, T_IND0, 4, 0), LD(C_MATCH0, T_REC, 5, 4), ST(C_MATCH0, T_ANS, 5),
    {KOP_EXIT, C_END, 0, 0, 0, 0, 0},
};

static const struct bt_step bt_findrangek[] = {
    ALU(33, 0, 0),
    ALU(3, 0, 0), LD(C_ALL, T_CUR, 1, 0), LD(C_ALL, T_KEY, 2, 0), ALU(4, 1, 0),
    LD(C_ALL, T_KEYS0, 3, 1), LD(C_ALL, T_KEYS0_1, 4, 1), ALU(7, 3, 4),
    LD(C_SEL0, T_IND0, 5, 0), {KOP_ALU, C_SEL0, T_NONE, 0, 5, 0, 2}, ST(C_SEL0, T_OFF, 5),
    LD(C_ALL, T_LAST, 6, 0), LD(C_ALL, T_END, 7, 0), ALU(5, 6, 0),
    LD(C_ALL, T_KEYS1, 8, 6), LD(C_ALL, T_KEYS1_1, 9, 6), ALU(4, 8, 9),
    LD(C_SEL1, T_IND1, 10, 0), {KOP_ALU, C_SEL1, T_NONE, 0, 10, 0, 2}, ST(C_SEL1, T_OFF2, 10),
    BAR, LD(C_T0, T_OFF, 11, 0), ST(C_T0, T_CUR, 11), LD(C_T0, T_OFF2, 12, 0),
    ST(C_T0, T_LAST, 12), BAR,
    {0, C_LOOP_END, 0, 0, 0, 0, 0},
    LD(C_ALL, T_CUR, 1, 0), LD(C_ALL, T_KEY, 2, 0), ALU(3, 1, 0), LD(C_ALL, T_KEYS0, 3, 1),
    ALU(4, 2, 3), LD(C_MATCH0, T_IND0, 4, 0), ST(C_MATCH0, T_ANS, 4), BAR,
    LD(C_ALL, T_LAST, 6, 0), LD(C_ALL, T_END, 7, 0), ALU(5, 6, 0), LD(C_ALL, T_KEYS1, 8, 6),
    ALU(2, 7, 8), LD(C_MATCH1, T_IND1, 9, 0), LD(C_MATCH1, T_ANS, 10, 0), ALU(3, 9, 10),
    ST(C_MATCH1, T_LEN, 10),
    {KOP_EXIT, C_END, 0, 0, 0, 0, 0},
};

static size_t bt_path(const struct bt_cmd *c, uint32_t q, unsigned p)
{
    return ((size_t)q * BT_PATHS + p) * (c->b->height + 1);
}

/* The thread a step concerns (its lane mask is derived from it), or -1 for
 * every thread. level = the loop level, or height after the loop. */
static int bt_thread(const struct bt_cmd *c, uint32_t q, uint8_t cond, uint32_t level)
{
    switch (cond) {
    case C_SEL0:
    case C_SEL1:
        return c->thr[bt_path(c, q, cond == C_SEL1) + level];
    case C_T0:
        return 0;
    case C_MATCH0:
    case C_MATCH1:
        return c->match[(size_t)q * BT_PATHS + (cond == C_MATCH1)];
    default:
        return -1;
    }
}

static void bt_target(const struct bt_cmd *c, struct kernel_warp *w, const struct bt_step *s,
                      int thread, uint32_t level, struct kernel_op *op)
{
    const struct btree *b = c->b;
    uint32_t q = w->wg;
    addr_t t0 = kernel_tid(w, 0);
    if (s->tgt <= T_LEN) {
        const struct kernel_buf *arr = c->arr[s->tgt - T_CUR];
        uint32_t elem = (s->tgt - T_CUR) % 4 < 2 ? 8 : 4;
        op->base = arr->base + (addr_t)q * elem;
        op->stride = 0;
        op->size = (uint8_t)elem;
        return;
    }
    unsigned p = s->tgt == T_KEYS1 || s->tgt == T_KEYS1_1 || s->tgt == T_IND1;
    addr_t node = b->knodes->base + (addr_t)c->node[bt_path(c, q, p) + level] * b->knode_b;
    op->size = 4;
    op->stride = 4;
    switch (s->tgt) {
    case T_KEYS0:
    case T_KEYS1:
        op->base = node + bt_keys_off(b->order) + t0 * 4;
        return;
    case T_KEYS0_1:
    case T_KEYS1_1:
        op->base = node + bt_keys_off(b->order) + (t0 + 1) * 4;
        return;
    case T_IND0:
    case T_IND1:
        op->base = node + BT_IND_OFF + t0 * 4; /* lane thread - t0 reads indices[thread] */
        return;
    default: /* T_REC: the record of the match (lane `thread`) */
        op->base = b->records->base + (addr_t)c->rec[q] * 4 - (addr_t)(thread - (int)t0) * 4;
        return;
    }
}

/* r[0]: loop level. */
static void bt_next(const struct kernel *k, struct kernel_warp *w, struct kernel_op *op)
{
    const struct bt_cmd *c = k->ctx;
    const struct bt_step *prog = c->range ? bt_findrangek : bt_findk;
    if (w->pc == BT_LOOP && c->b->height == 0) { /* a single leaf: no loop iteration */
        while (prog[w->pc].cond != C_LOOP_END)
            w->pc++;
        w->pc++;
    }
    for (;;) {
        const struct bt_step *s = &prog[w->pc];
        if (s->cond == C_END) {
            op->kind = KOP_EXIT;
            return;
        }
        w->pc++;
        if (s->cond == C_LOOP_END) {
            if (++w->r[0] < c->b->height)
                w->pc = BT_LOOP;
            continue;
        }
        uint32_t level = (uint32_t)w->r[0];
        int th = bt_thread(c, w->wg, s->cond, level);
        uint64_t mask = low_bits(w->nlanes);
        if (s->cond != C_ALL) {
            int64_t lane = (int64_t)th - (int64_t)kernel_tid(w, 0);
            if (th < 0 || lane < 0 || lane >= (int64_t)w->nlanes)
                continue;
            mask = 1ull << lane;
        }
        op->kind = s->kind;
        op->n = s->n;
        op->dst = s->dst;
        op->src[0] = s->src0;
        op->src[1] = s->src1;
        op->mask = mask;
        if (s->kind == KOP_LOAD || s->kind == KOP_STORE)
            bt_target(c, w, s, th, level, op);
        return;
    }
}

/* Per-query arrays: the work-group's own element; knodes and records: unknown
 * (data-dependent search paths). */
static unsigned bt_ranges(const struct kernel *k, uint32_t wg, unsigned arg,
                          struct addr_range *out, unsigned max)
{
    const struct bt_cmd *c = k->ctx;
    const struct kernel_buf *buf = k->args[arg].buf;
    if (buf == c->b->knodes || buf == c->b->records || !max)
        return 0;
    uint64_t elem = buf->size / c->count;
    out[0] = (struct addr_range){buf->base + wg * elem, buf->base + (wg + 1) * elem};
    return 1;
}

static bool btree_next_kernel(void *self, struct kernel *k)
{
    struct btree *b = self;
    while (b->next < 2 && !b->cmd[b->next].count)
        b->next++;
    if (b->next == 2)
        return false;
    const struct bt_cmd *c = &b->cmd[b->next++];
    wl_kernel_init(k, c->range ? "findRangeK" : "findK", c->count, 1, b->order, 1, bt_next);
    wl_kernel_arg(k, b->knodes, KERNEL_R);
    if (!c->range)
        wl_kernel_arg(k, b->records, KERNEL_R);
    static const enum kernel_mode mode[] = {KERNEL_RW, KERNEL_RW, KERNEL_R, KERNEL_RW,
                                            KERNEL_RW, KERNEL_RW, KERNEL_R, KERNEL_RW};
    for (unsigned a = 0; a < (c->range ? 8u : 4u); a++)
        wl_kernel_arg(k, c->arr[a], mode[a]);
    k->ranges = bt_ranges;
    k->ctx = c;
    return true;
}

static const char *const btree_small[] = {"keys=20000", "order=64", "k_count=48",
                                          "j_count=24", "j_range=500", NULL};

const struct wl_ops wl_btree = {
    .name = "btree",
    .suite = "Rodinia",
    .desc = "Rodinia b+tree: findRangeK and findK batched searches over a B+ tree built in the "
            "model",
    .keys = btree_keys,
    .small = btree_small,
    .create = btree_create,
    .next_kernel = btree_next_kernel,
    .destroy = btree_destroy,
};
