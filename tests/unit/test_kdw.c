/*
 * The driver of workloads made of kernel descriptions (src/workload/kdw.h):
 * same_pattern derived from the buffers' previous uses, and a launch that
 * cannot be bound ending the workload with its error.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "wl_harness.h"
#include "workload/kdw.h"

extern const struct wl_ops wl_babelstream;

/* BabelStream with dot over fewer work-groups than the element-wise
 * kernels: an argument keeps its pattern from one element-wise kernel to the
 * next, loses it after dot (another grid), and sums keeps it from one dot to
 * the next. Flags per kernel, in argument order. */
Test(kdw, same_pattern_follows_each_buffers_previous_use)
{
    static const char *const expect[] = {
        "000",              /* init a b c: first uses */
        "11", "11", "111", "111", /* copy a c, mul b c, add a b c, triad a b c */
        "000",              /* dot a b sums: another grid; sums first used */
        "01", "01", "111", "111", /* copy: a last used by dot; mul: b too; add and
                                     triad: every array last used element-wise */
        "001",              /* dot: sums as the first dot */
    };
    struct wlh h;
    cr_assert(wlh_try(&h, &wl_babelstream, "[workload]\nn = 16384\niterations = 2\n"
                                           "dot_blocks = 8\ntbsize = 1024\n", 4, 8),
              "%s", h.e.msg);
    for (unsigned i = 0; i < sizeof expect / sizeof *expect; i++) {
        struct kernel k;
        cr_assert(h.ops->next_kernel(h.self, &k), "kernel %u", i);
        char got[KERNEL_MAX_ARGS + 1] = {0};
        for (unsigned a = 0; a < k.nargs; a++)
            got[a] = k.args[a].same_pattern ? '1' : '0';
        cr_expect_str_eq(got, expect[i], "kernel %u (%s)", i, k.name);
    }
    struct kernel k;
    cr_expect_not(h.ops->next_kernel(h.self, &k));
    cr_expect_not(h.env.failed);
    wlh_close(&h);
}

/* A model whose second launch cannot be bound: its parameter is so large
 * that the index's coefficient overflows 64 bits. */
static const char *const bad_params[] = {"p", NULL};
static const char *const bad_bufs[] = {"a", NULL};
static const struct kd_desc bad_kd = {.name = "bad", .params = bad_params, .bufs = bad_bufs,
                                      .body = "load a[gid*p] 4 -> r1\n"};
static const struct kd_desc *const bad_descs[] = {&bad_kd, NULL};

struct bad {
    struct kdw w;
    const struct kernel_buf *a;
};

static int bad_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    (void)sec, (void)e;
    ((struct bad *)w)->a = wl_alloc(w->env, "a", 1 << 16);
    return 0;
}

static bool bad_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    l->grid = (struct kernel_dim){4, 1, 1};
    l->block = (struct kernel_dim){64, 1, 1};
    l->params[0] = i ? INT64_MAX / 2 : 1;
    l->bufs[0] = ((struct bad *)w)->a;
    return i < 3;
}

static const struct kdw_model bad_model = {
    .size = sizeof(struct bad), .descs = bad_descs, .setup = bad_setup, .plan = bad_plan};

Test(kdw, a_launch_that_cannot_be_bound_ends_the_workload_with_its_error)
{
    struct wl_env env;
    wl_env_init(&env, 4096, 64, 1, 1, 1);
    struct err e = {0};
    void *self = kdw_create(&bad_model, &env, NULL, &e);
    cr_assert(self, "%s", e.msg);
    struct kernel k;
    cr_expect(kdw_next_kernel(self, &k));
    cr_expect_not(env.failed);
    cr_expect_not(kdw_next_kernel(self, &k));
    cr_expect(env.failed);
    cr_expect_str_eq(env.err.msg, "kernel bad, statement 1: a coefficient overflows 64 bits "
                                  "at this launch");
    kdw_destroy(self);
    wl_env_free(&env);
}
