"""test_run_exec.py - suite exec steps under `mokka run`, end to end: the
command runs in the GPU-node sandbox on the plugin's universe and live
state (pynvml sees the GPUs, an injected fault, the sandbox's kubelet
directory); `as-allocated: 2` asks the plugin through the built-in kubelet
and the command then sees exactly those 2 GPUs; exit/stdout/stderr
failures say what was seen; the output is in the case's <system-out>; a
command past its timeout fails the case and its whole process group is
killed; `mokka lint` names bad exec keys with file:line:col.

With NVIDIA's real device plugin when env MOKKA_DEVICE_PLUGIN names it: a
MIG device allocated under the mixed strategy shows its parent GPU with only
that MIG device.

Needs the sandbox (root or user namespaces) and, for the pynvml cases, a
python3 with pynvml; skips saying so otherwise."""
import os
import subprocess
import time

from cli_support import MIG_MIXED, MOKKA, PYNVML, SRC
from test_run import REAL, RUN_LIMIT, RunTest

# pynvml in the sandbox: how many GPUs, their UUIDs, and GPU 3's health.
PROBE = r'''
import os, pynvml as N
N.nvmlInit()
n = N.nvmlDeviceGetCount()
print("count", n)
for i in range(n):
    h = N.nvmlDeviceGetHandleByIndex(i)
    line = "gpu %d %s" % (i, N.nvmlDeviceGetUUID(h))
    if N.nvmlDeviceGetMigMode(h)[0] == 1:
        for j in range(N.nvmlDeviceGetMaxMigDeviceCount(h)):
            try:
                m = N.nvmlDeviceGetMigDeviceHandleByIndex(h, j)
            except N.NVMLError:
                break
            line += " mig %s" % N.nvmlDeviceGetUUID(m)
    print(line)
print("visible", os.environ.get("NVIDIA_VISIBLE_DEVICES", "(unset)"))
'''


