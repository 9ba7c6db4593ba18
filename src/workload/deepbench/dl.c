/*
 * dl.c -- the launches the DL layer workloads share (dl.h).
 */
#include "dl.h"

uint32_t dl_dim(const struct cfg_sec *sec, const char *key, uint32_t preset)
{
    uint64_t v = cfg_uint(sec, key);
    return v ? (uint32_t)v : preset;
}

int dl_check_size(const struct cfg_sec *sec, const char *key, uint64_t bytes, struct err *e)
{
    if (bytes <= DL_MAX_B)
        return 0;
    return cfg_err(e, sec, key, "the layer takes %llu GiB (at most %llu)",
                   (unsigned long long)(bytes >> 30), (unsigned long long)(DL_MAX_B >> 30));
}

void dl_gemm(struct kdw_launch *l, enum mlk_layout lay, struct dl_mat a, struct dl_mat b,
             struct dl_mat c, uint32_t m, uint32_t n, uint32_t k, bool beta)
{
    struct mlk_gemm g = {.a = a.buf, .a_off = 4 * a.off, .lda = a.ld,
                         .b = b.buf, .b_off = 4 * b.off, .ldb = b.ld,
                         .c = c.buf, .c_off = 4 * c.off, .ldc = c.ld,
                         .m = m, .n = n, .k = k, .splits = 1, .beta = beta, .layout = lay};
    mlk_gemm_init(&g);
    mlk_gemm_plan(&g, 0, l);
}

bool dl_rec_fw(const struct dl_rec *r, uint64_t i, struct kdw_launch *l, uint64_t *t)
{
    uint64_t bh = (uint64_t)r->b * r->hid, gh = (uint64_t)r->g * r->hid;
    *t = (i - 1) / 2;
    if (!i)
        dl_gemm(l, MLK_L_NT, (struct dl_mat){r->x, 0, r->in}, (struct dl_mat){r->w, 0, r->in},
                (struct dl_mat){r->gates, 0, (uint32_t)gh}, r->t * r->b, (uint32_t)gh, r->in,
                false);
    else if (i % 2)
        dl_gemm(l, MLK_L_NT, (struct dl_mat){r->h, *t * bh, r->hid},
                (struct dl_mat){r->r, 0, r->hid}, (struct dl_mat){r->gates, *t * r->b * gh,
                                                                  (uint32_t)gh},
                r->b, (uint32_t)gh, r->hid, true);
    return !i || i % 2;
}

void dl_ew(struct kdw_launch *l, unsigned prog, uint64_t n)
{
    uint64_t wgs = div_ceil(n, DL_EW_BLOCK);
    BUG_ON(wgs > UINT32_MAX);
    l->prog = prog;
    l->grid = (struct kernel_dim){(uint32_t)wgs, 1, 1};
    l->block = (struct kernel_dim){DL_EW_BLOCK, 1, 1};
}
