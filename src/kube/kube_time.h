/* kube_time.h - the times the API server writes (RFC 3339, as Go's
 * time.RFC3339 and RFC3339Nano: "2026-12-02T03:04:05Z",
 * "2026-12-02T03:04:06.123456Z", "2026-12-02T05:04:05+02:00"). */
#ifndef MOKKA_KUBE_TIME_H
#define MOKKA_KUBE_TIME_H

#include <stddef.h>

/* Milliseconds since the Unix epoch (a fraction beyond them is cut).
 * Years 1970 to 9999; anything else, or any stray character, is -1. */
int mk_ktime_ms(const char *s, long long *ms);

/* ms since the Unix epoch as "2026-12-02T03:04:05.123Z" (fraction 1, as
 * RFC3339Nano to the millisecond), "2026-12-02T03:04:05.123000Z" (2, a
 * MicroTime, whose six digits Go's parser requires: a Lease's renewTime)
 * or "2026-12-02T03:04:05Z" (0), UTC. */
void mk_ktime_format(long long ms, int fraction, char *buf, size_t len);

#endif
