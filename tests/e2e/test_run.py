"""test_run.py - `mokka run` end to end, as CI uses it: the device plugin on
virtual GPUs in the GPU-node sandbox, the built-in kubelet, suites and the
JUnit and JSON reports.

With the stand-in plugin (build/tests/fake-device-plugin): the smoke suite
passes and the reports follow the rules CI readers rely on; a failing suite
exits 1 with expected-versus-actual; every suite action reaches the plugin
through the live state (inject xid / ecc / lost / healthy, set, restart-plugin,
wait); the shipped configs and a time-based health rule; harness failures
(a plugin that never registers, one that crashes at once, a missing one, bad
config, suite or options) exit 2 or 3 with a report that says why; SIGINT and
SIGTERM stop the plugin and leave no process behind; --timeout; the sandbox
(the host's /var/lib/kubelet untouched, runs side by side, sysfs and MIG
caps visible to the plugin) and --no-sandbox (only in a mount namespace of
the test's own); -v, colour and progress lines.

With NVIDIA's real device plugin when env MOKKA_DEVICE_PLUGIN names it: the
smoke suite, the mixed MIG strategy, XIDs on a MIG parent, --pass-device-specs
and DP_DISABLE_HEALTHCHECKS.

Needs root (or user namespaces) for the sandbox; skips saying so otherwise.
Every run uses a temporary runtime directory, which is checked to be empty
afterwards (mokka run removes its run directory), and is killed with all it
started if the test fails half way. No timing is asserted: limits are
generous so that a loaded 2-CPU machine passes."""
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import unittest
import xml.etree.ElementTree as ET

from cli_support import BUILD, CONFIGS, MIG_MIXED, MOCK_VARS, MOKKA, SAN, SEED, stop

FAKE = os.path.join(BUILD, 'build', 'tests', 'fake-device-plugin')
H100 = os.path.join(CONFIGS, 'hgx-h100.yaml')
REAL = os.environ.get('MOKKA_DEVICE_PLUGIN', '')
DECIMAL = re.compile(r'^[0-9]+\.[0-9]{3}$')
STAMP = r'^\d\d:\d\d:\d\d mokka run: '   # a progress line off a terminal
RUN_LIMIT = 180   # seconds a whole `mokka run` may take here before the test gives up


def sandbox_missing():
    """Why the sandbox cannot work here, or None."""
    if os.geteuid() == 0:
        return None
    try:
        p = subprocess.run(['unshare', '--user', '--map-root-user', '--mount', 'true'],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True)
    except OSError as e:
        return 'not root, and unshare(1) cannot run: %s' % e
    if p.returncode != 0:
        return 'not root, and no user namespace here: %s' % p.stderr.strip()
    return None


SANDBOX_MISSING = sandbox_missing()


def script(path, text):
    with open(path, 'w') as f:
        f.write(text)
    os.chmod(path, 0o755)
    return path


