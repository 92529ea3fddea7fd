/* test_agentreport.c - a node's GPUFaultReport as the agent writes it
 * (agentreport.c): every entry while they fit, and a bounded report when
 * they do not: 10,000 faults that hold made a 1.44 MB report, near the
 * 1.5 MiB etcd stores for one object. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fault/agentreport.h"
#include "support/testutil.h"

#define T0 1796000000000LL     /* a Unix time in ms */

static const mk_freport_agent who = { "gpu-node-1", "agent", T0, 8, 1 };

typedef struct entries {
    mk_fr_entry *e;
    size_t n;
    unsigned gpu;
} entries;

/* Fault `i` in `phase`, which came to it at T0 + i s. */
static void add(entries *es, size_t i, mk_fr_phase phase)
{
    char name[32], uid[48];
    es->e = realloc(es->e, (es->n + 1) * sizeof *es->e);
    ck_assert_ptr_nonnull(es->e);
    snprintf(name, sizeof name, "f%05zu", i);
    snprintf(uid, sizeof uid, "6f0c2d1e-0000-4000-8000-%012zu", i);
    es->e[es->n++] = (mk_fr_entry){ .name = strdup(name), .uid = strdup(uid), .rv = strdup("123456"),
                                    .phase = phase, .gpus = &es->gpu, .ngpus = 1,
                                    .reason = phase == MK_FR_REJECTED ? strdup("gpu 9 is out of range")
                                                                      : NULL,
                                    .time_ms = T0 + (long long)i * 1000 };
}

static void entries_free(entries *es)
{
    for (size_t i = 0; i < es->n; i++) {
        free(es->e[i].name);
        free(es->e[i].uid);
        free(es->e[i].rv);
        free(es->e[i].reason);
    }
    free(es->e);
}

static size_t compact_size(const json_t *j)
{
    return json_dumpb(j, NULL, 0, JSON_COMPACT);
}

static json_t *faults_of(const json_t *rep)
{
    return json_object_get(json_object_get(rep, "status"), "faults");
}

static json_int_t dropped_of(const json_t *rep)
{
    json_t *d = json_object_get(json_object_get(rep, "status"), "faultsDropped");
    ck_assert_msg(json_is_integer(d), "status.faultsDropped is always written (a merge patch "
                  "would keep an old count otherwise)");
    return json_integer_value(d);
}

/* Whether the report lists fault i. */
static int lists(const json_t *rep, size_t i)
{
    char name[32];
    size_t k;
    json_t *e;
    snprintf(name, sizeof name, "f%05zu", i);
    json_array_foreach(faults_of(rep), k, e)
        if (!strcmp(json_string_value(json_object_get(e, "name")), name))
            return 1;
    return 0;
}

START_TEST(a_small_report_is_whole)
{
    entries es = { 0 };
    add(&es, 0, MK_FR_APPLIED);
    add(&es, 1, MK_FR_REJECTED);
    add(&es, 2, MK_FR_CLEARED);
    json_t *rep = mk_freport_json(&who, es.e, es.n, T0);
    ck_assert_ptr_nonnull(rep);
    ck_assert_int_eq(json_array_size(faults_of(rep)), 3);
    ck_assert_int_eq(dropped_of(rep), 0);
    /* In the order given: what holds and was refused, then what ended. */
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(faults_of(rep), 0), "phase")),
                     "Applied");
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(faults_of(rep), 2), "phase")),
                     "Cleared");
    json_decref(rep);
    entries_free(&es);
}
END_TEST

START_TEST(ten_thousand_faults_that_hold_stay_under_the_bound)
{
    entries es = { 0 };
    for (size_t i = 0; i < 10000; i++)
        add(&es, i, MK_FR_APPLIED);
    json_t *rep = mk_freport_json(&who, es.e, es.n, T0);
    ck_assert_ptr_nonnull(rep);
    size_t size = compact_size(rep), kept = json_array_size(faults_of(rep));
    ck_assert_uint_le(size, MK_FREPORT_MAX_BYTES);
    ck_assert_uint_gt(size, MK_FREPORT_MAX_BYTES - 1000);    /* as full as it may be */
    ck_assert_int_eq(dropped_of(rep), (json_int_t)(10000 - kept));
    ck_assert_uint_gt(kept, 3000);
    /* The newest are kept (who waits, waits for a new fault), the oldest dropped. */
    ck_assert(lists(rep, 9999));
    ck_assert(lists(rep, 10000 - kept));
    ck_assert(!lists(rep, 10000 - kept - 1));
    ck_assert(!lists(rep, 0));
    json_decref(rep);
    entries_free(&es);
}
END_TEST

START_TEST(what_holds_goes_before_what_was_refused_and_what_ended)
{
    entries es = { 0 };
    for (size_t i = 0; i < 2000; i++)         /* older faults that hold */
        add(&es, i, MK_FR_APPLIED);
    for (size_t i = 2000; i < 6000; i++)      /* a flood of newer refused ones */
        add(&es, i, MK_FR_REJECTED);
    for (size_t i = 6000; i < 6100; i++)      /* and of newer ended ones */
        add(&es, i, i % 2 ? MK_FR_EXPIRED : MK_FR_CLEARED);
    json_t *rep = mk_freport_json(&who, es.e, es.n, T0);
    ck_assert_ptr_nonnull(rep);
    ck_assert_uint_le(compact_size(rep), MK_FREPORT_MAX_BYTES);
    for (size_t i = 0; i < 2000; i++)
        ck_assert_msg(lists(rep, i), "Applied f%05zu was dropped", i);
    ck_assert(lists(rep, 5999));               /* the newest refused that fit */
    ck_assert(!lists(rep, 2000));
    ck_assert(!lists(rep, 6099));              /* no room left for what ended */
    ck_assert_int_eq(dropped_of(rep), (json_int_t)(6100 - json_array_size(faults_of(rep))));
    json_decref(rep);
    entries_free(&es);
}
END_TEST

START_TEST(ended_entries_are_the_newest_few)
{
    entries es = { 0 };
    add(&es, 0, MK_FR_APPLIED);
    for (size_t i = 1; i <= 500; i++)         /* expired faults that still exist */
        add(&es, i, MK_FR_EXPIRED);
    json_t *rep = mk_freport_json(&who, es.e, es.n, T0);
    ck_assert_ptr_nonnull(rep);
    ck_assert_int_eq(json_array_size(faults_of(rep)), 1 + MK_FR_HISTORY);
    ck_assert_int_eq(dropped_of(rep), 500 - MK_FR_HISTORY);
    ck_assert(lists(rep, 0));
    ck_assert(lists(rep, 500));
    ck_assert(lists(rep, 500 - MK_FR_HISTORY + 1));
    ck_assert(!lists(rep, 500 - MK_FR_HISTORY));
    json_decref(rep);
    entries_free(&es);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("agentreport");
    TCase *tc = tcase_create("bound");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, a_small_report_is_whole);
    tcase_add_test(tc, ten_thousand_faults_that_hold_stay_under_the_bound);
    tcase_add_test(tc, what_holds_goes_before_what_was_refused_and_what_ended);
    tcase_add_test(tc, ended_entries_are_the_newest_few);
    suite_add_tcase(s, tc);
    return mk_test_run(s);
}
