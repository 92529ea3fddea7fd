/* test_kube_selector.c - label selectors (kube_selector.c, kube_selparse.c):
 * the string form both ways, LabelSelector JSON both ways, every operator
 * matched, every error said where, and AND. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "kube/kube_selector.h"
#include "support/testutil.h"

/* Parses s, which must be good, and prints it back. */
static char *reprint(const char *s)
{
    mk_ksel sel;
    char err[256] = "";
    ck_assert_msg(mk_ksel_parse(s, &sel, err, sizeof err) == 0, "'%s': %s", s, err);
    char *out = mk_ksel_to_string(&sel);
    ck_assert_ptr_nonnull(out);
    mk_ksel_free(&sel);
    return out;
}

static const struct { const char *in, *out; } prints[] = {
    { "", "" },
    { "   ", "" },
    { "a=b", "a=b" },
    { "a==b", "a=b" },
    { " a = b ", "a=b" },
    { "a!=b", "a!=b" },
    { "a=", "a=" },
    { "a!=", "a!=" },
    { "zone in (z1,z2)", "zone in (z1,z2)" },
    { "zone in(z1 , z2 )", "zone in (z1,z2)" },
    { "zone notin (z1)", "zone notin (z1)" },
    { "zone in (a,)", "zone in (a,)" },
    { "gpu", "gpu" },
    { "!gpu", "!gpu" },
    { "! gpu", "!gpu" },
    { "a=b,c==d,e!=f,g in (x,y),h notin (z),i,!j", "a=b,c=d,e!=f,g in (x,y),h notin (z),i,!j" },
    { "mokka.io/pool=a,nvidia.com/gpu.product=NVIDIA-H100_80GB.x",
      "mokka.io/pool=a,nvidia.com/gpu.product=NVIDIA-H100_80GB.x" },
    { "in=notin", "in=notin" },
    { "a=b\t,\tc", "a=b,c" },
};

START_TEST(string_form)
{
    char *got = reprint(prints[_i].in);
    ck_assert_str_eq(got, prints[_i].out);
    free(got);
}
END_TEST

START_TEST(parsed_fields)
{
    mk_ksel s;
    char err[256];
    ck_assert_int_eq(mk_ksel_parse("a=b,c!=d,e in (x,y),f notin (z),g,!h", &s, err, sizeof err), 0);
    ck_assert_uint_eq(s.n, 6);
    static const mk_ksel_op ops[] = { MK_KSEL_EQ, MK_KSEL_NE, MK_KSEL_IN, MK_KSEL_NOTIN,
                                      MK_KSEL_EXISTS, MK_KSEL_NOT_EXISTS };
    static const size_t nv[] = { 1, 1, 2, 1, 0, 0 };
    for (size_t i = 0; i < 6; i++) {
        ck_assert_int_eq(s.req[i].op, ops[i]);
        ck_assert_uint_eq(s.req[i].nvalues, nv[i]);
    }
    ck_assert_str_eq(s.req[2].key, "e");
    ck_assert_str_eq(s.req[2].values[1], "y");
    mk_ksel_free(&s);
    ck_assert_uint_eq(s.n, 0);
    ck_assert_ptr_null(s.req);
}
END_TEST

#define LONG63 "abcdefghij" "abcdefghij" "abcdefghij" "abcdefghij" "abcdefghij" "abcdefghij" "abc"

