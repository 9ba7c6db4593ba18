/*
 * report.h -- the readable summary table printed by `chipsim run`.
 */
#ifndef CHIPSIM_CLI_REPORT_H
#define CHIPSIM_CLI_REPORT_H

#include <jansson.h>
#include <stdio.h>

void report_print_summary(FILE *o, json_t *sum, json_t *simj);

#endif
