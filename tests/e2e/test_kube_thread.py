"""test_kube_thread.py - the API-server client's watch thread under load
and at shutdown (these run under TSan with `make tsan`): readers waking
while the view changes fast, re-lists under way, and closing while the
thread streams, backs off, or waits for a plugin."""
import os
import threading
import time

from kubetest import SLOW, KubeTestCase, counts


class WatchThread(KubeTestCase):
    def test_rapid_changes_one_watch(self):
        self.server(nodes=[f"n{i:02d}" for i in range(20)])
        d = self.start("--kubeconfig", self.kubeconfig(), "--expect-allocatable", "5")
        self.srv.wait_watching()

        def churn():
            for round_ in range(10):
                for i in range(20):
                    self.srv.set_allocatable(f"n{i:02d}", value=6 + round_ % 2)
            for i in range(20):
                self.srv.set_allocatable(f"n{i:02d}", value=5)
        t = threading.Thread(target=churn)
        t.start()
        rc, out, err = d.finish()
        t.join()
        self.assertEqual(rc, 0, err)
        c = counts(out)
        self.assertEqual((c["lists"], c["watches"]), (1, 1))
        self.assertEqual(c["events"], 220)

    def test_relists_while_changing(self):
        self.server(nodes=[f"n{i:02d}" for i in range(5)])
        d = self.start("--kubeconfig", self.kubeconfig(), "--expect-allocatable", "3")
        for k in range(4):
            self.srv.wait_watching(count=k + 1)
            self.srv.gone_event()
            self.srv.set_allocatable(f"n{k:02d}", value=3)
            self.srv.wait_for(lambda: self.srv.counts["list"] >= k + 2, timeout=10 * SLOW)
        self.srv.set_allocatable("n04", value=3)
        rc, out, err = d.finish()
        self.assertEqual(rc, 0, err)
        self.assertEqual(counts(out)["relists"], 4)

    def test_close_during_backoff(self):
        self.server()
        d = self.start("--kubeconfig", self.kubeconfig(), "--expect-allocatable", "9", "--timeout", "1")
        self.srv.wait_watching()
        self.srv.fail_next("any", 500, times=1000)
        self.srv.end_watches()
        rc, out, err = d.finish()
        self.assertEqual(rc, 1, err)
        self.assertLess(d.elapsed, 1.0 + 0.5 * SLOW)

    def test_close_with_plugin_credentials(self):
        script = os.path.join(self.dir, "plugin.sh")
        with open(script, "w") as f:
            f.write("#!/bin/sh\necho '{\"apiVersion\":\"client.authentication.k8s.io/v1beta1\","
                    "\"kind\":\"ExecCredential\",\"status\":{\"token\":\"t-1\"}}'\n")
        os.chmod(script, 0o755)
        self.server(client_certs=False, tokens={"t-1"})
        kc = self.kubeconfig(user={"exec": {"apiVersion": "client.authentication.k8s.io/v1beta1",
                                            "command": script}})
        d = self.start("--kubeconfig", kc, "--expect-allocatable", "7")
        self.srv.wait_watching()
        time.sleep(0.05)
        self.srv.set_allocatable("gpu-1", value=7)
        rc, out, err = d.finish()
        self.assertEqual(rc, 0, err)
        self.assertEqual(counts(out)["credential_loads"], 1)
