"""test_run_plugins.py - several device plugins on one node under `mokka run`
(--plugins FILE, --add-plugin): one universe, one live state, each plugin
named, with its own environment and log, and the built-in kubelet applying
kubelet v1.20's device-manager rules (pkg/kubelet/cm/devicemanager/
manager.go): each registration its own endpoint; a second registration of a
resource replaces the first (the first plugin's devices leave the node, its
stream stays open); two plugins at one socket path are reported with both
names; a plugin that exits takes only its own resources down.

With the stand-in plugin (it serves any resource name and socket): every rule
above; suites that name a plugin (restart-plugin: NAME, expect plugin: and
served-by:); the `plugins` report suite that attributes each resource; bad
input (two plugins with one name, a command that does not exist, a plugin
crash-looping beside a healthy one, SIGTERM with several plugins).

With NVIDIA's plugins when MOKKA_DEVICE_PLUGIN (v0.17) and
MOKKA_DEVICE_PLUGIN_OLD (an older line, e.g. v0.14) name them: the grey
release of fixtures/suites/examples/grey-release.yaml with the plugins of
fixtures/plugins/grey-release.yaml end to end, and the same
two plugins at one socket.

The same-resource and same-socket scenarios against the real kubelet v1.20
(MOKKA_RIG, ../shared/rig) are in test_run_plugins_rig.py."""
import json
import os
import signal
import time
import unittest

from cli_support import CONFIGS, MIG_MIXED, SAN, SRC
from test_run import FAKE, RUN_LIMIT, Result, RunTest, comm, descendants, environ_has, proc_stat

REAL = os.environ.get('MOKKA_DEVICE_PLUGIN', '')
REAL_OLD = os.environ.get('MOKKA_DEVICE_PLUGIN_OLD', '')
GREY_SUITE = os.path.join(SRC, 'fixtures', 'suites', 'examples', 'grey-release.yaml')
GREY_PLUGINS = os.path.join(SRC, 'fixtures', 'plugins', 'grey-release.yaml')


class Plugins(RunTest):
    """Runs with several plugins: no --plugin, the plugins in `plugins`."""

    def fake(self, name, *args, env=()):
        """--add-plugin for the stand-in called name (under ASan, argv()'s
        --env for any plugin reaches it)."""
        return ['--add-plugin', '%s=%s' % (name, ' '.join(list(env) + [FAKE] + list(args)))]

    def run_plugins(self, *args, suite=None, **kw):
        return self.run_mokka(*args, plugin=None, suite=suite, **kw)

    def plugins_case(self, r, name):
        found = [c for s in r.root.iter('testsuite') if s.get('name') == 'plugins'
                 for c in s.iter('testcase') if c.get('name') == name]
        self.assertEqual(len(found), 1, 'plugin case %r in\n%s' % (name, r.xml.decode()))
        return found[0]

    def json_report(self):
        with open(self.path('report.json')) as f:
            return json.load(f)


