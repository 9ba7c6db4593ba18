/*
 * graph.c -- graph readers, generators and CSR construction for the graph
 * workloads (see graph.h). Readers keep the arcs in file order, so a CSR row
 * lists a vertex's neighbours in the order the file gives them, as the
 * benchmarks' own parsers do.
 */
#include "graph.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void graph_coo_add(struct graph_coo *g, uint32_t u, uint32_t v, int32_t w)
{
    if (g->m == g->cap) {
        size_t cap = g->cap;
        g->src = xgrow(g->src, sizeof *g->src, &cap, g->m + 1);
        g->dst = xrealloc(g->dst, cap * sizeof *g->dst);
        g->w = xrealloc(g->w, cap * sizeof *g->w);
        g->cap = cap;
    }
    g->src[g->m] = u;
    g->dst[g->m] = v;
    g->w[g->m++] = w;
}

void graph_coo_free(struct graph_coo *g)
{
    free(g->src);
    free(g->dst);
    free(g->w);
    *g = (struct graph_coo){0};
}

/* ---- line reader ---------------------------------------------------------- */

struct rd {
    FILE *f;
    const char *path;
    char *line;
    size_t cap;
    unsigned long no;
    struct err *e;
};

/* The next line without its end-of-line characters, or NULL at the end. */
static char *rd_next(struct rd *r)
{
    ssize_t len = getline(&r->line, &r->cap, r->f);
    if (len < 0)
        return NULL;
    r->no++;
    while (len > 0 && (r->line[len - 1] == '\n' || r->line[len - 1] == '\r'))
        r->line[--len] = 0;
    return r->line;
}

__attribute__((format(printf, 2, 3))) static int rd_fail(struct rd *r, const char *fmt, ...)
{
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    if (r->no)
        return err_set(r->e, "%s:%lu: %s", r->path, r->no, why);
    return err_set(r->e, "%s: %s", r->path, why);
}

