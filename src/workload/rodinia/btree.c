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
 * or the record index (findRangeK). Both kernels are kernel descriptions
 * (src/workload/kd.h): the host runs every search on the tree and binds,
 * per query and path, the knode of each level (@node), the thread that
 * takes the branch (@thr) and the leaf thread that matches (@match). Structures: knodes and records (R, one
 * shared copy: the UVM port of the gem5 suite), the per-query arrays (R or
 * R/W, ranges = the work-group's own element, derived from the
 * descriptions). ALU counts per basic block
 * from nvcc 13 -arch=sm_90 PTX of Rodinia 3.1's kernel_gpu_cuda.cu and
 * kernel_gpu_cuda_2.cu, see docs/workloads/btree.md.
 * Abstracted: key values are a seeded permutation of [0, keys) inserted in
 * that order (mil.txt is not available); query keys are uniform in [0, keys)
 * from the seed (the real code uses rand()); no data values are simulated.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "workload/kdw.h"

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
    bool range;                         /* findRangeK */
    uint32_t count;
    const struct kernel_buf *arr[8];    /* per-query arrays, in argument order */
    uint32_t *node;  /* [q][p][level 0..height] knode locations */
    uint32_t *thr;   /* [q][p][level 0..height-1] thread that takes the branch */
    uint32_t *match; /* [q][p] leaf thread holding the key + 1, 0 if none */
    uint32_t *rb;    /* [q] findK: record index of the match + order - its thread */
};

struct btree {
    struct kdw w;
    const struct kernel_buf *knodes, *records;
    uint32_t order, height, nknodes, knode_b;
    struct bt_cmd cmd[2]; /* 0: j (findRangeK), 1: k (findK) */
};

static uint32_t bt_knode_b(uint32_t order)
{
    /* int location; int indices[order+1]; int keys[order+1]; bool is_leaf; int num_keys */
    return 4 + 8 * (order + 1) + 4 + 4;
}

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

/* The search of one key: nodes and branch threads per level, the leaf match
 * (+ 1) and, for findK, rb (the record of the match + order - its thread). */
static void bt_search(const struct btree *b, const struct bpt *t, const uint32_t *loc,
                      const uint32_t *rec0, int32_t key, uint32_t *node, uint32_t *thr,
                      uint32_t *match, uint32_t *rb)
{
    int32_t c = t->root;
    for (uint32_t l = 0; l < b->height; l++) {
        int i = bpt_upper(t, c, key); /* keys[i] <= key < keys[i+1], with the INT_MIN shift */
        node[l] = loc[c];
        thr[l] = (uint32_t)i;
        c = bpt_ptr(t, c)[i];
    }
    node[b->height] = loc[c];
    int i = bpt_upper(t, c, key);
    bool found = i > 0 && bpt_keys(t, c)[i - 1] == key;
    *match = found ? (uint32_t)i + 1 : 0; /* knode keys[i] holds node key i - 1 */
    if (rb)
        *rb = found ? rec0[c] + (uint32_t)(i - 1) + b->order - (uint32_t)i : b->order;
}

static void bt_cmd_init(struct wl_env *env, struct btree *b, struct bt_cmd *c, bool range,
                        uint32_t count)
{
    static const char *const names[] = {"currKnodeD", "offsetD", "keysD", "ansD",
                                        "lastKnodeD", "offset_2D", "endD", "ansDLength"};
    static const char *const rnames[] = {"currKnodeD_j", "offsetD_j", "startD", "ansDStart",
                                         "lastKnodeD", "offset_2D", "endD", "ansDLength"};
    static const uint32_t elem[] = {8, 8, 4, 4, 8, 8, 4, 4};
    c->range = range;
    c->count = count;
    for (unsigned a = 0; a < (range ? 8u : 4u); a++)
        c->arr[a] = wl_alloc(env, range ? rnames[a] : names[a], (uint64_t)count * elem[a]);
    size_t paths = (size_t)count * BT_PATHS;
    c->node = xcalloc(paths * (b->height + 1), sizeof *c->node);
    c->thr = xcalloc(paths * (b->height + 1), sizeof *c->thr);
    c->match = xcalloc(paths, sizeof *c->match);
    c->rb = xcalloc(count ? count : 1, sizeof *c->rb);
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
                          c->range ? NULL : &c->rb[q]);
            }
        }
    }
}

