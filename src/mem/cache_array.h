/*
 * cache_array.h -- the storage of struct cache (mem/cache.h), private to the
 * cache: byte masks, per-word versions, and the tag array -- set indexing,
 * per-set fingerprint rows and way bitmaps, LRU/FIFO stamps, line records.
 *
 * Everything here runs on every cache access, so it is inline, and laid out
 * for the host's caches rather than for brevity: a lookup reads one row of
 * byte fingerprints (16 compared at once) and checks full tags only where a
 * fingerprint matches; victims, walks and evictions of clean lines read the
 * way bitmaps instead of the line records. None of it changes what is
 * modelled: lookups, victims and walks pick exactly the ways a plain scan of
 * every tag and stamp would (tests/unit/test_cache.c checks this against a
 * reference model).
 */
#ifndef CHIPSIM_CACHE_ARRAY_H
#define CHIPSIM_CACHE_ARRAY_H

#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "mem/cache.h"

/* What the cache keeps of one line: a record of 32 bytes for 64-byte lines
 * (two in one host cache line) and of 64 for 128-byte lines (one). The
 * header is followed by the line's byte masks (bit i = byte i of the line),
 * valid then dirty, of cache.mask_words words each (rec_mask() and the
 * others below read and write them as two words). */
struct cache_line {
    uint64_t tag;      /* line index (addr >> line_shift); meaningless unless the way is valid */
    uint16_t home;     /* owned by the coherence scheme; set from req->home on install */
    uint8_t state;     /* owned by the coherence scheme; 0 on install */
    bool ver_mixed;    /* with versions: its words' versions differ, and are in its row of
                          wver; else every word's version is ver (0 on install) */
    uint32_t ver;
    uint64_t mask[];   /* valid [0, mask_words), dirty [mask_words, 2 mask_words) */
};
_Static_assert(sizeof(struct cache_line) == 16, "struct cache_line: a 16-byte header");

/* The record of line l. */
static inline struct cache_line *cache_rec(const struct cache *c, int64_t l)
{
    return (struct cache_line *)(void *)(c->recs + ((size_t)l << c->rec_shift));
}

/* Renumber a set's stamps before its tick wraps (rare; in cache_array.c). */
void cache_array_restamp(struct cache *c, size_t set);

/* ---- byte masks ------------------------------------------------------------ */

static inline bool mask_any(const uint64_t m[2]) { return (m[0] | m[1]) != 0; }
static inline bool mask_overlaps(const uint64_t a[2], const uint64_t b[2])
{
    return ((a[0] & b[0]) | (a[1] & b[1])) != 0;
}
static inline bool mask_covers(const uint64_t have[2], const uint64_t need[2])
{
    return !(need[0] & ~have[0]) && !(need[1] & ~have[1]);
}
static inline void mask_or(uint64_t d[2], const uint64_t m[2])
{
    d[0] |= m[0];
    d[1] |= m[1];
}
static inline void mask_copy(uint64_t d[2], const uint64_t m[2])
{
    d[0] = m[0];
    d[1] = m[1];
}

/* A record's byte masks (struct cache_line.mask): which = REC_VALID or
 * REC_DIRTY, read and written as two words (the second is 0 for 64-byte
 * lines, and not stored). */
enum { REC_VALID, REC_DIRTY };

static inline uint64_t *rec_mask_at(const struct cache *c, const struct cache_line *ln,
                                    unsigned which)
{
    return (uint64_t *)ln->mask + which * c->mask_words;
}
static inline void rec_mask(const struct cache *c, const struct cache_line *ln, unsigned which,
                            uint64_t out[2])
{
    const uint64_t *m = rec_mask_at(c, ln, which);
    out[0] = m[0];
    out[1] = c->mask_words == 2 ? m[1] : 0;
}
static inline void rec_put(const struct cache *c, struct cache_line *ln, unsigned which,
                           const uint64_t in[2])
{
    uint64_t *m = rec_mask_at(c, ln, which);
    m[0] = in[0];
    if (c->mask_words == 2)
        m[1] = in[1];
}
static inline void rec_or(const struct cache *c, struct cache_line *ln, unsigned which,
                          const uint64_t in[2])
{
    uint64_t *m = rec_mask_at(c, ln, which);
    m[0] |= in[0];
    if (c->mask_words == 2)
        m[1] |= in[1];
}
static inline void rec_clear(const struct cache *c, struct cache_line *ln, unsigned which)
{
    static const uint64_t none[2] = {0, 0};
    rec_put(c, ln, which, none);
}
static inline bool rec_any(const struct cache *c, const struct cache_line *ln, unsigned which)
{
    const uint64_t *m = rec_mask_at(c, ln, which);
    return (m[0] | (c->mask_words == 2 ? m[1] : 0)) != 0;
}
/* Word mask (req_word_mask) of a record's byte mask. */
static inline uint32_t rec_words(const struct cache *c, const struct cache_line *ln,
                                 unsigned which)
{
    uint64_t m[2];
    rec_mask(c, ln, which, m);
    return req_word_mask(m);
}

