/*
 * sdk.c -- see sdk.h.
 */
#include "workload/sdk/sdk.h"

unsigned sdk_halves(uint32_t *out, uint32_t from, uint32_t stop)
{
    unsigned n = 0;
    for (uint32_t s = from; s > stop && s; s /= 2)
        out[n++] = s;
    return n;
}

int sdk_multiple(const struct cfg_sec *sec, const char *key, uint64_t v, uint64_t m,
                 const char *what, struct err *e)
{
    if (v % m)
        return cfg_err(e, sec, key, "must be a multiple of %llu (%s)", (unsigned long long)m,
                       what);
    return 0;
}

int sdk_pow2(const struct cfg_sec *sec, const char *key, uint64_t v, struct err *e)
{
    if (!is_pow2(v))
        return cfg_err(e, sec, key, "must be a power of two");
    return 0;
}

void sdk_launch(struct kdw_launch *l, unsigned prog, uint32_t gx, uint32_t gy, uint32_t bx,
                uint32_t by)
{
    l->prog = prog;
    l->grid = (struct kernel_dim){gx, gy, 1};
    l->block = (struct kernel_dim){bx, by, 1};
}

void sdk_floor_table(uint32_t *t, uint32_t n, uint32_t step, uint32_t m)
{
    for (uint32_t i = 0; i < n; i++)
        t[i] = (uint32_t)((uint64_t)i * step / m * m);
}
