/*
 * cfg.c -- INI loading (inih), -p overrides, resolution against key tables,
 * typed getters and the printers (resolved INI echo, parameter list, JSON).
 */
#include "cfg.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void cfg_init(struct cfg *c) { *c = (struct cfg){0}; }

void cfg_free(struct cfg *c)
{
    for (size_t i = 0; i < c->nsecs; i++) {
        struct cfg_sec *s = &c->secs[i];
        for (size_t j = 0; j < s->n; j++) {
            free(s->items[j].value);
            free(s->items[j].origin);
        }
        free(s->items);
        free(s->name);
    }
    for (size_t i = 0; i < c->nraw; i++) {
        free(c->raw[i].section);
        free(c->raw[i].key);
        free(c->raw[i].value);
        free(c->raw[i].file);
    }
    free(c->secs);
    free(c->raw);
    *c = (struct cfg){0};
}

static struct cfg_sec *sec_find(const struct cfg *c, const char *name)
{
    for (size_t i = 0; i < c->nsecs; i++)
        if (!strcmp(c->secs[i].name, name))
            return &c->secs[i];
    return NULL;
}

static struct cfg_item *item_find(const struct cfg_sec *s, const char *key)
{
    for (size_t j = 0; j < s->n; j++)
        if (!strcmp(s->items[j].key->name, key))
            return &s->items[j];
    return NULL;
}

static void set_item(struct cfg_item *it, const char *value, const char *origin)
{
    free(it->value);
    free(it->origin);
    it->value = xstrdup(value);
    it->origin = xstrdup(origin);
}

static const char *override_for(const char *const *defaults, const char *key)
{
    size_t n = strlen(key);
    for (; defaults && *defaults; defaults++)
        if (!strncmp(*defaults, key, n) && (*defaults)[n] == '=')
            return *defaults + n + 1;
    return NULL;
}

void cfg_define(struct cfg *c, const char *section, const char *help,
                const struct cfg_key *keys, const char *const *defaults)
{
    struct cfg_sec *s = sec_find(c, section);
    if (!s) {
        c->secs = xgrow(c->secs, sizeof *c->secs, &c->secs_cap, c->nsecs + 1);
        s = &c->secs[c->nsecs++];
        *s = (struct cfg_sec){.name = xstrdup(section), .help = help};
    }
    for (const struct cfg_key *k = keys; k && k->name; k++) {
        if (item_find(s, k->name))
            BUG("config key [%s] %s defined twice", section, k->name);
        const char *def = override_for(defaults, k->name);
        char buf[256];
        if (!def)
            def = k->def;
        const char *why = cfg_check_value(k, def, buf, sizeof buf);
        if (why)
            BUG("default of [%s] %s = %s: %s", section, k->name, def, why);
        s->items = xgrow(s->items, sizeof *s->items, &s->cap, s->n + 1);
        s->items[s->n] = (struct cfg_item){k, NULL, NULL};
        set_item(&s->items[s->n++], def, "default");
    }
    for (const char *const *d = defaults; d && *d; d++) {
        const char *eq = strchr(*d, '=');
        char key[128];
        snprintf(key, sizeof key, "%.*s", eq ? (int)(eq - *d) : 0, *d);
        if (!eq || !item_find(s, key))
            BUG("default override '%s' names no key of [%s]", *d, section);
    }
}

void cfg_load_value(struct cfg *c, const char *sec, const char *key, const char *val,
                    const char *file, int line)
{
    c->raw = xgrow(c->raw, sizeof *c->raw, &c->raw_cap, c->nraw + 1);
    c->raw[c->nraw++] = (struct cfg_raw){xstrdup(sec), xstrdup(key), xstrdup(val),
                                         xstrdup(file), line};
}

/* inih calls the reader once per physical line (lines fit INI_MAX_LINE or
 * are rejected), so counting reader calls gives the line of each handler call. */
struct ini_ctx {
    cfg_ini_fn fn;
    void *user;
    const char *name;
    const char *text;  /* for string input */
    FILE *f;           /* for file input */
    int line;
    bool too_long;
    int too_long_line;
    bool failed;       /* fn reported an error: later lines are not passed on */
};

