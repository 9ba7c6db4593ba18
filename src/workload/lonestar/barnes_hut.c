/*
 * barnes_hut.c -- Lonestar's Barnes-Hut n-body simulation (Burtscher and
 * Pingali's CUDA code; "L-BH" of spec remote-core.md 14): per time step the
 * bounding box of the bodies (a reduction), the octree (cleared, then built
 * by every body descending from the root and locking a slot with an atomic),
 * the cells' centres of mass, the bodies in tree order, the forces (each
 * warp walks the tree together, opening a cell unless it is far enough for
 * all its bodies, its stack in LDS), and the integration.
 *
 * Modelled (kernel descriptions, kd.h): those seven kernels, in our CUDA
 * version of each phase. The host runs the simulation in C (bh_tree.h):
 * the tree, its centres of mass, the tree order and each warp's walk, from
 * which each launch's data-dependent reads are bound as arrays: a body's
 * descent slots, the slot it locks and the cells it adds; each cell's
 * children; each warp's examined slots, nodes, decisions and depths. The
 * forces of those walks move the bodies. ALU counts from nvcc 13
 * -arch=sm_90 PTX of that CUDA version (docs/workloads/barnes-hut.md).
 * Abstracted: no data values in the simulated memory; one thread per body
 * or cell where the original loops over a fixed grid; no spinning on
 * children not yet summarized (the kernels run in an order where they are);
 * new cells' slots are not cleared one by one; the last block's final
 * bounding-box reduction is left out.
 */
#include <stdlib.h>
#include <string.h>

#include "workload/kdw.h"
#include "workload/lonestar/bh_tree.h"

static const struct cfg_key bh_keys[] = {
    {"bodies", CFG_INT, "30000", 2, 4194304, "bodies", NULL},
    {"steps", CFG_INT, "10", 1, 100000, "time steps", NULL},
    CFG_END,
};

enum { K_BOX, K_CLEAR, K_BUILD, K_SUM, K_SORT, K_FORCE, K_INT, K_N };

/* Parameters: bodies, cells, the slot table's pitch, bounding-box passes,
 * the clear's passes and slots, the walk table's pitch, the halving steps. */
static const char *const bh_params[] = {"nb", "nc", "dmax", "iters", "citers", "total", "len",
                                        "steps", NULL};

/* PTX per block (see the page): bounding box: entry 10, 16 after the first
 * position; per body 2, 2 between the loads, 8 after; 3 before and after
 * the LDS stores; per halving step 4 after the barrier, 1 per pair of LDS
 * reads and writes, 3 for the loop; thread 0: 5, 1 between its stores. */
static const char *const box_bufs[] = {"posx", "posy", "posz", "bmin", "bmax", "blkcnt", NULL};
static const char *const box_arrays[] = {"half", NULL};
static const char box_body[] =
    "alu 10\n"
    "load posx[0] 4 -> r1\n"
    "load posy[0] 4 -> r2\n"
    "load posz[0] 4 -> r3\n"
    "alu 16 < r1 r2 r3\n"
    "for m0 = 0 .. iters\n"
    "  if gid + m0*gdx*bdx < nb\n"
    "    load posx[gid + m0*gdx*bdx] 4 -> r4\n"
    "    alu 2\n"
    "    load posy[gid + m0*gdx*bdx] 4 -> r5\n"
    "    alu 2\n"
    "    load posz[gid + m0*gdx*bdx] 4 -> r6\n"
    "    alu 8 < r4 r5 r6\n"
    "  end\n"
    "end\n"
    "alu 3\n"
    "for m1 = 0 .. 6\n"
    "  lds_store lds[256*m1 + tx] 4\n"
    "end\n"
    "alu 3\n"
    "for m2 = 0 .. steps\n"
    "  barrier\n"
    "  alu 4\n"
    "  if tx < @half[m2]\n"
    "    for m1 = 0 .. 6\n"
    "      lds_load lds[256*m1 + tx + @half[m2]] 4 -> r7\n"
    "      alu 1 < r7\n"
    "      lds_store lds[256*m1 + tx] 4 < r7\n"
    "    end\n"
    "  end\n"
    "  alu 3\n"
    "end\n"
    "if tx < 1\n"
    "  alu 5\n"
    "  for m1 = 0 .. 3\n"
    "    store bmin[3*bx + m1] 4\n"
    "  end\n"
    "  alu 1\n"
    "  for m1 = 0 .. 3\n"
    "    store bmax[3*bx + m1] 4\n"
    "  end\n"
    "  fence gpu\n"
    "  atomic blkcnt[0] 4 -> r8 gpu relaxed\n"
    "end\n";

