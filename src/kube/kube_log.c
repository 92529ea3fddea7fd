/* kube_log.c - the cluster client's log lines (kube_log.h). */
#include <stdarg.h>
#include <stdio.h>
#include "kube_log.h"

void mk_klogf(const mk_klog *l, int warning, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    if (!warning && !l->verbose)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (l->fn)
        l->fn(l->ctx, warning, msg);
    else
        fprintf(stderr, "mokka: %s%s\n", warning ? "warning: " : "", msg);
}
