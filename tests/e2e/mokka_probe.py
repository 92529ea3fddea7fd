"""mokka_probe.py - what the end-to-end tests of lint, render, stats,
metrics, inject, the completions and the man page share: finding the build,
running `mokka`, and a probe program on the mock (pynvml under LD_PRELOAD of
the built library, with its own state directory) that the tests drive line
by line, so that what a real NVML client reads can be compared with what
`mokka stats|metrics|inject` say.

Env: MOKKA_BUILD (the dir with mokka and lib/libnvidia-ml.so.1), MOKKA_SRC."""
import json
import os
import select
import shutil
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get('MOKKA_SRC') or os.path.dirname(os.path.dirname(HERE))
BUILD = os.environ.get('MOKKA_BUILD') or SRC
MOKKA = os.path.join(BUILD, 'mokka')
LIB = os.path.join(BUILD, 'lib', 'libnvidia-ml.so.1')
CONFIGS = os.path.join(SRC, 'fixtures', 'configs')
NODE = 'test-node-1'


def mokka(*args, input=None, env=None, timeout=30):
    """Runs mokka; returns the CompletedProcess (text, stdout and stderr apart)."""
    e = dict(os.environ, MOKKA_NODE_NAME=NODE, NO_COLOR='1')
    e.pop('MOKKA_STATE_DIR', None)
    if env:
        e.update(env)
    return subprocess.run([MOKKA] + list(args), input=input, env=e, timeout=timeout,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)


def need_mokka(test):
    if not os.access(MOKKA, os.X_OK):
        test.skipTest('no mokka binary in %s (set MOKKA_BUILD)' % BUILD)


_pynvml_python = []


def pynvml_python():
    """A python3 that can import pynvml, or None."""
    if not _pynvml_python:
        found = None
        for cand in ('/usr/bin/python3', shutil.which('python3')):
            if cand and subprocess.run([cand, '-c', 'import pynvml'],
                                       stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL).returncode == 0:
                found = cand
                break
        _pynvml_python.append(found)
    return _pynvml_python[0]


# The probe: answers one JSON line per command line.
#   mem I | temp I | power I       -> {"ok": value} or {"err": "..."}
#   register I                      -> registers XID events of GPU I
#   wait MS                         -> {"ok": xid, "gpu": I} or {"err": "Timeout"}
#   unsupported I                   -> {"ok": [C functions that answered NOT_SUPPORTED]}
#   quit
PROBE = r'''
import json, os, sys
import pynvml as n
n.nvmlInit()
hs = [n.nvmlDeviceGetHandleByIndex(i) for i in range(n.nvmlDeviceGetCount())]
es = n.nvmlEventSetCreate()
# What a mock without an implementation answers NOT_SUPPORTED: the test asks
# stats for exactly the ones that did here.
CANDIDATES = [
    ('nvmlDeviceGetTemperature', lambda h: n.nvmlDeviceGetTemperature(h, 0)),
    ('nvmlDeviceGetPowerUsage', n.nvmlDeviceGetPowerUsage),
    ('nvmlDeviceGetPcieReplayCounter', n.nvmlDeviceGetPcieReplayCounter),
    ('nvmlDeviceGetEncoderUtilization', n.nvmlDeviceGetEncoderUtilization),
    ('nvmlDeviceGetFanSpeed', n.nvmlDeviceGetFanSpeed),
    ('nvmlDeviceGetTotalEnergyConsumption', n.nvmlDeviceGetTotalEnergyConsumption),
]
def say(**kw):
    sys.stdout.write(json.dumps(kw) + "\n"); sys.stdout.flush()
say(ready=os.getpid(), count=len(hs))
for line in sys.stdin:
    cmd = line.split()
    if not cmd: continue
    try:
        if cmd[0] == 'quit':
            break
        elif cmd[0] == 'mem':
            m = n.nvmlDeviceGetMemoryInfo(hs[int(cmd[1])])
            say(ok=m.used, total=m.total, free=m.free)
        elif cmd[0] == 'temp':
            say(ok=n.nvmlDeviceGetTemperature(hs[int(cmd[1])], 0))
        elif cmd[0] == 'power':
            say(ok=n.nvmlDeviceGetPowerUsage(hs[int(cmd[1])]))
        elif cmd[0] == 'register':
            n.nvmlDeviceRegisterEvents(hs[int(cmd[1])], n.nvmlEventTypeXidCriticalError, es)
            say(ok=True)
        elif cmd[0] == 'wait':
            e = n.nvmlEventSetWait(es, int(cmd[1]))
            say(ok=e.eventData, gpu=[i for i, h in enumerate(hs)
                                     if n.nvmlDeviceGetIndex(e.device) == i][0])
        elif cmd[0] == 'unsupported':
            out = []
            for name, fn in CANDIDATES:
                try:
                    fn(hs[int(cmd[1])])
                except n.NVMLError_NotSupported:
                    out.append(name)
                except n.NVMLError:
                    pass
            say(ok=out)
        else:
            say(err='unknown command')
    except n.NVMLError as x:
        say(err=str(x))
n.nvmlShutdown()
'''


