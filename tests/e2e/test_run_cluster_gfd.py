"""test_run_cluster_gfd.py - the DaemonSet's pod, against the stand-in API
server: `mokka run --cluster --gfd` puts gpu-feature-discovery's labels on
the Node object (a merge patch of metadata.labels, with the annotation
mokka.io/gfd-labels naming Mokka's keys), patches again only when a label
other than GFD's timestamp changes, takes off the labels an earlier run
left that GFD no longer writes (and never anyone else's), and takes its
own off when it stops; the header's final `mokka assert` with
fixtures/suites/examples/cluster.yaml then passes on the node. A universe
that does not load ends the pod with its file:line:col error in the log and
in a Warning Event on the pod (reason MokkaBadInput, counted on each
restart), also on the rig's real API server when MOKKA_RIG is set and it is
up. --no-agent holds the plugin without applying GPUFaults.

GFD is the stand-in (build/tests/fake-gfd) and, when env MOKKA_GFD names
it, NVIDIA's gpu-feature-discovery. It runs in a sandbox of its own (cluster
mode gives the plugin the node's real paths): root or user namespaces are
needed, and the tests skip saying so without them."""
import json
import os
import random
import shutil
import subprocess
import tempfile
import time
import unittest

from cli_support import MOKKA, MOCK_VARS, SAN, SRC
from kubetest import SLOW
from test_agent import RUN_ONLY
from test_run_cluster import FAKE, NODE, READY_SUITE, HeldRun, HeldRunCase

FAKE_GFD = os.path.join(os.path.dirname(FAKE), "fake-gfd")
REAL_GFD = os.environ.get("MOKKA_GFD", "")
CLUSTER_SUITE = os.path.join(SRC, "fixtures", "suites", "examples", "cluster.yaml")
OWNED = "mokka.io/gfd-labels"
POD = {"POD_NAME": "mokka-virtual-gpus-x7k2p", "POD_NAMESPACE": "mokka", "POD_UID": "5d3c-pod-uid"}


def sandbox_missing():
    """Why no mount namespace can be made here, or None."""
    if os.geteuid() == 0:
        return None
    try:
        with open("/proc/sys/kernel/unprivileged_userns_clone") as f:
            if f.read().strip() == "0":
                return "no root and no unprivileged user namespaces for GFD's sandbox"
    except OSError:
        pass
    return None


class Run(HeldRun):
    """`mokka run --kubeconfig ... --suite ready.yaml -v ARGS --
    fake-device-plugin` in the background (HeldRun's, with the arguments and
    environment given; no one here takes a GPU out of the stand-in's node,
    so not the cluster smoke suite)."""

    def __init__(self, case, *args, env=None):
        import threading
        self.dir = case.dir
        suite = os.path.join(self.dir, "ready.yaml")
        with open(suite, "w") as f:
            f.write(READY_SUITE)
        kubelet = os.path.join(self.dir, "kubelet")
        os.makedirs(kubelet, exist_ok=True)
        e = {k: v for k, v in case.env().items() if k not in MOCK_VARS and not k.startswith("POD_")}
        e.update(MOKKA_KUBELET_DIR=kubelet, MOKKA_RUNTIME_DIR=os.path.join(self.dir, "run"),
                 XDG_CACHE_HOME=os.path.join(self.dir, "cache"), **(env or {}))
        self.kubelet = kubelet
        self.lines, self.cond = [], threading.Condition()
        san = ["--env", "ASAN_OPTIONS=verify_asan_link_order=0"] if SAN == "asan" else []
        self.p = subprocess.Popen([MOKKA, "run", "--kubeconfig", case.kubeconfig(), "--node", NODE,
                                   "--suite", suite, "-v", *san, *args, "--", FAKE],
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True, env=e)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()


