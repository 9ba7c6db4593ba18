/*
 * wgsched.c -- see wgsched.h.
 */
#include "wgsched.h"

struct wgs_iter wgs_chiplet(enum wgs_policy p, uint32_t n, unsigned k, unsigned c)
{
    if (p == WGS_ROUND_ROBIN)
        return (struct wgs_iter){c, n, k};
    uint32_t base = n / k, extra = n % k;
    uint32_t start = c * base + (c < extra ? c : extra);
    return (struct wgs_iter){start, start + base + (c < extra), 1};
}
