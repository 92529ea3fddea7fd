/* test_faulttally.c - a GPUFault's tally across its nodes (faulttally.c):
 * what a report says of one fault, nodes with stopped agents or none,
 * answered or not, faults still applied, and name lists that stop at a cap. */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include "fault/faulttally.h"
#include "support/testutil.h"

static json_t *report(int running, const char *faults_json)
{
    json_error_t je;
    json_t *faults = json_loads(faults_json, 0, &je);
    ck_assert_ptr_nonnull(faults);
    return json_pack("{s:{s:{s:b},s:o}}", "status", "agent", "running", running, "faults", faults);
}

/* node -> report: a applied, b rejected, c no word yet, d stopped, e none. */
static json_t *cluster(void)
{
    json_t *r = json_object();
    json_object_set_new(r, "a", report(1, "[{\"uid\": \"u1\", \"phase\": \"Applied\"}]"));
    json_object_set_new(r, "b", report(1, "[{\"uid\": \"u0\", \"phase\": \"Applied\"},"
                                          " {\"uid\": \"u1\", \"phase\": \"Rejected\","
                                          "  \"reason\": \"gpu 9 is out of range\"}]"));
    json_object_set_new(r, "c", report(1, "[]"));
    json_object_set_new(r, "d", report(0, "[{\"uid\": \"u1\", \"phase\": \"Applied\"}]"));
    return r;
}

static const char *const names[] = {"a", "b", "c", "d", "e"};

START_TEST(reads_one_report)
{
    json_t *r = cluster();
    mk_gft_node n;
    mk_gft_read(json_object_get(r, "b"), "b", "u1", &n);
    ck_assert(n.running);
    ck_assert_int_eq(n.phase, MK_GFT_REJECTED);
    ck_assert_str_eq(n.reason, "gpu 9 is out of range");
    mk_gft_read(json_object_get(r, "b"), "b", "u0", &n);
    ck_assert_int_eq(n.phase, MK_GFT_APPLIED);
    ck_assert_str_eq(n.reason, "");
    /* a stopped agent's word does not count */
    mk_gft_read(json_object_get(r, "d"), "d", "u1", &n);
    ck_assert(!n.running);
    ck_assert_int_eq(n.phase, MK_GFT_NONE);
    mk_gft_read(NULL, "e", "u1", &n);
    ck_assert(!n.running);
    json_decref(r);
}
END_TEST

START_TEST(tallies_the_selected_nodes)
{
    json_t *r = cluster();
    mk_gft t;
    mk_gft_node nodes[5];
    mk_gft_count(names, 5, r, "u1", &t, nodes);
    ck_assert_uint_eq(t.selected, 5);
    ck_assert_uint_eq(t.counted, 3);
    ck_assert_uint_eq(t.applied, 1);
    ck_assert_uint_eq(t.rejected, 1);
    ck_assert_uint_eq(t.pending, 1);
    ck_assert_uint_eq(t.noagent, 2);
    ck_assert(!mk_gft_answered(&t));
    ck_assert_str_eq(nodes[2].name, "c");

    /* c answers: every counted node has */
    json_object_set_new(r, "c", report(1, "[{\"uid\": \"u1\", \"phase\": \"Applied\"}]"));
    mk_gft_count(names, 5, r, "u1", &t, NULL);
    ck_assert_uint_eq(t.applied, 2);
    ck_assert(mk_gft_answered(&t));
    json_decref(r);
}
END_TEST

START_TEST(no_agent_is_never_answered)
{
    json_t *r = json_object();
    mk_gft t;
    mk_gft_count(names, 2, r, "u1", &t, NULL);
    ck_assert_uint_eq(t.noagent, 2);
    ck_assert(!mk_gft_answered(&t));
    json_decref(r);
}
END_TEST

START_TEST(still_applied_and_cleared)
{
    json_t *r = cluster();
    ck_assert_uint_eq(mk_gft_in_phase(r, "u1", MK_GFT_APPLIED), 1);   /* d's agent stopped */
    ck_assert_uint_eq(mk_gft_in_phase(r, "u0", MK_GFT_APPLIED), 1);
    json_object_set_new(r, "a", report(1, "[{\"uid\": \"u1\", \"phase\": \"Cleared\"}]"));
    json_object_set_new(r, "c", report(1, "[{\"uid\": \"u1\", \"phase\": \"Expired\"}]"));
    ck_assert_uint_eq(mk_gft_in_phase(r, "u1", MK_GFT_APPLIED), 0);
    ck_assert_uint_eq(mk_gft_in_phase(r, "u1", MK_GFT_DONE), 2);
    json_decref(r);
}
END_TEST

START_TEST(names_stop_at_the_cap)
{
    mk_gft_node nodes[14];
    char name[14][8];
    for (int i = 0; i < 14; i++) {
        snprintf(name[i], sizeof name[i], "n%d", i);
        nodes[i] = (mk_gft_node){ .name = name[i], .running = i < 13, .phase = MK_GFT_NONE };
    }
    mk_sb b = MK_SB_INIT;
    mk_gft_names(nodes, 14, MK_GFT_NONE, 0, 10, &b);
    ck_assert_str_eq(mk_sb_str(&b), "n0, n1, n2, n3, n4, n5, n6, n7, n8, n9 and 3 more");
    mk_sb_free(&b);
    mk_gft_names(nodes, 14, MK_GFT_NONE, 1, 10, &b);
    ck_assert_str_eq(mk_sb_str(&b), "n13");
    mk_sb_free(&b);
    mk_gft_names(nodes, 14, MK_GFT_APPLIED, 0, 10, &b);
    ck_assert_str_eq(mk_sb_str(&b), "");
    mk_sb_free(&b);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("faulttally");
    TCase *tc = tcase_create("tally");
    tcase_add_test(tc, reads_one_report);
    tcase_add_test(tc, tallies_the_selected_nodes);
    tcase_add_test(tc, no_agent_is_never_answered);
    tcase_add_test(tc, still_applied_and_cleared);
    tcase_add_test(tc, names_stop_at_the_cap);
    suite_add_tcase(s, tc);
    return mk_test_run(s);
}
