"""test_deploy_kustomize.py - `kubectl apply -k ci/deploy`: the kustomize
base (ci/deploy/base) and its overlays (ci/deploy/overlays/mig-mixed,
per-node, agent-off, runtime), in the form kubectl 1.20's built-in kustomize
(v2.0.3) renders.

Without a kubectl: the kustomizations use only what v2.0.3 knows and read
no file outside their directory; the universes lint; the per-node
DaemonSet is the base's but for its name, nodes and ConfigMap; the
DaemonSet's header gives its commands in an order that works (the
namespace before the ConfigMap in it; the DaemonSet deleted, and its pods
gone, before the namespace); ci/deploy/mokka-daemonset.yaml and
gpufault-crd.yaml still serve `kubectl apply -f`.

With the rig's kubectl v1.20.2 ($MOKKA_RIG/bin/kubectl; skipped saying so
when MOKKA_RIG is unset): the base renders the namespace first, the CRDs,
RBAC (patch on nodes for GFD's labels, create on events), the ConfigMap
mokka-config from base/gpus.yaml before the DaemonSet, which runs
`mokka run --cluster --gfd --hold` with the pod's name from the downward
API; each overlay changes what it should and nothing else. With the rig's
API server up (https://127.0.0.1:6443), `kubectl apply -k` of the base
succeeds on it (under names of this test's own, on nodes no one labels),
and everything is deleted again."""
import copy
import os
import random
import shutil
import ssl
import subprocess
import tempfile
import unittest
import urllib.request

import yaml

from cli_support import MOKKA, SRC

DEPLOY = os.path.join(SRC, "ci", "deploy")
BASE = os.path.join(DEPLOY, "base")
OVERLAYS = os.path.join(DEPLOY, "overlays")
RIG = os.environ.get("MOKKA_RIG", "")
KUBECTL = os.path.join(RIG, "bin", "kubectl") if RIG else ""
# What the kustomize of kubectl 1.14 to 1.20 (v2.0.3) reads.
V203_KEYS = {"resources", "bases", "configMapGenerator", "generatorOptions", "patchesStrategicMerge",
             "patchesJson6902", "namespace", "namePrefix", "commonLabels"}
DS = "mokka-virtual-gpus"


def load_all(path):
    with open(path) as f:
        return [d for d in yaml.safe_load_all(f) if d]


def by_id(docs):
    """{(kind, name): object}."""
    return {(d["kind"], d["metadata"]["name"]): d for d in docs}


def container(ds):
    return ds["spec"]["template"]["spec"]["containers"][0]