class StandIn(Plugins):

    def test_two_plugins_each_resource_attributed(self):
        r = self.run_plugins(
            '--report', 'json=' + self.path('report.json'),
            *(self.fake('old') + self.fake('new', '--resource-name', 'nvidia.com/gpu-v2')),
            suite='''
cases:
  - name: each resource and who serves it
    expect:
      - {resource: nvidia.com/gpu, allocatable: 8, served-by: old}
      - {resource: nvidia.com/gpu-v2, allocatable: 8, served-by: new}
      - plugin: {name: old, running: true, restarts: 0, crashes: 0,
                 resources: [nvidia.com/gpu]}
      - plugin: {name: new, resources: [nvidia.com/gpu-v2]}
  - name: a wrong attribution fails, naming the plugin
    expect: {resource: nvidia.com/gpu, served-by: new}
''')
        self.assertExit(r, 1)
        self.assertJUnitRules(r)
        self.assertEqual(r.status('each resource and who serves it'), 'pass')
        wrong = r.case('a wrong attribution fails, naming the plugin').find('failure')
        self.assertEqual(wrong.get('message'), "nvidia.com/gpu is served by plugin 'old', "
                         "expected plugin 'new'")
        for name, res, sock in (('old', 'nvidia.com/gpu', 'nvidia-gpu.sock'),
                                ('new', 'nvidia.com/gpu-v2', 'nvidia-gpu-v2.sock')):
            case = self.plugins_case(r, name)
            self.assertIsNone(case.find('error'))
            out = case.find('system-out').text
            self.assertIn('serves %s: capacity 8, allocatable 8 (socket %s)' % (res, sock), out)
            self.assertIn('--- log of plugin %s ---' % name, out)
            self.assertIn("Registered device plugin for '%s' with Kubelet" % res, out)
        # the JSON report has the same attribution
        cases = {c['name']: c for s in self.json_report()['suites'] if s['name'] == 'plugins'
                 for c in s['cases']}
        self.assertIn('serves nvidia.com/gpu-v2', cases['new']['detail'])
        # started lines name each plugin
        self.assertRegex(r.stderr, r"started plugin 'old': \S+fake-device-plugin in the sandbox")
        self.assertIn("nvidia.com/gpu-v2 registered by plugin 'new' (socket nvidia-gpu-v2.sock)",
                      r.stderr)

    def test_run_file_env_and_logs(self):
        # A run file: each plugin's own environment reaches only it (the
        # stand-in takes KUBELET_SOCKET... so use the resource through a
        # wrapper that reads its own variable), and each has its own log.
        wrapper = self.suite('#!/bin/sh\nexec %s --resource-name "$WHICH" "$@"\n' % FAKE,
                             name='wrapper.sh')
        os.chmod(wrapper, 0o755)
        run_file = self.suite('''
plugins:
  - name: old
    command: [%s]
    env: {WHICH: nvidia.com/gpu}
  - name: new
    command: %s
    env: [WHICH=example.com/tpu]
    log: %s
''' % (wrapper, wrapper, self.path('new.log')), name='plugins.yaml')
        r = self.run_plugins('--plugins', run_file, '--keep', suite='''
cases:
  - name: own environments
    expect:
      - {resource: nvidia.com/gpu, served-by: old}
      - {resource: example.com/tpu, served-by: new, capacity: 8}
''')
        self.assertExit(r, 0)
        with open(self.path('new.log')) as f:
            new_log = f.read()
        self.assertIn("Registered device plugin for 'example.com/tpu'", new_log)
        self.assertNotIn('nvidia.com/gpu', new_log)
        run_dir = os.path.join(self.runtime, os.listdir(self.runtime)[0])
        with open(os.path.join(run_dir, 'plugin-old.log')) as f:
            self.assertIn("'nvidia.com/gpu'", f.read())
        self.assertFalse(os.path.exists(os.path.join(run_dir, 'plugin.log')))
        shutil_rmtree(run_dir)

    def test_second_registration_of_a_resource_replaces_the_first(self):
        # Both serve nvidia.com/gpu from sockets of their own (kubelet v1.20:
        # registerEndpoint replaces the resource's endpoint; the new plugin's
        # list is the resource's). The first stays up, its devices gone. The
        # new one starts once the old one serves (a wrapper in the sandbox).
        later = self.suite('#!/bin/sh\nwhile [ ! -S /var/lib/kubelet/device-plugins/'
                           'nvidia-gpu.sock ]; do sleep 0.1; done\nsleep 1\n'
                           'exec %s --endpoint new.sock\n' % FAKE, name='later.sh')
        r = self.run_plugins(*(self.fake('old') + ['--add-plugin', 'new=' + later]),
            '--register-timeout', '60s', suite='''
cases:
  - name: the last registration wins
    expect:
      - {resource: nvidia.com/gpu, capacity: 8, allocatable: 8, served-by: new}
      - plugin: {name: old, running: true, resources: []}
      - plugin: {name: new, resources: [nvidia.com/gpu]}
  - name: the replaced plugin's restart takes the resource back
    restart-plugin: old
    expect:
      - {resource: nvidia.com/gpu, served-by: old, allocatable: 8}
      - plugin: {name: old, restarts: 1}
      - plugin: {name: new, restarts: 0, running: true}
''')
        self.assertExit(r, 0)
        old = self.plugins_case(r, 'old').find('system-out').text
        self.assertIn("replaced as nvidia.com/gpu's endpoint by plugin 'new'", old)
        self.assertIn("plugin 'new' replaced plugin 'old'", r.stderr)

    def test_same_socket_is_reported_with_both_names(self):
        # Different resources, one socket path: the second plugin unlinks the
        # first's socket file. The kubelet keeps what it registered (both
        # resources stay), the run fails naming both plugins.
        r = self.run_plugins(
            *(self.fake('old') + self.fake('new', '--resource-name', 'nvidia.com/gpu-v2',
                                           '--endpoint', 'nvidia-gpu.sock')),
            suite='''
cases:
  - name: both resources stay on the node
    expect:
      - {resource: nvidia.com/gpu, capacity: 8}
      - {resource: nvidia.com/gpu-v2, capacity: 8}
''')
        self.assertExit(r, 1)
        self.assertEqual(r.status('both resources stay on the node'), 'pass')
        clash = self.plugins_case(r, 'plugins serve from sockets of their own')
        msg = clash.find('failure').get('message')
        self.assertRegex(msg, r"^plugins '(old|new)' and '(old|new)' both serve from the socket "
                              r"nvidia-gpu\.sock: '(old|new)' removed the socket file of ")
        self.assertIn("'old'", msg)
        self.assertIn("'new'", msg)
        self.assertIn('error: plugins ', r.stderr)

    def test_exit_takes_only_its_own_resources(self):
        # `crash` serves example.com/tpu and exits for good once asked to
        # restart (its wrapper runs the plugin only the first time): its
        # resource goes unallocatable; the healthy plugin's stays.
        flag = self.path('ran-once')
        crash = self.suite('#!/bin/sh\n[ -e %s ] && { echo "no more" >&2; exit 7; }\n'
                           'touch %s\nexec %s --resource-name example.com/tpu\n'
                           % (flag, flag, FAKE), name='crash.sh')
        os.chmod(crash, 0o755)
        r = self.run_plugins(*(self.fake('good') + ['--add-plugin', 'crash=' + crash]),
                             '--restart-limit', '1', suite='''
cases:
  - name: both up
    expect:
      - {resource: example.com/tpu, allocatable: 8, served-by: crash}
      - {resource: nvidia.com/gpu, allocatable: 8, served-by: good}
  - name: crash goes down
    restart-plugin: crash
''', timeout=RUN_LIMIT)
        # the restart fails (the plugin exits 7 twice: past --restart-limit 1)
        self.assertExit(r, 3)
        self.assertIn('exited with status 7',
                      r.case('crash goes down').find('error').get('message'))
        failed = self.plugins_case(r, 'crash').find('error')
        self.assertEqual(failed.get('type'), 'plugin-failed')
        self.assertIn("plugin 'crash'", failed.get('message'))
        self.assertIn('exited with status 7', failed.get('message'))
        self.assertIsNone(self.plugins_case(r, 'good').find('error'))
        self.assertIn('serves nvidia.com/gpu: capacity 8, allocatable 8',
                      self.plugins_case(r, 'good').find('system-out').text)
        self.assertIn('serves example.com/tpu: capacity 8, allocatable 0',
                      failed.text)

    def test_crash_looping_plugin_beside_a_healthy_one(self):
        loop = self.suite('#!/bin/sh\necho "config.yaml: no such file" >&2\nexit 3\n',
                          name='loop.sh')
        os.chmod(loop, 0o755)
        r = self.run_plugins(*(self.fake('good') + ['--add-plugin', 'bad=' + loop]),
                             '--restart-limit', '2', suite='''
cases:
  - name: the healthy plugin's resources stay
    expect:
      - {resource: nvidia.com/gpu, allocatable: 8, served-by: good}
      - plugin: {name: bad, running: false, crashes: 3}
''')
        self.assertExit(r, 3)
        self.assertEqual(r.status("the healthy plugin's resources stay"), 'pass')
        bad = self.plugins_case(r, 'bad').find('error')
        self.assertEqual(bad.get('message'),
                         "plugin 'bad' (%s) exited with status 3 and crashed 3 times, more than "
                         "--restart-limit allows; it never registered" % loop)
        self.assertIn('config.yaml: no such file', self.plugins_case(r, 'bad').find('system-out').text)
        self.assertIsNone(self.plugins_case(r, 'good').find('error'))

    def test_duplicate_names_and_missing_commands(self):
        r = self.run_plugins(*(self.fake('a') + self.fake('a')), junit=False)
        self.assertExit(r, 2)
        self.assertIn("--add-plugin: two plugins are named 'a' (the first at --add-plugin a)",
                      r.stderr)
        run_file = self.suite('plugins:\n  - name: x\n    command: [%s]\n  - name: x\n'
                              '    command: [%s]\n' % (FAKE, FAKE), name='dup.yaml')
        r = self.run_plugins('--plugins', run_file, junit=False)
        self.assertExit(r, 2)
        self.assertIn("dup.yaml:4:11: error: two plugins are named 'x' (the first at %s:2:11)"
                      % run_file, r.stderr)
        r = self.run_plugins(*(self.fake('a') + ['--add-plugin', 'b=no-such-plugin-here --x']))
        self.assertExit(r, 3)
        self.assertRegex(r.stderr, r"plugin 'b': .*no-such-plugin-here")
        self.assertFalse([p for p in descendants(os.getpid()) if comm(p) == 'fake-device-plu'])
        for bad, why in (('Bad=x', 'a plugin name takes a-z, 0-9'), ('a=', 'no command'),
                         ('nocommand', 'NAME=COMMAND')):
            r = self.run_plugins('--add-plugin', bad, junit=False)
            self.assertExit(r, 2)
            self.assertIn(why, r.stderr)
        r = self.run_mokka(*self.fake('a'), junit=False)   # with --plugin FAKE
        self.assertExit(r, 2)
        self.assertIn('not both', r.stderr)

    def test_sigterm_stops_every_plugin(self):
        proc, lines = self.start_mokka(*(self.fake('a') + self.fake('b', '--resource-name',
                                                                     'example.com/tpu')),
                                       plugin=None, suite='''
cases:
  - name: a long wait
    wait: 5m
  - name: never reached
    expect: {capacity: 8}
''')
        self.wait_for_line(proc, lines, "case 1/2 'a long wait'")
        tree = descendants(proc.pid)
        self.assertEqual([comm(p) for p in tree].count('fake-device-plu'), 2)
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait(timeout=RUN_LIMIT)
        time.sleep(0.2)
        left = [p for p, start in tree.items() if proc_stat(p) and proc_stat(p)[2] == start]
        self.assertEqual(left, [], 'plugins left behind')
        for d in os.listdir('/proc'):
            if d.isdigit() and environ_has(int(d), 'MOKKA_STATE_DIR=' + self.runtime):
                self.fail('process %s of this run is still there' % d)
        r = Result(proc, '', ''.join(lines), self.path('report.xml'))
        self.assertExit(r, 3)
        self.assertEqual(r.case('run finishes').find('error').get('message'),
                         'interrupted by Terminated')
        for name in ('a', 'b'):
            out = self.plugins_case(r, name).find('system-out').text
            self.assertIn('Received signal "Terminated", shutting down.', out)

    def test_restart_plugin_names_an_unknown_plugin(self):
        r = self.run_plugins(*(self.fake('a') + self.fake('b', '--resource-name', 'x.io/y')),
                             suite='cases:\n  - name: r\n    restart-plugin: c\n')
        self.assertExit(r, 3)
        self.assertEqual(r.case('r').find('error').get('message'),
                         "restart-plugin c failed: no plugin is named 'c'; the plugins are "
                         "'a', 'b'")


