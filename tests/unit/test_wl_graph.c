/*
 * Graph workloads (bfs, color, sssp, fw) and their inputs (graph.c): the
 * readers on small made-up files and on the real files in ../shared/data,
 * the generators, the exact ops of chosen warps (generators driven directly),
 * and whole runs of each model on the tiny machine under viper and ideal
 * (no stale reads, no annotation violations, the documented kernel count
 * and footprint). Kernel counts are recomputed here by an independent
 * implementation of each algorithm.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "machine.h"
#include "wl_harness.h"
#include "test_util.h"
#include "workload/pannotia/graph.h"

extern const struct wl_ops wl_bfs, wl_color, wl_sssp, wl_fw;

#define DATA "../shared/data/"

/* ---- helpers ---------------------------------------------------------------- */

static char *tmp_file(const char *name, const char *text)
{
    char *path = xasprintf("/tmp/chipsim-wlg-%d-%s", (int)getpid(), name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

/* Read text as a file called name; returns 0 or -1 with the message in e. */
static int read_text(struct graph_coo *g, const char *name, const char *text, enum graph_fmt f,
                     struct err *e)
{
    char *path = tmp_file(name, text);
    int rc = graph_read(g, path, f, e);
    unlink(path);
    free(path);
    return rc;
}

static void expect_read_error(const char *name, const char *text, enum graph_fmt f,
                              const char *want_suffix)
{
    struct graph_coo g;
    struct err e;
    cr_expect_eq(read_text(&g, name, text, f, &e), -1, "accepted %s", name);
    const char *colon = strstr(e.msg, name);
    cr_assert_not_null(colon, "%s", e.msg);
    cr_expect_str_eq(colon + strlen(name), want_suffix, "%s", e.msg);
}

static void expect_arc(const struct graph_coo *g, uint64_t i, uint32_t u, uint32_t v, int32_t w)
{
    cr_assert_lt(i, g->m);
    cr_expect(g->src[i] == u && g->dst[i] == v && g->w[i] == w,
              "arc %llu: %u -> %u (%d), want %u -> %u (%d)", (unsigned long long)i, g->src[i],
              g->dst[i], g->w[i], u, v, w);
}

/* A skip, not a warning: criterion ends a run that logged a warning with exit status 1. */
static void need_data(void)
{
    if (access(DATA, R_OK))
        cr_skip_test("%s is missing (real graph files)", DATA);
}

/* ---- readers ------------------------------------------------------------------ */

Test(wl_graph, dimacs_sp)
{
    struct graph_coo g;
    struct err e;
    cr_assert_eq(read_text(&g, "a.gr", "c comment\np sp 3 3\na 1 2 7\na 2 3 0\r\na 3 1 5\n",
                           GRAPH_AUTO, &e), 0, "%s", e.msg);
    cr_expect_eq(g.n, 3);
    cr_expect_eq(g.m, 3);
    cr_expect(g.weighted);
    expect_arc(&g, 0, 0, 1, 7);
    expect_arc(&g, 1, 1, 2, 0);
    expect_arc(&g, 2, 2, 0, 5);
    graph_coo_free(&g);
}

Test(wl_graph, dimacs_pace_and_edge_forms_are_undirected)
{
    struct graph_coo g;
    struct err e;
    cr_assert_eq(read_text(&g, "b.gr", "p tw 3 2\n1 2\n3 2\n", GRAPH_AUTO, &e), 0, "%s", e.msg);
    cr_expect_eq(g.m, 4);
    cr_expect_not(g.weighted);
    expect_arc(&g, 0, 0, 1, 1);
    expect_arc(&g, 1, 1, 0, 1);
    expect_arc(&g, 2, 2, 1, 1);
    graph_coo_free(&g);
    cr_assert_eq(read_text(&g, "c.col", "p edge 2 1\ne 1 2\n", GRAPH_AUTO, &e), 0, "%s", e.msg);
    cr_expect_eq(g.m, 2);
    graph_coo_free(&g);
}

Test(wl_graph, dimacs_errors)
{
    expect_read_error("e1.gr", "p sp 2 1\na 1 3 4\n", GRAPH_AUTO,
                      ":2: arc: vertex 3 outside 1..2");
    expect_read_error("e2.gr", "a 1 2 3\n", GRAPH_AUTO,
                      ":1: an arc before the problem line 'p sp N M'");
    expect_read_error("e3.gr", "p sp 2 2\na 1 2 3\n", GRAPH_AUTO,
                      ":2: 1 arcs, but the problem line says 2");
    expect_read_error("e4.gr", "p sp 2 1\na 1 2 x\n", GRAPH_AUTO,
                      ":2: expected an integer arc weight");
    expect_read_error("e5.gr", "p sp 2 1\na 1 2 -4\n", GRAPH_AUTO,
                      ":2: arc weight -4 outside 0..2147483647");
    expect_read_error("e6.gr", "p xx 2 1\n", GRAPH_AUTO,
                      ":1: problem line: expected 'p sp N M', 'p tw N M' or 'p edge N M'");
    expect_read_error("e7.gr", "p sp 2 1\na 1 2 3 9\n", GRAPH_AUTO, ":2: unexpected text '9'");
    expect_read_error("e8.gr", "c nothing\n", GRAPH_AUTO, ":1: no problem line 'p sp N M'");
    struct graph_coo g;
    struct err e;
    cr_expect_eq(graph_read(&g, "/nonexistent/x.gr", GRAPH_AUTO, &e), -1);
    cr_expect_str_eq(e.msg, "/nonexistent/x.gr: cannot open: No such file or directory");
}

Test(wl_graph, snap_compacts_ids)
{
    struct graph_coo g;
    struct err e;
    cr_assert_eq(read_text(&g, "s.txt", "# Nodes: 3\r\n30\t1412\r\n1412\t7\r\n30\t7\r\n",
                           GRAPH_AUTO, &e), 0, "%s", e.msg);
    cr_expect_eq(g.n, 3);
    expect_arc(&g, 0, 1, 2, 1); /* ids 7, 30, 1412 -> 0, 1, 2 */
    expect_arc(&g, 1, 2, 0, 1);
    expect_arc(&g, 2, 1, 0, 1);
    cr_expect_not(g.weighted);
    graph_coo_free(&g);
    expect_read_error("s2.edgelist", "1 2 5\n2 3\n", GRAPH_AUTO,
                      ":2: some edges have a weight and some do not");
    expect_read_error("s3.edgelist", "1 -2\n", GRAPH_AUTO,
                      ":1: expected an edge 'U V' of non-negative vertex ids");
}

Test(wl_graph, metis)
{
    struct graph_coo g;
    struct err e;
    cr_assert_eq(read_text(&g, "m.graph", "% c\n3 2\n2\n1 3\n2\n", GRAPH_AUTO, &e), 0, "%s",
                 e.msg);
    cr_expect_eq(g.n, 3);
    cr_expect_eq(g.m, 4);
    expect_arc(&g, 0, 0, 1, 1);
    expect_arc(&g, 3, 2, 1, 1);
    graph_coo_free(&g);
    /* fmt 11: a vertex weight first, then (neighbour, weight) pairs; an empty line is a vertex */
    cr_assert_eq(read_text(&g, "w.graph", "3 1 11\n5 2 9\n1 1 9\n7\n", GRAPH_AUTO, &e), 0, "%s",
                 e.msg);
    cr_expect(g.weighted);
    expect_arc(&g, 0, 0, 1, 9);
    expect_arc(&g, 1, 1, 0, 9);
    graph_coo_free(&g);
    expect_read_error("m2.graph", "3 2\n2\n1\n", GRAPH_AUTO,
                      ":3: 2 vertex lines, but the header says 3");
    expect_read_error("m3.graph", "2 2\n2\n1\n", GRAPH_AUTO,
                      ":3: 2 neighbour entries, but the header's 2 edges need 4");
    expect_read_error("m4.graph", "2 1\n3\n1\n", GRAPH_AUTO, ":2: neighbour: vertex 3 outside 1..2");
}

Test(wl_graph, matrix_market)
{
    struct graph_coo g;
    struct err e;
    cr_assert_eq(read_text(&g, "x.mtx",
                           "%%MatrixMarket matrix coordinate real symmetric\n% c\n3 3 3\n"
                           "1 1 2.5\n2 1 -1\n3 2 4e5\n",
                           GRAPH_AUTO, &e), 0, "%s", e.msg);
    cr_expect_eq(g.n, 3);
    cr_expect_eq(g.m, 4); /* the diagonal is dropped, the rest mirrored */
    expect_arc(&g, 0, 1, 0, 1);
    expect_arc(&g, 1, 0, 1, 1);
    graph_coo_free(&g);
    expect_read_error("y.mtx", "%%MatrixMarket matrix array real general\n2 2\n", GRAPH_AUTO,
                      ":1: only 'matrix coordinate' files hold a graph (got 'matrix array')");
    expect_read_error("z.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 2\n",
                      GRAPH_AUTO, ":3: 1 entries, but the size line says 2");
}

Test(wl_graph, rodinia_format)
{
    struct graph_coo g;
    struct err e;
    const char *text = "3\n0 2\n2 1\n3 0\n\n0\n\n3\n1 4\n2 5\n0 4\n";
    cr_assert_eq(read_text(&g, "graph3.txt", text, GRAPH_AUTO, &e), 0, "%s", e.msg);
    cr_expect_eq(g.n, 3);
    cr_expect_eq(g.m, 3);
    expect_arc(&g, 0, 0, 1, 4);
    expect_arc(&g, 1, 0, 2, 5);
    expect_arc(&g, 2, 1, 0, 4);
    graph_coo_free(&g);
    expect_read_error("graph4.txt", "2\n0 1\n1 2\n0\n2\n1 1\n0 1\n", GRAPH_RODINIA,
                      ":7: node 1: edges 1..2 outside the 2-edge list");
    expect_read_error("graph5.txt", "2\n0 1\n", GRAPH_RODINIA,
                      ":2: unexpected end of file: expected the node start");
}

Test(wl_graph, induce_and_weights)
{
    struct graph_coo g;
    struct err e;
    cr_assert_eq(read_text(&g, "i.gr", "p tw 4 3\n1 2\n2 3\n3 4\n", GRAPH_AUTO, &e), 0);
    graph_induce(&g, 3);
    cr_expect_eq(g.n, 3);
    cr_expect_eq(g.m, 4);
    graph_set_weights(&g, GRAPH_W_AUTO, 7); /* no file weights: random, symmetric */
    for (uint64_t i = 0; i < g.m; i++)
        cr_expect(g.w[i] >= 1 && g.w[i] <= 100);
    cr_expect_eq(g.w[0], g.w[1]);
    graph_set_weights(&g, GRAPH_W_UNIT, 7);
    cr_expect_eq(g.w[2], 1);
    graph_coo_free(&g);
}

struct real_file {
    const char *path;
    uint32_t n;
    uint64_t m;
};

Test(wl_graph, real_files)
{
    need_data();
    static const struct real_file files[] = {
        {DATA "pannotia-fw/512_65536.gr", 512, 65536},
        {DATA "pannotia-fw/256_16384.gr", 256, 16384},
        {DATA "road-dimacs9-pace/NY.gr", 264346, 2 * 365050ull},
        {DATA "networkit-graphs/wiki-Vote.txt", 7115, 103689},
        {DATA "networkit-graphs/CA-CondMat_tab-sep.edgelist", 23133, 186936},
        {DATA "networkit-graphs/astro-ph.graph", 16706, 2 * 121251ull},
        {DATA "suitesparse-mtx/bcsstk13.mtx", 2003, 2 * (42943ull - 2003)},
    };
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        struct graph_coo g;
        struct err e;
        cr_assert_eq(graph_read(&g, files[i].path, GRAPH_AUTO, &e), 0, "%s", e.msg);
        cr_expect_eq(g.n, files[i].n, "%s: %u vertices", files[i].path, g.n);
        cr_expect_eq(g.m, files[i].m, "%s: %llu arcs", files[i].path, (unsigned long long)g.m);
        graph_coo_free(&g);
    }
    struct graph_coo g;
    struct err e;
    cr_assert_eq(graph_read(&g, DATA "pannotia-fw/512_65536.gr", GRAPH_DIMACS, &e), 0);
    expect_arc(&g, 0, 0, 104, 30); /* "a 1 105 30" */
    expect_arc(&g, 1, 0, 403, 68);
    graph_coo_free(&g);
    cr_assert_eq(graph_read(&g, DATA "suitesparse-mtx/cryg2500.mtx", GRAPH_AUTO, &e), 0);
    cr_expect_eq(g.n, 2500);
    graph_coo_free(&g);
}

/* ---- generators ------------------------------------------------------------- */

static uint32_t bfs_depth(const struct graph *c, uint32_t *reached)
{
    int32_t *lvl = malloc(c->n * sizeof *lvl);
    uint32_t *q = malloc(c->n * sizeof *q), h = 0, t = 0, depth = 0;
    for (uint32_t v = 0; v < c->n; v++)
        lvl[v] = -1;
    lvl[0] = 0;
    q[t++] = 0;
    while (h < t) {
        uint32_t u = q[h++];
        for (uint32_t i = c->row[u]; i < c->row[u + 1]; i++)
            if (lvl[c->col[i]] < 0) {
                lvl[c->col[i]] = lvl[u] + 1;
                depth = (uint32_t)lvl[u] + 1;
                q[t++] = c->col[i];
            }
    }
    *reached = t;
    free(lvl);
    free(q);
    return depth;
}

Test(wl_graph, gen_rodinia)
{
    struct graph_coo g;
    graph_gen_rodinia(&g, 1000, 3);
    cr_expect_eq(g.n, 1000);
    cr_expect(g.m >= 4000 && g.m <= 8000 && g.m % 2 == 0, "%llu arcs", (unsigned long long)g.m);
    for (uint64_t i = 0; i < g.m; i += 2) { /* each edge both ways, weight 1..10 */
        cr_assert(g.src[i] == g.dst[i + 1] && g.dst[i] == g.src[i + 1]);
        cr_assert(g.w[i] >= 1 && g.w[i] <= 10 && g.w[i] == g.w[i + 1]);
    }
    graph_coo_free(&g);
}

Test(wl_graph, gen_road)
{
    struct graph_coo g;
    struct err e;
    cr_assert_eq(graph_gen_road(&g, 1024, 0, 5, &e), 0, "%s", e.msg);
    cr_expect_eq(g.m, 2 * graph_road_edges(1024));
    cr_expect_eq(graph_road_edges(GRAPH_AK_NODES), GRAPH_AK_EDGES);
    struct graph c;
    graph_csr(&c, &g, false);
    uint32_t reached, depth = bfs_depth(&c, &reached);
    cr_expect_eq(reached, 1024, "connected");
    cr_expect(depth >= 62 && depth < 200, "depth %u", depth); /* road-like: ~2 x side */
    uint32_t maxdeg = 0;
    for (uint32_t v = 0; v < c.n; v++)
        maxdeg = c.row[v + 1] - c.row[v] > maxdeg ? c.row[v + 1] - c.row[v] : maxdeg;
    cr_expect_leq(maxdeg, 4);
    graph_free(&c);
    graph_coo_free(&g);
    uint64_t min = graph_road_min_edges(1024);
    cr_expect_eq(min, 1032);
    cr_expect_eq(graph_gen_road(&g, 1024, min - 1, 5, &e), -1);
    cr_expect_str_eq(e.msg, "a road graph of 1024 vertices has 1032..1984 edges");
}

Test(wl_graph, gen_uniform)
{
    struct graph_coo g;
    graph_gen_uniform(&g, 64, 1000, 100, 9);
    cr_expect_eq(g.m, 1000);
    for (uint64_t i = 0; i < g.m; i++) {
        cr_assert_neq(g.src[i], g.dst[i]);
        cr_assert(g.w[i] >= 0 && g.w[i] < 100);
        if (i)
            cr_assert_geq(g.src[i], g.src[i - 1]);
    }
    graph_coo_free(&g);
}

/* ---- generators driven directly ----------------------------------------------- */

static void *gw_try(struct wlh *m, const struct wl_ops *ops, const char *ini)
{
    return wlh_try(m, ops, ini, 2, 4);
}

static void gw_open(struct wlh *m, const struct wl_ops *ops, const char *ini)
{
    cr_assert_not_null(gw_try(m, ops, ini), "%s", m->e.msg);
}

static void gw_close(struct wlh *m) { wlh_close(m); }

static void gw_error(const struct wl_ops *ops, const char *ini, const char *want)
{
    struct wlh m;
    cr_expect_null(gw_try(&m, ops, ini), "accepted %s", ini);
    cr_expect_str_eq(m.e.msg, want);
    gw_close(&m);
}

static void expect_op(struct kernel_op a, uint8_t kind, uint8_t size, uint64_t mask, addr_t base,
                      int64_t stride, const char *what)
{
    cr_expect_eq(a.kind, kind, "%s: kind %u, want %u", what, a.kind, kind);
    cr_expect_eq(a.size, size, "%s: size %u", what, a.size);
    cr_expect_eq(a.mask, mask, "%s: mask %#llx, want %#llx", what, (unsigned long long)a.mask,
                 (unsigned long long)mask);
    if (!a.lanes) {
        cr_expect_eq(a.base, base, "%s: base %#llx, want %#llx", what,
                     (unsigned long long)a.base, (unsigned long long)base);
        cr_expect_eq(a.stride, stride, "%s: stride", what);
    }
}

static void expect_alu(struct kernel_op a, const char *what)
{
    cr_expect_eq(a.kind, KOP_ALU, "%s: kind %u", what, a.kind);
    cr_expect_gt(a.n, 0, "%s", what);
}

/* The Rodinia graph the bfs model generates with seed 1, as CSR. */
static void rodinia_csr(struct graph *c, uint32_t n)
{
    struct graph_coo g;
    graph_gen_rodinia(&g, n, 1);
    graph_csr(c, &g, false);
    graph_coo_free(&g);
}

Test(wl_graph, bfs_ops_level0)
{
    struct wlh m;
    gw_open(&m, &wl_bfs, "[workload]\nnodes = 1000\n");
    struct graph c;
    rodinia_csr(&c, 1000);
    struct kernel k;
    cr_assert(m.ops->next_kernel(m.self, &k));
    cr_expect_str_eq(k.name, "Kernel");
    cr_expect(k.grid.x == 2 && k.block.x == 512 && k.nargs == 6);
    const struct kernel_buf *nodes = k.args[0].buf, *edges = k.args[1].buf, *mask = k.args[2].buf,
                            *upd = k.args[3].buf, *vis = k.args[4].buf, *cost = k.args[5].buf;
    cr_expect_eq(nodes->size, 8000);
    cr_expect_eq(edges->size, 4ull * c.m);
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 0, 0); /* node 0, the source, is lane 0 */
    expect_alu(wlh_step(&k, &w), "prologue");
    expect_op(wlh_step(&k, &w), KOP_LOAD, 1, ~0ull, mask->base, 1, "mask[tid]");
    expect_alu(wlh_step(&k, &w), "test");
    expect_op(wlh_step(&k, &w), KOP_STORE, 1, 1, mask->base, 1, "mask[0] = false");
    expect_op(wlh_step(&k, &w), KOP_LOAD, 8, 1, nodes->base, 8, "nodes[0]");
    expect_alu(wlh_step(&k, &w), "end");
    uint32_t deg = c.row[1] - c.row[0];
    for (uint32_t j = 0; j < deg; j++) {
        uint32_t id = c.col[c.row[0] + j];
        expect_alu(wlh_step(&k, &w), "edge address");
        struct kernel_op op = wlh_step(&k, &w);
        expect_op(op, KOP_LOAD, 4, 1, 0, 0, "edges[i]");
        cr_expect(op.lanes && w.lane_addr[0] == edges->base + (c.row[0] + j) * 4ull);
        expect_alu(wlh_step(&k, &w), "visited address");
        op = wlh_step(&k, &w);
        expect_op(op, KOP_LOAD, 1, 1, 0, 0, "visited[id]");
        cr_expect_eq(w.lane_addr[0], vis->base + id);
        expect_alu(wlh_step(&k, &w), "visited test");
        if (id != 0) { /* every neighbour but the source itself is unvisited */
            expect_op(wlh_step(&k, &w), KOP_LOAD, 4, 1, cost->base, 4, "cost[tid]");
            expect_alu(wlh_step(&k, &w), "+1");
            op = wlh_step(&k, &w);
            expect_op(op, KOP_STORE, 4, 1, 0, 0, "cost[id]");
            cr_expect_eq(w.lane_addr[0], cost->base + 4ull * id);
            op = wlh_step(&k, &w);
            expect_op(op, KOP_STORE, 1, 1, 0, 0, "updating[id]");
            cr_expect_eq(w.lane_addr[0], upd->base + id);
        }
        expect_alu(wlh_step(&k, &w), "loop");
    }
    cr_expect_eq(wlh_step(&k, &w).kind, KOP_EXIT);
    wlh_warp_at(&w, &k, 1, 7); /* nodes 960..999: a partial warp, not in the frontier */
    expect_alu(wlh_step(&k, &w), "prologue");
    expect_op(wlh_step(&k, &w), KOP_LOAD, 1, (1ull << 40) - 1, mask->base + 960, 1, "mask[tid]");
    expect_alu(wlh_step(&k, &w), "test");
    cr_expect_eq(wlh_step(&k, &w).kind, KOP_EXIT);
    struct addr_range r[64];
    cr_expect_eq(k.ranges(&k, 1, 0, r, 64), 1);
    cr_expect(r[0].lo == nodes->base + 4096 && r[0].hi == nodes->base + 8000);
    cr_expect_eq(k.ranges(&k, 1, 1, r, 64), 1);
    cr_expect(r[0].lo == edges->base + 4ull * c.row[512] && r[0].hi == edges->base + 4ull * c.m);
    cr_expect_eq(k.ranges(&k, 1, 3, r, 64), 0, "updating[id]: irregular");
    /* Kernel2: the nodes of level 1 join the frontier */
    cr_assert(m.ops->next_kernel(m.self, &k));
    cr_expect_str_eq(k.name, "Kernel2");
    uint64_t lvl1 = 0;
    for (uint32_t i = c.row[0]; i < c.row[1]; i++)
        if (c.col[i] && c.col[i] < 64)
            lvl1 |= 1ull << c.col[i];
    wlh_warp_at(&w, &k, 0, 0);
    expect_alu(wlh_step(&k, &w), "prologue");
    expect_op(wlh_step(&k, &w), KOP_LOAD, 1, ~0ull, upd->base, 1, "updating[tid]");
    expect_alu(wlh_step(&k, &w), "test");
    if (lvl1) {
        expect_op(wlh_step(&k, &w), KOP_STORE, 1, lvl1, mask->base, 1, "mask");
        expect_op(wlh_step(&k, &w), KOP_STORE, 1, lvl1, vis->base, 1, "visited");
        expect_op(wlh_step(&k, &w), KOP_STORE, 1, lvl1, k.args[3].buf->base, 0, "over");
        expect_op(wlh_step(&k, &w), KOP_STORE, 1, lvl1, upd->base, 1, "updating");
    }
    cr_expect_eq(wlh_step(&k, &w).kind, KOP_EXIT);
    cr_assert(m.ops->next_kernel(m.self, &k));
    cr_expect(k.args[0].same_pattern && k.args[1].same_pattern && !k.args[2].same_pattern);
    graph_free(&c);
    gw_close(&m);
}

