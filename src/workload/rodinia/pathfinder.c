/*
 * pathfinder.c -- Rodinia pathfinder (pathfinder.cu): row-by-row dynamic
 * programming over a rows x cols grid of int weights, `pyramid_height` rows
 * per kernel with a halo, ping-pong result rows.
 *
 * Modelled (a kernel description, src/workload/kd.h): calc_path() launches
 * dynproc_kernel for t = 0, ph, 2ph, ... < rows - 1 with iteration =
 * min(ph, rows - 1 - t); grid = ceil(cols / (256 - 2 ph)) work-groups of
 * BLOCK_SIZE = 256 threads; the real index arithmetic (blkX =
 * small_block_cols * bx - border, xidx = blkX + tx, validXmin/Max, W/E
 * clamped), the LDS arrays prev[256] and result[256], the __syncthreads() of
 * every iteration, the IN_RANGE(tx, i+1, 254-i) masks of the pyramid, the
 * wall loads gpuWall[cols * (startStep + i) + xidx] and the final store of
 * the computed lanes. Each kernel reads gpuWall (R) and the source row (R)
 * and writes the destination row (R/W), each work-group's columns derived
 * from the description; rows swap every kernel. ALU counts per basic block
 * from nvcc 13 -arch=sm_90 PTX of Rodinia 3.1's dynproc_kernel (every
 * instruction but global and LDS loads and stores, barriers, ret and
 * cvta.to.global); blocks with no op of their own are counted in the
 * nearest op run as often. See docs/workloads/pathfinder.md.
 * Abstracted: no data values (the model issues the accesses of every lane the
 * real code would run).
 */
#include <stdlib.h>

#include "workload/kd.h"
#include "workload/wl.h"

#define PF_BLOCK 256
#define PF_HALO 1

static const struct cfg_key pathfinder_keys[] = {
    {"cols", CFG_INT, "200000", 1, 1073741824.0, "columns of the grid (argv[1])", NULL},
    {"rows", CFG_INT, "100", 2, 1073741824.0, "rows of the grid (argv[2])", NULL},
    {"pyramid_height", CFG_INT, "20", 1, 1000000, "rows per kernel (argv[3])", NULL},
    CFG_END,
};

/* The kernel, with xidx = small*bx - border + tx (small = small_block_cols
 * = 256 - 2 it, border = borderCols) and LDS prev[] at element 0, result[]
 * at 256. A computing lane's neighbour W = tx - 1 and E = tx + 1 are
 * clamped to the valid lanes only at xidx = 0 (W) and xidx = cols - 1 (E),
 * where @edge[] (1 at element 0, else 0) moves them back to tx. ALU counts
 * from the PTX (docs/workloads/pathfinder.md): the first op has the
 * parameters, small_block_cols, blkX, xidx, the load test and address (24);
 * after the first barrier: result[tx]'s address, validXmin/Max, W, E,
 * isValid, the wall index's base (30); the tail: the computed test and
 * gpuResults' address (5). Per iteration the IN_RANGE / isValid tests (9)
 * and the i == iteration - 1 test after the barrier (2); from the second
 * iteration on, also the previous one's computed test and loop control (7);
 * two MINs and the wall address (4); the add, computed = true (2). */
#define PF_XIDX "small*bx - border + tx"
#define PF_VALID "if -1 < " PF_XIDX " < cols                   # isValid\n"
static const char *const pf_params[] = {"small", "border", "cols", "it", "start", NULL};
static const char *const pf_bufs[] = {"gpuWall", "gpuSrc", "gpuResults", NULL};
static const char *const pf_arrays[] = {"edge", NULL};
static const struct kd_desc pf_kd = {
    .name = "dynproc_kernel",
    .params = pf_params,
    .bufs = pf_bufs,
    .arrays = pf_arrays,
    .body = "alu 59\n" PF_VALID
            "  load gpuSrc[" PF_XIDX "] 4 -> r1\n"
            "  lds_store lds[tx] 4 < r1                    # prev[tx]\n"
            "end\n"
            "barrier\n"
            "for m0 = 0 .. it\n"
            "  alu 11 + 7 [0 < m0]\n"
            "  " PF_VALID
            "    if m0 < tx < 255 - m0                     # IN_RANGE(tx, i+1, BLOCK_SIZE-i-2)\n"
            "      lds_load lds[tx - 1 + @edge[" PF_XIDX "]] 4 -> r2              # prev[W]\n"
            "      lds_load lds[tx] 4 -> r3\n"
            "      lds_load lds[tx + 1 - @edge[cols - 1 - (" PF_XIDX ")]] 4 -> r4 # prev[E]\n"
            "      alu 4 < r2 r4\n"
            "      load gpuWall[cols*(start + m0) + " PF_XIDX "] 4 -> r5\n"
            "      alu 2 < r3 r5\n"
            "      lds_store lds[256 + tx] 4 < r5           # result[tx]\n"
            "    end\n"
            "  end\n"
            "  barrier\n"
            "  if m0 < it - 1                              # if (i == iteration - 1) break\n"
            "    " PF_VALID
            "      if m0 < tx < 255 - m0                   # computed: prev[tx] = result[tx]\n"
            "        lds_load lds[256 + tx] 4 -> r6\n"
            "        lds_store lds[tx] 4 < r6\n"
            "      end\n"
            "    end\n"
            "    barrier\n"
            "  end\n"
            "end\n" PF_VALID
            "  if it - 1 < tx < 256 - it                   # computed in the last iteration\n"
            "    lds_load lds[256 + tx] 4 -> r7\n"
            "    store gpuResults[" PF_XIDX "] 4 < r7\n"
            "  end\n"
            "end\n",
};