/* ---- per-word versions ----------------------------------------------------- */

/* Copy all the versions of a line (constant sizes, so the copy is inline). */
static inline void copy_all_versions(const struct cache *c, uint32_t *dst, const uint32_t *src)
{
    if (c->words == 16)
        memcpy(dst, src, 16 * sizeof *dst);
    else
        memcpy(dst, src, 32 * sizeof *dst);
}

/* Whether every version of a line's words (v[0 .. c->words - 1]) is x. */
static inline bool versions_all(const struct cache *c, const uint32_t *v, uint32_t x)
{
    __m128i want = _mm_set1_epi32((int)x), acc = _mm_setzero_si128();
    for (unsigned w = 0; w < c->words; w += 4) /* 16 or 32 words */
        acc = _mm_or_si128(acc, _mm_xor_si128(_mm_loadu_si128((const void *)(v + w)), want));
    return _mm_movemask_epi8(_mm_cmpeq_epi32(acc, _mm_setzero_si128())) == 0xffff;
}

/* Every version of a line's words (dst[0 .. c->words - 1]) set to x. */
static inline void fill_versions(const struct cache *c, uint32_t *dst, uint32_t x)
{
    __m128i v = _mm_set1_epi32((int)x);
    for (unsigned w = 0; w < c->words; w += 4)
        _mm_storeu_si128((void *)(dst + w), v);
}

/* Copy the versions of the words in word mask wm from src to dst. */
static inline void copy_word_versions(const struct cache *c, uint32_t *dst, const uint32_t *src,
                                      uint32_t wm)
{
    if (wm == c->all_words) {
        copy_all_versions(c, dst, src);
        return;
    }
    for (; wm; wm &= wm - 1) {
        unsigned w = (unsigned)__builtin_ctz(wm);
        dst[w] = src[w];
    }
}

/* Line l's row of wver: its versions while they differ (cache_line.ver_mixed). */
static inline uint32_t *line_ver_row(const struct cache *c, int64_t l)
{
    return c->wver + (size_t)l * c->words;
}

/* The versions of the words in word mask wm of line l, into dst
 * (cache_line_get_versions). */
static inline void get_line_versions(const struct cache *c, int64_t l, uint32_t *dst,
                                     uint32_t wm)
{
    const struct cache_line *ln = cache_rec(c, l);
    if (!ln->ver_mixed) {
        if (wm == c->all_words)
            fill_versions(c, dst, ln->ver);
        else
            for (; wm; wm &= wm - 1)
                dst[__builtin_ctz(wm)] = ln->ver;
        return;
    }
    copy_word_versions(c, dst, line_ver_row(c, l), wm);
}

/* Set the versions of the words in word mask wm of line l from src
 * (cache_line_set_versions). A line stays in its record while all its words
 * carry one version; the first write that gives its words different ones
 * spells them out in its row of wver, and a write that makes them all equal
 * again brings it back. */
static inline void set_line_versions(struct cache *c, int64_t l, const uint32_t *src,
                                     uint32_t wm)
{
    struct cache_line *ln = cache_rec(c, l);
    uint32_t *row = line_ver_row(c, l), diff = 0;
    if (wm == c->all_words) {
        bool same = versions_all(c, src, src[0]);
        ln->ver_mixed = !same;
        if (same)
            ln->ver = src[0];
        else
            copy_all_versions(c, row, src);
        return;
    }
    if (!ln->ver_mixed) {
        for (uint32_t m = wm; m; m &= m - 1)
            diff |= src[__builtin_ctz(m)] ^ ln->ver;
        if (!diff)
            return;
        /* some words now differ from the others, which keep ver */
        fill_versions(c, row, ln->ver);
        copy_word_versions(c, row, src, wm);
        ln->ver_mixed = true;
        return;
    }
    copy_word_versions(c, row, src, wm);
    if (versions_all(c, row, row[0])) {
        ln->ver = row[0];
        ln->ver_mixed = false;
    }
}

/* ---- tag array ------------------------------------------------------------- */

static inline uint64_t line_index(const struct cache *c, addr_t a) { return a >> c->line_shift; }

/* IPOLY hashing (Rau, ISCA 1991; spec accelsim.md 2.6): bit i of the index
 * is bit i of the linear index b XOR the parity of the bits of a (the line
 * index bits above b) selected by masks[log2 n][i], for n = 16, 32, 64. */