static const struct { const char *in, *err; } errors[] = {
    { "zone in (a,", "at 'zone in (a,': a list must end with ')'" },
    { "zone in (a", "at 'zone in (a': a list must end with ')'" },
    { "zone in ()", "at 'zone in ()': 'in' needs at least one value" },
    { "zone notin ( )", "at 'zone notin ( )': 'notin' needs at least one value" },
    { "zone in a", "at 'zone in a': 'in' takes values in parentheses, like (a,b)" },
    { "zone notin", "at 'zone notin': 'notin' takes values in parentheses, like (a,b)" },
    { "zone in (a b)", "at 'zone in (a b': expected ',' or ')' in the list" },
    { "zone in (a=b)", "at 'zone in (a=': expected ',' or ')' in the list" },
    { "zone in (a) x", "at 'zone in (a) x': expected ',' or the end after the list" },
    { "a=b=c", "at 'a=b=': expected ',' or the end after the value" },
    { "a=b c", "at 'a=b c': expected ',' or the end after the value" },
    { "!a=b", "at '!a=': expected ',' or the end after '!KEY'" },
    { "!", "at '!': expected a label key" },
    { "=b", "at '=': expected a label key" },
    { "a=b,", "at ',': expected a label key" },
    { "a=b,,c", "at ',,': expected a label key" },
    { ",a", "at ',': expected a label key" },
    { "a b", "at 'a b': expected =, ==, !=, in, notin, ',' or the end after the key" },
    { "a!b", "at 'a!': expected =, ==, !=, in, notin, ',' or the end after the key" },
    { "a>1", "at 'a>': '>' is not supported; use =, ==, !=, in or notin" },
    { "a<1", "at 'a<': '<' is not supported; use =, ==, !=, in or notin" },
    { "a=(b)", "at 'a=(': expected ',' or the end after the value" },
    { "-a=b", "at '-a': '-a' is not a label key: its name must be 1-63 letters, digits, '-', '_' "
              "or '.', starting and ending with a letter or digit" },
    { "a_=b", "at 'a_': 'a_' is not a label key: its name must be 1-63 letters, digits, '-', '_' "
              "or '.', starting and ending with a letter or digit" },
    { "x," LONG63 "x=b", "at ',abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghi...': '"
              "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij...' is not a label key: "
              "its name must be 1-63 letters, digits, '-', '_' or '.', starting and ending with a "
              "letter or digit" },
    { "a/=b", "at 'a/': 'a/' is not a label key: its name must be 1-63 letters, digits, '-', '_' "
              "or '.', starting and ending with a letter or digit" },
    { "Mokka.io/pool=a", "at 'Mokka.io/pool': 'Mokka.io/pool' is not a label key: its prefix must "
              "be a DNS subdomain (lower-case letters, digits, '-' and '.', 253 at most)" },
    { "a..b/c", "at 'a..b/c': 'a..b/c' is not a label key: its prefix must be a DNS subdomain "
              "(lower-case letters, digits, '-' and '.', 253 at most)" },
    { "/c", "at '/c': '/c' is not a label key: its prefix must be a DNS subdomain "
              "(lower-case letters, digits, '-' and '.', 253 at most)" },
    { "a/b/c", "at 'a/b/c': 'a/b/c' is not a label key: its name must be 1-63 letters, digits, "
              "'-', '_' or '.', starting and ending with a letter or digit" },
    { "a=-b", "at 'a=-b': '-b' is not a label value: it must be at most 63 letters, digits, '-', "
              "'_' or '.', starting and ending with a letter or digit" },
    { "a in (b,c_)", "at 'a in (b,c_': 'c_' is not a label value: it must be at most 63 letters, "
              "digits, '-', '_' or '.', starting and ending with a letter or digit" },
    { "a=caf\xc3\xa9", "at 'a=caf?\?': 'caf?\?' is not a label value: it must be at most 63 "
              "letters, digits, '-', '_' or '.', starting and ending with a letter or digit" },
    { "a=" LONG63 "x", "at 'a=abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefgh...': "
              "'abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij...' is not a label "
              "value: it must be at most 63 letters, digits, '-', '_' or '.', starting and ending "
              "with a letter or digit" },
};

START_TEST(string_errors)
{
    mk_ksel s;
    char err[512] = "";
    ck_assert_msg(mk_ksel_parse(errors[_i].in, &s, err, sizeof err) == -1, "'%s' accepted",
                  errors[_i].in);
    ck_assert_str_eq(err, errors[_i].err);
    ck_assert_uint_eq(s.n, 0);
    ck_assert_ptr_null(s.req);
}
END_TEST