Test(wl_graph, fw_ops)
{
    struct wlh m;
    gw_open(&m, &wl_fw, "[workload]\nnodes = 100\narcs = 3000\n");
    struct kernel k;
    for (int i = 0; i < 3; i++) /* pivot k = 2 */
        cr_assert(m.ops->next_kernel(m.self, &k));
    cr_expect_str_eq(k.name, "floydwarshall");
    cr_expect(k.grid.x == 7 && k.grid.y == 7 && k.block.x == 16 && k.block.y == 16);
    /* the pivot, 2, shows in the addresses of dist[ik] and dist[kj] below */
    const struct kernel_buf *d = k.args[0].buf, *nx = k.args[1].buf;
    cr_expect(d->size == 40000 && nx->size == 40000 && k.args[1].same_pattern &&
              !k.args[0].same_pattern && k.args[0].mode == KERNEL_RW);
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 2 + 1 * 7, 1); /* tile (x 2, y 1): rows 20..23, columns 32..47 */
    expect_alu(wlh_step(&k, &w), "index");
    struct kernel_op op = wlh_step(&k, &w);
    expect_op(op, KOP_LOAD, 4, ~0ull, 0, 0, "dist[ij]");
    cr_expect(op.lanes && w.lane_addr[17] == d->base + (21 * 100 + 33) * 4);
    expect_alu(wlh_step(&k, &w), "address");
    wlh_step(&k, &w);
    cr_expect_eq(w.lane_addr[17], d->base + (21 * 100 + 2) * 4, "dist[ik]");
    wlh_step(&k, &w);
    cr_expect_eq(w.lane_addr[17], d->base + (2 * 100 + 33) * 4, "dist[kj]");
    expect_alu(wlh_step(&k, &w), "add");
    expect_alu(wlh_step(&k, &w), "compare");
    op = wlh_step(&k, &w);
    if (op.kind == KOP_STORE) { /* improved elements store dist, then next */
        unsigned l = (unsigned)__builtin_ctzll(op.mask);
        cr_expect_eq((w.lane_addr[l] - d->base) / 4, (20 + l / 16) * 100 + 32 + l % 16);
        op = wlh_step(&k, &w);
        cr_expect(op.kind == KOP_STORE && w.lane_addr[l] >= nx->base);
        op = wlh_step(&k, &w);
    }
    cr_expect_eq(op.kind, KOP_EXIT);
    struct addr_range r[64];
    unsigned n = k.ranges(&k, 2 + 1 * 7, 0, r, 64);
    cr_expect_eq(n, 17, "row k, then 16 rows (column k merged with the tile row)");
    cr_expect(r[0].lo == d->base + (2 * 100 + 32) * 4 && r[0].hi == d->base + (2 * 100 + 48) * 4);
    cr_expect(r[1].lo == d->base + (16 * 100 + 2) * 4 && r[1].hi == d->base + (16 * 100 + 48) * 4);
    cr_expect_eq(k.ranges(&k, 0, 1, r, 64), 16, "next: the tile rows");
    gw_close(&m);
}

