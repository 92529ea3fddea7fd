/* test_ytree.c - YAML documents as position-aware trees (ytree.h): node
 * positions, syntax errors with their positions, duplicate keys, alias
 * bombs and deep nesting capped, empty documents, typed readers and "did
 * you mean". */
#include <unistd.h>
#include "config_check.h"
#include "ytree.h"

static mk_ydoc *yload(const char *text, mk_diags *d)
{
    mk_diags_init(d);
    return mk_yload_mem("t.yaml", text, strlen(text), d);
}

/* Loading text fails with exactly the diagnostic `want`. */
static void yfail(const char *text, const char *want)
{
    mk_diags d;
    mk_ydoc *doc = yload(text, &d);
    ck_assert_msg(doc == NULL, "loaded: %s", text);
    ck_assert_msg(d.n == 1 && t_has_diag(&d, want), "expected\n  %s\ngot:\n%s", want,
                  t_diag_text(&d));
    mk_diags_free(&d);
}

START_TEST(positions)
{
    mk_diags d;
    mk_ydoc *doc = yload("# comment\n"
                         "top:\n"
                         "  list: [a, 'b', \"c\"]\n"
                         "  nested:\n"
                         "    - x: 1\n", &d);
    ck_assert_ptr_nonnull(doc);
    ck_assert_uint_eq(d.n, 0);
    const mk_ynode *top = mk_yget(doc->root, "top");
    ck_assert_int_eq(doc->root->line, 2);
    ck_assert_int_eq(doc->root->col, 1);
    ck_assert_int_eq(top->kind, MK_Y_MAP);
    ck_assert_int_eq(top->line, 3);
    ck_assert_int_eq(top->col, 3);
    const mk_ynode *list = mk_yget(top, "list");
    ck_assert_int_eq(list->kind, MK_Y_SEQ);
    ck_assert_uint_eq(list->n, 3);
    ck_assert_int_eq(list->line, 3);
    ck_assert_int_eq(list->col, 9);
    ck_assert_int_eq(list->vals[1]->col, 13);
    ck_assert_str_eq(list->vals[2]->str, "c");
    ck_assert_int_eq(list->vals[0]->quoted, 0);
    ck_assert_int_eq(list->vals[1]->quoted, 1);
    ck_assert_int_eq(list->vals[2]->quoted, 1);
    const mk_ynode *x = mk_yget(mk_yget(top, "nested")->vals[0], "x");
    ck_assert_int_eq(x->line, 5);
    ck_assert_int_eq(x->col, 10);
    ck_assert_str_eq(x->file, "t.yaml");
    ck_assert_ptr_null(mk_yget(top, "missing"));
    ck_assert_ptr_null(mk_yget(list, "a"));
    mk_yfree(doc);
}
END_TEST

START_TEST(syntax_errors)
{
    yfail("a: [1, 2\nb: 3\n", "t.yaml:2:2: error: YAML syntax error: did not find expected ',' "
          "or ']' while parsing a flow sequence");
    yfail("a: 1\n b: 2\n",
          "t.yaml:2:3: error: YAML syntax error: mapping values are not allowed in this context");
    yfail("a: 'open\n", "t.yaml:2:1: error: YAML syntax error: found unexpected end of stream "
          "while scanning a quoted scalar");
    yfail("a:\n  - 1\n  b: 2\n", "t.yaml:3:3: error: YAML syntax error: did not find expected "
          "'-' indicator while parsing a block collection");
    yfail("a: *nope\n", "t.yaml:1:4: error: YAML syntax error: found undefined alias");
    yfail("\t- a\n", "t.yaml:1:1: error: YAML syntax error: found character that cannot start "
          "any token while scanning for the next token");
    /* Reader errors are placed from the byte offset. */
    yfail("a: 1\nb: \xff\n", "t.yaml:2:4: error: YAML syntax error: invalid leading UTF-8 octet");
    yfail("a: 1\nbé: \x01\n",
          "t.yaml:2:5: error: YAML syntax error: control characters are not allowed");
}
END_TEST

START_TEST(duplicate_keys)
{
    yfail("a: 1\nb: 2\na: 3\n", "t.yaml:3:1: error: duplicate key 'a' (first at line 1)");
    yfail("top:\n  x: 1\n  y: 2\n  x: 3\n",
          "t.yaml:4:3: error: duplicate key 'x' (first at line 2)");
    yfail("list:\n  - {k: 1, k: 2}\n", "t.yaml:2:12: error: duplicate key 'k' (first at line 2)");
    /* The same key in different maps is fine. */
    mk_diags d;
    mk_ydoc *doc = yload("a: {k: 1}\nb: {k: 2}\n", &d);
    ck_assert_ptr_nonnull(doc);
    mk_yfree(doc);
    mk_diags_free(&d);
}
END_TEST

