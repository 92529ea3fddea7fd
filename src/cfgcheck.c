/* cfgcheck.c - a GPU config through the core loader (see cfgcheck.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cfgcheck.h"
#include "cli.h"
#include "universe.h"

int mk_config_check(const char *path, size_t *ngpus, char **errors)
{
    mk_diags d;
    mk_diags_init(&d);
    mk_universe *u = mk_universe_load(path, NULL, &d);
    *errors = NULL;
    if (u) {
        *ngpus = u->ndev;
        mk_universe_free(u);
        mk_diags_free(&d);
        return 0;
    }
    size_t size = 0;
    FILE *f = open_memstream(errors, &size);
    for (size_t i = 0; f && i < d.n; i++) {
        char line[1200];
        if (d.v[i].level != MK_DIAG_ERROR)
            continue;
        mk_diag_format(&d.v[i], line, sizeof line);
        fprintf(f, "%s\n", line);
    }
    if (f)
        fclose(f);
    mk_diags_free(&d);
    return -1;
}

int mk_config_check_or_report(const char *cmd, const char *path)
{
    size_t n;
    char *errors;
    if (mk_config_check(path, &n, &errors) == 0)
        return 0;
    char *save = NULL;
    for (char *l = errors ? strtok_r(errors, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save))
        mk_err(cmd, "%s", l);
    if (!errors)
        mk_err(cmd, "%s: invalid config (out of memory while reporting why)", path);
    free(errors);
    return MK_EXIT_USAGE;
}