Test(wl_graph, sssp_ops)
{
    struct wlh m;
    gw_open(&m, &wl_sssp, "[workload]\nnodes = 300\n");
    struct kernel k;
    const char *names[] = {"vector_init", "vector_assign", "spmv_min_dot_plus_kernel",
                           "vector_diff"};
    for (int i = 0; i < 4; i++) {
        cr_assert(m.ops->next_kernel(m.self, &k));
        cr_expect_str_eq(k.name, names[i]);
        cr_expect(k.grid.x == 3 && k.block.x == 128);
        if (i == 2) { /* check spmv before the diff overwrites nothing it uses */
            const struct kernel_buf *row = k.args[0].buf, *col = k.args[1].buf,
                                    *data = k.args[2].buf, *x = k.args[3].buf,
                                    *y = k.args[4].buf;
            cr_expect_eq(row->size, 301 * 4);
            struct kernel_warp w;
            wlh_warp_at(&w, &k, 2, 0); /* vertices 256..299 */
            uint64_t in = (1ull << 44) - 1;
            expect_alu(wlh_step(&k, &w), "prologue");
            expect_op(wlh_step(&k, &w), KOP_LOAD, 4, in, row->base + 256 * 4, 4, "row[tid]");
            expect_op(wlh_step(&k, &w), KOP_LOAD, 4, in, row->base + 257 * 4, 4, "row[tid+1]");
            expect_op(wlh_step(&k, &w), KOP_LOAD, 4, in, x->base + 256 * 4, 4, "x[tid]");
            expect_alu(wlh_step(&k, &w), "bounds");
            expect_alu(wlh_step(&k, &w), "address");
            struct kernel_op op = wlh_step(&k, &w);
            cr_expect(op.kind == KOP_LOAD && op.lanes && op.mask);
            unsigned l = (unsigned)__builtin_ctzll(op.mask);
            addr_t e = w.lane_addr[l];
            cr_expect(e >= col->base && e < col->base + col->size);
            wlh_step(&k, &w);
            cr_expect_eq(w.lane_addr[l], data->base + (e - col->base), "data[i]");
            expect_alu(wlh_step(&k, &w), "address");
            wlh_step(&k, &w);
            cr_expect(w.lane_addr[l] >= x->base && w.lane_addr[l] < x->base + x->size);
            while ((op = wlh_step(&k, &w)).kind != KOP_STORE)
                cr_assert_neq(op.kind, KOP_EXIT);
            expect_op(op, KOP_STORE, 4, in, y->base + 256 * 4, 4, "y[tid]");
            cr_expect(!k.args[0].same_pattern && k.args[3].mode == KERNEL_R &&
                      k.args[4].mode == KERNEL_RW);
        }
    }
    gw_close(&m);
}

