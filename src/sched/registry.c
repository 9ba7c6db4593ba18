/*
 * registry.c -- the one list of work-group scheduling policies and the one
 * list of page placement policies. Adding a policy is one extern, one line
 * in its list and its name in the choices string beside it (the key's
 * `list params` text; a unit test checks the two agree).
 */
#include "place.h"
#include "wgsched.h"

extern const struct wgs_ops wgs_static, wgs_round_robin, wgs_batched, wgs_hierarchical,
    wgs_partition, wgs_ladm, wgs_coda, wgs_hcoda;

const struct wgs_ops *const wgs_registry[] = {
    &wgs_static,
    &wgs_round_robin,
    &wgs_batched,
    &wgs_hierarchical,
    &wgs_partition,
    &wgs_ladm,
    &wgs_coda,
    &wgs_hcoda,
    NULL,
};
const char wgs_choices[] = "static|round_robin|batched|hierarchical|partition|ladm|coda|hcoda";

extern const struct place_ops place_first_touch, place_interleave, place_chunk, place_ladm;

const struct place_ops *const place_registry[] = {
    &place_first_touch,
    &place_interleave,
    &place_chunk,
    &place_ladm,
    NULL,
};
const char place_choices[] = "first_touch|interleave|chunk|ladm";
