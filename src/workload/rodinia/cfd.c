/*
 * cfd.c -- Rodinia CFD (euler3d, CUDA): an unstructured-grid finite-volume
 * solver of the 3D Euler equations (spec remote-core.md 14 "R-CFD"). Each
 * element has 5 variables (density, momentum x y z, energy) stored as
 * structures of arrays of `nelr` (elements rounded up to the 192-thread
 * block), 4 neighbours and their face normals. Per iteration: the old
 * variables are copied (a device-to-device copy), compute_step_factor,
 * then three Runge-Kutta stages of compute_flux and time_step.
 *
 * Modelled (kernel descriptions, kd.h): initialize_variables on variables,
 * old_variables and fluxes; then per iteration the seven kernels, one
 * thread per element. compute_flux reads its element's variables, then per
 * face the neighbour's index and the normal, and for an interior face the
 * neighbour's 5 variables (gathered through the host's neighbour array);
 * boundary faces (wing: -1, far field: -2) are ALU only. Input:
 * Rodinia's fvcorr.domn.097K (97,046 elements) is not in ../shared/data:
 * a substitute mesh of that size, elements on a cube grid in index order
 * (neighbours x - 1, x + 1, and y or z by the parity of x: the index
 * locality of a renumbered mesh), faces leaving the cube through z wing
 * boundaries, others far field. ALU counts from nvcc 13 -arch=sm_90 PTX of
 * a CUDA version (docs/workloads/cfd.md).
 * Abstracted: no data values; the device-to-device copy of the variables
 * at each iteration is not a kernel and is not modelled.
 */
#include <stdlib.h>
#include <string.h>

#include "workload/kdw.h"

#define CFD_BLOCK 192
#define CFD_NNB 4

static const struct cfg_key cfd_keys[] = {
    {"elements", CFG_INT, "97046", 1, 10000000, "mesh elements (fvcorr.domn.097K: 97046)", NULL},
    {"iterations", CFG_INT, "2000", 1, 1000000, "solver iterations (Rodinia: 2000)", NULL},
    CFG_END,
};

/* PTX counts per block: see the page. Faces are stored as neighbour + 2 in
 * the array nbp: 0 far field, 1 wing, >= 2 an element. */
static const char *const cfd_params[] = {"nelr", "j", NULL};
static const char *const init_bufs[] = {"variables", NULL};
static const char *const sf_bufs[] = {"variables", "areas", "step_factors", NULL};
static const char *const flux_bufs[] = {"elements_surrounding_elements", "normals", "variables",
                                        "fluxes", NULL};
static const char *const ts_bufs[] = {"old_variables", "variables", "step_factors", "fluxes",
                                      NULL};
