/*
 * progress.c -- on a terminal, one progress line for the test run: tests
 * finished out of all, and the last one. Nothing when stderr is not a
 * terminal (CI logs), where Criterion's synthesis line is enough.
 */
#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <stdio.h>
#include <unistd.h>

static size_t total, done;

ReportHook(PRE_ALL)(struct criterion_test_set *set)
{
    total = set->tests;
}

ReportHook(POST_TEST)(struct criterion_test_stats *st)
{
    done++;
    if (isatty(2)) {
        fprintf(stderr, "\r\033[K[%zu/%zu] %s::%s", done, total, st->test->category,
                st->test->name);
        fflush(stderr);
    }
}

ReportHook(POST_ALL)(struct criterion_global_stats *st)
{
    (void)st;
    if (isatty(2) && done)
        fprintf(stderr, "\r\033[K");
}
