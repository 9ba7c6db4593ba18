/*
 * registry.c -- the one list of coherence schemes. Adding a scheme is one
 * extern and one line here.
 */
#include "coh.h"

extern const struct coh_ops coh_viper, coh_ideal, coh_cpelide, coh_hmg, coh_nocache, coh_swcoh;

const struct coh_ops *const coh_registry[] = {
    &coh_viper,
    &coh_ideal,
    &coh_cpelide,
    &coh_hmg,
    &coh_nocache,
    &coh_swcoh,
    NULL,
};
