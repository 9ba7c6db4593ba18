/*
 * cfg.h -- typed configuration. Every module describes its keys in a static
 * table (name, type, default, range, help). Values come in three layers:
 * built-in defaults < `-c file.ini` (repeatable, in order) < `-p sec.key=v`.
 *
 * Loading only records raw settings with their origin (file and line).
 * cfg_resolve() then checks every setting against the defined key tables:
 * unknown sections and keys (with a "did you mean"), values of the wrong
 * type, values out of range. Errors read
 *     file:line: [section] key = value: reason
 * Sections may be defined in steps (a scheme's own keys are added once the
 * scheme is known, via cfg_peek()), so resolution happens after all
 * definitions.
 */
#ifndef CHIPSIM_CFG_H
#define CHIPSIM_CFG_H

#include <stdio.h>

#include <jansson.h>

#include "base/base.h"

enum cfg_type { CFG_BOOL, CFG_INT, CFG_FLOAT, CFG_STR, CFG_ENUM };

struct cfg_key {
    const char *name;
    enum cfg_type type;
    const char *def;     /* default, as it would be written in an INI file */
    double min, max;     /* inclusive range for INT and FLOAT; ignored when min == max == 0 */
    const char *help;
    const char *choices; /* ENUM: "lru|random|fifo" */
};
#define CFG_END {0}

struct cfg_item {
    const struct cfg_key *key;
    char *value;  /* resolved value */
    char *origin; /* "default", "file.ini:12" or "-p" */
};

struct cfg_sec {
    char *name;
    const char *help;
    struct cfg_item *items;
    size_t n, cap;
};

struct cfg_raw {
    char *section, *key, *value;
    char *file;   /* file name, or "-p" for a command-line override */
    int line;     /* line in file, or position of the -p argument */
};

struct cfg {
    struct cfg_sec *secs;
    size_t nsecs, secs_cap;
    struct cfg_raw *raw;
    size_t nraw, raw_cap;
};

void cfg_init(struct cfg *c);
void cfg_free(struct cfg *c);

/* Define (or extend) a section. `defaults` is an optional NULL-terminated list
 * of "key=value" strings that replace table defaults for this section, so one
 * key table (a cache's) serves several sections (l1d, l2, l3) with their own
 * defaults. Bad tables are programming errors (BUG). */
void cfg_define(struct cfg *c, const char *section, const char *help,
                const struct cfg_key *keys, const char *const *defaults);

int cfg_load_file(struct cfg *c, const char *path, struct err *e);
/* Parse any INI file with the same syntax checks and line numbers, calling fn
 * for each key = value (inside a section); fn returns 0, or -1 to stop with
 * its own message already in the err it was given through user. `what`
 * names the file in "cannot open" errors. */
typedef int (*cfg_ini_fn)(void *user, const char *section, const char *key, const char *value,
                          int line);
int cfg_parse_file(const char *path, const char *what, cfg_ini_fn fn, void *user, struct err *e);
int cfg_load_string(struct cfg *c, const char *name, const char *text, struct err *e);
/* One setting from elsewhere (a command-line option), with its origin. */
void cfg_load_value(struct cfg *c, const char *section, const char *key, const char *value,
                    const char *origin, int line);
/* "section.key=value"; argpos numbers the override in error messages. */
int cfg_load_override(struct cfg *c, const char *arg, int argpos, struct err *e);

/* The value a key will resolve to (last raw setting, else its default, else
 * NULL), before resolution; used to pick implementations that add keys. */
const char *cfg_peek(const struct cfg *c, const char *section, const char *key);
/* The error for a name-valued key whose value names nothing: where it was
 * set (file:line), and the closest of names, else list_hint, else the names. */
int cfg_unknown_name(const struct cfg *c, const char *section, const char *key, const char *what,
                     const char *const *names, size_t n, const char *list_hint, struct err *e);

int cfg_resolve(struct cfg *c, struct err *e);

const struct cfg_sec *cfg_sec(const struct cfg *c, const char *section);
const struct cfg_item *cfg_item(const struct cfg_sec *s, const char *key);
/* Typed getters on a resolved section; unknown keys are programming errors. */
int64_t cfg_int(const struct cfg_sec *s, const char *key);
uint64_t cfg_uint(const struct cfg_sec *s, const char *key);
double cfg_float(const struct cfg_sec *s, const char *key);
bool cfg_bool(const struct cfg_sec *s, const char *key);
const char *cfg_str(const struct cfg_sec *s, const char *key);
unsigned cfg_enum(const struct cfg_sec *s, const char *key); /* index into choices */

/* Report a problem with a resolved value (a cross-key constraint, say) in
 * the standard form "origin: [section] key = value: reason"; returns -1. */
int cfg_err(struct err *e, const struct cfg_sec *s, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Check one value against one key; NULL if fine, else a static reason. */
const char *cfg_check_value(const struct cfg_key *k, const char *value, char *buf, size_t n);

void cfg_print_ini(const struct cfg *c, FILE *out);
void cfg_print_params(const struct cfg *c, FILE *out);
json_t *cfg_to_json(const struct cfg *c);

#endif
