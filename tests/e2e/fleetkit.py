"""fleetkit.py - what the fleet tests share: `mokka fleet` as a process
(started, waited for until its nodes are registered, stopped by SIGTERM
or SIGKILL) and kubectl against the rig's API server, JSON in and out.

    fl = Fleet(kubeconfig, ["--nodes", "4", "--name", "t1", "--prefix", "t1-"])
    fl.start()                 # returns once "N nodes registered" was said
    ... kubectl(kubeconfig, "get", "nodes", "-l", "mokka.io/fleet=t1")
    fl.stop()                  # SIGTERM; fl.rc, fl.log()
"""
import json
import os
import signal
import subprocess
import tempfile
import time

from cli_support import MOKKA, MOCK_VARS

RIG = os.environ.get("MOKKA_RIG", "")
KUBECTL = os.path.join(RIG, "bin", "kubectl") if RIG else "kubectl"


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in MOCK_VARS}
    env.update(extra)
    return env


def kubectl(kubeconfig, *args, stdin=None, check=True, timeout=60):
    p = subprocess.run([KUBECTL, "--kubeconfig", kubeconfig, *args], input=stdin,
                       capture_output=True, text=True, timeout=timeout)
    if check and p.returncode != 0:
        raise AssertionError("kubectl %s: %s%s" % (" ".join(args), p.stdout, p.stderr))
    return p


def kjson(kubeconfig, *args):
    return json.loads(kubectl(kubeconfig, *args, "-o", "json").stdout)


def apply(kubeconfig, obj):
    kubectl(kubeconfig, "apply", "-f", "-", stdin=json.dumps(obj))


def wait(what, fn, timeout=60, step=0.5):
    """fn() until it returns something true; AssertionError naming `what`."""
    end = time.time() + timeout
    last = None
    while time.time() < end:
        last = fn()
        if last:
            return last
        time.sleep(step)
    raise AssertionError("%s: not within %s s (last: %r)" % (what, timeout, last))


class Fleet:
    def __init__(self, kubeconfig, args, workdir=None):
        self.kubeconfig, self.args = kubeconfig, list(args)
        self.dir = workdir or tempfile.mkdtemp(prefix="mokka-fleet-")
        self.proc, self.rc = None, None
        self.logpath = os.path.join(self.dir, "fleet-%d.log" % time.time_ns())

    def start(self, wait_registered=True, timeout=120):
        self.log_f = open(self.logpath, "w")
        self.proc = subprocess.Popen([MOKKA, "fleet", "--kubeconfig", self.kubeconfig,
                                      "--state-dir", os.path.join(self.dir, "state"), *self.args],
                                     stdout=self.log_f, stderr=subprocess.STDOUT,
                                     env=clean_env())
        if wait_registered:
            wait("mokka fleet registers its nodes (log: %s)" % self.logpath,
                 lambda: "nodes registered in" in self.log() or self.proc.poll() is not None,
                 timeout)
            if self.proc.poll() is not None:
                raise AssertionError("mokka fleet ended (%s):\n%s" % (self.proc.returncode, self.log()))
        return self

    def log(self):
        with open(self.logpath) as f:
            return f.read()

    def wait_exit(self, timeout=60):
        self.rc = self.proc.wait(timeout=timeout)
        self.log_f.close()
        return self.rc

    def stop(self, sig=signal.SIGTERM, timeout=60):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
        return self.wait_exit(timeout) if self.proc else None