/* clear: entry 13; per slot 1 before the store and 4 after (the step). */
static const char *const clear_bufs[] = {"child", NULL};
static const char clear_body[] =
    "alu 13\n"
    "for m0 = 0 .. citers\n"
    "  if gid + m0*gdx*bdx < total\n"
    "    alu 1\n"
    "    store child[gid + m0*gdx*bdx] 4\n"
    "    alu 4\n"
    "  end\n"
    "end\n";

/* build: entry 21, 1 and 1 between the position loads, 10 after (the root
 * octant), 2 after the root slot; per level 20 (the octant, the cube) and 3
 * after the slot; 1 before the lock's CAS, 4 after; 3 per cell added; the
 * fence, and the body's link into the slot. */
static const char *const build_bufs[] = {"posx", "posy", "posz", "child", "bottom", NULL};
static const char *const build_arrays[] = {"path", "dep", "leaf", "nsub", NULL};
static const char build_body[] =
    "alu 21\n"
    "if gid < nb\n"
    "  load posx[gid] 4 -> r1\n"
    "  alu 1\n"
    "  load posy[gid] 4 -> r2\n"
    "  alu 1\n"
    "  load posz[gid] 4 -> r3\n"
    "  alu 10 < r1 r2 r3\n"
    "  load child[@path[dmax*gid]] 4 -> r4\n"
    "  alu 2 < r4\n"
    "  for m0 = 1 .. @dep[gid]\n"
    "    alu 20\n"
    "    load child[@path[dmax*gid + m0]] 4 -> r4\n"
    "    alu 3 < r4\n"
    "  end\n"
    "  alu 1\n"
    "  atomic child[@leaf[gid]] 4 -> r5 gpu relaxed\n"
    "  alu 4 < r5\n"
    "  for m1 = 0 .. @nsub[gid]\n"
    "    atomic bottom[0] 4 -> r6 gpu relaxed\n"
    "    alu 3 < r6\n"
    "  end\n"
    "  fence gpu\n"
    "  store child[@leaf[gid]] 4\n"
    "end\n";

/* summarize: entry 23; per slot 2 after the child's load (its test); for a
 * child 3, 1, 2, 2 between its loads and 4 after (the cell test), 1 before a
 * cell's count, 2 to add; 4 for the loop; 5, 2, 2, 1 among the stores, the
 * fence before the mass (which tells the cell is done), 1. Cell k is node
 * nb + k; `cn` holds a slot's child + 1. */
static const char *const sum_bufs[] = {"child", "mass", "posx", "posy", "posz", "count", NULL};
static const char *const sum_arrays[] = {"cn", NULL};
static const char sum_body[] =
    "alu 23\n"
    "if gid < nc\n"
    "  for m0 = 0 .. 8\n"
    "    load child[8*gid + m0] 4 -> r1\n"
    "    alu 2 < r1\n"
    "    if 0 < @cn[8*gid + m0]\n"
    "      alu 3\n"
    "      load posx[@cn[8*gid + m0] - 1] 4 -> r2\n"
    "      alu 1\n"
    "      load mass[@cn[8*gid + m0] - 1] 4 -> r3\n"
    "      alu 2 < r2 r3\n"
    "      load posy[@cn[8*gid + m0] - 1] 4 -> r4\n"
    "      alu 2 < r4\n"
    "      load posz[@cn[8*gid + m0] - 1] 4 -> r5\n"
    "      alu 4 < r5\n"
    "      if nb < @cn[8*gid + m0]\n"
    "        alu 1\n"
    "        load count[@cn[8*gid + m0] - 1] 4 -> r6\n"
    "      end\n"
    "      alu 2\n"
    "    end\n"
    "    alu 4\n"
    "  end\n"
    "  alu 5\n"
    "  store posx[nb + gid] 4\n"
    "  alu 2\n"
    "  store posy[nb + gid] 4\n"
    "  alu 2\n"
    "  store posz[nb + gid] 4\n"
    "  alu 1\n"
    "  store count[nb + gid] 4\n"
    "  fence gpu\n"
    "  alu 1\n"
    "  store mass[nb + gid] 4\n"
    "end\n";

