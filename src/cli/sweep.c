/*
 * sweep.c -- reading a sweep file and expanding it into runs (sweep.h;
 * the format is in docs/sweeps.md).
 *
 * [sweep] holds the database path, overrides for every run and the default
 * matrix keys; each [matrix NAME] is one matrix (inheriting [sweep]'s
 * keys), or [sweep] is the only matrix when there is none. [workload NAME]
 * sections give workload parameters for every run of that workload, and
 * machine overrides (section.key) for them alone. A
 * matrix is the product of its configs, workloads, schemes, chiplet counts
 * and axes (keys named section.key with a list of values); runs that two
 * matrices share are run once.
 */
#include "sweep.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/setup.h"
#include "config/cfg.h"
#include "coherence/coh.h"
#include "workload/wl.h"

struct strv {
    char **v;
    size_t n, cap;
};

static void strv_add(struct strv *s, const char *x)
{
    s->v = xgrow(s->v, sizeof *s->v, &s->cap, s->n + 1);
    s->v[s->n++] = xstrdup(x);
}

static void strv_free(struct strv *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
    *s = (struct strv){0};
}

struct axis {
    char *key;           /* section.key */
    struct strv vals;
};

/* One matrix; an empty list means "not set here" (inherit, or no override). */
struct matrix {
    char *name;
    int line;            /* of the section header's first key, for errors */
    struct strv configs, workloads, schemes, chiplets, set;
    struct axis *axes;
    size_t naxes, axes_cap;
    int small;           /* -1 unset, 0, 1 */
};

struct wlset {
    char *name;
    struct strv set;     /* workload.key=value, or section.key=value */
};

struct parse {
    struct sweep *sw;
    struct err *e;
    struct matrix top;   /* [sweep] */
    struct matrix *m;    /* [matrix NAME] sections */
    size_t nm, mcap;
    struct wlset *w;
    size_t nw, wcap;
    char *db;
    bool skip_sections;  /* [workload NAME] sections are checked, not applied */
};

/* Split a list on commas and white space. */
static void split(struct strv *out, const char *list)
{
    const char *p = list;
    while (*p) {
        p += strspn(p, ", \t");
        size_t len = strcspn(p, ", \t");
        if (!len)
            break;
        char *x = strndup(p, len);
        strv_add(out, x);
        free(x);
        p += len;
    }
}

static int perr(struct parse *x, int line, const char *section, const char *key, const char *fmt,
                const char *arg)
{
    char msg[300];
    snprintf(msg, sizeof msg, fmt, arg);
    return err_set(x->e, "%s:%d: [%s] %s: %s", x->sw->path, line, section, key, msg);
}

static struct matrix *matrix_of(struct parse *x, const char *section, int line)
{
    if (!strcmp(section, "sweep"))
        return &x->top;
    const char *name = section + strlen("matrix");
    name += strspn(name, " \t");
    for (size_t i = 0; i < x->nm; i++)
        if (!strcmp(x->m[i].name, name))
            return &x->m[i];
    x->m = xgrow(x->m, sizeof *x->m, &x->mcap, x->nm + 1);
    x->m[x->nm] = (struct matrix){.name = xstrdup(name), .line = line, .small = -1};
    return &x->m[x->nm++];
}

/* A relative path in a sweep file is relative to the file's directory;
 * shown relative to the current directory when it lies below it. */
static void rebase(const char *sweep_path, char **p)
{
    const char *slash = strrchr(sweep_path, '/');
    if (**p == '/' || !slash)
        return;
    char joined[PATH_MAX], real[PATH_MAX], cwd[PATH_MAX];
    snprintf(joined, sizeof joined, "%.*s/%s", (int)(slash - sweep_path), sweep_path, *p);
    const char *use = joined;
    if (realpath(joined, real) && getcwd(cwd, sizeof cwd)) {
        size_t n = strlen(cwd);
        use = !strncmp(real, cwd, n) && real[n] == '/' ? real + n + 1 : real;
    }
    free(*p);
    *p = xstrdup(use);
}

static int check_names(struct parse *x, const struct strv *v, int line, const char *section,
                       const char *key, bool workloads)
{
    for (size_t i = 0; i < v->n; i++) {
        if (workloads && strcmp(v->v[i], "all") && !wl_find(v->v[i]))
            return perr(x, line, section, key, "unknown workload '%s' (see chipsim list workloads)",
                        v->v[i]);
        if (!workloads && !coh_find(v->v[i]))
            return perr(x, line, section, key, "unknown scheme '%s' (see chipsim list schemes)",
                        v->v[i]);
    }
    return 0;
}

