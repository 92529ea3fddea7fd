/* suite.c (fuzz target "suite") - drives the suite loader (src/suite/
 * suite_load.c and what it checks with: values, variables, regexes,
 * durations) on a suite file in memory, and checks its promise: a suite
 * comes back exactly when no error was reported, and every diagnostic
 * formats as file:line:col.
 *
 * fuzz-flags: -max_len=16384 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "suite/suite.h"

#define CHECK(cond) \
    do { if (!(cond)) { fprintf(stderr, "suite: %s fails\n", #cond); abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mk_diags d;
    mk_diags_init(&d);
    mk_suite *s = mk_suite_load_mem("fuzz.yaml", (const char *)data, size, &d);
    CHECK((s != NULL) == (d.errors == 0));
    if (s) {
        CHECK(mk_suite_name(s) != NULL);
        (void)mk_suite_ncases(s);
    }
    for (size_t i = 0; i < d.n; i++) {
        char line[512];
        mk_diag_format(&d.v[i], line, sizeof line);
        CHECK(line[0] != 0);
    }
    mk_suite_free(s);
    mk_diags_free(&d);
    return 0;
}
