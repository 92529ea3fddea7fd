/* suite_vars.c - ${name} references in suite values: checked when the suite
 * is loaded (so lint catches a missing brace), expanded when a case runs
 * (only the environment knows ${gpus} or ${uuid.3}). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "suite_int.h"
#include "util/util.h"

int mk_var_char(int c)
{
    return isalnum(c) || c == '_' || c == '.' || c == '-';
}

int mk_suite_var_name_ok(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (!mk_var_char((unsigned char)s[i]))
            return 0;
    return len > 0;
}

const char *mk_vars_lookup(const mk_vars *vars, const char *name)
{
    for (size_t i = 0; i < vars->nlocal; i++)
        if (strcmp(vars->local[i].name, name) == 0)
            return vars->local[i].value;
    for (size_t i = 0; i < vars->nenv; i++)
        if (strcmp(vars->env[i].name, name) == 0)
            return vars->env[i].value;
    return NULL;
}

/* Length of the variable name at p (just after "${"), or -1 when the
 * reference is not closed by '}' after a valid name. */
static int name_len(const char *p)
{
    int n = 0;
    while (mk_var_char((unsigned char)p[n]))
        n++;
    return n > 0 && p[n] == '}' ? n : -1;
}

int mk_vars_check(const mk_ynode *n, const char *what, mk_diags *d)
{
    for (const char *p = strstr(n->str, "${"); p; p = strstr(p, "${")) {
        int len = name_len(p + 2);
        if (len < 0) {
            mk_yerr(d, n, "%s: '%s' has a bad variable reference; write ${name} "
                    "(letters, digits, '.', '_', '-')", what, n->str);
            return -1;
        }
        p += 3 + len;
    }
    return 0;
}

/* Built in a growing string and copied once: adding snprintf's would-be
 * lengths to an offset walks past a short buffer when a name is long. */
void mk_vars_unknown(const mk_vars *vars, const char *name, char *err, size_t errlen)
{
    enum { SHOWN = 8, NAME_MAX_SHOWN = 64 };
    size_t total = vars->nenv + vars->nlocal;
    mk_sb b = MK_SB_INIT;
    mk_sb_printf(&b, "unknown variable ${%.*s%s}", NAME_MAX_SHOWN, name,
                 strlen(name) > NAME_MAX_SHOWN ? "..." : "");
    for (size_t i = 0; i < total && i < SHOWN; i++) {
        const char *v = i < vars->nlocal ? vars->local[i].name : vars->env[i - vars->nlocal].name;
        mk_sb_printf(&b, "%s%s", i ? ", " : " (known: ", v);
    }
    if (total > SHOWN)
        mk_sb_printf(&b, " and %zu more", total - SHOWN);
    mk_sb_puts(&b, total ? ")" : " (this environment defines none)");
    snprintf(err, errlen, "%s", mk_sb_str(&b));
    mk_sb_free(&b);
}

char *mk_vars_expand(const char *s, const mk_vars *vars, char *err, size_t errlen)
{
    mk_sb out = MK_SB_INIT;
    const char *p = s;
    for (const char *ref; (ref = strstr(p, "${")); ) {
        int len = name_len(ref + 2);
        if (len < 0) {
            snprintf(err, errlen, "bad variable reference in '%s'", s);
            mk_sb_free(&out);
            return NULL;
        }
        char *name = mk_xstrndup(ref + 2, (size_t)len);   /* any length, as --var takes */
        const char *value = mk_vars_lookup(vars, name);
        if (!value)
            mk_vars_unknown(vars, name, err, errlen);
        free(name);
        if (!value) {
            mk_sb_free(&out);
            return NULL;
        }
        mk_sb_printf(&out, "%.*s%s", (int)(ref - p), p, value);
        p = ref + 3 + len;
    }
    mk_sb_puts(&out, p);
    char *r = mk_sb_take(&out);
    return r ? r : mk_xstrdup("");
}
