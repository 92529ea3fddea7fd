"""test_cluster_names.py - every option that takes a name which reaches the
API server (inject --clear, --name, --node; agent --node and
MOKKA_NODE_NAME; run --node and MOKKA_NODE_NAME in cluster mode; assert
--node) refuses a name the API does not allow, before any request: exit 2,
the option and the value (escaped) named. Before, `inject --clear
../../../../api/v1/nodes/node-0001` sent GET and DELETE
/api/v1/nodes/node-0001 (libcurl folds "../"), `--clear ''` or `--clear
../gpufaults` a DELETE on the whole GPUFault collection, and `agent --node
../...` PATCHed the Node with its report.

The stand-in API server logs every request it gets; none may come."""
import os
import subprocess

import kubetest
from kubetest import SLOW, SRC

MOKKA = os.path.join(kubetest.BUILD, "mokka")
CRDS = os.path.join(SRC, "ci", "deploy", "gpufault-crd.yaml")
TRAVERSAL = "../../../../api/v1/nodes/node-0001"
# Names no object can have, each a way out of its path segment or a rule
# of the API's names (DNS subdomains) broken; with what the message shows.
BAD = [
    (TRAVERSAL, TRAVERSAL, "it holds '/'"),
    ("../gpufaults", "../gpufaults", "it holds '/'"),
    ("..", "..", "a part is empty or starts or ends with '-'"),
    (".", ".", "a part is empty or starts or ends with '-'"),
    ("#", "#", "it holds '#'"),
    ("x?dryRun=All", "x?dryRun=All", "it holds '?'"),
    ("a%2F..", "a%2F..", "it holds '%'"),
    ("Gpu-1", "Gpu-1", "it holds 'G'"),
    ("-a", "-a", "a part is empty or starts or ends with '-'"),
    ("a" * 254, "a" * 80 + "...", "it has 254 characters"),
    ("x\x1b[31m\n", "x\\x1b[31m\\x0a", "it holds '\\x1b'"),
    ("caf\xe9", "caf\\xc3\\xa9", "it holds '\\xc3'"),
]
SUITE = "suite: s\ncases:\n  - name: ready\n    expect:\n      condition: {type: Ready, status: \"True\"}\n"