START_TEST(limits)
{
    mk_ksel s;
    char err[256], buf[8192] = "";
    ck_assert_int_eq(mk_ksel_parse("a=" LONG63 ",b=" LONG63, &s, err, sizeof err), 0);
    mk_ksel_free(&s);
    for (int i = 0; i < MK_KSEL_MAX; i++)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%sk%d", i ? "," : "", i);
    ck_assert_int_eq(mk_ksel_parse(buf, &s, err, sizeof err), 0);
    ck_assert_uint_eq(s.n, MK_KSEL_MAX);
    mk_ksel extra;
    ck_assert_int_eq(mk_ksel_parse("one", &extra, err, sizeof err), 0);
    ck_assert_int_eq(mk_ksel_and(&s, &extra), -1);            /* 257: refused, s unchanged */
    ck_assert_uint_eq(s.n, MK_KSEL_MAX);
    mk_ksel_free(&extra);
    mk_ksel_free(&s);
    strcat(buf, ",k256");
    ck_assert_int_eq(mk_ksel_parse(buf, &s, err, sizeof err), -1);
    ck_assert_str_eq(err, "at ',k256': more than 256 requirements");

    strcpy(buf, "a in (v0");
    for (int i = 1; i <= MK_KSEL_MAX; i++)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), ",v%d", i);
    strcat(buf, ")");
    ck_assert_int_eq(mk_ksel_parse(buf, &s, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "': more than 256 values in a list") != NULL, "%s", err);
}
END_TEST

/* --- matching --------------------------------------------------------------- */

static const mk_nv_kv labels[] = {
    { "zone", "z1" }, { "mokka.io/pool", "a" }, { "empty", "" },
};

static const struct { const char *sel; int want; } matches[] = {
    { "", 1 },
    { "zone=z1", 1 }, { "zone=z2", 0 }, { "missing=x", 0 },
    { "zone!=z2", 1 }, { "zone!=z1", 0 }, { "missing!=x", 1 },
    { "zone in (z2,z1)", 1 }, { "zone in (z2)", 0 }, { "missing in (x)", 0 },
    { "zone notin (z2)", 1 }, { "zone notin (z1,z2)", 0 }, { "missing notin (x)", 1 },
    { "zone", 1 }, { "missing", 0 }, { "!missing", 1 }, { "!zone", 0 },
    { "empty=", 1 }, { "empty", 1 }, { "empty in (a,)", 1 }, { "zone=", 0 },
    { "zone=z1,mokka.io/pool=a", 1 }, { "zone=z1,mokka.io/pool=b", 0 },
    { "zone=z1,zone=z2", 0 },
};

START_TEST(match)
{
    mk_ksel s;
    char err[256];
    ck_assert_int_eq(mk_ksel_parse(matches[_i].sel, &s, err, sizeof err), 0);
    ck_assert_msg(mk_ksel_match(&s, labels, 3) == matches[_i].want, "'%s'", matches[_i].sel);
    ck_assert_int_eq(mk_ksel_match(&s, NULL, 0), mk_ksel_match(&s, labels, 0));
    mk_ksel_free(&s);
}
END_TEST

START_TEST(and)
{
    mk_ksel a, b;
    char err[256];
    ck_assert_int_eq(mk_ksel_parse("zone in (z1,z2)", &a, err, sizeof err), 0);
    ck_assert_int_eq(mk_ksel_parse("mokka.io/pool=a,!gone", &b, err, sizeof err), 0);
    ck_assert_int_eq(mk_ksel_and(&a, &b), 0);
    mk_ksel_free(&b);               /* a holds copies */
    char *s = mk_ksel_to_string(&a);
    ck_assert_str_eq(s, "zone in (z1,z2),mokka.io/pool=a,!gone");
    free(s);
    ck_assert_int_eq(mk_ksel_match(&a, labels, 3), 1);
    mk_ksel empty = { 0 };
    ck_assert_int_eq(mk_ksel_and(&a, &empty), 0);
    ck_assert_uint_eq(a.n, 3);
    ck_assert_int_eq(mk_ksel_and(&empty, &a), 0);
    ck_assert_uint_eq(empty.n, 3);
    mk_ksel_free(&empty);
    mk_ksel_free(&a);
}
END_TEST

