/* duration.h - durations as suites write them ("500ms", "30s", "5m", "1h",
 * "1m30s") and as reports print them (seconds with three decimals). */
#ifndef MOKKA_DURATION_H
#define MOKKA_DURATION_H

#include <stddef.h>

#define MK_DURATION_MAX_MS (24LL * 60 * 60 * 1000)

/* Parses a sum of <integer><unit> terms (units ms, s, m, h), or "0".
 * Returns 0 with *ms set, or -1 for anything else or more than a day. */
int mk_duration_parse(const char *s, long long *ms);
/* "30s", "1m30s", "1h", "250ms", "2.5s": the shortest exact form. */
void mk_duration_format(long long ms, char *buf, size_t len);
/* "12.345": seconds with three decimals and always a '.', whatever the
 * locale (JUnit time attributes). */
void mk_secs_format(long long ms, char *buf, size_t len);

#endif