static char *ctx_reader(char *str, int num, void *stream)
{
    struct ini_ctx *x = stream;
    char *r;
    if (x->f) {
        r = fgets(str, num, x->f);
    } else {
        if (!*x->text)
            return NULL;
        size_t len = strcspn(x->text, "\n");
        if (x->text[len] == '\n')
            len++;
        if (len > (size_t)num - 1)
            len = (size_t)num - 1;
        memcpy(str, x->text, len);
        str[len] = 0;
        x->text += len;
        r = str;
    }
    if (!r)
        return NULL;
    x->line++;
    size_t n = strlen(str);
    if (n == (size_t)num - 1 && str[n - 1] != '\n' && !x->too_long) {
        x->too_long = true;
        x->too_long_line = x->line;
    }
    return r;
}

static int ctx_handler(void *user, const char *section, const char *name, const char *value)
{
    struct ini_ctx *x = user;
    if (!*section)
        return 0; /* key before any [section]: reported as a syntax error */
    if (x->failed)
        return 1;
    if (x->fn(x->user, section, name, value, x->line)) {
        x->failed = true;
        return 0;
    }
    return 1;
}

static int parse_ini(struct ini_ctx *x, struct err *e)
{
    int rc = ini_parse_stream(ctx_reader, x, ctx_handler, x);
    if (x->too_long)
        return err_set(e, "%s:%d: line too long (at most %d characters)", x->name,
                       x->too_long_line, INI_MAX_LINE - 2);
    if (rc > 0 && x->failed)
        return -1;
    if (rc > 0)
        return err_set(e, "%s:%d: malformed line (expected [section] or key = value inside "
                       "a section)", x->name, rc);
    if (rc < 0)
        return err_set(e, "%s: cannot parse", x->name);
    return 0;
}

int cfg_parse_file(const char *path, const char *what, cfg_ini_fn fn, void *user, struct err *e)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return err_set(e, "%s: cannot open %s: %s", path, what, strerror(errno));
    struct ini_ctx x = {.fn = fn, .user = user, .name = path, .f = f};
    int rc = parse_ini(&x, e);
    fclose(f);
    return rc;
}

struct load_ctx {
    struct cfg *c;
    const char *name;
};

static int load_one(void *user, const char *section, const char *key, const char *value, int line)
{
    struct load_ctx *l = user;
    cfg_load_value(l->c, section, key, value, l->name, line);
    return 0;
}

int cfg_load_file(struct cfg *c, const char *path, struct err *e)
{
    struct load_ctx l = {c, path};
    return cfg_parse_file(path, "config file", load_one, &l, e);
}

int cfg_load_string(struct cfg *c, const char *name, const char *text, struct err *e)
{
    struct load_ctx l = {c, name};
    struct ini_ctx x = {.fn = load_one, .user = &l, .name = name, .text = text};
    return parse_ini(&x, e);
}

int cfg_load_override(struct cfg *c, const char *arg, int argpos, struct err *e)
{
    const char *eq = strchr(arg, '=');
    const char *dot = strchr(arg, '.');
    if (!eq || !dot || dot > eq || dot == arg || eq == dot + 1)
        return err_set(e, "-p:%d: '%s': expected section.key=value", argpos, arg);
    char *sec = strndup(arg, (size_t)(dot - arg));
    char *key = strndup(dot + 1, (size_t)(eq - dot - 1));
    cfg_load_value(c, sec, key, eq + 1, "-p", argpos);
    free(sec);
    free(key);
    return 0;
}

const char *cfg_peek(const struct cfg *c, const char *section, const char *key)
{
    for (size_t i = c->nraw; i-- > 0;)
        if (!strcmp(c->raw[i].section, section) && !strcmp(c->raw[i].key, key))
            return c->raw[i].value;
    struct cfg_sec *s = sec_find(c, section);
    struct cfg_item *it = s ? item_find(s, key) : NULL;
    return it ? it->value : NULL;
}

static bool parse_int(const char *v, int64_t *out)
{
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 0);
    if (errno || end == v || *end)
        return false;
    *out = x;
    return true;
}