class Files(unittest.TestCase):
    """What holds without a kubectl."""

    def kustomizations(self):
        for d in [DEPLOY, BASE] + [os.path.join(OVERLAYS, o) for o in sorted(os.listdir(OVERLAYS))]:
            yield d, load_all(os.path.join(d, "kustomization.yaml"))[0]

    def test_only_what_kustomize_2_0_3_knows(self):
        for d, k in self.kustomizations():
            self.assertLessEqual(set(k), V203_KEYS, d)
            files = list(k.get("resources", []))
            files += [f.split("=", 1)[-1] for g in k.get("configMapGenerator", []) for f in g["files"]]
            files += [p["path"] for p in k.get("patchesJson6902", [])]
            files += k.get("patchesStrategicMerge", [])
            for f in files:   # v2.0.3 reads no file outside the kustomization's directory
                self.assertNotIn("/", f, d)
                path = os.path.join(d, f)
                self.assertTrue(os.path.isfile(path) and not os.path.islink(path), path)
            for b in k.get("bases", []):
                self.assertTrue(os.path.isfile(os.path.join(d, b, "kustomization.yaml")), (d, b))

    def test_the_universes_lint(self):
        for path in (os.path.join(BASE, "gpus.yaml"), os.path.join(OVERLAYS, "mig-mixed", "gpus.yaml"),
                     os.path.join(OVERLAYS, "per-node", "a100.yaml")):
            p = subprocess.run([MOKKA, "lint", "--strict", path], capture_output=True, text=True,
                               timeout=60)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            with open(path) as f:
                self.assertIn("uuid: auto", f.read(), path)

    def test_apply_f_still_works(self):
        for name in ("mokka-daemonset.yaml", "gpufault-crd.yaml"):
            path = os.path.join(DEPLOY, name)
            self.assertEqual(os.path.realpath(path), os.path.join(os.path.realpath(BASE), name))
        kinds = [d["kind"] for d in load_all(os.path.join(DEPLOY, "mokka-daemonset.yaml"))]
        self.assertEqual(kinds, ["Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding",
                                 "DaemonSet"])

    def header_commands(self):
        with open(os.path.join(BASE, "mokka-daemonset.yaml")) as f:
            return [l[1:].split("#")[0].strip() for l in f
                    if l.startswith("#   kubectl") or l.startswith("#   mokka")]

    def test_the_headers_commands_in_an_order_that_works(self):
        cmds = self.header_commands()
        at = {c: i for i, c in enumerate(cmds)}

        def first(prefix):
            return min(i for c, i in at.items() if c.startswith(prefix))
        # file by file: the namespace exists before the ConfigMap is made in it
        self.assertLess(first("kubectl apply -f ci/deploy/mokka-daemonset.yaml"),
                        first("kubectl create configmap mokka-config"))
        self.assertLess(first("kubectl apply -f ci/deploy/gpufault-crd.yaml"),
                        first("kubectl apply -f ci/deploy/mokka-daemonset.yaml"))
        # uninstall: the DaemonSet, kept until its pods are gone, first; then the rest
        self.assertLess(first("kubectl -n mokka delete daemonset mokka-virtual-gpus "
                              "--cascade=foreground --wait"), first("kubectl delete -k ci/deploy"))
        # every check ends with the suite that needs GFD's labels
        self.assertTrue(any("fixtures/suites/examples/cluster.yaml" in c for c in cmds))
        self.assertTrue(os.path.isfile(os.path.join(SRC, "fixtures", "suites", "examples", "cluster.yaml")))

    def test_per_node_daemonset_is_the_bases_but_for_its_universe(self):
        base = by_id(load_all(os.path.join(BASE, "mokka-daemonset.yaml")))[("DaemonSet", DS)]
        other = load_all(os.path.join(OVERLAYS, "per-node", "daemonset-a100.yaml"))[0]
        want = copy.deepcopy(base)
        want["metadata"]["name"] = DS + "-a100"
        want["spec"]["selector"]["matchLabels"]["app"] = DS + "-a100"
        spec = want["spec"]["template"]["spec"]
        want["spec"]["template"]["metadata"]["labels"]["app"] = DS + "-a100"
        spec["nodeSelector"]["mokka.io/universe"] = "a100"
        terms = spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        terms["nodeSelectorTerms"][0]["matchExpressions"].remove(
            {"key": "mokka.io/universe", "operator": "DoesNotExist"})
        [v for v in spec["volumes"] if v["name"] == "config"][0]["configMap"]["name"] = "mokka-config-a100"
        self.assertEqual(other, want)

    def test_the_commands_options_are_mokka_runs(self):
        ds = by_id(load_all(os.path.join(BASE, "mokka-daemonset.yaml")))[("DaemonSet", DS)]
        p = subprocess.run([MOKKA, "run", "--help"], capture_output=True, text=True, timeout=30)
        for opt in container(ds)["command"][2:] + ["--no-agent"]:
            if opt.startswith("--"):
                self.assertIn(opt, p.stdout)