Test(wl_graph, color_ops_round1)
{
    struct wlh m;
    gw_open(&m, &wl_color, "[workload]\nnodes = 300\n");
    struct kernel k;
    cr_assert(m.ops->next_kernel(m.self, &k));
    cr_expect_str_eq(k.name, "color1");
    const struct kernel_buf *row = k.args[0].buf, *colors = k.args[3].buf;
    cr_expect_eq(row->size, 300 * 4);
    struct kernel_warp w;
    wlh_warp_at(&w, &k, 2, 0); /* vertices 256..299: all uncoloured in round 1 */
    uint64_t in = (1ull << 44) - 1;
    expect_alu(wlh_step(&k, &w), "prologue");
    expect_op(wlh_step(&k, &w), KOP_LOAD, 4, in, colors->base + 256 * 4, 4, "col_array[tid]");
    expect_alu(wlh_step(&k, &w), "test");
    expect_op(wlh_step(&k, &w), KOP_LOAD, 4, in, row->base + 256 * 4, 4, "row[tid]");
    expect_op(wlh_step(&k, &w), KOP_LOAD, 4, in >> 1, row->base + 257 * 4, 4, "row[tid+1]");
    struct addr_range r[64];
    cr_expect_eq(k.ranges(&k, 2, 0, r, 64), 1);
    cr_expect(r[0].lo == row->base + 256 * 4 && r[0].hi == row->base + 300 * 4);
    gw_close(&m);
}

