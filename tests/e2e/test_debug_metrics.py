"""test_debug_metrics.py - `debug: true` in a config: `mokka exec` and
`mokka run` serve the live state's /metrics (the exposition of `mokka
metrics`) on debugListen while they run; a host process that loads the
library without the CLI gets one HTTP thread from the library itself, which
says so in one stderr line, survives nvmlShutdown and dlclose (503 then),
is not started again in a forked child, and is not started at all under the
CLI (MOKKA_CLI). Scraped with curl over loopback;
the text checked by promtool when it is installed (only dcgm-exporter's own
naming may draw lint remarks) and always by the parser of
test_cli_metrics. Before any program called nvmlInit a scrape answers 503;
a port already in use is one warning and the command still runs; without
debug: nothing listens."""
import os
import re
import resource
import select
import shutil
import socket
import subprocess
import sys
import threading
import time
import unittest
import urllib.request

from cli_support import SAN
from mokka_probe import MOKKA, CliTest, preload_env
from test_cli_metrics import DCGM_LINT, PROMTOOL, by_gpu, parse
from test_run import RunTest

CURL = shutil.which('curl')
SERVING = re.compile(r'debug: serving http://(127\.0\.0\.1:\d+)/metrics')
INIT = ('import ctypes, sys, time; n = ctypes.CDLL("libnvidia-ml.so.1"); '
        'assert n.nvmlInit_v2() == 0; print("ready", flush=True); time.sleep(60)')


def config(path, listen='127.0.0.1:0', debug='true'):
    with open(path, 'w') as f:
        f.write('version: 1.0\nprofile: a100-sxm4-40gb\ncount: 2\ndebug: %s\n'
                'debugListen: "%s"\n' % (debug, listen))
    return path


def curl(url):
    """(HTTP status, body) as curl fetched them."""
    p = subprocess.run([CURL, '-s', '-w', '\\n%{http_code}', url], stdout=subprocess.PIPE,
                       universal_newlines=True, timeout=30)
    body, _, code = p.stdout.rpartition('\n')
    return int(code), body


def read_line(stream, pattern, timeout=30):
    """The first line of stream that matches, as a match."""
    deadline = time.monotonic() + timeout
    seen = []
    while time.monotonic() < deadline:
        r, _, _ = select.select([stream], [], [], 0.5)
        if r:
            line = stream.readline()
            if not line:
                break
            seen.append(line)
            m = pattern.search(line)
            if m:
                return m
    raise AssertionError('never saw %s in:\n%s' % (pattern.pattern, ''.join(seen)))


HELD, TRICKLING = 2000, 40


def hold(server, n):
    """n sockets connected to server that never send: connected all at once
    (one by one, the SYNs the full backlog drops cost a second each)."""
    socks, waiting = [], select.poll()
    for _ in range(n):
        s = socket.socket()
        s.setblocking(False)
        s.connect_ex(server)
        socks.append(s)
        waiting.register(s, select.POLLOUT)
    left, deadline = n, time.monotonic() + 20
    while left and time.monotonic() < deadline:
        for fd, _ in waiting.poll(1000):
            waiting.unregister(fd)
            left -= 1
    return socks


def trickle(server, stop):
    """Slowloris: TRICKLING connections that send one byte a second and
    never end their request, connecting again when the server drops one."""
    conns = [None] * TRICKLING
    while not stop.is_set():
        for i, c in enumerate(conns):
            try:
                if c is None:
                    c = conns[i] = socket.create_connection(server, timeout=2)
                c.send(b'G')
            except OSError:
                if c is not None:
                    c.close()
                conns[i] = None
        stop.wait(1)
    for c in conns:
        if c is not None:
            c.close()


