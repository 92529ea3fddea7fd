/* test_kube_stream.c - framing a watch stream into events whatever the
 * chunk boundaries (kube_frame.c): events spread over many lines are parsed
 * once, and an event past the bounds is refused, naming the bound. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "kube/kube_frame.h"
#include "support/testutil.h"

static const char stream[] =
    "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"1\"}}}\n"
    "{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{\"name\":\"\\u00e9t\\u00e9 \\\"b\\\"\"},"
    "\"x\":[true,false,null,-1.5e3]}}\n"
    "\n"
    "{\"type\":\"BOOKMARK\",\n  \"object\": {\"metadata\": {\"resourceVersion\": \"9\"}}\n}\n"
    "{\"type\":\"DELETED\",\"object\":{}}{\"type\":\"ERROR\",\"object\":{\"code\":410}}\n";

typedef struct {
    int n;
    char types[8][16];
    int stop_after;
} seen;

static int collect(void *ctx, json_t *ev)
{
    seen *s = ctx;
    snprintf(s->types[s->n++], sizeof s->types[0], "%s", json_string_value(json_object_get(ev, "type")));
    return s->stop_after && s->n >= s->stop_after ? -1 : 0;
}

static void check_all(const seen *s)
{
    static const char *const want[] = { "ADDED", "MODIFIED", "BOOKMARK", "DELETED", "ERROR" };
    ck_assert_int_eq(s->n, 5);
    for (int i = 0; i < 5; i++)
        ck_assert_str_eq(s->types[i], want[i]);
}

/* Every chunk size from one byte to the whole stream. */
START_TEST(any_chunking)
{
    size_t step = (size_t)_i;
    mk_kstream st = { 0 };
    seen s = { 0 };
    char err[256];
    for (size_t off = 0; off < sizeof stream - 1; off += step) {
        size_t len = sizeof stream - 1 - off < step ? sizeof stream - 1 - off : step;
        ck_assert_int_eq(mk_kstream_feed(&st, stream + off, len, collect, &s, err, sizeof err), 0);
    }
    check_all(&s);
    mk_kstream_reset(&st);
}
END_TEST

START_TEST(partial_event_waits)
{
    mk_kstream st = { 0 };
    seen s = { 0 };
    char err[256];
    ck_assert_int_eq(mk_kstream_feed(&st, "{\"type\":\"ADDED\",\"obj", 20, collect, &s, err, sizeof err), 0);
    ck_assert_int_eq(s.n, 0);
    ck_assert_int_eq(mk_kstream_feed(&st, "ect\":{\"a\":\"}\"}", 14, collect, &s, err, sizeof err), 0);
    ck_assert_int_eq(s.n, 0);        /* the brace in the string closes nothing */
    ck_assert_int_eq(mk_kstream_feed(&st, "}", 1, collect, &s, err, sizeof err), 0);
    ck_assert_int_eq(s.n, 1);        /* at its closing brace: no newline needed */
    mk_kstream_reset(&st);
}
END_TEST

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One valid event of 80 KB over 20,000 lines, in the chunks libcurl hands
 * over. Parsed again at every newline, it cost 15-30 s of CPU; framed, it
 * is parsed once (milliseconds). */
START_TEST(multiline_event_parsed_once)
{
    size_t len = 0, cap = 1 << 20;
    char *text = malloc(cap), err[256];
    mk_kstream st = { 0 };
    seen s = { 0 };
    ck_assert_ptr_nonnull(text);
    len += (size_t)sprintf(text, "{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{\"name\":\"a\"},\"pad\":[\n");
    for (int i = 0; i < 19999; i++)
        len += (size_t)sprintf(text + len, "10,\n");
    len += (size_t)sprintf(text + len, "10\n]}}\n");
    double t0 = cpu_s();
    for (size_t off = 0; off < len; off += 16384) {
        size_t n = len - off < 16384 ? len - off : 16384;
        ck_assert_int_eq(mk_kstream_feed(&st, text + off, n, collect, &s, err, sizeof err), 0);
    }
    double spent = cpu_s() - t0;
    ck_assert_int_eq(s.n, 1);
    ck_assert_str_eq(s.types[0], "MODIFIED");
    ck_assert_msg(spent < 2.0, "framing an 80 KB event took %.2f s of CPU", spent);
    mk_kstream_reset(&st);
    free(text);
}
END_TEST

