/*
 * The trace reader (src/trace/): the header, the three address encodings,
 * tracer versions 3 to 6, line numbers, missing immediates, every error a
 * bad trace can give (file:line: reason), xz input, the opcode table, the
 * scope and strength of each SASS memory and fence form, and kernelslist.g.
 * Small traces are written to scratch files.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace.h"
#include "trace_util.h"

/* One kernel file in a scratch directory, checked. */
struct tk {
    char *dir;
    struct trace_kfile kf;
    struct trace_ops ops;
    struct err e;
    int rc;
};

static void tk_open(struct tk *t, const char *text, int xz)
{
    *t = (struct tk){.dir = tu_dir()};
    trace_ops_init(&t->ops, NULL);
    t->kf.path = tu_write(t->dir, xz ? "k.traceg.xz" : "k.traceg", text, xz);
    t->rc = trace_check_kernel(&t->kf, &t->ops, &t->e);
}

static void tk_close(struct tk *t)
{
    trace_kfile_free(&t->kf);
    trace_ops_free(&t->ops);
    tu_rmdir(t->dir);
}

/* Check that the kernel file `text` (freed here) fails with `want` in the message. */
static void expect_text_error(char *text, const char *want)
{
    struct tk t;
    tk_open(&t, text, 0);
    cr_expect_eq(t.rc, -1, "accepted a bad trace; wanted: %s", want);
    if (t.rc)
        cr_expect(strstr(t.e.msg, want), "message: %s\nwanted: %s", t.e.msg, want);
    tk_close(&t);
    free(text);
}

/* Check that `body` under the standard header fails with `want` in the message. */
static void expect_error(int tracer, const char *extra, const char *body, const char *want)
{
    expect_text_error(tu_kernel(tracer, 0, extra, body), want);
}

/* A trace whose first block has one warp of the given instruction lines. */
static char *one_warp(int tracer, int lineinfo, const char *insts, unsigned n)
{
    char body[8192];
    snprintf(body, sizeof body, "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = %u\n%s#END_TB\n",
             n, insts);
    return tu_kernel(tracer, lineinfo, NULL, body);
}

/* The records of block tb, warp w, read back. */
struct recs {
    const struct trace_rec *r[64];
    const uint64_t *a[64];
    unsigned n;
};

static void read_warp(struct tk *t, uint64_t tb, unsigned w, struct trace_tb *out, struct recs *rs)
{
    struct trace_in in;
    cr_assert_eq(trace_in_open(&in, t->kf.path, &t->e), 0, "%s", t->e.msg);
    cr_assert_eq(trace_read_tb(&in, &t->kf, &t->ops, tb, out, &t->e), 0, "%s", t->e.msg);
    trace_in_close(&in);
    rs->n = out->warp[w].n;
    const uint8_t *p = out->data + out->warp[w].off;
    for (unsigned i = 0; i < rs->n; i++) {
        rs->r[i] = (const void *)p;
        rs->a[i] = (const uint64_t *)(p + sizeof(struct trace_rec));
        p += trace_rec_size(rs->r[i]);
    }
}

/* The trace of one_warp(tracer, lineinfo, insts, n), checked (it must pass),
 * and its block 0's warp 0 read back into tb and rs; the caller frees tb, t
 * (tk_close) and the text returned. */
static char *check_one_warp(struct tk *t, int tracer, int lineinfo, const char *insts,
                            unsigned n, struct trace_tb *tb, struct recs *rs)
{
    char *text = one_warp(tracer, lineinfo, insts, n);
    tk_open(t, text, 0);
    cr_assert_eq(t->rc, 0, "%s", t->e.msg);
    *tb = (struct trace_tb){0};
    read_warp(t, 0, 0, tb, rs);
    cr_assert_eq(rs->n, n);
    return text;
}

/* ---- the header ----------------------------------------------------------------------- */

Test(trace_parse, header_fields)
{
    char *text = tu_kernel(5, 0, NULL, "");
    struct tk t;
    tk_open(&t, text, 0);
    cr_assert_eq(t.rc, 0, "%s", t.e.msg);
    const struct trace_header *h = &t.kf.h;
    cr_expect_str_eq(h->name, "_Z4testPf");
    cr_expect_eq(h->grid.x, 2);
    cr_expect_eq(h->block.x, 64);
    cr_expect_eq(h->shmem, 256);
    cr_expect_eq(h->nregs, 16);
    cr_expect_eq(h->binver, 70);
    cr_expect_eq(h->shmem_base, 0x7f1000000000ull);
    cr_expect_eq(h->local_base, 0x7f0800000000ull);
    cr_expect_str_eq(h->nvbit, "1.5.5");
    cr_expect_eq(h->tracer, 5);
    cr_expect_eq(t.kf.ntb, 2);
    cr_expect_eq(t.kf.warps_per_tb, 2);
    cr_expect_eq(t.kf.tbs, 0, "an empty body: no block");
    tk_close(&t);
    free(text);
}

