/*
 * pb.c -- see pb.h.
 */
#include "workload/polybench/pb.h"

static const char *const pb_mm_params[] = {"ni", "nj", "nk", "q", NULL};
static const char *const pb_mm_bufs[] = {"X", "Y", "Z", NULL};

/* mm3_kernel's PTX: the entry (parameters, i, j, both tests: 22), the store
 * of the zero, the loop's preheader (16), then the loop (pb.h). */
const struct kd_desc pb_mm_kd = {
    .name = "mm_kernel",
    .params = pb_mm_params,
    .bufs = pb_mm_bufs,
    .range_join = PB_JOIN,
    .body = "alu 22\n"
            "if " PB_I " < ni\n"
            " if " PB_J " < nj\n"
            "  store X[" PB_I "*nj + " PB_J "] 4\n"
            "  alu 16\n" PB_MM_LOOP
            " end\n"
            "end\n",
};

void pb_launch_2d(struct kdw_launch *l, unsigned prog, uint64_t rows, uint64_t cols)
{
    l->prog = prog;
    l->grid = (struct kernel_dim){(uint32_t)div_ceil(cols, PB_BX), (uint32_t)div_ceil(rows, PB_BY),
                                  1};
    l->block = (struct kernel_dim){PB_BX, PB_BY, 1};
}

int pb_chain_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    (void)e;
    struct pb_chain *c = (struct pb_chain *)w;
    const struct pb_chain_def *def = ((const struct pb_chain_model *)w->m)->def;
    c->def = def;
    for (unsigned i = 0; def->dims[i]; i++)
        c->dim[i] = cfg_uint(sec, def->dims[i]);
    for (unsigned m = 0; def->mats[m]; m++)
        c->buf[m] = wl_alloc(w->env, def->mats[m], c->dim[def->rows[m]] * c->dim[def->cols[m]] * 4);
    return 0;
}

/* Product i: X = Y * Z over X's rows and columns, Y's columns inner. */
bool pb_chain_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct pb_chain *c = (const struct pb_chain *)w;
    const struct pb_chain_def *d = c->def;
    if (i == d->nprod)
        return false;
    unsigned x = d->x[i], y = d->y[i], z = d->z[i];
    uint64_t ni = c->dim[d->rows[x]], nj = c->dim[d->cols[x]], nk = c->dim[d->cols[y]];
    pb_launch_2d(l, 0, ni, nj);
    l->params[0] = (int64_t)ni;
    l->params[1] = (int64_t)nj;
    l->params[2] = (int64_t)nk;
    l->params[3] = (int64_t)(nk / 4);
    l->bufs[0] = c->buf[x];
    l->bufs[1] = c->buf[y];
    l->bufs[2] = c->buf[z];
    return true;
}

const char *const pb_mv_params[] = {"nx", "ny", "q", NULL};
const char *const pb_mv_bufs[] = {"A", "v", "o", NULL};

static uint64_t mv_len(const struct pb_mv *m, unsigned v)
{
    return m->n[m->def->nx_long[v] ? 0 : 1];
}

int pb_mv_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    (void)e;
    struct pb_mv *m = (struct pb_mv *)w;
    const struct pb_mv_def *def = ((const struct pb_mv_model *)w->m)->def;
    m->def = def;
    m->n[0] = cfg_uint(sec, "nx");
    m->n[1] = cfg_uint(sec, "ny");
    m->a = wl_alloc(w->env, "A", m->n[0] * m->n[1] * 4);
    for (unsigned v = 0; def->vecs[v]; v++)
        m->vec[v] = wl_alloc(w->env, def->vecs[v], mv_len(m, v) * 4);
    return 0;
}

bool pb_mv_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct pb_mv *m = (const struct pb_mv *)w;
    if (i == 2)
        return false;
    unsigned v = m->def->v[i], o = m->def->o[i];
    l->prog = (unsigned)i;
    l->grid = (struct kernel_dim){(uint32_t)div_ceil(mv_len(m, o), PB_MV_BLOCK), 1, 1};
    l->block = (struct kernel_dim){PB_MV_BLOCK, 1, 1};
    l->params[0] = (int64_t)m->n[0];
    l->params[1] = (int64_t)m->n[1];
    l->params[2] = (int64_t)(mv_len(m, v) / 4);
    l->bufs[0] = m->a;
    l->bufs[1] = m->vec[v];
    l->bufs[2] = m->vec[o];
    return true;
}
