/* units.c - parsing and printing sizes, power, durations and live-metric names. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "units.h"

const mk_metric_info mk_metrics[MK_M_COUNT] = {
    [MK_M_TEMP] = { "temperature", MK_U_CELSIUS },
    [MK_M_TEMP_MEM] = { "memoryTemperature", MK_U_CELSIUS },
    [MK_M_POWER] = { "power", MK_U_POWER },
    [MK_M_UTIL_GPU] = { "utilization.gpu", MK_U_PERCENT },
    [MK_M_UTIL_MEM] = { "utilization.memory", MK_U_PERCENT },
    [MK_M_UTIL_ENC] = { "utilization.encoder", MK_U_PERCENT },
    [MK_M_UTIL_DEC] = { "utilization.decoder", MK_U_PERCENT },
    [MK_M_MEM_USED] = { "memoryUsed", MK_U_MEMORY },
    [MK_M_FAN] = { "fanSpeed", MK_U_PERCENT },
    [MK_M_CLK_GRAPHICS] = { "clocks.graphics", MK_U_MHZ },
    [MK_M_CLK_SM] = { "clocks.sm", MK_U_MHZ },
    [MK_M_CLK_MEM] = { "clocks.memory", MK_U_MHZ },
    [MK_M_CLK_VIDEO] = { "clocks.video", MK_U_MHZ },
};

int mk_metric_by_name(const char *name)
{
    for (int m = 0; m < MK_M_COUNT; m++)
        if (strcmp(mk_metrics[m].name, name) == 0)
            return m;
    return -1;
}

/* Splits "48 GB" / "0.21kW" into a non-negative number and a suffix. Only
 * plain decimals count as numbers: strtod alone would also read "0x10",
 * "1e3" and "inf", which no one means as a size. */
static int split_number(const char *s, double *num, const char **suffix)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strspn(s, "0123456789");
    if (s[n] == '.')
        n += 1 + strspn(s + n + 1, "0123456789");
    char digits[64];
    if (n == 0 || n >= sizeof digits || (n == 1 && s[0] == '.'))
        return -1;
    memcpy(digits, s, n);
    digits[n] = 0;
    errno = 0;
    *num = strtod(digits, NULL);
    if (errno == ERANGE || !(*num < 1e30))
        return -1;
    s += n;
    while (isspace((unsigned char)*s))
        s++;
    *suffix = s;
    return 0;
}

/* Case-insensitive suffix match that also ignores trailing blanks. */
static int suffix_is(const char *suffix, const char *unit)
{
    size_t n = strlen(unit);
    if (strncasecmp(suffix, unit, n) != 0)
        return 0;
    for (suffix += n; *suffix; suffix++)
        if (!isspace((unsigned char)*suffix))
            return 0;
    return 1;
}

int mk_parse_memory(const char *s, uint64_t *bytes, const char **why)
{
    static const struct { const char *unit; double mult; } units[] = {
        { "B", 1.0 }, { "KB", 1024.0 }, { "KiB", 1024.0 }, { "K", 1024.0 },
        { "MB", 1048576.0 }, { "MiB", 1048576.0 }, { "M", 1048576.0 },
        { "GB", 1073741824.0 }, { "GiB", 1073741824.0 }, { "G", 1073741824.0 },
        { "TB", 1099511627776.0 }, { "TiB", 1099511627776.0 }, { "T", 1099511627776.0 },
    };
    double num;
    const char *suf;
    *why = "expected a size like 40GB, 40GiB, 4864MiB or a bare number (MB from 1024 up, GB below)";
    if (split_number(s, &num, &suf) != 0)
        return -1;
    double mult = 0;
    if (*suf == 0) {
        mult = num >= 1024 ? 1048576.0 : 1073741824.0;
    } else {
        for (size_t i = 0; i < sizeof units / sizeof units[0] && !mult; i++)
            if (suffix_is(suf, units[i].unit))
                mult = units[i].mult;
    }
    if (!mult)
        return -1;
    double v = num * mult;
    if (v > 18e18) {
        *why = "size too large";
        return -1;
    }
    *bytes = (uint64_t)(v + 0.5);
    return 0;
}

int mk_memory_unitless(const char *s)
{
    double num;
    const char *suf;
    return split_number(s, &num, &suf) == 0 && *suf == 0 && num != 0;
}