struct pathfinder {
    struct wl_env *env;
    struct kd_prog *prog;
    const struct kernel_buf *wall, *res[2];
    int64_t cols, rows, ph;
    uint32_t blocks; /* blockCols */
    int64_t t;       /* next startStep */
    unsigned src;    /* index of the source row buffer of the next kernel */
    uint32_t *edge;  /* [cols]: 1 at column 0 */
};

static void pathfinder_destroy(void *self)
{
    struct pathfinder *p = self;
    kd_prog_free(p->prog);
    free(p->edge);
    free(p);
}

static void *pathfinder_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    int64_t cols = (int64_t)cfg_uint(sec, "cols"), rows = (int64_t)cfg_uint(sec, "rows");
    int64_t ph = (int64_t)cfg_uint(sec, "pyramid_height");
    int64_t small = PF_BLOCK - ph * PF_HALO * 2;
    if (small <= 0) {
        cfg_err(e, sec, "pyramid_height", "256 - 2 x pyramid_height must be positive");
        return NULL;
    }
    if ((rows - 1) * cols > INT32_MAX) {
        cfg_err(e, sec, "rows", "(rows - 1) x cols must fit the int index of the real code");
        return NULL;
    }
    struct pathfinder *p = xcalloc(1, sizeof *p);
    p->env = env;
    if (!(p->prog = kd_compile(&pf_kd, e))) {
        pathfinder_destroy(p);
        return NULL;
    }
    p->cols = cols;
    p->rows = rows;
    p->ph = ph;
    p->blocks = (uint32_t)div_ceil((uint64_t)cols, (uint64_t)small);
    p->edge = xcalloc((size_t)cols, sizeof *p->edge);
    p->edge[0] = 1;
    p->res[0] = wl_alloc(env, "gpuResult0", (uint64_t)cols * 4);
    p->res[1] = wl_alloc(env, "gpuResult1", (uint64_t)cols * 4);
    p->wall = wl_alloc(env, "gpuWall", (uint64_t)((rows - 1) * cols) * 4);
    return p;
}

static bool pathfinder_next_kernel(void *self, struct kernel *k)
{
    struct pathfinder *p = self;
    if (p->t >= p->rows - 1)
        return false;
    int64_t it = p->rows - 1 - p->t < p->ph ? p->rows - 1 - p->t : p->ph;
    int64_t params[] = {PF_BLOCK - it * PF_HALO * 2, p->ph * PF_HALO, p->cols, it, p->t};
    const struct kernel_buf *bufs[] = {p->wall, p->res[p->src], p->res[!p->src]};
    struct kd_array edge = {p->edge, (uint64_t)p->cols};
    struct err e;
    if (kd_launch(p->prog, k, (struct kernel_dim){p->blocks, 1, 1},
                  (struct kernel_dim){PF_BLOCK, 1, 1}, params, bufs, &edge, &e))
        return wl_fail(p->env, &e);
    k->lds_b = 2 * PF_BLOCK * 4;
    p->t += p->ph;
    p->src = !p->src;
    return true;
}

static const char *const pathfinder_small[] = {"cols=4096", "rows=21", "pyramid_height=4", NULL};

const struct wl_ops wl_pathfinder = {
    .name = "pathfinder",
    .suite = "Rodinia",
    .desc = "Rodinia pathfinder: row-by-row dynamic programming, pyramid of rows per kernel, LDS",
    .keys = pathfinder_keys,
    .small = pathfinder_small,
    .create = pathfinder_create,
    .next_kernel = pathfinder_next_kernel,
    .destroy = pathfinder_destroy,
};