static int check_overrides(struct parse *x, const struct strv *v, int line, const char *section,
                           const char *key)
{
    for (size_t i = 0; i < v->n; i++) {
        const char *eq = strchr(v->v[i], '='), *dot = strchr(v->v[i], '.');
        if (!eq || !dot || dot > eq || dot == v->v[i])
            return perr(x, line, section, key, "'%s': expected section.key=value", v->v[i]);
    }
    return 0;
}

/* A `configs` entry: a file, or files joined by '+' (loaded in order, as
 * `chipsim run -c A+B`), each relative to the sweep file and readable. */
static int rebase_configs(struct parse *x, char **entry, int line, const char *section,
                          const char *key)
{
    char *all = xstrdup(*entry), *save = NULL, *out = NULL;
    int bad = 0;
    for (char *f = strtok_r(all, "+", &save); f && !bad; f = strtok_r(NULL, "+", &save)) {
        char *one = xstrdup(f);
        rebase(x->sw->path, &one);
        bad = access(one, R_OK) ? perr(x, line, section, key, "cannot read config file '%s'", f)
                                : 0;
        char *joined = out ? xasprintf("%s+%s", out, one) : xstrdup(one);
        free(out);
        free(one);
        out = joined;
    }
    free(all);
    if (!out && !bad)
        bad = perr(x, line, section, key, "'%s': no config file", *entry);
    free(*entry);
    *entry = out ? out : xstrdup("");
    return bad;
}

static int matrix_key(struct parse *x, struct matrix *m, const char *section, const char *key,
                      const char *value, int line)
{
    struct strv *lists[] = {&m->configs, &m->workloads, &m->schemes, &m->chiplets};
    const char *names[] = {"configs", "workloads", "schemes", "chiplets"};
    for (size_t i = 0; i < 4; i++) {
        if (strcmp(key, names[i]))
            continue;
        /* a key given again (or continued on an indented line) adds to its list */
        size_t from = lists[i]->n;
        split(lists[i], value);
        if (lists[i]->n == from)
            return perr(x, line, section, key, "empty list%s", "");
        struct strv added = {lists[i]->v + from, lists[i]->n - from, 0};
        lists[i] = &added;
        if (i == 1 || i == 2)
            return check_names(x, lists[i], line, section, key, i == 1);
        for (size_t j = 0; i == 0 && j < lists[i]->n; j++)
            if (rebase_configs(x, &lists[i]->v[j], line, section, key))
                return -1;
        for (size_t j = 0; i == 3 && j < lists[i]->n; j++)
            if (strspn(lists[i]->v[j], "0123456789") != strlen(lists[i]->v[j]))
                return perr(x, line, section, key, "'%s' is not a chiplet count", lists[i]->v[j]);
        return 0;
    }
    if (!strcmp(key, "set")) {
        size_t from = m->set.n;
        split(&m->set, value);
        struct strv added = {m->set.v + from, m->set.n - from, 0};
        return check_overrides(x, &added, line, section, key);
    }
    if (!strcmp(key, "small")) {
        if (strcmp(value, "true") && strcmp(value, "false"))
            return perr(x, line, section, key, "'%s': expected true or false", value);
        m->small = !strcmp(value, "true");
        return 0;
    }
    if (!strcmp(key, "db") && m == &x->top) {
        free(x->db);
        x->db = xstrdup(value);
        rebase(x->sw->path, &x->db);
        return 0;
    }
    const char *dot = strchr(key, '.');
    if (!dot || dot == key || !dot[1])
        return perr(x, line, section, key,
                    "unknown key (configs, workloads, schemes, chiplets, small, set%s, or "
                    "section.key = values for an axis)",
                    m == &x->top ? ", db" : "");
    struct axis *a = NULL;
    for (size_t i = 0; i < m->naxes && !a; i++)
        if (!strcmp(m->axes[i].key, key))
            a = &m->axes[i]; /* given again or continued: more values */
    if (!a) {
        m->axes = xgrow(m->axes, sizeof *m->axes, &m->axes_cap, m->naxes + 1);
        a = &m->axes[m->naxes++];
        *a = (struct axis){.key = xstrdup(key)};
    }
    size_t from = a->vals.n;
    split(&a->vals, value);
    if (a->vals.n == from)
        return perr(x, line, section, key, "empty list%s", "");
    return 0;
}