def proc_stat(pid):
    """(ppid, state, start time) of a process, or None when it is gone."""
    try:
        with open('/proc/%d/stat' % pid) as f:
            rest = f.read().rsplit(')', 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(rest[1]), rest[0], int(rest[19])


def descendants(pid):
    """{pid: start time} of every process below pid."""
    children = {}
    for d in os.listdir('/proc'):
        if d.isdigit():
            st = proc_stat(int(d))
            if st:
                children.setdefault(st[0], []).append(int(d))
    out, todo = {}, [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            st = proc_stat(c)
            if st:
                out[c] = st[2]
                todo.append(c)
    return out


def comm(pid):
    try:
        with open('/proc/%d/comm' % pid) as f:
            return f.read().strip()
    except OSError:
        return None


def environ_has(pid, prefix):
    try:
        with open('/proc/%d/environ' % pid, 'rb') as f:
            env = f.read().split(b'\0')
    except OSError:
        return False
    return any(e.startswith(prefix.encode()) for e in env)


class Result:
    """One finished `mokka run`: exit code, output and the reports."""

    def __init__(self, proc, stdout, stderr, junit_path):
        self.rc, self.stdout, self.stderr = proc.returncode, stdout, stderr
        self.xml = None
        if junit_path and os.path.exists(junit_path):
            with open(junit_path, 'rb') as f:
                self.xml = f.read()
        self.root = ET.fromstring(self.xml) if self.xml else None

    def __str__(self):
        return 'exit %s\n--- stderr:\n%s' % (self.rc, self.stderr)

    def cases(self):
        return list(self.root.iter('testcase'))

    def case(self, name):
        found = [c for c in self.cases() if c.get('name') == name]
        if len(found) != 1:
            raise AssertionError('%d cases named %r in the report' % (len(found), name))
        return found[0]

    def status(self, name):
        c = self.case(name)
        for tag in ('failure', 'error', 'skipped'):
            if c.find(tag) is not None:
                return tag
        return 'pass'

    def plugin_log(self):
        """Every <system-out>, the plugin's log tail."""
        return '\n'.join(o.text or '' for o in self.root.iter('system-out'))


class RunTest(unittest.TestCase):
    """Runs `mokka run` in a temporary runtime directory with an environment
    of its own (no mock variables from the caller)."""

    def setUp(self):
        if SANDBOX_MISSING:
            self.skipTest('the GPU-node sandbox needs root or user namespaces: %s'
                          % SANDBOX_MISSING)
        for exe in (MOKKA, FAKE):
            if not os.access(exe, os.X_OK):
                self.skipTest('%s is not built (make testbins)' % exe)
        self.tmp = tempfile.mkdtemp(prefix='mokka-run-test-')
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.runtime = self.path('runtime')
        self.env = {k: v for k, v in os.environ.items()
                    if k not in MOCK_VARS and k not in ('NO_COLOR', 'MOKKA_DEVICE_PLUGIN')}
        self.env['MOKKA_RUNTIME_DIR'] = self.runtime
        self.env['XDG_CACHE_HOME'] = self.path('cache')

    def path(self, *parts):
        return os.path.join(self.tmp, *parts)

    def plugin_env(self, plugin):
        """--env for the plugin. Under ASan the library it loads is
        instrumented: ASan must not insist on coming first in a program it
        was preloaded into, and a program built without it (a shell script,
        NVIDIA's plugin) must not have its own leaks reported."""
        if SAN != 'asan':
            return []
        if plugin == FAKE:
            return ['--env', 'ASAN_OPTIONS=verify_asan_link_order=0']
        return ['--env', 'ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0:handle_segv=0']

    def suite(self, text, name='suite.yaml'):
        return script(self.path(name), text)

    def argv(self, args, plugin=FAKE, plugin_args=(), suite=None, config=None, junit=True):
        argv = [MOKKA, 'run']
        if junit:
            argv += ['--junit', self.path('report.xml')]
        if config:
            argv += ['--config', config]
        if suite:
            argv += ['--suite', self.suite(suite)]
        argv += list(args) + self.plugin_env(plugin)
        if plugin:
            argv += ['--plugin', plugin]
            if plugin_args:
                argv += ['--'] + list(plugin_args)
        return argv

    def run_mokka(self, *args, timeout=RUN_LIMIT, junit=True, env=None, **kw):
        """Runs to the end; returns a Result. The runtime directory must be
        empty afterwards: mokka run removes its run directory."""
        if junit and os.path.exists(self.path('report.xml')):
            os.unlink(self.path('report.xml'))
        argv = self.argv(args, junit=junit, **kw)
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                universal_newlines=True, env=env or self.env,
                                start_new_session=True)
        self.addCleanup(stop, proc)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            stop(proc)
            self.fail('%s did not finish in %ds' % (' '.join(argv), timeout))
        r = Result(proc, out, err, self.path('report.xml') if junit else None)
        for report in ('Sanitizer', 'runtime error:'):
            self.assertNotIn(report, err, 'a sanitizer report from mokka')
        if '--keep' not in args and os.path.isdir(self.runtime):
            self.assertEqual(os.listdir(self.runtime), [], 'run directory left behind\n%s' % r)
        return r

    def start_mokka(self, *args, **kw):
        """Starts a run in the background; returns (process, collected
        stderr lines: a list that fills as they come)."""
        proc = subprocess.Popen(self.argv(args, **kw), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, universal_newlines=True, env=self.env,
                                start_new_session=True)
        self.addCleanup(stop, proc)
        lines = []

        def read():
            for line in proc.stderr:
                lines.append(line)
        t = threading.Thread(target=read, daemon=True)
        t.start()
        self.addCleanup(t.join, 30)
        return proc, lines

    def wait_for_line(self, proc, lines, text, timeout=RUN_LIMIT):
        deadline = time.monotonic() + timeout
        while not any(text in l for l in lines):
            if proc.poll() is not None or time.monotonic() > deadline:
                time.sleep(0.5)
                self.fail('mokka run never said %r (exit %s):\n%s'
                          % (text, proc.poll(), ''.join(lines)))
            time.sleep(0.05)

    # --- assertions on reports ------------------------------------------------------------

    def assertExit(self, r, code):
        self.assertEqual(r.rc, code, str(r))

    def assertJUnitRules(self, r):
        """What CI readers rely on (see test_junit_schema.py for the writer's
        own tests): one <testsuites> with totals, flat <testsuite>s whose
        counts match their cases, non-empty names, decimal times, file and
        line on every suite case, one-line messages."""
        root = r.root
        self.assertIsNotNone(root, 'no JUnit file\n%s' % r)
        self.assertTrue(r.xml.startswith(b'<?xml version="1.0" encoding="UTF-8"?>\n'))
        self.assertNotIn(b'\x1b', r.xml)
        self.assertEqual(root.tag, 'testsuites')
        self.assertRegex(root.get('time'), DECIMAL)
        totals = {'tests': 0, 'failures': 0, 'errors': 0, 'skipped': 0}
        names = []
        for s in root:
            self.assertEqual(s.tag, 'testsuite')
            self.assertEqual(s.findall('.//testsuite'), [])
            names.append(s.get('name'))
            self.assertTrue(s.get('name') and s.get('hostname') and s.get('timestamp'))
            self.assertRegex(s.get('time'), DECIMAL)
            n = {'tests': 0, 'failures': 0, 'errors': 0, 'skipped': 0}
            for c in s.findall('testcase'):
                n['tests'] += 1
                self.assertTrue(c.get('name'))
                self.assertEqual(c.get('classname'), 'mokka.' + s.get('name'))
                self.assertRegex(c.get('time'), DECIMAL)
                # harness cases have no suite file, nor plugins of --add-plugin
                if s.get('name') != 'mokka-run' and not (s.get('name') == 'plugins'
                                                         and c.get('file') is None):
                    self.assertTrue(c.get('file'))
                    self.assertGreater(int(c.get('line')), 0)
                for tag, key in (('failure', 'failures'), ('error', 'errors'),
                                 ('skipped', 'skipped')):
                    for el in c.findall(tag):
                        n[key] += 1
                        self.assertTrue(el.get('message'))
                        self.assertNotIn('\n', el.get('message'))
                        if tag != 'skipped':
                            self.assertTrue(el.get('type'))
            for k, v in n.items():
                self.assertEqual(int(s.get(k)), v, '%s of suite %s' % (k, s.get('name')))
                totals[k] += v
        self.assertEqual(len(names), len(set(names)), 'one <testsuite> per suite')
        for k, v in totals.items():
            self.assertEqual(int(root.get(k)), v, k)


# --- with the stand-in plugin ---------------------------------------------------------------

FAILING = '''
suite: failing
cases:
  - name: nine GPUs on eight
    expect: {capacity: 9}
  - name: within reports the last value seen
    inject: {gpu: 0, xid: 79}
    expect: {allocatable: 5}
    within: 5s
'''

ACTIONS = '''
suite: actions
cases:
  - name: xid 79
    inject: {gpu: 1, xid: 79}
    expect: {allocatable: 7, unhealthy: ["${uuid.1}"], unhealthy-count: 1}
    within: 60s
  - name: xid 13 is an application error the plugin ignores
    inject: {gpu: 4, xid: 13}
    wait: 1s
    expect: {allocatable: 7, healthy: ["${uuid.4}"]}
  - name: double-bit ecc
    inject: {gpu: 2, ecc: double}
    expect: {allocatable: 6, unhealthy: ["${uuid.1}", "${uuid.2}"]}
    within: 60s
  - name: single-bit ecc is corrected and harmless
    inject: {gpu: 5, ecc: single}
    wait: 1s
    expect: {allocatable: 6, healthy: ["${uuid.5}"]}
  - name: lost
    inject: {gpu: 3, lost: true}
    expect: {allocatable: 5, unhealthy: ["${uuid.3}"]}
    within: 60s
  # Not restarted while GPU 3 is lost: like NVIDIA's (its issue #231), the
  # plugin cannot start then, since the lost GPU has no handle by index.
  - name: once healthy again and restarted every GPU is back
    inject: [{gpu: 1, healthy: true}, {gpu: 2, healthy: true}, {gpu: 3, healthy: true}]
    restart-plugin: true
    expect: {capacity: 8, allocatable: 8, unhealthy-count: 0}
    within: 10s
  - name: wait
    wait: 1500ms
'''

SET_CONFIG = '''
version: 1.0
profile: a100-sxm4-40gb
count: 2
defaults: {uuid: auto, temperature: 40}
devices:
  - {index: 1, unhealthy_on_temperature: 85}
'''

SET_SUITE = '''
suite: set
cases:
  - name: 80 C stays under the rule
    set: {gpu: 1, temperature: 80}
    wait: 1500ms
    expect: {allocatable: 2}
  - name: 90 C read by NVML in the plugin breaks the rule
    set: {gpu: 1, temperature: 90}
    expect: {allocatable: 1, unhealthy: ["${uuid.1}"], healthy: ["${uuid.0}"]}
    within: 60s
'''

ACTION_ERRORS = '''
suite: action-errors
cases:
  - name: no such GPU
    inject: {gpu: 12, xid: 79}
  - name: no such metric
    set: {gpu: 0, temprature: 90}
  - name: still checked
    expect: {capacity: 8}
  - name: nodes of a cluster
    inject: {nodes: {selector: {mokka.io/pool: a}}, gpu: 3, xid: 79}
'''

AFTER_CONFIG = '''
version: 1.0
profile: a100-sxm4-40gb
count: 8
defaults: {uuid: auto}
devices:
  - {index: 5, unhealthy_after_seconds: 2, xid: 79}
'''

AFTER_SUITE = '''
suite: after
cases:
  - name: gpu 5 turns unhealthy on its own
    expect: {capacity: 8, allocatable: 7, unhealthy: ["${uuid.5}"]}
    within: 10s
'''

H100_TOPOLOGY = '''
suite: h100
cases:
  - name: eight H100 with their NUMA nodes
    expect:
      capacity: 8
      allocatable: 8
      topology: {"${uuid.0}": 0, "${uuid.3}": 0, "${uuid.4}": 1, "${uuid.7}": 1}
    within: 60s
'''

LONG_WAIT = '''
suite: waits
cases:
  - name: a long wait
    wait: 10m
  - name: never reached
    expect: {capacity: 8}
'''


class StandIn(RunTest):

    def test_smoke_passes_with_reports(self):
        r = self.run_mokka('--report', 'json')
        self.assertExit(r, 0)
        self.assertJUnitRules(r)
        self.assertEqual([s.get('name') for s in r.root], ['smoke'])
        self.assertEqual([r.status(c.get('name')) for c in r.cases()], ['pass'] * 3)
        self.assertEqual(r.root.get('tests'), '3')
        smoke = r.root[0]
        self.assertEqual(smoke.find('testcase').get('file'), 'smoke.yaml')
        log = smoke.find('system-out').text
        self.assertIn("Registered device plugin for 'nvidia.com/gpu' with Kubelet", log)
        self.assertIn('XidCriticalError: Xid=79', log)
        report = json.loads(r.stdout)
        self.assertEqual(report['version'], 1)
        self.assertEqual(report['totals'], {'tests': 3, 'passed': 3, 'failures': 0,
                                            'errors': 0, 'skipped': 0})
        self.assertEqual([c['status'] for c in report['suites'][0]['cases']], ['pass'] * 3)
        self.assertIn('PASSED: 3 tests, 3 passed', r.stderr)

    def test_failing_suite_exits_1_with_expected_and_actual(self):
        r = self.run_mokka(suite=FAILING)
        self.assertExit(r, 1)
        self.assertJUnitRules(r)
        f = r.case('nine GPUs on eight').find('failure')
        self.assertEqual(f.get('message'), 'nvidia.com/gpu capacity is 8, expected 9')
        self.assertEqual(f.get('type'), 'assertion')
        self.assertIn('expected: capacity 9\n  actual:   capacity 8', f.text)
        self.assertRegex(f.text, r'suite\.yaml:5:\d+')
        w = r.case('within reports the last value seen').find('failure')
        self.assertEqual(w.get('type'), 'timeout')
        # The value after the XID, not the one before.
        self.assertEqual(w.get('message'), 'after 5s: nvidia.com/gpu allocatable is 7, expected 5')
        self.assertIn('actual:   allocatable 7', w.text)
        self.assertIsNotNone(r.case('nine GPUs on eight').find('system-out'))
        self.assertIn('FAILED: 2 tests, 0 passed, 2 failed', r.stderr)

    def test_actions_reach_the_plugin(self):
        r = self.run_mokka('-v', suite=ACTIONS)
        self.assertExit(r, 0)
        self.assertJUnitRules(r)
        log = r.stderr      # every line of the plugin (-v), not only a tail
        self.assertIn('Skipping event: Xid=13', log)
        self.assertIn('DoubleBitEccError on Device=', log)
        self.assertIn('Skipping non-critical event: type 0x1', log)
        self.assertIn('plugin started again', log)
        # Both restarts stopped the plugin by SIGTERM, neither needed SIGKILL.
        self.assertNotIn('signal 9', log)

    def test_set_reaches_nvml_in_the_plugin(self):
        config = script(self.path('set.yaml'), SET_CONFIG)
        r = self.run_mokka(suite=SET_SUITE, config=config)
        self.assertExit(r, 0)

    def test_action_errors_are_errors(self):
        r = self.run_mokka(suite=ACTION_ERRORS)
        self.assertExit(r, 3)
        self.assertJUnitRules(r)
        e = r.case('no such GPU').find('error')
        self.assertEqual(e.get('type'), 'action')
        self.assertIn('gpu 12: the config has GPUs 0 to 7', e.get('message'))
        e = r.case('no such metric').find('error')
        self.assertIn("unknown metric 'temprature'", e.get('message'))
        self.assertEqual(r.status('still checked'), 'pass')
        e = r.case('nodes of a cluster').find('error')
        self.assertIn('an inject with nodes: needs cluster mode (run the suite with mokka assert',
                      e.get('message'))

    def test_seed_config(self):
        r = self.run_mokka(config=SEED)
        self.assertExit(r, 0)
        self.assertIn('Found GPU 1: GPU-7p6o5n4m-3l2k-1j0i-9h8g-7f6e5d4c3b2a', r.plugin_log())

    def test_h100_config_and_numa_from_the_sandbox_sysfs(self):
        r = self.run_mokka(config=H100, suite=H100_TOPOLOGY)
        self.assertExit(r, 0)
        log = r.plugin_log()
        self.assertRegex(log, r'Found GPU 0: GPU-\S+ \(NUMA node 0\)')
        self.assertRegex(log, r'Found GPU 7: GPU-\S+ \(NUMA node 1\)')

    def test_mig_mixed_config(self):
        # The stand-in knows no MIG: it offers both GPUs as nvidia.com/gpu.
        r = self.run_mokka(config=MIG_MIXED)
        self.assertExit(r, 0)
        self.assertEqual(r.root.get('tests'), '3')

    def test_time_rule_without_inject(self):
        config = script(self.path('after.yaml'), AFTER_CONFIG)
        r = self.run_mokka(config=config, suite=AFTER_SUITE)
        self.assertExit(r, 0)
        self.assertIn('XidCriticalError: Xid=79', r.plugin_log())

    def test_timeout(self):
        r = self.run_mokka('--timeout', '6s', suite=LONG_WAIT)
        self.assertExit(r, 3)
        self.assertJUnitRules(r)
        e = r.case('run finishes in time').find('error')
        self.assertEqual(e.get('message'), 'the run took longer than --timeout 6s')
        self.assertEqual(r.status('a long wait'), 'error')
        self.assertEqual(r.status('never reached'), 'skipped')
        # Before the plugin registered: --timeout wins over --register-timeout.
        r = self.run_mokka('--timeout', '2s', '--register-timeout', '1m', plugin='/bin/sleep',
                           plugin_args=['3600'])
        self.assertExit(r, 3)
        self.assertEqual(r.case('plugin starts and registers').find('error').get('message'),
                         '--timeout 2s ran out before the plugin registered')
        self.assertEqual(r.status('run finishes in time'), 'error')

    def test_verbose_colour_and_progress(self):
        r = self.run_mokka('-v')
        self.assertExit(r, 0)
        lines = r.stderr.splitlines()
        plugin = [i for i, l in enumerate(lines) if l.startswith('plugin | ')
                  and 'Registered device plugin' in l]
        first_case = [i for i, l in enumerate(lines) if "case 1/3 'every GPU" in l]
        self.assertTrue(plugin and first_case, r.stderr)
        self.assertLess(plugin[0], first_case[0], 'plugin lines come as they are written')
        self.assertNotIn('\x1b', r.stderr, 'no colour off a terminal')
        for progress in (r'started \S+fake-device-plugin in the sandbox',
                         r'plugin registered 1 resource in ',
                         r'nvidia\.com/gpu: 7 of 8 devices healthy'):
            self.assertRegex(r.stderr, re.compile(STAMP + progress, re.M))
        quiet = self.run_mokka()
        self.assertNotIn('plugin | ', quiet.stderr)
        coloured = self.run_mokka('--color', 'always')
        self.assertIn('\x1b[', coloured.stderr)

    # --- harness failures --------------------------------------------------------------------

    def test_plugin_that_never_registers(self):
        plugin = script(self.path('silent'), '#!/bin/sh\necho "I am plugin $$, waiting"\n'
                        'echo "last words" >&2\nexec sleep 3600\n')
        r = self.run_mokka('--register-timeout', '3s', plugin=plugin)
        self.assertExit(r, 3)
        self.assertJUnitRules(r)
        e = r.case('plugin starts and registers').find('error')
        self.assertEqual(e.get('message'), 'the plugin did not register within 3s')
        self.assertEqual(e.get('type'), 'harness')
        self.assertIn('last log lines of the plugin:', e.text)
        self.assertIn('stdout: I am plugin', e.text)
        self.assertIn('stderr: last words', e.text)
        self.assertIn('mokka run: the plugin did not register within 3s', r.stderr)

    def test_plugin_that_crashes_at_once(self):
        plugin = script(self.path('crasher'), '#!/bin/sh\necho "crashing" >&2\nexit 7\n')
        r = self.run_mokka('--restart-limit', '2', plugin=plugin)
        self.assertExit(r, 3)
        self.assertJUnitRules(r)
        e = r.case('plugin starts and registers').find('error')
        self.assertEqual(e.get('message'), 'the plugin exited with status 7 and crashed 3 times; '
                         'it never registered')
        log = r.case('plugin starts and registers').find('system-out').text
        self.assertEqual(log.count('stderr: crashing'), 3)
        self.assertIn('restarting (crash 1 of at most 2)', log)
        self.assertIn('restarting (crash 2 of at most 2)', log)
        self.assertIn('crashed 3 times, more than --restart-limit 2: giving up', log)
        self.assertIn('the plugin crashed 3 times during the run', r.stderr)

    def test_plugin_that_fails_after_restart_plugin(self):
        # Serves once; started again it finds its mark and exits.
        plugin = script(self.path('once'), '#!/bin/sh\nmark=%s\n'
                        '[ -e "$mark" ] && { echo "not again" >&2; exit 1; }\n'
                        ': > "$mark"\nexec %s "$@"\n' % (self.path('served'), FAKE))
        r = self.run_mokka('--restart-limit', '0', plugin=plugin, suite='''
suite: restart
cases:
  - name: restart
    restart-plugin: true
    expect: {allocatable: 8}
''')
        self.assertExit(r, 3)
        e = r.case('restart').find('error')
        self.assertEqual(e.get('message'), 'restart-plugin failed: after the restart the plugin '
                         'exited with status 1; it crashed 1 time in all, more than '
                         '--restart-limit allows')

    def test_missing_plugin(self):
        r = self.run_mokka(plugin=self.path('no-such-plugin'))
        self.assertExit(r, 3)
        self.assertIn('mokka run: cannot run the device plugin %s: No such file or directory'
                      % self.path('no-such-plugin'), r.stderr)
        self.assertJUnitRules(r)
        self.assertEqual(r.status('plugin starts and registers'), 'error')
        env = dict(self.env, PATH=self.path('empty'))
        r = self.run_mokka(plugin=None, env=env)
        self.assertExit(r, 3)
        self.assertIn("no device plugin: 'nvidia-device-plugin' is not on PATH", r.stderr)

    def test_bad_config_suite_and_options(self):
        bad = script(self.path('bad.yaml'), 'version: 1.0\ncount: 2\nprofile: a100-sxm4-40gb\n'
                     'devices:\n  - index: 0\n    temprature: 40\n')
        r = self.run_mokka(config=bad)
        self.assertExit(r, 2)
        self.assertIn("%s:6:5: error: unknown key 'temprature'" % bad, r.stderr)
        self.assertIsNone(r.root, 'no report for a usage error')
        r = self.run_mokka(suite='suite: x\ncases:\n  - name: a\n    expect: {capacty: 1}\n')
        self.assertExit(r, 2)
        self.assertIn("suite.yaml:4:14: error: unknown key 'capacty' in expect; did you mean "
                      "'capacity'?", r.stderr)
        r = self.run_mokka(config=self.path('absent.yaml'))
        self.assertExit(r, 2)
        self.assertIn('absent.yaml: No such file or directory', r.stderr)
        for args, words in ((['--bogus'], "unrecognized option '--bogus'"),
                            (['--timeout', '0'], "--timeout '0': must be longer than 0"),
                            (['--timeout', 'soon'], "--timeout 'soon': expected a duration"),
                            (['--register-timeout', '-1s'], '--register-timeout'),
                            (['--restart-limit', 'x'], "--restart-limit takes 0 to 1000, not 'x'"),
                            (['--report', 'xml'], "--report takes json or json=FILE, not 'xml'"),
                            (['--env', 'FOO'], "--env takes NAME=VALUE, not 'FOO'")):
            r = self.run_mokka(*args)
            self.assertExit(r, 2)
            self.assertIn(words, r.stderr)
            self.assertIn("Try 'mokka run --help'", r.stderr)
            self.assertEqual(r.stdout, '')

    # --- signals -------------------------------------------------------------------------------

    def interrupt(self, sig, plugin, also=()):
        """Signals mokka while a case waits: the plugin and whatever else
        ran below mokka (`also`: process names) must be gone afterwards."""
        proc, lines = self.start_mokka(suite=LONG_WAIT, plugin=plugin)
        self.wait_for_line(proc, lines, "case 1/2 'a long wait'")
        tree = descendants(proc.pid)
        names = {p: comm(p) for p in tree}
        for name in ('fake-device-plu',) + tuple(also):
            self.assertIn(name, names.values(), 'runs below mokka')
        os.kill(proc.pid, sig)
        try:
            proc.wait(timeout=RUN_LIMIT)
        except subprocess.TimeoutExpired:
            self.fail('mokka run did not end after %s' % signal.Signals(sig).name)
        time.sleep(0.2)
        left = {p: names.get(p) for p, start in tree.items()
                if proc_stat(p) and proc_stat(p)[2] == start}
        self.assertEqual(left, {}, 'processes left behind')
        for d in os.listdir('/proc'):
            if d.isdigit() and environ_has(int(d), 'MOKKA_STATE_DIR=' + self.runtime):
                self.fail('process %s of this run is still there' % d)
        self.assertEqual(os.listdir(self.runtime), [])
        r = Result(proc, '', ''.join(lines), self.path('report.xml'))
        self.assertExit(r, 3)
        self.assertJUnitRules(r)
        ended = r.case('run finishes')
        self.assertEqual(ended.find('error').get('message'), 'interrupted by %s' % {
            signal.SIGINT: 'Interrupt', signal.SIGTERM: 'Terminated'}[sig])
        self.assertEqual(r.status('never reached'), 'skipped')
        return r

    def test_sigint_stops_the_plugin_and_reaps_everything(self):
        r = self.interrupt(signal.SIGINT, FAKE)
        log = r.case('run finishes').find('system-out').text
        self.assertIn('Received signal "Interrupt", shutting down.', log)
        self.assertIn('mokka: plugin exited with status 0', log)

    def test_sigterm_also_reaps_what_the_plugin_daemonised(self):
        # The wrapper leaves a process in a session of its own: out of the
        # plugin's process group, it comes back to mokka as the subreaper.
        plugin = script(self.path('wrapper'), '#!/bin/sh\nsetsid sleep 3600 &\n'
                        'exec %s "$@"\n' % FAKE)
        r = self.interrupt(signal.SIGTERM, plugin, also=('sleep',))
        log = r.case('run finishes').find('system-out').text
        self.assertIn('Received signal "Terminated", shutting down.', log)

    def test_sigkill_takes_the_plugin_along_and_stats_clears_the_run_directory(self):
        # SIGKILL cannot be caught: the plugin must die with mokka by itself
        # (it once served on with PPID 1, and `mokka stats` took it for the
        # only live universe), and the run directory left behind is cleared
        # by the next search for a live state.
        proc, lines = self.start_mokka(suite=LONG_WAIT)
        self.wait_for_line(proc, lines, "case 1/2 'a long wait'")
        plugins = {p: start for p, start in descendants(proc.pid).items()
                   if comm(p) == 'fake-device-plu'}
        self.assertEqual(len(plugins), 1)
        self.assertEqual(len(os.listdir(self.runtime)), 1)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=RUN_LIMIT)
        deadline = time.monotonic() + 30
        # one read a process: it may be gone between two
        while any((st := proc_stat(p)) and st[2] == s for p, s in plugins.items()):
            self.assertLess(time.monotonic(), deadline, 'the plugin outlived mokka run')
            time.sleep(0.05)
        stats = subprocess.run([MOKKA, 'stats'], capture_output=True, text=True,
                               env=self.env, timeout=60)
        self.assertEqual(stats.returncode, 3, stats.stderr)
        self.assertIn('no live program on the mock', stats.stderr)
        self.assertEqual(os.listdir(self.runtime), [], 'the dead run\'s directory stayed')

    def test_kept_run_directory_is_not_cleared(self):
        r = self.run_mokka('--keep')
        self.assertExit(r, 0)
        kept = os.listdir(self.runtime)
        self.assertEqual(len(kept), 1)
        subprocess.run([MOKKA, 'stats'], capture_output=True, env=self.env, timeout=60)
        self.assertEqual(os.listdir(self.runtime), kept)

    def test_config_copied_beside_the_state(self):
        """The node's container runtime shim finds the universe beside the
        state: a mokka run in a pod reads a ConfigMap the host cannot see."""
        from cli_support import MIG_MIXED
        r = self.run_mokka('--keep', '--config', MIG_MIXED)
        self.assertExit(r, 0)
        kept = os.path.join(self.runtime, os.listdir(self.runtime)[0])
        with open(os.path.join(kept, 'gpus.yaml'), 'rb') as a, open(MIG_MIXED, 'rb') as b:
            self.assertEqual(a.read(), b.read())

    # --- the sandbox ---------------------------------------------------------------------------

    def test_sandbox_leaves_the_host_alone_and_runs_side_by_side(self):
        def host_kubelet():
            if not os.path.exists('/var/lib/kubelet'):
                return None
            dp = '/var/lib/kubelet/device-plugins'
            return sorted(os.listdir(dp)) if os.path.isdir(dp) else []
        before = host_kubelet()
        procs = [self.start_mokka(junit=False) for _ in range(2)]
        for proc, lines in procs:
            try:
                proc.wait(timeout=RUN_LIMIT)
            except subprocess.TimeoutExpired:
                self.fail('a run side by side did not finish')
        for proc, lines in procs:
            time.sleep(0.1)
            self.assertEqual(proc.returncode, 0, ''.join(lines))
            self.assertIn('PASSED: 3 tests, 3 passed', ''.join(lines))
        self.assertEqual(host_kubelet(), before, "the host's /var/lib/kubelet changed")
        self.assertEqual(os.listdir(self.runtime), [])

    def test_plugin_sees_sysfs_mig_caps_and_device_nodes(self):
        probe = script(self.path('probe'), '''#!/bin/sh
echo "numa $(cat /sys/bus/pci/devices/0000:9d:00.0/numa_node)"
echo "vendor $(cat /sys/bus/pci/devices/0000:9d:00.0/vendor)"
echo "mig-minors $(wc -l < /proc/driver/nvidia-caps/mig-minors)"
grep -m 1 gpu0/gi0/ci0 /proc/driver/nvidia-caps/mig-minors
head -n 1 /proc/driver/nvidia/version
ls /var/lib/kubelet/device-plugins
ls -d /dev/nvidiactl /dev/nvidia7 /dev/nvidia-caps
exit 1
''')
        r = self.run_mokka('--restart-limit', '0', config=H100, plugin=probe)
        self.assertExit(r, 3)
        log = r.case('plugin starts and registers').find('system-out').text
        self.assertIn('stdout: numa 1', log)
        self.assertIn('stdout: vendor 0x10de', log)
        self.assertIn('stdout: mig-minors 4322', log)
        self.assertIn('stdout: gpu0/gi0/ci0/access 4', log)
        self.assertIn('stdout: NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.261.03', log)
        self.assertIn('stdout: kubelet.sock', log)
        for node in ('/dev/nvidiactl', '/dev/nvidia7', '/dev/nvidia-caps'):
            self.assertIn('stdout: ' + node, log)
        self.assertNotIn('No such file', log)

    @unittest.skipUnless(os.geteuid() == 0, 'needs root to make a mount namespace with '
                         'unshare -m (--no-sandbox uses the real /var/lib/kubelet)')
    def test_no_sandbox_in_a_private_mount_namespace(self):
        # Everything happens under `unshare -m` with a tmpfs over /var/lib,
        # so the host's /var/lib/kubelet is never touched.
        helper = script(self.path('no-sandbox.py'), NO_SANDBOX_HELPER)
        p = subprocess.run(['unshare', '--mount', '--propagation', 'private',
                            'python3', helper, json.dumps(self.argv(['--no-sandbox'],
                                                                    junit=False))],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, env=self.env, timeout=2 * RUN_LIMIT)
        self.assertEqual(p.returncode, 0, p.stderr)
        res = json.loads(p.stdout)
        live, free = res['live'], res['free']
        self.assertEqual(live['rc'], 3, live['stderr'])
        self.assertIn('a server is answering on /var/lib/kubelet/device-plugins/kubelet.sock '
                      '(is a kubelet running?); refusing to take it over', live['stderr'])
        self.assertEqual(free['rc'], 0, free['stderr'])
        self.assertIn('started %s on the host\'s paths' % FAKE, free['stderr'])
        self.assertNotIn('kubelet.sock', free['left'], 'the kubelet socket is removed')