static const char *const cfd_arrays[] = {"nbp", NULL};
enum { K_INIT, K_SF, K_FLUX, K_TS };
static const struct kd_desc cfd_kd[] = {
    [K_INIT] = {.name = "cuda_initialize_variables", .params = cfd_params, .bufs = init_bufs,
                .body = "alu 9\n"
                        "store variables[gid] 4\n"
                        "alu 4\n"
                        "store variables[gid + nelr] 4\n"
                        "alu 5\n"
                        "store variables[gid + 2*nelr] 4\n"
                        "alu 4\n"
                        "store variables[gid + 3*nelr] 4\n"
                        "alu 2\n"
                        "store variables[gid + 4*nelr] 4\n"},
    [K_SF] = {.name = "cuda_compute_step_factor", .params = cfd_params, .bufs = sf_bufs,
              .body = "alu 10\n"
                      "load variables[gid] 4 -> r1\n"
                      "alu 3\n"
                      "load variables[gid + nelr] 4 -> r2\n"
                      "alu 4\n"
                      "load variables[gid + 2*nelr] 4 -> r3\n"
                      "alu 3\n"
                      "load variables[gid + 3*nelr] 4 -> r4\n"
                      "alu 1\n"
                      "load variables[gid + 4*nelr] 4 -> r5\n"
                      "alu 15 < r1 r2 r3 r4 r5\n"
                      "load areas[gid] 4 -> r6\n"
                      "alu 6 < r6\n"
                      "store step_factors[gid] 4\n"},
    [K_FLUX] = {.name = "cuda_compute_flux", .params = cfd_params, .bufs = flux_bufs,
                .arrays = cfd_arrays,
                .body = "alu 22\n"
                        "load variables[gid] 4 -> r1\n"
                        "load variables[gid + nelr] 4 -> r2\n"
                        "alu 1\n"
                        "load variables[gid + 2*nelr] 4 -> r3\n"
                        "alu 1\n"
                        "load variables[gid + 3*nelr] 4 -> r4\n"
                        "alu 5\n"
                        "load variables[gid + 4*nelr] 4 -> r5\n"
                        "alu 56 < r1 r2 r3 r4 r5\n"
                        "for m0 = 0 .. 4\n"
                        "  load elements_surrounding_elements[gid + m0*nelr] 4 -> r6\n"
                        "  alu 2\n"
                        "  load normals[gid + m0*nelr] 4 -> r7\n"
                        "  load normals[gid + (m0 + 4)*nelr] 4 -> r8\n"
                        "  alu 2\n"
                        "  load normals[gid + (m0 + 8)*nelr] 4 -> r9\n"
                        "  alu 4 < r6 r7 r8 r9\n"
                        "  if 1 < @nbp[m0*nelr + gid]              # an element\n"
                        "    alu 12\n"
                        "    load variables[@nbp[m0*nelr + gid] - 2] 4 -> r10\n"
                        "    load variables[@nbp[m0*nelr + gid] - 2 + nelr] 4 -> r11\n"
                        "    alu 1\n"
                        "    load variables[@nbp[m0*nelr + gid] - 2 + 2*nelr] 4 -> r12\n"
                        "    alu 1\n"
                        "    load variables[@nbp[m0*nelr + gid] - 2 + 3*nelr] 4 -> r13\n"
                        "    alu 6\n"
                        "    load variables[@nbp[m0*nelr + gid] - 2 + 4*nelr] 4 -> r14\n"
                        "    alu 58 < r10 r11 r12 r13 r14\n"
                        "  end\n"
                        "  if @nbp[m0*nelr + gid] < 2              # a boundary\n"
                        "    alu 3\n"
                        "    if 0 < @nbp[m0*nelr + gid]            # wing\n"
                        "      alu 4\n"
                        "    end\n"
                        "    if @nbp[m0*nelr + gid] < 1            # far field\n"
                        "      alu 21\n"
                        "    end\n"
                        "  end\n"
                        "  alu 5\n"
                        "end\n"
                        "alu 15\n"
                        "store fluxes[gid] 4\n"
                        "alu 2\n"
                        "store fluxes[gid + nelr] 4\n"
                        "alu 1\n"
                        "store fluxes[gid + 2*nelr] 4\n"
                        "alu 2\n"
                        "store fluxes[gid + 3*nelr] 4\n"
                        "alu 1\n"
                        "store fluxes[gid + 4*nelr] 4\n"},
    [K_TS] = {.name = "cuda_time_step", .params = cfd_params, .bufs = ts_bufs,
              .body = "alu 12\n"
                      "load step_factors[gid] 4 -> r1\n"
                      "alu 5 < r1\n"
                      "load old_variables[gid] 4 -> r2\n"
                      "alu 1\n"
                      "load fluxes[gid] 4 -> r3\n"
                      "alu 2 < r2 r3\n"
                      "store variables[gid] 4\n"
                      "alu 3\n"
                      "load old_variables[gid + 4*nelr] 4 -> r2\n"
                      "alu 1\n"
                      "load fluxes[gid + 4*nelr] 4 -> r3\n"
                      "alu 2 < r2 r3\n"
                      "store variables[gid + 4*nelr] 4\n"
                      "for m0 = 1 .. 4\n"
                      "  alu 3\n"
                      "  load old_variables[gid + m0*nelr] 4 -> r2\n"
                      "  alu 1\n"
                      "  load fluxes[gid + m0*nelr] 4 -> r3\n"
                      "  alu 2 < r2 r3\n"
                      "  store variables[gid + m0*nelr] 4\n"
                      "end\n"},
};

struct cfd {
    struct kdw w;
    uint32_t nel, nelr;
    uint32_t *nbp; /* face j of element i: nbp[j * nelr + i] = neighbour + 2 */
    const struct kernel_buf *var, *old, *flux, *areas, *sf, *ese, *normals;
    unsigned iterations;
};

/* Face j of element i on an a x a x a cube in index order: x - 1, x + 1,
 * then y - 1, y + 1 (x even) or z - 1, z + 1 (x odd); + 2 as nbp stores it
 * (1: wing, leaving through z; 0: far field). */