class DebugTest(CliTest):

    def setUp(self):
        super().setUp()
        if not CURL:
            self.skipTest('curl is not installed')
        if SAN and SAN != 'asan':
            self.skipTest('the library is built with %s; programs built without it cannot '
                          'load it' % SAN)
        self.dir = self.tempdir()
        # Under ASan, ordinary programs load the instrumented library after
        # the fact (see cli_support.need_unsanitized_peers).
        self.peer_env = dict(os.environ)
        if SAN == 'asan':
            self.peer_env['ASAN_OPTIONS'] = 'verify_asan_link_order=0:detect_leaks=0:handle_segv=0'

    def assertExposition(self, text):
        samples, types = parse(text)
        self.assertEqual(types['DCGM_FI_DEV_GPU_TEMP'], 'gauge')
        self.assertEqual(sorted(by_gpu(samples, 'DCGM_FI_DEV_GPU_TEMP')), [0, 1])
        if PROMTOOL:
            p = subprocess.run([PROMTOOL, 'check', 'metrics'], input=text,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               universal_newlines=True)
            self.assertIn(p.returncode, (0, 3), p.stdout)
            remarks = [l for l in p.stdout.splitlines() if l.strip()]
            self.assertEqual([l for l in remarks if not DCGM_LINT.match(l)], [], p.stdout)

    def exec_mokka(self, cfg, *command):
        p = subprocess.Popen([MOKKA, 'exec', '-c', cfg, '--'] + list(command),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             universal_newlines=True, env=self.peer_env)
        self.addCleanup(lambda: p.poll() is None and p.kill() or p.wait())
        self.addCleanup(p.stdout.close)
        self.addCleanup(p.stderr.close)
        return p

    def test_exec_serves_metrics(self):
        cfg = config(os.path.join(self.dir, 'gpus.yaml'))
        p = self.exec_mokka(cfg, 'sleep', '60')
        url = 'http://%s/metrics' % read_line(p.stderr, SERVING).group(1)
        status, body = curl(url)
        self.assertEqual(status, 503)
        self.assertIn('no program on the mock has called nvmlInit', body)
        self.assertEqual(curl(url.replace('/metrics', '/other'))[0], 404)
        p.kill()

    def test_exec_after_init(self):
        cfg = config(os.path.join(self.dir, 'gpus.yaml'))
        p = self.exec_mokka(cfg, sys.executable, '-c', INIT)
        url = 'http://%s/metrics' % read_line(p.stderr, SERVING).group(1)
        read_line(p.stdout, re.compile('ready'))
        status, body = curl(url)
        self.assertEqual(status, 200, body)
        self.assertExposition(body)

    def test_held_and_trickling_sockets_do_not_keep_a_scrape_out(self):
        # Once the 32 slots went to the first sockets that connected, each for
        # 10 s, and every other connection, a scrape too, was closed unread.
        cfg = config(os.path.join(self.dir, 'gpus.yaml'))
        p = self.exec_mokka(cfg, sys.executable, '-c', INIT)
        addr = read_line(p.stderr, SERVING).group(1)
        read_line(p.stdout, re.compile('ready'))
        host, port = addr.split(':')
        server = (host, int(port))
        need = HELD + TRICKLING + 100
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft < need:
            if hard != resource.RLIM_INFINITY and hard < need:
                self.skipTest('%d file descriptors needed, the hard limit is %d' % (need, hard))
            resource.setrlimit(resource.RLIMIT_NOFILE, (need, hard))
            self.addCleanup(resource.setrlimit, resource.RLIMIT_NOFILE, (soft, hard))
        held = hold(server, HELD)
        self.addCleanup(lambda: [c.close() for c in held])
        stop = threading.Event()
        slow = threading.Thread(target=trickle, args=(server, stop))
        slow.start()
        self.addCleanup(slow.join)
        self.addCleanup(stop.set)
        time.sleep(1.5)   # the trickling sockets are in
        for i in range(3):
            try:
                with urllib.request.urlopen('http://%s/metrics' % addr, timeout=5) as r:
                    status, body = r.status, r.read().decode()
            except OSError as e:
                self.fail('scrape %d among %d held and %d trickling sockets: %s'
                          % (i + 1, len(held), TRICKLING, e))
            self.assertEqual(status, 200)
            self.assertIn('DCGM_FI_DEV_GPU_TEMP{', body)
            time.sleep(1)

    def test_port_in_use_is_a_warning(self):
        s = socket.socket()
        s.bind(('127.0.0.1', 0))
        s.listen(1)
        self.addCleanup(s.close)
        cfg = config(os.path.join(self.dir, 'gpus.yaml'), '127.0.0.1:%d' % s.getsockname()[1])
        p = subprocess.run([MOKKA, 'exec', '-c', cfg, '--', 'true'], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True, timeout=60,
                           env=self.peer_env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stderr.count('\n'), 1, p.stderr)
        self.assertIn('mokka exec: warning: debug: true, but no metrics are served: cannot listen '
                      'on 127.0.0.1:%d' % s.getsockname()[1], p.stderr)

    def test_without_debug_nothing_listens(self):
        cfg = config(os.path.join(self.dir, 'gpus.yaml'), debug='false')
        p = subprocess.run([MOKKA, 'exec', '-c', cfg, '--', 'true'], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True, timeout=60,
                           env=self.peer_env)
        self.assertEqual((p.returncode, p.stderr), (0, ''))


