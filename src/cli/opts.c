/*
 * opts.c -- option tables to getopt_long and to help text (opts.h).
 */
#include "cli/opts.h"

#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"
#include "cli/cli.h"

#define LONG_BASE 1000 /* getopt_long's val for the i-th long option: LONG_BASE + i */

const struct cli_cmd *cli_find_cmd(const char *name)
{
    for (const struct cli_cmd *const *c = cli_commands; *c; c++)
        if (!strcmp((*c)->name, name))
            return *c;
    return NULL;
}

/* "-c, --config FILE" as the left column of a help line. */
static void opt_label(const struct cli_opt *o, char *buf, size_t n)
{
    int k = 0;
    if (o->shrt)
        k = snprintf(buf, n, "-%c%s", o->shrt, o->lng ? ", " : "");
    else
        k = snprintf(buf, n, "    ");
    if (o->lng)
        k += snprintf(buf + k, n - (size_t)k, "--%s", o->lng);
    if (o->arg && o->arg[0] == '[')
        snprintf(buf + k, n - (size_t)k, "%s", o->arg);
    else if (o->arg)
        snprintf(buf + k, n - (size_t)k, " %s", o->arg);
}

static void print_opt(FILE *out, const char *label, const char *help)
{
    fprintf(out, "  %-24s", label);
    if (strlen(label) >= 24)
        fprintf(out, "\n  %-24s", "");
    for (const char *h = help; *h;) {
        size_t len = strcspn(h, "\n");
        fprintf(out, "%.*s\n", (int)len, h);
        h += len;
        if (*h == '\n' && *++h)
            fprintf(out, "  %-24s", "");
    }
}

void cli_print_help(const struct cli_cmd *c, FILE *out)
{
    fprintf(out, "usage: chipsim %s%s%s\n", c->name, *c->args ? " " : "", c->args);
    fprintf(out, "\n%s\n", c->about ? c->about : c->summary);
    for (const struct cli_optgroup *g = c->groups; g && g->opts; g++) {
        fprintf(out, "\n%s:\n", g->title ? g->title : "options");
        for (const struct cli_opt *o = g->opts; o->id; o++) {
            char label[96];
            opt_label(o, label, sizeof label);
            print_opt(out, label, o->help);
        }
    }
    fprintf(out, "%s  %-24s%s\n", c->groups && c->groups->opts ? "" : "\noptions:\n",
            "-h, --help", "print this help and exit");
}

void cli_parser_init(struct cli_parser *p, const struct cli_cmd *c, int argc, char **argv)
{
    *p = (struct cli_parser){.cmd = c, .argc = argc, .argv = argv};
    size_t n = 0;
    for (const struct cli_optgroup *g = c->groups; g && g->opts; g++)
        for (const struct cli_opt *o = g->opts; o->id; o++)
            n++;
    p->lo = xcalloc(n + 2, sizeof *p->lo);
    p->by = xcalloc(n + 1, sizeof *p->by);
    size_t k = 0, m = 0;
    p->so[m++] = ':'; /* a missing value is ':', not '?' */
    p->so[m++] = 'h';
    for (const struct cli_optgroup *g = c->groups; g && g->opts; g++)
        for (const struct cli_opt *o = g->opts; o->id; o++) {
            if (o->shrt && m + 3 < sizeof p->so) {
                p->so[m++] = o->shrt;
                if (o->arg)
                    p->so[m++] = ':';
            }
            if (o->lng) {
                int has = !o->arg ? no_argument
                          : o->arg[0] == '[' ? optional_argument : required_argument;
                p->lo[k] = (struct option){o->lng, has, NULL, LONG_BASE + (int)k};
                p->by[k++] = o;
            }
        }
    p->so[m] = 0;
    p->lo[k] = (struct option){"help", no_argument, NULL, 'h'};
    optind = 0; /* a full restart of GNU getopt */
    opterr = 0;
}

void cli_parser_free(struct cli_parser *p)
{
    free(p->lo);
    free(p->by);
    free(p->pos);
    p->lo = NULL;
    p->by = NULL;
    p->pos = NULL;
}

int cli_bad(const struct cli_cmd *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "chipsim %s: ", c->name);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(see `chipsim %s --help`)\n", c->name);
    return CLI_BAD;
}

