/*
 * machine.h -- a whole simulated machine for tests: configs/tiny.ini plus
 * extra INI text, built through the same code as `chipsim run`, running a
 * list of kernels the test provides.
 */
#ifndef CHIPSIM_TEST_MACHINE_H
#define CHIPSIM_TEST_MACHINE_H

#include "gpu/gpu.h"
#include "workload/wl.h"

struct machine {
    struct cfg cfg;
    struct sim s;
    struct stats st;
    struct gpu g;
    struct wl_env env;
    struct kernel k[16];
    unsigned nk, next;
};

/* NULL and a message (cr_assert'ed by the caller) on bad configuration. */
struct machine *machine_new(const char *extra_ini);
void machine_free(struct machine *m);
/* Run every kernel in m->k; returns the simulation status. */
enum sim_status machine_run(struct machine *m);
uint64_t machine_stat(struct machine *m, const char *suffix);

#endif