class GfdOnNode(HeldRunCase):
    gfd = FAKE_GFD

    def setUp(self):
        super().setUp()
        if not os.access(self.gfd, os.X_OK):
            self.skipTest(f"{self.gfd} is not built (make testbins)")
        why = sandbox_missing()
        if why:
            self.skipTest(why)
        # cluster.yaml's conditions, and what an earlier run left: a label
        # of Mokka's that GFD no longer writes, and one of someone else's
        self.srv.set_condition(NODE, "DiskPressure", "False")

        def earlier(n):
            n["metadata"]["labels"]["nvidia.com/mig-1g.5gb.count"] = "7"
            n["metadata"]["annotations"][OWNED] = "nvidia.com/gpu.count,nvidia.com/mig-1g.5gb.count"
        self.srv.modify(NODE, earlier)

    def node(self):
        return self.srv.get_object("nodes", NODE)["metadata"]

    def assertLabelled(self, labels, product):
        self.assertEqual(labels["nvidia.com/gpu.product"], product)
        self.assertEqual(labels["nvidia.com/gpu.count"], "8")
        self.assertEqual(labels["nvidia.com/gpu.present"], "true")
        self.assertRegex(labels["nvidia.com/gfd.timestamp"], r"^[0-9]+$")

    def test_labels_on_the_node_then_off(self):
        r = self.run_ = Run(self, "--gfd=" + self.gfd, "--hold")
        r.wait_line("holding the plugin until SIGINT or SIGTERM", timeout=90)
        self.assertIn("labelling the Node", r.text())
        meta = self.node()
        labels = meta["labels"]
        self.assertLabelled(labels, "NVIDIA-A100-SXM4-40GB")
        # the machine from the universe, through GFD's own sandbox
        self.assertEqual(labels["nvidia.com/gpu.machine"], "NVIDIA-DGX-A100")
        self.assertNotIn("nvidia.com/mig-1g.5gb.count", labels)    # an earlier run's, gone
        self.assertEqual(labels["pool"], "canary")                  # not Mokka's: kept
        owned = meta["annotations"][OWNED].split(",")
        self.assertEqual(owned, sorted(owned))
        self.assertIn("nvidia.com/gpu.product", owned)
        self.assertNotIn("pool", owned)
        gfd_keys = {k for k in labels if k.startswith("nvidia.com/") and k != "nvidia.com/gpu.present"}
        self.assertEqual(set(owned) - {"nvidia.com/gpu.present"}, gfd_keys)

        # GFD relabels every second with a new timestamp: no new patch
        patches = len(self.srv.requests("patch", "nodes"))
        time.sleep(3)
        self.assertEqual(len(self.srv.requests("patch", "nodes")), patches)

        # the header's final check passes on the node
        a = subprocess.run([MOKKA, "assert", "--kubeconfig", self.kubeconfig(), "--node", NODE,
                            "--suite", CLUSTER_SUITE], capture_output=True, text=True,
                           env=self.env(), timeout=120 * SLOW)
        self.assertEqual(a.returncode, 0, a.stdout + a.stderr)

        self.assertEqual(r.stop(), 0, r.text()[-3000:])
        self.run_ = None
        # what the DaemonSet's RBAC grants for GFD's labels, exactly
        used = {(e["resource"], e["verb"]) for e in self.srv.requests() if e["resource"] == "nodes"}
        self.assertEqual(used - {("nodes", "list"), ("nodes", "watch")},
                         {x for x in RUN_ONLY if x[0] == "nodes"})
        meta = self.node()
        self.assertEqual({k: v for k, v in meta["labels"].items() if k.startswith("nvidia.com/")}, {})
        self.assertEqual(meta["labels"]["pool"], "canary")
        self.assertNotIn(OWNED, meta.get("annotations", {}))

    def test_a_refused_patch_is_said_and_tried_again(self):
        self.srv.fail_next("patch:nodes", 500, times=100)   # past the client's own retries
        r = self.run_ = Run(self, "--gfd=" + self.gfd, "--hold")
        r.wait_line("warning: cannot label node: PATCH /api/v1/nodes/" + NODE, timeout=60)
        with self.srv.lock:
            self.srv.faults.clear()
        r.wait_line("holding the plugin until SIGINT or SIGTERM", timeout=60)
        self.assertLabelled(self.node()["labels"], "NVIDIA-A100-SXM4-40GB")
        self.assertEqual(r.text().count("warning: cannot label node"), 1, r.text()[-3000:])


