/* test_kube_list.c - framing a LIST answer into its items as the bytes
 * arrive (kube_frame.c): whatever the chunking, items one at a time with
 * the rest of the NodeList kept aside, memory of one item however big the
 * answer, malformed answers refused with what was wrong, an item past the
 * bounds or unreadable handed out bad with its picked metadata while the
 * others come as ever, and a parse that runs out of memory still saying so. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kube/kube_frame.h"
#include "support/testutil.h"

/* Braces and brackets in strings, escaped quotes, an "items" that is not
 * the top-level one, metadata on both sides of the items. */
static const char answer[] =
    "{\"kind\":\"NodeList\",\"apiVersion\":\"v1\",\n"
    " \"metadata\":{\"resourceVersion\":\"42\",\"items\":[{\"not\":\"a node\"}]},\n"
    " \"items\" : [ {\"metadata\":{\"name\":\"a\"},\"x\":\"}]{[\\\"\"},\n"
    "   {\"metadata\":{\"name\":\"b\",\"labels\":{\"k\":\"v\\\\\"}}} ,{\"metadata\":{\"name\":\"c\"}}\n"
    " ],\"tail\":{\"continue\":\"t\"}}\n";

typedef struct {
    size_t n;
    char names[8][16];
    char uids[8][16];
    char bad[8][160];
    size_t index[8];
} seen;

static int collect(void *ctx, size_t index, json_t *item, const char *bad)
{
    seen *s = ctx;
    const char *name = json_string_value(json_object_get(json_object_get(item, "metadata"), "name"));
    const char *uid = json_string_value(json_object_get(json_object_get(item, "metadata"), "uid"));
    snprintf(s->bad[s->n], sizeof s->bad[0], "%s", bad ? bad : "");
    snprintf(s->uids[s->n], sizeof s->uids[0], "%s", uid ? uid : "");
    snprintf(s->names[s->n], sizeof s->names[0], "%s", name ? name : "?");
    s->index[s->n++] = index;
    return 0;
}

/* Feeds `text` in chunks of `step`; returns what mk_klist_end returned. */
static json_t *frame(const char *text, size_t len, size_t step, seen *s, int *rc, char *err, size_t errlen)
{
    mk_klist l = { 0 };
    json_t *rest = NULL;
    *rc = 0;
    for (size_t off = 0; off < len && *rc == 0; off += step)
        *rc = mk_klist_feed(&l, text + off, len - off < step ? len - off : step, collect, s, err, errlen);
    if (*rc == 0)
        rest = mk_klist_end(&l, err, errlen);
    mk_klist_reset(&l);
    return rest;
}

START_TEST(any_chunking)
{
    seen s = { 0 };
    char err[256];
    int rc;
    json_t *rest = frame(answer, sizeof answer - 1, (size_t)_i, &s, &rc, err, sizeof err);
    ck_assert_int_eq(rc, 0);
    ck_assert_ptr_nonnull(rest);
    ck_assert_uint_eq(s.n, 3);
    ck_assert_str_eq(s.names[0], "a");
    ck_assert_str_eq(s.names[1], "b");
    ck_assert_str_eq(s.names[2], "c");
    ck_assert_uint_eq(s.index[2], 2);
    ck_assert_uint_eq(json_array_size(json_object_get(rest, "items")), 0);
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(rest, "metadata"), "resourceVersion")), "42");
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(rest, "tail"), "continue")), "t");
    json_decref(rest);
}
END_TEST

static void expect_error(const char *text, const char *want)
{
    seen s = { 0 };
    char err[256] = "";
    int rc;
    json_t *rest = frame(text, strlen(text), 7, &s, &rc, err, sizeof err);
    ck_assert_msg(!rest, "accepted: %s", text);
    ck_assert_msg(strcmp(err, want) == 0, "for %s: got \"%s\", want \"%s\"", text, err, want);
}

START_TEST(malformed_answers)
{
    expect_error("", "is empty, not a NodeList");
    expect_error("[{}]", "is not a NodeList: it begins with '['");
    expect_error("{\"items\":[{}", "ends before the NodeList does");
    expect_error("{\"items\":[{},]}", "is malformed: ']' where items[1] or the end of items should be");
    expect_error("{\"items\":[{}{}]}", "is malformed: '{' where items[1] or the end of items should be");
    expect_error("{\"items\":[7]}", "is malformed: '7' where items[0] or the end of items should be");
    expect_error("{\"items\":[]}\x01", "is malformed: byte 0x01 after the NodeList's end");
    expect_error("{\"kind\":\"NodeList\"}", "is not a NodeList: it has no items array");
    expect_error("{\"items\":null}", "is not a NodeList: it has no items array");
}
END_TEST