/* The tree of `nkeys` keys, inserted in a seeded random order. */
static void bt_build(struct bpt *t, uint64_t nkeys, struct rng *r)
{
    int32_t *perm = xmalloc(nkeys * sizeof *perm), *tmp = xmalloc((size_t)t->order * sizeof *tmp);
    for (uint64_t i = 0; i < nkeys; i++)
        perm[i] = (int32_t)i;
    for (uint64_t i = nkeys - 1; i > 0; i--) {
        uint64_t j = rng_below(r, i + 1);
        int32_t x = perm[i];
        perm[i] = perm[j];
        perm[j] = x;
    }
    for (uint64_t i = 0; i < nkeys; i++)
        bpt_insert(t, perm[i], tmp);
    free(perm);
    free(tmp);
}

static int btree_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    (void)e; /* the key table's ranges are the only constraints */
    struct btree *b = (struct btree *)w;
    uint64_t nkeys = cfg_uint(sec, "keys");
    b->order = (uint32_t)cfg_uint(sec, "order");
    b->knode_b = bt_knode_b(b->order);
    struct bpt t = {.order = (int)b->order, .root = -1};
    struct rng r;
    rng_seed(&r, w->env->seed);
    bt_build(&t, nkeys, &r);
    for (int32_t c = t.root; !t.leaf[c]; c = bpt_ptr(&t, c)[0])
        b->height++;
    b->nknodes = (uint32_t)t.n;
    uint32_t *loc = xmalloc(t.n * sizeof *loc), *rec0 = xcalloc(t.n, sizeof *rec0);
    bt_layout(&t, loc, rec0);
    b->records = wl_alloc(w->env, "recordsD", nkeys * 4);
    b->knodes = wl_alloc(w->env, "knodesD", (uint64_t)b->nknodes * b->knode_b);
    bt_cmd_init(w->env, b, &b->cmd[0], true, (uint32_t)cfg_uint(sec, "j_count"));
    bt_cmd_init(w->env, b, &b->cmd[1], false, (uint32_t)cfg_uint(sec, "k_count"));
    bt_queries(b, &t, loc, rec0, nkeys, cfg_uint(sec, "j_range"), &r);
    free(loc);
    free(rec0);
    bpt_free(&t);
    return 0;
}

static void btree_release(struct kdw *w)
{
    struct btree *b = (struct btree *)w;
    for (unsigned i = 0; i < 2; i++) {
        free(b->cmd[i].node);
        free(b->cmd[i].thr);
        free(b->cmd[i].match);
        free(b->cmd[i].rb);
    }
}

/* ---- the kernels ----------------------------------------------------------------- */

/* ALU counts per basic block: the PTX of Rodinia 3.1's kernels (nvcc 13,
 * -arch=sm_90, see docs/workloads/btree.md), every instruction but global
 * loads and stores, barriers, ret and cvta.to.global, counted where the
 * loop runs at Table II's height 2. The first op is the prologue
 * (parameters, thread and block ids, the key's address, the loop set-up),
 * run once; then the level loop (m0 = level, H = the tree's height). Per
 * level: loop control and the thid == 0 test between the barriers (findK
 * 3 + 2), the knode address (64-bit multiply-add: 4), the two compares with
 * their branches and the address of keys[thid + 1], which the rolled loop
 * recomputes (8); in the branch thread, the indices address and the
 * knodes_elem test (6). findRangeK's loop is unrolled twice: its counts are
 * the mean of the two halves. The address arithmetic of the one matching
 * thread after the loop (4 to 8 instructions in one warp per query, under
 * 1% of the kernel) is left out.
 *
 * knodes in ints: node n's indices[t] at n*KB + 1 + t, keys[t] at
 * n*KB + KO + t. Path p of query bx, level l: @node[(2*bx + p)*(H + 1) + l],
 * its branch thread @thr[the same]; the thread t of the branch (t == thr)
 * is `tx < thr + 1` and `thr < tx + 1`, the match (t == match - 1)
 * `match < tx + 2` and `tx < match`. findK's record: records[rb + tx - bdx]
 * in the matching lane. */
