/* fleet_shared.c - what every thread of the fleet uses: the wall clock,
 * and the fleet's one failure (the first one wins; `mokka fleet` ends with
 * it). */
#include <stdarg.h>
#include <stdio.h>
#include "fleet_int.h"

long long fleet_unix_ms(void)
{
    return (long long)(mk_now_real_ns() / 1000000);
}

void fleet_fail(mk_fleet *f, const char *fmt, ...)
{
    va_list ap;
    pthread_mutex_lock(&f->mu);
    if (!f->failed) {
        va_start(ap, fmt);
        vsnprintf(f->failure, sizeof f->failure, fmt, ap);
        va_end(ap);
        f->failed = 1;
    }
    pthread_cond_broadcast(&f->tick);
    pthread_mutex_unlock(&f->mu);
}