/* A second items array would add nodes that a parse of the whole answer
 * (last key wins) would not have. */
START_TEST(duplicate_items_refused)
{
    seen s = { 0 };
    char err[256];
    int rc;
    static const char text[] = "{\"items\":[{}],\"items\":[{}]}";
    json_t *rest = frame(text, sizeof text - 1, 1, &s, &rc, err, sizeof err);
    ck_assert_ptr_null(rest);
    ck_assert_ptr_nonnull(strstr(err, "is not valid JSON: duplicate object key"));
}
END_TEST

static int count(void *ctx, size_t index, json_t *item, const char *bad)
{
    (*(size_t *)ctx)++;
    return 0;
}

/* A big answer costs one item's buffer, not the answer's. */
START_TEST(memory_is_one_item)
{
    static const char item[] = "{\"metadata\":{\"name\":\"n\"},\"status\":{\"capacity\":{\"nvidia.com/gpu\":\"8\"}}}";
    static const char head[] = "{\"kind\":\"NodeList\",\"metadata\":{},\"items\":[";
    mk_klist l = { 0 };
    char err[256], chunk[16384];
    size_t per = sizeof item;       /* the item and its comma */
    size_t k = sizeof chunk / per, total = 0, n = 0;
    for (size_t i = 0; i < k; i++) {
        memcpy(chunk + i * per, item, sizeof item - 1);
        chunk[i * per + per - 1] = ',';
    }
    ck_assert_int_eq(mk_klist_feed(&l, head, sizeof head - 1, count, &n, err, sizeof err), 0);
    for (; total < (32u << 20); total += k * per)
        ck_assert_int_eq(mk_klist_feed(&l, chunk, k * per, count, &n, err, sizeof err), 0);
    ck_assert_int_eq(mk_klist_feed(&l, item, sizeof item - 1, count, &n, err, sizeof err), 0);
    ck_assert_int_eq(mk_klist_feed(&l, "]}", 2, count, &n, err, sizeof err), 0);
    ck_assert_uint_le(l.item.cap, 16384 + 1);
    ck_assert_uint_le(l.rest.cap, 16384 + 1);
    json_t *rest = mk_klist_end(&l, err, sizeof err);
    ck_assert_ptr_nonnull(rest);
    json_decref(rest);
    ck_assert_uint_eq(n, l.items);
    ck_assert_uint_gt(n, (32u << 20) / per);
    mk_klist_reset(&l);
}
END_TEST

static char *big_string_answer(int in_item, size_t size, size_t *len)
{
    char *text = malloc(size + 64);
    ck_assert_ptr_nonnull(text);
    *len = (size_t)sprintf(text, in_item ? "{\"items\":[{},{\"pad\":\"" : "{\"kind\":\"");
    memset(text + *len, 'x', size);
    *len += size;
    *len += (size_t)sprintf(text + *len, in_item ? "\"}]}" : "\",\"items\":[]}");
    return text;
}

START_TEST(item_over_the_bound)
{
    size_t len;
    char *text = big_string_answer(1, MK_KFRAME_OBJECT_MAX, &len), err[256];
    seen s = { 0 };
    int rc;
    json_t *rest = frame(text, len, 16384, &s, &rc, err, sizeof err);
    ck_assert_ptr_nonnull(rest);
    ck_assert_uint_eq(s.n, 2);
    ck_assert_str_eq(s.bad[0], "");
    ck_assert_str_eq(s.bad[1], "is over 4 MiB (the limit for one object)");
    json_decref(rest);
    free(text);
}
END_TEST

/* Strings with NUL are read; an item jansson cannot read is handed out
 * bad with its name, uid and resourceVersion picked from its text (the
 * metadata after the bulk, as an API server sorts keys), and the items
 * after it come as ever. */
