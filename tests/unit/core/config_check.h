/* config_check.h - what the config loader tests share: loading a YAML text
 * as the file "t.yaml" (strict, so warnings are recorded too) on node
 * "node-a", and asserting on the exact diagnostics it produces. */
#ifndef MOKKA_CONFIG_CHECK_H
#define MOKKA_CONFIG_CHECK_H

#include <stdio.h>
#include <string.h>
#include "support/testutil.h"
#include "universe.h"

static inline mk_universe *t_load(const char *yaml, mk_diags *d)
{
    mk_diags_init(d);
    d->strict = 1;
    return mk_universe_load_mem("t.yaml", yaml, strlen(yaml), "node-a", d);
}

/* Every diagnostic, one a line, for failure messages. */
static inline const char *t_diag_text(const mk_diags *d)
{
    static char buf[32768];
    size_t used = 0;
    buf[0] = 0;
    for (size_t i = 0; i < d->n && used + 2 < sizeof buf; i++) {
        char line[2048];
        mk_diag_format(&d->v[i], line, sizeof line);
        used += (size_t)snprintf(buf + used, sizeof buf - used, "  %s\n", line);
    }
    return d->n ? buf : "  (no diagnostics)\n";
}

static inline int t_has_diag(const mk_diags *d, const char *want)
{
    for (size_t i = 0; i < d->n; i++) {
        char line[2048];
        mk_diag_format(&d->v[i], line, sizeof line);
        if (strcmp(line, want) == 0)
            return 1;
    }
    return 0;
}

static inline mk_universe *t_load_clean_at(const char *yaml, const char *file, int line)
{
    mk_diags d;
    mk_universe *u = t_load(yaml, &d);
    ck_assert_msg(u && d.n == 0, "%s:%d: expected a clean load, got:\n%s", file, line,
                  t_diag_text(&d));
    mk_diags_free(&d);
    return u;
}

/* `want` is the only diagnostic; an error fails the load, a warning not. */
static inline void t_expect_only_at(const char *yaml, const char *want, const char *file, int line)
{
    mk_diags d;
    mk_universe *u = t_load(yaml, &d);
    int is_error = strstr(want, ": error: ") != NULL;
    ck_assert_msg(d.n == 1 && t_has_diag(&d, want), "%s:%d: expected only\n  %s\ngot:\n%s",
                  file, line, want, t_diag_text(&d));
    ck_assert_msg(is_error ? u == NULL : u != NULL, "%s:%d: load %s", file, line,
                  u ? "succeeded" : "failed");
    mk_universe_free(u);
    mk_diags_free(&d);
}

/* `want` is among the diagnostics, and the load fails. */
static inline void t_expect_diag_at(const char *yaml, const char *want, const char *file, int line)
{
    mk_diags d;
    mk_universe *u = t_load(yaml, &d);
    ck_assert_msg(t_has_diag(&d, want), "%s:%d: expected\n  %s\namong:\n%s", file, line, want,
                  t_diag_text(&d));
    ck_assert_msg(u == NULL, "%s:%d: load succeeded", file, line);
    mk_diags_free(&d);
}

#define LOAD_CLEAN(yaml) t_load_clean_at((yaml), __FILE__, __LINE__)
#define EXPECT_ONLY(yaml, want) t_expect_only_at((yaml), (want), __FILE__, __LINE__)
#define EXPECT_DIAG(yaml, want) t_expect_diag_at((yaml), (want), __FILE__, __LINE__)

#endif