START_TEST(non_scalar_keys)
{
    yfail("? [a, b]\n: 1\n", "t.yaml:1:3: error: map keys must be plain values");
    yfail("? {a: 1}\n: 1\n", "t.yaml:1:3: error: map keys must be plain values");
}
END_TEST

START_TEST(aliases)
{
    mk_diags d;
    mk_ydoc *doc = yload("base: &b {temp: 40, fans: 0}\ncopy: *b\n", &d);
    ck_assert_ptr_nonnull(doc);
    const mk_ynode *copy = mk_yget(doc->root, "copy");
    ck_assert_int_eq(copy->kind, MK_Y_MAP);
    ck_assert_str_eq(mk_yget(copy, "temp")->str, "40");
    mk_yfree(doc);
    mk_diags_free(&d);
}
END_TEST

/* "Billion laughs": nine levels of ten aliases expand to 10^9 nodes. */
START_TEST(alias_bomb_capped)
{
    char text[4096];
    size_t n = (size_t)snprintf(text, sizeof text, "a: &a [x, x, x, x, x, x, x, x, x, x]\n");
    for (char c = 'b'; c <= 'j'; c++)
        n += (size_t)snprintf(text + n, sizeof text - n,
                              "%c: &%c [*%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c]\n",
                              c, c, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1,
                              c - 1);
    double t0 = mk_test_now_ms();
    yfail(text, "t.yaml:1:1: error: document too large or too deeply nested once aliases are "
          "expanded");
    ck_assert_double_lt(mk_test_now_ms() - t0, 10000); /* refused, not expanded */
    /* An alias inside its own anchor cannot expand at all. */
    yfail("a: &x [*x]\n", "t.yaml:1:1: error: document too large or too deeply nested once "
          "aliases are expanded");
}
END_TEST

START_TEST(deep_nesting_capped)
{
    static char text[4096];
    size_t n = 0;
    for (int i = 0; i < 300; i++)
        text[n++] = '[';
    for (int i = 0; i < 300; i++)
        text[n++] = ']';
    text[n] = 0;
    yfail(text, "t.yaml:1:1: error: document too large or too deeply nested once aliases are "
          "expanded");
    /* 200 levels are fine. */
    n = 0;
    for (int i = 0; i < 200; i++)
        text[n++] = '[';
    for (int i = 0; i < 200; i++)
        text[n++] = ']';
    text[n] = 0;
    mk_diags d;
    mk_ydoc *doc = yload(text, &d);
    ck_assert_ptr_nonnull(doc);
    mk_yfree(doc);
    mk_diags_free(&d);
}
END_TEST

START_TEST(empty_documents)
{
    static const char *const empty[] = { "", "# only a comment\n", "\n\n", NULL };
    for (int i = 0; empty[i]; i++) {
        mk_diags d;
        mk_ydoc *doc = yload(empty[i], &d);
        ck_assert_msg(doc != NULL, "'%s' failed", empty[i]);
        ck_assert_ptr_null(doc->root);
        ck_assert_uint_eq(d.n, 0);
        mk_yfree(doc);
    }
    /* An explicit empty document is one null scalar. */
    mk_diags d;
    mk_ydoc *doc = yload("---\n...\n", &d);
    ck_assert_ptr_nonnull(doc);
    ck_assert_int_eq(doc->root->kind, MK_Y_SCALAR);
    ck_assert(mk_yis_null(doc->root));
    mk_yfree(doc);
    /* Only the first document of a stream is read. */
    doc = yload("a: 1\n---\nb: 2\n", &d);
    ck_assert_ptr_nonnull(doc);
    ck_assert_ptr_nonnull(mk_yget(doc->root, "a"));
    ck_assert_ptr_null(mk_yget(doc->root, "b"));
    mk_yfree(doc);
    mk_diags_free(&d);
}
END_TEST

