"""kubetest.py - what the cluster-mode tests share: the stand-in API server
(tests/standins/fake_apiserver.py), certificates, kubeconfigs, and running
build/tests/kube-watch (found through $MOKKA_BUILD) in the background."""
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get("MOKKA_SRC") or os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SRC, "tests", "standins"))

import fake_apiserver as fa  # noqa: E402

BUILD = os.environ.get("MOKKA_BUILD", SRC)
KUBE_WATCH = os.path.join(BUILD, "build", "tests", "kube-watch")
# Sanitizer builds are slower; timing limits stretch for them.
SLOW = 10 if os.environ.get("MOKKA_SAN") else 1
TOKEN = "mokka-test-token-5f1c9a"


def clean_env(home, **extra):
    """The environment without anything that would pick another cluster or
    send loopback traffic through a proxy."""
    drop = {"KUBECONFIG", "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT", "MOKKA_SA_DIR"}
    env = {k: v for k, v in os.environ.items() if k not in drop and not k.lower().endswith("_proxy")}
    env["HOME"] = home
    env.update(extra)
    return env


class Driver:
    """kube-watch in the background, its output collected line by line."""

    def __init__(self, args, env):
        self.started = time.monotonic()
        self.p = subprocess.Popen([KUBE_WATCH, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True, env=env)
        self.out, self.err, self.q = [], [], queue.Queue()
        self.readers = [threading.Thread(target=self._read, args=(self.p.stdout, self.out, True)),
                        threading.Thread(target=self._read, args=(self.p.stderr, self.err, False))]
        for r in self.readers:
            r.start()

    def _read(self, f, into, announce):
        for line in f:
            into.append(line.rstrip("\n"))
            if announce:
                self.q.put(line.rstrip("\n"))

    def wait_line(self, prefix, timeout=10):
        end = time.monotonic() + timeout * SLOW
        while True:
            try:
                line = self.q.get(timeout=max(end - time.monotonic(), 0.01))
            except queue.Empty:
                raise AssertionError(f"kube-watch printed no '{prefix}' line; stdout: {self.out} "
                                     f"stderr: {self.err}") from None
            if line.startswith(prefix):
                return line

    def finish(self, timeout=30):
        try:
            rc = self.p.wait(timeout * SLOW)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
            raise AssertionError(f"kube-watch did not exit; stdout: {self.out} stderr: {self.err}")
        for r in self.readers:
            r.join()
        self.p.stdout.close()
        self.p.stderr.close()
        self.elapsed = time.monotonic() - self.started
        return rc, "\n".join(self.out), "\n".join(self.err)


def counts(out):
    """The "requests: lists=1 ..." line as a dict."""
    for line in out.splitlines():
        if line.startswith("requests: "):
            return {k: int(v) for k, v in (kv.split("=") for kv in line.split()[1:])}
    raise AssertionError("no requests line in: " + out)


def detected_at(out):
    for line in out.splitlines():
        if line.startswith("ok: "):
            return float(line.rsplit("detected_at=", 1)[1])
    raise AssertionError("no ok line in: " + out)


class KubeTestCase(unittest.TestCase):
    """Certificates once per class; a fresh server and directory per test."""

    # Skips are per test (not per class) so that run.sh's counts add up.
    missing = None if os.access(KUBE_WATCH, os.X_OK) else f"{KUBE_WATCH} not built"
    if not missing and not shutil.which("openssl"):
        missing = "no openssl CLI to make certificates"

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="mokka-kube-")
        if not cls.missing:
            cls.certs = fa.make_certs(os.path.join(cls.tmp, "certs"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def setUp(self):
        if self.missing:
            self.skipTest(self.missing)
        self.dir = tempfile.mkdtemp(dir=self.tmp)
        self.srv = None

    def tearDown(self):
        if self.srv:
            self.srv.stop()

    def server(self, nodes=("gpu-1",), **kw):
        kw.setdefault("tokens", {TOKEN})
        self.srv = fa.FakeAPIServer(self.certs, **kw).start()
        for n in nodes:
            self.srv.add_node(n)
        return self.srv

    def kubeconfig(self, user=None, cluster=None, server=None, name="kubeconfig"):
        if user is None:
            user = {"client-certificate": self.certs["client_cert"], "client-key": self.certs["client_key"]}
        if cluster is None:
            cluster = {"certificate-authority": self.certs["ca"]}
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(fa.kubeconfig(server or self.srv.url, user, cluster))
        return path

    def env(self, **extra):
        return clean_env(self.dir, **extra)

    def start(self, *args, env=None):
        return Driver(list(args), env or self.env())

    def run_driver(self, *args, env=None, timeout=30):
        return self.start(*args, env=env).finish(timeout)
