/*
 * kd.h -- kernel descriptions: a kernel as data (a small program over the
 * block and thread indices, docs/workloads.md "Kernel descriptions") and the
 * one interpreter that turns it into the warp operations the CU executes.
 *
 * A description names its parameters (at most 16 integers bound at each launch), its
 * buffers (the kernel's arguments, bound to allocations at each launch), its
 * arrays (host data the model computed, bound at each launch: graph rows and
 * columns, a frontier) and its body, one statement per line:
 *
 *   alu N [+ M [A < B]]... [lat L] [-> rD] [< rA [rB ...]]
 *                         N ALU instructions (M more when some active lane
 *                         has A < B: code a branch's test shares with the
 *                         block it guards; up to 8 such clauses, each
 *                         tested on its own; A and B may read arrays)
 *   load BUF[EXPR] SIZE -> rD [< rA ...] [SCOPE SEM] [spin N] [fresh] [measure]
 *        [measure_bw]
 *   store BUF[EXPR] SIZE [< rA ...] [SCOPE SEM]
 *   atomic BUF[EXPR] SIZE [-> rD] [< rA ...] [SCOPE SEM]
 *   lds_load lds[EXPR] SIZE -> rD [< rA ...]
 *   lds_store lds[EXPR] SIZE [< rA ...]
 *   (any memory statement) ... if A < B [< C] [and ...] else [EXPR]
 *                         a test: lanes where it fails access element EXPR
 *                         instead (each condition a KD_S_AND statement
 *                         after it; the lanes stay active)
 *   barrier
 *   fence SCOPE [SEM]
 *   if EXPR < EXPR [< EXPR] [and EXPR < EXPR [< EXPR] ...]
 *                         lanes where every condition holds (both halves of
 *                         A < B < C) run the block up to `end` (each
 *                         further condition is a statement of its own,
 *                         KD_S_AND, after the if)
 *   for mK = EXPR .. EXPR [step S]
 *                         loop variable mK (0..3) from the first bound up to,
 *                         not including, the second, by S (1 if none; fixed
 *                         for the launch: no thread or loop variable)
 *   end
 *
 * SIZE is 1, 2, 4, 8 or 16, or a parameter whose value at each launch is.
 * A load's flags: `spin N` (KOP_F_SPIN: issued again until the words hold
 * versions written in this kernel, at most N more times), `fresh`
 * (KOP_F_FRESH), `measure` (KOP_F_MEASURE), `measure_bw` (KOP_F_MEASURE_BW:
 * its bytes count in the achieved bandwidth). N, and the N of `alu N`, is a
 * number or a parameter.
 * EXPR is an index expression (kd_expr.h) in elements of SIZE bytes: the
 * lane's address is the buffer's base (0 in the LDS) + EXPR * SIZE. SIZE/UNIT
 * (UNIT 1, 2, 4, 8 or 16) reads or writes SIZE bytes at base + EXPR * UNIT:
 * a wide access at a narrower element (four floats from the float at EXPR). Any
 * expression may read one element of an array, `@ARRAY[EXPR]`, in place of
 * the variable `ind`, or hold one min(EXPR, EXPR) or max(EXPR, EXPR) (an
 * index clamped at a grid's edge: max(i - 1, 0)); the derived ranges follow
 * a min or max, as they cannot follow an array read. Or it may hold one
 * quotient by a value fixed for the launch (a parameter, a block dimension),
 * at each lane: `A / B` is floor(A / B) and `A % B` is A - B * floor(A / B),
 * with the same A and B wherever the expression names them (the row and
 * column of a flat tile element, el / w and el % w). rD, rA: registers
 * r1 .. r63; rD and the first two rA may be a window rA..rB, the register
 * A + (iterations of the innermost enclosing loop mod (B - A + 1)) (loads in
 * flight in rotating registers).
 * SCOPE: cta, gpu or sys; SEM: relaxed, acquire, release or acq_rel. Every memory statement is a
 * static site, numbered from 1 in body order (kernel_op.site). A warp exits
 * after the last statement. An operand may be an expression in parentheses,
 * the same in every lane (no thread index; loop variables from the warp's
 * first lane), evaluated at each issue: a register `r(EXPR)` (the
 * destination or the first two sources; its value must be 1..63) and an ALU
 * count `alu (EXPR)` (1..1000000), and a clause's count `+ (EXPR) [A < B]`
 * (0..1000000): an unrolled loop's loads into r1, r3 ...
 * are `-> r(2*m1 + 1)`, a count per iteration `alu (@tests[m0])`. A loop
 * whose bounds differ between lanes runs
 * until its last lane is done, each lane active while its own variable is
 * below its own bound. In the derived ranges such a loop spans from the
 * least first bound to the greatest second bound of the work-group's lanes,
 * a bound that reads an array scanned at the indices they span.
 *
 * Irregular chunks: a description whose wg_items names one of its arrays A
 * (of at least grid + 1 entries at each launch) has the variables wg0 =
 * A[g] and wg1 = A[g + 1] in work-group g, the same in every lane of the
 * work-group and fixed in its derived ranges: `if wg0 + tx < wg1` are the
 * chunk's threads, `load x[wg0 + tx] 4` the chunk's items and
 * `lds_load lds[@next[wg0 + tx] - wg0] 4` an LDS slot relative to the chunk.
 */