class RealGfdOnNode(GfdOnNode):
    """The same with NVIDIA's gpu-feature-discovery."""
    gfd = REAL_GFD or "/MOKKA_GFD-is-unset"

    def setUp(self):
        if not REAL_GFD:
            self.skipTest("set MOKKA_GFD to NVIDIA's gpu-feature-discovery binary to run these")
        if SAN:
            self.skipTest("the library is built with a sanitizer; NVIDIA's GFD was built without it")
        super().setUp()


class BadInput(HeldRunCase):
    def bad_config(self):
        path = os.path.join(self.dir, "gpus.yaml")
        with open(path, "w") as f:
            f.write("version: 1.0\nprofile: a100-sxm4-40gb\ncount: 2\ndevices:\n"
                    "  - {index: 0, pciBusID: nope}\n")
        return path

    def run_bad(self, env):
        r = Run(self, "--config", self.bad_config(), "--hold", env=env)
        r.p.wait(60 * SLOW)
        return r.stop(), r.text()

    def test_the_error_in_the_log_and_in_an_event_on_the_pod(self):
        where = f"{self.dir}/gpus.yaml:5:26: error: pciBusID: 'nope' is not a PCI address"
        rc, text = self.run_bad(POD)
        self.assertEqual(rc, 2, text)
        self.assertIn(where, text)
        self.assertIn("said so in a Warning Event (MokkaBadInput) on pod "
                      "mokka/mokka-virtual-gpus-x7k2p", text)
        events = self.srv.objects("events", "mokka")
        self.assertEqual(len(events), 1, events)
        ev = events[0]
        self.assertEqual((ev["type"], ev["reason"], ev["count"]), ("Warning", "MokkaBadInput", 1))
        self.assertEqual(ev["involvedObject"], {"apiVersion": "v1", "kind": "Pod",
                                                "name": "mokka-virtual-gpus-x7k2p",
                                                "namespace": "mokka", "uid": "5d3c-pod-uid",
                                                "fieldPath": "spec.containers{mokka}"})
        self.assertIn(where, ev["message"])
        self.assertEqual(ev["source"]["component"], "mokka")
        # the pod's next restart counts on the same Event
        rc, text = self.run_bad(POD)
        self.assertEqual(rc, 2, text)
        events = self.srv.objects("events", "mokka")
        self.assertEqual([e["count"] for e in events], [2])
        self.assertIn(where, events[0]["message"])
        # what the DaemonSet's RBAC grants for the Event, exactly
        self.assertEqual({(e["resource"], e["verb"]) for e in self.srv.requests()},
                         {x for x in RUN_ONLY if x[0] == "events"})

    def test_a_long_message_is_cut_at_a_line(self):
        path = os.path.join(self.dir, "gpus.yaml")
        with open(path, "w") as f:
            f.write("version: 1.0\nprofile: a100-sxm4-40gb\ncount: 40\ndevices:\n" +
                    "".join(f"  - {{index: {i}, pciBusID: nope{i}}}\n" for i in range(40)))
        r = Run(self, "--config", path, "--hold", env=POD)
        r.p.wait(60 * SLOW)
        self.assertEqual(r.stop(), 2, r.text())
        msg = self.srv.objects("events", "mokka")[0]["message"]
        self.assertLessEqual(len(msg.encode()), 1024)
        self.assertTrue(msg.endswith(" (more in the pod's log)"), msg)
        self.assertIn(f"{path}:5:", msg)

    def test_outside_a_pod_no_event(self):
        rc, text = self.run_bad({})
        self.assertEqual(rc, 2, text)
        self.assertIn("is not a PCI address", text)
        self.assertEqual(self.srv.objects("events"), [])
        self.assertEqual(self.srv.requests("create", "events"), [])


