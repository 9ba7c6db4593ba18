/*
 * trace.h -- reading Accel-Sim SASS traces captured with NVBit (spec
 * accelsim.md section 4): the command list `kernelslist.g` (kernel files and
 * MemcpyHtoD copies) and each `kernel-N.traceg` or `kernel-N.traceg.xz`
 * (liblzma, decompressed as it is read), tracer versions 3 to 5 and the
 * lines of version 6 that only add fields, the three address encodings
 * (list, base+stride, base+delta with popcount - 1 deltas), optional line
 * numbers and the immediate that version 3 lacks.
 *
 * A kernel file is read twice. trace_check_kernel() reads it once when the
 * run starts: it checks every line (so a bad trace fails before anything is
 * simulated, with "file:line: reason") and records where each thread block
 * starts. trace_read_tb() then reads one thread block when the simulated GPU
 * dispatches it, into a compact binary form (struct trace_rec), so memory
 * follows the resident thread blocks, never the trace's size. An .xz stream
 * cannot be entered in the middle: a reader positioned before a block
 * decompresses and skips up to it (docs/trace.md).
 *
 * Tokenizing is hand-written (no sscanf) and SASS opcodes are decoded once
 * per distinct spelling (trace_opcodes.c).
 */
#ifndef CHIPSIM_TRACE_H
#define CHIPSIM_TRACE_H

#include <stdio.h>

#include "base/base.h"
#include "mem/scope.h"

/* ---- buffered line input from a plain or .xz file ------------------------ */

#define TRACE_MAX_LINE 65536 /* longest line accepted, bytes */

struct trace_in {
    char *path;
    int fd;
    bool xz;
    void *lz;              /* lzma_stream when xz */
    uint8_t *zbuf;         /* compressed input */
    size_t zlen;
    char *buf;             /* decompressed bytes [beg, end) not yet returned */
    size_t cap, beg, end;
    uint64_t pos;          /* stream offset of buf[beg] */
    uint64_t line;         /* number of the line last returned (1-based) */
    bool eof;              /* nothing more to read from the source */
    uint64_t bytes;        /* bytes read (decompressed), lines returned or skipped */
    uint64_t skipped;      /* bytes decompressed only to reach a later offset */
};

int trace_in_open(struct trace_in *in, const char *path, struct err *e);
void trace_in_close(struct trace_in *in);
/* The next line without its end of line, NUL-terminated and writable until
 * the next call; *len its length. Returns 1, 0 at the end of the file, -1
 * on error (message in e: unreadable or corrupt file, line too long). */
int trace_in_line(struct trace_in *in, char **line, size_t *len, struct err *e);
/* Continue at stream offset off, which starts line number `line`. Plain
 * files seek; .xz files decompress from where they are (or from the start
 * if off is behind) and skip. */
int trace_in_seek(struct trace_in *in, uint64_t off, uint64_t line, struct err *e);
/* Offset of the next line. */
static inline uint64_t trace_in_tell(const struct trace_in *in) { return in->pos; }

/* ---- SASS opcodes (trace_opcodes.c) ---------------------------------------- */

/* What an instruction does. */
enum trace_kind {
    TK_ALU,      /* computes (also branches, moves, conversions ...) */
    TK_CONST,    /* constant-bank load (LDC, ULDC): no address in the trace */
    TK_LOAD,
    TK_STORE,
    TK_ATOMIC,   /* read-modify-write (ATOM, ATOMG, RED, ATOMS ...) */
    TK_ASYNC,    /* global-to-shared asynchronous copy (LDGSTS) */
    TK_WAIT,     /* waits for the asynchronous copies (DEPBAR, LDGDEPBAR ...) */
    TK_BARRIER,  /* CTA barrier (BAR.SYNC, BAR.RED) */
    TK_MEMBAR,   /* a fence: MEMBAR (both directions), CCTL.IVALL (acquire) */
    TK_EXIT,
};

enum trace_space { TSP_NONE, TSP_GLOBAL, TSP_LOCAL, TSP_SHARED, TSP_GENERIC };

