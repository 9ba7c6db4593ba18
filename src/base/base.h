/*
 * base.h -- the few things every chipsim module uses: fixed-width units,
 * error reporting to a caller, loud allocation, bit helpers and a seeded RNG.
 *
 * Errors follow the three-class rule of the design notes:
 *  - bad user input: library code fills a struct err and returns -1; only
 *    main() turns it into a message and exit status 2;
 *  - broken invariants: BUG() / BUG_ON() (see engine/sim.h for the variant
 *    that prints simulated time and component);
 *  - out of memory: xmalloc() and friends abort with a message.
 */
#ifndef CHIPSIM_BASE_H
#define CHIPSIM_BASE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint64_t ps_t;   /* simulated time, picoseconds */
typedef uint64_t addr_t; /* a physical/virtual byte address */
typedef uint64_t cycle_t;

#define CHIPSIM_VERSION "0.1.0"
#define ERR_MSG_MAX 1024

/* An error message for the caller; functions return -1 after filling it. */
struct err {
    char msg[ERR_MSG_MAX];
};

int err_set(struct err *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int err_vset(struct err *e, const char *fmt, va_list ap);
/* Prefix an existing message: "prefix: old message". */
int err_prefix(struct err *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

_Noreturn void base_die(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Print "chipsim: internal error <where>: <message>" and abort. */
_Noreturn void base_vdie(const char *where, const char *fmt, va_list ap);
#define BUG(...) base_die(__FILE__, __LINE__, __VA_ARGS__)
#define BUG_ON(cond) \
    do { if (__builtin_expect(!!(cond), 0)) BUG("invariant broken: %s", #cond); } while (0)

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Zeroed memory aligned to 64 bytes (a host cache line); free with free(). */
void *xcalloc_aligned(size_t n, size_t size);
/* Zeroed memory for an array that the hot path indexes at random (tag
 * arrays, versions, pools): 64-byte aligned; from 64 KiB on mapped on its own
 * as fresh pages, so that only the pages a run touches are ever zeroed and
 * resident; from 2 MiB on 2 MiB aligned and backed by huge pages where the
 * host allows it, which saves most of the TLB misses (at the price of
 * resident memory: a huge page is resident as a whole once touched). Free
 * with xfree_big(). */
void *xcalloc_big(size_t n, size_t size);
void xfree_big(void *p);

/* Grow *p (element size es, capacity *cap) so that it holds at least n elements. */
void *xgrow(void *p, size_t es, size_t *cap, size_t n);

static inline bool is_pow2(uint64_t x) { return x && !(x & (x - 1)); }
static inline unsigned ilog2(uint64_t x) { return 63u - (unsigned)__builtin_clzll(x | 1); }
/* Bits set in x. Inline arithmetic: without the POPCNT instruction (not in
 * the x86-64 baseline this builds for) the builtin is a library call. */
static inline unsigned popcount64(uint64_t x)
{
#ifdef __POPCNT__
    return (unsigned)__builtin_popcountll(x);
#else
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (unsigned)((x * 0x0101010101010101ull) >> 56);
#endif
}
static inline uint64_t div_ceil(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
/* The lowest n bits set (all 64 for n >= 64): the first n lanes, chiplets, slots. */
static inline uint64_t low_bits(uint64_t n) { return n >= 64 ? ~0ull : (1ull << n) - 1; }
static inline uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static inline uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* 64-bit mixing hash (splitmix64 finaliser). */
static inline uint64_t hash64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* xoshiro256** seeded through splitmix64: fast, reproducible across hosts. */
struct rng {
    uint64_t s[4];
};
void rng_seed(struct rng *r, uint64_t seed);
uint64_t rng_next(struct rng *r);
/* Uniform in [0, n), n > 0, without modulo bias. */
uint64_t rng_below(struct rng *r, uint64_t n);
double rng_unit(struct rng *r); /* uniform in [0, 1) */

/* Levenshtein distance, for "did you mean" suggestions. */
unsigned str_distance(const char *a, const char *b);
/* The candidate closest to word, or NULL if none is close enough to suggest. */
const char *str_suggest(const char *word, const char *const *cands, size_t n);

#endif
