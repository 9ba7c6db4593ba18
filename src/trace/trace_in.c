/*
 * trace_in.c -- buffered line input over a plain or .xz trace file (see
 * trace.h). Lines are handed out as pointers into the buffer; a line that
 * crosses the end of the buffer moves to its front before the next read.
 * An .xz stream is decoded with liblzma as it is read (the whole file is
 * never held); seeking in it decodes forward and discards, or starts over
 * from the beginning when the target lies behind.
 */
#include "trace.h"

#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define IN_BUF (256u * 1024u)   /* decompressed bytes held; > TRACE_MAX_LINE */
#define IN_READ (64u * 1024u)   /* bytes read at a time: a seek costs no more */
#define Z_BUF (64u * 1024u)     /* compressed bytes read at a time */

static bool has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && !strcmp(s + n - m, suf);
}

static int xz_start(struct trace_in *in, struct err *e)
{
    lzma_stream *z = in->lz;
    lzma_end(z);
    *z = (lzma_stream)LZMA_STREAM_INIT;
    if (lzma_stream_decoder(z, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
        return err_set(e, "%s: cannot start the xz decoder", in->path);
    in->zlen = 0;
    return 0;
}

int trace_in_open(struct trace_in *in, const char *path, struct err *e)
{
    *in = (struct trace_in){.fd = -1, .path = xstrdup(path)};
    in->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (in->fd < 0) {
        err_set(e, "%s: cannot open: %s", path, strerror(errno));
        trace_in_close(in);
        return -1;
    }
    in->cap = IN_BUF;
    in->buf = xmalloc(in->cap + 1);
    in->xz = has_suffix(path, ".xz");
    if (in->xz) {
        in->lz = xcalloc(1, sizeof(lzma_stream));
        *(lzma_stream *)in->lz = (lzma_stream)LZMA_STREAM_INIT;
        in->zbuf = xmalloc(Z_BUF);
        if (xz_start(in, e)) {
            trace_in_close(in);
            return -1;
        }
    }
    return 0;
}

void trace_in_close(struct trace_in *in)
{
    if (in->fd >= 0)
        close(in->fd);
    if (in->lz) {
        lzma_end(in->lz);
        free(in->lz);
    }
    free(in->zbuf);
    free(in->buf);
    free(in->path);
    *in = (struct trace_in){.fd = -1};
}

static ssize_t read_some(int fd, void *buf, size_t n)
{
    ssize_t r;
    do
        r = read(fd, buf, n);
    while (r < 0 && errno == EINTR);
    return r;
}

static const char *lzma_why(lzma_ret rc)
{
    switch (rc) {
    case LZMA_FORMAT_ERROR:
        return "not an xz file";
    case LZMA_OPTIONS_ERROR:
        return "unsupported xz options";
    case LZMA_DATA_ERROR:
        return "corrupt xz data";
    case LZMA_MEM_ERROR:
        return "out of memory in the xz decoder";
    default:
        return "xz decoding failed";
    }
}

/* Decode into out[0..n); returns bytes produced (0 at the end of the stream). */
static ssize_t xz_read(struct trace_in *in, uint8_t *out, size_t n, struct err *e)
{
    lzma_stream *z = in->lz;
    z->next_out = out;
    z->avail_out = n;
    while (z->avail_out == n) {
        lzma_action act = LZMA_RUN;
        if (z->avail_in == 0) {
            ssize_t r = read_some(in->fd, in->zbuf, Z_BUF);
            if (r < 0)
                return err_set(e, "%s: read error: %s", in->path, strerror(errno));
            z->next_in = in->zbuf;
            z->avail_in = (size_t)r;
            if (r == 0)
                act = LZMA_FINISH;
        }
        lzma_ret rc = lzma_code(z, act);
        if (rc == LZMA_STREAM_END)
            break;
        if (rc == LZMA_BUF_ERROR && act == LZMA_FINISH)
            return err_set(e, "%s:%llu: truncated xz stream", in->path,
                           (unsigned long long)in->line + 1);
        if (rc != LZMA_OK)
            return err_set(e, "%s:%llu: %s (liblzma error %d)", in->path,
                           (unsigned long long)in->line + 1, lzma_why(rc), (int)rc);
    }
    return (ssize_t)(n - z->avail_out);
}

/* Move the pending bytes to the front and read more after them. */
static int refill(struct trace_in *in, struct err *e)
{
    size_t have = in->end - in->beg;
    if (in->beg)
        memmove(in->buf, in->buf + in->beg, have);
    in->beg = 0;
    in->end = have;
    while (in->end < in->cap && !in->eof) {
        size_t want = min_u64(in->cap - in->end, IN_READ);
        ssize_t r = in->xz ? xz_read(in, (uint8_t *)in->buf + in->end, want, e)
                           : read_some(in->fd, in->buf + in->end, want);
        if (r < 0) {
            if (!in->xz)
                err_set(e, "%s: read error: %s", in->path, strerror(errno));
            return -1;
        }
        if (r == 0)
            in->eof = true;
        in->end += (size_t)r;
        in->bytes += (uint64_t)r;
        if (r > 0)
            break;
    }
    return 0;
}

int trace_in_line(struct trace_in *in, char **line, size_t *len, struct err *e)
{
    for (;;) {
        char *s = in->buf + in->beg;
        size_t avail = in->end - in->beg;
        char *nl = avail ? memchr(s, '\n', avail) : NULL;
        size_t n = nl ? (size_t)(nl - s) : avail;
        if (nl || (in->eof && avail)) {
            if (n > TRACE_MAX_LINE)
                return err_set(e, "%s:%llu: line longer than %u bytes", in->path,
                               (unsigned long long)in->line + 1, TRACE_MAX_LINE);
            size_t used = nl ? n + 1 : n;
            if (n && s[n - 1] == '\r')
                n--;
            s[n] = 0;
            in->beg += used;
            in->pos += used;
            in->line++;
            *line = s;
            *len = n;
            return 1;
        }
        if (in->eof)
            return 0;
        if (avail > TRACE_MAX_LINE)
            return err_set(e, "%s:%llu: line longer than %u bytes", in->path,
                           (unsigned long long)in->line + 1, TRACE_MAX_LINE);
        if (refill(in, e))
            return -1;
    }
}

/* xz: decode and drop bytes up to offset off (>= pos). */
static int skip_to(struct trace_in *in, uint64_t off, struct err *e)
{
    while (in->pos < off) {
        size_t avail = in->end - in->beg;
        if (!avail) {
            if (in->eof)
                return err_set(e, "%s: offset %llu lies past the end of the file", in->path,
                               (unsigned long long)off);
            if (refill(in, e))
                return -1;
            continue;
        }
        size_t n = off - in->pos < avail ? (size_t)(off - in->pos) : avail;
        in->beg += n;
        in->pos += n;
        in->skipped += n;
    }
    return 0;
}

int trace_in_seek(struct trace_in *in, uint64_t off, uint64_t line, struct err *e)
{
    if (off >= in->pos && off <= in->pos + (in->end - in->beg)) {
        /* inside the buffer */
        in->beg += (size_t)(off - in->pos);
        in->pos = off;
    } else if (!in->xz) {
        if (lseek(in->fd, (off_t)off, SEEK_SET) < 0)
            return err_set(e, "%s: cannot seek: %s", in->path, strerror(errno));
        in->beg = in->end = 0;
        in->pos = off;
        in->eof = false;
    } else {
        if (off < in->pos) {
            if (lseek(in->fd, 0, SEEK_SET) < 0)
                return err_set(e, "%s: cannot seek: %s", in->path, strerror(errno));
            if (xz_start(in, e))
                return -1;
            in->beg = in->end = 0;
            in->pos = 0;
            in->eof = false;
        }
        if (skip_to(in, off, e))
            return -1;
    }
    in->line = line ? line - 1 : 0;
    return 0;
}
