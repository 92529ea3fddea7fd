/* test_junit.c - the JUnit XML writer: the exact bytes for a report with a
 * case of each status, hostile text (XML specials, control characters, ANSI
 * escapes, invalid UTF-8, "]]>"), then what CI readers rely on, checked by
 * a real XML parser: well-formed, counts matching the children, decimal
 * times, non-empty names. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "report/report.h"
#include "support/testutil.h"

static mk_report rep;

static void setup(void)
{
    setenv("TZ", "UTC", 1);
    tzset();
    mk_report_init(&rep);
}

static void teardown(void)
{
    mk_report_free(&rep);
}

static mk_rsuite *add_suite(const char *name)
{
    mk_rsuite *s = mk_report_add_suite(&rep, name, "suites/x.yaml");
    free(s->hostname);
    s->hostname = strdup("ci-runner-7");
    s->timestamp = 1700000000;
    return s;
}

static void hostile(void)
{
    mk_rsuite *s = add_suite("smoke & <friends>");
    s->time_ms = 31005;
    s->output = strdup("plugin \033[1mstarted\033[0m\r\nok\n");
    mk_rcase *c = mk_rsuite_add_case(s, "registered", "node-a");
    c->line = 3;
    c->time_ms = 4;
    c = mk_rsuite_add_case(s, "xid \"79\" <gpu 3> & 'co'", "node-a");
    c->line = 9;
    c->time_ms = 30001;
    mk_rcase_set(c, MK_ST_FAIL, "timeout", "after 30s: \033[31mred\033[0m\nsecond\tline");
    mk_rcase_detail(c, "expected: <unhealthy> GPU-3 ]]> end");
    mk_rcase_detail(c, "actual:   \001bell\a and \xff byte");
    c->output = strdup("E0101 \033]0;title\007health \033[31mfailed\033[0m\n");
    c = mk_rsuite_add_case(s, "restart", "node-a");
    c->time_ms = 1000;
    mk_rcase_set(c, MK_ST_ERROR, "action", "restart-plugin failed: plugin did not come back");
    c = mk_rsuite_add_case(s, "mig", "node-a");
    mk_rcase_set(c, MK_ST_SKIP, "skipped", "needs MIG");
    c = mk_rsuite_add_case(s, "\001\002", "node-a");
    mk_rcase_set(c, MK_ST_ERROR, NULL, NULL);
}

static char *junit(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_int_eq(mk_junit_write(&rep, f), 0);
    fclose(f);
    return buf;
}

START_TEST(test_exact_output)
{
    hostile();
    char *xml = junit();
    ck_assert_str_eq(xml,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<testsuites name=\"mokka\" tests=\"5\" failures=\"1\" errors=\"2\" skipped=\"1\" time=\"31.005\">\n"
        "  <testsuite name=\"smoke &amp; &lt;friends&gt;\" tests=\"5\" failures=\"1\" errors=\"2\" skipped=\"1\" time=\"31.005\" timestamp=\"2023-11-14T22:13:20\" hostname=\"ci-runner-7\">\n"
        "    <testcase name=\"registered\" classname=\"mokka.smoke &amp; &lt;friends&gt;\" file=\"suites/x.yaml\" line=\"3\" time=\"0.004\"/>\n"
        "    <testcase name=\"xid &quot;79&quot; &lt;gpu 3&gt; &amp; 'co'\" classname=\"mokka.smoke &amp; &lt;friends&gt;\" file=\"suites/x.yaml\" line=\"9\" time=\"30.001\">\n"
        "      <failure message=\"after 30s: red second line\" type=\"timeout\">expected: &lt;unhealthy&gt; GPU-3 ]]&gt; end\n"
        "actual:   bell and \xef\xbf\xbd byte</failure>\n"
        "      <system-out>E0101 health failed\n"
        "</system-out>\n"
        "    </testcase>\n"
        "    <testcase name=\"restart\" classname=\"mokka.smoke &amp; &lt;friends&gt;\" file=\"suites/x.yaml\" time=\"1.000\">\n"
        "      <error message=\"restart-plugin failed: plugin did not come back\" type=\"action\"/>\n"
        "    </testcase>\n"
        "    <testcase name=\"mig\" classname=\"mokka.smoke &amp; &lt;friends&gt;\" file=\"suites/x.yaml\" time=\"0.000\">\n"
        "      <skipped message=\"needs MIG\"/>\n"
        "    </testcase>\n"
        "    <testcase name=\"(unnamed)\" classname=\"mokka.smoke &amp; &lt;friends&gt;\" file=\"suites/x.yaml\" time=\"0.000\">\n"
        "      <error message=\"error\" type=\"error\"/>\n"
        "    </testcase>\n"
        "    <system-out>plugin started\n"
        "ok\n"
        "</system-out>\n"
        "  </testsuite>\n"
        "</testsuites>\n");
    free(xml);
}
END_TEST

START_TEST(test_nodes_in_names)
{
    mk_rsuite *s = add_suite("multi");
    mk_rsuite_add_case(s, "eight", "gpu-1.example.com");
    mk_rsuite_add_case(s, "eight", "gpu-2.example.com");
    char *xml = junit();
    ck_assert_ptr_nonnull(strstr(xml, "<testcase name=\"eight [gpu-1.example.com]\" classname=\"mokka.multi\""));
    ck_assert_ptr_nonnull(strstr(xml, "<testcase name=\"eight [gpu-2.example.com]\""));
    free(xml);
}
END_TEST

START_TEST(test_harness_failure_report)
{
    /* the plugin never registered: no suite ran, the report still says why */
    mk_report_error(&rep, "mokka", "plugin registration", "no Register call within 60s");
    rep.suites[0]->timestamp = 0;
    free(rep.suites[0]->hostname);
    rep.suites[0]->hostname = strdup("h");
    char *xml = junit();
    ck_assert_str_eq(xml,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<testsuites name=\"mokka\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"0.000\">\n"
        "  <testsuite name=\"mokka\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"0.000\" timestamp=\"1970-01-01T00:00:00\" hostname=\"h\">\n"
        "    <testcase name=\"plugin registration\" classname=\"mokka.mokka\" time=\"0.000\">\n"
        "      <error message=\"no Register call within 60s\" type=\"harness\"/>\n"
        "    </testcase>\n"
        "  </testsuite>\n"
        "</testsuites>\n");
    free(xml);
}
END_TEST