static const char *const bt_params[] = {"H", "KB", "KO", NULL};
static const char *const bt_arrays[] = {"node", "thr", "match", "rb", NULL};
#define BT_KD(kname, b, text) \
    {.name = kname, .params = bt_params, .bufs = b, .arrays = bt_arrays, .body = text}
static const char *const findk_bufs[] = {"knodes", "records", "currKnode", "offset", "keys",
                                         "ans", NULL};
static const struct kd_desc findk_kd = BT_KD("findK", findk_bufs,
    "alu 30\n"
    "for m0 = 0 .. H\n"
    "  alu 5\n"
    "  load currKnode[bx] 8 -> r1\n"
    "  load keys[bx] 4 -> r2\n"
    "  alu 4 < r1\n"
    "  load knodes[@node[2*bx*(H + 1) + m0]*KB + KO + tx] 4 -> r3 < r1\n"
    "  load knodes[@node[2*bx*(H + 1) + m0]*KB + KO + 1 + tx] 4 -> r4 < r1\n"
    "  alu 8 < r3 r4\n"
    "  if tx < @thr[2*bx*(H + 1) + m0] + 1\n"
    "    if @thr[2*bx*(H + 1) + m0] < tx + 1\n"
    "      load offset[bx] 8 -> r5\n"
    "      load knodes[@node[2*bx*(H + 1) + m0]*KB + 1 + tx] 4 -> r6 < r5\n"
    "      alu 6 < r6\n"
    "      store offset[bx] 8 < r6\n"
    "    end\n"
    "  end\n"
    "  barrier\n"
    "  if tx < 1\n"
    "    load offset[bx] 8 -> r7\n"
    "    store currKnode[bx] 8 < r7\n"
    "  end\n"
    "  barrier\n"
    "end\n"
    "load currKnode[bx] 8 -> r1\n"
    "load keys[bx] 4 -> r2\n"
    "alu 4 < r1\n"
    "load knodes[@node[2*bx*(H + 1) + H]*KB + KO + tx] 4 -> r3 < r1\n"
    "alu 2 < r2 r3\n"
    "if @match[2*bx] < tx + 2\n"
    "  if tx < @match[2*bx]\n"
    "    load knodes[@node[2*bx*(H + 1) + H]*KB + 1 + tx] 4 -> r4\n"
    "    load records[@rb[bx] + tx - bdx] 4 -> r5 < r4\n"
    "    store ans[bx] 4 < r5\n"
    "  end\n"
    "end\n");

static const char *const findrangek_bufs[] = {"knodes", "currKnode", "offset", "start",
                                              "ansStart", "lastKnode", "offset_2", "end",
                                              "ansLength", NULL};
