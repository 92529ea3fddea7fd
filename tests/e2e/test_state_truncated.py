"""test_state_truncated.py - a state file truncated while programs use it
(issue 20 item 6): a pynvml program under `mokka exec --state-dir`, asking
from 40 threads (so that counter rows past the first half of the file are
in use), keeps answering from a private copy, exits 0 (not 135, SIGBUS) and
says so once on stderr."""
import os
import subprocess
import sys
import time
import unittest

from mokka_probe import LIB, MOKKA, NODE, CliTest, preload_env, pynvml_python

# Asks from 40 threads until DIR/stop exists and the thread has answered
# after DIR/truncated appeared (so a loaded machine that does not schedule a
# thread within the test's pause cannot fail it); counts those answers and
# prints the fewest.
LOOP = r'''
import os, sys, threading, pynvml
d = sys.argv[1]
pynvml.nvmlInit()
n = pynvml.nvmlDeviceGetCount()
after = [0] * 40
def ask(t):
    while not (after[t] and os.path.exists(os.path.join(d, 'stop'))):
        truncated = os.path.exists(os.path.join(d, 'truncated'))
        for i in range(n):
            h = pynvml.nvmlDeviceGetHandleByIndex(i)
            pynvml.nvmlDeviceGetTemperature(h, pynvml.NVML_TEMPERATURE_GPU)
            pynvml.nvmlDeviceGetMemoryInfo(h)
            pynvml.nvmlDeviceGetUUID(h)
        after[t] += truncated
ts = [threading.Thread(target=ask, args=(t,)) for t in range(40)]
for t in ts: t.start()
print('ready', flush=True)
for t in ts: t.join()
h = pynvml.nvmlDeviceGetHandleByIndex(0)
print('after', min(after), pynvml.nvmlDeviceGetName(h), flush=True)
pynvml.nvmlShutdown()
'''

LINE = ('mokka: live state: %s was truncated while in use (size now %d bytes of %d); this '
        'process goes on from a private copy (mokka stats and inject no longer reach it)\n')


class TruncatedStateTest(CliTest):

    def setUp(self):
        super().setUp()
        if not pynvml_python():
            self.skipTest('no python3 with pynvml')

    def run_truncated(self, fraction):
        d = self.tempdir()
        state = os.path.join(d, 'state')
        env = dict(os.environ, MOKKA_NODE_NAME=NODE, NO_COLOR='1')
        env.pop('MOKKA_STATE_DIR', None)
        if os.environ.get('MOKKA_SAN') == 'asan':   # mokka exec puts the library first
            env['ASAN_OPTIONS'] = 'verify_asan_link_order=0:detect_leaks=0'
        p = subprocess.Popen([MOKKA, 'exec', '--state-dir', d, '--', pynvml_python(), '-c', LOOP, d],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             universal_newlines=True, env=env)
        self.addCleanup(lambda: p.poll() is None and p.kill())
        self.assertEqual(p.stdout.readline(), 'ready\n')
        size = os.path.getsize(state)
        to = size * fraction // 2
        time.sleep(0.2)
        os.truncate(state, to)
        open(os.path.join(d, 'truncated'), 'w').close()
        time.sleep(0.5)
        open(os.path.join(d, 'stop'), 'w').close()
        out, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 0, 'stdout:\n%s\nstderr:\n%s' % (out, err))
        last = out.splitlines()[-1].split(' ', 2)
        self.assertEqual(last[0], 'after')
        self.assertGreater(int(last[1]), 0, out)     # every thread answered after the truncate
        self.assertEqual(last[2], 'NVIDIA A100-SXM4-40GB')
        self.assertEqual(err.count(LINE % (state, to, size)), 1, err)
        self.assertEqual(err.count('mokka: live state:'), 1, err)

    def test_truncated_to_zero(self):
        self.run_truncated(0)

    def test_truncated_to_half(self):
        self.run_truncated(1)

    def test_library_stays_loaded_for_its_handler(self):
        # go-nvml dlcloses the library at nvmlShutdown: the SIGBUS handler
        # must not be left pointing at unmapped code.
        d = self.tempdir()
        code = ('import ctypes, _ctypes, sys\n'
                'lib = ctypes.CDLL(sys.argv[1])\n'
                'assert lib.nvmlInit_v2() == 0 and lib.nvmlShutdown() == 0\n'
                '_ctypes.dlclose(lib._handle)\n'
                'print("libnvidia-ml" in open("/proc/self/maps").read())\n')
        env = dict(os.environ, MOKKA_NODE_NAME=NODE, MOKKA_STATE_DIR=d)
        if os.environ.get('MOKKA_SAN') == 'asan':   # its runtime first (then it stays loaded)
            env.update(preload_env())
        p = subprocess.run([sys.executable, '-c', code, LIB], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
        self.assertEqual((p.returncode, p.stdout), (0, 'True\n'), p.stderr)



if __name__ == '__main__':
    unittest.main()
