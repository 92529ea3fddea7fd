/* test_kube_stream.c - framing a watch stream into events whatever the
 * chunk boundaries (kube_watch.c). */
#include <check.h>
#include <string.h>
#include "kube/kube_watch.h"
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
    ck_assert_int_eq(mk_kstream_feed(&st, "ect\":{}}", 8, collect, &s, err, sizeof err), 0);
    ck_assert_int_eq(s.n, 0);        /* no newline yet: the server writes one per event */
    ck_assert_int_eq(mk_kstream_feed(&st, "\n", 1, collect, &s, err, sizeof err), 0);
    ck_assert_int_eq(s.n, 1);
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
    TCase *tc = tcase_create("framing");
    tcase_add_loop_test(tc, any_chunking, 1, (int)sizeof stream);
    tcase_add_test(tc, partial_event_waits);
    tcase_add_test(tc, callback_stops);
    tcase_add_test(tc, malformed);
    suite_add_tcase(s, tc);
    return mk_test_run(s);
}