static const uint32_t ipoly_masks[7][6] = {
    [4] = {0xf59, 0x11eb, 0x3d6, 0x7ac},
    [5] = {0x3e69, 0x7cd2, 0x47cd, 0xf9a, 0x1f34},
    [6] = {0x79461, 0xbca3, 0x17946, 0x2f28c, 0x5e518, 0x3ca30},
};

static inline uint32_t ipoly(uint64_t a, uint32_t b, unsigned bits)
{
    uint32_t n = 0;
    for (unsigned i = 0; i < bits; i++)
        n |= (uint32_t)((__builtin_parityll(a & ipoly_masks[bits][i]) ^ (b >> i)) & 1) << i;
    return n;
}

static inline uint32_t bank_of(const struct cache *c, uint64_t li)
{
    uint32_t b = (uint32_t)(li & (c->p.banks - 1));
    return c->ipoly_banks ? ipoly(li >> c->bank_shift, b, c->bank_shift) : b;
}

/* Sets are numbered bank-major: set = bank * sets_per_bank + set in bank. */
static inline size_t set_of(const struct cache *c, uint64_t li)
{
    uint64_t x = li >> c->bank_shift;
    uint32_t set = (uint32_t)(x & (c->sets_per_bank - 1));
    if (c->ipoly_sets)
        set = ipoly(x >> c->set_bits, set, c->set_bits);
    return (size_t)bank_of(c, li) * c->sets_per_bank + set;
}

static inline uint8_t fingerprint(const struct cache *c, uint64_t li)
{
    return (uint8_t)(((li >> c->index_bits) * 0x9e3779b97f4a7c15ull) >> 56);
}

/* Bit i set where row[i] == f, for the 16 bytes of row. */
static inline uint32_t fp_match16(const uint8_t *row, uint8_t f)
{
#ifdef __SSE2__
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)row);
    return (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8((char)f)));
#else
    uint32_t m = 0;
    for (unsigned i = 0; i < 16; i++)
        m |= (uint32_t)(row[i] == f) << i;
    return m;
#endif
}

/* Valid bits of the ways of a set, followed by their dirty bits. */
static inline uint64_t *set_bits(const struct cache *c, size_t set)
{
    return c->waybits + set * 2 * c->bits_row;
}

static inline size_t line_set(const struct cache *c, size_t l)
{
    return c->way_shift ? l >> c->way_shift : l / c->p.ways;
}

/* Turn bit `way` of a set's valid (dirty = false) or dirty bitmap on or off. */
static inline void way_bit(const struct cache *c, size_t set, uint32_t way, bool dirty, bool on)
{
    uint64_t *w = set_bits(c, set) + (dirty ? c->bits_row : 0) + way / 64;
    uint64_t bit = 1ull << (way % 64);
    *w = on ? *w | bit : *w & ~bit;
}

static inline bool way_dirty(const struct cache *c, size_t set, uint32_t way)
{
    return (set_bits(c, set)[c->bits_row + way / 64] >> (way % 64)) & 1;
}

/* Keep line l's dirty bit equal to "the line has dirty bytes". */
static inline void sync_dirty(struct cache *c, int64_t l)
{
    size_t set = line_set(c, (size_t)l);
    way_bit(c, set, (uint32_t)((size_t)l - set * c->p.ways), true,
           rec_any(c, cache_rec(c, l), REC_DIRTY));
}

/* Ask the host for the rows a lookup of li will read (issued early, so the
 * misses overlap with other work). */
static inline void prefetch_set(const struct cache *c, uint64_t li)
{
    size_t set = set_of(c, li);
    __builtin_prefetch(c->fp + set * c->fp_row);
    __builtin_prefetch(set_bits(c, set));
}

/* The valid ways among ways 16k .. 16k + 15 of a set (row: its fingerprints,
 * valid: its valid bits) whose fingerprint is f, bit i for way 16k + i. */
static inline uint32_t fp_candidates(const uint8_t *row, const uint64_t *valid, uint8_t f,
                                     uint32_t k)
{
    return fp_match16(row + 16 * k, f) & (uint32_t)(valid[k / 4] >> (16 * (k % 4))) & 0xffff;
}

/* The way holding li: only valid ways with a matching fingerprint are
 * compared in full, lowest way first (as a scan of every tag would). */
static inline int64_t lookup(const struct cache *c, uint64_t li)
{
    size_t set = set_of(c, li), base = set * c->p.ways;
    const uint8_t *row = c->fp + set * c->fp_row;
    const uint64_t *valid = set_bits(c, set);
    uint8_t f = fingerprint(c, li);
    for (uint32_t k = 0; k < c->fp_row / 16; k++) {
        for (uint32_t m = fp_candidates(row, valid, f, k); m; m &= m - 1) {
            size_t l = base + 16 * k + (unsigned)__builtin_ctz(m);
            if (cache_rec(c, (int64_t)l)->tag == li)
                return (int64_t)l;
        }
    }
    return -1;
}

