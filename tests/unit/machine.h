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
    const struct wl_ops *wl;  /* when set, kernels come from the workload */
    void *wl_self;
};

/* configs/tiny.ini + extra_ini; asserts on bad configuration. */
struct machine *machine_new(const char *extra_ini);
/* The same, or NULL with the message in *e when the machine cannot be built. */
struct machine *machine_try(const char *extra_ini, struct err *e);
/* The same, running workload w with parameters from extra_ini's [workload]
 * section (e.g. "[workload]\nn = 4096\n"); returns NULL with the message in
 * e if the workload rejects its parameters. */
struct machine *machine_new_wl(const char *extra_ini, const struct wl_ops *w, struct err *e);
void machine_free(struct machine *m);
/* Run every kernel in m->k; returns the simulation status. */
enum sim_status machine_run(struct machine *m);
uint64_t machine_stat(struct machine *m, const char *suffix);

#endif
