"""test_agent_thread.py - the fault agent's three threads (two watches and
the agent thread) under churn, and stopping while they work; these run
under TSan with `make tsan`: faults created and deleted faster than the
agent writes its reports, the node's labels flipping meanwhile, then a
SIGTERM in the middle of it. The end state must be exact, the exit clean."""
import signal
import threading
import time
import unittest

from agentfleet import FleetCase, gpufault


class AgentThreads(FleetCase):
    NODES = {"n1": {"pool": "a"}}

    def fault(self, name, gpu, sel=None):
        return self.srv.create_object("gpufaults", gpufault(
            name, [gpu], {"xid": 31 + gpu}, {"selector": {"matchLabels": sel}} if sel else None))

    def test_churn_then_exact_state(self):
        self.fleet.start(timeout=120)

        def labels():
            for i in range(30):
                self.srv.set_label("n1", "pool", "b" if i % 2 else "a")
            self.srv.set_label("n1", "pool", "a")
        t = threading.Thread(target=labels)
        t.start()
        for round_ in range(5):
            for g in range(8):
                self.fault(f"f{round_}-{g}", g, {"pool": "a"} if g % 2 else None)
            for g in range(8):
                if (round_ + g) % 3:
                    self.srv.delete_object("gpufaults", f"f{round_}-{g}")
        t.join()
        left = {o["metadata"]["uid"] for o in self.srv.objects("gpufaults")}
        for uid in left:
            self.fleet.wait_phase(uid, ["n1"], {"Applied"}, timeout=60)
        want = sorted({int(o["spec"]["gpus"][0]) for o in self.srv.objects("gpufaults")})
        gpus = self.fleet.health("n1")["gpus"]
        self.assertEqual([i for i, g in enumerate(gpus) if g["health"] != "healthy"], want)
        p = self.fleet.procs["n1"]
        # Stop while it works: a burst of changes, then SIGTERM at once.
        for g in range(8):
            self.fault(f"last-{g}", g)
        p.send_signal(signal.SIGTERM)
        self.assertEqual(p.wait(60), 0, self.fleet.log("n1"))
        self.assertNotIn("ThreadSanitizer", self.fleet.log("n1"))
        self.assertNotIn("AddressSanitizer", self.fleet.log("n1"))
        self.assertFalse(self.fleet.report("n1")["status"]["agent"]["running"])


if __name__ == "__main__":
    unittest.main()