HOST = r'''
import ctypes, _ctypes, os, subprocess, sys
# curl without the preload (ASan's runtime preloaded makes curl hang).
CURL_ENV = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "ASAN_OPTIONS")}
def get(url):
    out = subprocess.run(["curl", "-s", "-w", "\n%{http_code}", url], stdout=subprocess.PIPE,
                         universal_newlines=True, env=CURL_ENV).stdout
    body, _, code = out.rpartition("\n")
    return code, body
lib = ctypes.CDLL("libnvidia-ml.so.1")
assert lib.nvmlInit_v2() == 0
code, body = get(sys.argv[1])
sys.stdout.write(code + "\n" + body + "\n--\n")
assert lib.nvmlShutdown() == 0
_ctypes.dlclose(lib._handle)
print(get(sys.argv[1])[0], flush=True)
pid = os.fork()
if pid == 0:
    os._exit(ctypes.CDLL("libnvidia-ml.so.1").nvmlInit_v2())
print("child", os.waitpid(pid, 0)[1], flush=True)
'''


def free_port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port


class LibraryAlone(DebugTest):

    def host(self, cfg, *extra, **env):
        e = dict(os.environ, MOCK_CONFIG_PATH=cfg, **preload_env())
        e.pop('MOKKA_STATE_DIR', None)
        e.pop('MOKKA_CLI', None)
        e.update(env)
        return subprocess.run([sys.executable, '-c', HOST] + list(extra), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True, env=e, timeout=60)

    def test_one_thread_serves_metrics(self):
        port = free_port()
        cfg = config(os.path.join(self.dir, 'gpus.yaml'), '127.0.0.1:%d' % port)
        p = self.host(cfg, 'http://127.0.0.1:%d/metrics' % port)
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stderr.splitlines()
        self.assertEqual(len(lines), 1, p.stderr)
        self.assertRegex(lines[0], r'^mokka: debug: true: serving http://127\.0\.0\.1:%d/metrics '
                                   r'from process \d+ \(one thread\)$' % port)
        first, _, rest = p.stdout.partition('\n--\n')
        code, _, body = first.partition('\n')
        self.assertEqual(code, '200', p.stdout)
        self.assertExposition(body)
        self.assertEqual(rest.split(), ['503', 'child', '0'])

    def test_port_in_use_is_one_line(self):
        s = socket.socket()
        s.bind(('127.0.0.1', 0))
        s.listen(1)
        self.addCleanup(s.close)
        port = s.getsockname()[1]
        cfg = config(os.path.join(self.dir, 'gpus.yaml'), '127.0.0.1:%d' % port)
        p = self.host(cfg, 'http://127.0.0.1:%d/nothing' % free_port())
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stderr, 'mokka: debug: true, but no metrics are served: cannot '
                                   'listen on 127.0.0.1:%d: Address already in use\n' % port)

    def test_not_under_the_cli(self):
        port = free_port()
        cfg = config(os.path.join(self.dir, 'gpus.yaml'), '127.0.0.1:%d' % port)
        p = self.host(cfg, 'http://127.0.0.1:%d/metrics' % port, MOKKA_CLI='run')
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stderr, '')
        self.assertTrue(p.stdout.startswith('000\n'), p.stdout)   # nothing listened


class RunDebug(RunTest):

    def test_run_serves_metrics(self):
        if not CURL:
            self.skipTest('curl is not installed')
        cfg = config(self.path('gpus.yaml'))
        proc, lines = self.start_mokka(config=cfg, suite='cases:\n  - name: meanwhile\n'
                                                         '    wait: 60s\n')
        self.wait_for_line(proc, lines, "case 1/1 'meanwhile'")
        url = 'http://%s/metrics' % SERVING.search(''.join(lines)).group(1)
        status, body = curl(url)
        self.assertEqual(status, 200, body)
        DebugTest.assertExposition(self, body)
        proc.terminate()
        proc.communicate(timeout=60)


if __name__ == '__main__':
    unittest.main()
