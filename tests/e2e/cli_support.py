"""cli_support.py - what the test_cli_*.py modules share: where the build
is, running mokka with a clean environment, a Python that has pynvml, and
temporary directories and processes that are cleaned up even when a test
fails.

Env: MOKKA_BUILD (directory holding mokka and lib/libnvidia-ml.so.1),
MOKKA_SRC (source tree), MOKKA_SAN (asan/tsan when the build is sanitized:
programs built without the sanitizer can load an ASan library only with
ASAN_OPTIONS relaxed, and a TSan library not at all; those tests skip)."""
import os
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get('MOKKA_SRC') or os.path.dirname(os.path.dirname(HERE))
BUILD = os.environ.get('MOKKA_BUILD') or SRC
MOKKA = os.path.join(BUILD, 'mokka')
LIB = os.path.join(BUILD, 'lib', 'libnvidia-ml.so.1')
CONFIGS = os.path.join(SRC, 'fixtures', 'configs')
MIG_MIXED = os.path.join(CONFIGS, 'mig-mixed.yaml')
SEED = os.path.join(CONFIGS, 'seed.yaml')
REAL_NVML = '/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1'
SAN = os.environ.get('MOKKA_SAN', '')
NODE = 'mokka-e2e-node'
# Variables that would put a test's programs on (or off) the mock behind its back
# (NODE_NAME: the node name UUIDs derive from without MOKKA_NODE_NAME).
MOCK_VARS = ('LD_PRELOAD', 'LD_LIBRARY_PATH', 'MOCK_CONFIG_PATH', 'MOKKA_CONFIG',
             'MOKKA_STATE_DIR', 'MOKKA_NODE_NAME', 'NODE_NAME', 'MOKKA_RUNTIME_DIR',
             'MOKKA_KUBELET_DIR')


def pynvml_python():
    """A python3 that can import pynvml, or None."""
    for py in ('/usr/bin/python3', shutil.which('python3')):
        if py and os.path.exists(py) and subprocess.run(
                [py, '-c', 'import pynvml'], stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL).returncode == 0:
            return py
    return None


PYNVML = pynvml_python()


class CliTest(unittest.TestCase):
    """Runs mokka with an environment of its own: no mock variables from the
    caller, state directories and caches under a temporary directory."""

    def setUp(self):
        if not os.access(MOKKA, os.X_OK):
            self.skipTest('%s not built' % MOKKA)
        self.tmp = tempfile.mkdtemp(prefix='mokka-cli-')
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.env = {k: v for k, v in os.environ.items() if k not in MOCK_VARS}
        self.env['MOKKA_RUNTIME_DIR'] = self.path('run')
        self.env['MOKKA_NODE_NAME'] = NODE
        self.env['XDG_CACHE_HOME'] = self.path('cache')
        self.env['MOKKA_KUBELET_DIR'] = self.path('no-kubelet-here')

    def path(self, *parts):
        return os.path.join(self.tmp, *parts)

    def mokka(self, *args, env=None, binary=MOKKA, timeout=60, **kw):
        return subprocess.run([binary] + list(args), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True,
                              env=env or self.env, timeout=timeout, **kw)

    def need_unsanitized_peers(self):
        """Lets ordinary programs load the library. An ASan build can be
        loaded after the fact if ASan neither insists on coming first nor
        reports the host program's own leaks nor turns its signals into reports;
        TSan cannot: skip."""
        if SAN == 'asan':
            self.env['ASAN_OPTIONS'] = 'verify_asan_link_order=0:detect_leaks=0:handle_segv=0'
        elif SAN:
            self.skipTest('the library is built with %s; programs built without it '
                          'cannot load it' % SAN)

    def need_pynvml(self):
        self.need_unsanitized_peers()
        if not PYNVML:
            self.skipTest('no python3 with pynvml (apt install python3-pynvml)')
        return PYNVML

    def usage_error(self, p, *words):
        """Exit 2, nothing on stdout, the problem and a hint on stderr."""
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(p.stdout, '')
        for w in words:
            self.assertIn(w, p.stderr)
        self.assertIn('--help', p.stderr)

    def start(self, args, env=None, ready=None, timeout=20):
        """Starts a process (killed at cleanup). With ready, waits for a line
        on its stdout that starts with it and returns (process, line)."""
        # A session of its own, so that cleanup can kill what it started too.
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                universal_newlines=True, env=env or self.env,
                                start_new_session=True)
        self.addCleanup(stop, proc)
        if not ready:
            return proc
        deadline = time.monotonic() + timeout
        line = proc.stdout.readline()
        while not line.startswith(ready):
            if not line or time.monotonic() > deadline:
                stop(proc)
                self.fail('%s never said %r; stderr: %s' % (args, ready, proc.stderr.read()))
            line = proc.stdout.readline()
        return proc, line.strip()


def stop(proc):
    """Kills proc and everything it started (its process group)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.communicate(timeout=30)


def child_pid(parent, comm=None, timeout=10):
    """The pid of parent's child process (what `mokka exec` started); with
    comm, once that child runs the program of that name (before its exec,
    /proc/PID still shows the parent's copy)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with open('/proc/%d/task/%d/children' % (parent, parent)) as f:
                kids = f.read().split()
            if kids and comm:
                with open('/proc/%s/comm' % kids[0]) as f:
                    if f.read().strip() != comm:
                        kids = []
            if kids:
                return int(kids[0])
        except OSError:
            pass
        time.sleep(0.05)
    raise AssertionError('process %d started no child%s' % (parent, ' ' + comm if comm else ''))