/* sort: entry 14, 4 after the cell's start; per slot 3 after the child (its
 * tests); a cell child: 3, its start, 2, its count, 1; a body: 4, its place
 * in `sort`, 2; 4 for the loop. */
static const char *const sort_bufs[] = {"child", "count", "start", "sort", NULL};
static const char *const sort_arrays[] = {"cn", "sp", NULL};
static const char sort_body[] =
    "alu 14\n"
    "if gid < nc\n"
    "  load start[gid] 4 -> r1\n"
    "  alu 4 < r1\n"
    "  for m0 = 0 .. 8\n"
    "    load child[8*gid + m0] 4 -> r2\n"
    "    alu 3 < r2\n"
    "    if nb < @cn[8*gid + m0]                  # a cell\n"
    "      alu 3\n"
    "      store start[@cn[8*gid + m0] - nb - 1] 4\n"
    "      alu 2\n"
    "      load count[@cn[8*gid + m0] - 1] 4 -> r3\n"
    "      alu 1 < r3\n"
    "    end\n"
    "    if @cn[8*gid + m0] < nb + 1\n"
    "      if 0 < @cn[8*gid + m0]                 # a body\n"
    "        alu 4\n"
    "        store sort[@sp[8*gid + m0]] 4\n"
    "        alu 2\n"
    "      end\n"
    "    end\n"
    "    alu 4\n"
    "  end\n"
    "end\n";

/* integrate: entry 20; 3, 3, 2 after the velocity and acceleration pairs;
 * 1 around each position update. */
static const char *const int_bufs[] = {"posx", "posy", "posz", "velx", "vely", "velz", "accx",
                                       "accy", "accz", NULL};
static const char int_body[] =
    "alu 20\n"
    "if gid < nb\n"
    "  load velx[gid] 4 -> r1\n"
    "  load accx[gid] 4 -> r2\n"
    "  alu 3 < r1 r2\n"
    "  load vely[gid] 4 -> r3\n"
    "  load accy[gid] 4 -> r4\n"
    "  alu 3 < r3 r4\n"
    "  load velz[gid] 4 -> r5\n"
    "  load accz[gid] 4 -> r6\n"
    "  alu 2 < r5 r6\n"
    "  load posx[gid] 4 -> r7\n"
    "  alu 1 < r7\n"
    "  store posx[gid] 4\n"
    "  alu 1\n"
    "  load posy[gid] 4 -> r8\n"
    "  alu 1 < r8\n"
    "  store posy[gid] 4\n"
    "  alu 1\n"
    "  load posz[gid] 4 -> r9\n"
    "  alu 1 < r9\n"
    "  store posz[gid] 4\n"
    "  store velx[gid] 4\n"
    "  store vely[gid] 4\n"
    "  store velz[gid] 4\n"
    "end\n";