# Runs in a private mount namespace: a tmpfs over /var/lib, then mokka run
# --no-sandbox once with something listening on kubelet.sock and once without.
NO_SANDBOX_HELPER = r'''
import json, os, socket, subprocess, sys
argv = json.loads(sys.argv[1])
subprocess.run(['mount', '-t', 'tmpfs', 'mokka-test', '/var/lib'], check=True)
dp = '/var/lib/kubelet/device-plugins'
os.makedirs(dp)

def run():
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, timeout=300)
    return {'rc': p.returncode, 'stderr': p.stderr, 'left': sorted(os.listdir(dp))}

kubelet = socket.socket(socket.AF_UNIX)
kubelet.bind(dp + '/kubelet.sock')
kubelet.listen(8)
live = run()
kubelet.close()
os.unlink(dp + '/kubelet.sock')
print(json.dumps({'live': live, 'free': run()}))
'''


# --- with NVIDIA's device plugin -----------------------------------------------------------

REAL_MIG = '''
suite: real-mig-mixed
cases:
  - name: every MIG profile is a resource of its own
    expect:
      - {resource: nvidia.com/mig-1g.5gb, capacity: 2, allocatable: 2, devices: 2}
      - {resource: nvidia.com/mig-2g.10gb, capacity: 1, allocatable: 1}
      - {resource: nvidia.com/mig-3g.20gb, capacity: 1, allocatable: 1}
      - {resource: nvidia.com/gpu, capacity: 1, allocatable: 1, healthy: ["${uuid.1}"]}
    within: 60s
  - name: a MIG device allocates by its MIG UUID
    expect:
      resource: nvidia.com/mig-3g.20gb
      allocate: {count: 1, env: {NVIDIA_VISIBLE_DEVICES: "/^MIG-[0-9a-f-]+$/"}}
  - name: XID 13 on the MIG parent is ignored
    inject: {gpu: 0, xid: 13}
    wait: 2s
    expect:
      - {resource: nvidia.com/mig-1g.5gb, allocatable: 2}
      - {resource: nvidia.com/mig-2g.10gb, allocatable: 1}
      - {resource: nvidia.com/mig-3g.20gb, allocatable: 1}
  # The plugin tracks one MIG device per parent GPU and resource (the last
  # it registered), so of the two 1g.5gb devices only one turns unhealthy.
  - name: XID 79 on the MIG parent takes out the MIG device each resource tracks
    inject: {gpu: 0, xid: 79}
    expect:
      - {resource: nvidia.com/mig-1g.5gb, allocatable: 1, unhealthy-count: 1}
      - {resource: nvidia.com/mig-2g.10gb, allocatable: 0}
      - {resource: nvidia.com/mig-3g.20gb, allocatable: 0}
      - {resource: nvidia.com/gpu, allocatable: 1, healthy: ["${uuid.1}"]}
    within: 60s
'''