class NamesReachNoOtherObject(kubetest.KubeTestCase):
    def setUp(self):
        super().setUp()
        if not os.access(MOKKA, os.X_OK):
            self.skipTest(f"{MOKKA} not built")
        srv = self.server(nodes=("node-0001", "gpu-1"))
        srv.install_crds_file(CRDS)
        for name in ("keep", "other"):
            srv.create_object("gpufaults", {
                "apiVersion": "mokka.io/v1alpha1", "kind": "GPUFault", "metadata": {"name": name},
                "spec": {"nodes": {}, "gpus": [1], "fault": {"xid": 79}}})
        self.kc = self.kubeconfig()
        self.suite = os.path.join(self.dir, "s.yaml")
        with open(self.suite, "w") as f:
            f.write(SUITE)
        self.kubelet = os.path.join(self.dir, "kubelet")
        os.makedirs(self.kubelet, exist_ok=True)

    def mokka(self, args, **env):
        # A refused name ends the command at once; one that is not refused
        # makes an agent or a held run serve until the timeout.
        e = self.env(NO_COLOR="1", MOKKA_RUNTIME_DIR=os.path.join(self.dir, "run"),
                     MOKKA_KUBELET_DIR=self.kubelet, XDG_CACHE_HOME=os.path.join(self.dir, "cache"))
        e.pop("MOKKA_NODE_NAME", None)
        e.update(env)
        try:
            r = subprocess.run([MOKKA, *args], capture_output=True, text=True, env=e,
                               stdin=subprocess.DEVNULL, timeout=8 * SLOW)
            return r.returncode, r.stderr
        except subprocess.TimeoutExpired as x:
            err = x.stderr.decode(errors="replace") if isinstance(x.stderr, bytes) else x.stderr
            return "still running after 8 s", err or ""

    def refused(self, cmd, args, what, kind, shown, why, **env):
        before = len(self.srv.log)
        rc, err = self.mokka([cmd, *args], **env)
        self.assertEqual(rc, 2, err)
        self.assertIn(f"mokka {cmd}: {what}: '{shown}' is not a {kind} name: {why} (a DNS "
                      "subdomain: lower-case letters, digits, '-' and '.', each part starting "
                      "and ending with a letter or digit, 253 at most)", err)
        self.assertNotIn("\x1b", err)
        seen = [f"{e['verb']} {e['path']}" for e in self.srv.log[before:]]
        self.assertEqual(seen, [], "requests reached the API server")

    def each(self, cmd, make_args, what, kind, env_name=None):
        for value, shown, why in BAD:
            with self.subTest(cmd=cmd, option=what, value=value):
                env = {env_name: value} if env_name else {}
                self.refused(cmd, make_args(value), what, kind, shown, why, **env)
        self.assertEqual(sorted(self.srv.nodes), ["gpu-1", "node-0001"])
        self.assertEqual(sorted(o["metadata"]["name"] for o in self.srv.objects("gpufaults")),
                         ["keep", "other"])

    def test_inject_clear(self):
        self.each("inject", lambda v: ["--kubeconfig", self.kc, "--clear", v], "--clear", "GPUFault")

    def test_inject_clear_names_after_the_option(self):
        # Every name is checked before the first request: "keep" stays.
        self.each("inject", lambda v: ["--kubeconfig", self.kc, "--clear", "keep", "--", v],
                  "--clear", "GPUFault")

    def test_inject_clear_empty(self):
        # An empty name was the collection itself: GET listed it, DELETE
        # would be a deletecollection of every GPUFault.
        before = len(self.srv.log)
        rc, err = self.mokka(["inject", "--kubeconfig", self.kc, "--clear", ""])
        self.assertEqual(rc, 2, err)
        self.assertIn("mokka inject: --clear: '' is not a GPUFault name: it is empty", err)
        self.assertEqual(self.srv.log[before:], [])

    def test_inject_name_and_node(self):
        create = ["--kubeconfig", self.kc, "--gpu", "1", "--lost"]
        self.each("inject", lambda v: [*create, "--all-nodes", "--name", v], "--name", "GPUFault")
        self.each("inject", lambda v: [*create, "--node", "gpu-1", "--node", v], "--node", "node")

    def test_agent_node(self):
        self.each("agent", lambda v: ["--kubeconfig", self.kc, "--node", v], "--node", "node")

    def test_agent_node_from_the_environment(self):
        self.each("agent", lambda v: ["--kubeconfig", self.kc], "MOKKA_NODE_NAME", "node",
                  env_name="MOKKA_NODE_NAME")

    def test_run_node_in_cluster_mode(self):
        plugin = os.path.join(kubetest.BUILD, "build", "tests", "fake-device-plugin")
        held = ["--kubeconfig", self.kc, "--suite", self.suite, "--hold", "--", plugin]
        self.each("run", lambda v: ["--node", v, *held], "--node", "node")
        self.each("run", lambda v: held, "MOKKA_NODE_NAME", "node", env_name="MOKKA_NODE_NAME")

    def test_assert_node(self):
        self.each("assert", lambda v: ["--kubeconfig", self.kc, "--suite", self.suite, "--node", v],
                  "--node", "node")

    def test_good_names_still_reach_their_objects(self):
        rc, err = self.mokka(["inject", "--kubeconfig", self.kc, "--clear", "keep"])
        self.assertEqual(rc, 0, err)
        self.assertEqual([f"{e['verb']} {e['path']}" for e in self.srv.log],
                         ["get /apis/mokka.io/v1alpha1/gpufaults/keep",
                          "delete /apis/mokka.io/v1alpha1/gpufaults/keep"])