/* --- JSON ------------------------------------------------------------------- */

static mk_ksel from(const char *json, int want_rc, char *err, size_t errlen)
{
    json_error_t je;
    json_t *j = json_loads(json, JSON_DECODE_ANY, &je);
    ck_assert_msg(j != NULL, "%s: %s", json, je.text);
    mk_ksel s;
    int rc = mk_ksel_from_json(j, &s, err, errlen);
    ck_assert_msg(rc == want_rc, "%s: %d (%s)", json, rc, rc ? err : "");
    json_decref(j);
    return s;
}

START_TEST(json_good)
{
    char err[256];
    mk_ksel s = from("{\"matchLabels\":{\"mokka.io/pool\":\"a\",\"x\":\"\"},"
                     " \"matchExpressions\":[{\"key\":\"zone\",\"operator\":\"In\",\"values\":[\"z1\",\"z2\"]},"
                     "  {\"key\":\"b\",\"operator\":\"NotIn\",\"values\":[\"c\"]},"
                     "  {\"key\":\"c\",\"operator\":\"Exists\"},"
                     "  {\"key\":\"d\",\"operator\":\"DoesNotExist\",\"values\":[]}],"
                     " \"other\":1}", 0, err, sizeof err);
    char *str = mk_ksel_to_string(&s);
    ck_assert_str_eq(str, "mokka.io/pool=a,x=,zone in (z1,z2),b notin (c),c,!d");
    free(str);
    json_t *back = mk_ksel_to_json(&s);
    char *dump = json_dumps(back, JSON_COMPACT);
    ck_assert_str_eq(dump, "{\"matchLabels\":{\"mokka.io/pool\":\"a\",\"x\":\"\"},"
                     "\"matchExpressions\":[{\"key\":\"zone\",\"operator\":\"In\",\"values\":[\"z1\",\"z2\"]},"
                     "{\"key\":\"b\",\"operator\":\"NotIn\",\"values\":[\"c\"]},"
                     "{\"key\":\"c\",\"operator\":\"Exists\"},"
                     "{\"key\":\"d\",\"operator\":\"DoesNotExist\"}]}");
    free(dump);
    json_decref(back);
    mk_ksel_free(&s);

    static const char *const empties[] = { "null", "{}", "{\"matchLabels\":null,\"matchExpressions\":null}",
                                           "{\"matchLabels\":{},\"matchExpressions\":[]}" };
    for (size_t i = 0; i < 4; i++) {
        s = from(empties[i], 0, err, sizeof err);
        ck_assert_uint_eq(s.n, 0);
        ck_assert_int_eq(mk_ksel_match(&s, labels, 3), 1);
    }
}
END_TEST

