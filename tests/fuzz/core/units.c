/* units.c (fuzz target "units") - drives the quantity parsers of
 * lib/core/units.c (sizes, power, durations, whole numbers with a unit, as
 * configs and `mokka inject --set` write them) and the suite durations of
 * src/util/duration.c with one string each, and checks what they promise:
 * results in range, and a duration printed by mk_duration_format read back
 * by mk_duration_parse as the same number of milliseconds.
 *
 * fuzz-flags: -max_len=128 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "units.h"
#include "util/util.h"

#define CHECK(cond) \
    do { if (!(cond)) { fprintf(stderr, "units: %s fails\n", #cond); abort(); } } while (0)

static void suite_duration(const char *s)
{
    long long ms;
    if (mk_duration_parse(s, &ms) != 0)
        return;
    CHECK(ms >= 0 && ms <= MK_DURATION_MAX_MS);
    char out[64], secs[32];
    mk_duration_format(ms, out, sizeof out);
    mk_secs_format(ms, secs, sizeof secs);
    /* Fractions of a second print as "2.5s", which suites cannot write. */
    long long back;
    if (!strchr(out, '.')) {
        CHECK(mk_duration_parse(out, &back) == 0);
        CHECK(back == ms);
    }
}

static void config_quantities(const char *s)
{
    const char *why;
    uint64_t u;
    double secs;
    if (mk_parse_memory(s, &u, &why) == 0)
        CHECK(u <= (uint64_t)18e18);
    if (mk_parse_power(s, &u, &why) == 0)
        CHECK(u <= (uint64_t)4e9);
    if (mk_parse_duration(s, &secs, &why) == 0)
        CHECK(secs >= 0 && secs <= MK_DURATION_MAX_S);
    (void)mk_memory_unitless(s);
    (void)mk_metric_by_name(s);
    static const mk_unit units[] = { MK_U_COUNT, MK_U_CELSIUS, MK_U_PERCENT, MK_U_MHZ,
                                     MK_U_MEMORY, MK_U_POWER };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        int64_t v;
        char buf[64];
        why = NULL;
        if (mk_parse_quantity(units[i], s, &v, &why) == 0)
            mk_format_quantity(units[i], v, buf, sizeof buf);
        else
            CHECK(why != NULL);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = 0;
    suite_duration(s);
    config_quantities(s);
    /* The printers, on any value. */
    if (size >= 8) {
        int64_t v;
        memcpy(&v, data, sizeof v);
        char buf[64];
        for (mk_unit u = MK_U_COUNT; u <= MK_U_POWER; u++)
            mk_format_quantity(u, v, buf, sizeof buf);
        mk_duration_format(v, buf, sizeof buf);
        mk_secs_format(v, buf, sizeof buf);
    }
    free(s);
    return 0;
}
