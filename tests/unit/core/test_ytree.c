/* test_ytree.c - YAML documents as position-aware trees (ytree.h): node
 * positions, syntax errors with their positions, duplicate keys and
 * anchors, the limits (file size, nesting depth, node count, aliases
 * expanded) enforced while parsing, empty documents, typed readers and "did
 * you mean". */
#include <stdlib.h>
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

/* Duplicates are found by sorting: 60,000 keys with one repeat make one
 * error; 60,000 repeats make as many errors, of which the first
 * MK_DIAGS_PER_FILE are kept and the rest counted in a last line. */
START_TEST(duplicate_keys_in_a_large_map)
{
    size_t n = 60000, used = 0;
    char *text = malloc(n * 16 + 32);
    ck_assert_ptr_nonnull(text);
    for (size_t i = 0; i < n; i++)
        used += (size_t)sprintf(text + used, "k%zu: 1\n", i);
    sprintf(text + used, "k123: 2\n");
    yfail(text, "t.yaml:60001:1: error: duplicate key 'k123' (first at line 124)");

    used = 0;
    for (size_t i = 0; i < n; i++)
        used += (size_t)sprintf(text + used, "k: %zu\n", i);
    mk_diags d;
    ck_assert_ptr_null(yload(text, &d));
    ck_assert_uint_eq(d.errors, n - 1);
    ck_assert_uint_eq(d.n, MK_DIAGS_PER_FILE + 1);
    ck_assert(t_has_diag(&d, "t.yaml:2:1: error: duplicate key 'k' (first at line 1)"));
    ck_assert(t_has_diag(&d, "t.yaml:101:1: error: duplicate key 'k' (first at line 1)"));
    ck_assert(t_has_diag(&d, "t.yaml: error: 59899 more errors in this file are not shown "
                             "(only the first 100 problems are)"));
    mk_diags_free(&d);
    free(text);
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

static char *repeat(const char *head, const char *unit, size_t times, const char *tail)
{
    size_t hl = strlen(head), ul = strlen(unit), tl = strlen(tail);
    char *s = malloc(hl + ul * times + tl + 1);
    ck_assert_ptr_nonnull(s);
    memcpy(s, head, hl);
    for (size_t i = 0; i < times; i++)
        memcpy(s + hl + i * ul, unit, ul);
    memcpy(s + hl + ul * times, tail, tl + 1);
    return s;
}

/* "Billion laughs": nine levels of ten aliases expand to 10^9 nodes. The
 * alias that would pass the node limit is refused, before anything expands. */
START_TEST(alias_bomb_capped)
{
    char text[4096];
    size_t n = (size_t)snprintf(text, sizeof text, "a: &a [x, x, x, x, x, x, x, x, x, x]\n");
    for (char c = 'b'; c <= 'j'; c++)
        n += (size_t)snprintf(text + n, sizeof text - n,
                              "%c: &%c [*%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c]\n",
                              c, c, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1,
                              c - 1);
    /* a..e make 123,455 nodes, f's list one more; its eighth *e (111,111
     * nodes) would pass 1,000,000. */
    yfail(text, "t.yaml:6:36: error: alias *e expands the document past 1000000 nodes (the limit)");
    /* An alias inside its own anchor cannot expand at all. */
    yfail("a: &x [*x]\n", "t.yaml:1:8: error: alias *x is inside the node it names, which makes "
          "the document endless");
    /* Nor can an alias that would nest the tree past the depth limit: 200
     * levels named under 57 more. */
    char *lists = repeat("a: &a ", "[", 200, "");
    char *anchored = repeat(lists, "]", 200, "\nb: ");
    char *under = repeat(anchored, "[", 57, "*a");
    char *deep = repeat(under, "]", 57, "\n");
    yfail(deep, "t.yaml:2:61: error: alias *a expands the document deeper than 256 levels (the limit)");
    free(lists);
    free(anchored);
    free(under);
    free(deep);
}
END_TEST

/* Anchors are names: a second one of the same name is an error, as
 * libyaml's loader made it, rather than a silent choice between the two. */
START_TEST(duplicate_anchors)
{
    yfail("a: &x 1\nb: &x 2\nc: *x\n", "t.yaml:2:4: error: duplicate anchor &x (first at line 1)");
}
END_TEST

/* An alias is the node it names, shared, not a copy. */
START_TEST(aliases_share_their_node)
{
    mk_diags d;
    mk_ydoc *doc = yload("base: &b {temp: 40}\ncopies: [*b, *b, *b]\n", &d);
    ck_assert_ptr_nonnull(doc);
    const mk_ynode *base = mk_yget(doc->root, "base"), *copies = mk_yget(doc->root, "copies");
    ck_assert_uint_eq(copies->n, 3);
    for (size_t i = 0; i < 3; i++)
        ck_assert_ptr_eq(copies->vals[i], base);
    ck_assert_int_eq(copies->vals[2]->line, 1);
    mk_yfree(doc);
    mk_diags_free(&d);
}
END_TEST

START_TEST(deep_nesting_capped)
{
    /* 256 levels are fine, the 257th is refused where it opens. */
    char *text = repeat("", "[", 256, "");
    char *close = repeat(text, "]", 256, "");
    mk_diags d;
    mk_ydoc *doc = yload(close, &d);
    ck_assert_ptr_nonnull(doc);
    mk_yfree(doc);
    mk_diags_free(&d);
    free(close);
    free(text);
    /* The map is the first level, so its 256th list is the 257th. */
    char *deep = repeat("a: ", "[", 300, "");
    yfail(deep, "t.yaml:1:259: error: nested deeper than 256 levels (the limit)");
    free(deep);
}
END_TEST

/* The depth limit is enforced while parsing: half a megabyte of unclosed
 * '[' (which libyaml's document loader took minutes over, and which would
 * only be a syntax error at its very end) stops at the 257th. */
START_TEST(deep_nesting_stops_the_parse)
{
    char *seq = repeat("", "[", 500000, "\n");
    yfail(seq, "t.yaml:1:257: error: nested deeper than 256 levels (the limit)");
    free(seq);
    char *map = repeat("k: ", "{a: ", 125000, "\n");
    yfail(map, "t.yaml:1:1024: error: nested deeper than 256 levels (the limit)");
    free(map);
    char *block = repeat("", "- ", 250000, "x\n");
    yfail(block, "t.yaml:1:513: error: nested deeper than 256 levels (the limit)");
    free(block);
}
END_TEST

/* The node limit, crossed by plain nodes: the parse stops at the scalar that
 * would be node 1,000,001 (the list itself is the first). */
START_TEST(node_count_capped)
{
    char *text = repeat("[", "a,", 1000001, "a]\n");
    yfail(text, "t.yaml:1:2000000: error: the document has more than 1000000 nodes (the limit)");
    free(text);
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

    /* A config is not a data set: 16 MiB is the most read, from a file or
     * from memory; exactly 16 MiB is still read. */
    snprintf(path, sizeof path, "%s/huge.yaml", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(ftruncate(fileno(f), (16 << 20) + 1), 0);
    fclose(f);
    ck_assert_ptr_null(mk_yload_file(path, &d));
    snprintf(want, sizeof want, "%s: error: larger than 16 MiB, the most a YAML file may be", path);
    ck_assert_msg(d.n == 1 && t_has_diag(&d, want), "got:\n%s", t_diag_text(&d));
    mk_diags_free(&d);
    char *spaces = malloc((16 << 20) + 1);
    ck_assert_ptr_nonnull(spaces);
    memset(spaces, ' ', (16 << 20) + 1);
    ck_assert_ptr_null(mk_yload_mem("m.yaml", spaces, (16 << 20) + 1, &d));
    ck_assert(t_has_diag(&d, "m.yaml: error: larger than 16 MiB, the most a YAML file may be"));
    mk_diags_free(&d);
    f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(spaces, 1, 16 << 20, f), 16 << 20);
    fclose(f);
    free(spaces);
    mk_ydoc *blank = mk_yload_file(path, &d);
    ck_assert_msg(blank && !blank->root && d.n == 0, "got:\n%s", t_diag_text(&d));
    mk_yfree(blank);

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

/* A NUL written as "\0" is kept in the text and its length, and a string
 * reader refuses it rather than cut the string short. */
START_TEST(nul_bytes)
{
    mk_diags d;
    mk_ydoc *doc = yload("a: \"x\\0y\"\nb: xy\n", &d);
    ck_assert_ptr_nonnull(doc);
    const mk_ynode *a = mk_yget(doc->root, "a");
    const char *s;
    ck_assert_uint_eq(a->len, 3);
    ck_assert_int_eq(memcmp(a->str, "x\0y", 4), 0);
    ck_assert_int_eq(mk_ystr(a, "a", &s, &d), -1);
    ck_assert(t_has_diag(&d, "t.yaml:1:4: error: a: contains a NUL byte"));
    ck_assert_int_eq(mk_ystr(mk_yget(doc->root, "b"), "b", &s, &d), 0);
    ck_assert_uint_eq(mk_yget(doc->root, "b")->len, 2);
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
    tcase_add_test(tc, duplicate_keys_in_a_large_map);
    tcase_add_test(tc, non_scalar_keys);
    tcase_add_test(tc, aliases);
    tcase_add_test(tc, alias_bomb_capped);
    tcase_add_test(tc, duplicate_anchors);
    tcase_add_test(tc, aliases_share_their_node);
    tcase_add_test(tc, deep_nesting_capped);
    tcase_add_test(tc, deep_nesting_stops_the_parse);
    tcase_add_test(tc, node_count_capped);
    tcase_add_test(tc, empty_documents);
    tcase_add_test(tc, files);
    tcase_add_test(tc, typed_readers);
    tcase_add_test(tc, nul_bytes);
    tcase_add_test(tc, nulls);
    tcase_add_test(tc, unknown_keys);
    tcase_add_test(tc, did_you_mean);
    suite_add_tcase(s, tc);
    return mk_test_run(s);
}
