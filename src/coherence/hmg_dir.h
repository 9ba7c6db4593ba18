/*
 * hmg_dir.h -- the directory transitions of NHCC and HMG (spec hmg.md 4.2,
 * thesis Table 5.1) as one table. A home's directory entry is in state I
 * (absent) or V (tracked, with a sharer vector); an event at the home moves
 * it and names the sharers to invalidate. The scheme (hmg.c) applies the
 * step; the table is the protocol.
 */
#ifndef CHIPSIM_HMG_DIR_H
#define CHIPSIM_HMG_DIR_H

#include <stdbool.h>
#include <stdint.h>

enum hmg_dstate { HMG_I, HMG_V, HMG_STATES };

/* Events at a home's directory; "local" is issued by the home node's own
 * GPM, "remote" by another GPM (or, at a system home, another GPU). */
enum hmg_devent {
    HMG_LOCAL_LD,
    HMG_LOCAL_ST,  /* a store or an atomic */
    HMG_REMOTE_LD,
    HMG_REMOTE_ST, /* a store, an atomic or a write-back */
    HMG_REPLACE,   /* the entry is the victim of an allocation */
    HMG_INV,       /* an invalidation received (HMG: a GPU home from the system home) */
    HMG_EVENTS
};

/* Actions of a transition. */
enum {
    HMG_A_ADD = 1,        /* add the sender to the sharers */
    HMG_A_INV_ALL = 2,    /* invalidate every sharer */
    HMG_A_INV_OTHERS = 4, /* invalidate every sharer but the sender */
    HMG_A_FWD = 8,        /* forward the invalidation to every sharer (HMG only) */
    HMG_A_NA = 16,        /* cannot happen */
};

struct hmg_dtrans {
    uint8_t act;  /* HMG_A_* */
    uint8_t next; /* enum hmg_dstate */
};

/* Table 5.1: [state][event]. */
static const struct hmg_dtrans hmg_dtable[HMG_STATES][HMG_EVENTS] = {
    [HMG_I] = {
        [HMG_LOCAL_LD] = {0, HMG_I},
        [HMG_LOCAL_ST] = {0, HMG_I},
        [HMG_REMOTE_LD] = {HMG_A_ADD, HMG_V},
        [HMG_REMOTE_ST] = {HMG_A_ADD, HMG_V},
        [HMG_REPLACE] = {HMG_A_NA, HMG_I},
        [HMG_INV] = {0, HMG_I},
    },
    [HMG_V] = {
        [HMG_LOCAL_LD] = {0, HMG_V},
        [HMG_LOCAL_ST] = {HMG_A_INV_ALL, HMG_I},
        [HMG_REMOTE_LD] = {HMG_A_ADD, HMG_V},
        [HMG_REMOTE_ST] = {HMG_A_ADD | HMG_A_INV_OTHERS, HMG_V},
        [HMG_REPLACE] = {HMG_A_INV_ALL, HMG_I},
        [HMG_INV] = {HMG_A_FWD, HMG_I},
    },
};

/* One step: an entry in state `st` with `sharers` (bit i: sharer i) meets
 * event `ev` from sender `s` (a sharer index; ignored where no action names
 * it). Gives the sharers to invalidate (or, HMG_INV, to forward to) and
 * the entry's state and sharers after. */
struct hmg_dstep {
    uint8_t next;
    uint64_t sharers;
    uint64_t inv;
};

static inline struct hmg_dstep hmg_dir_step(enum hmg_dstate st, uint64_t sharers,
                                            enum hmg_devent ev, unsigned s)
{
    struct hmg_dtrans t = hmg_dtable[st][ev];
    uint64_t self = 1ull << s;
    struct hmg_dstep o = {.next = t.next, .sharers = sharers};
    if (t.act & (HMG_A_INV_ALL | HMG_A_FWD))
        o.inv = sharers;
    if (t.act & HMG_A_INV_OTHERS)
        o.inv = sharers & ~self;
    if (t.act & HMG_A_ADD)
        o.sharers = (sharers & ~o.inv) | self;
    if (o.next == HMG_I)
        o.sharers = 0;
    return o;
}

#endif
