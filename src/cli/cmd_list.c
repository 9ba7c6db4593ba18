/*
 * cmd_list.c -- `chipsim list params|schemes|workloads`.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/setup.h"
#include "coherence/coh.h"
#include "workload/wl.h"

int cli_list(int argc, char **argv)
{
    const char *what = argc == 2 ? argv[1] : "";
    if (!strcmp(what, "params")) {
        struct cfg c;
        cfg_init(&c);
        setup_define_all(&c);
        cfg_print_params(&c, stdout);
        cfg_free(&c);
    } else if (!strcmp(what, "schemes")) {
        for (const struct coh_ops *const *o = coh_registry; *o; o++)
            printf("%-12s %s\n", (*o)->name, (*o)->desc);
    } else if (!strcmp(what, "workloads")) {
        for (const struct wl_ops *const *w = wl_registry; *w; w++)
            printf("%-16s %-13s %s\n", (*w)->name, (*w)->suite, (*w)->desc);
    } else {
        if (argc > 2)
            fprintf(stderr, "chipsim list: one list at a time\n");
        else if (*what)
            fprintf(stderr, "chipsim list: '%s': expected params, schemes or workloads\n", what);
        fprintf(stderr, "usage: chipsim list params|schemes|workloads\n");
        return EXIT_USAGE;
    }
    return EXIT_OK;
}
