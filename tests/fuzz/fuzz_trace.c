/*
 * fuzz_trace.c -- libFuzzer harness for the trace reader (src/trace/). The
 * first byte of an input chooses what the rest is: 0 a kernel file (checked,
 * then every block it lists read back as at dispatch), 1 the same file
 * compressed with xz on the fly (the reader's xz path on valid streams), 2
 * raw bytes given to the xz reader (corrupt and truncated streams), 3 a
 * kernelslist.g. Anything the reader accepts must read back; anything it
 * rejects must be rejected with a "file:line: reason" message, never a crash.
 */
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];

static const char *write_file(const char *name, const uint8_t *p, size_t n)
{
    static char path[128];
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/chipsim-fuzz-XXXXXX");
        if (!mkdtemp(dir))
            abort();
    }
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    fwrite(p, 1, n, f);
    fclose(f);
    return path;
}

static void check_message(const struct err *e)
{
    /* every message starts with the file's path */
    if (strncmp(e->msg, dir, strlen(dir)))
        abort();
}

static void kernel(const char *path)
{
    struct trace_ops ops;
    trace_ops_init(&ops, NULL);
    struct trace_kfile kf = {.path = strdup(path)};
    struct err e;
    if (trace_check_kernel(&kf, &ops, &e)) {
        check_message(&e);
    } else {
        struct trace_in in;
        struct trace_tb tb = {0};
        if (trace_in_open(&in, path, &e))
            abort();
        /* backwards, to exercise seeking */
        for (size_t i = kf.nidx; i-- > 0;)
            if (trace_read_tb(&in, &kf, &ops, kf.idx[i].tb, &tb, &e))
                abort(); /* checked once, it must read back */
        trace_in_close(&in);
        trace_tb_free(&tb);
    }
    trace_kfile_free(&kf);
    trace_ops_free(&ops);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!size)
        return 0;
    const uint8_t *p = data + 1;
    size_t n = size - 1;
    switch (data[0] % 4) {
    case 0:
        kernel(write_file("k.traceg", p, n));
        break;
    case 1: {
        size_t cap = lzma_stream_buffer_bound(n), out = 0;
        uint8_t *buf = malloc(cap);
        if (lzma_easy_buffer_encode(0, LZMA_CHECK_CRC32, NULL, p, n, buf, &out, cap) != LZMA_OK)
            abort();
        kernel(write_file("k.traceg.xz", buf, out));
        free(buf);
        break;
    }
    case 2:
        kernel(write_file("raw.traceg.xz", p, n));
        break;
    default: {
        struct trace_list l;
        struct err e;
        if (trace_list_read(&l, write_file("kernelslist.g", p, n), &e))
            check_message(&e);
        trace_list_free(&l);
        break;
    }
    }
    return 0;
}
