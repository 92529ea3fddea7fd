/* test_kube_stream.c - framing a watch stream into events whatever the
 * chunk boundaries (kube_frame.c): events spread over many lines are parsed
 * once, and an event past the bounds or unreadable is handed out as bad,
 * naming the bound, with what could be picked of it, while the stream goes
 * on; only one that never ends gives the stream up. */
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
    char bad[8][160];
    char names[8][16];
    int stop_after;
} seen;

static int collect(void *ctx, json_t *ev, const char *bad)
{
    seen *s = ctx;
    const char *name = json_string_value(json_object_get(json_object_get(json_object_get(ev, "object"),
                                                                         "metadata"), "name"));
    snprintf(s->bad[s->n], sizeof s->bad[0], "%s", bad ? bad : "");
    snprintf(s->names[s->n], sizeof s->names[0], "%s", name ? name : "");
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

/* An event that never ends is kept no further than the bound (its memory
 * goes), skipped to MK_KFRAME_SKIP_MAX, and then the stream is given up. */
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
    while (rc == 0 && fed < MK_KFRAME_SKIP_MAX + (1u << 20)) {
        rc = mk_kstream_feed(&st, lines, sizeof lines, collect, &s, err, sizeof err);
        fed += sizeof lines;
        if (fed > MK_KFRAME_OBJECT_MAX + sizeof lines)
            ck_assert_uint_eq(st.obj.cap, 0);
    }
    ck_assert_int_eq(rc, -2);
    ck_assert_str_eq(err, "a watch event runs past 16 MiB: given up");
    ck_assert_uint_le(fed, MK_KFRAME_SKIP_MAX + sizeof lines);
    ck_assert_int_eq(s.n, 0);
    mk_kstream_reset(&st);
}
END_TEST

/* Small in bytes, big as a tree: "[{},{},...]" costs jansson 77 bytes of
 * memory for each byte of text. */
START_TEST(event_with_too_many_values_handed_out_bad)
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
    len += (size_t)sprintf(text + len, "{\"type\":\"ADDED\",\"object\":{}}\n");
    ck_assert_uint_lt(len, MK_KFRAME_OBJECT_MAX);
    ck_assert_int_eq(mk_kstream_feed(&st, text, len, collect, &s, err, sizeof err), 0);
    ck_assert_int_eq(s.n, 2);
    ck_assert_str_eq(s.types[0], "ADDED");
    ck_assert_str_eq(s.bad[0], "holds more than 250000 JSON values (the limit for one object)");
    ck_assert_str_eq(s.bad[1], "");
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
    ck_assert_int_eq(mk_kstream_feed(&st, "{\"type\":\"ADDED\"]\n", 17, collect, &s, err, sizeof err), 0);
    ck_assert_int_eq(s.n, 1);
    ck_assert_str_eq(s.types[0], "ADDED");
    ck_assert_ptr_nonnull(strstr(s.bad[0], "cannot be read (line 1, column 16)"));
    mk_kstream_reset(&st);
}
END_TEST

/* Strings with NUL are read; what jansson cannot read (an integer past 64
 * bits, a NUL in a key, nesting past its depth) is handed out bad with the
 * type and name picked from the text; the events after it come as ever. */
START_TEST(hostile_events)
{
    static const char text[] =
        "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"nul\",\"annotations\":{\"a\":\"x\\u0000y\"}}}}\n"
        "{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{\"name\":\"big\"},\"spec\":{\"gpus\":[18446744073709551616]}}}\n"
        "{\"type\":\"ADDED\",\"object\":{\"spec\":{\"k\\u0000\":1},\"metadata\":{\"uid\":\"u\",\"name\":\"key\"}}}\n";
    char *deep = malloc(8192), err[256];
    mk_kstream st = { 0 };
    seen s = { 0 };
    size_t n = 0;
    ck_assert_ptr_nonnull(deep);
    n += (size_t)sprintf(deep, "{\"object\":{\"metadata\":{\"name\":\"deep\"},\"x\":");
    for (int i = 0; i < 3000; i++)
        deep[n++] = '[';
    for (int i = 0; i < 3000; i++)
        deep[n++] = ']';
    n += (size_t)sprintf(deep + n, "},\"type\":\"DELETED\"}");
    ck_assert_int_eq(mk_kstream_feed(&st, text, sizeof text - 1, collect, &s, err, sizeof err), 0);
    ck_assert_int_eq(mk_kstream_feed(&st, deep, n, collect, &s, err, sizeof err), 0);
    ck_assert_int_eq(s.n, 4);
    ck_assert_str_eq(s.bad[0], "");
    ck_assert_str_eq(s.names[1], "big");
    ck_assert_str_eq(s.types[1], "MODIFIED");
    ck_assert_ptr_nonnull(strstr(s.bad[1], "cannot be read (line 1, column"));
    ck_assert_ptr_nonnull(strstr(s.bad[1], "too big integer"));
    ck_assert_str_eq(s.names[2], "key");
    ck_assert_ptr_nonnull(strstr(s.bad[2], "cannot be read"));
    ck_assert_str_eq(s.names[3], "deep");
    ck_assert_str_eq(s.types[3], "DELETED");
    ck_assert_ptr_nonnull(strstr(s.bad[3], "cannot be read"));
    mk_kstream_reset(&st);
    free(deep);
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
    tcase_add_test(tc, event_with_too_many_values_handed_out_bad);
    tcase_add_test(tc, hostile_events);
    tcase_add_test(tc, garbage_between_events);
    return mk_test_run(s);
}