Test(wl_graph, parameter_errors)
{
    gw_error(&wl_sssp, "[workload]\nnodes = 1024\nedges = 20\n",
             "t.ini:3: [workload] edges = 20: a road graph of 1024 vertices has 1032..1984 edges");
    gw_error(&wl_bfs, "[workload]\ninput = /nonexistent.gr\n",
             "/nonexistent.gr: cannot open: No such file or directory");
    char *bad = tmp_file("bad.gr", "p sp 2 1\na 1 5 1\n");
    char *ini = xasprintf("[workload]\ninput = %s\n", bad);
    char *want = xasprintf("%s:2: arc: vertex 5 outside 1..2", bad);
    gw_error(&wl_color, ini, want);
    free(ini);
    free(want);
    unlink(bad);
    free(bad);
    bad = tmp_file("big.gr", "p sp 9000 0\n");
    ini = xasprintf("[workload]\ninput = %s\n", bad);
    want = xasprintf("t.ini:2: [workload] input = %s: 9000 vertices: FW keeps an n x n matrix, "
                     "at most 8192 (set workload.max_nodes)", bad);
    gw_error(&wl_fw, ini, want);
    free(ini);
    free(want);
    unlink(bad);
    free(bad);
}

/* ---- whole runs on the tiny machine ------------------------------------------ */

