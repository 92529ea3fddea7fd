/* test_suite_regex.c - the measure suite regexes pass before regcomp: every
 * quantifier form glibc accepts ({n} {n,} {n,m} {,m} {,} * + ?), chained and
 * nested, is counted the way regcomp expands it; a part that can match
 * nothing may not repeat without bound; and the largest patterns it admits
 * compile in a child held to 256 MB of address space and 10 s of CPU (a
 * regression fails here; it cannot take the machine's memory). */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "suite/suite_int.h"
#include "support/testutil.h"

#define ELEMENTS "its repetitions expand it past the limit of 10000 elements"
#define OPTIONAL "its repetitions expand it past the limit of 1000 optional elements"
#define LOOP "repeats without bound a part that can match nothing"

/* A pattern and the start of why it is refused (NULL: admitted). */
static const struct { const char *pat, *why; } cases[] = {
    /* What suites write. */
    { "^MIG-[0-9a-f-]+$", NULL },
    { "^[1-9][0-9]*$", NULL },
    { "[0-9a-f]{16}", NULL },
    { "A\\s+N", NULL },
    { "(a|b|c)*x", NULL },
    { "(a+)*", NULL },
    { "(ab?)+", NULL },
    /* Each form at its limits. */
    { "a{1000}", NULL },
    { "a{,1000}", NULL },
    { "a{0,1000}", NULL },
    { "a{1000,}", NULL },
    { "(a?){1000}", NULL },
    { "a{,1001}", "the repetition {,1001} is over the limit of 1000" },
    { "a{1001,}", "the repetition {1001,} is over the limit of 1000" },
    { "a{1,99999999999999999999}", "the repetition {1,99999999999999999999} is over" },
    { "(a{100}){50}", NULL },
    { "(a{100}){51}", ELEMENTS },
    /* The {,n} form, nested and chained: 17 bytes that took 14-23 GB. */
    { "(a{,1000}){,1000}", ELEMENTS },
    { "a{,1000}{,1000}", ELEMENTS },
    { "(a{,10}){,90}", NULL },
    { "(a{,10}){,100}", OPTIONAL },
    { "(a?){1000}b?", OPTIONAL },
    { "(a|b){,500}(c|d){,500}", OPTIONAL },
    { "(^$){1000}", OPTIONAL },
    /* Unbounded repetitions of what can match nothing: seconds of CPU. */
    { "((a*)*){1000}", "(a*)* " LOOP ", (a*), " },
    { "(((a?){,2})+){14}", "((a?){,2})+ " LOOP },
    { "((a?)+){50}", LOOP },
    { "a**", "a** " LOOP ", a*, " },
    { "a{,}{,}", LOOP },
    { "(a|)*", LOOP },
    { "(a{0,3}|b){2,}", LOOP },
    { "()+", LOOP },
    { "(\\b)*", LOOP },
    { "(^)*", LOOP },
    /* A UTF-8 character is repeated whole: two nodes a copy. */
    { "(a{1000}){5}", NULL },
    { "(\xc3\xa9{1000}){3}", NULL },
    { "(\xc3\xa9{1000}){4}", ELEMENTS },
    /* Back-references. */
    { "(a)\\1", "back-references (\\1) are not supported" },
};

START_TEST(test_measure)
{
    char why[256] = "";
    int rc = mk_regex_measure(cases[_i].pat, why, sizeof why);
    if (!cases[_i].why) {
        ck_assert_msg(rc == 0, "/%s/ refused: %s", cases[_i].pat, why);
        return;
    }
    ck_assert_msg(rc == -1, "/%s/ admitted", cases[_i].pat);
    ck_assert_msg(strstr(why, cases[_i].why) != NULL, "/%s/: %s", cases[_i].pat, why);
}
END_TEST

/* The costliest shapes the measure admits compile within bounds. */
static const char *const largest[] = {
    "(a?){1000}", "a{,1000}", "(a{,10}){,90}", "(a{100}){50}", "([a-z]{50}){50}",
    "([[:alpha:]]?){499}", "(a|b){,499}", "(x(a?){,49}){10}", "((a+)*b?){333}",
    "(\\b|a){250}",
};

START_TEST(test_admitted_patterns_compile_cheaply)
{
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        /* A sanitizer's shadow memory takes terabytes of address space:
         * there the CPU limit stands alone. */
        struct rlimit mem = { 256 << 20, 256 << 20 }, cpu = { 10, 10 };
        if (!MK_TEST_SANITIZED)
            setrlimit(RLIMIT_AS, &mem);
        setrlimit(RLIMIT_CPU, &cpu);
        regex_t re;
        char why[256];
        int rc = mk_regex_compile(&re, largest[_i], why, sizeof why);
        if (rc != 0)
            fprintf(stderr, "/%s/: %s\n", largest[_i], why);
        _exit(rc == 0 ? 0 : 1);
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "/%s/ did not compile within 256 MB and 10 s (status %#x)", largest[_i],
                  status);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("suite_regex");
    TCase *tc = tcase_create("measure");
    tcase_add_loop_test(tc, test_measure, 0, (int)(sizeof cases / sizeof cases[0]));
    suite_add_tcase(s, tc);
    tc = tcase_create("compile");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_admitted_patterns_compile_cheaply, 0,
                        (int)(sizeof largest / sizeof largest[0]));
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return mk_test_run(suite());
}