class NoAgent(HeldRunCase):
    def test_held_without_the_agent(self):
        r = self.run_ = Run(self, "--hold", "--no-agent")
        r.wait_line("holding the plugin until SIGINT or SIGTERM")
        time.sleep(1)
        self.assertNotIn("GPUFaults", r.text())
        self.assertEqual(self.srv.requests(resource="gpufaults"), [])
        self.assertIsNone(self.srv.get_object("gpufaultreports", NODE))
        self.assertEqual(r.stop(), 0, r.text()[-3000:])
        self.run_ = None

    def test_no_agent_needs_a_held_cluster_run(self):
        for args in (["--no-agent"], ["--no-agent", "--hold", "--no-sandbox"]):
            p = subprocess.run([MOKKA, "run", *args, "--", FAKE], capture_output=True, text=True,
                               timeout=30)
            self.assertEqual(p.returncode, 2, p.stderr)
        p = subprocess.run([MOKKA, "run", "--no-agent", "--", FAKE], capture_output=True, text=True,
                           timeout=30)
        self.assertIn("--no-agent needs --hold in cluster mode", p.stderr)


class BadInputOnTheRig(unittest.TestCase):
    """The Event on the rig's real API server (v1.20), which validates it:
    written for a pod of this test's own name in namespace default, then
    deleted. Skipped saying so without the rig."""

    def setUp(self):
        rig = os.environ.get("MOKKA_RIG", "")
        self.kubectl = os.path.join(rig, "bin", "kubectl")
        self.kc = os.path.join(rig, "apiserver", "kubeconfig-token.yaml")
        if not rig:
            self.skipTest("MOKKA_RIG is unset: no real API server to write the Event to")
        if not (os.access(self.kubectl, os.X_OK) and os.path.isfile(self.kc)):
            self.skipTest(f"the rig has no {self.kubectl} or {self.kc}")
        if subprocess.run(["curl", "-sfk", "https://127.0.0.1:6443/healthz"],
                          capture_output=True).returncode:
            self.skipTest("the rig's API server is not up (https://127.0.0.1:6443/healthz)")
        self.dir = tempfile.mkdtemp(prefix="mokka-podevent-")
        self.addCleanup(shutil.rmtree, self.dir, True)

    def test_event_on_the_real_server(self):
        pod = "dkube-bad-input-%05d" % random.randrange(100000)
        name = pod + ".mokkabadinput"
        self.addCleanup(subprocess.run, [self.kubectl, "--kubeconfig", self.kc, "-n", "default",
                                         "delete", "event", name], capture_output=True)
        config = os.path.join(self.dir, "gpus.yaml")
        with open(config, "w") as f:
            f.write("version: 1.0\nprofile: a100-sxm4-40gb\ncount: 2\ndevices:\n"
                    "  - {index: 0, pciBusID: nope}\n")
        env = {k: v for k, v in os.environ.items() if k not in MOCK_VARS and not k.startswith("POD_")}
        env.update(POD_NAME=pod, POD_NAMESPACE="default", POD_UID="0e1f-uid",
                   MOKKA_NODE_NAME="rig-node-1", HOME=self.dir)
        for _ in range(2):
            p = subprocess.run([MOKKA, "run", "--kubeconfig", self.kc, "--config", config, "--hold",
                                "--", FAKE], capture_output=True, text=True, env=env, timeout=60)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("said so in a Warning Event (MokkaBadInput)", p.stderr)
        got = subprocess.run([self.kubectl, "--kubeconfig", self.kc, "-n", "default", "get", "event",
                              name, "-o", "json"], capture_output=True, text=True, timeout=60)
        self.assertEqual(got.returncode, 0, got.stderr)
        ev = json.loads(got.stdout)
        self.assertEqual((ev["type"], ev["reason"], ev["count"]), ("Warning", "MokkaBadInput", 2))
        self.assertEqual(ev["involvedObject"]["name"], pod)
        self.assertEqual(ev["source"], {"component": "mokka", "host": "rig-node-1"})
        self.assertIn(f"{config}:5:26: error: pciBusID", ev["message"])
        # what `kubectl describe pod` lists for the pod: events by its uid
        sel = subprocess.run([self.kubectl, "--kubeconfig", self.kc, "-n", "default", "get", "events",
                              "--field-selector", f"involvedObject.uid=0e1f-uid,involvedObject.name={pod}",
                              "-o", "name"], capture_output=True, text=True, timeout=60)
        self.assertIn(name, sel.stdout)