static int on_key(void *user, const char *section, const char *key, const char *value, int line)
{
    struct parse *x = user;
    if (!strcmp(section, "sweep") || !strncmp(section, "matrix", 6))
        return matrix_key(x, matrix_of(x, section, line), section, key, value, line);
    if (!strncmp(section, "workload ", 9)) {
        const char *name = section + 9;
        if (!wl_find(name))
            return perr(x, line, section, key, "unknown workload '%s'", name);
        struct wlset *w = NULL;
        for (size_t i = 0; i < x->nw && !w; i++)
            if (!strcmp(x->w[i].name, name))
                w = &x->w[i];
        if (!w) {
            x->w = xgrow(x->w, sizeof *x->w, &x->wcap, x->nw + 1);
            w = &x->w[x->nw++];
            *w = (struct wlset){.name = xstrdup(name)};
        }
        if (x->skip_sections)
            return 0;
        char buf[512]; /* section.key: a machine override for this workload's runs */
        snprintf(buf, sizeof buf, "%s%s=%s", strchr(key, '.') ? "" : "workload.", key, value);
        strv_add(&w->set, buf);
        return 0;
    }
    return perr(x, line, section, key,
                "unknown section (expected [sweep], [matrix NAME] or [workload NAME])%s", "");
}

/* ---- expansion ------------------------------------------------------------- */

static const struct strv *pick(const struct strv *own, const struct strv *dflt)
{
    return own->n ? own : dflt;
}

static void add_run(struct sweep *sw, size_t *cap, const char *matrix, const char *config,
                    const char *wl, const struct strv *ov)
{
    size_t len = strlen(config) + strlen(wl) + 2;
    for (size_t i = 0; i < ov->n; i++)
        len += strlen(ov->v[i]) + 1;
    char *key = xmalloc(len + 1);
    char *p = key + sprintf(key, "%s %s", config, wl);
    for (size_t i = 0; i < ov->n; i++)
        p += sprintf(p, " %s", ov->v[i]);
    for (size_t i = 0; i < sw->nruns; i++)
        if (!strcmp(sw->runs[i].key, key)) { /* given again: one run, of both matrices */
            struct sweep_run *r = &sw->runs[i];
            char *both = xasprintf("%s %s", r->matrices, matrix);
            free(r->matrices);
            r->matrices = both;
            free(key);
            return;
        }
    sw->runs = xgrow(sw->runs, sizeof *sw->runs, cap, sw->nruns + 1);
    struct sweep_run *r = &sw->runs[sw->nruns++];
    *r = (struct sweep_run){.key = key, .config = xstrdup(config), .workload = xstrdup(wl),
                            .overrides = xcalloc(ov->n + 1, sizeof(char *)),
                            .noverrides = ov->n, .matrices = xstrdup(matrix)};
    for (size_t i = 0; i < ov->n; i++)
        r->overrides[i] = xstrdup(ov->v[i]);
}

/* The overrides of one point of the matrix, later ones winning: the
 * workload's small parameters, its [workload] section, [sweep]'s and the
 * matrix's set, one value per axis (idx), scheme and chiplets. */
static void point(const struct parse *x, const struct matrix *m, const char *wl, bool small,
                  const size_t *idx, const char *scheme, const char *chiplets, struct strv *ov)
{
    char buf[512];
    const struct wl_ops *w = wl_find(wl);
    for (const char *const *s = w->small; small && s && *s; s++) {
        snprintf(buf, sizeof buf, "workload.%s", *s);
        strv_add(ov, buf);
    }
    for (size_t i = 0; i < x->nw; i++)
        for (size_t j = 0; !strcmp(x->w[i].name, wl) && j < x->w[i].set.n; j++)
            strv_add(ov, x->w[i].set.v[j]);
    for (size_t i = 0; i < x->top.set.n; i++)
        strv_add(ov, x->top.set.v[i]);
    for (size_t i = 0; m != &x->top && i < m->set.n; i++)
        strv_add(ov, m->set.v[i]);
    const struct matrix *axm[2] = {&x->top, m};
    size_t k = 0;
    for (int t = 0; t < (m == &x->top ? 1 : 2); t++)
        for (size_t i = 0; i < axm[t]->naxes; i++, k++) {
            snprintf(buf, sizeof buf, "%s=%s", axm[t]->axes[i].key,
                     axm[t]->axes[i].vals.v[idx[k]]);
            strv_add(ov, buf);
        }
    if (scheme) {
        snprintf(buf, sizeof buf, "coherence.scheme=%s", scheme);
        strv_add(ov, buf);
    }
    if (chiplets) {
        snprintf(buf, sizeof buf, "gpu.chiplets=%s", chiplets);
        strv_add(ov, buf);
    }
}

