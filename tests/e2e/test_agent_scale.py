"""test_agent_scale.py - 200 `mokka agent` processes (distinct nodes)
against the stand-in API server on loopback: a GPUFault for 10 % of them
reaches exactly those, one for all reaches all, and deleting both clears
them everywhere; at rest the agents send nothing (watches only). Fewer
agents under a sanitizer build (MOKKA_SAN), whose processes are big."""
import os
import statistics
import time
import unittest

from agentfleet import CRD_FILE, Fleet
from cli_support import MOKKA, SAN
from kubetest import KubeTestCase

AGENTS = int(os.environ.get("MOKKA_SCALE_AGENTS") or (40 if SAN else 200))


class AgentScale(KubeTestCase):

    def setUp(self):
        super().setUp()
        if not os.access(MOKKA, os.X_OK):
            self.skipTest(f"{MOKKA} not built")

    def test_fleet(self):
        nodes = [f"node-{i:04d}" for i in range(AGENTS)]
        canary = set(nodes[::10])
        srv = self.server(nodes=())
        srv.install_crds_file(CRD_FILE)
        for n in nodes:
            srv.add_node(n, labels={"mokka.io/pool": "canary" if n in canary else "main"})
        fleet = Fleet(srv, self.kubeconfig(), self.dir, nodes)
        self.addCleanup(fleet.stop)
        fleet.start(timeout=240)

        few, t0 = fleet.create_fault("canary-xid79", {"selector": {"matchLabels": {"mokka.io/pool": "canary"}}},
                                     [3], {"xid": 79})
        got = fleet.wait_phase(few["metadata"]["uid"], sorted(canary), {"Applied"}, timeout=60)
        self.assertEqual(set(got), canary)
        time.sleep(1)            # the others had time to act, had they wrongly been selected
        for n in nodes:
            if n not in canary:
                self.assertIsNone(fleet.phase(n, few["metadata"]["uid"]), n)
        for n in sorted(canary)[:3] + [nodes[1]]:
            self.assertEqual(fleet.health(n)["gpus"][3]["health"], "xid 79" if n in canary else "healthy", n)

        every, t1 = fleet.create_fault("all-lost", {}, [0], {"lost": True})
        lat = fleet.wait_phase(every["metadata"]["uid"], nodes, {"Applied"}, timeout=120)
        self.assertEqual(len(lat), AGENTS)
        ms = sorted(1000 * (t - t1) for t in lat.values())
        print(f"\n    {AGENTS} agents: created -> applied p50 {statistics.median(ms):.0f} ms, "
              f"max {ms[-1]:.0f} ms", end=" ")

        # At rest: no requests at all for a while (the watches are renewed every 5-10 min).
        n0 = len(srv.log)
        time.sleep(5)
        self.assertEqual(len(srv.log) - n0, 0, [e for e in srv.log[n0:]][:5])

        srv.delete_object("gpufaults", "canary-xid79")
        srv.delete_object("gpufaults", "all-lost")
        fleet.wait_phase(every["metadata"]["uid"], nodes, {"Cleared"}, timeout=120)
        fleet.wait_phase(few["metadata"]["uid"], sorted(canary), {"Cleared"}, timeout=60)
        for n in (nodes[0], nodes[-1]):
            self.assertEqual({g["health"] for g in fleet.health(n)["gpus"]}, {"healthy"}, n)
        codes = fleet.stop()
        self.assertEqual(set(codes.values()), {0}, {n: c for n, c in codes.items() if c})


if __name__ == "__main__":
    unittest.main()
