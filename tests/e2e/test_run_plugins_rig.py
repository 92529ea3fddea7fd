"""test_run_plugins_rig.py - the two-plugin scenarios of kubelet v1.20's
device manager, played twice: under `mokka run`'s built-in kubelet and under
the real kubelet v1.20 of the rig (../shared/rig, MOKKA_RIG: etcd, the
apiserver and a kubelet whose device-plugin directory is the real
/var/lib/kubelet/device-plugins). Each scenario's node allocatable must be
the same under both, and what the rules say it is:

  same resource: `old` serves rig.mokka.io/<s> (8 GPUs), then `new` registers
      the same resource from a socket of its own seeing 3 GPUs
      (NVIDIA_VISIBLE_DEVICES=0,1,2): the resource is new's, 3; when new
      exits it is unhealthy, 0 allocatable (old, replaced, does not take it
      back: v1.20 keeps its stream but it is not the endpoint any more).
  same socket: `old` serves rig.mokka.io/<s>-a from s.sock, then `new`
      serves rig.mokka.io/<s>-b from the same path (it unlinks old's file):
      both resources stay, 8 and 3, and the built-in kubelet reports the
      clash naming both.
  a replaced plugin reports: as the first, then GPU 5 (which only old sees)
      is lost: old, replaced but still followed, sends its list and it
      becomes the resource's: 7 allocatable (v1.20's device callback does
      not ask which endpoint sent a list).

BuiltIn runs them under mokka run alone (everywhere); RigCompare under both.
The plugins are the stand-in, run against the rig's kubelet with `mokka exec`
(one live state for both, as under mokka run). Needs root and MOKKA_RIG; skips
saying so otherwise. Prints the numbers it compared."""
import json
import os
import subprocess
import time
import unittest

from cli_support import MOKKA, stop
from rig_support import RIG, rig_down, rig_up
from test_run import FAKE, RunTest

DP_DIR = '/var/lib/kubelet/device-plugins'
NODE = os.environ.get('NODE_NAME', 'rig-node-1')


def rig_missing():
    if not RIG:
        return 'set MOKKA_RIG to the rig ../shared/rig builds (e.g. /var/cache/mokka-rig)'
    if not os.path.isdir(RIG) or not os.access(os.path.join(RIG, 'bin', 'kubelet'), os.X_OK):
        return 'MOKKA_RIG=%s holds no built rig (bin/kubelet): run ../shared/rig/setup.sh' % RIG
    if os.geteuid() != 0:
        return 'the rig runs a kubelet: root only'
    return None


def new_started_late(plugins, path, argv, env):
    """new's command: a wrapper that waits for old's socket."""
    first = [a for a in plugins[0][1] if a.endswith('.sock')][0]
    return later(path, os.path.join(DP_DIR, first), argv, env)


def later(path, wait_for, argv, env=()):
    """A wrapper that starts argv once wait_for (a socket) exists, and a
    second more, so that the other plugin has registered."""
    with open(path, 'w') as f:
        f.write('#!/bin/sh\nwhile [ ! -S %s ]; do sleep 0.1; done\nsleep 1\n%sexec %s\n'
                % (wait_for, ''.join('export %s\n' % e for e in env), ' '.join(argv)))
    os.chmod(path, 0o755)
    return path


class Scenarios:
    """The scenarios, as (plugins, steps). A plugin is (name, args, env); a
    step is (case name, action, node allocatable expected after it), the
    action None (both plugins just run), 'kill-new' (new exits for good) or
    'xid-5' (GPU 5, which only old sees, is lost)."""

    @staticmethod
    def same_resource(s):
        res = 'rig.mokka.io/%s' % s
        return [('old', ['--resource-name', res, '--endpoint', '%s-old.sock' % s], []),
                ('new', ['--resource-name', res, '--endpoint', '%s-new.sock' % s],
                 ['NVIDIA_VISIBLE_DEVICES=0,1,2'])], [
            ('both run', None, {res: 3}),
            ('new exits', 'kill-new', {res: 0})]

    @staticmethod
    def same_socket(s):
        a, b = 'rig.mokka.io/%s-a' % s, 'rig.mokka.io/%s-b' % s
        return [('old', ['--resource-name', a, '--endpoint', '%s.sock' % s], []),
                ('new', ['--resource-name', b, '--endpoint', '%s.sock' % s],
                 ['NVIDIA_VISIBLE_DEVICES=0,1,2'])], [
            ('both run', None, {a: 8, b: 3}),
            ('new exits', 'kill-new', {a: 8, b: 0})]

    @staticmethod
    def replaced_plugin_reports(s):
        # v1.20 never stops a replaced endpoint, and its device callback
        # takes any endpoint's list: old's health news overwrite new's list.
        plugins, steps = Scenarios.same_resource(s)
        res = 'rig.mokka.io/%s' % s
        return plugins, steps[:1] + [('the replaced plugin reports a lost GPU', 'xid-5', {res: 7})]