/* force, a (32, 8) block: warp ty of work-group bx is walk W = 8 bx + ty,
 * thread k = 256 bx + 32 ty + tx takes the k-th body in tree order. LDS
 * words: pos[8][32] at 0, node[8][32] at 256, dq[32] at 512. PTX: thread 0
 * fills dq (19, then 1 per entry); after the barrier 8; the sort load, 3, the
 * position loads with 1, 1 and 6 after them; the leader's two stack stores
 * with 3 between, 6 more; per examined slot 2 and 3 around the reads of
 * pos[depth] and node[depth] each, 2 after the child's load, the leader's
 * pos[depth] update, 4; for a child 2, 2, 2 between the position loads,
 * 10, dq[depth]'s read, 5 (the vote); a used node 2, its mass, 7; an opened
 * cell 5, the leader's push (1 between its stores), 1; an empty slot 2 (the
 * pop); then 6 and 1, 1 between the acceleration stores. */
#define BH_K "bx*bdx*bdy + ty*bdx + tx"
#define BH_E "(bx*bdy + ty)*len + m0"
static const char *const force_bufs[] = {"sort", "posx", "posy", "posz", "mass", "child", "accx",
                                         "accy", "accz", NULL};
static const char *const force_arrays[] = {"srt", "ne", "es", "en", "ea", "ed", NULL};
static const char force_body[] =
    "if tx + ty < 1\n"
    "  alu 19\n"
    "  for m1 = 0 .. 32\n"
    "    lds_store lds[512 + m1] 4\n"
    "    alu 1\n"
    "  end\n"
    "end\n"
    "barrier\n"
    "alu 8\n"
    "if " BH_K " < nb\n"
    "  load sort[" BH_K "] 4 -> r1\n"
    "  alu 3 < r1\n"
    "  load posx[@srt[" BH_K "]] 4 -> r2\n"
    "  alu 1\n"
    "  load posy[@srt[" BH_K "]] 4 -> r3\n"
    "  alu 1\n"
    "  load posz[@srt[" BH_K "]] 4 -> r4\n"
    "  alu 6 < r2 r3 r4\n"
    "  if tx < 1                                   # the warp's leader\n"
    "    lds_store lds[32*ty] 4\n"
    "    alu 3\n"
    "    lds_store lds[256 + 32*ty] 4\n"
    "  end\n"
    "  alu 6\n"
    "  for m0 = 0 .. @ne[bx*bdy + ty]\n"
    "    alu 2\n"
    "    lds_load lds[32*ty + @ed[" BH_E "]] 4 -> r5\n"
    "    alu 3 < r5\n"
    "    alu 2\n"
    "    lds_load lds[256 + 32*ty + @ed[" BH_E "]] 4 -> r6\n"
    "    alu 3 < r6\n"
    "    load child[@es[" BH_E "]] 4 -> r7\n"
    "    alu 2 < r7\n"
    "    if tx < 1\n"
    "      lds_store lds[32*ty + @ed[" BH_E "]] 4\n"
    "    end\n"
    "    alu 4\n"
    "    if 0 < @ea[" BH_E "]                       # a child\n"
    "      alu 2\n"
    "      load posx[@en[" BH_E "] - 1] 4 -> r8\n"
    "      alu 2\n"
    "      load posy[@en[" BH_E "] - 1] 4 -> r9\n"
    "      alu 2\n"
    "      load posz[@en[" BH_E "] - 1] 4 -> r10\n"
    "      alu 10 < r8 r9 r10\n"
    "      lds_load lds[512 + @ed[" BH_E "]] 4 -> r11\n"
    "      alu 5 < r11\n"
    "      if @ea[" BH_E "] < 2                     # used\n"
    "        alu 2\n"
    "        load mass[@en[" BH_E "] - 1] 4 -> r12\n"
    "        alu 7 < r12\n"
    "      end\n"
    "    end\n"
    "    if 1 < @ea[" BH_E "]                       # opened: pushed\n"
    "      alu 5\n"
    "      if tx < 1\n"
    "        lds_store lds[32*ty + @ed[" BH_E "] + 1] 4\n"
    "        alu 1\n"
    "        lds_store lds[256 + 32*ty + @ed[" BH_E "] + 1] 4\n"
    "      end\n"
    "      alu 1\n"
    "    end\n"
    "    if @ea[" BH_E "] < 1                       # no child: popped\n"
    "      alu 2\n"
    "    end\n"
    "  end\n"
    "  alu 6\n"
    "  store accx[@srt[" BH_K "]] 4\n"
    "  alu 1\n"
    "  store accy[@srt[" BH_K "]] 4\n"
    "  alu 1\n"
    "  store accz[@srt[" BH_K "]] 4\n"
    "end\n";

