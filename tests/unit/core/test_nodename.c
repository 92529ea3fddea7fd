/* test_nodename.c - the node's one name (lib/core/nodename.c): the given
 * one, else MOKKA_NODE_NAME, else NODE_NAME, else the host name; empty
 * values count as unset; the universe's UUIDs follow it. */
#include <check.h>
#include <stdlib.h>
#include <unistd.h>
#include "config_check.h"

static void env(const char *mokka, const char *nvidia)
{
    if (mokka)
        setenv("MOKKA_NODE_NAME", mokka, 1);
    else
        unsetenv("MOKKA_NODE_NAME");
    if (nvidia)
        setenv("NODE_NAME", nvidia, 1);
    else
        unsetenv("NODE_NAME");
}

static const struct {
    const char *given, *mokka, *nvidia, *name, *from;   /* name NULL: the host name */
} cases[] = {
    { "gpu-1", "m", "n", "gpu-1", NULL },
    { NULL, "m", "n", "m", "MOKKA_NODE_NAME" },
    { "", "m", "n", "m", "MOKKA_NODE_NAME" },
    { NULL, "", "n", "n", "NODE_NAME" },
    { NULL, NULL, "n", "n", "NODE_NAME" },
    { NULL, NULL, "", NULL, "the host name" },
    { NULL, NULL, NULL, NULL, "the host name" },
};

START_TEST(test_chain)
{
    char host[256] = "", name[256];
    gethostname(host, sizeof host);
    env(cases[_i].mokka, cases[_i].nvidia);
    const char *from = mk_node_name(name, sizeof name, cases[_i].given);
    ck_assert_str_eq(name, cases[_i].name ? cases[_i].name : host);
    if (cases[_i].from)
        ck_assert_str_eq(from, cases[_i].from);
    else
        ck_assert_ptr_null(from);
}
END_TEST

/* `uuid: auto` derives from that name: NODE_NAME gives what --node gives. */
START_TEST(test_uuids_follow_it)
{
    const char *yaml = "version: 1.0\nprofile: l4\ncount: 2\n";
    mk_diags d;
    mk_diags_init(&d);
    env(NULL, "pod-node-7");
    mk_universe *a = mk_universe_load_mem("t.yaml", yaml, strlen(yaml), NULL, &d);
    env("other", NULL);
    mk_universe *b = mk_universe_load_mem("t.yaml", yaml, strlen(yaml), "pod-node-7", &d);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    ck_assert_str_eq(a->node, "pod-node-7");
    ck_assert_str_eq(a->dev[1].uuid, b->dev[1].uuid);
    mk_universe_free(a);
    mk_universe_free(b);
    mk_diags_free(&d);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("nodename");
    TCase *tc = tcase_create("nodename");
    tcase_add_loop_test(tc, test_chain, 0, (int)(sizeof cases / sizeof cases[0]));
    tcase_add_test(tc, test_uuids_follow_it);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return mk_test_run(suite());
}