Test(trace_parse, header_errors)
{
    expect_error(5, "-cluster size = 4\n", "", "k.traceg:14: unknown header key 'cluster size'");
    expect_error(5, "-nregs = 20\n", "", "k.traceg:14: header key 'nregs' given twice");
    expect_error(2, NULL, "", "accelsim tracer version 2: chipsim reads versions 3 to 6");
    expect_error(7, NULL, "", "accelsim tracer version 7");
    expect_error(5, "junk\n", "", "k.traceg:14: expected a header line '-key = value'");
    /* bad hex in a base address, and a header that never ends */
    struct tk t;
    tk_open(&t, "-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-shmem base_addr = 0x7g\n", 0);
    cr_expect(strstr(t.e.msg, "k.traceg:3: bad value '0x7g' for header key 'shmem base_addr'"),
              "%s", t.e.msg);
    tk_close(&t);
    tk_open(&t, "-grid dim = (1,0,1)\n", 0);
    cr_expect(strstr(t.e.msg, "k.traceg:1: bad value '(1,0,1)' for header key 'grid dim'"), "%s",
              t.e.msg);
    tk_close(&t);
    tk_open(&t, "-grid dim = (1,1,1)\n-block dim = (32,1,1)\n", 0);
    cr_expect(strstr(t.e.msg, "truncated file: the header ends without a '#' line"), "%s",
              t.e.msg);
    tk_close(&t);
    tk_open(&t, "-grid dim = (1,1,1)\n-binary version = 70\n-accelsim tracer version = 5\n#\n", 0);
    cr_expect(strstr(t.e.msg, "the header has no '-block dim' line"), "%s", t.e.msg);
    tk_close(&t);
    expect_error(5, "-block dim = (1024,4,1)\n", "", "header key 'block dim' given twice");
}

/* ---- instruction lines ----------------------------------------------------------------- */

Test(trace_parse, three_address_encodings)
{
    const char *insts =
        /* list: lanes 0, 1, 3 */
        "0000 0000000b 1 R4 LDG.E 1 R2 4 0 0x100 0x200 0x300 0\n"
        /* base+stride over lanes 4..7 (lane 8 is inactive: 12..15 get no address) */
        "0010 0000f0f0 1 R5 LDG.E 1 R2 4 1 0x1000 4 0\n"
        /* base+delta: popcount - 1 deltas */
        "0020 0000000f 1 R8 LDG.E.64 1 R2 8 2 0x2000 8 -16 24 0\n"
        /* no active lane */
        "0030 00000000 0 STG.E 2 R2 R4 4 1 0x0 0 0\n"
        "0040 ffffffff 0 EXIT 0 0 0\n";
    struct tk t;
    struct trace_tb tb;
    struct recs rs;
    char *text = check_one_warp(&t, 5, 0, insts, 5, &tb, &rs);
    cr_expect_eq(rs.r[0]->form, TRF_LIST);
    cr_expect_eq(rs.r[0]->mask, 0xb);
    cr_expect_eq(rs.a[0][0], 0x100);
    cr_expect_eq(rs.a[0][1], 0x200);
    cr_expect_eq(rs.a[0][2], 0x300);
    cr_expect_eq(rs.r[1]->form, TRF_STRIDE);
    cr_expect_eq(rs.r[1]->mask, 0xf0, "mask 0x%x", rs.r[1]->mask);
    cr_expect_eq(rs.a[1][0], 0x1000);
    cr_expect_eq((int64_t)rs.a[1][1], 4);
    cr_expect_eq(rs.r[2]->form, TRF_LIST);
    const uint64_t want[] = {0x2000, 0x2008, 0x1ff8, 0x2010};
    for (int i = 0; i < 4; i++)
        cr_expect_eq(rs.a[2][i], want[i], "lane %d: 0x%llx", i, (unsigned long long)rs.a[2][i]);
    cr_expect_eq(rs.r[2]->dst, 1 + 8, "R8 -> scoreboard 9");
    cr_expect_eq(rs.r[2]->ndst, 2, "a 64-bit load writes R8 and R9");
    cr_expect_eq(rs.r[3]->form, TRF_NONE);
    cr_expect_eq(rs.r[3]->mask, 0);
    cr_expect_eq(rs.r[3]->srcs, (1ull << 3) | (1ull << 5), "R2, R4");
    cr_expect_eq(t.kf.insts, 5);
    cr_expect_eq(t.kf.warps, 1);
    trace_tb_free(&tb);
    tk_close(&t);
    free(text);
}

/* Hexadecimal digits in either case and with or without 0x read the same
 * value, and every digit 0-9, a-f and A-F counts. A decimal is read while
 * its next digit cannot overflow 64 bits: 18446744073709551609 is read and
 * 18446744073709551610 is an error (the line number's limit is 2^64 - 1),
 * and leading zeros never count against it; 17 hexadecimal digits in an
 * address are an error. */
