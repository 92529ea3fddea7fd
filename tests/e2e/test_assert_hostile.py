"""test_assert_hostile.py - `mokka assert` against API servers that misbehave
(tests/standins/fake_apiserver.py's hostile answers): answers too big to
hold, a gzip bomb, a page with more items than asked for, watch events
spread over thousands of lines or never ending, a server that says nothing
or only 500, and one that echoes the credentials back. Each must end in
time with its exit code, a report, and no secret in any output."""
import base64
import os
import subprocess
import tempfile
import time
import xml.dom.minidom

import kubetest
from kubetest import SLOW, TOKEN, fa

MOKKA = os.path.join(kubetest.BUILD, "mokka")
READY = "cases:\n  - name: ready\n    expect:\n      condition: {type: Ready, status: \"True\"}\n"


class Run:
    """One finished mokka run: exit code, output, wall time, peak RSS."""

    def __init__(self, args, env, timeout):
        with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
            start = time.monotonic()
            p = subprocess.Popen([MOKKA, *args], stdout=out, stderr=err, env=env)
            deadline = start + timeout
            while True:
                pid, status, usage = os.wait4(p.pid, os.WNOHANG)
                if pid:
                    break
                if time.monotonic() > deadline:
                    p.kill()
                    os.wait4(p.pid, 0)
                    raise AssertionError(f"mokka {' '.join(args)} still ran after {timeout} s")
                time.sleep(0.05)
            self.elapsed = time.monotonic() - start
            self.returncode = os.waitstatus_to_exitcode(status)
            self.max_rss_mib = usage.ru_maxrss / 1024
            out.seek(0)
            err.seek(0)
            self.stdout, self.stderr = out.read(), err.read()
            p.returncode = self.returncode      # reaped here, not by Popen