#define BH_KD(n, b, a, t) {.name = n, .params = bh_params, .bufs = b, .arrays = a, .body = t}
static const struct kd_desc bh_kd[K_N] = {
    [K_BOX] = BH_KD("bounding_box", box_bufs, box_arrays, box_body),
    [K_CLEAR] = BH_KD("clear_children", clear_bufs, NULL, clear_body),
    [K_BUILD] = BH_KD("build_tree", build_bufs, build_arrays, build_body),
    [K_SUM] = BH_KD("summarize", sum_bufs, sum_arrays, sum_body),
    [K_SORT] = BH_KD("sort_bodies", sort_bufs, sort_arrays, sort_body),
    [K_FORCE] = BH_KD("force", force_bufs, force_arrays, force_body),
    [K_INT] = BH_KD("integrate", int_bufs, NULL, int_body),
};

static const char *const bh_names[] = {"posx", "posy", "posz", "mass", "count", "child",
                                       "start", "sort", "velx", "vely", "velz", "accx", "accy",
                                       "accz", "bmin", "bmax", "blkcnt", "bottom"};
#define BH_NBUF (sizeof bh_names / sizeof *bh_names)
#define BH_DT 0.025f

struct bh {
    struct kdw w;
    struct bh_tree t;
    uint32_t cap, steps, box_wgs; /* cells the buffers hold; time steps; bounding-box grid */
    const struct kernel_buf *bufs[BH_NBUF];
};

static const uint32_t bh_half[8] = {128, 64, 32, 16, 8, 4, 2, 1};

static int bh_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    (void)e;
    struct bh *b = (struct bh *)w;
    uint32_t nb = (uint32_t)cfg_uint(sec, "bodies");
    b->steps = (uint32_t)cfg_uint(sec, "steps");
    b->cap = 2 * nb + 1024;
    b->box_wgs = (uint32_t)div_ceil(nb, 1024);
    bh_init(&b->t, nb, w->env->seed);
    uint64_t nodes = (uint64_t)nb + b->cap;
    const uint64_t size[BH_NBUF] = {nodes * 4, nodes * 4, nodes * 4, nodes * 4, nodes * 4,
                                    8ull * b->cap * 4, b->cap * 4ull, nb * 4ull, nb * 4ull,
                                    nb * 4ull, nb * 4ull, nb * 4ull, nb * 4ull, nb * 4ull,
                                    b->box_wgs * 12ull, b->box_wgs * 12ull, 4, 4};
    for (unsigned i = 0; i < BH_NBUF; i++)
        b->bufs[i] = wl_alloc(w->env, bh_names[i], size[i]);
    return 0;
}

/* Grid (x) and block of kernel k. */
static void bh_geometry(const struct bh *b, unsigned k, struct kdw_launch *l)
{
    uint32_t per_body = (uint32_t)div_ceil(b->t.nb, 256), per_cell = (uint32_t)div_ceil(
                                                              b->t.ncells, 256);
    uint32_t gx = k == K_BOX ? b->box_wgs
                  : k == K_CLEAR ? (uint32_t)div_ceil(8ull * b->t.ncells, 1024)
                  : k == K_SUM || k == K_SORT ? per_cell : per_body;
    l->grid = (struct kernel_dim){gx, 1, 1};
    l->block = k == K_FORCE ? (struct kernel_dim){32, 8, 1} : (struct kernel_dim){256, 1, 1};
    l->lds_b = k == K_BOX ? 6 * 256 * 4 : k == K_FORCE ? (512 + 32) * 4 : 0;
}

