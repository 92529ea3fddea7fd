/* prom.c - Prometheus text format writer (see expose.h). */
#include "expose.h"

/* Help text: backslash and newline escaped; label values also quotes. */
static void escaped(FILE *f, const char *s, int quotes)
{
    for (; *s; s++) {
        if (*s == '\\')
            fputs("\\\\", f);
        else if (*s == '\n')
            fputs("\\n", f);
        else if (*s == '"' && quotes)
            fputs("\\\"", f);
        else
            fputc(*s, f);
    }
}

void mk_prom_family(FILE *f, const char *name, const char *type, const char *help)
{
    fprintf(f, "# HELP %s ", name);
    escaped(f, help, 0);
    fprintf(f, "\n# TYPE %s %s\n", name, type);
}

void mk_prom_sample(FILE *f, const char *name, const char *const *labels, const char *value)
{
    fputs(name, f);
    for (size_t i = 0; labels && labels[i]; i += 2) {
        fprintf(f, "%c%s=\"", i ? ',' : '{', labels[i]);
        escaped(f, labels[i + 1], 1);
        fputc('"', f);
    }
    fprintf(f, "%s %s\n", labels && labels[0] ? "}" : "", value);
}
