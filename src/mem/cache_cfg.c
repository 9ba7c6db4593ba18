/*
 * cache_cfg.c -- the cache's configuration keys, their cross-key checks and
 * its statistics (see cache.h; docs/cache.md sections 1 and 5).
 */
#include "cache.h"
#include "cache_array.h"

#include <inttypes.h>

#include "stats/stats.h"

const struct cfg_key cache_keys[] = {
    {"size_kib", CFG_INT, "16", 1, 4194304, "capacity in KiB", NULL},
    {"line_b", CFG_INT, "64", 64, 128, "line size in bytes: 64 or 128", NULL},
    {"ways", CFG_INT, "4", 1, 1024, "associativity", NULL},
    /* spec accelsim.md 2.6, A8 */
    {"index", CFG_ENUM, "linear", 0, 0,
     "bank and set selection: linear (line index bits) or ipoly (GPGPU-Sim's IPOLY hash of the "
     "line index bits above them, for 16, 32 or 64 banks or sets per bank; linear otherwise)",
     "linear|ipoly"},
    /* spec accelsim.md 2.5 */
    {"allocate", CFG_ENUM, "fill", 0, 0,
     "when a read miss takes its line: when the fill returns (fill), or when the miss is sent "
     "(miss: the victim is evicted then and the line is reserved, its replacement age counted "
     "from the miss; GPGPU-Sim's 'm')", "fill|miss"},
    /* spec accelsim.md 2.3-2.4 */
    {"sectored", CFG_BOOL, "false", 0, 0,
     "32 B sectors, each valid on its own: a miss fetches only the sectors it needs that are "
     "missing, and the fill carries only those (NVIDIA L1 and L2)", NULL},
    {"banks", CFG_INT, "1", 1, 1024,
     "line-interleaved banks (power of two): bank = (addr / line_b) % banks", NULL},
    {"ports", CFG_INT, "1", 1, 1024, "requests accepted per bank per cycle", NULL},
    /* Volta's L1: spec accelsim.md 2.3 */
    {"data_banks", CFG_INT, "0", 0, 64,
     "data-array banks of each bank, interleaved by 32 B sectors, each moving one sector per "
     "cycle, so that a request waits until the data banks of all its sectors are free (0: no "
     "data-bank limit; Volta's L1: 4, 128 B/cycle; an L2 slice with a 32 B data port: 1)",
     NULL},
    {"mshrs", CFG_INT, "16", 1, 65536, "miss status holding registers per cache", NULL},
    {"mshrs_remote", CFG_INT, "0", 0, 65536,
     "more MSHRs, only for requests from other chiplets, with their own waiting queue, so that "
     "they never wait behind local misses (0 = one pool for all)", NULL},
    {"mshr_targets", CFG_INT, "8", 1, 65536,
     "requests one MSHR holds, the one that allocated it included", NULL},
    {"hit_lat", CFG_INT, "4", 0, 1000000, "cycles from acceptance to the response of a hit",
     NULL},
    {"miss_lat", CFG_INT, "2", 0, 1000000,
     "cycles from acceptance to the request sent to the level below", NULL},
    {"resp_lat", CFG_INT, "2", 0, 1000000,
     "cycles from a fill (or the ack of a forwarded request) to the response", NULL},
    {"replacement", CFG_ENUM, "lru", 0, 0, "victim choice", "lru|fifo|random"},
    {"write_policy", CFG_ENUM, "write_back", 0, 0,
     "keep written bytes dirty here, or forward every write", "write_back|write_through"},
    {"write_alloc", CFG_ENUM, "fetch", 0, 0,
     "write miss: fetch the line, allocate only the written bytes, or forward without allocating",
     "fetch|validate|none"},
    {"local_write_policy", CFG_ENUM, "same", 0, 0,
     "write policy for per-thread local memory (NVIDIA LDL/STL; Accel-Sim's L1 policy 'L': "
     "local write-back, global write-through); same = write_policy",
     "same|write_back|write_through"},
    {"local_write_alloc", CFG_ENUM, "same", 0, 0,
     "write-miss policy for local memory; same = write_alloc", "same|fetch|validate|none"},
    {"walk_sets_per_cycle", CFG_INT, "1", 1, 65536,
     "sets per cycle per bank visited by a flush or invalidate walk", NULL},
    {"wb_inflight", CFG_INT, "64", 1, 65536,
     "flush write-backs in flight per bank (the walk pauses at the limit)", NULL},
    {"seed", CFG_INT, "1", 0, 9007199254740992.0, "seed of the random replacement stream", NULL},
    CFG_END,
};