Test(trace_parse, digits_at_their_limits)
{
    const char *insts =
        "18446744073709551609 0000 00000001 1 R4 LDG.E 1 R2 4 0 0x0123456789aBcDeF 0\n"
        "1 0010 00000001 1 R4 LDG.E 1 R2 4 0 FEDCBA9876543210 00000000000000000000000000009\n"
        "9999999999999999999 0020 ffffffff 0 EXIT 0 0 0\n";
    struct tk t;
    struct trace_tb tb;
    struct recs rs;
    char *text = check_one_warp(&t, 5, 1, insts, 3, &tb, &rs);
    cr_expect_eq(rs.r[0]->mask, 0x1);
    cr_expect_eq(rs.a[0][0], 0x0123456789abcdefull);
    cr_expect_eq(rs.a[1][0], 0xfedcba9876543210ull);
    cr_expect(rs.r[0]->site == 1 && rs.r[1]->site == 3 && rs.r[2]->site == 5);
    trace_tb_free(&tb);
    tk_close(&t);
    free(text);
    const char *bad[][2] = {
        {"18446744073709551610 0000 ffffffff 0 EXIT 0 0 0\n", "expected a decimal source line number"},
        {"1 0000 00000001 1 R4 LDG.E 1 R2 4 0 0x10123456789abcdef 0\n", "expected a hexadecimal address"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        expect_text_error(one_warp(5, 1, bad[i][0], 1), bad[i][1]);
}

Test(trace_parse, registers_fold_onto_the_scoreboard)
{
    const char *insts = "0000 ffffffff 1 R64 IADD3 3 R0 R59 R255 0\n"
                        "0010 ffffffff 1 R255 MOV 1 R60 0\n";
    struct tk t;
    struct trace_tb tb;
    struct recs rs;
    char *text = check_one_warp(&t, 5, 0, insts, 2, &tb, &rs);
    cr_expect_eq(rs.r[0]->dst, 1 + 64 % TRACE_SB_REGS);
    cr_expect_eq(rs.r[0]->ndst, 1);
    cr_expect_eq(rs.r[0]->srcs, (1ull << 1) | (1ull << 60), "R0, R59; RZ is not tracked");
    cr_expect_eq(rs.r[1]->dst, 0, "RZ written: nothing");
    cr_expect_eq(rs.r[1]->srcs, 1ull << 1, "R60 folds onto R0's register");
    trace_tb_free(&tb);
    tk_close(&t);
    free(text);
}

Test(trace_parse, versions_line_numbers_and_immediates)
{
    /* version 3: no immediate */
    char *text = one_warp(3, 0, "0000 ffffffff 1 R0 LDG.E 1 R2 4 1 0x1000 4\n0010 ffffffff 0 EXIT 0 0\n", 2);
    struct tk t;
    tk_open(&t, text, 0);
    cr_expect_eq(t.rc, 0, "%s", t.e.msg);
    tk_close(&t);
    free(text);
    /* version 5 with line numbers; the immediate may be missing anyway */
    text = one_warp(5, 1, "7 0000 ffffffff 1 R0 LDG.E 1 R2 4 1 0x1000 4 0\n8 0010 ffffffff 0 EXIT 0 0\n", 2);
    tk_open(&t, text, 0);
    cr_expect_eq(t.rc, 0, "%s", t.e.msg);
    tk_close(&t);
    free(text);
    /* version 6: registers of other files, trailing fields, cluster lines */
    text = tu_kernel(6, 0, NULL,
                     "#BEGIN_TB\nthread block = 1,0,0\ncluster id = 0,0,0\ncluster cta = 1,0,0\n"
                     "cluster rank = 1\nwarp = 1\ninsts = 3\n"
                     "0000 ffffffff 2 R4 UR6 IADD3 3 R1 UR4 P0 0 5 NoVal\n"
                     "0010 ffffffff 0 HGMMA.64x64x16 2 R4 R6 0x1 0 0 Val 0x1 0x2\n"
                     "0020 ffffffff 0 EXIT 0 0 0\n#END_TB\n");
    tk_open(&t, text, 0);
    cr_assert_eq(t.rc, 0, "%s", t.e.msg);
    struct trace_tb tb = {0};
    struct recs rs;
    read_warp(&t, 1, 1, &tb, &rs);
    cr_expect_eq(rs.n, 3);
    cr_expect_eq(rs.r[0]->dst, 5);
    cr_expect_eq(rs.r[0]->srcs, 1ull << 2, "only R1 is tracked");
    cr_expect(rs.r[0]->site == 1 && rs.r[1]->site == 3 && rs.r[2]->site == 5,
              "sites: PC / 8 + 1");
    cr_expect_eq(tb.warp[0].n, 0, "warp 0 is absent");
    trace_tb_free(&tb);
    tk_close(&t);
    free(text);
}

Test(trace_parse, wrong_counts)
{
    /* list: three active lanes, two addresses */
    expect_error(5, NULL,
                 "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n"
                 "0000 00000007 1 R4 LDG.E 1 R2 4 0 0x100 0x200\n#END_TB\n",
                 "k.traceg:21: wrong count: mask 00000007 has 3 active lanes, the address list has 2");
    /* base+delta: four lanes need three deltas; two extra tokens after them */
    expect_error(5, NULL,
                 "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n"
                 "0000 0000000f 1 R4 LDG.E 1 R2 4 2 0x100 4 4 4 4 0\n#END_TB\n",
                 "k.traceg:21: unexpected '0' after the immediate");
    expect_error(5, NULL,
                 "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n"
                 "0000 0000000f 1 R4 LDG.E 1 R2 4 2 0x100 4\n#END_TB\n",
                 "wrong count: mask 0000000f has 4 active lanes, so 3 deltas are expected, found 1");
    /* insts = 3, two lines */
    expect_error(5, NULL,
                 "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 3\n"
                 "0000 ffffffff 0 NOP 0 0 0\n0010 ffffffff 0 EXIT 0 0 0\n#END_TB\n",
                 "k.traceg:23: wrong count: warp 0: insts = 3 but 2 instruction lines follow");
    /* insts = 1, two lines */
    expect_error(5, NULL,
                 "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n"
                 "0000 ffffffff 0 NOP 0 0 0\n0010 ffffffff 0 EXIT 0 0 0\n#END_TB\n",
                 "k.traceg:22: wrong count: an instruction line after the last warp's");
    /* two destination registers announced, one given */
    expect_error(5, NULL,
                 "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n"
                 "0000 ffffffff 2 R4 IADD3 1 R2 0 0\n#END_TB\n",
                 "expected a destination register, found 'IADD3'");
}

Test(trace_parse, malformed_lines_and_bad_hex)
{
    const char *pre = "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n";
    struct {
        const char *line, *want;
    } cases[] = {
        {"0000 fffffffff 0 NOP 0 0 0", "expected a hexadecimal active mask of at most 8 digits, found 'fffffffff'"},
        {"00x0 ffffffff 0 NOP 0 0 0", "expected a hexadecimal PC, found '00x0'"},
        {"0000 ffffffff 1 R4 LDG.E 1 R2 4 1 0x12g4 4 0", "expected a hexadecimal base address, found '0x12g4'"},
        {"0000 00000001 1 R4 LDG.E 1 R2 4 0 0xzz 0", "expected a hexadecimal address, found '0xzz'"},
        {"0000 ffffffff 1 R4 ldg.e 1 R2 4 1 0x1 4 0", "expected an opcode, found 'ldg.e'"},
        {"0000 ffffffff 1 R4 LDG.E 1 R2 4 1 0x1 four 0", "expected a decimal stride, found 'four'"},
        {"0000 ffffffff 1 R4 LDG.E 1 R2 4 9 0x1 4 0", "unknown address format 9"},
        {"0000 ffffffff 1 R4 LDG.E 1 R2 4 1 0x1 -9223372036854775808 0", "stride -9223372036854775808 out of range"},
        {"0000 ffffffff 1 R4 UTMALDG 1 R2 4 3 2 0x1 0x2 0", "address format 3 (TMA bulk tensor lists) is not supported"},
        {"0000 ffffffff 0 NOP x 0 0", "expected the number of source registers, found 'x'"},
        {"0000 ffffffff 0 NOP 0 0 zero", "expected a decimal immediate, found 'zero'"},
        {"0000 ffffffff 0 NOP 0", "expected the memory width, found end of line"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char body[512];
        snprintf(body, sizeof body, "%s%s\n#END_TB\n", pre, cases[i].line);
        char want[300];
        snprintf(want, sizeof want, "k.traceg:21: malformed instruction line: %s", cases[i].want);
        expect_error(5, NULL, body, strstr(cases[i].want, "not supported") ||
                                            strstr(cases[i].want, "unknown address") ||
                                            strstr(cases[i].want, "out of range")
                                        ? cases[i].want
                                        : want);
    }
}

Test(trace_parse, block_structure_errors)
{
    expect_error(5, NULL, "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0000 ffffffff 0 EXIT 0 0 0\n",
                 "k.traceg:21: truncated file: thread block 0,0,0 has no #END_TB");
    expect_error(5, NULL, "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2\n0000 ffffffff 0 NOP 0 0 0\n",
                 "truncated file: warp 0: insts = 2 but 1 instruction lines follow");
    expect_error(5, NULL, "#BEGIN_TB\nthread block = 5,0,0\n#END_TB\n",
                 "k.traceg:18: thread block 5,0,0 lies outside the grid (2,1,1)");
    expect_error(5, NULL, "#BEGIN_TB\nthread block = 0,0,0\n#END_TB\n#BEGIN_TB\nthread block = 0,0,0\n#END_TB\n",
                 "k.traceg:20: thread block 0,0,0 appears twice (also at line 17)");
    expect_error(5, NULL, "#BEGIN_TB\nthread block = 0,0,0\n#BEGIN_TB\n",
                 "k.traceg:19: #BEGIN_TB inside thread block 0,0,0");
    expect_error(5, NULL, "#BEGIN_TB\nthread block = 0,0,0\nwarp = 2\ninsts = 0\n#END_TB\n",
                 "k.traceg:19: warp 2: a block of 64 threads has 2 warps");
    expect_error(5, NULL, "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 0\nwarp = 0\ninsts = 0\n#END_TB\n",
                 "warp 0 appears twice in thread block 0,0,0");
    expect_error(5, NULL, "#BEGIN_TB\nwarp = 0\n", "expected 'thread block = x,y,z' after #BEGIN_TB");
    expect_error(5, NULL, "thread block = 0,0,0\n", "expected #BEGIN_TB, found 'thread'");
    expect_error(5, NULL, "#END_TB\n", "#END_TB without #BEGIN_TB");
    expect_error(5, NULL, "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\nints = 1\n", "expected 'insts = N' after 'warp = 0'");
}

Test(trace_parse, blocks_out_of_order_and_absent)
{
    char *text = tu_kernel(5, 0, NULL,
                           "#BEGIN_TB\nthread block = 1,0,0\nwarp = 0\ninsts = 1\n0000 ffffffff 0 EXIT 0 0 0\n#END_TB\n"
                           "#BEGIN_TB\nthread block = 0,0,0\nwarp = 1\ninsts = 2\n0000 ffffffff 0 NOP 0 0 0\n"
                           "0010 ffffffff 0 EXIT 0 0 0\n#END_TB\n");
    struct tk t;
    tk_open(&t, text, 0);
    cr_assert_eq(t.rc, 0, "%s", t.e.msg);
    cr_expect_eq(t.kf.nidx, 2);
    cr_expect_eq(t.kf.idx[0].tb, 0, "the index is sorted by block");
    cr_expect_eq(t.kf.idx[0].line, 23);
    struct trace_tb tb = {0};
    struct recs rs;
    read_warp(&t, 0, 1, &tb, &rs);
    cr_expect_eq(rs.n, 2);
    cr_expect_eq(tb.warp[0].n, 0);
    read_warp(&t, 1, 0, &tb, &rs);
    cr_expect_eq(rs.n, 1);
    trace_tb_free(&tb);
    tk_close(&t);
    free(text);
}

/* ---- xz ------------------------------------------------------------------------------------ */

Test(trace_parse, xz_reads_like_plain_and_seeks_back)
{
    char body[16384] = "";
    for (int b = 0; b < 2; b++) {
        char tbt[8192];
        int n = snprintf(tbt, sizeof tbt, "#BEGIN_TB\nthread block = %d,0,0\nwarp = 0\ninsts = 40\n", b);
        for (int i = 0; i < 40; i++)
            n += snprintf(tbt + n, sizeof tbt - (size_t)n,
                          "%04x ffffffff 1 R%d LDG.E 1 R2 4 1 0x%x 4 0\n", i * 16, i % 20,
                          0x10000 * b + 128 * i);
        snprintf(tbt + n, sizeof tbt - (size_t)n, "#END_TB\n");
        strcat(body, tbt);
    }
    char *text = tu_kernel(5, 0, NULL, body);
    struct tk p, x;
    tk_open(&p, text, 0);
    tk_open(&x, text, 1);
    cr_assert_eq(p.rc, 0, "%s", p.e.msg);
    cr_assert_eq(x.rc, 0, "%s", x.e.msg);
    cr_expect_eq(x.kf.insts, 80);
    cr_expect_eq(x.kf.bytes, p.kf.bytes, "the decompressed size");
    /* block 1 first, then block 0: the xz reader starts over */
    struct trace_in in;
    cr_assert_eq(trace_in_open(&in, x.kf.path, &x.e), 0);
    struct trace_tb a = {0}, b = {0};
    cr_assert_eq(trace_read_tb(&in, &x.kf, &x.ops, 1, &a, &x.e), 0, "%s", x.e.msg);
    cr_expect_eq(in.skipped, x.kf.idx[1].off, "decompressed up to block 1 and skipped");
    cr_assert_eq(trace_read_tb(&in, &x.kf, &x.ops, 0, &b, &x.e), 0, "%s", x.e.msg);
    trace_in_close(&in);
    struct trace_tb pa = {0}, pb = {0};
    cr_assert_eq(trace_in_open(&in, p.kf.path, &p.e), 0);
    cr_assert_eq(trace_read_tb(&in, &p.kf, &p.ops, 1, &pa, &p.e), 0);
    cr_assert_eq(trace_read_tb(&in, &p.kf, &p.ops, 0, &pb, &p.e), 0);
    trace_in_close(&in);
    cr_expect_eq(a.len, pa.len);
    cr_expect_eq(memcmp(a.data, pa.data, a.len), 0);
    cr_expect_eq(memcmp(b.data, pb.data, b.len), 0);
    const struct trace_rec *r = (const void *)(a.data + a.warp[0].off);
    cr_expect_eq(((const uint64_t *)(r + 1))[0], 0x10000, "block 1's first address");
    trace_tb_free(&a);
    trace_tb_free(&b);
    trace_tb_free(&pa);
    trace_tb_free(&pb);
    tk_close(&p);
    tk_close(&x);
    free(text);
}

Test(trace_parse, corrupt_and_truncated_xz)
{
    char *text = one_warp(5, 0, "0000 ffffffff 0 EXIT 0 0 0\n", 1);
    char *dir = tu_dir();
    char *path = tu_write(dir, "k.traceg.xz", text, 1);
    /* keep the first half of the compressed file */
    FILE *f = fopen(path, "rb");
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    f = fopen(path, "wb");
    fwrite(buf, 1, n / 2, f);
    fclose(f);
    struct trace_kfile kf = {.path = path};
    struct trace_ops ops;
    trace_ops_init(&ops, NULL);
    struct err e;
    cr_expect_eq(trace_check_kernel(&kf, &ops, &e), -1);
    cr_expect(strstr(e.msg, "k.traceg.xz:") && strstr(e.msg, "xz"), "%s", e.msg);
    trace_kfile_free(&kf);
    /* not xz at all */
    path = tu_write(dir, "plain.traceg.xz", text, 0);
    kf = (struct trace_kfile){.path = path};
    cr_expect_eq(trace_check_kernel(&kf, &ops, &e), -1);
    cr_expect(strstr(e.msg, "plain.traceg.xz:1: not an xz file"), "%s", e.msg);
    trace_kfile_free(&kf);
    trace_ops_free(&ops);
    tu_rmdir(dir);
    free(text);
}

/* ---- opcodes ---------------------------------------------------------------------------------- */

Test(trace_parse, opcode_widths_kinds_and_spaces)
{
    struct {
        const char *name;
        unsigned ver;
        uint8_t kind, space, cls, size;
    } cases[] = {
        {"LDG.E", 70, TK_LOAD, TSP_GLOBAL, TC_MEM, 4},
        {"LDG.E.64.SYS", 70, TK_LOAD, TSP_GLOBAL, TC_MEM, 8},
        {"LDG.E.128.CONSTANT.SYS", 70, TK_LOAD, TSP_GLOBAL, TC_MEM, 16},
        {"LDG.E.U8", 80, TK_LOAD, TSP_GLOBAL, TC_MEM, 1},
        {"LDS.S16", 80, TK_LOAD, TSP_SHARED, TC_MEM, 2},
        {"STL.64", 90, TK_STORE, TSP_LOCAL, TC_MEM, 8},
        {"LD.E.SYS", 70, TK_LOAD, TSP_GENERIC, TC_MEM, 4},
        {"ATOMG.E.ADD.STRONG.GPU", 80, TK_ATOMIC, TSP_GLOBAL, TC_MEM, 4},
        {"RED.E.ADD.F32.FTZ.RN.STRONG.GPU", 70, TK_ATOMIC, TSP_GENERIC, TC_MEM, 4},
        {"ATOMS.CAS", 70, TK_ATOMIC, TSP_SHARED, TC_MEM, 4},
        {"LDGSTS.E.BYPASS.128", 80, TK_ASYNC, TSP_GLOBAL, TC_MEM, 16},
        {"LDC.64", 70, TK_CONST, TSP_NONE, TC_CONST, 8},
        {"ULDC.64", 80, TK_CONST, TSP_NONE, TC_CONST, 8},
        {"FFMA.FTZ", 70, TK_ALU, TSP_NONE, TC_FFMA, 4},
        {"IMAD.WIDE.U32", 70, TK_ALU, TSP_NONE, TC_IMAD, 4},
        {"DFMA", 70, TK_ALU, TSP_NONE, TC_FP64, 4},
        {"MUFU.RCP", 90, TK_ALU, TSP_NONE, TC_SFU, 4},
        {"HMMA.884.F32.F32", 70, TK_ALU, TSP_NONE, TC_TENSOR, 4},
        {"SHFL.BFLY", 70, TK_ALU, TSP_NONE, TC_SHFL, 4},
        {"BRA", 70, TK_ALU, TSP_NONE, TC_CTRL, 4},
        {"BAR.SYNC.DEFER_BLOCKING", 80, TK_BARRIER, TSP_NONE, TC_CTRL, 4},
        {"EXIT", 70, TK_EXIT, TSP_NONE, TC_CTRL, 4},
        {"DEPBAR.LE", 80, TK_WAIT, TSP_NONE, TC_CTRL, 4},
        {"VIADD", 90, TK_ALU, TSP_NONE, TC_INT, 4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct trace_opinfo o;
        trace_opcode_decode(cases[i].name, cases[i].ver, &o);
        cr_expect_eq(o.flags & TOP_UNKNOWN, 0, "%s", cases[i].name);
        cr_expect_eq(o.kind, cases[i].kind, "%s kind %u", cases[i].name, o.kind);
        cr_expect_eq(o.space, cases[i].space, "%s space %u", cases[i].name, o.space);
        cr_expect_eq(o.cls, cases[i].cls, "%s class %u", cases[i].name, o.cls);
        cr_expect_eq(o.size, cases[i].size, "%s size %u", cases[i].name, o.size);
    }
    struct trace_opinfo o;
    trace_opcode_decode("BAR.ARV", 70, &o);
    cr_expect(o.flags & TOP_ARRIVE);
    /* opcodes newer than the binary version, and made-up ones */
    trace_opcode_decode("HGMMA.64x64x16.F32", 80, &o);
    cr_expect(o.flags & TOP_UNKNOWN, "HGMMA is Hopper's");
    trace_opcode_decode("HGMMA.64x64x16.F32", 90, &o);
    cr_expect_eq(o.flags & TOP_UNKNOWN, 0);
    trace_opcode_decode("FROB.X", 90, &o);
    cr_expect(o.flags & TOP_UNKNOWN);
    cr_expect_eq(o.kind, TK_ALU);
    cr_expect_eq(o.cls, TC_INT);
}

/* docs/trace.md 3.1: every form, its kind, scope and strength. */
Test(trace_parse, scope_and_strength_of_memory_and_fence_forms)
{
    enum { W = SEM_WEAK, R = SEM_RELAXED, A = SEM_ACQUIRE, B = SEM_ACQ_REL };
    enum { CTA = SCOPE_CTA, GPU = SCOPE_GPU, SYS = SCOPE_SYS };
    struct {
        const char *name;
        unsigned ver;
        uint8_t kind, scope, sem, flags;
    } cases[] = {
        /* plain loads and stores: weak, whatever their cache hints; a lone .SYS
         * is how CUDA 10 and 11 print every plain Volta/Turing access */
        {"LDG.E", 80, TK_LOAD, CTA, W, 0},
        {"LDG.E.SYS", 70, TK_LOAD, CTA, W, 0},
        {"LDG.E.64.SYS", 70, TK_LOAD, CTA, W, 0},
        {"LDG.E.128.CONSTANT.SYS", 70, TK_LOAD, CTA, W, 0},
        {"LDG.E.CONSTANT", 80, TK_LOAD, CTA, W, 0},
        {"LDG.E.EF", 80, TK_LOAD, CTA, W, 0},
        {"LDG.E.EL", 80, TK_LOAD, CTA, W, 0},
        {"LDG.E.LU", 80, TK_LOAD, CTA, W, 0},
        {"LDG.E.NA.64", 80, TK_LOAD, CTA, W, 0},
        {"STG.E.SYS", 70, TK_STORE, CTA, W, 0},
        {"STG.E.EF.128", 80, TK_STORE, CTA, W, 0},
        {"LDGSTS.E.BYPASS.LTC128B.128", 80, TK_ASYNC, CTA, W, 0},
        /* strong: relaxed at the named scope */
        {"LDG.E.STRONG.GPU", 70, TK_LOAD, GPU, R, 0},
        {"LDG.E.64.STRONG.GPU", 80, TK_LOAD, GPU, R, 0},
        {"LDG.E.STRONG.SYS", 70, TK_LOAD, SYS, R, 0},
        {"LDG.E.U16.STRONG.SYS", 90, TK_LOAD, SYS, R, 0},
        {"LDG.E.STRONG.CTA", 80, TK_LOAD, CTA, R, 0},
        {"LD.E.STRONG.GPU", 70, TK_LOAD, GPU, R, 0},
        {"LD.E.64.STRONG.SYS", 80, TK_LOAD, SYS, R, 0},
        {"STG.E.STRONG.GPU", 70, TK_STORE, GPU, R, 0},
        {"STG.E.STRONG.SYS", 80, TK_STORE, SYS, R, 0},
        {"ST.E.STRONG.GPU", 70, TK_STORE, GPU, R, 0},
        {"LDG.E.STRONG.SM", 90, TK_LOAD, CTA, W, 0}, /* no known scope: as before */
        /* atomics and reductions: relaxed, at GPU scope unless named */
        {"ATOMG.E.ADD.STRONG.GPU", 80, TK_ATOMIC, GPU, R, 0},
        {"ATOMG.E.EXCH.STRONG.SYS", 80, TK_ATOMIC, SYS, R, 0},
        {"ATOMG.E.CAS.STRONG.CTA", 80, TK_ATOMIC, CTA, R, 0},
        {"ATOM.E.ADD.STRONG.GPU", 70, TK_ATOMIC, GPU, R, 0},
        {"ATOM.E.ADD", 60, TK_ATOMIC, GPU, R, 0},
        {"RED.E.ADD.STRONG.GPU", 70, TK_ATOMIC, GPU, R, 0},
        {"RED.E.ADD.F32.FTZ.RN.STRONG.SYS", 80, TK_ATOMIC, SYS, R, 0},
        {"REDG.E.ADD.STRONG.GPU", 90, TK_ATOMIC, GPU, R, 0},
        {"ATOMS.ADD", 80, TK_ATOMIC, CTA, W, 0}, /* shared memory: no scope */
        /* fences */
        {"MEMBAR.SC.CTA", 70, TK_MEMBAR, CTA, B, 0},
        {"MEMBAR.ALL.CTA", 80, TK_MEMBAR, CTA, B, 0},
        {"MEMBAR.SC.GPU", 70, TK_MEMBAR, GPU, B, 0},
        {"MEMBAR.ALL.GPU", 80, TK_MEMBAR, GPU, B, 0},
        {"MEMBAR.SC.SYS", 70, TK_MEMBAR, SYS, B, 0},
        {"MEMBAR.ALL.SYS", 90, TK_MEMBAR, SYS, B, 0},
        {"MEMBAR.GPU.SC", 90, TK_MEMBAR, GPU, B, 0},
        {"MEMBAR.CTA", 60, TK_MEMBAR, CTA, B, 0},
        {"MEMBAR.GL", 60, TK_MEMBAR, GPU, B, 0},
        {"MEMBAR.SYS", 60, TK_MEMBAR, SYS, B, 0},
        {"MEMBAR.SC.VC", 90, TK_MEMBAR, GPU, B, 0},
        {"MEMBAR", 70, TK_MEMBAR, GPU, B, 0},
        {"CCTL.IVALL", 70, TK_MEMBAR, GPU, A, TOP_SCOPE_PREV},
        /* neither a scope nor a fence */
        {"CCTL.E.PF2", 70, TK_ALU, CTA, W, 0},
        {"ERRBAR", 80, TK_ALU, CTA, W, 0},
        {"CGAERRBAR", 90, TK_ALU, CTA, W, 0},
        {"FENCE.VIEW.ASYNC.S", 90, TK_ALU, CTA, W, 0},
        {"FENCE.VIEW.ASYNC.G", 90, TK_ALU, CTA, W, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct trace_opinfo o;
        trace_opcode_decode(cases[i].name, cases[i].ver, &o);
        cr_expect_eq(o.flags & TOP_UNKNOWN, 0, "%s", cases[i].name);
        cr_expect_eq(o.kind, cases[i].kind, "%s kind %u", cases[i].name, o.kind);
        cr_expect_eq(o.scope, cases[i].scope, "%s scope %u", cases[i].name, o.scope);
        cr_expect_eq(o.sem, cases[i].sem, "%s sem %u", cases[i].name, o.sem);
        cr_expect_eq(o.flags, cases[i].flags, "%s flags %u", cases[i].name, o.flags);
    }
}

Test(trace_parse, latency_tables_per_binary_version)
{
    cr_expect_str_eq(trace_isa_for(70)->name, "Volta (sm_70/72)");
    cr_expect_str_eq(trace_isa_for(61)->name, "Volta (sm_70/72)", "older: Volta's");
    cr_expect_str_eq(trace_isa_for(75)->name, "Turing (sm_75)");
    cr_expect_str_eq(trace_isa_for(80)->name, "Ampere A100 (sm_80)");
    cr_expect_str_eq(trace_isa_for(89)->name, "Ampere GA10x and Ada (sm_86/87/89)");
    cr_expect_str_eq(trace_isa_for(90)->name, "Hopper (sm_90)");
    /* the spec's QV100 latencies (A2) */
    const struct trace_isa *v = trace_isa_for(70);
    cr_expect_eq(v->lat[TC_INT], 4);
    cr_expect_eq(v->lat[TC_IMAD], 5);
    cr_expect_eq(v->lat[TC_FP32], 4);
    cr_expect_eq(v->lat[TC_FFMA], 5);
    cr_expect_eq(v->lat[TC_FP64], 8);
    cr_expect_eq(v->lat[TC_SFU], 100);
    cr_expect_eq(v->lat[TC_TENSOR], 64);
    cr_expect_eq(v->lat[TC_SHFL], 21);
    /* issue intervals: 32 lanes over a sub-core's units */
    cr_expect_eq(v->ii[TC_FP32], 2);
    cr_expect_eq(v->ii[TC_FP64], 4);
    cr_expect_eq(trace_isa_for(90)->ii[TC_FP32], 1);
    cr_expect_eq(trace_isa_for(90)->ii[TC_FP64], 2);
    cr_expect_eq(trace_isa_for(86)->ii[TC_FP64], 64);
}

Test(trace_parse, unknown_opcodes_warn_once_each)
{
    char *out = NULL;
    size_t len = 0;
    FILE *warn = open_memstream(&out, &len);
    struct trace_ops o;
    trace_ops_init(&o, warn);
    uint32_t a = trace_ops_get(&o, "FROB.X", 6, 80, "k.traceg", 3);
    uint32_t b = trace_ops_get(&o, "FROB.Y", 6, 80, "k.traceg", 4);
    uint32_t c = trace_ops_get(&o, "FROB.X", 6, 80, "k.traceg", 9);
    trace_ops_get(&o, "LDG.E", 5, 80, "k.traceg", 10);
    cr_expect_neq(a, b);
    cr_expect_eq(a, c);
    cr_expect_eq(o.nunknown, 1);
    fclose(warn);
    cr_expect_str_eq(out, "chipsim: warning: k.traceg:3: unknown opcode FROB (binary version "
                          "80): timed as a generic integer operation\n");
    free(out);
    /* many spellings: the table grows */
    char name[32];
    for (int i = 0; i < 1000; i++) {
        snprintf(name, sizeof name, "IADD3.X%d", i);
        trace_ops_get(&o, name, strlen(name), 70, "x", 1);
    }
    cr_expect_eq(trace_ops_get(&o, "IADD3.X7", 8, 70, "x", 1), trace_ops_get(&o, "IADD3.X7", 8, 70, "x", 2));
    cr_expect_eq(o.n, 1003);
    trace_ops_free(&o);
}

/* ---- kernelslist.g ------------------------------------------------------------------------------ */

Test(trace_parse, kernels_list)
{
    char *dir = tu_dir();
    char *path = tu_write(dir, "kernelslist.g",
                          "MemcpyHtoD,0x00007fb0fc400000,200000\n\n"
                          "kernel-1.traceg\n"
                          "MemcpyDtoH,0x1,4\n"
                          "kernel-2-ctx_0x55.traceg.xz   \n"
                          "/abs/kernel-3.traceg\n", 0);
    /* as in the reference reader, kernel files are the lines that start with
     * "kernel"; other lines (here a device-to-host copy and an absolute path)
     * are ignored */
    struct trace_list l;
    struct err e;
    cr_assert_eq(trace_list_read(&l, path, &e), 0, "%s", e.msg);
    cr_assert_eq(l.n, 3);
    cr_expect_eq(l.cmd[0].kind, TCMD_MEMCPY);
    cr_expect_eq(l.cmd[0].addr, 0x7fb0fc400000ull);
    cr_expect_eq(l.cmd[0].bytes, 200000);
    char *want = xasprintf("%s/kernel-1.traceg", dir);
    cr_expect_str_eq(l.cmd[1].path, want);
    cr_expect_eq(l.cmd[1].line, 3);
    free(want);
    cr_expect(strstr(l.cmd[2].path, "/kernel-2-ctx_0x55.traceg.xz"));
    trace_list_free(&l);
    const struct {
        const char *text, *want;
    } bad[] = {
        {"MemcpyHtoD,0x7g,4\n", "kernelslist.g:1: bad hex address in MemcpyHtoD"},
        {"\nMemcpyHtoD,0x10,many\n", "kernelslist.g:2: bad byte count in MemcpyHtoD"},
        {"MemcpyHtoD,0x10\n", "kernelslist.g:1: expected MemcpyHtoD,ADDRESS,BYTES"},
        {"kernel-1.trace\n", "kernelslist.g:1: kernel file 'kernel-1.trace' is neither .traceg nor .traceg.xz"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        free(path);
        path = tu_write(dir, "kernelslist.g", bad[i].text, 0);
        cr_expect_eq(trace_list_read(&l, path, &e), -1);
        cr_expect(strstr(e.msg, bad[i].want), "%s", e.msg);
        trace_list_free(&l);
    }
    free(path);
    tu_rmdir(dir);
}

Test(trace_parse, line_too_long)
{
    size_t n = TRACE_MAX_LINE + 100;
    char *big = malloc(n + 200);
    strcpy(big, "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0000 ffffffff 0 NOP 0 0 ");
    size_t l = strlen(big);
    memset(big + l, '7', n);
    strcpy(big + l + n, "\n#END_TB\n");
    char *text = tu_kernel(5, 0, NULL, big);
    struct tk t;
    tk_open(&t, text, 0);
    cr_expect(strstr(t.e.msg, "k.traceg:21: line longer than 65536 bytes"), "%s", t.e.msg);
    tk_close(&t);
    free(text);
    free(big);
}