static const struct cli_opt *by_short(const struct cli_cmd *c, int ch)
{
    for (const struct cli_optgroup *g = c->groups; g && g->opts; g++)
        for (const struct cli_opt *o = g->opts; o->id; o++)
            if (o->shrt == ch)
                return o;
    return NULL;
}

int cli_next(struct cli_parser *p, char **val)
{
    *val = NULL;
    int ch = getopt_long(p->argc, p->argv, p->so, p->lo, NULL);
    if (ch == -1) {
        p->npos = p->argc - optind;
        p->pos = xcalloc((size_t)p->npos + 1, sizeof *p->pos);
        for (int i = 0; i < p->npos; i++)
            p->pos[i] = p->argv[optind + i];
        return CLI_END;
    }
    if (ch == 'h') {
        cli_print_help(p->cmd, stdout);
        return CLI_HELP;
    }
    const char *text = optind > 0 && optind <= p->argc ? p->argv[optind - 1] : "?";
    if (ch == ':') {
        if (optopt && optopt < LONG_BASE)
            return cli_bad(p->cmd, "option '-%c' needs a value", optopt);
        return cli_bad(p->cmd, "option '%s' needs a value", text);
    }
    if (ch == '?') {
        if (optopt && optopt < LONG_BASE)
            return cli_bad(p->cmd, "unknown option '-%c'", optopt);
        return cli_bad(p->cmd, "unknown option '%s'", text);
    }
    const struct cli_opt *o = ch >= LONG_BASE ? p->by[ch - LONG_BASE] : by_short(p->cmd, ch);
    if (!o)
        return cli_bad(p->cmd, "unknown option '%s'", text);
    *val = optarg;
    return o->id;
}

int cli_uint_arg(const struct cli_cmd *c, const char *opt, const char *arg, unsigned lo,
                 unsigned hi, unsigned *v)
{
    char *end;
    errno = 0;
    long long n = strtoll(arg, &end, 10);
    if (errno || end == arg || *end || n < lo || n > hi) {
        cli_bad(c, "%s %s: expected a whole number from %u to %u", opt, arg, lo, hi);
        return -1;
    }
    *v = (unsigned)n;
    return 0;
}

/* Whether a file can be created in dir: try one (access() says yes to root
 * on directories where nothing can be created, such as /proc). */
static int try_create(const char *dir)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%.4000s/.chipsim-check-XXXXXX", dir);
    int fd = mkstemp(tmp);
    if (fd < 0)
        return -1;
    close(fd);
    unlink(tmp);
    return 0;
}

int cli_check_out_file(const char *path, const char *opt, struct err *e)
{
    struct stat st;
    if (!*path)
        return err_set(e, "%s: empty file name", opt);
    if (!stat(path, &st) && S_ISDIR(st.st_mode))
        return err_set(e, "%s %s: is a directory", opt, path);
    char *copy = xstrdup(path);
    const char *dir = dirname(copy);
    int rc = 0;
    if (stat(dir, &st) || !S_ISDIR(st.st_mode))
        rc = err_set(e, "%s %s: directory %s does not exist", opt, path, dir);
    else if (try_create(dir))
        rc = err_set(e, "%s %s: cannot create a file in %s: %s", opt, path, dir,
                     strerror(errno));
    else if (!access(path, F_OK) && access(path, W_OK))
        rc = err_set(e, "%s %s: cannot write: %s", opt, path, strerror(errno));
    free(copy);
    return rc;
}

int cli_check_out_dir(const char *dir, const char *opt, struct err *e)
{
    struct stat st;
    if (!*dir)
        return err_set(e, "%s: empty directory name", opt);
    if (!stat(dir, &st) && !S_ISDIR(st.st_mode))
        return err_set(e, "%s %s: exists and is not a directory", opt, dir);
    /* the deepest part of dir that exists must take new entries (nothing is
     * created here: bad input leaves no directory behind) */
    char *p = xstrdup(dir);
    while (stat(p, &st)) {
        char *parent = xstrdup(dirname(p));
        free(p);
        p = parent;
    }
    int rc = 0;
    if (!S_ISDIR(st.st_mode))
        rc = err_set(e, "%s %s: %s is not a directory", opt, dir, p);
    else if (try_create(p))
        rc = err_set(e, "%s %s: cannot create anything in %s: %s", opt, dir, p, strerror(errno));
    free(p);
    return rc;
}
