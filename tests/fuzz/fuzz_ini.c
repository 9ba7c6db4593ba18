/*
 * fuzz_ini.c -- libFuzzer harness for the configuration loader
 * (src/config/): an input is an INI file given with every section of every
 * scheme and workload defined, loaded and resolved as `chipsim run -c` does.
 * Bad input must come back as an error message that names the file, never a
 * crash; accepted input must print and convert to JSON.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/setup.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = 0;
    struct cfg c;
    struct err e;
    cfg_init(&c);
    setup_define_all(&c);
    int rc = cfg_load_string(&c, "f.ini", text, &e);
    if (!rc)
        rc = cfg_resolve(&c, &e);
    if (rc) {
        if (strncmp(e.msg, "f.ini:", 6) && strncmp(e.msg, "f.ini", 5))
            abort();
    } else {
        FILE *null = fopen("/dev/null", "w");
        cfg_print_ini(&c, null);
        fclose(null);
        json_t *j = cfg_to_json(&c);
        json_decref(j);
    }
    cfg_free(&c);
    free(text);
    return 0;
}