/* An event that never ends is refused once it passes the bound, however
 * many lines it spreads over. */
START_TEST(endless_event_refused)
{
    static const char head[] = "{\"type\":\"MODIFIED\",\"object\":{\"pad\":[\n";
    char lines[4096], err[256];
    mk_kstream st = { 0 };
    seen s = { 0 };
    int rc = 0;
    size_t fed = sizeof head - 1;
    /* Lines of one long string each: the byte bound comes before the
     * bound on values. */
    for (size_t i = 0; i + 64 <= sizeof lines; i += 64) {
        memset(lines + i, 'x', 64);
        memcpy(lines + i, "\"", 1);
        memcpy(lines + i + 61, "\",\n", 3);
    }
    ck_assert_int_eq(mk_kstream_feed(&st, head, sizeof head - 1, collect, &s, err, sizeof err), 0);
    while (rc == 0 && fed < (64u << 20)) {
        rc = mk_kstream_feed(&st, lines, sizeof lines, collect, &s, err, sizeof err);
        fed += sizeof lines;
    }
    ck_assert_int_eq(rc, -2);
    ck_assert_str_eq(err, "a watch event is over 4 MiB (the limit for one object)");
    ck_assert_uint_le(fed, MK_KFRAME_OBJECT_MAX + sizeof lines);
    ck_assert_int_eq(s.n, 0);
    mk_kstream_reset(&st);
}
END_TEST

/* Small in bytes, big as a tree: "[{},{},...]" costs jansson 77 bytes of
 * memory for each byte of text. */
START_TEST(event_with_too_many_values_refused)
{
    size_t n = MK_KFRAME_VALUES_MAX + 10, len = 0;
    char *text = malloc(3 * n + 64), err[256];
    mk_kstream st = { 0 };
    seen s = { 0 };
    ck_assert_ptr_nonnull(text);
    len += (size_t)sprintf(text, "{\"type\":\"ADDED\",\"object\":[");
    for (size_t i = 0; i < n; i++)
        len += (size_t)sprintf(text + len, "{},");
    len += (size_t)sprintf(text + len, "{}]}\n");
    ck_assert_uint_lt(len, MK_KFRAME_OBJECT_MAX);
    ck_assert_int_eq(mk_kstream_feed(&st, text, len, collect, &s, err, sizeof err), -2);
    ck_assert_str_eq(err, "a watch event holds more than 250000 JSON values (the limit for one object)");
    ck_assert_int_eq(s.n, 0);
    mk_kstream_reset(&st);
    free(text);
}
END_TEST

START_TEST(garbage_between_events)
{
    mk_kstream st = { 0 };
    seen s = { 0 };
    char err[256];
    ck_assert_int_eq(mk_kstream_feed(&st, "{\"type\":\"ADDED\"}\n]{", 19, collect, &s, err, sizeof err), -2);
    ck_assert_int_eq(s.n, 1);
    ck_assert_str_eq(err, "malformed watch stream: ']' where an event should begin");
    mk_kstream_reset(&st);
}
END_TEST

START_TEST(callback_stops)
{
    mk_kstream st = { 0 };
    seen s = { .stop_after = 2 };
    char err[256];
    ck_assert_int_eq(mk_kstream_feed(&st, stream, sizeof stream - 1, collect, &s, err, sizeof err), -1);
    ck_assert_int_eq(s.n, 2);
    mk_kstream_reset(&st);
}
END_TEST

START_TEST(malformed)
{
    mk_kstream st = { 0 };
    seen s = { 0 };
    char err[256];
    ck_assert_int_eq(mk_kstream_feed(&st, "{\"type\":\"ADDED\"]\n", 17, collect, &s, err, sizeof err), -2);
    ck_assert_ptr_nonnull(strstr(err, "malformed watch event (line 1, column 16)"));
    mk_kstream_reset(&st);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kube_stream");
    TCase *tc = mk_test_case(s, "framing", NULL, NULL, 60);
    tcase_add_loop_test(tc, any_chunking, 1, (int)sizeof stream);
    tcase_add_test(tc, partial_event_waits);
    tcase_add_test(tc, callback_stops);
    tcase_add_test(tc, malformed);
    tcase_add_test(tc, multiline_event_parsed_once);
    tcase_add_test(tc, endless_event_refused);
    tcase_add_test(tc, event_with_too_many_values_refused);
    tcase_add_test(tc, garbage_between_events);
    return mk_test_run(s);
}