static const struct kd_desc findrangek_kd = BT_KD("findRangeK", findrangek_bufs,
    "alu 33\n"
    "for m0 = 0 .. H\n"
    "  alu 3\n"
    "  load currKnode[bx] 8 -> r1\n"
    "  load start[bx] 4 -> r2\n"
    "  alu 4 < r1\n"
    "  load knodes[@node[2*bx*(H + 1) + m0]*KB + KO + tx] 4 -> r3 < r1\n"
    "  load knodes[@node[2*bx*(H + 1) + m0]*KB + KO + 1 + tx] 4 -> r4 < r1\n"
    "  alu 7 < r3 r4\n"
    "  if tx < @thr[2*bx*(H + 1) + m0] + 1\n"
    "    if @thr[2*bx*(H + 1) + m0] < tx + 1\n"
    "      load knodes[@node[2*bx*(H + 1) + m0]*KB + 1 + tx] 4 -> r5\n"
    "      alu 2 < r5\n"
    "      store offset[bx] 8 < r5\n"
    "    end\n"
    "  end\n"
    "  load lastKnode[bx] 8 -> r6\n"
    "  load end[bx] 4 -> r7\n"
    "  alu 5 < r6\n"
    "  load knodes[@node[(2*bx + 1)*(H + 1) + m0]*KB + KO + tx] 4 -> r8 < r6\n"
    "  load knodes[@node[(2*bx + 1)*(H + 1) + m0]*KB + KO + 1 + tx] 4 -> r9 < r6\n"
    "  alu 4 < r8 r9\n"
    "  if tx < @thr[(2*bx + 1)*(H + 1) + m0] + 1\n"
    "    if @thr[(2*bx + 1)*(H + 1) + m0] < tx + 1\n"
    "      load knodes[@node[(2*bx + 1)*(H + 1) + m0]*KB + 1 + tx] 4 -> r10\n"
    "      alu 2 < r10\n"
    "      store offset_2[bx] 8 < r10\n"
    "    end\n"
    "  end\n"
    "  barrier\n"
    "  if tx < 1\n"
    "    load offset[bx] 8 -> r11\n"
    "    store currKnode[bx] 8 < r11\n"
    "    load offset_2[bx] 8 -> r12\n"
    "    store lastKnode[bx] 8 < r12\n"
    "  end\n"
    "  barrier\n"
    "end\n"
    "load currKnode[bx] 8 -> r1\n"
    "load start[bx] 4 -> r2\n"
    "alu 3 < r1\n"
    "load knodes[@node[2*bx*(H + 1) + H]*KB + KO + tx] 4 -> r3 < r1\n"
    "alu 4 < r2 r3\n"
    "if @match[2*bx] < tx + 2\n"
    "  if tx < @match[2*bx]\n"
    "    load knodes[@node[2*bx*(H + 1) + H]*KB + 1 + tx] 4 -> r4\n"
    "    store ansStart[bx] 4 < r4\n"
    "  end\n"
    "end\n"
    "barrier\n"
    "load lastKnode[bx] 8 -> r6\n"
    "load end[bx] 4 -> r7\n"
    "alu 5 < r6\n"
    "load knodes[@node[(2*bx + 1)*(H + 1) + H]*KB + KO + tx] 4 -> r8 < r6\n"
    "alu 2 < r7 r8\n"
    "if @match[2*bx + 1] < tx + 2\n"
    "  if tx < @match[2*bx + 1]\n"
    "    load knodes[@node[(2*bx + 1)*(H + 1) + H]*KB + 1 + tx] 4 -> r9\n"
    "    load ansStart[bx] 4 -> r10\n"
    "  end\n"
    "end\n"
    "alu 3 < r9 r10\n"
    "if @match[2*bx + 1] < tx + 2\n"
    "  if tx < @match[2*bx + 1]\n"
    "    store ansLength[bx] 4 < r10\n"
    "  end\n"
    "end\n");

/* Launch i: the commands with queries, j (findRangeK) then k (findK). */
static bool btree_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct btree *b = (const struct btree *)w;
    unsigned ci = 0;
    for (uint64_t seen = 0; ci < 2; ci++)
        if (b->cmd[ci].count && seen++ == i)
            break;
    if (ci == 2)
        return false;
    const struct bt_cmd *c = &b->cmd[ci];
    l->prog = ci;
    l->grid = (struct kernel_dim){c->count, 1, 1};
    l->block = (struct kernel_dim){b->order, 1, 1};
    l->params[0] = b->height;
    l->params[1] = b->knode_b / 4;
    l->params[2] = 2 + b->order; /* keys[] after location and indices[order + 1] */
    unsigned n = 0;
    l->bufs[n++] = b->knodes;
    if (!c->range)
        l->bufs[n++] = b->records;
    memcpy(&l->bufs[n], c->arr, (c->range ? 8u : 4u) * sizeof *c->arr);
    uint64_t paths = (uint64_t)c->count * BT_PATHS;
    l->arrays[0] = (struct kd_array){c->node, paths * (b->height + 1)};
    l->arrays[1] = (struct kd_array){c->thr, paths * (b->height + 1)};
    l->arrays[2] = (struct kd_array){c->match, paths};
    l->arrays[3] = (struct kd_array){c->rb, c->count};
    return true;
}

static const struct kd_desc *const btree_descs[] = {&findrangek_kd, &findk_kd, NULL};
static const struct kdw_model btree_model = {
    .size = sizeof(struct btree), .descs = btree_descs, .setup = btree_setup,
    .plan = btree_plan, .release = btree_release};

static void *btree_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&btree_model, env, sec, e);
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
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
};
