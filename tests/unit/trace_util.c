/*
 * trace_util.c -- see trace_util.h.
 */
#include "trace_util.h"

#include <criterion/criterion.h>
#include <ftw.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "cli_util.h"

char *tu_dir(void) { return cli_tmpdir(); }

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

void tu_rmdir(char *dir)
{
    nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
    free(dir);
}

char *tu_write(const char *dir, const char *name, const char *text, int xz)
{
    char *path = xasprintf("%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    cr_assert(f, "cannot write %s", path);
    size_t n = strlen(text);
    if (!xz) {
        fwrite(text, 1, n, f);
    } else {
        size_t cap = lzma_stream_buffer_bound(n), out = 0;
        uint8_t *buf = xmalloc(cap);
        cr_assert_eq(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, (const uint8_t *)text, n,
                                             buf, &out, cap),
                     LZMA_OK);
        fwrite(buf, 1, out, f);
        free(buf);
    }
    fclose(f);
    return path;
}

char *tu_kernel(int tracer, int lineinfo, const char *extra, const char *body)
{
    return xasprintf("-kernel name = _Z4testPf\n"
                     "-kernel id = 1\n"
                     "-grid dim = (2,1,1)\n"
                     "-block dim = (64,1,1)\n"
                     "-shmem = 256\n"
                     "-nregs = 16\n"
                     "-binary version = 70\n"
                     "-cuda stream id = 0\n"
                     "-shmem base_addr = 0x00007f1000000000\n"
                     "-local mem base_addr = 0x00007f0800000000\n"
                     "-nvbit version = 1.5.5\n"
                     "-accelsim tracer version = %d\n"
                     "-enable lineinfo = %d\n"
                     "%s"
                     "\n#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num "
                     "[reg_srcs] mem_width [adrrescompress?] [mem_addresses] immediate\n\n"
                     "%s",
                     tracer, lineinfo, extra ? extra : "", body);
}

char *tu_shared_list(const char *name)
{
    const char *root = getenv("CHIPSIM_SHARED");
    char *path = xasprintf("%s/data/%s/kernelslist.g", root && *root ? root : "../shared", name);
    if (access(path, R_OK)) {
        free(path);
        return NULL;
    }
    return path;
}