REAL_DEVICE_SPECS = '''
suite: device-specs
cases:
  - name: Allocate returns the device nodes
    expect:
      allocate:
        ids: ["${uuid.3}"]
        env: {NVIDIA_VISIBLE_DEVICES: "${uuid.3}"}
        devices: {/dev/nvidiactl: /dev/nvidiactl, /dev/nvidia3: /dev/nvidia3, /dev/nvidia0: null}
'''

REAL_NO_HEALTHCHECKS = '''
suite: no-healthchecks
cases:
  - name: every GPU registered
    expect: {allocatable: 8}
    within: 60s
  - name: an XID changes nothing with health checks off
    inject: {gpu: 0, xid: 79}
    wait: 2s
    expect: {allocatable: 8, healthy: ["${uuid.0}"]}
'''


# On an NVSwitch board NVIDIA's allocator sees no GPU-to-GPU NVLink (every
# link's far end is a switch, never the other GPU's bus id), so it places by
# PCIe: the two GPUs under one PCIe switch, the four of one NUMA node. Each
# case offers one best answer: between equals the plugin's choice follows
# the order of its own device list, which is a Go map's.
REAL_FABRIC = '''\
cases:
  - name: two GPUs share a PCIe switch
    expect:
      preferred:
        available: ["${uuid.0}", "${uuid.2}", "${uuid.4}", "${uuid.1}"]
        size: 2
        expect: ["${uuid.0}", "${uuid.1}"]
  - name: with GPU 2 in, its PCIe neighbour
    expect:
      preferred: {size: 2, must: ["${uuid.2}"], expect: ["${uuid.2}", "${uuid.3}"]}
  - name: four stay on one NUMA node
    expect:
      preferred:
        available: ["${uuid.5}", "${uuid.0}", "${uuid.1}", "${uuid.4}", "${uuid.2}", "${uuid.3}"]
        size: 4
        expect: ["${uuid.0}", "${uuid.1}", "${uuid.2}", "${uuid.3}"]
  - name: from the second half
    expect:
      preferred:
        available: ["${uuid.3}", "${uuid.5}", "${uuid.6}", "${uuid.7}"]
        size: 2
        expect: ["${uuid.6}", "${uuid.7}"]
'''