/* The string form through JSON and back says the same. */
START_TEST(json_round_trip)
{
    mk_ksel s, t;
    char err[256];
    ck_assert_int_eq(mk_ksel_parse("a=b,a=c,d!=e,f in (g),h notin (i,j),k,!l", &s, err, sizeof err), 0);
    json_t *j = mk_ksel_to_json(&s);
    char *dump = json_dumps(j, JSON_COMPACT);
    ck_assert_str_eq(dump, "{\"matchLabels\":{\"a\":\"b\"},\"matchExpressions\":["
                     "{\"key\":\"a\",\"operator\":\"In\",\"values\":[\"c\"]},"
                     "{\"key\":\"d\",\"operator\":\"NotIn\",\"values\":[\"e\"]},"
                     "{\"key\":\"f\",\"operator\":\"In\",\"values\":[\"g\"]},"
                     "{\"key\":\"h\",\"operator\":\"NotIn\",\"values\":[\"i\",\"j\"]},"
                     "{\"key\":\"k\",\"operator\":\"Exists\"},"
                     "{\"key\":\"l\",\"operator\":\"DoesNotExist\"}]}");
    free(dump);
    ck_assert_int_eq(mk_ksel_from_json(j, &t, err, sizeof err), 0);
    json_decref(j);
    for (size_t i = 0; i < sizeof matches / sizeof matches[0]; i++) {
        mk_ksel m;
        ck_assert_int_eq(mk_ksel_parse(matches[i].sel, &m, err, sizeof err), 0);
        mk_nv_kv one[] = { { m.n ? m.req[0].key : "none", m.n && m.req[0].nvalues ? m.req[0].values[0] : "" } };
        ck_assert_int_eq(mk_ksel_match(&s, one, 1), mk_ksel_match(&t, one, 1));
        mk_ksel_free(&m);
    }
    mk_ksel_free(&s);
    mk_ksel_free(&t);
}
END_TEST

static const struct { const char *json, *err; } json_errors[] = {
    { "[]", "a LabelSelector must be an object with matchLabels and matchExpressions" },
    { "{\"matchLabels\":[]}", "matchLabels: must be an object of label keys and values" },
    { "{\"matchLabels\":{\"a\":1}}", "matchLabels.a: must be a string" },
    { "{\"matchLabels\":{\"a\":null}}", "matchLabels.a: must be a string" },
    { "{\"matchLabels\":{\"-a\":\"b\"}}", "matchLabels: '-a' is not a label key: its name must be "
      "1-63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit" },
    { "{\"matchLabels\":{\"a\":\"b c\"}}", "matchLabels.a: 'b c' is not a label value: it must be "
      "at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit" },
    { "{\"matchExpressions\":{}}", "matchExpressions: must be a list" },
    { "{\"matchExpressions\":[1]}", "matchExpressions[0]: must be an object with key, operator "
      "and values" },
    { "{\"matchExpressions\":[{\"operator\":\"Exists\"}]}", "matchExpressions[0].key: missing" },
    { "{\"matchExpressions\":[{\"key\":5,\"operator\":\"Exists\"}]}",
      "matchExpressions[0].key: must be a string" },
    { "{\"matchExpressions\":[{\"key\":\"a b\",\"operator\":\"Exists\"}]}",
      "matchExpressions[0].key: 'a b' is not a label key: its name must be 1-63 letters, digits, "
      "'-', '_' or '.', starting and ending with a letter or digit" },
    { "{\"matchExpressions\":[{\"key\":\"a\"}]}", "matchExpressions[0].operator: missing" },
    { "{\"matchExpressions\":[{\"key\":\"a\",\"operator\":true}]}",
      "matchExpressions[0].operator: must be a string" },
    { "{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"Exists\"},"
      "{\"key\":\"a\",\"operator\":\"Equals\",\"values\":[\"b\"]}]}",
      "matchExpressions[1].operator: 'Equals' is not In, NotIn, Exists or DoesNotExist" },
    { "{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"in\",\"values\":[\"b\"]}]}",
      "matchExpressions[0].operator: 'in' is not In, NotIn, Exists or DoesNotExist" },
    { "{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"In\"}]}",
      "matchExpressions[0].values: In needs at least one value" },
    { "{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"NotIn\",\"values\":[]}]}",
      "matchExpressions[0].values: NotIn needs at least one value" },
    { "{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"Exists\",\"values\":[\"b\"]}]}",
      "matchExpressions[0].values: Exists takes no values" },
    { "{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"DoesNotExist\",\"values\":[\"b\"]}]}",
      "matchExpressions[0].values: DoesNotExist takes no values" },
    { "{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"In\",\"values\":\"b\"}]}",
      "matchExpressions[0].values: must be a list of strings" },
    { "{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"In\",\"values\":[\"b\",2]}]}",
      "matchExpressions[0].values[1]: must be a string" },
    { "{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"In\",\"values\":[\"b\",\"-c\"]}]}",
      "matchExpressions[0].values[1]: '-c' is not a label value: it must be at most 63 letters, "
      "digits, '-', '_' or '.', starting and ending with a letter or digit" },
    { "{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"In\",\"values\":[\"b\\u00e9\"]}]}",
      "matchExpressions[0].values[0]: 'b?\?' is not a label value: it must be at most 63 letters, "
      "digits, '-', '_' or '.', starting and ending with a letter or digit" },
};