struct run {
    uint64_t kernels, stale, violations, footprint;
};

static struct run run_wl(const struct wl_ops *w, const char *scheme, const char *params)
{
    char ini[1024];
    int len = snprintf(ini, sizeof ini, "[coherence]\nscheme = %s\n[check]\nannotations = true\n"
                       "[workload]\n%s", scheme, params ? params : "");
    for (const char *const *s = w->small; !params && s && *s; s++)
        len += snprintf(ini + len, sizeof ini - (size_t)len, "%s\n", *s);
    struct err e;
    struct machine *m = machine_new_wl(ini, w, &e);
    cr_assert_not_null(m, "%s", e.msg);
    cr_assert_eq(machine_run(m), SIM_DONE, "%s under %s", w->name, scheme);
    struct run r = {m->g.cp.st.kernels, machine_stat(m, "checker.stale_reads"),
                    machine_stat(m, "checker.annotation_violations"), wl_footprint(&m->env)};
    machine_free(m);
    return r;
}

static void expect_run(const struct wl_ops *w, const char *params, uint64_t kernels,
                       uint64_t footprint)
{
    const char *schemes[] = {"viper", "ideal"};
    for (int i = 0; i < 2; i++) {
        struct run r = run_wl(w, schemes[i], params);
        cr_expect_eq(r.stale, 0, "%s %s: %llu stale reads", w->name, schemes[i],
                     (unsigned long long)r.stale);
        cr_expect_eq(r.violations, 0, "%s %s: %llu annotation violations", w->name, schemes[i],
                     (unsigned long long)r.violations);
        cr_expect_eq(r.kernels, kernels, "%s %s: %llu kernels, want %llu", w->name, schemes[i],
                     (unsigned long long)r.kernels, (unsigned long long)kernels);
        cr_expect_eq(r.footprint, footprint, "%s: footprint %llu, want %llu", w->name,
                     (unsigned long long)r.footprint, (unsigned long long)footprint);
    }
}