def shutil_rmtree(path):
    import shutil
    shutil.rmtree(path, True)


class GreyRelease(Plugins):
    """NVIDIA's plugins: the old line with MIG off beside v0.17 with
    --mig-strategy=mixed and renamed resources, on a MIG universe."""

    def setUp(self):
        missing = [v for v, p in (('MOKKA_DEVICE_PLUGIN', REAL), ('MOKKA_DEVICE_PLUGIN_OLD', REAL_OLD))
                   if not p]
        if missing:
            self.skipTest('set %s to NVIDIA device plugin binaries (v0.17 and an older line, '
                          'e.g. v0.14) to run these' % ' and '.join(missing))
        if SAN:
            self.skipTest("NVIDIA's plugins are Go programs built without %s: they cannot load "
                          "this build's library" % SAN)
        super().setUp()
        self.env['MOKKA_DEVICE_PLUGIN'] = REAL
        self.env['MOKKA_DEVICE_PLUGIN_OLD'] = REAL_OLD

    def test_example_suite(self):
        r = self.run_plugins('--config', MIG_MIXED, '--plugins', GREY_PLUGINS,
                             '--suite', GREY_SUITE)
        self.assertExit(r, 0)
        for name in ('old', 'new'):
            self.assertIsNone(self.plugins_case(r, name).find('error'))

    def test_same_socket_with_nvidia_plugins(self):
        # Without the renames both serve nvidia.com/gpu from nvidia-gpu.sock.
        r = self.run_plugins('--config', MIG_MIXED,
                             '--add-plugin', 'old=%s --mig-strategy=none' % REAL_OLD,
                             '--add-plugin', 'new=%s --mig-strategy=mixed' % REAL)
        self.assertExit(r, 1)
        msg = self.plugins_case(r, 'plugins serve from sockets of their own').find(
            'failure').get('message')
        self.assertIn('both serve from the socket nvidia-gpu.sock', msg)