/* Latency and issue-interval classes. */
enum trace_class {
    TC_INT,     /* integer add, logic, shift, compare, move, select */
    TC_IMAD,    /* integer multiply and multiply-add */
    TC_FP32,    /* FP32/FP16 add, multiply, compare */
    TC_FFMA,    /* FP32/FP16 fused multiply-add */
    TC_FP64,
    TC_SFU,     /* MUFU and the conversions */
    TC_TENSOR,  /* HMMA, IMMA, HGMMA ... */
    TC_SHFL,
    TC_CTRL,    /* branches, convergence barriers, nops, exit, barriers */
    TC_CONST,   /* constant-bank loads */
    TC_MEM,     /* issue of a load/store/atomic instruction (its latency is the memory's) */
    TC_N,
};

extern const char *const trace_class_names[TC_N];

#define TOP_UNKNOWN 1    /* not in the table: timed as a generic TC_INT operation */
#define TOP_ARRIVE 2     /* BAR.ARV: arrives without waiting */
#define TOP_SCOPE_PREV 4 /* a fence whose scope the instruction does not say (CCTL.IVALL): that
                            of the warp's last scoped instruction, else `scope` */

/* One distinct opcode spelling (with its modifiers) in one binary version. */
struct trace_opinfo {
    char *name;        /* e.g. "LDG.E.128.CONSTANT.SYS" */
    unsigned binver;
    uint8_t kind;      /* enum trace_kind */
    uint8_t space;     /* enum trace_space */
    uint8_t cls;       /* enum trace_class */
    uint8_t size;      /* bytes per lane of a memory access: 1, 2, 4, 8 or 16 */
    uint8_t scope;     /* enum mem_scope: of a fence, or of a strong load, store or atomic */
    uint8_t sem;       /* enum mem_sem: SEM_WEAK (plain access), SEM_RELAXED (.STRONG.<scope>,
                          atomics), SEM_ACQ_REL (MEMBAR: both directions), SEM_ACQUIRE
                          (CCTL.IVALL); see docs/trace.md 3.1 */
    uint8_t flags;     /* TOP_* */
};

/* Latency (cycles until the result can be read) and issue interval (cycles
 * the instruction occupies its sub-core) per class, for one family of binary
 * versions (docs/trace.md). */
struct trace_isa {
    unsigned ver;            /* first binary version of the family */
    const char *name;
    uint16_t lat[TC_N], ii[TC_N];
};

/* The family of binary version v (versions below 70 use Volta's). */
const struct trace_isa *trace_isa_for(unsigned binver);

/* The opcodes met so far: a hash table from (spelling, binary version) to
 * struct trace_opinfo, filled on first sight. Unknown mnemonics are
 * reported once each (on `warn`, if not NULL). */
struct trace_ops {
    struct trace_opinfo *v;
    size_t n, cap;
    uint32_t *hash;          /* index + 1, 0 = empty */
    size_t hcap;
    char **unknown;          /* distinct unknown mnemonics (without modifiers) */
    size_t nunknown, unknown_cap;
    FILE *warn;
};

void trace_ops_init(struct trace_ops *o, FILE *warn);
void trace_ops_free(struct trace_ops *o);
/* Index of the opcode spelled name[0..len) in binary version binver; file
 * and line name the first occurrence in the warning for an unknown one. */
uint32_t trace_ops_get(struct trace_ops *o, const char *name, size_t len, unsigned binver,
                       const char *file, uint64_t line);
/* Decode one spelling (no table); for tests. */
void trace_opcode_decode(const char *name, unsigned binver, struct trace_opinfo *out);

/* ---- kernel files ---------------------------------------------------------- */

struct trace_dim {
    uint32_t x, y, z;
};

struct trace_header {
    char *name;              /* mangled kernel name */
    uint32_t id;
    struct trace_dim grid, block;
    uint32_t shmem, nregs, binver, tracer;
    uint64_t stream;
    uint64_t shmem_base, local_base;
    bool lineinfo;
    char nvbit[24];
};

/* Where a thread block starts (its #BEGIN_TB line), and its size in records. */
struct trace_tbidx {
    uint64_t off, line;
    uint32_t tb;             /* linear id z*gy*gx + y*gx + x */
    uint32_t bytes;          /* its records (struct trace_tb data) */
    uint64_t kept;           /* where its warp table and records start in the kernel file's
                                kept blocks, + 1 (0: not kept, read again at dispatch) */
};