START_TEST(test_empty_report)
{
    char *xml = junit();
    ck_assert_str_eq(xml,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<testsuites name=\"mokka\" tests=\"0\" failures=\"0\" errors=\"0\" skipped=\"0\" time=\"0.000\">\n"
        "</testsuites>\n");
    free(xml);
}
END_TEST

START_TEST(test_reproducible)
{
    setenv("SOURCE_DATE_EPOCH", "1700000000", 1);
    for (int i = 0; i < 2; i++) {
        mk_rsuite *s = mk_report_add_suite(&rep, "r", NULL);
        mk_rsuite_add_case(s, "a", NULL);
    }
    unsetenv("SOURCE_DATE_EPOCH");
    char *xml = junit();
    char *second = strstr(xml, "  <testsuite name=\"r\"");
    ck_assert_ptr_nonnull(second);
    ck_assert_ptr_nonnull(strstr(second, "timestamp=\"2023-11-14T22:13:20\""));
    ck_assert_ptr_nonnull(strstr(second + 1, "timestamp=\"2023-11-14T22:13:20\""));
    free(xml);
}
END_TEST

/* What CI readers rely on, checked by Python's XML parser. */
static const char validator[] =
    "import re, sys, xml.dom.minidom as m\n"
    "doc = m.parse(sys.argv[1])\n"
    "root = doc.documentElement\n"
    "assert root.tagName == 'testsuites'\n"
    "dec = re.compile(r'^[0-9]+\\.[0-9]{3}$')\n"
    "def count(el):\n"
    "    cs = el.getElementsByTagName('testcase')\n"
    "    n = lambda t: sum(1 for c in cs if c.getElementsByTagName(t))\n"
    "    return [len(cs), n('failure'), n('error'), n('skipped')]\n"
    "def attrs(el):\n"
    "    return [int(el.getAttribute(a)) for a in ('tests', 'failures', 'errors', 'skipped')]\n"
    "assert attrs(root) == count(root), (attrs(root), count(root))\n"
    "assert dec.match(root.getAttribute('time'))\n"
    "suites = [s for s in root.childNodes if s.nodeType == s.ELEMENT_NODE]\n"
    "for s in suites:\n"
    "    assert s.tagName == 'testsuite' and not s.getElementsByTagName('testsuite')\n"
    "    assert attrs(s) == count(s), (attrs(s), count(s))\n"
    "    assert dec.match(s.getAttribute('time'))\n"
    "    assert re.match(r'^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d$', s.getAttribute('timestamp'))\n"
    "    assert s.getAttribute('hostname') and s.getAttribute('name')\n"
    "    for c in s.getElementsByTagName('testcase'):\n"
    "        assert c.getAttribute('name') and c.getAttribute('classname')\n"
    "        assert dec.match(c.getAttribute('time')), c.getAttribute('time')\n"
    "        for f in c.getElementsByTagName('failure') + c.getElementsByTagName('error'):\n"
    "            assert f.getAttribute('message') and '\\n' not in f.getAttribute('message')\n"
    "text = open(sys.argv[1], encoding='utf-8').read()\n"
    "assert '\\x1b' not in text\n"
    "assert not re.search('[\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f\\ufffe\\uffff]', text)\n";

START_TEST(test_readers_accept_it)
{
    hostile();
    mk_rsuite *s = add_suite("second");
    mk_rcase_set(mk_rsuite_add_case(s, "b", "n2"), MK_ST_FAIL, "assertion", "x");
    mk_rsuite_add_case(s, "c", "n1");
    const char *path = mk_test_path(mk_test_tmpdir("junit"), "report.xml");
    char err[256];
    ck_assert_int_eq(mk_report_save(&rep, path, mk_junit_write, err, sizeof err), 0);
    /* the script on stdin ("python3 -"), its complaints on our stderr */
    char cmd[128];
    snprintf(cmd, sizeof cmd, "python3 - %s", path);
    FILE *py = popen(cmd, "w");
    ck_assert_ptr_nonnull(py);
    fputs(validator, py);
    int rc = pclose(py);
    ck_assert_msg(rc == 0, "the XML validator failed (exit status %d)", rc);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("junit");
    TCase *tc = tcase_create("junit");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_exact_output);
    tcase_add_test(tc, test_nodes_in_names);
    tcase_add_test(tc, test_harness_failure_report);
    tcase_add_test(tc, test_empty_report);
    tcase_add_test(tc, test_reproducible);
    tcase_add_test(tc, test_readers_accept_it);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return mk_test_run(suite());
}
