/* abstime.h - absolute deadlines for pthread_cond_timedwait: "in 500 ms" on
 * the clock a condition variable waits by. */
#ifndef MOKKA_ABSTIME_H
#define MOKKA_ABSTIME_H

#include <time.h>

/* Now on `clock`, plus ms milliseconds (ms >= 0). */
struct timespec mk_abstime_in(clockid_t clock, long long ms);

#endif