class Overlay(unittest.TestCase):
    """ci/deploy/grey-release: a kustomize overlay in the form kubectl 1.20's
    kustomize (v2.0.3) renders, and the same plugins as the example."""
    DIR = os.path.join(SRC, 'ci', 'deploy', 'grey-release')

    def load(self, name):
        import yaml
        with open(os.path.join(self.DIR, name)) as f:
            return yaml.safe_load(f)

    def test_only_what_kustomize_2_0_3_knows(self):
        k = self.load('kustomization.yaml')
        self.assertLessEqual(set(k), {'resources', 'bases', 'configMapGenerator',
                                      'patchesStrategicMerge', 'namespace', 'commonLabels'})
        files = k['resources'] + [f for g in k.get('configMapGenerator', []) for f in g['files']]
        for f in files:   # v2.0.3 reads nothing outside the kustomization's directory
            self.assertNotIn('/', f)
            self.assertTrue(os.path.isfile(os.path.join(self.DIR, f)), f)

    def test_same_plugins_as_the_example(self):
        name = 'grey-release-new-config.yaml'
        with open(os.path.join(self.DIR, name)) as a, \
                open(os.path.join(os.path.dirname(GREY_PLUGINS), name)) as b:
            self.assertEqual(a.read(), b.read(), name)
        self.assertEqual(self.load('plugins.yaml'), yaml_load(GREY_PLUGINS))

    def test_renders_both_plugins_on_the_new_nodes(self):
        import shutil as sh
        import subprocess
        import yaml
        kubectl = sh.which('kubectl')
        if not kubectl:
            self.skipTest('no kubectl here to render the overlay')
        out = subprocess.run([kubectl, 'kustomize', self.DIR], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr)
        docs = {d['kind']: d for d in yaml.safe_load_all(out.stdout)}
        spec = docs['DaemonSet']['spec']['template']['spec']
        self.assertEqual(spec['nodeSelector'], {'mokka.io/virtual-gpus': 'true',
                                                'device-plugin-version': 'new'})
        self.assertIn('--plugins', spec['containers'][0]['command'])
        vol = [v for v in spec['volumes'] if v['name'] == 'grey-release'][0]
        self.assertEqual(vol['configMap']['name'], docs['ConfigMap']['metadata']['name'])
        # the base DaemonSet stays off those nodes
        import yaml as y
        with open(os.path.join(SRC, 'ci', 'deploy', 'mokka-daemonset.yaml')) as f:
            base = [d for d in y.safe_load_all(f) if d and d['kind'] == 'DaemonSet'][0]
        terms = base['spec']['template']['spec']['affinity']['nodeAffinity'][
            'requiredDuringSchedulingIgnoredDuringExecution']['nodeSelectorTerms']
        self.assertIn({'key': 'device-plugin-version', 'operator': 'NotIn', 'values': ['new']},
                      terms[0]['matchExpressions'])


def yaml_load(path):
    import yaml
    with open(path) as f:
        return yaml.safe_load(f)


if __name__ == '__main__':
    unittest.main()
