/*
 * test_route.c -- the coherence contract's routing: hooks return where a
 * request goes next and the memory system carries it out. A strong access
 * at GPU scope passes the L1 by default; a scheme that sends misses to the
 * GPU home sees them arrive there, then at the system home, on a machine
 * of 2 GPUs x 2 chiplets; a held request is the scheme's to complete.
 * (A strong load that drops its L1 copy: the default l1_access.)
 */
#include <criterion/criterion.h>
#include <stdio.h>

#include "machine.h"

struct probe {
    unsigned gpu_home_in[8], remote_in[8], l1_miss, l1_fill;
    struct req *held;
};

static bool done;

static void req_done(struct sim *s, struct req *r, void *obj)
{
    (void)obj;
    done = true;
    req_free(s, r);
}

/* A read or write of 4 bytes at addr by CU cu, homed at `home`, run to its end. */
static void access_one(struct machine *m, unsigned cu, addr_t addr, unsigned home,
                       enum req_kind kind, enum mem_scope scope, enum mem_sem sem)
{
    struct req *r = req_alloc(&m->s);
    r->addr = addr;
    r->size = 4;
    r->kind = (uint8_t)kind;
    r->home = (uint16_t)home;
    r->src = (uint16_t)cu;
    r->scope = (uint8_t)scope;
    r->sem = (uint8_t)sem;
    req_mask_range(r->mask, (unsigned)(addr % 64), 4);
    req_on_done(r, req_done, NULL);
    done = false;
    memsys_l1_access(&m->g.ms, cu, r);
    sim_run(&m->s, 0);
    cr_assert(done, "the request did not complete");
}

Test(route, a_strong_gpu_scope_load_is_served_below_the_l1)
{
    struct machine *m = machine_new("");
    addr_t a = 0x100000040;
    access_one(m, 0, a, 0, REQ_READ, SCOPE_CTA, SEM_WEAK); /* fills cu0's L1 */
    cr_expect_eq(machine_stat(m, "l1d.read_misses"), 1);
    cr_expect_eq(machine_stat(m, "l2.accesses"), 1);
    access_one(m, 0, a, 0, REQ_READ, SCOPE_CTA, SEM_WEAK); /* an L1 hit */
    cr_expect_eq(machine_stat(m, "l1d.read_hits"), 1);
    cr_expect_eq(machine_stat(m, "l2.accesses"), 1);
    access_one(m, 0, a, 0, REQ_READ, SCOPE_GPU, SEM_ACQUIRE); /* the copy dropped: to the L2 */
    cr_expect_eq(machine_stat(m, "l1d.read_misses"), 2);
    cr_expect_eq(machine_stat(m, "l2.accesses"), 2);
    access_one(m, 0, a, 0, REQ_READ, SCOPE_CTA, SEM_WEAK); /* and the fill left none */
    cr_expect_eq(machine_stat(m, "l1d.read_misses"), 3);
    cr_expect_eq(machine_stat(m, "l2.accesses"), 3);
    access_one(m, 0, a, 0, REQ_READ, SCOPE_CTA, SEM_ACQUIRE); /* CTA scope: the L1 serves */
    cr_expect_eq(machine_stat(m, "l1d.read_hits"), 2);
    cr_expect_eq(machine_stat(m, "l2.accesses"), 3);
    machine_free(m);
}

static struct coh_route p_l1_miss(void *self, unsigned cu, struct req *r)
{
    (void)cu;
    (void)r;
    ((struct probe *)self)->l1_miss++;
    return coh_route_to(COH_HOP_L2, 0);
}

static void p_l1_fill(void *self, unsigned cu, struct req *r)
{
    (void)cu;
    (void)r;
    ((struct probe *)self)->l1_fill++;
}

static struct coh_route p_l2_access(void *self, unsigned ch, struct req *r)
{
    (void)self;
    (void)ch;
    (void)r;
    return coh_route_to(COH_HOP_L2, REQ_F_NOALLOC);
}

static struct coh_route p_l2_miss(void *self, unsigned ch, struct req *r)
{
    (void)self;
    return coh_route_to(r->home == ch ? COH_HOP_L3 : COH_HOP_GPU_HOME, 0);
}

static struct coh_route p_gpu_home_in(void *self, unsigned node, struct req *r)
{
    (void)r;
    ((struct probe *)self)->gpu_home_in[node]++;
    return coh_route_to(COH_HOP_HOME, 0);
}