START_TEST(json_errors_named)
{
    char err[512] = "";
    mk_ksel s = from(json_errors[_i].json, -1, err, sizeof err);
    ck_assert_str_eq(err, json_errors[_i].err);
    ck_assert_uint_eq(s.n, 0);
}
END_TEST

START_TEST(json_limits)
{
    char err[256];
    json_t *j = json_object(), *lab = json_object(), *exprs = json_array();
    json_object_set(j, "matchLabels", lab);
    json_object_set(j, "matchExpressions", exprs);
    for (int i = 0; i < MK_KSEL_MAX; i++) {
        char k[16];
        snprintf(k, sizeof k, "k%d", i);
        json_object_set_new(lab, k, json_string("v"));
    }
    json_array_append_new(exprs, json_pack("{s:s,s:s}", "key", "x", "operator", "Exists"));
    mk_ksel s;
    ck_assert_int_eq(mk_ksel_from_json(j, &s, err, sizeof err), -1);
    ck_assert_str_eq(err, "matchExpressions[0]: more than 256 requirements with matchLabels");
    json_object_set_new(lab, "one-more", json_string("v"));
    ck_assert_int_eq(mk_ksel_from_json(j, &s, err, sizeof err), -1);
    ck_assert_str_eq(err, "matchLabels: 257 labels; at most 256");
    json_object_clear(lab);
    json_t *vals = json_array();
    for (int i = 0; i <= MK_KSEL_MAX; i++)
        json_array_append_new(vals, json_string("v"));
    json_array_clear(exprs);
    json_array_append_new(exprs, json_pack("{s:s,s:s,s:O}", "key", "x", "operator", "In", "values", vals));
    ck_assert_int_eq(mk_ksel_from_json(j, &s, err, sizeof err), -1);
    ck_assert_str_eq(err, "matchExpressions[0].values: 257 values; at most 256");
    for (int i = 0; i < MK_KSEL_MAX; i++)
        json_array_append_new(exprs, json_pack("{s:s,s:s}", "key", "x", "operator", "Exists"));
    ck_assert_int_eq(mk_ksel_from_json(j, &s, err, sizeof err), -1);
    ck_assert_str_eq(err, "matchExpressions: 257 expressions; at most 256");
    json_decref(vals);
    json_decref(lab);
    json_decref(exprs);
    json_decref(j);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kube_selector");
    TCase *tc = tcase_create("selector");
    tcase_add_loop_test(tc, string_form, 0, (int)(sizeof prints / sizeof prints[0]));
    tcase_add_test(tc, parsed_fields);
    tcase_add_loop_test(tc, string_errors, 0, (int)(sizeof errors / sizeof errors[0]));
    tcase_add_test(tc, limits);
    tcase_add_loop_test(tc, match, 0, (int)(sizeof matches / sizeof matches[0]));
    tcase_add_test(tc, and);
    tcase_add_test(tc, json_good);
    tcase_add_test(tc, json_round_trip);
    tcase_add_loop_test(tc, json_errors_named, 0, (int)(sizeof json_errors / sizeof json_errors[0]));
    tcase_add_test(tc, json_limits);
    suite_add_tcase(s, tc);
    return mk_test_run(s);
}