static char *skip_ws(char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

static bool blank(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return !*p;
}

/* Parse an integer token at *p; 1 if found, 0 at the end of the line, -1 if
 * the token is not an integer. */
static int tok_int(char **p, int64_t *v)
{
    char *s = skip_ws(*p), *end;
    if (!*s)
        return 0;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (end == s || errno || (*end && *end != ' ' && *end != '\t'))
        return -1;
    *v = x;
    *p = end;
    return 1;
}

/* Read a vertex id in [base, base + n) as 0-based; -1 with a message. */
static int tok_vertex(struct rd *r, char **p, uint64_t n, int base, const char *what,
                      uint32_t *out)
{
    int64_t v;
    int t = tok_int(p, &v);
    if (t <= 0)
        return rd_fail(r, "%s: expected a vertex number", what);
    if (v < base || (uint64_t)(v - base) >= n)
        return rd_fail(r, "%s: vertex %lld outside %d..%llu", what, (long long)v, base,
                       (unsigned long long)n - 1 + (unsigned)base);
    *out = (uint32_t)(v - base);
    return 0;
}

static int tok_weight(struct rd *r, char **p, int32_t *w)
{
    int64_t v;
    int t = tok_int(p, &v);
    if (t <= 0)
        return rd_fail(r, "expected an integer arc weight");
    if (v < 0 || v > INT32_MAX)
        return rd_fail(r, "arc weight %lld outside 0..%d", (long long)v, INT32_MAX);
    *w = (int32_t)v;
    return 0;
}

static int end_of_line(struct rd *r, char *p)
{
    return blank(p) ? 0 : rd_fail(r, "unexpected text '%s'", skip_ws(p));
}

static int check_arcs(struct rd *r, struct graph_coo *g)
{
    if (g->m > GRAPH_MAX_ARCS)
        return rd_fail(r, "more than %llu arcs", GRAPH_MAX_ARCS);
    return 0;
}

/* A header count: a non-negative integer below max. */
static int tok_count(struct rd *r, char **p, uint64_t max, const char *what, uint64_t *out)
{
    int64_t v;
    if (tok_int(p, &v) <= 0 || v < 0 || (uint64_t)v > max)
        return rd_fail(r, "expected the %s (an integer 0..%llu)", what, (unsigned long long)max);
    *out = (uint64_t)v;
    return 0;
}

/* ---- DIMACS: p sp / p tw / p edge --------------------------------------- */

enum dimacs_kind { DIMACS_NONE, DIMACS_SP, DIMACS_TW, DIMACS_EDGE };

static int dimacs_problem(struct rd *r, char *p, enum dimacs_kind *kind, struct graph_coo *g,
                          uint64_t *m)
{
    if (*kind != DIMACS_NONE)
        return rd_fail(r, "a second problem line");
    p = skip_ws(p + 1);
    if (!strncmp(p, "sp", 2) && (p[2] == ' ' || p[2] == '\t'))
        *kind = DIMACS_SP;
    else if (!strncmp(p, "tw", 2) && (p[2] == ' ' || p[2] == '\t'))
        *kind = DIMACS_TW;
    else if ((!strncmp(p, "edge", 4) && (p[4] == ' ' || p[4] == '\t')) ||
             (!strncmp(p, "col", 3) && (p[3] == ' ' || p[3] == '\t')))
        *kind = DIMACS_EDGE;
    else
        return rd_fail(r, "problem line: expected 'p sp N M', 'p tw N M' or 'p edge N M'");
    while (*p && *p != ' ' && *p != '\t')
        p++;
    uint64_t n = 0;
    if (tok_count(r, &p, INT32_MAX, "vertex count", &n) || tok_count(r, &p, UINT32_MAX, "arc count", m))
        return -1;
    g->n = (uint32_t)n;
    g->weighted = *kind == DIMACS_SP;
    return end_of_line(r, p);
}

static int dimacs_arc(struct rd *r, char *p, enum dimacs_kind kind, struct graph_coo *g)
{
    uint32_t u, v;
    int32_t w = 1;
    if (kind == DIMACS_SP || kind == DIMACS_EDGE)
        p++; /* the 'a' or 'e' */
    if (tok_vertex(r, &p, g->n, 1, "arc", &u) || tok_vertex(r, &p, g->n, 1, "arc", &v))
        return -1;
    if (kind == DIMACS_SP && tok_weight(r, &p, &w))
        return -1;
    if (end_of_line(r, p))
        return -1;
    graph_coo_add(g, u, v, w);
    if (kind != DIMACS_SP)
        graph_coo_add(g, v, u, w);
    return check_arcs(r, g);
}

static int read_dimacs(struct rd *r, struct graph_coo *g)
{
    enum dimacs_kind kind = DIMACS_NONE;
    uint64_t m = 0, lines = 0;
    for (char *p; (p = rd_next(r));) {
        char c = *skip_ws(p);
        if (!c || c == 'c')
            continue;
        if (c == 'p') {
            if (dimacs_problem(r, skip_ws(p), &kind, g, &m))
                return -1;
            continue;
        }
        if (kind == DIMACS_NONE)
            return rd_fail(r, "an arc before the problem line 'p sp N M'");
        bool ok = kind == DIMACS_SP ? c == 'a' : kind == DIMACS_EDGE ? c == 'e' : isdigit(c);
        if (!ok)
            return rd_fail(r, "expected %s", kind == DIMACS_SP     ? "an arc 'a U V W'"
                                             : kind == DIMACS_EDGE ? "an edge 'e U V'"
                                                                   : "an edge 'U V'");
        if (dimacs_arc(r, skip_ws(p), kind, g))
            return -1;
        lines++;
    }
    if (kind == DIMACS_NONE)
        return rd_fail(r, "no problem line 'p sp N M'");
    if (lines != m)
        return rd_fail(r, "%llu arcs, but the problem line says %llu", (unsigned long long)lines,
                       (unsigned long long)m);
    return 0;
}

/* ---- SNAP edge lists -------------------------------------------------------- */

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint32_t rank_of(const uint64_t *ids, size_t n, uint64_t id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ids[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (uint32_t)lo;
}

/* Vertex ids are compacted to 0..n-1 in increasing order of the file's ids. */
static void snap_compact(struct graph_coo *g, uint64_t *raw)
{
    size_t nids = 2 * g->m, n = 0;
    uint64_t *ids = xmalloc((nids ? nids : 1) * sizeof *ids);
    memcpy(ids, raw, nids * sizeof *ids);
    qsort(ids, nids, sizeof *ids, u64_cmp);
    for (size_t i = 0; i < nids; i++)
        if (!n || ids[n - 1] != ids[i])
            ids[n++] = ids[i];
    for (uint64_t i = 0; i < g->m; i++) {
        g->src[i] = rank_of(ids, n, raw[2 * i]);
        g->dst[i] = rank_of(ids, n, raw[2 * i + 1]);
    }
    g->n = (uint32_t)n;
    free(ids);
}

static int snap_line(struct rd *r, char *p, struct graph_coo *g, uint64_t **raw, size_t *cap,
                     int *weighted)
{
    int64_t u, v, w = 1;
    if (tok_int(&p, &u) <= 0 || tok_int(&p, &v) <= 0 || u < 0 || v < 0)
        return rd_fail(r, "expected an edge 'U V' of non-negative vertex ids");
    int has_w = tok_int(&p, &w);
    if (has_w < 0 || (has_w && (w < 0 || w > INT32_MAX)))
        return rd_fail(r, "expected an integer weight 0..%d after the edge", INT32_MAX);
    if (*weighted >= 0 && *weighted != has_w)
        return rd_fail(r, "some edges have a weight and some do not");
    *weighted = has_w;
    if (end_of_line(r, p))
        return -1;
    *raw = xgrow(*raw, 2 * sizeof **raw, cap, g->m + 1);
    (*raw)[2 * g->m] = (uint64_t)u;
    (*raw)[2 * g->m + 1] = (uint64_t)v;
    graph_coo_add(g, 0, 0, (int32_t)w);
    return check_arcs(r, g);
}

static int read_snap(struct rd *r, struct graph_coo *g)
{
    uint64_t *raw = NULL;
    size_t cap = 0;
    int weighted = -1, rc = 0;
    for (char *p; !rc && (p = rd_next(r));) {
        char c = *skip_ws(p);
        if (c && c != '#' && c != '%')
            rc = snap_line(r, p, g, &raw, &cap, &weighted);
    }
    if (!rc && g->m > INT32_MAX / 2)
        rc = rd_fail(r, "too many vertex ids");
    if (!rc) {
        snap_compact(g, raw);
        g->weighted = weighted > 0;
    }
    free(raw);
    return rc;
}

/* ---- METIS adjacency lists ------------------------------------------------ */

struct metis_fmt {
    bool ew;      /* edge weights */
    unsigned vw;  /* vertex weights per vertex */
    bool vsize;   /* a vertex size first */
};

static char *metis_next(struct rd *r)
{
    for (char *p; (p = rd_next(r));)
        if (*p != '%')
            return p;
    return NULL;
}

static int metis_header(struct rd *r, char *p, uint64_t *n, uint64_t *m, struct metis_fmt *f)
{
    int64_t fmt = 0, ncon = 1;
    if (tok_count(r, &p, INT32_MAX, "vertex count", n) || tok_count(r, &p, GRAPH_MAX_ARCS / 2, "edge count", m))
        return -1;
    if (tok_int(&p, &fmt) < 0 || tok_int(&p, &ncon) < 0 || end_of_line(r, p))
        return rd_fail(r, "header: expected 'N M [FMT [NCON]]'");
    if (fmt < 0 || fmt > 111 || fmt % 10 > 1 || fmt / 10 % 10 > 1 || ncon < 1 || ncon > 64)
        return rd_fail(r, "header: FMT must be 0, 1, 10, 11, 100, 101, 110 or 111 and NCON 1..64");
    *f = (struct metis_fmt){.ew = fmt % 10, .vw = fmt / 10 % 10 ? (unsigned)ncon : 0,
                            .vsize = fmt / 100};
    return 0;
}

static int metis_vertex(struct rd *r, char *p, uint32_t u, const struct metis_fmt *f,
                        struct graph_coo *g)
{
    int64_t skip;
    for (unsigned i = 0; i < f->vw + f->vsize; i++)
        if (tok_int(&p, &skip) <= 0)
            return rd_fail(r, "vertex %u: expected its size and weights first", u + 1);
    while (!blank(p)) {
        uint32_t v;
        int32_t w = 1;
        if (tok_vertex(r, &p, g->n, 1, "neighbour", &v) || (f->ew && tok_weight(r, &p, &w)))
            return -1;
        graph_coo_add(g, u, v, w);
        if (check_arcs(r, g))
            return -1;
    }
    return 0;
}

static int read_metis(struct rd *r, struct graph_coo *g)
{
    char *p = metis_next(r);
    uint64_t n = 0, m = 0;
    struct metis_fmt f = {0};
    if (!p)
        return rd_fail(r, "empty file: expected the header 'N M [FMT [NCON]]'");
    if (metis_header(r, p, &n, &m, &f))
        return -1;
    g->n = (uint32_t)n;
    g->weighted = f.ew;
    for (uint32_t u = 0; u < n; u++) {
        if (!(p = metis_next(r)))
            return rd_fail(r, "%llu vertex lines, but the header says %llu", (unsigned long long)u,
                           (unsigned long long)n);
        if (metis_vertex(r, p, u, &f, g))
            return -1;
    }
    while ((p = metis_next(r)))
        if (!blank(p))
            return rd_fail(r, "more vertex lines than the header's %llu", (unsigned long long)n);
    if (g->m != 2 * m)
        return rd_fail(r, "%llu neighbour entries, but the header's %llu edges need %llu",
                       (unsigned long long)g->m, (unsigned long long)m, (unsigned long long)(2 * m));
    return 0;
}

/* ---- Matrix Market ------------------------------------------------------- */

static int mtx_banner(struct rd *r, bool *sym)
{
    char *p = rd_next(r);
    char obj[32], fmt[32], field[32], symm[32];
    if (!p || strncmp(p, "%%MatrixMarket", 14) ||
        sscanf(p + 14, "%31s %31s %31s %31s", obj, fmt, field, symm) != 4)
        return rd_fail(r, "expected '%%%%MatrixMarket matrix coordinate FIELD SYMMETRY'");
    for (char *s = obj; *s; s++)
        *s = (char)tolower((unsigned char)*s);
    for (char *s = fmt; *s; s++)
        *s = (char)tolower((unsigned char)*s);
    for (char *s = symm; *s; s++)
        *s = (char)tolower((unsigned char)*s);
    if (strcmp(obj, "matrix") || strcmp(fmt, "coordinate"))
        return rd_fail(r, "only 'matrix coordinate' files hold a graph (got '%s %s')", obj, fmt);
    *sym = strcmp(symm, "general") != 0;
    if (*sym && strcmp(symm, "symmetric") && strcmp(symm, "skew-symmetric") &&
        strcmp(symm, "hermitian"))
        return rd_fail(r, "unknown symmetry '%s'", symm);
    return 0;
}

static int mtx_entry(struct rd *r, char *p, uint64_t rows, uint64_t cols, bool sym,
                     struct graph_coo *g)
{
    uint32_t i, j;
    if (tok_vertex(r, &p, rows, 1, "entry row", &i) || tok_vertex(r, &p, cols, 1, "entry column", &j))
        return -1;
    if (i == j) /* the diagonal is not an edge */
        return 0;
    graph_coo_add(g, i, j, 1);
    if (sym)
        graph_coo_add(g, j, i, 1);
    return check_arcs(r, g);
}

static int read_mtx(struct rd *r, struct graph_coo *g)
{
    bool sym;
    if (mtx_banner(r, &sym))
        return -1;
    char *p;
    while ((p = rd_next(r)) && (*p == '%' || blank(p)))
        ;
    uint64_t rows = 0, cols = 0, nnz = 0, seen = 0;
    if (!p)
        return rd_fail(r, "no size line 'ROWS COLS ENTRIES'");
    if (tok_count(r, &p, INT32_MAX, "row count", &rows) || tok_count(r, &p, INT32_MAX, "column count", &cols) ||
        tok_count(r, &p, GRAPH_MAX_ARCS, "entry count", &nnz))
        return -1;
    if (end_of_line(r, p))
        return -1;
    g->n = (uint32_t)max_u64(rows, cols);
    while ((p = rd_next(r))) {
        if (*p == '%' || blank(p))
            continue;
        if (mtx_entry(r, p, rows, cols, sym, g))
            return -1;
        seen++;
    }
    if (seen != nnz)
        return rd_fail(r, "%llu entries, but the size line says %llu", (unsigned long long)seen,
                       (unsigned long long)nnz);
    return 0;
}

/* ---- Rodinia BFS: n, n x (start degree), source, m, m x (id cost) ---------- */

struct tok_rd {
    struct rd *r;
    char *p;
};

/* The next integer of a whitespace-separated stream spanning lines. */
static int next_int(struct tok_rd *t, const char *what, int64_t *v)
{
    for (;;) {
        if (t->p) {
            int rc = tok_int(&t->p, v);
            if (rc > 0)
                return 0;
            if (rc < 0)
                return rd_fail(t->r, "%s: expected an integer", what);
        }
        if (!(t->p = rd_next(t->r)))
            return rd_fail(t->r, "unexpected end of file: expected the %s", what);
    }
}

static int rodinia_nodes(struct tok_rd *t, uint64_t n, uint32_t *start, uint32_t *deg)
{
    for (uint64_t i = 0; i < n; i++) {
        int64_t s, d;
        if (next_int(t, "node start", &s) || next_int(t, "node degree", &d))
            return -1;
        if (s < 0 || d < 0 || s > INT32_MAX || d > INT32_MAX)
            return rd_fail(t->r, "node %llu: start %lld, degree %lld", (unsigned long long)i,
                           (long long)s, (long long)d);
        start[i] = (uint32_t)s;
        deg[i] = (uint32_t)d;
    }
    return 0;
}

static int rodinia_edges(struct tok_rd *t, uint64_t m, uint32_t n, uint32_t *id, int32_t *cost)
{
    for (uint64_t i = 0; i < m; i++) {
        int64_t v, c;
        if (next_int(t, "edge id", &v) || next_int(t, "edge cost", &c))
            return -1;
        if (v < 0 || v >= n)
            return rd_fail(t->r, "edge %llu: vertex %lld outside 0..%u", (unsigned long long)i,
                           (long long)v, n - 1);
        if (c < 0 || c > INT32_MAX)
            return rd_fail(t->r, "edge %llu: cost %lld outside 0..%d", (unsigned long long)i,
                           (long long)c, INT32_MAX);
        id[i] = (uint32_t)v;
        cost[i] = (int32_t)c;
    }
    return 0;
}

static int rodinia_build(struct tok_rd *t, struct graph_coo *g, const uint32_t *start,
                         const uint32_t *deg, const uint32_t *id, const int32_t *cost, uint64_t m)
{
    for (uint32_t u = 0; u < g->n; u++) {
        if ((uint64_t)start[u] + deg[u] > m)
            return rd_fail(t->r, "node %u: edges %u..%llu outside the %llu-edge list", u,
                           start[u], (unsigned long long)start[u] + deg[u] - 1,
                           (unsigned long long)m);
        for (uint32_t j = 0; j < deg[u]; j++)
            graph_coo_add(g, u, id[start[u] + j], cost[start[u] + j]);
        if (check_arcs(t->r, g))
            return -1;
    }
    return 0;
}

static int read_rodinia(struct rd *r, struct graph_coo *g)
{
    struct tok_rd t = {r, NULL};
    int64_t n, src, m;
    if (next_int(&t, "node count", &n))
        return -1;
    if (n < 0 || n > INT32_MAX)
        return rd_fail(r, "node count %lld outside 0..%d", (long long)n, INT32_MAX);
    uint32_t *start = xcalloc((size_t)n + 1, sizeof *start), *deg = xcalloc((size_t)n + 1, sizeof *deg);
    uint32_t *id = NULL;
    int32_t *cost = NULL;
    g->n = (uint32_t)n;
    g->weighted = true;
    int rc = rodinia_nodes(&t, (uint64_t)n, start, deg);
    if (!rc && (next_int(&t, "source node", &src) || next_int(&t, "edge count", &m)))
        rc = -1;
    if (!rc && (m < 0 || (uint64_t)m > GRAPH_MAX_ARCS))
        rc = rd_fail(r, "edge count %lld outside 0..%llu", (long long)m, GRAPH_MAX_ARCS);
    if (!rc) {
        id = xmalloc(((size_t)m + 1) * sizeof *id);
        cost = xmalloc(((size_t)m + 1) * sizeof *cost);
        rc = rodinia_edges(&t, (uint64_t)m, g->n, id, cost);
    }
    if (!rc)
        rc = rodinia_build(&t, g, start, deg, id, cost, (uint64_t)m);
    free(start);
    free(deg);
    free(id);
    free(cost);
    return rc;
}

/* ---- format detection and reading --------------------------------------- */

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcasecmp(s + a - b, suffix);
}

/* By the first line with text: a banner, a DIMACS line, a comment or numbers. */
static enum graph_fmt sniff(struct rd *r)
{
    for (char *p; (p = rd_next(r));) {
        p = skip_ws(p);
        if (!*p)
            continue;
        if (!strncmp(p, "%%MatrixMarket", 14))
            return GRAPH_MTX;
        if (*p == 'c' || *p == 'p')
            return GRAPH_DIMACS;
        if (*p == '#')
            return GRAPH_SNAP;
        int64_t v;
        int count = 0;
        while (tok_int(&p, &v) > 0)
            count++;
        return count == 1 ? GRAPH_RODINIA : count == 2 ? GRAPH_SNAP : GRAPH_AUTO;
    }
    return GRAPH_AUTO;
}

static enum graph_fmt detect(struct rd *r)
{
    if (ends_with(r->path, ".gr") || ends_with(r->path, ".dimacs") || ends_with(r->path, ".col"))
        return GRAPH_DIMACS;
    if (ends_with(r->path, ".graph") || ends_with(r->path, ".metis"))
        return GRAPH_METIS;
    if (ends_with(r->path, ".mtx"))
        return GRAPH_MTX;
    if (ends_with(r->path, ".edgelist") || ends_with(r->path, ".el"))
        return GRAPH_SNAP;
    enum graph_fmt f = sniff(r);
    rewind(r->f);
    r->no = 0;
    return f;
}

int graph_read(struct graph_coo *g, const char *path, enum graph_fmt fmt, struct err *e)
{
    struct rd r = {.path = path, .e = e};
    *g = (struct graph_coo){0};
    if (!(r.f = fopen(path, "r")))
        return err_set(e, "%s: cannot open: %s", path, strerror(errno));
    if (fmt == GRAPH_AUTO)
        fmt = detect(&r);
    int rc;
    switch (fmt) {
    case GRAPH_DIMACS: rc = read_dimacs(&r, g); break;
    case GRAPH_SNAP: rc = read_snap(&r, g); break;
    case GRAPH_METIS: rc = read_metis(&r, g); break;
    case GRAPH_MTX: rc = read_mtx(&r, g); break;
    case GRAPH_RODINIA: rc = read_rodinia(&r, g); break;
    default:
        r.no = 0;
        rc = rd_fail(&r, "cannot tell the graph format: set workload.format");
    }
    if (!rc && ferror(r.f))
        rc = rd_fail(&r, "read error: %s", strerror(errno));
    free(r.line);
    fclose(r.f);
    if (rc)
        graph_coo_free(g);
    return rc;
}

void graph_induce(struct graph_coo *g, uint32_t max)
{
    if (!max || max >= g->n)
        return;
    uint64_t out = 0;
    for (uint64_t i = 0; i < g->m; i++) {
        if (g->src[i] >= max || g->dst[i] >= max)
            continue;
        g->src[out] = g->src[i];
        g->dst[out] = g->dst[i];
        g->w[out++] = g->w[i];
    }
    g->m = out;
    g->n = max;
}

void graph_set_weights(struct graph_coo *g, enum graph_weights how, uint64_t seed)
{
    if (how == GRAPH_W_AUTO && g->weighted)
        return;
    for (uint64_t i = 0; i < g->m; i++) {
        uint64_t lo = min_u64(g->src[i], g->dst[i]), hi = max_u64(g->src[i], g->dst[i]);
        g->w[i] = how == GRAPH_W_UNIT ? 1 : (int32_t)(1 + hash64(seed ^ hash64(lo << 32 | hi)) % 100);
    }
    g->weighted = false;
}

/* ---- generators ------------------------------------------------------------ */

void graph_gen_rodinia(struct graph_coo *g, uint32_t n, uint64_t seed)
{
    struct rng r;
    rng_seed(&r, seed);
    *g = (struct graph_coo){.n = n, .weighted = true};
    for (uint32_t i = 0; i < n; i++) {
        unsigned k = 2 + (unsigned)rng_below(&r, 3); /* MIN_EDGES..MAX_INIT_EDGES */
        for (unsigned j = 0; j < k; j++) {
            uint32_t t = (uint32_t)rng_below(&r, n);
            int32_t w = 1 + (int32_t)rng_below(&r, 10); /* MIN_WEIGHT..MAX_WEIGHT */
            graph_coo_add(g, i, t, w); /* graph[i].push_back(t), then graph[t].push_back(i) */
            graph_coo_add(g, t, i, w);
        }
    }
}

void graph_gen_uniform(struct graph_coo *g, uint32_t n, uint64_t m, uint32_t max_w, uint64_t seed)
{
    struct rng r;
    rng_seed(&r, seed);
    struct graph_coo raw = {.n = n};
    for (uint64_t i = 0; i < m; i++) {
        uint32_t u = (uint32_t)rng_below(&r, n);
        uint32_t v = n > 1 ? (uint32_t)rng_below(&r, n - 1) : 0;
        v += n > 1 && v >= u; /* no self-loops */
        graph_coo_add(&raw, u, v, (int32_t)rng_below(&r, max_w));
    }
    /* in increasing order of the source, as the Pannotia files list them */
    struct graph c;
    graph_csr(&c, &raw, false);
    *g = (struct graph_coo){.n = n, .weighted = true};
    for (uint32_t u = 0; u < n; u++)
        for (uint32_t i = c.row[u]; i < c.row[u + 1]; i++)
            graph_coo_add(g, u, c.col[i], c.w[i]);
    graph_free(&c);
    graph_coo_free(&raw);
}

/* Union-find over vertices, for the road generator's spanning structure. */
static uint32_t uf_find(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

static bool uf_join(uint32_t *parent, uint32_t a, uint32_t b)
{
    a = uf_find(parent, a);
    b = uf_find(parent, b);
    if (a == b)
        return false;
    parent[a < b ? b : a] = a < b ? a : b;
    return true;
}

#define ROAD_HIGHWAY 8 /* a highway every 8 rows and every 8 columns */

struct road {
    uint32_t n, side;
    uint64_t *cand; /* candidate edges u << 32 | v: grid neighbours */
    uint64_t ncand;
    uint64_t *pick; /* chosen edges */
    uint64_t npick;
};

static void road_candidates(struct road *rd, struct rng *r)
{
    rd->cand = xmalloc(2 * (uint64_t)rd->n * sizeof *rd->cand + 8);
    uint64_t nh = 0; /* highway edges first, then local ones shuffled */
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t v = 0; v < rd->n; v++) {
            uint32_t x = v % rd->side, y = v / rd->side;
            bool right = x + 1 < rd->side && v + 1 < rd->n, down = v + rd->side < rd->n;
            bool hw_r = y % ROAD_HIGHWAY == 0, hw_d = x % ROAD_HIGHWAY == 0;
            if (right && hw_r == !pass)
                rd->cand[rd->ncand++] = (uint64_t)v << 32 | (v + 1);
            if (down && hw_d == !pass)
                rd->cand[rd->ncand++] = (uint64_t)v << 32 | (v + rd->side);
            if (!pass)
                nh = rd->ncand;
        }
    for (uint64_t i = rd->ncand; i > nh + 1; i--) { /* Fisher-Yates over the local edges */
        uint64_t j = nh + rng_below(r, i - nh), t = rd->cand[i - 1];
        rd->cand[i - 1] = rd->cand[j];
        rd->cand[j] = t;
    }
}

/* Highways, then local roads that join new vertices (a random spanning
 * forest hanging off the highways), then extra local roads (loops). */
static uint64_t road_pick(struct road *rd, uint64_t nhw_end, uint64_t edges)
{
    uint32_t *parent = xmalloc((size_t)rd->n * sizeof *parent);
    for (uint32_t v = 0; v < rd->n; v++)
        parent[v] = v;
    uint64_t *rest = xmalloc((rd->ncand + 1) * sizeof *rest), nrest = 0;
    rd->pick = xmalloc((rd->ncand + 1) * sizeof *rd->pick);
    for (uint64_t i = 0; i < rd->ncand; i++) {
        uint64_t c = rd->cand[i];
        if (uf_join(parent, (uint32_t)(c >> 32), (uint32_t)c) || i < nhw_end)
            rd->pick[rd->npick++] = c;
        else
            rest[nrest++] = c;
    }
    uint64_t need = rd->npick;
    for (uint64_t i = 0; i < nrest && rd->npick < edges; i++)
        rd->pick[rd->npick++] = rest[i];
    free(rest);
    free(parent);
    return need;
}

static uint64_t road_highways(uint32_t n, uint32_t side)
{
    uint64_t h = 0;
    for (uint32_t v = 0; v < n; v++) {
        uint32_t x = v % side, y = v / side;
        h += x + 1 < side && v + 1 < n && y % ROAD_HIGHWAY == 0;
        h += v + side < n && x % ROAD_HIGHWAY == 0;
    }
    return h;
}

static uint32_t road_side(uint32_t n)
{
    uint32_t s = (uint32_t)sqrt((double)n);
    while ((uint64_t)s * s < n)
        s++;
    return s ? s : 1;
}

uint64_t graph_road_min_edges(uint32_t n)
{
    struct road rd = {.n = n, .side = road_side(n)};
    struct rng r;
    rng_seed(&r, 0);
    road_candidates(&rd, &r);
    uint64_t need = road_pick(&rd, road_highways(n, rd.side), 0);
    free(rd.cand);
    free(rd.pick);
    return need;
}

static int road_edge_cmp(const void *a, const void *b)
{
    return u64_cmp(a, b);
}

int graph_gen_road(struct graph_coo *g, uint32_t n, uint64_t edges, uint64_t seed, struct err *e)
{
    struct road rd = {.n = n, .side = road_side(n)};
    struct rng r;
    rng_seed(&r, seed);
    road_candidates(&rd, &r);
    uint64_t need = road_pick(&rd, road_highways(n, rd.side), edges ? edges : UINT64_MAX);
    if (!edges) { /* AK.gr's edges per vertex */
        edges = max_u64(graph_road_edges(n), need);
        rd.npick = min_u64(edges, rd.npick);
    }
    if (edges < need || edges > rd.ncand) {
        err_set(e, "a road graph of %u vertices has %llu..%llu edges", n,
                (unsigned long long)need, (unsigned long long)rd.ncand);
        free(rd.cand);
        free(rd.pick);
        return -1;
    }
    double *px = xmalloc(2 * (size_t)n * sizeof *px + 16);
    for (uint32_t v = 0; v < n; v++) { /* a jittered position inside the grid cell */
        px[2 * v] = v % rd.side + 0.2 + 0.6 * rng_unit(&r);
        px[2 * v + 1] = v / rd.side + 0.2 + 0.6 * rng_unit(&r);
    }
    qsort(rd.pick, rd.npick, sizeof *rd.pick, road_edge_cmp);
    *g = (struct graph_coo){.n = n, .weighted = true};
    for (uint64_t i = 0; i < rd.npick; i++) {
        uint32_t u = (uint32_t)(rd.pick[i] >> 32), v = (uint32_t)rd.pick[i];
        double d = hypot(px[2 * u] - px[2 * v], px[2 * u + 1] - px[2 * v + 1]);
        int32_t w = (int32_t)fmax(1.0, floor(100.0 * d + 0.5)); /* distance, 100 per cell */
        graph_coo_add(g, u, v, w);
        graph_coo_add(g, v, u, w);
    }
    free(px);
    free(rd.cand);
    free(rd.pick);
    return 0;
}

/* ---- CSR -------------------------------------------------------------------- */

void graph_csr(struct graph *c, const struct graph_coo *g, bool transpose)
{
    BUG_ON(g->m > GRAPH_MAX_ARCS);
    const uint32_t *from = transpose ? g->dst : g->src, *to = transpose ? g->src : g->dst;
    *c = (struct graph){.n = g->n, .m = (uint32_t)g->m};
    c->row = xcalloc((size_t)g->n + 1, sizeof *c->row);
    c->col = xmalloc((g->m + 1) * sizeof *c->col);
    c->w = xmalloc((g->m + 1) * sizeof *c->w);
    for (uint64_t i = 0; i < g->m; i++)
        c->row[from[i] + 1]++;
    for (uint32_t v = 0; v < g->n; v++)
        c->row[v + 1] += c->row[v];
    uint32_t *fill = xmalloc(((size_t)g->n + 1) * sizeof *fill);
    memcpy(fill, c->row, ((size_t)g->n + 1) * sizeof *fill);
    for (uint64_t i = 0; i < g->m; i++) { /* stable: arcs keep their input order */
        uint32_t k = fill[from[i]]++;
        c->col[k] = to[i];
        c->w[k] = g->w[i];
    }
    free(fill);
}

void graph_free(struct graph *c)
{
    free(c->row);
    free(c->col);
    free(c->w);
    *c = (struct graph){0};
}

int graph_load_road(struct graph_coo *g, const struct cfg_sec *sec, uint64_t seed, struct err *e)
{
    int rc = graph_load(g, sec, e);
    if (rc <= 0)
        return rc;
    struct err why;
    if (graph_gen_road(g, (uint32_t)cfg_uint(sec, "nodes"), cfg_uint(sec, "edges"), seed, &why))
        return cfg_err(e, sec, "edges", "%s", why.msg);
    return 0;
}

int graph_load(struct graph_coo *g, const struct cfg_sec *sec, struct err *e)
{
    const char *path = cfg_str(sec, "input");
    if (!*path)
        return 1;
    if (graph_read(g, path, (enum graph_fmt)cfg_enum(sec, "format"), e))
        return -1;
    graph_induce(g, (uint32_t)cfg_uint(sec, "max_nodes"));
    if (!g->n) {
        graph_coo_free(g);
        return err_set(e, "%s: the graph has no vertices", path);
    }
    return 0;
}