static const struct stat_desc cache_stat_desc[] = {
    STAT_DESC(struct cache_stats, accesses, "requests accepted"),
    STAT_DESC(struct cache_stats, data_bank_stalls,
              "cycles requests waited for a data bank held by earlier sectors"),
    STAT_DESC(struct cache_stats, sectors, "32 B sectors the requests touch (NVIDIA's unit)"),
    STAT_DESC(struct cache_stats, reads, "READ requests"),
    STAT_DESC(struct cache_stats, read_hits, "READs with the line present and the bytes valid"),
    STAT_DESC(struct cache_stats, read_misses, "READs that needed the level below"),
    STAT_DESC(struct cache_stats, writes, "WRITE requests"),
    STAT_DESC(struct cache_stats, write_hits, "WRITEs with the line present"),
    STAT_DESC(struct cache_stats, write_misses, "WRITEs with the line absent"),
    STAT_DESC(struct cache_stats, atomics, "ATOMIC requests"),
    STAT_DESC(struct cache_stats, mshr_merges, "requests that joined an MSHR already in flight"),
    STAT_DESC(struct cache_stats, mshr_stalls, "requests that waited for an MSHR (or behind one)"),
    STAT_DESC(struct cache_stats, evictions, "valid lines replaced"),
    STAT_DESC(struct cache_stats, writebacks, "write-backs of dirty victims"),
    STAT_DESC(struct cache_stats, flushes, "flush operations"),
    STAT_DESC(struct cache_stats, flush_writebacks, "write-backs sent by flushes"),
    STAT_DESC(struct cache_stats, invalidates, "invalidate operations"),
    STAT_DESC(struct cache_stats, lines_invalidated, "lines dropped by invalidates"),
    {0},
};

/* ---- parameters ---------------------------------------------------------- */

/* NULL if p describes a cache we can build, else the reason; *key names the
 * key to blame in a config error. */
const char *cache_params_problem(const struct cache_params *p, const char **key, char *buf,
                                  size_t n)
{
    static const char *const positive[] = {"ways", "ports", "mshrs", "mshr_targets",
                                           "walk_sets_per_cycle", "wb_inflight"};
    const uint32_t vals[] = {p->ways, p->ports, p->mshrs, p->mshr_targets,
                             p->walk_sets_per_cycle, p->wb_inflight};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
        if (!vals[i])
            return *key = positive[i], "must be at least 1";
    *key = "line_b";
    if (p->line_b != 64 && p->line_b != 128)
        return "must be 64 or 128";
    uint64_t set_b = (uint64_t)p->line_b * p->ways;
    *key = "size_kib";
    if (!p->size_b || p->size_b % set_b) {
        snprintf(buf, n, "%" PRIu64 " B is not a whole number of sets (%u ways x %u B lines)",
                 p->size_b, p->ways, p->line_b);
        return buf;
    }
    uint64_t sets = p->size_b / set_b;
    if (!is_pow2(sets)) {
        snprintf(buf, n, "gives %" PRIu64 " sets (%u ways x %u B lines), not a power of two",
                 sets, p->ways, p->line_b);
        return buf;
    }
    *key = "banks";
    if (!is_pow2(p->banks))
        return "must be a power of two";
    if (sets % p->banks) {
        snprintf(buf, n, "the %" PRIu64 " sets cannot be split evenly across the banks", sets);
        return buf;
    }
    return NULL;
}

