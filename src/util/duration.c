/* duration.c - parsing and printing durations without floating point, so
 * that the output never depends on rounding or on the locale. */
#include <stdio.h>
#include <string.h>
#include "util.h"

static long long unit_ms(const char **p)
{
    static const struct { const char *name; long long ms; } units[] = {
        {"ms", 1}, {"s", 1000}, {"m", 60 * 1000}, {"h", 60 * 60 * 1000},
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        size_t n = strlen(units[i].name);
        if (strncmp(*p, units[i].name, n) == 0) {
            *p += n;
            return units[i].ms;
        }
    }
    return -1;
}

int mk_duration_parse(const char *s, long long *ms)
{
    if (strcmp(s, "0") == 0) {
        *ms = 0;
        return 0;
    }
    long long total = 0;
    const char *p = s;
    if (!*p)
        return -1;
    while (*p) {
        long long v = 0;
        const char *digits = p;
        while (*p >= '0' && *p <= '9' && p - digits < 10)
            v = v * 10 + (*p++ - '0');
        if (p == digits)
            return -1;
        long long unit = unit_ms(&p);
        if (unit < 0)
            return -1;
        total += v * unit;
        if (total > MK_DURATION_MAX_MS)
            return -1;
    }
    *ms = total;
    return 0;
}

/* Seconds with the fraction's trailing zeros dropped: "2.5s", "30s". */
static void secs_part(long long s, long long r, char *buf, size_t len)
{
    if (!r) {
        snprintf(buf, len, "%llds", s);
        return;
    }
    int dec = r % 100 == 0 ? 1 : r % 10 == 0 ? 2 : 3;
    long long frac = dec == 1 ? r / 100 : dec == 2 ? r / 10 : r;
    snprintf(buf, len, "%lld.%0*llds", s, dec, frac);
}

void mk_duration_format(long long ms, char *buf, size_t len)
{
    if (ms < 0)
        ms = 0;
    if (ms > 0 && ms < 1000) {
        snprintf(buf, len, "%lldms", ms);
        return;
    }
    long long h = ms / 3600000, m = ms / 60000 % 60, s = ms / 1000 % 60, r = ms % 1000;
    char sec[48] = "";
    if (s || r || (!h && !m))
        secs_part(s, r, sec, sizeof sec);
    if (h && m)
        snprintf(buf, len, "%lldh%lldm%s", h, m, sec);
    else if (h)
        snprintf(buf, len, "%lldh%s", h, sec);
    else if (m)
        snprintf(buf, len, "%lldm%s", m, sec);
    else
        snprintf(buf, len, "%s", sec);
}

void mk_secs_format(long long ms, char *buf, size_t len)
{
    if (ms < 0)
        ms = 0;
    snprintf(buf, len, "%lld.%03lld", ms / 1000, ms % 1000);
}