@unittest.skipUnless(KUBECTL, "MOKKA_RIG is unset: no kubectl v1.20 (the rig's) to render with")
class Render(unittest.TestCase):
    """kubectl 1.20's kustomize renders the base and each overlay."""

    def setUp(self):
        if not os.access(KUBECTL, os.X_OK):
            self.skipTest(f"{KUBECTL} is not built (the rig's setup.sh builds it)")

    def render(self, d):
        p = subprocess.run([KUBECTL, "kustomize", d], capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        return [d for d in yaml.safe_load_all(p.stdout) if d]

    def test_base(self):
        docs = self.render(DEPLOY)
        self.assertEqual(docs, self.render(BASE))
        kinds = [d["kind"] for d in docs]
        self.assertEqual(kinds, ["Namespace", "CustomResourceDefinition", "CustomResourceDefinition",
                                 "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "ConfigMap",
                                 "DaemonSet"])
        objs = by_id(docs)
        self.assertEqual({n for k, n in objs if k == "CustomResourceDefinition"},
                         {"gpufaults.mokka.io", "gpufaultreports.mokka.io"})
        cm = objs[("ConfigMap", "mokka-config")]
        self.assertEqual(cm["metadata"]["namespace"], "mokka")
        with open(os.path.join(BASE, "gpus.yaml")) as f:
            self.assertEqual(cm["data"], {"gpus.yaml": f.read()})
        rules = objs[("ClusterRole", "mokka-node-agent")]["rules"]
        verbs = {(r["apiGroups"][0], res): set(r["verbs"]) for r in rules for res in r["resources"]}
        self.assertLessEqual({"list", "watch", "patch"}, verbs[("", "nodes")])
        self.assertIn("create", verbs[("", "events")])
        c = container(objs[("DaemonSet", DS)])
        self.assertEqual(c["command"][:3], ["mokka", "run", "--cluster"])
        for opt in ("--gfd", "--hold", "--config"):
            self.assertIn(opt, c["command"])
        self.assertEqual(c["args"], ["--", "nvidia-device-plugin"])
        fields = {e["name"]: e["valueFrom"]["fieldRef"]["fieldPath"] for e in c["env"] if "valueFrom" in e}
        self.assertEqual(fields, {"MOKKA_NODE_NAME": "spec.nodeName", "POD_NAME": "metadata.name",
                                  "POD_NAMESPACE": "metadata.namespace", "POD_UID": "metadata.uid"})
        # the live state on the node, for the runtime shim
        self.assertIn({"name": "MOKKA_RUNTIME_DIR", "value": "/run/mokka"}, c["env"])
        self.assertIn({"name": "runtime", "mountPath": "/run/mokka"}, c["volumeMounts"])
        self.assertIn({"name": "runtime", "hostPath": {"path": "/run/mokka", "type": "DirectoryOrCreate"}},
                      objs[("DaemonSet", DS)]["spec"]["template"]["spec"]["volumes"])
        vol = [v for v in objs[("DaemonSet", DS)]["spec"]["template"]["spec"]["volumes"]
               if v["name"] == "config"][0]
        self.assertEqual(vol["configMap"]["name"], "mokka-config")

    def changed(self, overlay):
        """The overlay's objects, and the base's, by id."""
        return by_id(self.render(os.path.join(OVERLAYS, overlay))), by_id(self.render(DEPLOY))

    def test_mig_mixed(self):
        got, base = self.changed("mig-mixed")
        self.assertEqual(set(got), set(base))
        for key in base:
            if key not in (("ConfigMap", "mokka-config"), ("DaemonSet", DS)):
                self.assertEqual(got[key], base[key], key)
        d = os.path.join(OVERLAYS, "mig-mixed")
        with open(os.path.join(d, "gpus.yaml")) as a, open(os.path.join(d, "smoke.yaml")) as b:
            self.assertEqual(got[("ConfigMap", "mokka-config")]["data"],
                             {"gpus.yaml": a.read(), "smoke.yaml": b.read()})
        want = copy.deepcopy(base[("DaemonSet", DS)])
        c = container(want)
        c["command"] += ["--suite", "/etc/mokka/smoke.yaml"]
        c["args"] += ["--mig-strategy=mixed"]
        self.assertEqual(got[("DaemonSet", DS)], want)

    def test_agent_off(self):
        got, base = self.changed("agent-off")
        want = copy.deepcopy(base)
        container(want[("DaemonSet", DS)])["command"].append("--no-agent")
        self.assertEqual(got, want)

    def test_per_node(self):
        got, base = self.changed("per-node")
        self.assertEqual({k: v for k, v in got.items() if k in base}, base)
        added = {k: v for k, v in got.items() if k not in base}
        self.assertEqual(set(added), {("ConfigMap", "mokka-config-a100"), ("DaemonSet", DS + "-a100")})
        with open(os.path.join(OVERLAYS, "per-node", "a100.yaml")) as f:
            self.assertEqual(added[("ConfigMap", "mokka-config-a100")]["data"], {"gpus.yaml": f.read()})
        spec = added[("DaemonSet", DS + "-a100")]["spec"]["template"]["spec"]
        self.assertEqual(spec["nodeSelector"], {"mokka.io/virtual-gpus": "true", "mokka.io/universe": "a100"})
        self.assertEqual([v for v in spec["volumes"] if v["name"] == "config"][0]["configMap"]["name"],
                         "mokka-config-a100")
        # the base's DaemonSet stays off the nodes of other universes
        terms = base[("DaemonSet", DS)]["spec"]["template"]["spec"]["affinity"]["nodeAffinity"][
            "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
        self.assertIn({"key": "mokka.io/universe", "operator": "DoesNotExist"}, terms[0]["matchExpressions"])

    def test_runtime(self):
        """The base, the RuntimeClass (ci/deploy/runtimeclass.yaml's copy) and
        an init container that installs the shim from the node's / at /host."""
        got, base = self.changed("runtime")
        self.assertEqual({k: v for k, v in got.items() if k in base and k != ("DaemonSet", DS)},
                         {k: v for k, v in base.items() if k != ("DaemonSet", DS)})
        self.assertEqual(set(got) - set(base), {("RuntimeClass", "mokka")})
        self.assertEqual(got[("RuntimeClass", "mokka")], load_all(os.path.join(DEPLOY, "runtimeclass.yaml"))[0])
        spec = got[("DaemonSet", DS)]["spec"]["template"]["spec"]
        want = copy.deepcopy(base[("DaemonSet", DS)]["spec"]["template"]["spec"])
        self.assertEqual(spec["containers"], want["containers"])
        self.assertTrue(spec["hostPID"])
        [init] = spec["initContainers"]
        self.assertIn("mokka container-runtime install --host-root /host", init["args"][0])
        self.assertEqual(init["volumeMounts"], [{"name": "host-root", "mountPath": "/host"}])
        self.assertIn({"name": "host-root", "hostPath": {"path": "/"}}, spec["volumes"])
        self.assertEqual({e["name"] for e in init["env"]}, {"CONTAINERD_CONFIG", "RESTART_CONTAINERD"})

    def test_grey_release_still_renders(self):
        objs = by_id(self.render(os.path.join(DEPLOY, "grey-release")))
        self.assertIn(("DaemonSet", "mokka-grey-release"), objs)


def rig_up():
    ctx = ssl.create_default_context()
    ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
    try:
        with urllib.request.urlopen("https://127.0.0.1:6443/healthz", context=ctx, timeout=3) as r:
            return r.read() == b"ok"
    except OSError:
        return False


@unittest.skipUnless(KUBECTL, "MOKKA_RIG is unset: no rig to apply to")
class ApplyOnTheRig(unittest.TestCase):
    """`kubectl apply -k` of the base on the rig's real API server. The rig
    is shared: the objects get names of this test's own (namePrefix, the
    namespace) and the DaemonSet a node label no node has, so that no pod
    of it runs; the CRDs are left as they were found."""

    def setUp(self):
        self.kc = os.path.join(RIG, "apiserver", "kubeconfig-token.yaml")
        if not os.access(KUBECTL, os.X_OK) or not os.path.isfile(self.kc):
            self.skipTest(f"the rig has no {KUBECTL} or {self.kc}")
        if not rig_up():
            self.skipTest("the rig's API server is not up (https://127.0.0.1:6443/healthz)")
        self.tag = "dkt%05d" % random.randrange(100000)
        self.dir = tempfile.mkdtemp(prefix="mokka-kustomize-")
        self.addCleanup(shutil.rmtree, self.dir, True)

    def kubectl(self, *args, check=True):
        p = subprocess.run([KUBECTL, "--kubeconfig", self.kc, *args], capture_output=True, text=True,
                           timeout=120)
        if check:
            self.assertEqual(p.returncode, 0, f"kubectl {' '.join(args)}: {p.stdout}{p.stderr}")
        return p

    def test_apply_k(self):
        ns = f"{self.tag}-mokka"
        with open(os.path.join(self.dir, "kustomization.yaml"), "w") as f:
            yaml.safe_dump({"bases": [os.path.relpath(DEPLOY, self.dir)], "namePrefix": self.tag + "-",
                            "namespace": ns, "patchesStrategicMerge": ["nowhere.yaml"]}, f)
        with open(os.path.join(self.dir, "nowhere.yaml"), "w") as f:
            yaml.safe_dump({"apiVersion": "apps/v1", "kind": "DaemonSet",
                            "metadata": {"name": DS, "namespace": "mokka"},
                            "spec": {"template": {"spec": {"nodeSelector": {
                                f"mokka.io/{self.tag}-never": "true"}}}}}, f)
        crds_before = self.kubectl("get", "crd", "gpufaults.mokka.io", "gpufaultreports.mokka.io",
                                   check=False).returncode == 0
        self.addCleanup(self.cleanup, ns, crds_before)
        p = self.kubectl("apply", "-k", self.dir)
        self.assertNotIn("rror", p.stderr)
        self.assertIn(f"namespace/{ns} created", p.stdout)
        self.assertIn(f"configmap/{self.tag}-mokka-config created", p.stdout)
        self.assertIn(f"daemonset.apps/{self.tag}-{DS} created", p.stdout)
        got = self.kubectl("-n", ns, "get", "configmap", f"{self.tag}-mokka-config", "-o",
                           "jsonpath={.data.gpus\\.yaml}").stdout
        with open(os.path.join(BASE, "gpus.yaml")) as f:
            self.assertEqual(got, f.read())
        # a second apply changes nothing
        again = self.kubectl("apply", "-k", self.dir).stdout
        self.assertNotIn("created", again)
        # the header's first uninstall step, as written (no pod to wait for here)
        self.kubectl("-n", ns, "delete", "daemonset", f"{self.tag}-{DS}", "--cascade=foreground",
                     "--wait", "--timeout=2m")
        self.assertNotEqual(self.kubectl("-n", ns, "get", "daemonset", f"{self.tag}-{DS}",
                                         check=False).returncode, 0)

    def cleanup(self, ns, crds_before):
        self.kubectl("delete", "namespace", ns, "--wait=false", check=False)
        self.kubectl("delete", "clusterrolebinding,clusterrole", f"{self.tag}-mokka-node-agent",
                     check=False)
        if not crds_before:
            self.kubectl("delete", "crd", "gpufaults.mokka.io", "gpufaultreports.mokka.io",
                         "--wait=false", check=False)


if __name__ == "__main__":
    unittest.main()
