/* kube_time.c - RFC 3339 times read strictly, digit by digit: strptime
 * would skip blanks and take any width of year, and the GPU fault agent
 * reads these from objects anyone may write; and written as the API
 * server writes them. */
#include <stdio.h>
#include <time.h>
#include "kube_time.h"

/* n digits at *p into *out, moving past them. */
static int digits(const char **p, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++, (*p)++) {
        if (**p < '0' || **p > '9')
            return -1;
        v = v * 10 + (**p - '0');
    }
    *out = v;
    return 0;
}

static int lit(const char **p, char c)
{
    if (**p != c)
        return -1;
    (*p)++;
    return 0;
}

static int month_days(int y, int m)
{
    static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return days[m - 1] + (m == 2 && leap);
}

/* Days from 1970-01-01 to y-m-d, proleptic Gregorian (H. Hinnant's
 * days_from_civil; y >= 1 here). */
static long long civil_days(int y, int m, int d)
{
    y -= m <= 2;
    long long era = y / 400;
    long long yoe = y - era * 400;
    long long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* ".123456789": the milliseconds of a fraction of 1 to 9 digits. */
static int fraction(const char **p, int *ms)
{
    int n = 0;
    *ms = 0;
    if (lit(p, '.'))
        return 0;
    for (; **p >= '0' && **p <= '9'; (*p)++, n++)
        if (n < 3)
            *ms = *ms * 10 + (**p - '0');
    for (int i = n; i < 3; i++)
        *ms *= 10;
    return n >= 1 && n <= 9 ? 0 : -1;
}

/* "Z" or "+hh:mm" / "-hh:mm": the offset from UTC in minutes. */
static int offset(const char **p, int *min)
{
    int h, m, sign = **p == '-' ? -1 : 1;
    *min = 0;
    if (!lit(p, 'Z') || !lit(p, 'z'))
        return 0;
    if (lit(p, '+') && lit(p, '-'))
        return -1;
    if (digits(p, 2, &h) || lit(p, ':') || digits(p, 2, &m) || h > 23 || m > 59)
        return -1;
    *min = sign * (h * 60 + m);
    return 0;
}

int mk_ktime_ms(const char *s, long long *ms)
{
    int y, mo, d, h, mi, sec, frac, off;
    const char *p = s;
    if (digits(&p, 4, &y) || lit(&p, '-') || digits(&p, 2, &mo) || lit(&p, '-') ||
        digits(&p, 2, &d) || lit(&p, 'T') || digits(&p, 2, &h) || lit(&p, ':') ||
        digits(&p, 2, &mi) || lit(&p, ':') || digits(&p, 2, &sec) || fraction(&p, &frac) ||
        offset(&p, &off) || *p)
        return -1;
    if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > month_days(y, mo) || h > 23 || mi > 59 ||
        sec > 59)
        return -1;
    long long t = ((civil_days(y, mo, d) * 24 + h) * 60 + mi - off) * 60 + sec;
    if (t < 0)
        return -1;
    *ms = t * 1000 + frac;
    return 0;
}

void mk_ktime_format(long long ms, int fraction, char *buf, size_t len)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    char base[32];
    gmtime_r(&t, &tm);
    strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
    if (fraction == 2)
        snprintf(buf, len, "%s.%03lld000Z", base, ms % 1000);
    else if (fraction)
        snprintf(buf, len, "%s.%03lldZ", base, ms % 1000);
    else
        snprintf(buf, len, "%sZ", base);
}
