/* suite_vars.c - ${name} references in suite values: checked when the suite
 * is loaded (so lint catches a missing brace), expanded when a case runs
 * (only the environment knows ${gpus} or ${uuid.3}). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "suite_int.h"
#include "util/util.h"

int mk_var_char(int c)
{
    return isalnum(c) || c == '_' || c == '.' || c == '-';
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

void mk_vars_unknown(const mk_vars *vars, const char *name, char *err, size_t errlen)
{
    int off = snprintf(err, errlen, "unknown variable ${%s}", name);
    size_t total = vars->nenv + vars->nlocal;
    for (size_t i = 0; i < total && off > 0 && (size_t)off < errlen; i++) {
        const char *v = i < vars->nlocal ? vars->local[i].name : vars->env[i - vars->nlocal].name;
        if (i == 8) {
            off += snprintf(err + off, errlen - (size_t)off, " and %zu more", total - 8);
            break;
        }
        off += snprintf(err + off, errlen - (size_t)off, "%s%s", i ? ", " : " (known: ", v);
    }
    if (total && off > 0 && (size_t)off < errlen)
        snprintf(err + off, errlen - (size_t)off, ")");
    else if (!total)
        snprintf(err + off, errlen - (size_t)off, " (this environment defines none)");
}

char *mk_vars_expand(const char *s, const mk_vars *vars, char *err, size_t errlen)
{
    mk_sb out = MK_SB_INIT;
    const char *p = s;
    for (const char *ref; (ref = strstr(p, "${")); ) {
        int len = name_len(ref + 2);
        char name[256];
        if (len < 0 || (size_t)len >= sizeof name) {
            snprintf(err, errlen, "bad variable reference in '%s'", s);
            mk_sb_free(&out);
            return NULL;
        }
        memcpy(name, ref + 2, (size_t)len);
        name[len] = 0;
        const char *value = mk_vars_lookup(vars, name);
        if (!value) {
            mk_vars_unknown(vars, name, err, errlen);
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