def preload_env():
    """LD_PRELOAD for a program on the mock; an ASan build (MOKKA_SAN=asan)
    needs the sanitizer runtime loaded first, and Python's own allocations
    are not ours to leak-check."""
    env = {'LD_PRELOAD': LIB}
    if os.environ.get('MOKKA_SAN') == 'asan':
        cc = os.environ.get('CC') or 'cc'
        rt = subprocess.run([cc, '-print-file-name=libasan.so'], stdout=subprocess.PIPE,
                            universal_newlines=True).stdout.strip()
        env['LD_PRELOAD'] = rt + ' ' + LIB
        env['ASAN_OPTIONS'] = 'detect_leaks=0'
    return env


class Probe:
    """A pynvml program on the mock with a fresh state directory (and the
    container view NVIDIA_VISIBLE_DEVICES=visible when given, and the
    variables of CDI devices in extra)."""

    def __init__(self, test, config=None, visible=None, extra=None):
        py = pynvml_python()
        if not py:
            test.skipTest('no python3 with pynvml (install python3-pynvml)')
        if not os.path.exists(LIB):
            test.skipTest('no %s' % LIB)
        self.dir = tempfile.mkdtemp(prefix='mokka-cli-')
        test.addCleanup(shutil.rmtree, self.dir, True)
        self.state_dir = os.path.join(self.dir, 'state')
        env = dict(os.environ, MOKKA_STATE_DIR=self.state_dir, MOKKA_NODE_NAME=NODE,
                   **preload_env())
        env.pop('MOCK_CONFIG_PATH', None)
        env.pop('MOKKA_CONFIG', None)
        env.pop('NVIDIA_VISIBLE_DEVICES', None)
        if config:
            env['MOCK_CONFIG_PATH'] = config
        if visible is not None:
            env['NVIDIA_VISIBLE_DEVICES'] = visible
        env.update(extra or {})
        self.p = subprocess.Popen([py, '-c', PROBE], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  universal_newlines=True, env=env)
        test.addCleanup(self.close)
        hello = self._read(20)
        self.pid = hello['ready']
        self.count = hello['count']

    def _read(self, timeout):
        r, _, _ = select.select([self.p.stdout], [], [], timeout)
        if not r:
            raise AssertionError('the probe did not answer within %ss' % timeout)
        line = self.p.stdout.readline()
        if not line:
            raise AssertionError('the probe ended: ' + self.p.stderr.read())
        return json.loads(line)

    def ask(self, cmd, timeout=20):
        self.p.stdin.write(cmd + '\n')
        self.p.stdin.flush()
        return self._read(timeout)

    def close(self):
        if self.p.poll() is None:
            try:
                self.p.stdin.write('quit\n')
                self.p.stdin.flush()
                self.p.wait(5)
            except (OSError, subprocess.TimeoutExpired):
                self.p.kill()
                self.p.wait()
        for f in (self.p.stdin, self.p.stdout, self.p.stderr):
            f.close()

    def mokka(self, *args, **kw):
        """mokka with --state-dir of this probe appended."""
        return mokka(*(list(args) + ['--state-dir', self.state_dir]), **kw)


class CliTest(unittest.TestCase):
    def setUp(self):
        need_mokka(self)

    def tempdir(self):
        d = tempfile.mkdtemp(prefix='mokka-cli-')
        self.addCleanup(shutil.rmtree, d, True)
        return d

    def write(self, text, name='config.yaml'):
        path = os.path.join(self.tempdir(), name)
        with open(path, 'w') as f:
            f.write(text)
        return path

    def assertExit(self, p, code, msg=None):
        self.assertEqual(p.returncode, code, msg or 'stdout:\n%s\nstderr:\n%s' % (p.stdout, p.stderr))
