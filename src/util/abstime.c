/* abstime.c - absolute deadlines for condition-variable waits (util.h). */
#include "util.h"

struct timespec mk_abstime_in(clockid_t clock, long long ms)
{
    struct timespec t;
    clock_gettime(clock, &t);
    t.tv_sec += (time_t)(ms / 1000);
    t.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}
