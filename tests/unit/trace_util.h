/*
 * trace_util.h -- small trace files for the trace tests: a scratch
 * directory, files written into it (plain or xz-compressed), a kernel file
 * built from a header template and a body, and where the shared traces are.
 */
#ifndef CHIPSIM_TEST_TRACE_UTIL_H
#define CHIPSIM_TEST_TRACE_UTIL_H

#include <stddef.h>

/* A fresh scratch directory (remove with tu_rmdir). */
char *tu_dir(void);
/* Remove the directory and everything in it; frees dir. */
void tu_rmdir(char *dir);
/* Write text to dir/name; returns the path (caller frees). xz: compress it. */
char *tu_write(const char *dir, const char *name, const char *text, int xz);
/* A kernel file's text: the standard header (grid (2,1,1), block (64,1,1),
 * binary version 70, shared base 0x7f1000000000, local base 0x7f0800000000,
 * shmem 256) with the given tracer version and lineinfo flag, `extra`
 * header lines inserted before the format line, then body. Caller frees. */
char *tu_kernel(int tracer, int lineinfo, const char *extra, const char *body);
/* ../shared (or $CHIPSIM_SHARED)/data/<name>/kernelslist.g, or NULL if the
 * shared data is absent (the caller skips). Caller frees. */
char *tu_shared_list(const char *name);

#endif