class BuiltIn(RunTest):
    """The scenarios under mokka run alone: they run everywhere (CI)."""

    # --- mokka run's built-in kubelet --------------------------------------------------

    def under_mokka(self, plugins, steps):
        adds = []
        for name, args, env in plugins:
            if name == 'new':
                cmd = new_started_late(plugins, self.path('new-sandbox.sh'), [FAKE] + args, env)
            else:
                cmd = ' '.join([FAKE] + args)
            adds += ['--add-plugin', '%s=%s' % (name, cmd)]
        # new's arguments, which only its command line has (the [x]y
        # pattern keeps pkill's own shell out of it)
        new_args = ' '.join(plugins[1][1])
        actions = {
            None: '',
            'kill-new': '    exec: {command: [sh, -c, "pkill -TERM -f \'[%s]%s\' || true"]}\n'
                        % (new_args[0], new_args[1:]),
            'xid-5': '    inject: {gpu: 5, xid: 79}\n',
        }
        suite = 'cases:\n'
        for name, action, want in steps:
            suite += '  - name: %s\n%s    within: 30s\n    expect:\n' % (name, actions[action])
            suite += ''.join('      - {resource: %s, allocatable: %d}\n' % kv for kv in want.items())
        # new is stopped by a command in the sandbox; --restart-limit 0 keeps
        # it stopped (its `plugins` case is then an error: the run exits 3)
        return self.run_mokka(*adds, '--restart-limit', '0', plugin=None, suite=suite)

    def check(self, scenario):
        tag = scenario.__name__.replace('_', '')[:8] + str(os.getpid() % 1000)
        plugins, steps = scenario(tag)
        r = self.under_mokka(plugins, steps)
        self.assertEqual({n: r.status(n) for n, _, _ in steps}, {n: 'pass' for n, _, _ in steps},
                         str(r))
        return r

    def test_same_resource(self):
        self.check(Scenarios.same_resource)

    def test_same_socket(self):
        r = self.check(Scenarios.same_socket)
        self.assertIn("both serve from the socket", r.stderr)

    def test_replaced_plugin_reports(self):
        r = self.check(Scenarios.replaced_plugin_reports)
        self.assertIn("warning: plugin 'old' sent rig.mokka.io/", r.stderr)


class RigCompare(BuiltIn):
    """The same scenarios under the real kubelet v1.20 too."""


    @classmethod
    def setUpClass(cls):
        why = rig_missing()
        if why:
            raise unittest.SkipTest(why)
        cls.started = rig_up('apiserver', 'kubelet')
        cls.kubeconfig = os.path.join(RIG, 'apiserver', 'kubeconfig-token.yaml')
        cls.numbers = []

    @classmethod
    def tearDownClass(cls):
        rig_down(cls.started)
        for line in cls.numbers:
            print(line)

    # --- the real kubelet -------------------------------------------------------------

    def allocatable(self, resources):
        out = subprocess.run([os.path.join(RIG, 'bin', 'kubectl'), '--kubeconfig',
                              self.kubeconfig, 'get', 'node', NODE, '-o', 'json'],
                             stdout=subprocess.PIPE, check=True, universal_newlines=True,
                             timeout=60).stdout
        alloc = json.loads(out)['status'].get('allocatable', {})
        return {r: int(alloc.get(r, '0')) for r in resources}

    def wait_allocatable(self, want, timeout=90):
        """The node's allocatable once it equals want (the kubelet updates
        the Node every 10 s), else what it was at the end."""
        deadline = time.monotonic() + timeout
        while True:
            got = self.allocatable(want)
            if got == want or time.monotonic() > deadline:
                return got
            time.sleep(1)

    def under_rig(self, plugins, steps):
        state = self.path('state')
        procs = {}
        for name, args, env in plugins:
            argv = [MOKKA, 'exec', '-s', state, '--', FAKE] + args
            if name == 'new':
                argv = [new_started_late(plugins, self.path('new.sh'), argv, env)]
            procs[name] = subprocess.Popen(argv, env=self.env, stdout=subprocess.DEVNULL,
                                           stderr=subprocess.DEVNULL, start_new_session=True)
            self.addCleanup(stop, procs[name])
        seen = {}
        for name, action, want in steps:
            if action == 'kill-new':
                stop(procs['new'])
            elif action == 'xid-5':
                subprocess.run([MOKKA, 'inject', '--state-dir', state, '--gpu', '5', '--xid',
                                '79'], env=self.env, check=True, timeout=60,
                               stdout=subprocess.DEVNULL)
            seen[name] = self.wait_allocatable(want)
        for p in procs.values():
            stop(p)
        return seen

    def check(self, scenario):
        """Under mokka run, then under the real kubelet: both as expected."""
        tag = scenario.__name__.replace('_', '')[:8] + str(os.getpid() % 1000)
        plugins, steps = scenario(tag)
        r = self.under_mokka(plugins, steps)
        builtin = {n: r.status(n) for n, _, _ in steps}
        real = self.under_rig(plugins, steps)
        want = {n: w for n, _, w in steps}
        self.numbers.append('%s: real kubelet v1.20 %s; built-in kubelet %s; expected %s'
                            % (scenario.__name__, real, builtin, want))
        self.assertEqual(real, want, 'node allocatable under the real kubelet')
        self.assertEqual(builtin, {n: 'pass' for n in want}, str(r))
        return r


if __name__ == '__main__':
    unittest.main()