START_TEST(hostile_items)
{
    static const char text[] =
        "{\"items\":[{\"metadata\":{\"annotations\":{\"n\":\"a\\u0000b\"},\"name\":\"nul\"}},"
        "{\"metadata\":{\"finalizers\":[\"x\"],\"name\":\"big\",\"resourceVersion\":\"7\",\"uid\":\"u-1\"},"
        "\"spec\":{\"gpus\":[-99999999999999999999],\"nodes\":{\"name\":\"not-me\"}}},"
        "{\"spec\":{\"name\":\"inner\"},\"metadata\":{\"n\\u0000\":1,\"name\":\"key\"}},"
        "{\"metadata\":{\"name\":\"last\"}}]}";
    seen s = { 0 };
    char err[256];
    int rc;
    for (size_t step = 1; step <= sizeof text; step += 13) {
        memset(&s, 0, sizeof s);
        json_t *rest = frame(text, sizeof text - 1, step, &s, &rc, err, sizeof err);
        ck_assert_ptr_nonnull(rest);
        json_decref(rest);
        ck_assert_uint_eq(s.n, 4);
        ck_assert_str_eq(s.names[0], "nul");
        ck_assert_str_eq(s.bad[0], "");
        ck_assert_str_eq(s.names[1], "big");
        ck_assert_str_eq(s.uids[1], "u-1");
        ck_assert_ptr_nonnull(strstr(s.bad[1], "cannot be read (line 1, column"));
        ck_assert_str_eq(s.names[2], "key");
        ck_assert_ptr_nonnull(strstr(s.bad[2], "cannot be read"));
        ck_assert_str_eq(s.names[3], "last");
        ck_assert_str_eq(s.bad[3], "");
    }
}
END_TEST

START_TEST(rest_over_the_bound)
{
    size_t len;
    char *text = big_string_answer(0, MK_KFRAME_OBJECT_MAX, &len), err[256];
    seen s = { 0 };
    int rc;
    ck_assert_ptr_null(frame(text, len, 16384, &s, &rc, err, sizeof err));
    ck_assert_str_eq(err, "holds over 4 MiB besides its items (the limit for one object)");
    free(text);
}
END_TEST

START_TEST(item_with_too_many_values)
{
    size_t n = MK_KFRAME_VALUES_MAX + 1, len = 0;
    char *text = malloc(3 * n + 64), err[256];
    seen s = { 0 };
    int rc;
    ck_assert_ptr_nonnull(text);
    len += (size_t)sprintf(text, "{\"items\":[{\"a\":[");
    for (size_t i = 0; i < n; i++)
        len += (size_t)sprintf(text + len, "0,");
    len += (size_t)sprintf(text + len, "0]}]}");
    json_t *rest = frame(text, len, 16384, &s, &rc, err, sizeof err);
    ck_assert_ptr_nonnull(rest);
    ck_assert_uint_eq(s.n, 1);
    ck_assert_str_eq(s.bad[0], "holds more than 250000 JSON values (the limit for one object)");
    json_decref(rest);
    free(text);
}
END_TEST

/* jansson gives no reason when an allocation fails mid-parse. */
static int allocs_left;
static void *failing_malloc(size_t n)
{
    return allocs_left-- > 0 ? malloc(n) : NULL;
}

START_TEST(out_of_memory_has_a_reason)
{
    static const char text[] = "{\"items\":[{\"metadata\":{\"name\":\"a\",\"labels\":{\"x\":\"y\"}}}]}";
    seen s = { 0 };
    char err[256] = "";
    int rc;
    json_error_t je;
    allocs_left = 2;            /* the parser's first object fails */
    json_set_alloc_funcs(failing_malloc, free);
    ck_assert_ptr_null(mk_kjson_load(text, sizeof text - 1, 0, &je));
    ck_assert_str_eq(je.text, "out of memory while parsing");
    allocs_left = 2;            /* the parser's first object fails */
    ck_assert_ptr_null(frame(text, sizeof text - 1, sizeof text, &s, &rc, err, sizeof err));
    json_set_alloc_funcs(malloc, free);
    ck_assert_str_eq(err, "out of memory while parsing");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kube_list");
    TCase *tc = mk_test_case(s, "framing", NULL, NULL, 60);
    tcase_add_loop_test(tc, any_chunking, 1, (int)sizeof answer);
    tcase_add_test(tc, malformed_answers);
    tcase_add_test(tc, duplicate_items_refused);
    tcase_add_test(tc, memory_is_one_item);
    tcase_add_test(tc, item_over_the_bound);
    tcase_add_test(tc, hostile_items);
    tcase_add_test(tc, rest_over_the_bound);
    tcase_add_test(tc, item_with_too_many_values);
    tcase_add_test(tc, out_of_memory_has_a_reason);
    return mk_test_run(s);
}
