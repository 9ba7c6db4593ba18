/*
 * test_util.c -- see test_util.h.
 */
#include "test_util.h"

int tcfg_load(struct cfg *c, const char *section, const struct cfg_key *keys,
              const char *const *defaults, const char *ini, struct err *e)
{
    cfg_init(c);
    cfg_define(c, section, NULL, keys, defaults);
    if (ini && cfg_load_string(c, "t.ini", ini, e))
        return -1;
    return cfg_resolve(c, e);
}
