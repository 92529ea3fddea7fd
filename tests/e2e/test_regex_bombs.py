"""test_regex_bombs.py - regular expressions that cost glibc's regcomp
without bound are refused before it, wherever a suite has one:
/(a{,1000}){,1000}/ (17 bytes; 14-23 GB in regcomp: the {,n} form passed
the old measure) and /((a*)*){1000}/ (a part that can match nothing,
repeated without bound: seconds of CPU, exponential in shapes like
/(((a?){,2})+){14}/). `mokka lint` and `mokka assert` name file:line:col,
the limit and what to write instead, and exit 2; so does `mokka run` for an
exec step's stdout; the same pattern from an assert --var is refused when the
check runs (exit 3, the case's error says why). Each mokka runs under a memory limit (RLIMIT_AS, or ASan's hard RSS
limit) and a CPU limit, so that a regression fails here instead of taking
the machine's memory."""
import contextlib
import os
import resource
import subprocess

import kubetest
from cli_support import SAN
from test_run import RunTest

MOKKA = os.path.join(kubetest.BUILD, "mokka")

# What a refused pattern may cost: far below a bomb's gigabytes and seconds.
MEMORY = 2 << 30
CPU_SECONDS = 20

NESTED = "(a{,1000}){,1000}"
NESTED_WHY = ("its repetitions expand it past the limit of 10000 elements (nested "
              "repetitions multiply)")
LOOP = "((a*)*){1000}"
LOOP_WHY = ("(a*)* repeats without bound a part that can match nothing, (a*), which can "
            "cost regcomp exponential time: repeat what cannot, e.g. a* for (a*)*, (a|b)* "
            "for (a|b?)+")
BOMBS = ((NESTED, NESTED_WHY), (LOOP, LOOP_WHY))


def limited(env):
    """The environment for a mokka under the limits (sanitizers reserve
    terabytes of address space: ASan's own RSS limit stands in for RLIMIT_AS)."""
    if SAN == "asan":
        env = dict(env, ASAN_OPTIONS="hard_rss_limit_mb=%d:%s"
                   % (MEMORY >> 20, env.get("ASAN_OPTIONS", "")))
    return env


def set_limits():
    if not SAN:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY, resource.RLIM_INFINITY))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, resource.RLIM_INFINITY))


@contextlib.contextmanager
def memory_limit():
    """RLIMIT_AS on this process while it starts a child that inherits it
    (RunTest starts mokka run without a preexec_fn); the run's own timeout
    bounds its CPU."""
    old = resource.getrlimit(resource.RLIMIT_AS)
    if not SAN:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY, old[1]))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, old)


class LintAndAssert(kubetest.KubeTestCase):

    def write(self, name, text):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def mokka(self, *args):
        return subprocess.run([MOKKA, *args], capture_output=True, text=True,
                              env=limited(self.env(NO_COLOR="1")), preexec_fn=set_limits,
                              timeout=60 * kubetest.SLOW)

    def test_lint_names_the_key_and_the_limit(self):
        for pat, why in BOMBS:
            with self.subTest(pat):
                suite = self.write("s.yaml", 'cases:\n  - name: a\n'
                                   '    expect: {label: {k: "/%s/"}}\n' % pat)
                r = self.mokka("lint", suite)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertEqual(r.stderr, "%s:3:25: error: label 'k': invalid regular "
                                 "expression /%s/: %s\n1 error, 0 warnings in 1 file\n"
                                 % (suite, pat, why))

    def test_lint_names_an_exec_steps_stdout(self):
        for pat, why in BOMBS:
            with self.subTest(pat):
                suite = self.write("s.yaml", 'cases:\n  - name: a\n    exec: "echo a"\n'
                                   '    expect: {stdout: "/%s/"}\n' % pat)
                r = self.mokka("lint", suite)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn("%s:4:22: error: stdout: invalid regular expression /%s/: %s\n"
                              % (suite, pat, why), r.stderr)

    def test_assert_refuses_the_suite(self):
        self.server()
        for pat, why in BOMBS:
            with self.subTest(pat):
                suite = self.write("s.yaml", 'cases:\n  - name: a\n'
                                   '    expect: {annotation: {k: "/%s/"}}\n' % pat)
                r = self.mokka("assert", "--kubeconfig", self.kubeconfig(), "--node", "gpu-1",
                               "--suite", suite)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn("%s:3:30: error: annotation 'k': invalid regular expression "
                              "/%s/: %s\n" % (suite, pat, why), r.stderr)

    def test_assert_refuses_a_pattern_from_a_variable(self):
        self.server()
        suite = self.write("s.yaml", 'cases:\n  - name: a\n'
                           '    expect: {label: {k: "/${re}/"}}\n')
        out = os.path.join(self.dir, "r.xml")
        for pat, why in BOMBS:
            with self.subTest(pat):
                r = self.mokka("assert", "--kubeconfig", self.kubeconfig(), "--node", "gpu-1",
                               "--suite", suite, "--var", "re=" + pat, "--junit", out)
                self.assertEqual(r.returncode, 3, r.stderr)
                with open(out) as f:
                    self.assertIn("invalid regular expression /%s/: %s" % (pat, why),
                                  f.read().replace("&apos;", "'"))


class RunExecStdout(RunTest):

    def test_run_refuses_an_exec_steps_stdout(self):
        for pat, why in BOMBS:
            with self.subTest(pat):
                suite = ('cases:\n  - name: a\n    exec: "echo a"\n'
                         '    expect: {stdout: "/%s/"}\n' % pat)
                with memory_limit():
                    r = self.run_mokka(suite=suite, junit=False, env=limited(self.env))
                self.assertEqual(r.rc, 2, str(r))
                self.assertIn(":4:22: error: stdout: invalid regular expression /%s/: %s\n"
                              % (pat, why), r.stderr)
