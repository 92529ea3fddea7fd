"""test_fleet_thread.py - `mokka fleet`'s threads (workers, leases, timer,
the pods', GPUFaults' and own Nodes' watches, the reconciler) under churn,
against the stand-in API server; these run under TSan with `make tsan`:
pods made, finished and deleted while GPUFaults come and go, node labels
change and a node is deleted by hand, then a SIGTERM in the middle of it.
The end state must be exact and the exit clean (TSan makes a race exit 66)."""
import json
import os
import signal
import threading
import time

import kubetest
from fleetkit import Fleet, wait

GPU = "nvidia.com/gpu"
CRDS = os.path.join(kubetest.SRC, "ci", "deploy", "gpufault-crd.yaml")


def pod(name, node, gpus, annotations=None):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "annotations": annotations or {}},
            "spec": {"nodeName": node, "containers": [
                {"name": "main", "image": "busybox", "resources": {"limits": {GPU: str(gpus)}}}]}}


def gpufault(name, gpu, selector):
    return {"apiVersion": "mokka.io/v1alpha1", "kind": "GPUFault", "metadata": {"name": name},
            "spec": {"nodes": {"selector": {"matchLabels": selector}}, "gpus": [gpu],
                     "fault": {"xid": 79}}}


class FleetThreads(kubetest.KubeTestCase):
    def test_churn_then_exact_state_and_a_clean_stop(self):
        self.server(nodes=())
        self.srv.install_crds_file(CRDS)
        fl = Fleet(self.kubeconfig(), ["--nodes", "8", "--labels", "pool=a"], workdir=self.dir)
        fl.start(timeout=240)
        self.addCleanup(lambda: fl.stop(signal.SIGKILL))

        def pods():
            for i in range(40):
                node = "gpu-node-%04d" % (i % 8)
                self.srv.create_object("pods", pod("p%d" % i, node, 1 + i % 3,
                                                   {"mokka.io/run-time": "1s"} if i % 2 else None),
                                       namespace="default")
                if i % 5 == 4:
                    self.srv.delete_pod("default", "p%d" % (i - 2))

        def faults():
            for r in range(6):
                self.srv.create_object("gpufaults", gpufault("f%d" % r, r % 8, {"pool": "a"}))
                self.srv.set_label("gpu-node-%04d" % r, "pool", "b")
                if r % 2:
                    self.srv.delete_object("gpufaults", "f%d" % (r - 1))
        threads = [threading.Thread(target=pods), threading.Thread(target=faults)]
        for t in threads:
            t.start()
        self.srv.delete_node("gpu-node-0007")
        for t in threads:
            t.join()
        wait("gpu-node-0007 registered again", lambda: "gpu-node-0007" in self.srv.nodes, timeout=120)
        # every pod that is left ended, runs or failed: none waits
        wait("every pod admitted", lambda: all(
            p.get("status", {}).get("phase") in ("Running", "Succeeded", "Failed")
            for p in self.srv.objects("pods")), timeout=120)
        # no device is held by two running pods
        held = {}
        for p in self.srv.objects("pods"):
            if p["status"].get("phase") == "Running":
                for d in json.loads(p["metadata"]["annotations"].get("mokka.io/devices", "{}")).get(GPU, []):
                    self.assertNotIn(d, held, (p["metadata"]["name"], held.get(d)))
                    held[d] = p["metadata"]["name"]
        time.sleep(0.5)
        self.assertEqual(fl.stop(signal.SIGTERM, timeout=120), 0, fl.log()[-3000:])
        self.assertNotIn("ThreadSanitizer", fl.log())
        self.assertEqual(dict(self.srv.nodes), {})


if __name__ == "__main__":
    import unittest
    unittest.main()