/* Advance the axis odometer; false when every combination was visited. */
static bool next_point(const struct parse *x, const struct matrix *m, size_t *idx)
{
    const struct matrix *axm[2] = {&x->top, m};
    size_t k = 0, n = 0;
    const struct axis *all[64];
    for (int t = 0; t < (m == &x->top ? 1 : 2); t++)
        for (size_t i = 0; i < axm[t]->naxes && n < 64; i++)
            all[n++] = &axm[t]->axes[i];
    for (k = n; k-- > 0;) {
        if (++idx[k] < all[k]->vals.n)
            return true;
        idx[k] = 0;
    }
    return false;
}

static void expand(struct parse *x, const struct matrix *m, size_t *cap)
{
    const struct strv *cfgs = pick(&m->configs, &x->top.configs);
    const struct strv *wls = pick(&m->workloads, &x->top.workloads);
    const struct strv *sch = pick(&m->schemes, &x->top.schemes);
    const struct strv *chp = pick(&m->chiplets, &x->top.chiplets);
    bool small = m->small >= 0 ? m->small : x->top.small > 0;
    struct strv all = {0};
    if (wls->n == 1 && !strcmp(wls->v[0], "all")) {
        for (const struct wl_ops *const *w = wl_registry; *w; w++)
            if (!(*w)->needs_input) /* a trace runs only when named */
                strv_add(&all, (*w)->name);
        wls = &all;
    }
    size_t idx[64] = {0};
    for (size_t c = 0; c < cfgs->n; c++)
        for (size_t w = 0; w < wls->n; w++)
            for (size_t s = 0; s < (sch->n ? sch->n : 1); s++)
                for (size_t n = 0; n < (chp->n ? chp->n : 1); n++) {
                    memset(idx, 0, sizeof idx);
                    do {
                        struct strv ov = {0};
                        point(x, m, wls->v[w], small, idx, sch->n ? sch->v[s] : NULL,
                              chp->n ? chp->v[n] : NULL, &ov);
                        add_run(x->sw, cap, m->name ? m->name : "sweep", cfgs->v[c],
                                wls->v[w], &ov);
                        strv_free(&ov);
                    } while (next_point(x, m, idx));
                }
    strv_free(&all);
}

static int check_matrix(struct parse *x, const struct matrix *m)
{
    const char *what = !pick(&m->configs, &x->top.configs)->n     ? "configs"
                       : !pick(&m->workloads, &x->top.workloads)->n ? "workloads"
                                                                     : NULL;
    if (!what)
        return 0;
    if (m == &x->top)
        return err_set(x->e, "%s: [sweep]: no %s given", x->sw->path, what);
    return err_set(x->e, "%s:%d: [matrix %s]: no %s given (here or in [sweep])", x->sw->path,
                   m->line, m->name, what);
}

/* Resolve every run's configuration, so that a bad key or value is reported
 * now and not as a failure of every run. */
static int validate(const struct sweep *sw, struct err *e)
{
    for (size_t i = 0; i < sw->nruns; i++) {
        const struct sweep_run *r = &sw->runs[i];
        const char *cfgs[1] = {r->config};
        struct run_opts o = {.configs = cfgs, .nconfigs = 1, .workload = r->workload,
                             .overrides = (const char **)r->overrides,
                             .noverrides = r->noverrides};
        struct cfg c;
        cfg_init(&c);
        struct err ce;
        int rc = setup_config(&c, &o, &ce);
        cfg_free(&c);
        if (rc)
            return err_set(e, "%s: run '%s': %s", sw->path, r->key, ce.msg);
    }
    return 0;
}

static void parse_free(struct parse *x)
{
    for (size_t i = 0; i <= x->nm; i++) {
        struct matrix *m = i < x->nm ? &x->m[i] : &x->top;
        strv_free(&m->configs);
        strv_free(&m->workloads);
        strv_free(&m->schemes);
        strv_free(&m->chiplets);
        strv_free(&m->set);
        for (size_t a = 0; a < m->naxes; a++) {
            free(m->axes[a].key);
            strv_free(&m->axes[a].vals);
        }
        free(m->axes);
        free(m->name);
    }
    free(x->m);
    for (size_t i = 0; i < x->nw; i++) {
        free(x->w[i].name);
        strv_free(&x->w[i].set);
    }
    free(x->w);
    free(x->db);
}