/* The arrays kernel k reads. */
static void bh_arrays(const struct bh *b, unsigned k, struct kd_array *a)
{
    const struct bh_tree *t = &b->t;
    uint64_t slots = 8ull * t->ncells, ev = (uint64_t)t->nwarps * t->len;
    if (k == K_BOX) {
        a[0] = (struct kd_array){bh_half, 8};
    } else if (k == K_BUILD) {
        a[0] = (struct kd_array){t->path, (uint64_t)t->nb * t->dmax};
        a[1] = (struct kd_array){t->dep, t->nb};
        a[2] = (struct kd_array){t->leaf, t->nb};
        a[3] = (struct kd_array){t->nsub, t->nb};
    } else if (k == K_SUM || k == K_SORT) {
        a[0] = (struct kd_array){t->cn, slots};
        a[1] = (struct kd_array){t->sp, slots};
    } else if (k == K_FORCE) {
        a[0] = (struct kd_array){t->sorted, t->nb};
        a[1] = (struct kd_array){t->ne, t->nwarps};
        a[2] = (struct kd_array){t->es, ev};
        a[3] = (struct kd_array){t->en, ev};
        a[4] = (struct kd_array){t->ea, ev};
        a[5] = (struct kd_array){t->ed, ev};
    }
}

/* Launch i: kernel i % 7 of step i / 7; the host's step at its first. */
static bool bh_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    struct bh *b = (struct bh *)w;
    unsigned k = (unsigned)(i % K_N);
    if (i / K_N == b->steps)
        return false;
    if (k == K_BOX) {
        bh_step(&b->t, BH_DT);
        if (b->t.ncells > b->cap) {
            struct err e;
            err_set(&e, "barnes-hut: the tree of step %llu has %u cells, more than the %u "
                        "the buffers hold", (unsigned long long)(i / K_N), b->t.ncells, b->cap);
            return wl_fail(w->env, &e);
        }
    }
    l->prog = k;
    bh_geometry(b, k, l);
    const struct bh_tree *t = &b->t;
    uint64_t total = 8ull * t->ncells;
    int64_t p[] = {t->nb, t->ncells, t->dmax,
                   (int64_t)div_ceil(t->nb, (uint64_t)b->box_wgs * 256),
                   (int64_t)div_ceil(total, (uint64_t)l->grid.x * 256), (int64_t)total, t->len,
                   8};
    memcpy(l->params, p, sizeof p);
    for (unsigned j = 0; bh_kd[k].bufs[j]; j++)
        for (unsigned n = 0; n < BH_NBUF; n++)
            if (!strcmp(bh_kd[k].bufs[j], bh_names[n]))
                l->bufs[j] = b->bufs[n];
    bh_arrays(b, k, l->arrays);
    return true;
}

static uint64_t bh_count(const struct kdw *w)
{
    return (uint64_t)((const struct bh *)w)->steps * K_N;
}

static void bh_release(struct kdw *w)
{
    bh_free(&((struct bh *)w)->t);
}

static const struct kd_desc *const bh_descs[] = {&bh_kd[K_BOX], &bh_kd[K_CLEAR], &bh_kd[K_BUILD],
                                                 &bh_kd[K_SUM], &bh_kd[K_SORT], &bh_kd[K_FORCE],
                                                 &bh_kd[K_INT], NULL};
static const struct kdw_model bh_model = {.size = sizeof(struct bh), .descs = bh_descs,
                                          .setup = bh_setup, .plan = bh_plan, .count = bh_count,
                                          .release = bh_release};

static void *bh_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&bh_model, env, sec, e);
}

static const char *const bh_small[] = {"bodies=32", "steps=1", NULL};

const struct wl_ops wl_barnes_hut = {
    .name = "barnes-hut",
    .suite = "Lonestar",
    .desc = "Lonestar Barnes-Hut n-body: bounding box, octree build, summarize, sort, "
            "warp-synchronous force walk, integrate",
    .keys = bh_keys,
    .small = bh_small,
    .create = bh_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
    .kernels = kdw_kernels,
};
