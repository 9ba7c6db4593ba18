/*
 * base.c -- error buffers, fatal errors, allocation wrappers, RNG and the
 * string distance used for suggestions. Nothing here knows about simulation.
 */
#include "base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int err_vset(struct err *e, const char *fmt, va_list ap)
{
    if (e)
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    return -1;
}

int err_set(struct err *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_vset(e, fmt, ap);
    va_end(ap);
    return -1;
}

int err_prefix(struct err *e, const char *fmt, ...)
{
    if (!e)
        return -1;
    char old[ERR_MSG_MAX];
    memcpy(old, e->msg, sizeof old);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    size_t n = strlen(e->msg);
    size_t room = sizeof e->msg - n - 1;
    strncat(e->msg, ": ", room);
    room = room > 2 ? room - 2 : 0;
    strncat(e->msg, old, room);
    return -1;
}

void base_vdie(const char *where, const char *fmt, va_list ap)
{
    fprintf(stderr, "chipsim: internal error %s: ", where);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    fflush(stderr);
    abort();
}

void base_die(const char *file, int line, const char *fmt, ...)
{
    char where[256];
    snprintf(where, sizeof where, "at %s:%d", file, line);
    va_list ap;
    va_start(ap, fmt);
    base_vdie(where, fmt, ap);
}

static void *oom(size_t n)
{
    fprintf(stderr, "chipsim: out of memory allocating %zu bytes\n", n);
    abort();
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    return p ? p : oom(n);
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    return p ? p : oom(n * size);
}

void *xcalloc_aligned(size_t n, size_t size)
{
    size_t len = n && size ? (n * size + 63) / 64 * 64 : 64;
    void *p = aligned_alloc(64, len);
    if (!p)
        oom(len);
    return memset(p, 0, len);
}

/* Kept in the 64 bytes before a block of xcalloc_big(). */
struct big_hdr {
    void *base;     /* what to free or unmap */
    size_t maplen;  /* 0: base came from malloc */
};

#define BIG_HUGE ((size_t)2 << 20)
#define BIG_PAGES ((size_t)64 << 10)

void *xcalloc_big(size_t n, size_t size)
{
    size_t len = n && size ? n * size : 1;
    if (size && len / size != n)
        oom(SIZE_MAX);
    char *base, *p;
    size_t maplen = 0;
    if (len < BIG_PAGES) { /* a few pages: from the heap */
        base = xcalloc_aligned(1, len + 64);
        p = base + 64;
    } else {
        /* Fresh anonymous pages are zero, and the host zeroes only those
         * that are touched. From 2 MiB the block starts on a huge-page
         * boundary (its header in the page before) and huge pages are
         * asked for; below, a huge page would mostly be wasted. */
        size_t align = len < BIG_HUGE ? 4096 : BIG_HUGE;
        size_t span = (len + align - 1) & ~(align - 1);
        maplen = span + align + 4096;
        base = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (base == MAP_FAILED)
            oom(maplen);
        p = (char *)(((uintptr_t)base + 4096 + align - 1) & ~(uintptr_t)(align - 1));
#ifdef MADV_HUGEPAGE
        if (align == BIG_HUGE)
            madvise(p, span, MADV_HUGEPAGE); /* advice only: failure is harmless */
#endif
    }
    *(struct big_hdr *)(void *)(p - 64) = (struct big_hdr){base, maplen};
    return p;
}

void xfree_big(void *p)
{
    if (!p)
        return;
    struct big_hdr h = *(struct big_hdr *)(void *)((char *)p - 64);
    if (h.maplen)
        munmap(h.base, h.maplen);
    else
        free(h.base);
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    return q ? q : oom(n);
}

char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}

char *xasprintf(const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = xmalloc((size_t)n + 1);
    vsnprintf(s, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return s;
}

void *xgrow(void *p, size_t es, size_t *cap, size_t n)
{
    if (n <= *cap)
        return p;
    size_t c = *cap ? *cap : 16;
    while (c < n)
        c *= 2;
    p = xrealloc(p, c * es);
    *cap = c;
    return p;
}

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void rng_seed(struct rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix(&seed);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t rng_next(struct rng *r)
{
    uint64_t *s = r->s;
    uint64_t out = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
}

uint64_t rng_below(struct rng *r, uint64_t n)
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do
        x = rng_next(r);
    while (x >= limit);
    return x % n;
}

double rng_unit(struct rng *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }

unsigned str_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 64;
    unsigned row[64];
    for (size_t j = 0; j <= lb; j++)
        row[j] = (unsigned)j;
    for (size_t i = 1; i <= la; i++) {
        unsigned diag = row[0];
        row[0] = (unsigned)i;
        for (size_t j = 1; j <= lb; j++) {
            unsigned up = row[j];
            unsigned best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

const char *str_suggest(const char *word, const char *const *cands, size_t n)
{
    const char *best = NULL;
    unsigned bestd = ~0u;
    for (size_t i = 0; i < n; i++) {
        unsigned d = str_distance(word, cands[i]);
        if (d < bestd) {
            bestd = d;
            best = cands[i];
        }
    }
    size_t lw = strlen(word);
    unsigned limit = lw <= 4 ? 1 : lw <= 8 ? 2 : 3;
    return bestd <= limit ? best : NULL;
}
