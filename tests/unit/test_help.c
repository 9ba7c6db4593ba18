/*
 * test_help.c -- every subcommand answers -h and --help with its usage on
 * stdout and exit status 0, its help names every option its parser takes,
 * an unknown option is exit status 2, and output paths are checked before
 * a run starts.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "cli/opts.h"
#include "cli_util.h"

/* s contains word as a whole option token: not followed by a letter, digit
 * or '-' (so "--d4" is not found in "--d40" and "-c" not in "-cache"). */
static bool has_token(const char *s, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(s, word); p; p = strstr(p + 1, word)) {
        char after = p[n];
        bool before_ok = p == s || p[-1] == ' ' || p[-1] == '[' || p[-1] == '|' || p[-1] == '\n';
        if (before_ok && !(after == '-' || (after >= 'a' && after <= 'z') ||
                           (after >= 'A' && after <= 'Z') || (after >= '0' && after <= '9')))
            return true;
    }
    return false;
}

static void check_help(const struct cli_cmd *c, const char *flag)
{
    const char *argv[] = {c->name, flag, NULL};
    struct cli_result r = cli_exec(argv);
    cr_expect_eq(r.status, 0, "chipsim %s %s: status %d, stderr: %s", c->name, flag, r.status,
                 r.err);
    cr_expect_str_eq(r.err, "", "chipsim %s %s wrote to stderr", c->name, flag);
    char usage[64];
    snprintf(usage, sizeof usage, "usage: chipsim %s", c->name);
    cr_expect(strncmp(r.out, usage, strlen(usage)) == 0, "chipsim %s %s: %s", c->name, flag,
              r.out);
    size_t nopts = 0;
    for (const struct cli_optgroup *g = c->groups; g && g->opts; g++)
        for (const struct cli_opt *o = g->opts; o->id; o++) {
            nopts++;
            char word[64];
            if (o->lng) {
                snprintf(word, sizeof word, "--%s", o->lng);
                cr_expect(has_token(r.out, word), "chipsim %s %s does not name %s:\n%s", c->name,
                          flag, word, r.out);
            }
            if (o->shrt) {
                snprintf(word, sizeof word, "-%c", o->shrt);
                cr_expect(has_token(r.out, word), "chipsim %s %s does not name %s:\n%s", c->name,
                          flag, word, r.out);
            }
        }
    cr_expect(has_token(r.out, "--help") && has_token(r.out, "-h"), "%s", r.out);
    cli_result_free(&r);
}

Test(help, every_command_answers_h_and_help)
{
    size_t n = 0;
    for (const struct cli_cmd *const *c = cli_commands; *c; c++, n++) {
        check_help(*c, "--help");
        check_help(*c, "-h");
    }
    cr_expect_geq(n, 9, "the commands: run list classify sweep study validate compare version help");
}

Test(help, the_command_list_names_every_command)
{
    const char *flags[][2] = {{"--help", NULL}, {"-h", NULL}, {"help", NULL}};
    for (size_t i = 0; i < 3; i++) {
        struct cli_result r = cli_exec(flags[i]);
        cr_expect_eq(r.status, 0, "%s", r.err);
        for (const struct cli_cmd *const *c = cli_commands; *c; c++) {
            char line[64];
            snprintf(line, sizeof line, "\n  %s ", (*c)->name);
            cr_expect(((*c)->hidden ? !strstr(r.out, line) : !!strstr(r.out, line)),
                      "%s %s listed in:\n%s", (*c)->name, (*c)->hidden ? "is" : "is not", r.out);
        }
        cli_result_free(&r);
    }
    const char *one[] = {"help", "sweep", NULL};
    struct cli_result r = cli_exec(one);
    cr_expect_eq(r.status, 0);
    cr_expect(strstr(r.out, "usage: chipsim sweep") == r.out, "%s", r.out);
    cli_result_free(&r);
}

Test(help, an_unknown_option_is_bad_input)
{
    for (const struct cli_cmd *const *c = cli_commands; *c; c++) {
        const char *argv[] = {(*c)->name, "--no-such-option", NULL};
        struct cli_result r = cli_exec(argv);
        cr_expect_eq(r.status, 2, "chipsim %s --no-such-option: status %d", (*c)->name, r.status);
        cr_expect(strstr(r.err, "--no-such-option"), "chipsim %s: %s", (*c)->name, r.err);
        cr_expect_str_eq(r.out, "", "chipsim %s printed on stdout", (*c)->name);
        cli_result_free(&r);
    }
    const char *missing[] = {"run", "--json", NULL};
    struct cli_result r = cli_exec(missing);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "option '--json' needs a value"), "%s", r.err);
    cli_result_free(&r);
}

/* The run would take a while and print its resolved configuration first;
 * an unwritable --json must stop it before that, with nothing written. */
Test(help, an_unwritable_json_fails_before_the_run)
{
    char *dir = cli_tmpdir();
    char *absent = xasprintf("%s/no/such/dir/out.json", dir);
    const char *paths[] = {absent, dir, "/proc/chipsim-out.json"};
    for (size_t i = 0; i < 3; i++) {
        const char *argv[] = {"run", "-c", "configs/mcm-4chiplet.ini", "-w", "sssp", "--json",
                              paths[i], NULL};
        struct cli_result r = cli_exec(argv);
        cr_expect_eq(r.status, 2, "--json %s: status %d", paths[i], r.status);
        cr_expect_str_eq(r.out, "", "--json %s: the run started:\n%.300s", paths[i], r.out);
        cr_expect(strstr(r.err, "--json") && strstr(r.err, paths[i]), "%s", r.err);
        cli_result_free(&r);
    }
    cr_expect_eq(access(absent, F_OK), -1);
    rmdir(dir);
    free(absent);
    free(dir);
}

Test(help, unwritable_outputs_of_sweep_study_and_validate_fail_at_once)
{
    const char *sweep[] = {"sweep", "studies/cpelide.ini", "--csv", "/proc/out.csv", NULL};
    const char *study[] = {"study", "cpelide", "--quick", "--out", "/proc/chipsim-study", NULL};
    const char *val[] = {"validate", "--out", "/proc/chipsim-validation", NULL};
    const char *const *cmds[] = {sweep, study, val};
    for (size_t i = 0; i < 3; i++) {
        struct cli_result r = cli_exec(cmds[i]);
        cr_expect_eq(r.status, 2, "chipsim %s: status %d, stderr %s", cmds[i][0], r.status, r.err);
        cr_expect(strstr(r.err, "/proc/"), "chipsim %s: %s", cmds[i][0], r.err);
        cr_expect(!strstr(r.err, " runs, "), "chipsim %s started its runs: %s", cmds[i][0],
                  r.err);
        cli_result_free(&r);
    }
}