static bool parse_float(const char *v, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (errno || end == v || *end || !isfinite(x))
        return false;
    *out = x;
    return true;
}

static int parse_bool(const char *v)
{
    static const char *const t[] = {"true", "1", "yes", "on"}, *const f[] = {"false", "0", "no", "off"};
    for (int i = 0; i < 4; i++) {
        if (!strcasecmp(v, t[i]))
            return 1;
        if (!strcasecmp(v, f[i]))
            return 0;
    }
    return -1;
}

static int enum_index(const char *choices, const char *v)
{
    size_t lv = strlen(v);
    int idx = 0;
    for (const char *p = choices; *p; idx++) {
        size_t len = strcspn(p, "|");
        if (len == lv && !strncmp(p, v, len))
            return idx;
        p += len + (p[len] == '|');
    }
    return -1;
}

/* A bound as a user would write it: integers exact; other numbers short,
 * with a plain exponent (1e9, 1e-6). */
static void bound_str(const struct cfg_key *k, double v, char *buf, size_t n)
{
    if (k->type == CFG_INT) {
        snprintf(buf, n, "%.0f", v);
        return;
    }
    char tmp[40], *e;
    snprintf(tmp, sizeof tmp, "%.6g", v);
    if (!(e = strchr(tmp, 'e'))) {
        snprintf(buf, n, "%s", tmp);
        return;
    }
    char *d = e + 1;
    bool neg = *d == '-';
    d += *d == '-' || *d == '+';
    while (d[0] == '0' && d[1])
        d++;
    *e = 0;
    snprintf(buf, n, "%se%s%s", tmp, neg ? "-" : "", d);
}

/* An integer bound this large means "no upper limit" (the tables write
 * 2^53 or 9.2e18 for it). */
#define NO_UPPER_LIMIT 9007199254740992.0

static const char *range_reason(const struct cfg_key *k, double x, char *buf, size_t n)
{
    if ((k->min != 0 || k->max != 0) && (x < k->min || x > k->max)) {
        char lo[48], hi[48];
        bound_str(k, k->min, lo, sizeof lo);
        bound_str(k, k->max, hi, sizeof hi);
        if (k->max >= NO_UPPER_LIMIT)
            snprintf(buf, n, "out of range (at least %s)", lo);
        else
            snprintf(buf, n, "out of range [%s, %s]", lo, hi);
        return buf;
    }
    return NULL;
}

const char *cfg_check_value(const struct cfg_key *k, const char *v, char *buf, size_t n)
{
    int64_t i;
    double d;
    switch (k->type) {
    case CFG_BOOL:
        return parse_bool(v) < 0 ? "not a boolean (true/false, yes/no, on/off, 1/0)" : NULL;
    case CFG_INT:
        if (!parse_int(v, &i)) {
            errno = 0;
            char *end;
            long long x = strtoll(v, &end, 0);
            if (errno != ERANGE || end == v || *end)
                return "not an integer";
            const char *r = x > 0 && k->max >= NO_UPPER_LIMIT
                                ? NULL
                                : range_reason(k, x > 0 ? INFINITY : -INFINITY, buf, n);
            char tmp[160];
            snprintf(tmp, sizeof tmp, "integer too %s%s%s", x > 0 ? "large" : "small",
                     r ? ": " : " for 64 bits", r ? r : "");
            snprintf(buf, n, "%s", tmp);
            return buf;
        }
        return range_reason(k, (double)i, buf, n);
    case CFG_FLOAT:
        if (!parse_float(v, &d)) {
            errno = 0;
            char *end;
            (void)strtod(v, &end);
            return errno == ERANGE && end != v && !*end ? "number out of range"
                                                        : "not a number";
        }
        return range_reason(k, d, buf, n);
    case CFG_ENUM:
        if (enum_index(k->choices, v) < 0) {
            size_t m = (size_t)snprintf(buf, n, "not one of: ");
            for (const char *c = k->choices; *c && m + 3 < n; c++)
                if (*c == '|') {
                    buf[m++] = ',';
                    buf[m++] = ' ';
                } else {
                    buf[m++] = *c;
                }
            buf[m < n ? m : n - 1] = 0;
            return buf;
        }
        return NULL;
    case CFG_STR:
        return NULL;
    }
    return "bad key type";
}

