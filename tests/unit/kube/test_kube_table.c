/* test_kube_table.c - versions of a sorted table in shared chunks
 * (kube_table.c): puts and removes in any order keep it sorted across
 * chunk splits and empty chunks, an older version never changes, and
 * every item is freed once with the last version that holds it. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "kube/kube_table.h"
#include "support/testutil.h"

typedef struct item {
    mk_kitem head;
    int key, value;
} item;

static int freed;

static int cmp(const mk_kitem *k, const void *key)
{
    int a = ((const item *)k)->key, b = *(const int *)key;
    return (a > b) - (a < b);
}

static void item_free(mk_kitem *k)
{
    freed++;
    free(k);
}

static const mk_ktab_ops ops = {cmp, item_free};

static mk_kitem *make(int key, int value)
{
    item *it = malloc(sizeof *it);
    atomic_init(&it->head.refs, 1);
    it->key = key;
    it->value = value;
    return &it->head;
}

/* The next version with key put (value) or removed (value < 0); the old
 * version is released. */
static mk_ktab *step(mk_ktab *t, int key, int value)
{
    mk_ktab *next = mk_ktab_with(t, &key, value < 0 ? NULL : make(key, value));
    ck_assert_ptr_nonnull(next);
    mk_ktab_unref(t);
    return next;
}

static void check_sorted(const mk_ktab *t, size_t n, int value_of_key)
{
    mk_kitem **flat = malloc((n ? n : 1) * sizeof *flat);
    ck_assert_uint_eq(mk_ktab_len(t), n);
    mk_ktab_flat(t, flat);
    for (size_t i = 1; i < n; i++)
        ck_assert_int_lt(((item *)flat[i - 1])->key, ((item *)flat[i])->key);
    for (size_t i = 0; value_of_key && i < n; i++)
        ck_assert_int_eq(((item *)flat[i])->value, ((item *)flat[i])->key * value_of_key);
    free(flat);
}

START_TEST(puts_and_removes_across_chunks)
{
    enum { N = 1000 };
    int order[N];
    for (int i = 0; i < N; i++)
        order[i] = (i * 7919) % N;       /* every key once, scattered */
    mk_ktab *t = mk_ktab_new(&ops);
    for (int i = 0; i < N; i++)
        t = step(t, order[i], order[i]);
    check_sorted(t, N, 1);
    mk_ktab *kept = mk_ktab_ref(t);      /* this version must not change */
    for (int i = 0; i < N; i++)
        t = step(t, i, 2 * i);           /* replace each */
    check_sorted(t, N, 2);
    check_sorted(kept, N, 1);
    ck_assert_int_eq(freed, 0);          /* kept still holds the first items */
    int key = 500;
    ck_assert_int_eq(((item *)mk_ktab_find(kept, &key))->value, 500);
    ck_assert_int_eq(((item *)mk_ktab_find(t, &key))->value, 1000);
    mk_ktab_unref(kept);
    ck_assert_int_eq(freed, N);
    for (int i = 0; i < N; i += 2)
        t = step(t, order[i], -1);
    check_sorted(t, N / 2, 2);
    key = order[0];
    ck_assert_ptr_null(mk_ktab_find(t, &key));
    mk_ktab *same = mk_ktab_with(t, &key, NULL);   /* removing what is not there */
    ck_assert_ptr_eq(same, t);
    mk_ktab_unref(same);
    for (int i = 1; i < N; i += 2)
        t = step(t, order[i], -1);
    check_sorted(t, 0, 0);
    t = step(t, 3, 3);
    check_sorted(t, 1, 1);
    mk_ktab_unref(t);
    ck_assert_int_eq(freed, 2 * N + 1);
}
END_TEST

START_TEST(from_sorted_items)
{
    mk_kitem *items[300];
    for (int i = 0; i < 300; i++)
        items[i] = make(2 * i, 2 * i);
    mk_ktab *t = mk_ktab_from(&ops, items, 300);
    check_sorted(t, 300, 1);
    t = step(t, 301, 301);               /* between two chunks' items */
    t = step(t, -1, 0);                  /* before all */
    check_sorted(t, 302, 0);
    int key = 301;
    ck_assert_ptr_nonnull(mk_ktab_find(t, &key));
    mk_ktab_unref(t);
    ck_assert_int_eq(freed, 302);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kube_table");
    TCase *tc = tcase_create("table");
    tcase_add_test(tc, puts_and_removes_across_chunks);
    tcase_add_test(tc, from_sorted_items);
    suite_add_tcase(s, tc);
    return mk_test_run(s);
}