#ifndef CHIPSIM_KD_H
#define CHIPSIM_KD_H

#include "gpu/kernel.h"
#include "workload/kd_expr.h"

#define KD_MAX_BUFS KERNEL_MAX_ARGS
#define KD_MAX_DEPTH 4

#define KD_MAX_ARRAYS 8

struct kd_desc {
    const char *name;
    const char *const *params; /* NULL-terminated, at most KD_MAX_PARAMS */
    const char *const *bufs;   /* NULL-terminated, at most KD_MAX_BUFS */
    const char *const *arrays; /* NULL-terminated, at most KD_MAX_ARRAYS (may be NULL) */
    const char *body;
    addr_t range_join;          /* derived ranges less than this many bytes apart merge
                                   (base/range.h; 0: only those that touch) */
    const char *range_join_param; /* or NULL: the parameter whose value at each launch is
                                     range_join (a pitch in bytes, say) */
    bool range_reads;           /* derived ranges read an array where the work-group reads
                                   it: at an index fixed in the work-group that element, at
                                   one that spans values each run of consecutive values
                                   read a piece (else any index that reads an array gives
                                   the whole structure) */
    const char *const *whole;   /* NULL-terminated, or NULL: buffers annotated as the whole
                                   structure, their ranges not derived (what a hand-written
                                   annotation leaves unbounded: data reached through a
                                   connectivity array, a reduction's one word) */
    bool arrays_fixed;          /* the arrays' contents never change during the run (a
                                   mesh's maps): an identical launch keeps the ranges its
                                   binding derived (else they are derived again, as the
                                   arrays may have changed) */
    const char *wg_items;       /* or NULL: the array (one of arrays) that partitions the
                                   items irregularly: work-group g's are wg0 = A[g] to
                                   wg1 - 1 = A[g + 1] - 1 (g its linear index; chunks of
                                   sides that hold whole zones) */
    bool general_only;          /* run every statement through the interpreter's general
                                   paths, without the forms composed at each launch for
                                   the common cases (tests compare the two op by op) */
};

/* Host data bound to an array of a description. */
struct kd_array {
    const uint32_t *v;
    uint64_t n;
};

/* KD_S_MORE: an alu's second and further `+ M [A < B]` clauses (extra, a
 * and b), one statement each, right after it; the alu's op adds them.
 * KD_S_AND: an if's second and further conditions, one statement each,
 * right after it; the if runs its block where all of them hold. */
enum kd_stmt_kind { KD_S_OP, KD_S_IF, KD_S_FOR, KD_S_END, KD_S_MORE, KD_S_AND };

/* An expression and, when it reads an array (`ind`), the array's index. */
#define KD_IX_MIN (-2) /* kd_ix.arr: `ind` is min(inner, inner2) */
#define KD_IX_MAX (-3) /* kd_ix.arr: `ind` is max(inner, inner2) */
#define KD_IX_DIV (-4) /* kd_ix.arr: `ind` is floor(inner / inner2), inner2 fixed per launch */
struct kd_ix {
    struct kd_poly e;
    int8_t arr;          /* the array `ind` reads, or -1, or KD_IX_MIN / MAX / DIV */
    struct kd_poly inner; /* its index (min, max: the first argument; a quotient's dividend) */
    struct kd_poly inner2; /* min, max: the second argument; a quotient's divisor */
};

/* Operands that may be expressions: the destination register, the first two
 * source registers, an ALU instruction count, a clause's count (kd_stmt.extra
 * is then 1). */
enum { KD_OX_DST, KD_OX_SRC0, KD_OX_SRC1, KD_OX_N, KD_OX_M, KD_NOX };

/* One statement. Memory and ALU statements carry the kernel_op they issue,
 * less its addresses and mask. */