/* Rounds of max-colouring (an independent implementation). */
static uint32_t color_rounds(const struct graph *c, uint64_t seed)
{
    float *val = malloc(c->n * sizeof *val), *mx = malloc(c->n * sizeof *mx);
    int *col = malloc(c->n * sizeof *col);
    struct rng r;
    rng_seed(&r, seed ^ 0xc0104ull);
    for (uint32_t v = 0; v < c->n; v++) {
        val[v] = (float)rng_unit(&r);
        col[v] = -1;
    }
    uint32_t rounds = 0;
    for (int stop = 1; stop; rounds++) {
        stop = 0;
        for (uint32_t v = 0; v < c->n; v++) {
            if (col[v] != -1)
                continue;
            mx[v] = -1;
            for (uint32_t e = c->row[v]; e < c->row[v + 1]; e++)
                if (col[c->col[e]] == -1 && c->row[v + 1] - c->row[v] != 1) {
                    stop = 1;
                    mx[v] = val[c->col[e]] > mx[v] ? val[c->col[e]] : mx[v];
                }
        }
        for (uint32_t v = 0; v < c->n; v++)
            if (col[v] == -1 && val[v] >= mx[v])
                col[v] = (int)rounds + 1;
    }
    free(val);
    free(mx);
    free(col);
    return rounds;
}

