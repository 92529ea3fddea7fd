"""test_junit_schema.py - the JUnit XML and JSON reports as CI reads them.

Runs suites through the real engine and writers (build/tests/report-sample,
an in-memory node view) and checks the rules that GitLab, Jenkins and the
GitHub reporters (dorny/test-reporter, mikepenz/action-junit-report,
EnricoMi/publish-unit-test-result-action) rely on: one <testsuites> root
with totals, flat <testsuite>s with Ant's attributes, <testcase>s with
non-empty names, decimal times, file and line, one-line failure messages,
counts matching the children, and nothing XML 1.0 forbids. Also lints the
shipped suites and runs the default smoke suite."""
import glob
import json
import os
import re
import subprocess
import tempfile
import unittest
import xml.etree.ElementTree as ET

SRC = os.environ.get("MOKKA_SRC", os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("MOKKA_BUILD", SRC)
SAMPLE = os.path.join(BUILD, "build", "tests", "report-sample")

DECIMAL = re.compile(r"^[0-9]+\.[0-9]{3}$")
TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$")
FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffe\uffff]")

HOSTILE = r'''
suite: "e2e <&> \"quoted\""
cases:
  - name: passes
    expect: {capacity: 8}
  - name: "fails with \e[31mcolour\e[0m & <xml> \x01 specials"
    expect: {allocatable: 9, devices: "<8"}
  - name: xid takes gpu 2 out
    inject: {gpu: 2, xid: 79}
    expect:
      unhealthy: ["${uuid.2}"]
      allocatable: ${gpus}-1
    within: 5s
  - name: unknown variable is an error
    expect: {capacity: "${nope}"}
  - name: skipped
    skip: not today
    wait: 1s
'''


def run_sample(suite_text, nodes=1, env=None):
    """Writes the suite, runs it; returns (exit code, xml bytes, json, stderr)."""
    with tempfile.TemporaryDirectory() as tmp:
        suite = os.path.join(tmp, "hostile.yaml")
        with open(suite, "w", encoding="utf-8") as f:
            f.write(suite_text)
        xml_path, json_path = os.path.join(tmp, "r.xml"), os.path.join(tmp, "r.json")
        p = subprocess.run([SAMPLE, "--nodes", str(nodes), suite, xml_path, json_path],
                           capture_output=True, env=env, timeout=60)
        with open(xml_path, "rb") as f:
            xml = f.read()
        with open(json_path, encoding="utf-8") as f:
            report = json.load(f)
        return p.returncode, xml, report, p.stderr.decode("utf-8", "replace")


def counts(el):
    cases = el.iter("testcase")
    n = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for c in cases:
        n["tests"] += 1
        n["failures"] += c.find("failure") is not None
        n["errors"] += c.find("error") is not None
        n["skipped"] += c.find("skipped") is not None
    return n


def attrs(el):
    return {k: int(el.get(k)) for k in ("tests", "failures", "errors", "skipped")}