static struct coh_route p_remote_in(void *self, unsigned home, struct req *r)
{
    struct probe *p = self;
    p->remote_in[home]++;
    if (r->kind == REQ_WRITE) {
        p->held = r;
        return coh_route_to(COH_HOP_HELD, 0);
    }
    return coh_default_remote_in(r);
}

static const struct coh_ops probe_ops = {
    .name = "probe",
    .l1_miss = p_l1_miss,
    .l1_fill = p_l1_fill,
    .l2_access = p_l2_access,
    .l2_miss = p_l2_miss,
    .gpu_home_in = p_gpu_home_in,
    .remote_in = p_remote_in,
};

Test(route, a_miss_sent_to_the_gpu_home_reaches_it_then_the_system_home)
{
    struct machine *m = machine_new("[gpu]\ngpus = 2\n");
    struct probe p = {0};
    memsys_set_coherence(&m->g.ms, &probe_ops, &p);
    /* CU 0 is on chiplet 0 of GPU 0; the line's system home is chiplet 3 (GPU 1's
     * second); GPU 0's home of it is chiplet 1 */
    cr_assert_eq(coh_gpu_home(&m->g.ms.t, 3, 0), 1);
    access_one(m, 0, 0x100000080, 3, REQ_READ, SCOPE_CTA, SEM_WEAK);
    cr_expect_eq(p.l1_miss, 1);
    cr_expect_eq(p.l1_fill, 1);
    cr_expect_eq(p.gpu_home_in[1], 1);
    cr_expect_eq(p.gpu_home_in[0] + p.gpu_home_in[2] + p.gpu_home_in[3], 0);
    cr_expect_eq(p.remote_in[3], 1);
    cr_expect_eq(machine_stat(m, "gpu1.chiplet1.remote_requests"), 1);
    /* homed on its own GPU (chiplet 1): the GPU home is the system home */
    access_one(m, 0, 0x100000100, 1, REQ_READ, SCOPE_CTA, SEM_WEAK);
    cr_expect_eq(p.gpu_home_in[1], 1);
    cr_expect_eq(p.remote_in[1], 1);
    machine_free(m);
}

Test(route, a_held_request_is_the_schemes_to_complete)
{
    struct machine *m = machine_new("[gpu]\ngpus = 2\n");
    struct probe p = {0};
    memsys_set_coherence(&m->g.ms, &probe_ops, &p);
    struct req *r = req_alloc(&m->s);
    r->addr = 0x100000200;
    r->size = 4;
    r->kind = REQ_WRITE;
    r->home = 1;
    req_mask_range(r->mask, 0, 4);
    req_on_done(r, req_done, NULL);
    done = false;
    memsys_l1_access(&m->g.ms, 0, r);
    FILE *quiet = tmpfile();
    m->s.report = quiet; /* the run stops with the store pending: say nothing of it */
    cr_expect_eq(sim_run(&m->s, 0), SIM_DEADLOCK);
    fclose(quiet);
    m->s.report = stderr;
    cr_expect_eq(p.remote_in[1], 1);
    cr_assert_not_null(p.held, "the home held the store");
    cr_expect_not(done, "a held request waits for its scheme");
    req_complete(&m->s, p.held); /* the scheme answers */
    cr_expect_eq(sim_run(&m->s, 0), SIM_DONE);
    cr_expect(done);
    machine_free(m);
}

Test(route, a_strong_remote_load_is_not_served_by_a_local_copy)
{
    /* the artifact's D4: chiplet 0's L2 keeps lines read from chiplet 1 */
    struct machine *m = machine_new("[coherence]\nremote_read_alloc = requester_yes\n");
    addr_t a = 0x100000300;
    access_one(m, 0, a, 1, REQ_READ, SCOPE_CTA, SEM_WEAK);
    uint64_t remote = machine_stat(m, "gpu0.chiplet1.remote_requests");
    cr_expect_eq(remote, 1);
    access_one(m, 1, a, 1, REQ_READ, SCOPE_CTA, SEM_WEAK); /* CU 1, same chiplet: local hit */
    cr_expect_eq(machine_stat(m, "gpu0.chiplet1.remote_requests"), remote);
    access_one(m, 1, a, 1, REQ_READ, SCOPE_GPU, SEM_ACQUIRE); /* to the home */
    cr_expect_eq(machine_stat(m, "gpu0.chiplet1.remote_requests"), remote + 1);
    machine_free(m);
}
