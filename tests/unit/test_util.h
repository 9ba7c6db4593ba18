/*
 * test_util.h -- helpers shared by the unit tests.
 */
#ifndef CHIPSIM_TEST_UTIL_H
#define CHIPSIM_TEST_UTIL_H

#include "config/cfg.h"

struct kd_prog;

/* Initialise c with one section (keys, optional per-section defaults), load
 * `ini` (may be NULL) as file "t.ini" and resolve. On failure the message is
 * in e and -1 is returned; c must be freed with cfg_free() either way. */
int tcfg_load(struct cfg *c, const char *section, const struct cfg_key *keys,
              const char *const *defaults, const char *ini, struct err *e);

/* Compile a kernel description named "t" with these names and body,
 * asserting it compiles. The description is kept in one static record:
 * compile the next one only once this one is freed. */
struct kd_prog *tkd_compile(const char *const *params, const char *const *bufs,
                            const char *const *arrays, const char *body);

#endif