struct kd_stmt {
    uint16_t line;  /* its line in the body, from 1 */
    uint8_t kind;   /* enum kd_stmt_kind */
    uint8_t depth;  /* enclosing ifs and loops */
    uint8_t var;    /* KD_S_FOR: its variable, KD_M0 .. KD_M3 */
    int8_t buf;     /* global memory statements: the buffer, else -1 */
    bool mem;       /* a global or LDS access */
    uint8_t size_param; /* memory: its size is parameter size_param - 1 (0: op.size) */
    uint8_t unit;       /* memory: SIZE/UNIT's UNIT (0: the size) */
    uint8_t n_param; /* alu N, spin N: N is parameter n_param - 1 (0: op.n) */
    uint8_t rot;     /* registers rA..rB: bit 0 dst, 1 src[0], 2 src[1] rotate */
    uint8_t rot_n;   /* their length B - A + 1 */
    uint8_t rot_var; /* with the iterations of this loop (the innermost, KD_M0 ..) */
    uint8_t nloops; /* enclosing loops, outermost first in loops[] */
    uint16_t loops[KD_MAX_DEPTH];
    uint16_t encl[KD_MAX_DEPTH]; /* enclosing ifs and loops, outermost first (depth of them) */
    uint16_t match; /* KD_S_IF, KD_S_FOR: its `end`; KD_S_END: its if or for */
    uint32_t extra; /* alu N + extra [a < b]; KD_S_MORE: its clause's M */
    uint8_t nmore;  /* KD_S_OP: the KD_S_MORE statements that follow it */
    bool stepped;   /* KD_S_FOR: has a step */
    bool two;       /* KD_S_IF: a < b < c */
    bool fallback;  /* memory: a test (KD_S_AND statements after it) whose failing
                       lanes access element b instead */
    struct kd_poly step;
    uint8_t ox[KD_NOX]; /* operands given by expressions (KD_OX_*): 1 + their index in the
                       program's ox[]; 0: fixed in op */
    bool has_ox;
    struct kernel_op op;
    struct kd_ix a, b, c; /* memory: a = the index; if: a < b (< c); for: from a to b */
};

struct kd_bound;

/* A parsed description and its launches so far. */
struct kd_prog {
    const struct kd_desc *d;
    unsigned nparams, nbufs, narrays, nstmt, nsites;
    struct kd_stmt *s;
    struct kd_ix *ox; /* operand expressions (kd_stmt.ox) */
    unsigned nox;
    size_t ox_cap;
    bool writes[KD_MAX_BUFS]; /* stored to or updated atomically */
    bool whole[KD_MAX_BUFS];  /* named in whole: no derived ranges */
    int join_param;           /* range_join_param's index, or -1 */
    int wg_arr;               /* wg_items' index among the arrays, or -1 */
    struct kd_bound **launch; /* at most KD_MAX_LAUNCHES, the oldest at [oldest] once full */
    size_t nlaunch, launch_cap, oldest;
};

/* Distinct launches of a description kept bound at once (a workload whose
 * launches all differ, one per tree leaf or graph level, keeps only these). */
#define KD_MAX_LAUNCHES 64

/* Parse d. NULL with the reason (statement line and what is wrong) in e. */
struct kd_prog *kd_compile(const struct kd_desc *d, struct err *e);
void kd_prog_free(struct kd_prog *p);
/* Compile d[0 .. n) into p[0 .. n): 0, or -1 with the reason in e (the ones
 * compiled so far stay in p, for kd_progs_free). */
int kd_compile_all(const struct kd_desc *d, unsigned n, struct kd_prog **p, struct err *e);
/* Free p[0 .. n) (NULL entries too). */
void kd_progs_free(struct kd_prog **p, unsigned n);

/* Fill k with a launch of p over grid x block, with parameter values params
 * (in the description's order), buffers bufs and arrays arrays (NULL if it
 * has none; their data must outlive the launch): the arguments (read or
 * read-write as the body uses them), the interpreter, and per-work-group
 * ranges of every argument (the rows and planes of a block, and lanes whose
 * elements are not adjacent, are pieces of their own; with range_reads an
 * array read at an index fixed in the work-group is read, any other makes
 * the ranges unknown). A launch identical to one of the last KD_MAX_LAUNCHES distinct
 * ones shares its binding; k may be used until KD_MAX_LAUNCHES more
 * distinct launches of p (kernels run one at a time). Returns 0, or -1 with
 * the reason in e (an index not affine per thread at this launch). */
int kd_launch(struct kd_prog *p, struct kernel *k, struct kernel_dim grid, struct kernel_dim block,
              const int64_t *params, const struct kernel_buf *const *bufs,
              const struct kd_array *arrays, struct err *e);

/* The description behind kernel k (a launch of kd_launch), or NULL. */
const struct kd_prog *kd_kernel_prog(const struct kernel *k);
/* Spec ladm.md 5, Algorithm 1, for buffer buf of p on a grid that is 2D (gy
 * > 1) or not: each global access to it is classified with m the variable of
 * its outermost enclosing loop (kd_classify); an index clamped by min or max
 * as its unclamped argument; a table read at m alone plus the thread's place
 * (d_data[jds_ptr[m] + gid]: a walk of data-dependent datablocks) as
 * intra-thread; any other array read or quotient as `ind` (data-dependent).
 * The accesses inside the most loops dominate (they run
 * most often): their class when they agree (the stride of the first), else
 * unclassified. A buffer the body never names is unclassified. Returns how
 * many accesses were classified. */
unsigned kd_buf_class(const struct kd_prog *p, unsigned buf, bool grid_2d, struct kd_class *out);

#endif