int cache_params_from_cfg(const struct cfg_sec *sec, struct cache_params *p, struct err *e)
{
    *p = (struct cache_params){
        .size_b = cfg_uint(sec, "size_kib") * 1024,
        .line_b = (uint32_t)cfg_uint(sec, "line_b"),
        .sectored = cfg_bool(sec, "sectored"),
        .alloc_on_miss = cfg_enum(sec, "allocate") == 1,
        .ipoly = cfg_enum(sec, "index") == 1,
        .ways = (uint32_t)cfg_uint(sec, "ways"),
        .banks = (uint32_t)cfg_uint(sec, "banks"),
        .ports = (uint32_t)cfg_uint(sec, "ports"),
        .data_banks = (uint32_t)cfg_uint(sec, "data_banks"),
        .mshrs = (uint32_t)cfg_uint(sec, "mshrs"),
        .mshrs_remote = (uint32_t)cfg_uint(sec, "mshrs_remote"),
        .mshr_targets = (uint32_t)cfg_uint(sec, "mshr_targets"),
        .hit_lat = (uint32_t)cfg_uint(sec, "hit_lat"),
        .miss_lat = (uint32_t)cfg_uint(sec, "miss_lat"),
        .resp_lat = (uint32_t)cfg_uint(sec, "resp_lat"),
        .repl = (enum cache_repl)cfg_enum(sec, "replacement"),
        .write_policy = (enum cache_write_policy)cfg_enum(sec, "write_policy"),
        .write_alloc = (enum cache_write_alloc)cfg_enum(sec, "write_alloc"),
        .walk_sets_per_cycle = (uint32_t)cfg_uint(sec, "walk_sets_per_cycle"),
        .wb_inflight = (uint32_t)cfg_uint(sec, "wb_inflight"),
        .seed = cfg_uint(sec, "seed"),
    };
    /* "same" is the first value of the local keys, the others follow the enums */
    p->local_write_policy = (uint8_t)cfg_enum(sec, "local_write_policy");
    p->local_write_alloc = (uint8_t)cfg_enum(sec, "local_write_alloc");
    char buf[200];
    const char *key = NULL;
    const char *why = cache_params_problem(p, &key, buf, sizeof buf);
    return why ? cfg_err(e, sec, key, "%s", why) : 0;
}

void cache_reg_stats(struct cache *c, struct stats *st, const char *prefix)
{
    stats_reg_block(st, prefix, cache_stat_desc, &c->st);
    if (!c->data_class)
        return;
    /* stats keep the name and help pointers: both static */
    static const char *const name[CACHE_DATA_N][2] = {
        {"local_accesses", "local_hits"},
        {"remote_chiplet_accesses", "remote_chiplet_hits"},
        {"remote_gpu_accesses", "remote_gpu_hits"},
    };
    static const char *const help[CACHE_DATA_N][2] = {
        {"reads and writes of data homed at this chiplet", "hits among them"},
        {"reads and writes of data homed on another chiplet of this GPU", "hits among them"},
        {"reads and writes of data homed on another GPU", "hits among them"},
    };
    for (unsigned k = 0; k < CACHE_DATA_N; k++)
        for (unsigned h = 0; h < 2; h++)
            stats_reg(st, prefix, name[k][h], &c->by_class[k][h], help[k][h]);
    static const char *const tname[CACHE_TRAFFIC_N][2] = {
        {"local_local_accesses", "local_local_hits"},
        {"local_remote_accesses", "local_remote_hits"},
        {"remote_local_accesses", "remote_local_hits"},
        {"remote_remote_accesses", "remote_remote_hits"},
    };
    static const char *const thelp[CACHE_TRAFFIC_N][2] = {
        {"reads, writes and atomics of this chiplet's CUs to data homed here (spec ladm 8, "
         "LOCAL-LOCAL)", "hits among them"},
        {"reads, writes and atomics of this chiplet's CUs to data homed elsewhere "
         "(LOCAL-REMOTE)", "hits among them"},
        {"reads, writes and atomics from other chiplets to data homed here (REMOTE-LOCAL)",
         "hits among them"},
        {"reads, writes and atomics from other chiplets to data homed elsewhere (a GPU home "
         "relaying)", "hits among them"},
    };
    for (unsigned k = 0; k < CACHE_TRAFFIC_N; k++)
        for (unsigned h = 0; h < 2; h++)
            stats_reg(st, prefix, tname[k][h], &c->by_traffic[k][h], thelp[k][h]);
    stats_reg(st, prefix, "sent_remote", &c->sent_remote,
              "reads, writes and atomics sent below for data homed elsewhere (misses and "
              "write-throughs leaving for the home)");
}

void cache_split_by_home(struct cache *c, const uint8_t *cls, unsigned n)
{
    c->data_class = cls;
    c->data_class_n = (uint16_t)n;
}