static uint32_t cfd_face(uint32_t i, unsigned j, uint32_t a, uint32_t nel)
{
    int64_t c[3] = {i % a, i / a % a, i / ((uint64_t)a * a)};
    unsigned axis = j < 2 ? 0 : c[0] % 2 ? 2 : 1;
    c[axis] += j % 2 ? 1 : -1;
    if (c[axis] < 0 || c[axis] >= a)
        return axis == 2 ? 1 : 0;
    uint64_t nb = (uint64_t)c[0] + (uint64_t)a * ((uint64_t)c[1] + (uint64_t)a * (uint64_t)c[2]);
    return nb < nel ? (uint32_t)nb + 2 : 0;
}

/* The mesh's faces; the padding elements copy the last one's, as Rodinia's
 * reader pads them. */
static void cfd_mesh(struct cfd *c)
{
    uint32_t a = 1;
    while ((uint64_t)a * a * a < c->nel)
        a++;
    c->nbp = xmalloc((size_t)CFD_NNB * c->nelr * sizeof *c->nbp);
    for (unsigned j = 0; j < CFD_NNB; j++)
        for (uint32_t i = 0; i < c->nelr; i++)
            c->nbp[(size_t)j * c->nelr + i] = cfd_face(i < c->nel ? i : c->nel - 1, j, a, c->nel);
}

static int cfd_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    (void)e;
    struct cfd *c = (struct cfd *)w;
    c->nel = (uint32_t)cfg_uint(sec, "elements");
    c->nelr = (uint32_t)div_ceil(c->nel, CFD_BLOCK) * CFD_BLOCK;
    c->iterations = (unsigned)cfg_uint(sec, "iterations");
    cfd_mesh(c);
    uint64_t n4 = (uint64_t)c->nelr * 4;
    c->var = wl_alloc(w->env, "variables", 5 * n4);
    c->old = wl_alloc(w->env, "old_variables", 5 * n4);
    c->flux = wl_alloc(w->env, "fluxes", 5 * n4);
    c->areas = wl_alloc(w->env, "areas", n4);
    c->sf = wl_alloc(w->env, "step_factors", n4);
    c->ese = wl_alloc(w->env, "elements_surrounding_elements", CFD_NNB * n4);
    c->normals = wl_alloc(w->env, "normals", 3 * CFD_NNB * n4);
    return 0;
}

/* Launches 0-2 initialize variables, old_variables and fluxes; then per
 * iteration step factors and three stages of flux and time step. */
static bool cfd_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct cfd *c = (const struct cfd *)w;
    uint64_t r = i < 3 ? 0 : (i - 3) % 7;
    if (i >= 3 && (i - 3) / 7 >= c->iterations)
        return false;
    l->grid = (struct kernel_dim){c->nelr / CFD_BLOCK, 1, 1};
    l->block = (struct kernel_dim){CFD_BLOCK, 1, 1};
    l->params[0] = c->nelr;
    const struct kernel_buf *b[4] = {0};
    if (i < 3) {
        l->prog = K_INIT;
        b[0] = i == 0 ? c->var : i == 1 ? c->old : c->flux;
    } else if (r == 0) {
        l->prog = K_SF, b[0] = c->var, b[1] = c->areas, b[2] = c->sf;
    } else if (r % 2) {
        l->prog = K_FLUX, b[0] = c->ese, b[1] = c->normals, b[2] = c->var, b[3] = c->flux;
        l->arrays[0] = (struct kd_array){c->nbp, (uint64_t)CFD_NNB * c->nelr};
    } else {
        l->prog = K_TS, b[0] = c->old, b[1] = c->var, b[2] = c->sf, b[3] = c->flux;
        l->params[1] = (int64_t)(r / 2 - 1);
    }
    memcpy(l->bufs, b, sizeof b);
    return true;
}

static void cfd_release(struct kdw *w)
{
    free(((struct cfd *)w)->nbp);
}

static const struct kd_desc *const cfd_descs[] = {&cfd_kd[K_INIT], &cfd_kd[K_SF],
                                                  &cfd_kd[K_FLUX], &cfd_kd[K_TS], NULL};
static const struct kdw_model cfd_model = {.size = sizeof(struct cfd), .descs = cfd_descs,
                                           .setup = cfd_setup, .plan = cfd_plan,
                                           .release = cfd_release};

static void *cfd_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&cfd_model, env, sec, e);
}

static const char *const cfd_small[] = {"elements=100", "iterations=1", NULL};

const struct wl_ops wl_cfd = {
    .name = "cfd",
    .suite = "Rodinia",
    .desc = "Rodinia CFD (euler3d): step factor, flux and Runge-Kutta kernels on an "
            "unstructured mesh (substitute mesh)",
    .keys = cfd_keys,
    .small = cfd_small,
    .create = cfd_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
};