@unittest.skipUnless(os.access(SAMPLE, os.X_OK), "build/tests/report-sample not built")
class JUnitSchema(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.rc, cls.xml, cls.json, cls.stderr = run_sample(HOSTILE, nodes=2)
        cls.root = ET.fromstring(cls.xml)

    def test_exit_code_is_harness_error(self):
        self.assertEqual(self.rc, 3, self.stderr)

    def test_bytes(self):
        text = self.xml.decode("utf-8")           # valid UTF-8 or this raises
        self.assertTrue(text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n'))
        self.assertNotIn("\x1b", text)
        self.assertIsNone(FORBIDDEN.search(text))

    def test_root(self):
        self.assertEqual(self.root.tag, "testsuites")
        self.assertEqual(attrs(self.root), counts(self.root))
        self.assertRegex(self.root.get("time"), DECIMAL)
        self.assertEqual(attrs(self.root), {"tests": 10, "failures": 2, "errors": 2, "skipped": 2})

    def test_suites_are_flat_with_ant_attributes(self):
        suites = list(self.root)
        self.assertEqual([s.tag for s in suites], ["testsuite"])
        for s in suites:
            self.assertEqual(s.findall(".//testsuite"), [])
            self.assertEqual(attrs(s), counts(s))
            self.assertRegex(s.get("time"), DECIMAL)
            self.assertRegex(s.get("timestamp"), TIMESTAMP)
            self.assertTrue(s.get("hostname"))
            self.assertEqual(s.get("name"), 'e2e <&> "quoted"')
            self.assertEqual([c.tag for c in s], ["testcase"] * 10 + ["system-out"])

    def test_cases(self):
        seen = set()
        for c in self.root.iter("testcase"):
            name, classname = c.get("name"), c.get("classname")
            self.assertTrue(name and classname)
            self.assertNotIn((classname, name), seen, "readers merge duplicate names")
            seen.add((classname, name))
            self.assertEqual(classname, 'mokka.e2e <&> "quoted"')
            self.assertRegex(c.get("time"), DECIMAL)
            self.assertTrue(c.get("file").endswith("hostile.yaml"))
            self.assertGreater(int(c.get("line")), 0)
            self.assertRegex(name, r" \[node-[12]\]$")   # two nodes: one result each
            for bad in list(c.iter("failure")) + list(c.iter("error")):
                self.assertTrue(bad.get("message"))
                self.assertNotIn("\n", bad.get("message"))
                self.assertTrue(bad.get("type"))
                self.assertIsNotNone(c.find("system-out"), "log tail on failures")

    def test_failure_content(self):
        fails = [c for c in self.root.iter("testcase") if c.find("failure") is not None]
        self.assertEqual(len(fails), 2)
        f = fails[0]
        self.assertEqual(f.get("name"), "fails with colour & <xml> specials [node-1]")
        self.assertEqual(f.find("failure").get("message"),
                         "nvidia.com/gpu allocatable is 8, expected 9 (and 1 more)")
        self.assertIn("expected: devices < 8\n  actual:   devices 8", f.find("failure").text)
        self.assertEqual(f.find("system-out").text, "I0101 plugin: health check failed\n")

    def test_within_passed_on_both_nodes(self):
        xid = [c for c in self.root.iter("testcase") if c.get("name").startswith("xid")]
        self.assertEqual(len(xid), 2)
        for c in xid:
            self.assertEqual(list(c), [])
            self.assertGreaterEqual(float(c.get("time")), 0.1)

    def test_json_matches(self):
        j = self.json
        self.assertEqual(j["version"], 1)
        self.assertEqual(j["tool"], "mokka")
        totals = j["totals"]
        self.assertEqual({k: totals[k] for k in ("tests", "failures", "errors", "skipped")},
                         attrs(self.root))
        self.assertEqual(totals["passed"], 4)
        cases = j["suites"][0]["cases"]
        self.assertEqual(len(cases), totals["tests"])
        self.assertEqual({c["status"] for c in cases}, {"pass", "fail", "error", "skipped"})
        for c in cases:
            self.assertIsInstance(c["time_ms"], int)
            self.assertIn(c["node"], (None, "node-1", "node-2"))
            self.assertEqual(c["message"] is None, c["status"] == "pass")
        self.assertRegex(j["suites"][0]["timestamp"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")

    def test_summary_has_no_escapes_off_a_terminal(self):
        self.assertNotIn("\x1b", self.stderr)
        self.assertIn("ERROR: 10 tests, 4 passed, 2 failed, 2 errors, 2 skipped in ", self.stderr)

    def test_source_date_epoch_fixes_timestamp(self):
        env = dict(os.environ, SOURCE_DATE_EPOCH="1700000000", TZ="UTC")
        _, xml, report, _ = run_sample("cases:\n  - name: a\n    expect: {capacity: 8}\n", env=env)
        self.assertEqual(ET.fromstring(xml)[0].get("timestamp"), "2023-11-14T22:13:20")
        self.assertEqual(report["suites"][0]["timestamp"], "2023-11-14T22:13:20Z")


@unittest.skipUnless(os.access(SAMPLE, os.X_OK), "build/tests/report-sample not built")
class ShippedSuites(unittest.TestCase):
    def test_all_lint_clean(self):
        suites = sorted(glob.glob(os.path.join(SRC, "fixtures", "suites", "**", "*.yaml"),
                                  recursive=True))
        self.assertIn(os.path.join(SRC, "fixtures", "suites", "smoke.yaml"), suites)
        p = subprocess.run([SAMPLE, "--lint"] + suites, capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_smoke_passes_on_healthy_gpus(self):
        with open(os.path.join(SRC, "fixtures", "suites", "smoke.yaml"), encoding="utf-8") as f:
            rc, xml, _, stderr = run_sample(f.read())
        self.assertEqual(rc, 0, stderr)
        self.assertEqual(attrs(ET.fromstring(xml)), {"tests": 3, "failures": 0, "errors": 0,
                                                     "skipped": 0})


if __name__ == "__main__":
    unittest.main()