static char *default_db(const char *path)
{
    size_t n = strlen(path);
    if (n > 4 && !strcmp(path + n - 4, ".ini"))
        n -= 4;
    char *db = xmalloc(n + 4);
    memcpy(db, path, n);
    strcpy(db + n, ".db");
    return db;
}

int sweep_load(struct sweep *sw, const char *path, struct err *e)
{
    return sweep_load_sections(sw, path, true, e);
}

int sweep_load_sections(struct sweep *sw, const char *path, bool sections, struct err *e)
{
    *sw = (struct sweep){.path = xstrdup(path)};
    struct parse x = {.sw = sw, .e = e, .top = {.small = -1}, .skip_sections = !sections};
    size_t cap = 0;
    int rc = cfg_parse_file(path, "sweep file", on_key, &x, e);
    for (size_t i = 0; !rc && i < (x.nm ? x.nm : 1); i++) {
        const struct matrix *m = x.nm ? &x.m[i] : &x.top;
        rc = check_matrix(&x, m);
        if (!rc)
            expand(&x, m, &cap);
    }
    if (!rc) {
        sw->db = x.db ? xstrdup(x.db) : default_db(path);
        rc = validate(sw, e);
    }
    parse_free(&x);
    if (rc)
        sweep_free(sw);
    return rc;
}

void sweep_run_free(struct sweep_run *r)
{
    for (size_t j = 0; j < r->noverrides; j++)
        free(r->overrides[j]);
    free(r->overrides);
    free(r->key);
    free(r->config);
    free(r->workload);
    free(r->matrices);
}

void sweep_filter(struct sweep *sw, const char *override)
{
    size_t k = 0;
    for (size_t i = 0; i < sw->nruns; i++) {
        bool keep = false;
        for (size_t j = 0; j < sw->runs[i].noverrides && !keep; j++)
            keep = !strcmp(sw->runs[i].overrides[j], override);
        if (keep)
            sw->runs[k++] = sw->runs[i];
        else
            sweep_run_free(&sw->runs[i]);
    }
    sw->nruns = k;
}

/* Does the space-separated list of names (NULL: empty) hold word, or with
 * prefix set, a name beginning with it? */
static bool list_has(const char *names, const char *word, bool prefix)
{
    size_t n = strlen(word);
    for (const char *p = names ? names : ""; *p; p += strcspn(p, " "), p += *p == ' ')
        if (!strncmp(p, word, n) && (prefix || p[n] == ' ' || !p[n]))
            return true;
    return false;
}

void sweep_keep_matrices(struct sweep *sw, const char *prefix)
{
    size_t k = 0;
    for (size_t i = 0; i < sw->nruns; i++) {
        if (list_has(sw->runs[i].matrices, prefix, true))
            sw->runs[k++] = sw->runs[i];
        else
            sweep_run_free(&sw->runs[i]);
    }
    sw->nruns = k;
}

/* Does the list name run r: its workload, or WORKLOAD@OVERRIDE for one of
 * its overrides? */
static bool run_listed(const char *names, const struct sweep_run *r)
{
    bool hit = list_has(names, r->workload, false);
    for (size_t i = 0; !hit && names && i < r->noverrides; i++) {
        char *w = xasprintf("%s@%s", r->workload, r->overrides[i]);
        hit = list_has(names, w, false);
        free(w);
    }
    return hit;
}

/* Append override to every run (names NULL) or to those names lists. */
static void add_override(struct sweep *sw, const char *override, const char *names)
{
    for (size_t i = 0; i < sw->nruns; i++) {
        struct sweep_run *r = &sw->runs[i];
        if (names && !run_listed(names, r))
            continue;
        r->overrides = xrealloc(r->overrides, (r->noverrides + 2) * sizeof *r->overrides);
        r->overrides[r->noverrides++] = xstrdup(override);
        r->overrides[r->noverrides] = NULL;
        size_t len = strlen(r->key) + strlen(override) + 2;
        char *key = xmalloc(len);
        snprintf(key, len, "%s %s", r->key, override);
        free(r->key);
        r->key = key;
    }
}

void sweep_add_override(struct sweep *sw, const char *override)
{
    add_override(sw, override, NULL);
}

void sweep_add_override_to(struct sweep *sw, const char *override, const char *names)
{
    add_override(sw, override, names ? names : "");
}

void sweep_free(struct sweep *sw)
{
    for (size_t i = 0; i < sw->nruns; i++)
        sweep_run_free(&sw->runs[i]);
    free(sw->runs);
    free(sw->path);
    free(sw->db);
    *sw = (struct sweep){0};
}