class ExecSteps(RunTest):

    def probe_file(self):
        path = self.path('probe.py')
        with open(path, 'w') as f:
            f.write(PROBE)
        return path

    def need_pynvml(self):
        if not PYNVML:
            self.skipTest('no python3 with pynvml here (Debian: apt install python3-pynvml)')

    def output(self, r, name):
        out = r.case(name).find('system-out')
        self.assertIsNotNone(out, 'no system-out for %r' % name)
        return out.text

    def test_commands_see_the_universe_and_the_sandbox(self):
        self.need_pynvml()
        suite = '''\
cases:
  - name: every GPU
    exec: {command: [%(py)s, %(probe)s], timeout: 60s}
    expect: {exit: 0, stdout: "/^count 8$/", stderr: ""}
  - name: the sandbox's kubelet directory
    exec: "ls /var/lib/kubelet/device-plugins; echo FOO=$FOO"
    expect: {exit: 0, stdout: "/^nvidia-gpu.sock$/"}
  - name: variables in command and env
    exec: {command: [sh, -c, 'echo "$1 $WHO"', sh, "${uuid.7}"], env: {WHO: "${node}"}}
    expect: {stdout: "${uuid.7} ${node}"}
''' % {'py': PYNVML, 'probe': self.probe_file()}
        r = self.run_mokka('--env', 'FOO=from-run', suite=suite)
        self.assertExit(r, 0)
        self.assertJUnitRules(r)
        out = self.output(r, 'every GPU')
        self.assertIn('--- stdout ---\ncount 8\ngpu 0 GPU-', out)
        self.assertIn('visible (unset)', out)
        self.assertIn('FOO=from-run', self.output(r, "the sandbox's kubelet directory"))

    def test_as_allocated_sees_exactly_its_gpus(self):
        self.need_pynvml()
        suite = '''\
cases:
  - name: two allocated
    exec: {command: [%(py)s, %(probe)s], as-allocated: 2}
    expect: {exit: 0, stdout: "/^count 2$/"}
  - name: the allocated ones, in order
    exec: {command: "%(py)s %(probe)s | grep '^gpu' | cut -d' ' -f3 | paste -sd,", as-allocated: 2}
    expect: {stdout: "${allocated}"}
''' % {'py': PYNVML, 'probe': self.probe_file()}
        r = self.run_mokka(suite=suite)
        self.assertExit(r, 0)
        out = self.output(r, 'two allocated')
        self.assertRegex(out, r'\(as allocated: GPU-[^,]+,GPU-[^,\s]+\)')
        self.assertRegex(out, r'visible GPU-[^,]+,GPU-[^,\s]+\n')

    def test_nvidia_smi_in_the_sandbox(self):
        smi = os.environ.get('MOKKA_NVIDIA_SMI') or '/usr/lib/nvidia/current/nvidia-smi'
        if not os.access(smi, os.X_OK):
            self.skipTest('no nvidia-smi at %s (sh ci/deps.sh installs it)' % smi)
        suite = '''\
cases:
  - name: nvidia-smi lists every GPU
    exec: {command: [%(smi)s, -L], timeout: 30s}
    expect: {exit: 0, stdout: "/GPU 7: NVIDIA A100-SXM4-40GB \\\\(UUID: ${uuid.7}\\\\)/"}
  - name: nvidia-smi -q on the live state
    exec: {command: [%(smi)s, -q, -i, "0"], timeout: 30s}
    expect: {exit: 0, stdout: "/Product Name +: NVIDIA A100-SXM4-40GB/"}
  - name: a container given two GPUs sees two
    exec: {command: "%(smi)s -L | wc -l", as-allocated: 2}
    expect: {exit: 0, stdout: "2"}
  - name: a lost GPU as nvidia-smi shows it
    inject: {gpu: 5, lost: true}
    exec: {command: [%(smi)s, -L]}
    expect: {exit: 15, stdout: "/Unable to determine the device handle for gpu 5: GPU is lost/"}
''' % {'smi': smi}
        r = self.run_mokka(suite=suite)
        self.assertExit(r, 0)
        self.assertIn('GPU 0: NVIDIA A100-SXM4-40GB', self.output(r, 'nvidia-smi lists every GPU'))

    def test_failures_and_timeouts(self):
        pidfile = self.path('bg.pid')
        suite = '''\
cases:
  - name: wrong output
    exec: "echo hello; echo trouble >&2; exit 4"
    expect: {exit: 0, stdout: /bye/, stderr: trouble}
  - name: too slow
    exec: {command: "sleep 300 & echo $! > %s; wait", timeout: 1s}
  - name: not found
    exec: {command: [no-such-command-here]}
    expect: {exit: 127, stderr: "/cannot run no-such-command-here/"}
''' % pidfile
        r = self.run_mokka(suite=suite)
        self.assertExit(r, 1)
        f = r.case('wrong output').find('failure')
        self.assertEqual(f.get('message'), 'the command exited with status 4, expected 0 (and 1 more)')
        self.assertIn("actual:   stdout 'hello'", f.text)
        self.assertIn('--- stdout ---\nhello\n--- stderr ---\ntrouble\n(exit 4 after ',
                      self.output(r, 'wrong output'))
        f = r.case('too slow').find('failure')
        self.assertEqual(f.get('type'), 'timeout')
        self.assertIn('ran past its timeout of 1s and was killed with its process group',
                      f.get('message'))
        with open(pidfile) as p:
            bg = int(p.read())
        deadline = time.monotonic() + 10
        while os.path.exists('/proc/%d' % bg) and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertFalse(os.path.exists('/proc/%d' % bg), 'the background sleep survived')
        self.assertEqual(r.status('not found'), 'pass')

    def test_fault_seen_by_the_command(self):
        self.need_pynvml()
        suite = '''\
cases:
  - name: lost gpu 3
    inject: {gpu: 3, lost: true}
    exec: {command: [%s, -c, "import pynvml as N; N.nvmlInit(); N.nvmlDeviceGetTemperature(N.nvmlDeviceGetHandleByIndex(3), 0)"]}
    expect: {exit: 1, stderr: /GPU is lost/}
''' % PYNVML
        r = self.run_mokka(suite=suite)
        self.assertExit(r, 0)

    def test_example_suite(self):
        self.need_pynvml()
        bin_dir = self.path('bin')
        os.mkdir(bin_dir)
        os.symlink(PYNVML, os.path.join(bin_dir, 'python3'))   # the python3 with pynvml
        env = dict(self.env, PATH=bin_dir + ':' + self.env.get('PATH', '/usr/bin:/bin'))
        argv = self.argv(['--suite', os.path.join(SRC, 'fixtures', 'suites', 'examples',
                                                   'exec.yaml')])
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, env=env, timeout=RUN_LIMIT)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn('PASSED: 4 tests, 4 passed', p.stderr)

    def test_lint_names_bad_exec_keys(self):
        path = self.suite('''\
cases:
  - name: a
    exec: {comand: [ls], timeout: 5}
  - name: b
    expect: {stdout: x}
''', name='bad.yaml')
        p = subprocess.run([MOKKA, 'lint', path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, env=self.env)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("%s:3:11: error: exec needs 'command'" % path, p.stderr)
        self.assertIn("%s:3:12: error: unknown key 'comand' in exec; did you mean 'command'?" % path,
                      p.stderr)
        self.assertIn('%s:3:35: error: exec timeout needs a unit: 5s or 5ms' % path, p.stderr)
        self.assertIn("%s:5:14: error: stdout checks the case's exec, and this case has none" % path,
                      p.stderr)

    def test_real_plugin_mig_device_as_allocated(self):
        if not REAL:
            self.skipTest('MOKKA_DEVICE_PLUGIN does not name the real device plugin')
        self.need_pynvml()
        suite = '''\
cases:
  - name: one 1g.5gb
    exec: {command: [%(py)s, %(probe)s], as-allocated: 1, resource: nvidia.com/mig-1g.5gb}
    expect: {exit: 0, stdout: "/^count 1$/"}
  - name: only that MIG device under its parent
    exec: {command: "%(py)s %(probe)s | grep -c ' mig '", as-allocated: 1, resource: nvidia.com/mig-3g.20gb}
    expect: {stdout: "1"}
''' % {'py': PYNVML, 'probe': self.probe_file()}
        r = self.run_mokka(suite=suite, config=MIG_MIXED, plugin=REAL,
                           plugin_args=['--mig-strategy=mixed'])
        self.assertExit(r, 0)
        self.assertRegex(self.output(r, 'one 1g.5gb'), r'gpu 0 GPU-\S+ mig MIG-\S+\n')
