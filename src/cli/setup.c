/*
 * setup.c -- command-line options and configuration assembly. This is the
 * one place that knows every module's configuration section.
 */
#include "setup.h"

#include <stdlib.h>
#include <string.h>

#include "gpu/memsys.h"
#include "net/topo.h"
#include "workload/synth.h"

static const struct cfg_key sim_keys[] = {
    {"seed", CFG_INT, "1", 0, 9.2e18, "seed of every random choice in the run", NULL},
    {"watchdog_us", CFG_FLOAT, "100", 0, 1e9,
     "stop with a deadlock report when no request completes for this long (simulated us; 0 = off)",
     NULL},
    {"per_kernel_stats", CFG_BOOL, "false", 0, 0,
     "also report every counter's change per kernel (sections in the text and JSON output)", NULL},
    CFG_END,
};

static const char *take(int argc, char **argv, int *i, struct err *e)
{
    if (*i + 1 >= argc) {
        err_set(e, "option %s needs an argument", argv[*i]);
        return NULL;
    }
    return argv[++*i];
}

int setup_parse_args(int argc, char **argv, struct run_opts *o, struct err *e)
{
    *o = (struct run_opts){0};
    o->configs = xcalloc((size_t)argc, sizeof *o->configs);
    o->overrides = xcalloc((size_t)argc, sizeof *o->overrides);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (!strcmp(a, "-c")) {
            if (!(v = take(argc, argv, &i, e)))
                return -1;
            o->configs[o->nconfigs++] = v;
        } else if (!strcmp(a, "-p")) {
            if (!(v = take(argc, argv, &i, e)))
                return -1;
            o->overrides[o->noverrides++] = v;
        } else if (!strcmp(a, "--json")) {
            if (!(o->json = take(argc, argv, &i, e)))
                return -1;
        } else if (!strcmp(a, "--stats")) {
            o->print_stats = true;
        } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
            o->quiet = true;
        } else {
            return err_set(e, "unknown option '%s'", a);
        }
    }
    return 0;
}

void setup_free_args(struct run_opts *o)
{
    free(o->configs);
    free(o->overrides);
}

void setup_define_sections(struct cfg *c)
{
    cfg_define(c, "sim", "engine and run control", sim_keys, NULL);
    cfg_define(c, "gpu", "system topology: GPUs x chiplets x CUs", topo_keys, NULL);
    memsys_define_sections(c);
    cfg_define(c, "synth", "synthetic memory traffic (the demo workload)", synth_keys, NULL);
}

int setup_config(struct cfg *c, const struct run_opts *o, struct err *e)
{
    setup_define_sections(c);
    for (size_t i = 0; i < o->nconfigs; i++)
        if (cfg_load_file(c, o->configs[i], e))
            return -1;
    for (size_t i = 0; i < o->noverrides; i++)
        if (cfg_load_override(c, o->overrides[i], (int)i + 1, e))
            return -1;
    return cfg_resolve(c, e);
}
