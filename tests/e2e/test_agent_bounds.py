"""test_agent_bounds.py - one `mokka agent` under 10,000 GPUFaults (made
and deleted on the stand-in API server directly): its GPUFaultReport stays
within the agent's bound (it was 1.44 MB, near the 1.5 MiB etcd stores for
one object) with the newest faults in it and a count of those left out, and
once the faults are deleted its memory goes back near where it started (it
stayed at 108 MiB: freed, but kept by malloc). The agent exits 0, which
under ASan (make asan) is also the leak check."""
import json
import os
import time
import unittest

from agentfleet import GROUP, FleetCase
from cli_support import SAN
from kubetest import SLOW

FAULTS = 5000 if SAN else 10000     # either is more than the bound holds (about 3,500)
BOUND = 524288      # MK_FREPORT_MAX_BYTES (src/fault/agentreport.h)
NODE = "gpu-a"


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmRSS for {pid}")


class ManyFaults(FleetCase):
    NODES = {NODE: {"pool": "main"}}

    def report(self):
        return self.fleet.report(NODE)["status"]

    def wait(self, what, pred, timeout=120):
        deadline = time.time() + timeout * SLOW
        while not pred():
            if time.time() > deadline:
                raise AssertionError(f"{what} after {timeout * SLOW} s; report: "
                                     f"{json.dumps(self.report())[:2000]}; log: "
                                     f"{self.fleet.log(NODE)[-2000:]}")
            time.sleep(0.5)     # each look copies a report of 0.5 MB

    def test_ten_thousand_faults(self):
        self.fleet.start()
        pid = self.fleet.procs[NODE].pid
        idle = rss_mib(pid)
        names = [f"f{i:05d}" for i in range(FAULTS)]
        for i, n in enumerate(names):
            self.srv.create_object("gpufaults", {
                "apiVersion": GROUP, "kind": "GPUFault", "metadata": {"name": n},
                "spec": {"nodes": {}, "gpus": [i % 8], "fault": {"xid": 79}}})

        def listed():
            return {e["name"]: e["phase"] for e in self.report().get("faults", [])}
        self.wait("the newest fault is not reported Applied", lambda: listed().get(names[-1]) == "Applied")
        rep = self.report()
        size = len(json.dumps(rep, separators=(",", ":")))
        got = listed()
        self.assertLessEqual(size, BOUND, "the report's status is over the bound")
        self.assertGreater(len(got), 3000, "the bound is filled, not cut short")
        self.assertEqual(rep.get("faultsDropped"), FAULTS - len(got))
        self.assertEqual(set(got), set(names[FAULTS - len(got):]), "the newest are the ones kept")
        self.assertEqual(set(got.values()), {"Applied"})
        peak = rss_mib(pid)

        for n in names:
            self.srv.delete_object("gpufaults", n)
        self.wait("faults are still Applied", lambda: "Applied" not in listed().values())
        rep = self.report()
        self.assertLessEqual(len(rep["faults"]), 32, "what ended is the newest 32 (MK_FR_HISTORY)")
        self.assertEqual(set(listed().values()), {"Cleared"})
        self.assertEqual(rep["faultsDropped"], 0)
        if not SAN:     # ASan's allocator keeps what is freed in its quarantine
            bound = idle + (peak - idle) / 2
            deadline = time.time() + 30
            while rss_mib(pid) > bound and time.time() < deadline:
                time.sleep(0.2)
            self.assertLess(rss_mib(pid), bound, f"RSS idle {idle:.1f} MiB, with {FAULTS} faults "
                            f"{peak:.1f} MiB, after deleting them {rss_mib(pid):.1f} MiB")
        self.assertEqual(self.fleet.stop(), {NODE: 0}, self.fleet.log(NODE)[-3000:])


if __name__ == "__main__":
    unittest.main()