/* What the checking pass learns about one kernel file. */
struct trace_kfile {
    char *path;
    struct trace_header h;
    uint64_t ntb;            /* thread blocks of the grid */
    uint32_t warps_per_tb;   /* ceil(block threads / 32) */
    struct trace_tbidx *idx; /* the blocks present, by id (the trace may skip empty ones): 32
                                bytes per block; with the kept blocks, the only memory that
                                follows the trace */
    size_t nidx, idx_cap;
    /* Blocks in the compact form the check made of them, each its warp table
     * then its records, while they fit in keep_b bytes (set by the caller):
     * trace_read_tb() copies a kept block instead of reading its lines again. */
    size_t keep_b;
    uint8_t *kept;
    size_t kept_len, kept_cap;
    /* totals over the file */
    uint64_t tbs, warps, insts, lines, bytes;
    uint64_t unknown_insts;  /* instructions with an unknown opcode */
    size_t max_tb_bytes;     /* largest thread block in compact form */
};

/* Read a kernel file from start to end: check every line, fill kf (path and
 * keep_b are set by the caller). */
int trace_check_kernel(struct trace_kfile *kf, struct trace_ops *ops, struct err *e);
void trace_kfile_free(struct trace_kfile *kf);
/* Where thread block tb (linear id) starts, or NULL if the trace skips it. */
const struct trace_tbidx *trace_kfile_find(const struct trace_kfile *kf, uint64_t tb);

/* ---- one thread block in compact form ---------------------------------------- */

/* SASS registers R0..R254 fold onto scoreboard registers 1..TRACE_SB_REGS
 * (R n -> 1 + n mod TRACE_SB_REGS): exact for kernels of at most 60
 * registers per thread, which keeps aligned vector groups (R4:R7) together;
 * registers 61..63 are left for tokens (asynchronous copies). RZ (R255) and
 * the other register files (UR, P, UP of version 6) are not tracked. */
#define TRACE_SB_REGS 60
#define TRACE_SB_ASYNC 61

enum trace_form { TRF_NONE, TRF_STRIDE, TRF_LIST };

/* One instruction: 24 bytes, then its addresses: TRF_STRIDE the first
 * address lane's address and the stride (two 8-byte words), TRF_LIST one
 * address per lane of mask (lane order). For memory instructions mask has
 * only the lanes that carry an address (base+stride stops at the first
 * inactive lane, as the reference reader does). */
struct trace_rec {
    uint64_t srcs;           /* scoreboard registers read */
    uint32_t mask;           /* active lanes */
    uint32_t opc;            /* index in struct trace_ops */
    uint16_t site;           /* the instruction's static site: PC / 8 + 1, at most 65535 */
    uint8_t form;            /* enum trace_form */
    uint8_t dst;             /* scoreboard register written, 0 = none */
    uint8_t ndst;            /* registers written from dst on */
    uint8_t pad[3];
};
_Static_assert(sizeof(struct trace_rec) == 24, "struct trace_rec: 24 bytes");

static inline size_t trace_rec_size(const struct trace_rec *r)
{
    return sizeof *r + (r->form == TRF_STRIDE ? 16
                        : r->form == TRF_LIST ? 8u * (unsigned)popcount64(r->mask)
                                              : 0);
}

struct trace_tb_warp {
    uint32_t off;            /* byte offset of the first record in data */
    uint32_t n;              /* records; a warp absent from the trace has none */
};

struct trace_tb {
    uint32_t nwarps;
    struct trace_tb_warp *warp;  /* [warps_cap] */
    size_t warps_cap;
    uint8_t *data;               /* the records, 8-byte aligned */
    size_t len, cap;
};

void trace_tb_free(struct trace_tb *tb);
/* Read thread block `tb` (linear id) of kf through `in` (opened on kf->path;
 * unused, and may be NULL, if the block is kept or absent) into *out
 * (buffers reused; they grow only past their largest size). A block absent
 * from the trace gives warps without records. */
int trace_read_tb(struct trace_in *in, const struct trace_kfile *kf, struct trace_ops *ops,
                  uint64_t tb, struct trace_tb *out, struct err *e);

/* ---- kernelslist.g ------------------------------------------------------------ */

enum trace_cmd_kind { TCMD_KERNEL, TCMD_MEMCPY };

struct trace_cmd {
    enum trace_cmd_kind kind;
    char *path;              /* TCMD_KERNEL: kernel file, relative paths resolved */
    uint64_t addr, bytes;    /* TCMD_MEMCPY */
    uint64_t line;           /* line in the list */
};

struct trace_list {
    char *path;
    struct trace_cmd *cmd;
    size_t n, cap;
};

int trace_list_read(struct trace_list *l, const char *path, struct err *e);
void trace_list_free(struct trace_list *l);

#endif
