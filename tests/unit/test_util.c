/*
 * test_util.c -- see test_util.h.
 */
#include "test_util.h"

#include <criterion/criterion.h>

#include "workload/kd.h"

int tcfg_load(struct cfg *c, const char *section, const struct cfg_key *keys,
              const char *const *defaults, const char *ini, struct err *e)
{
    cfg_init(c);
    cfg_define(c, section, NULL, keys, defaults);
    if (ini && cfg_load_string(c, "t.ini", ini, e))
        return -1;
    return cfg_resolve(c, e);
}

struct kd_prog *tkd_compile(const char *const *params, const char *const *bufs,
                            const char *const *arrays, const char *body)
{
    static struct kd_desc d; /* the program keeps a pointer to its description */
    d = (struct kd_desc){.name = "t", .params = params, .bufs = bufs, .arrays = arrays,
                         .body = body};
    struct err e = {0};
    struct kd_prog *p = kd_compile(&d, &e);
    cr_assert(p, "%s", e.msg);
    return p;
}