/* Jacobi Bellman-Ford rounds from vertex 0 until one changes nothing. */
static uint32_t sssp_rounds(const struct graph_coo *g)
{
    int64_t *d = malloc(g->n * sizeof *d), *nd = malloc(g->n * sizeof *nd);
    for (uint32_t v = 0; v < g->n; v++)
        d[v] = v ? INT64_MAX : 0;
    uint32_t rounds = 0;
    for (bool ch = true; ch; rounds++) {
        ch = false;
        memcpy(nd, d, g->n * sizeof *d);
        for (uint64_t a = 0; a < g->m; a++)
            if (d[g->src[a]] != INT64_MAX && d[g->src[a]] + g->w[a] < nd[g->dst[a]])
                nd[g->dst[a]] = d[g->src[a]] + g->w[a];
        ch = memcmp(nd, d, g->n * sizeof *d) != 0;
        memcpy(d, nd, g->n * sizeof *d);
    }
    free(d);
    free(nd);
    return rounds;
}

Test(wl_graph, bfs_small_runs)
{
    struct graph c;
    rodinia_csr(&c, 2048);
    uint32_t reached, depth = bfs_depth(&c, &reached);
    expect_run(&wl_bfs, NULL, 2ull * (depth + 1), 15ull * 2048 + 4ull * c.m + 1);
    graph_free(&c);
}

Test(wl_graph, color_small_runs)
{
    struct graph_coo g;
    struct err e;
    cr_assert_eq(graph_gen_road(&g, 1024, 0, 1, &e), 0);
    struct graph c;
    graph_csr(&c, &g, false);
    expect_run(&wl_color, NULL, 2ull * color_rounds(&c, 1), 16ull * 1024 + 4ull * c.m + 4);
    graph_free(&c);
    graph_coo_free(&g);
}

Test(wl_graph, sssp_small_runs)
{
    struct graph_coo g;
    struct err e;
    cr_assert_eq(graph_gen_road(&g, 256, 0, 1, &e), 0);
    expect_run(&wl_sssp, NULL, 1 + 3ull * sssp_rounds(&g), 12ull * 256 + 8ull * g.m + 8);
    graph_coo_free(&g);
}

Test(wl_graph, fw_small_runs)
{
    expect_run(&wl_fw, NULL, 64, 8ull * 64 * 64);
    expect_run(&wl_fw, "nodes = 20\narcs = 100\n", 20, 8ull * 20 * 20); /* n % 16 != 0 */
}

/* The models on the real files (small parts of them). */
Test(wl_graph, real_file_runs)
{
    need_data();
    expect_run(&wl_fw, "input = " DATA "pannotia-fw/256_16384.gr\nmax_nodes = 48\n", 48,
               8ull * 48 * 48);
    struct graph_coo g;
    struct err e;
    cr_assert_eq(graph_read(&g, DATA "road-dimacs9-pace/NY.gr", GRAPH_AUTO, &e), 0);
    graph_induce(&g, 600);
    graph_set_weights(&g, GRAPH_W_AUTO, 1);
    struct run r = run_wl(&wl_sssp, "viper", "input = " DATA "road-dimacs9-pace/NY.gr\n"
                                              "max_nodes = 600\n");
    cr_expect_eq(r.kernels, 1 + 3ull * sssp_rounds(&g));
    cr_expect(r.stale == 0 && r.violations == 0, "sssp NY: %llu stale, %llu violations",
              (unsigned long long)r.stale, (unsigned long long)r.violations);
    graph_coo_free(&g);
    const char *inputs[] = {"networkit-graphs/astro-ph.graph", "networkit-graphs/wiki-Vote.txt",
                            "suitesparse-mtx/cryg2500.mtx"};
    const struct wl_ops *ops[] = {&wl_color, &wl_bfs, &wl_color};
    for (int i = 0; i < 3; i++) {
        char p[256];
        snprintf(p, sizeof p, "input = " DATA "%s\nmax_nodes = 1500\n", inputs[i]);
        r = run_wl(ops[i], "viper", p);
        cr_expect(r.kernels >= 2 && r.stale == 0 && r.violations == 0,
                  "%s on %s: %llu kernels, %llu stale, %llu violations", ops[i]->name, inputs[i],
                  (unsigned long long)r.kernels, (unsigned long long)r.stale,
                  (unsigned long long)r.violations);
    }
}
