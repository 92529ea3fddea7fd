/* cfgcheck.c - a GPU config through the core loader (see config.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "util/util.h"
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

static int report(const char *cmd, const char *path)
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

int mk_config_prepare(const char *cmd, const char *given)
{
    const char *config = given;
    char abs[PATH_MAX];
    if (!config || !*config)
        config = getenv("MOCK_CONFIG_PATH");
    if (!config || !*config)
        config = getenv("MOKKA_CONFIG");
    if (!config || !*config)
        return 0;
    if (!realpath(config, abs)) {
        mk_err(cmd, "%s: cannot open the config: %s", config, strerror(errno));
        return MK_EXIT_USAGE;
    }
    int rc = report(cmd, abs);
    if (rc == 0 && setenv("MOCK_CONFIG_PATH", abs, 1) != 0) {
        mk_err(cmd, "cannot set MOCK_CONFIG_PATH: %s", strerror(errno));
        return MK_EXIT_ENV;
    }
    return rc;
}