START_TEST(files)
{
    const char *dir = mk_test_tmpdir("ytree");
    char path[4300], want[8192];
    mk_diags d;
    mk_diags_init(&d);
    snprintf(path, sizeof path, "%s/missing.yaml", dir);
    ck_assert_ptr_null(mk_yload_file(path, &d));
    snprintf(want, sizeof want, "%s: error: cannot open: No such file or directory", path);
    ck_assert_msg(t_has_diag(&d, want), "got:\n%s", t_diag_text(&d));
    mk_diags_free(&d);

    ck_assert_ptr_null(mk_yload_file(dir, &d));
    snprintf(want, sizeof want, "%s: error: cannot read: Is a directory", dir);
    ck_assert_msg(t_has_diag(&d, want), "got:\n%s", t_diag_text(&d));
    mk_diags_free(&d);

    /* A config is not a data set: 64 MiB is the most read. */
    snprintf(path, sizeof path, "%s/huge.yaml", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(ftruncate(fileno(f), 65 << 20), 0);
    fclose(f);
    ck_assert_ptr_null(mk_yload_file(path, &d));
    snprintf(want, sizeof want, "%s: error: cannot read: File too large", path);
    ck_assert_msg(t_has_diag(&d, want), "got:\n%s", t_diag_text(&d));
    mk_diags_free(&d);

    snprintf(path, sizeof path, "%s/bad.yaml", dir);
    mk_test_write(path, "a: 1\nb: [\n");
    ck_assert_ptr_null(mk_yload_file(path, &d));
    snprintf(want, sizeof want, "%s:3:1: error: YAML syntax error: did not find expected node "
             "content while parsing a flow node", path);
    ck_assert_msg(t_has_diag(&d, want), "got:\n%s", t_diag_text(&d));
    mk_diags_free(&d);

    snprintf(path, sizeof path, "%s/good.yaml", dir);
    mk_test_write(path, "a: 1\n");
    mk_ydoc *doc = mk_yload_file(path, &d);
    ck_assert_ptr_nonnull(doc);
    ck_assert_str_eq(mk_yget(doc->root, "a")->file, path);
    mk_yfree(doc);
    mk_diags_free(&d);
}
END_TEST

START_TEST(typed_readers)
{
    mk_diags d;
    mk_ydoc *doc = yload("i: 42\nh: 0x1F\nneg: -3\nw: forty\nbig: 99999999999999999999\n"
                         "sp: ' 5'\nl: [1]\nm: {a: 1}\nt: yes\nf: Off\nb: maybe\ns: text\n", &d);
    ck_assert_ptr_nonnull(doc);
    const mk_ynode *r = doc->root;
    long long v;
    int b;
    const char *s;
    ck_assert_int_eq(mk_yint(mk_yget(r, "i"), "i", 0, 100, &v, &d), 0);
    ck_assert_int_eq(v, 42);
    ck_assert_int_eq(mk_yint(mk_yget(r, "h"), "h", 0, 100, &v, &d), 0);
    ck_assert_int_eq(v, 31);
    ck_assert_int_eq(mk_yint(mk_yget(r, "neg"), "neg", -5, 5, &v, &d), 0);
    ck_assert_int_eq(v, -3);
    ck_assert_uint_eq(d.n, 0);
    ck_assert_int_eq(mk_yint(mk_yget(r, "i"), "i", 0, 10, &v, &d), -1);
    ck_assert(t_has_diag(&d, "t.yaml:1:4: error: i: 42 is out of range (0 to 10)"));
    ck_assert_int_eq(mk_yint(mk_yget(r, "w"), "w", 0, 10, &v, &d), -1);
    ck_assert(t_has_diag(&d, "t.yaml:4:4: error: w: expected an integer, got 'forty'"));
    ck_assert_int_eq(mk_yint(mk_yget(r, "big"), "big", 0, 10, &v, &d), -1);
    ck_assert(t_has_diag(&d, "t.yaml:5:6: error: big: expected an integer, got "
                             "'99999999999999999999'"));
    ck_assert_int_eq(mk_yint(mk_yget(r, "sp"), "sp", 0, 10, &v, &d), -1);
    ck_assert(t_has_diag(&d, "t.yaml:6:5: error: sp: expected an integer, got ' 5'"));
    ck_assert_int_eq(mk_yint(mk_yget(r, "l"), "l", 0, 10, &v, &d), -1);
    ck_assert(t_has_diag(&d, "t.yaml:7:4: error: l: expected an integer, got a list"));
    ck_assert_int_eq(mk_yint(mk_yget(r, "m"), "m", 0, 10, &v, &d), -1);
    ck_assert(t_has_diag(&d, "t.yaml:8:4: error: m: expected an integer, got a map"));
    ck_assert_int_eq(mk_ybool(mk_yget(r, "t"), "t", &b, &d), 0);
    ck_assert_int_eq(b, 1);
    ck_assert_int_eq(mk_ybool(mk_yget(r, "f"), "f", &b, &d), 0);
    ck_assert_int_eq(b, 0);
    ck_assert_int_eq(mk_ybool(mk_yget(r, "b"), "b", &b, &d), -1);
    ck_assert(t_has_diag(&d, "t.yaml:11:4: error: b: expected true or false, got 'maybe'"));
    ck_assert_int_eq(mk_ybool(mk_yget(r, "m"), "m", &b, &d), -1);
    ck_assert(t_has_diag(&d, "t.yaml:8:4: error: m: expected true or false, got a map"));
    ck_assert_int_eq(mk_ystr(mk_yget(r, "s"), "s", &s, &d), 0);
    ck_assert_str_eq(s, "text");
    ck_assert_int_eq(mk_ystr(mk_yget(r, "l"), "l", &s, &d), -1);
    ck_assert(t_has_diag(&d, "t.yaml:7:4: error: l: expected a string, got a list"));
    ck_assert_uint_eq(d.errors, 9);
    mk_yfree(doc);
    mk_diags_free(&d);
}
END_TEST

START_TEST(nulls)
{
    mk_diags d;
    mk_ydoc *doc = yload("a:\nb: ~\nc: null\nd: NULL\ne: 'null'\nf: ''\ng: x\nh: []\n", &d);
    ck_assert_ptr_nonnull(doc);
    const mk_ynode *r = doc->root;
    ck_assert(mk_yis_null(mk_yget(r, "a")));
    ck_assert(mk_yis_null(mk_yget(r, "b")));
    ck_assert(mk_yis_null(mk_yget(r, "c")));
    ck_assert(mk_yis_null(mk_yget(r, "d")));
    ck_assert(!mk_yis_null(mk_yget(r, "e")));  /* quoted: the string "null" */
    ck_assert(!mk_yis_null(mk_yget(r, "f")));  /* quoted empty string */
    ck_assert(!mk_yis_null(mk_yget(r, "g")));
    ck_assert(!mk_yis_null(mk_yget(r, "h")));
    ck_assert(!mk_yis_null(NULL)); /* absent is not null */
    mk_yfree(doc);
    mk_diags_free(&d);
}
END_TEST

START_TEST(unknown_keys)
{
    static const char *const known[] = { "temperature", "power", "utilization", NULL };
    mk_diags d;
    mk_ydoc *doc = yload("temprature: 1\npower: 2\nbanana: 3\nPOWER: 4\n", &d);
    ck_assert_ptr_nonnull(doc);
    ck_assert_int_eq(mk_ycheck_keys(doc->root, "device 0", known, &d), 3);
    ck_assert(t_has_diag(&d, "t.yaml:1:1: error: unknown key 'temprature' in device 0; did you "
                             "mean 'temperature'?"));
    ck_assert(t_has_diag(&d, "t.yaml:3:1: error: unknown key 'banana' in device 0"));
    ck_assert(t_has_diag(&d, "t.yaml:4:1: error: unknown key 'POWER' in device 0; did you mean "
                             "'power'?"));
    ck_assert_uint_eq(d.n, 3);
    mk_yfree(doc);
    mk_diags_free(&d);
}
END_TEST

START_TEST(did_you_mean)
{
    static const char *const c[] = { "temperature", "memoryUsed", "unhealthy_after_seconds",
                                     "pciBusID", NULL };
    ck_assert_str_eq(mk_did_you_mean("temprature", c), "temperature");
    ck_assert_str_eq(mk_did_you_mean("memoryused", c), "memoryUsed");
    ck_assert_str_eq(mk_did_you_mean("pciBusId", c), "pciBusID");
    ck_assert_str_eq(mk_did_you_mean("unhealty_after_second", c), "unhealthy_after_seconds");
    ck_assert_ptr_null(mk_did_you_mean("xyz", c));
    ck_assert_ptr_null(mk_did_you_mean("colour", c));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ytree");
    TCase *tc = tcase_create("ytree");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, positions);
    tcase_add_test(tc, syntax_errors);
    tcase_add_test(tc, duplicate_keys);
    tcase_add_test(tc, non_scalar_keys);
    tcase_add_test(tc, aliases);
    tcase_add_test(tc, alias_bomb_capped);
    tcase_add_test(tc, deep_nesting_capped);
    tcase_add_test(tc, empty_documents);
    tcase_add_test(tc, files);
    tcase_add_test(tc, typed_readers);
    tcase_add_test(tc, nulls);
    tcase_add_test(tc, unknown_keys);
    tcase_add_test(tc, did_you_mean);
    suite_add_tcase(s, tc);
    return mk_test_run(s);
}