static void hint(char *buf, size_t n, const char *what, const char *best)
{
    if (best)
        snprintf(buf, n, "unknown %s (did you mean '%s'?)", what, best);
    else
        snprintf(buf, n, "unknown %s", what);
}

int cfg_unknown_name(const struct cfg *c, const char *section, const char *key, const char *what,
                     const char *const *names, size_t n, const char *list_hint, struct err *e)
{
    const char *value = cfg_peek(c, section, key), *best = str_suggest(value, names, n);
    char where[512] = "", why[1024];
    for (size_t i = c->nraw; i-- > 0;)
        if (!strcmp(c->raw[i].section, section) && !strcmp(c->raw[i].key, key)) {
            const char *f = c->raw[i].file; /* -w and --trace have no line; -p counts */
            if (f[0] == '-' && strcmp(f, "-p"))
                snprintf(where, sizeof where, "%s: ", f);
            else
                snprintf(where, sizeof where, "%s:%d: ", f, c->raw[i].line);
            break;
        }
    if (best) {
        snprintf(why, sizeof why, "did you mean '%s'?", best);
    } else if (list_hint) {
        snprintf(why, sizeof why, "%s", list_hint);
    } else {
        size_t k = (size_t)snprintf(why, sizeof why, "known:");
        for (size_t i = 0; i < n && k < sizeof why; i++)
            k += (size_t)snprintf(why + k, sizeof why - k, "%s %s", i ? "," : "", names[i]);
    }
    return err_set(e, "%s[%s] %s = %s: unknown %s (%s)", where, section, key, value, what, why);
}

static const char *unknown_reason(const struct cfg *c, const struct cfg_raw *r, char *buf,
                                  size_t n)
{
    struct cfg_sec *s = sec_find(c, r->section);
    const char **names;
    if (!s) {
        names = xmalloc((c->nsecs + 1) * sizeof *names);
        for (size_t i = 0; i < c->nsecs; i++)
            names[i] = c->secs[i].name;
        hint(buf, n, "section", str_suggest(r->section, names, c->nsecs));
    } else {
        names = xmalloc((s->n + 1) * sizeof *names);
        for (size_t i = 0; i < s->n; i++)
            names[i] = s->items[i].key->name;
        hint(buf, n, "key", str_suggest(r->key, names, s->n));
    }
    free(names);
    return buf;
}

int cfg_resolve(struct cfg *c, struct err *e)
{
    for (size_t i = 0; i < c->nraw; i++) {
        struct cfg_raw *r = &c->raw[i];
        struct cfg_sec *s = sec_find(c, r->section);
        struct cfg_item *it = s ? item_find(s, r->key) : NULL;
        char buf[512];
        const char *why = it ? cfg_check_value(it->key, r->value, buf, sizeof buf)
                             : unknown_reason(c, r, buf, sizeof buf);
        if (why)
            return err_set(e, "%s:%d: [%s] %s = %s: %s", r->file, r->line, r->section, r->key,
                           r->value, why);
        char origin[300];
        snprintf(origin, sizeof origin, "%s:%d", r->file, r->line);
        set_item(it, r->value, origin);
    }
    return 0;
}

const struct cfg_sec *cfg_sec(const struct cfg *c, const char *section)
{
    const struct cfg_sec *s = sec_find(c, section);
    if (!s)
        BUG("config section [%s] not defined", section);
    return s;
}

const struct cfg_item *cfg_item(const struct cfg_sec *s, const char *key)
{
    const struct cfg_item *it = item_find(s, key);
    if (!it)
        BUG("config key [%s] %s not defined", s->name, key);
    return it;
}

int cfg_err(struct err *e, const struct cfg_sec *s, const char *key, const char *fmt, ...)
{
    const struct cfg_item *it = cfg_item(s, key);
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return err_set(e, "%s: [%s] %s = %s: %s", it->origin, s->name, key, it->value, why);
}

static const struct cfg_item *typed(const struct cfg_sec *s, const char *key, enum cfg_type t)
{
    const struct cfg_item *it = cfg_item(s, key);
    if (it->key->type != t)
        BUG("config key [%s] %s read with the wrong type", s->name, key);
    return it;
}