class HostileTest(kubetest.KubeTestCase):
    def write(self, name, text):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def mokka_assert(self, *args, kubeconfig=None, suite=READY, timeout=60):
        self.junit = os.path.join(self.dir, "r.xml")
        self.json = os.path.join(self.dir, "r.json")
        return Run(["assert", "--kubeconfig", kubeconfig or self.kubeconfig(), "--suite",
                    self.write("s.yaml", suite), "--junit", self.junit, "--report", "json=" + self.json,
                    *args], self.env(NO_COLOR="1"), timeout * SLOW)

    def read(self, path):
        with open(path) as f:
            return f.read()

    def junit_errors(self):
        doc = xml.dom.minidom.parse(self.junit)
        return [e.getAttribute("message") for e in doc.getElementsByTagName("error")]

    # --- answers too big ------------------------------------------------------

    def assert_refused(self, r, message):
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn(message, r.stderr)
        self.assertTrue(any(message in e for e in self.junit_errors()), self.junit_errors())

    def test_huge_list_is_refused_at_the_bound(self):
        # Fat nodes (300 KB each), so that 64 MiB come before the 500th.
        self.server().misbehave("list", "huge_list", size=1 << 30, pad=300 << 10)
        r = self.mokka_assert()
        self.assert_refused(r, "the API server's answer to LIST /api/v1/nodes is over 64 MiB "
                               "(the limit for one answer)")
        # Held whole and parsed as one tree, 256 MiB of it took over 2 GiB.
        self.assertLess(r.max_rss_mib, 512)

    def test_gzip_bomb_is_refused_as_it_inflates(self):
        self.server().misbehave("list", "huge_list", size=1 << 30, pad=300 << 10, gzip=True)
        r = self.mokka_assert()
        self.assert_refused(r, "the API server's answer to LIST /api/v1/nodes is over 64 MiB "
                               "(the limit for one answer)")
        self.assertLess(r.max_rss_mib, 512)

    def test_page_with_more_items_than_asked_for(self):
        self.server().misbehave("list", "huge_list", size=1 << 30)
        r = self.mokka_assert()
        self.assert_refused(r, "the API server's answer to LIST /api/v1/nodes has more than the "
                               "500 items limit= asked for")
        self.assertLess(r.max_rss_mib, 512)

    # --- watch events -----------------------------------------------------------

    def test_event_over_many_lines_is_seen_at_once(self):
        # 80 KB over 20,000 lines: parsed again at every newline, it took
        # 15-30 s of CPU, past the case's 10 s.
        self.server().misbehave("watch", "multiline_event", lines=20000, allocatable=7)
        r = self.mokka_assert(suite="cases:\n  - name: one GPU goes\n"
                                    "    expect: {allocatable: 7}\n    within: 10s\n")
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_endless_event_does_not_hold_the_run(self):
        # Past the bound for one object, the event is skipped to its end;
        # one that never ends gives the stream up (16 MiB on), and the watch
        # restarts; the case's `within` ends the run with a report. It once
        # ran past 90 s with none.
        self.server().misbehave("watch", "endless_event", times=0)
        r = self.mokka_assert("--timeout", "20s", "--verbose",
                              suite="cases:\n  - name: one GPU goes\n"
                                    "    expect: {allocatable: 7}\n    within: 3s\n")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("watch ended: a watch event runs past 16 MiB: given up; re-listing", r.stderr)
        self.assertLess(r.elapsed, 15 * SLOW)
        self.assertLess(r.max_rss_mib, 512)
        failures = xml.dom.minidom.parse(self.junit).getElementsByTagName("failure")
        self.assertEqual(len(failures), 1)

    # --- deadlines --------------------------------------------------------------

    def assert_in_time(self, r, why):
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn(why, r.stderr)
        self.assertIn("gave up: the deadline came first", r.stderr)
        self.assertTrue(self.junit_errors())
        self.assertIn('"status"', self.read(self.json))
        # It took 10 s whatever --timeout said.
        self.assertLess(r.elapsed, 5 * SLOW)

    def test_timeout_holds_against_a_silent_server(self):
        silent = fa.SilentServer()
        try:
            kc = self.kubeconfig(server=silent.url)
            r = self.mokka_assert("--timeout", "1s", kubeconfig=kc)
        finally:
            silent.stop()
        self.assert_in_time(r, "timed out")

    def test_timeout_holds_against_a_server_failing_with_500(self):
        self.server().fail_next("any", 500, times=100000)
        r = self.mokka_assert("--timeout", "1s")
        self.assert_in_time(r, "500 Internal Server Error: injected 500")

    # --- secrets the server echoes ----------------------------------------------------

    def assert_kept_secret(self, r, *secrets):
        outputs = {"stderr": r.stderr, "stdout": r.stdout, "JUnit": self.read(self.junit),
                   "JSON report": self.read(self.json)}
        for name, text in outputs.items():
            for s in secrets:
                self.assertNotIn(s, text, f"a secret in the {name}")
        self.assertIn("Authorization: ", r.stderr)
        self.assertIn("(redacted)", outputs["JUnit"])

    def test_echoed_token_is_redacted(self):
        self.server(client_certs=False).misbehave("any", "echo_401", times=0)
        r = self.mokka_assert(kubeconfig=self.kubeconfig(user={"token": TOKEN}))
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("Authorization: Bearer (redacted) (the API server rejected the credentials: "
                      "token (redacted))", r.stderr)
        self.assert_kept_secret(r, TOKEN)

    def test_echoed_token_file_token_is_redacted(self):
        self.server(client_certs=False).misbehave("any", "echo_401", times=0)
        tf = self.write("token", "file-token-3d9e71\n")
        r = self.mokka_assert(kubeconfig=self.kubeconfig(user={"tokenFile": tf}))
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assert_kept_secret(r, "file-token-3d9e71")

    def test_echoed_basic_auth_is_redacted(self):
        self.server(client_certs=False, tokens=()).misbehave("any", "echo_401", times=0)
        r = self.mokka_assert(kubeconfig=self.kubeconfig(user={"username": "ann", "password": "pa55-w0rd"}))
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assert_kept_secret(r, "pa55-w0rd", base64.b64encode(b"ann:pa55-w0rd").decode())

    def test_exec_plugin_token_is_redacted_from_server_and_plugin(self):
        self.server(client_certs=False).misbehave("any", "echo_401", times=0)
        plugin = self.write("plugin.sh", "#!/bin/sh\n"
                            "echo 'got plugin-token-8c2f05 from the identity provider' >&2\n"
                            "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\","
                            "\"kind\":\"ExecCredential\",\"status\":{\"token\":\"plugin-token-8c2f05\"}}'\n")
        os.chmod(plugin, 0o755)
        user = {"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": plugin,
                         "interactiveMode": "Never"}}
        r = self.mokka_assert(kubeconfig=self.kubeconfig(user=user))
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn(f"exec plugin '{plugin}': got (redacted) from the identity provider", r.stderr)
        self.assert_kept_secret(r, "plugin-token-8c2f05")


if __name__ == "__main__":
    import unittest
    unittest.main()
