/* fleet_shared.c - what every thread of the fleet uses: the wall clock in
 * the API server's forms, and the fleet's one failure (the first one wins;
 * `mokka fleet` ends with it). */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include "fleet_int.h"

long long fleet_unix_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

void fleet_time(long long ms, int micro, char *buf, size_t len)
{
    time_t s = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&s, &tm);
    char base[32];
    strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
    if (micro)
        snprintf(buf, len, "%s.%06lldZ", base, (ms % 1000) * 1000);
    else
        snprintf(buf, len, "%sZ", base);
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