class RealPlugin(RunTest):

    def setUp(self):
        if not REAL:
            self.skipTest('set MOKKA_DEVICE_PLUGIN to the NVIDIA device plugin binary to run '
                          'these (e.g. /opt/mokka-peers/bin/nvidia-device-plugin)')
        if SAN == 'asan':
            self.skipTest("NVIDIA's plugin is a Go program built without ASan: it cannot "
                          "load this build's ASan library")
        if SAN:
            self.skipTest('the library is built with %s; programs built without it cannot '
                          'load it' % SAN)
        super().setUp()
        if not os.access(REAL, os.X_OK):
            self.fail('MOKKA_DEVICE_PLUGIN=%s is not an executable file' % REAL)

    def real(self, *args, plugin_args=(), **kw):
        return self.run_mokka(*args, plugin=REAL, plugin_args=plugin_args, **kw)

    def test_smoke(self):
        r = self.real()
        self.assertExit(r, 0)
        self.assertJUnitRules(r)
        self.assertIn('XidCriticalError: Xid=79', r.plugin_log())

    def test_mig_mixed(self):
        r = self.real('-v', config=MIG_MIXED, suite=REAL_MIG,
                      plugin_args=['--mig-strategy=mixed'])
        self.assertExit(r, 0)
        self.assertJUnitRules(r)
        log = r.stderr
        self.assertIn('Skipping event {', log)
        self.assertIn('EventType:8 EventData:13', log)
        self.assertIn('XidCriticalError: Xid=79', log)

    def test_pass_device_specs(self):
        r = self.real(suite=REAL_DEVICE_SPECS, plugin_args=['--pass-device-specs'])
        self.assertExit(r, 0)

    def test_preferred_allocation_on_switch_fabrics(self):
        for board in ('dgx-a100', 'hgx-h100'):
            with self.subTest(board=board):
                r = self.real(config=os.path.join(CONFIGS, board + '.yaml'),
                              suite=REAL_FABRIC)
                self.assertExit(r, 0)

    def test_disabled_health_checks(self):
        r = self.real('-v', '--env', 'DP_DISABLE_HEALTHCHECKS=all', suite=REAL_NO_HEALTHCHECKS)
        self.assertExit(r, 0)
        self.assertNotIn('Xid', r.stderr, 'no health check saw the XID')


if __name__ == '__main__':
    unittest.main()
