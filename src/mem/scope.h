/*
 * scope.h -- the scoped memory model's vocabulary (spec hmg.md 2 and 5.2,
 * after PTX): the scope of an operation is the set of threads it promises
 * ordering to (its work-group, its GPU, or the whole system), and its
 * strength says whether it takes part in synchronization. Weak loads and
 * stores promise nothing beyond a fence; relaxed ones are strong but do
 * not order other accesses; an acquire orders the accesses after it, a
 * release those before it. A fence carries a scope and a direction
 * (acquire, release, or both).
 */
#ifndef CHIPSIM_SCOPE_H
#define CHIPSIM_SCOPE_H

#include <stdbool.h>

enum mem_scope { SCOPE_CTA, SCOPE_GPU, SCOPE_SYS, SCOPE_N };
enum mem_sem { SEM_WEAK, SEM_RELAXED, SEM_ACQUIRE, SEM_RELEASE, SEM_ACQ_REL, SEM_N };

static inline bool mem_sem_acquires(unsigned sem) { return sem == SEM_ACQUIRE || sem == SEM_ACQ_REL; }
static inline bool mem_sem_releases(unsigned sem) { return sem == SEM_RELEASE || sem == SEM_ACQ_REL; }

#endif