/* Ask the host for the rows of li's set, and then, by them, for the record
 * of the way a lookup of li would compare first (which holds its versions
 * unless they differ), without waiting for those. */
static inline void prefetch_line(const struct cache *c, uint64_t li)
{
    size_t set = set_of(c, li);
    const uint8_t *row = c->fp + set * c->fp_row;
    const uint64_t *valid = set_bits(c, set);
    __builtin_prefetch(row);
    __builtin_prefetch(valid);
    uint8_t f = fingerprint(c, li);
    for (uint32_t k = 0; k < c->fp_row / 16; k++) {
        uint32_t m = fp_candidates(row, valid, f, k);
        if (m) {
            size_t l = set * c->p.ways + 16 * k + (unsigned)__builtin_ctz(m);
            __builtin_prefetch(cache_rec(c, (int64_t)l));
            return;
        }
    }
}

/* A functional pass completes each access before the next, so nothing asks
 * ahead for what the next accesses read. A stream of consecutive lines is
 * the common case: ask now for li + 2's rows, and, by li + 1's rows (asked
 * for one access ago), for li + 1's record. */
static inline void prefetch_next_lines(const struct cache *c, uint64_t li)
{
    prefetch_set(c, li + 2);
    prefetch_line(c, li + 1);
}

static inline uint16_t next_stamp(struct cache *c, size_t set)
{
    if (__builtin_expect(c->set_tick[set] == UINT16_MAX, 0))
        cache_array_restamp(c, set);
    return ++c->set_tick[set];
}

static inline void touch(struct cache *c, int64_t l)
{
    if (c->p.repl == CACHE_LRU)
        c->stamp[l] = next_stamp(c, line_set(c, (size_t)l));
}

static inline bool way_valid(const struct cache *c, size_t set, uint32_t way)
{
    return (set_bits(c, set)[way / 64] >> (way % 64)) & 1;
}

/* Whether line l is valid and holds line index li. */
static inline bool line_holds(const struct cache *c, int64_t l, uint64_t li)
{
    size_t set = line_set(c, (size_t)l);
    return cache_rec(c, l)->tag == li && way_valid(c, set, (uint32_t)((size_t)l - set * c->p.ways));
}

/* Only the way bits change: nothing reads the record of an invalid way (an
 * install rewrites it whole), so a walk that drops lines never touches them. */
static inline void drop_way(struct cache *c, size_t set, uint32_t way)
{
    way_bit(c, set, way, false, false);
    way_bit(c, set, way, true, false);
}

static inline void drop_line(struct cache *c, int64_t l)
{
    size_t set = line_set(c, (size_t)l);
    drop_way(c, set, (uint32_t)((size_t)l - set * c->p.ways));
}

/* Invalid ways first (lowest index), then the policy: LRU and FIFO both take
 * the smallest stamp (the lowest way among equals), they differ in when
 * stamps move (touch()). */
static inline uint32_t victim_way(struct cache *c, size_t set)
{
    const uint64_t *valid = set_bits(c, set);
    uint32_t ways = c->p.ways;
    for (uint32_t k = 0; k < c->bits_row; k++) {
        uint32_t left = ways - 64 * k;
        uint64_t inv = ~valid[k] & low_bits(left);
        if (inv)
            return 64 * k + (uint32_t)__builtin_ctzll(inv);
    }
    if (c->p.repl == CACHE_RANDOM)
        return (uint32_t)rng_below(&c->rng, ways);
    const uint16_t *st = c->stamp + set * ways;
    uint16_t lo = st[0];
    for (uint32_t w = 1; w < ways; w++)
        lo = st[w] < lo ? st[w] : lo;
    uint32_t best = 0;
    while (st[best] != lo)
        best++;
    return best;
}

/* Shared by the cache's files (cache.c, cache_cfg.c, cache_walk.c). */
/* NULL if p describes a cache we can build, else the reason; *key names the
 * key to blame. */
const char *cache_params_problem(const struct cache_params *p, const char **key, char *buf,
                                 size_t n);
/* A write-back of line l's dirty bytes, for the level below. */
struct req *cache_wb_child(struct sim *s, const struct cache *c, int64_t l);
/* Send ch to the level below at t (an event, so that it never re-enters the
 * cache in the middle of an update). */
void cache_send_at(struct sim *s, struct cache *c, struct req *ch, ps_t t);

#endif