int64_t cfg_int(const struct cfg_sec *s, const char *key)
{
    int64_t v = 0;
    parse_int(typed(s, key, CFG_INT)->value, &v);
    return v;
}

uint64_t cfg_uint(const struct cfg_sec *s, const char *key)
{
    int64_t v = cfg_int(s, key);
    if (v < 0)
        BUG("config key [%s] %s is negative but read as unsigned", s->name, key);
    return (uint64_t)v;
}

double cfg_float(const struct cfg_sec *s, const char *key)
{
    double v = 0;
    parse_float(typed(s, key, CFG_FLOAT)->value, &v);
    return v;
}

bool cfg_bool(const struct cfg_sec *s, const char *key)
{
    return parse_bool(typed(s, key, CFG_BOOL)->value) == 1;
}

const char *cfg_str(const struct cfg_sec *s, const char *key)
{
    return typed(s, key, CFG_STR)->value;
}

unsigned cfg_enum(const struct cfg_sec *s, const char *key)
{
    const struct cfg_item *it = typed(s, key, CFG_ENUM);
    return (unsigned)enum_index(it->key->choices, it->value);
}

void cfg_print_ini(const struct cfg *c, FILE *out)
{
    for (size_t i = 0; i < c->nsecs; i++) {
        const struct cfg_sec *s = &c->secs[i];
        fprintf(out, "[%s]\n", s->name);
        for (size_t j = 0; j < s->n; j++)
            fprintf(out, "%s = %s\n", s->items[j].key->name, s->items[j].value);
        fputc('\n', out);
    }
}

/* "(integer, 1 to 64)", "(integer >= 0)", "(number, 0 to 1e9)", "(one of: a, b)" */
static void print_kind(const struct cfg_key *k, FILE *out)
{
    static const char *const names[] = {"true or false", "integer", "number", "text", "one of"};
    fprintf(out, "(%s", names[k->type]);
    if (k->type == CFG_ENUM) {
        fputs(": ", out);
        for (const char *c = k->choices; *c; c++)
            if (*c == '|')
                fputs(", ", out);
            else
                fputc(*c, out);
    } else if (k->min != 0 || k->max != 0) {
        char lo[48], hi[48];
        bound_str(k, k->min, lo, sizeof lo);
        bound_str(k, k->max, hi, sizeof hi);
        if (k->max >= NO_UPPER_LIMIT)
            fprintf(out, " >= %s", lo);
        else
            fprintf(out, ", %s to %s", lo, hi);
    }
    fputc(')', out);
}

void cfg_print_params(const struct cfg *c, FILE *out)
{
    for (size_t i = 0; i < c->nsecs; i++) {
        const struct cfg_sec *s = &c->secs[i];
        fprintf(out, "[%s]%s%s\n", s->name, s->help ? "  " : "", s->help ? s->help : "");
        for (size_t j = 0; j < s->n; j++) {
            const struct cfg_key *k = s->items[j].key;
            fprintf(out, "  %s.%s = %s  ", s->name, k->name, s->items[j].value);
            print_kind(k, out);
            fprintf(out, "\n      %s\n", k->help);
        }
    }
}

static json_t *value_json(const struct cfg_item *it)
{
    int64_t i;
    double d;
    switch (it->key->type) {
    case CFG_BOOL:
        return json_boolean(parse_bool(it->value) == 1);
    case CFG_INT:
        parse_int(it->value, &i);
        return json_integer((json_int_t)i);
    case CFG_FLOAT:
        parse_float(it->value, &d);
        return json_real(d);
    default:
        return json_string(it->value);
    }
}

json_t *cfg_to_json(const struct cfg *c)
{
    json_t *root = json_object();
    for (size_t i = 0; i < c->nsecs; i++) {
        const struct cfg_sec *s = &c->secs[i];
        json_t *o = json_object();
        for (size_t j = 0; j < s->n; j++)
            json_object_set_new(o, s->items[j].key->name, value_json(&s->items[j]));
        json_object_set_new(root, s->name, o);
    }
    return root;
}