int mk_parse_power(const char *s, uint64_t *mw, const char **why)
{
    double num;
    const char *suf;
    *why = "expected a power like 210, 210W, 0.21kW or 210000mW";
    if (split_number(s, &num, &suf) != 0)
        return -1;
    double mult;
    if (*suf == 0 || suffix_is(suf, "W"))
        mult = 1000.0;
    else if (suffix_is(suf, "kW"))
        mult = 1e6;
    else if (strncmp(suf, "mW", 2) == 0 && suffix_is(suf, "mW"))
        mult = 1.0;
    else
        return -1;
    double v = num * mult;
    if (v > 4e9) {
        *why = "power too large";
        return -1;
    }
    *mw = (uint64_t)(v + 0.5);
    return 0;
}

int mk_parse_duration(const char *s, double *seconds, const char **why)
{
    double num;
    const char *suf;
    *why = "expected a duration like 500ms, 30s, 5m or 1h";
    if (split_number(s, &num, &suf) != 0)
        return -1;
    double mult;
    if (*suf == 0 || strcmp(suf, "s") == 0) mult = 1;
    else if (strcmp(suf, "ms") == 0) mult = 0.001;
    else if (strcmp(suf, "m") == 0) mult = 60;
    else if (strcmp(suf, "h") == 0) mult = 3600;
    else return -1;
    /* Bounded, so that any duration converts to int64_t nanoseconds. */
    if (num * mult > MK_DURATION_MAX_S) {
        *why = "duration too long (at most 1e9 s, about 31 years)";
        return -1;
    }
    *seconds = num * mult;
    return 0;
}

/* Whole numbers with an optional unit word, for the simple units. */
static int parse_whole(const char *s, const char *unit, int64_t lo, int64_t hi,
                       int64_t *out, const char **why)
{
    double num;
    const char *suf;
    int neg = 0;
    while (isspace((unsigned char)*s))
        s++;
    if (*s == '-') {
        neg = 1;
        s++;
    }
    if (split_number(s, &num, &suf) != 0 || (*suf && !(unit && suffix_is(suf, unit))))
        return -1;
    if (neg)
        num = -num;
    if (num < (double)lo || num > (double)hi) {
        *why = "value out of range";
        return -1;
    }
    /* In range first: converting a double beyond int64_t is undefined. */
    if (num != (double)(int64_t)num)
        return -1;
    *out = (int64_t)num;
    return 0;
}

int mk_parse_quantity(mk_unit u, const char *s, int64_t *out, const char **why)
{
    uint64_t v;
    switch (u) {
    case MK_U_MEMORY:
        if (mk_parse_memory(s, &v, why))
            return -1;
        *out = (int64_t)v;
        return 0;
    case MK_U_POWER:
        if (mk_parse_power(s, &v, why))
            return -1;
        *out = (int64_t)v;
        return 0;
    case MK_U_CELSIUS:
        *why = "expected a whole temperature in degrees C, like 42";
        return parse_whole(s, "C", -273, 1000, out, why);
    case MK_U_PERCENT:
        *why = "expected a whole percentage from 0 to 100";
        return parse_whole(s, "%", 0, 100, out, why);
    case MK_U_MHZ:
        *why = "expected a clock in MHz, like 1410";
        return parse_whole(s, "MHz", 0, 100000, out, why);
    case MK_U_COUNT:
    default:
        *why = "expected a whole number";
        return parse_whole(s, NULL, INT64_MIN / 2, INT64_MAX / 2, out, why);
    }
}

void mk_format_quantity(mk_unit u, int64_t v, char *buf, size_t len)
{
    switch (u) {
    case MK_U_MEMORY:
        if (v % 1073741824 == 0)
            snprintf(buf, len, "%lld GiB", (long long)(v / 1073741824));
        else
            snprintf(buf, len, "%lld MiB", (long long)(v / 1048576));
        break;
    case MK_U_POWER:
        if (v % 1000 == 0)
            snprintf(buf, len, "%lld W", (long long)(v / 1000));
        else
            snprintf(buf, len, "%.3f W", (double)v / 1000.0);
        break;
    case MK_U_CELSIUS: snprintf(buf, len, "%lld C", (long long)v); break;
    case MK_U_PERCENT: snprintf(buf, len, "%lld %%", (long long)v); break;
    case MK_U_MHZ: snprintf(buf, len, "%lld MHz", (long long)v); break;
    default: snprintf(buf, len, "%lld", (long long)v); break;
    }
}
