"""test_agent_hostile.py - one bad object never stops the fleet: GPUFaults,
GPUFaultReports and Nodes that hold a NUL ("\\u0000") in a string, more
than 250,000 JSON values, more than 4 MiB or an integer beyond 64 bits,
stored as an API server without validation (or with free-text metadata)
would store them. Each such GPUFault is reported Rejected with the reason
while every other fault applies and the agent runs on, through its watch
and through the LIST of a restart; `inject --cluster --list` and `--wait`
skip an unreadable report with a line that names it; `mokka assert` over
nodes reads a NUL annotation and shows it escaped. And a watch whose
stream breaks at once after every 200 backs off instead of re-listing
as fast as the server answers."""
import os
import subprocess
import time

from agentfleet import FleetCase
from agentfleet import gpufault as fault
from cli_support import MOKKA
from kubetest import SLOW, counts

NUL = "\u0000"


def poisoned():
    """name -> (GPUFault, what its Rejected reason says; None: it applies)."""
    wide = fault("wide", [2], {"xid": 79})
    wide["metadata"]["finalizers"] = ["a"] * 260000
    big = fault("big", [3], {"xid": 79})
    big["metadata"]["annotations"] = {"pad": "x" * (5 << 20)}
    note = fault("note", [1], {"xid": 43})
    note["metadata"]["annotations"] = {"note": "before" + NUL + "after"}
    return {
        "wide": (wide, "the object cannot be read: it holds more than 250000 JSON values "
                       "(the limit for one object)"),
        "big": (big, "the object cannot be read: it is over 4 MiB (the limit for one object)"),
        "huge-int": (fault("huge-int", [2 ** 64], {"xid": 79}),
                     "the object cannot be read: it cannot be read (line 1, column"),
        "nul-gpu": (fault("nul-gpu", ["0" + NUL + "x"], {"xid": 79}),
                    "spec.gpus[0]: holds a NUL byte (\\u0000)"),
        "note": (note, None),
    }


class AgentHostileTest(FleetCase):
    NODES = {"gpu-a": {"pool": "canary"}}

    def put_poison(self):
        made = {n: self.srv.put_object("gpufaults", obj) for n, (obj, _) in poisoned().items()}
        good = self.srv.create_object("gpufaults", fault("good", [0], {"xid": 13}))
        return made, good

    def check(self, made, good):
        for n, (_, why) in poisoned().items():
            uid = made[n]["metadata"]["uid"]
            self.fleet.wait_phase(uid, ["gpu-a"], {"Rejected" if why else "Applied"}, timeout=30)
            if why:
                self.assertIn(why, self.fleet.phase("gpu-a", uid)["reason"], n)
        self.fleet.wait_phase(good["metadata"]["uid"], ["gpu-a"], {"Applied"}, timeout=30)
        gpus = self.fleet.health("gpu-a")["gpus"]
        self.assertEqual([g["health"] for g in gpus[:4]], ["xid 13", "xid 43", "healthy", "healthy"])
        self.assertIsNone(self.fleet.procs["gpu-a"].poll(), self.fleet.log("gpu-a")[-2000:])

    def test_poisoned_gpufaults_are_rejected_and_the_rest_applies(self):
        # Through the watch: the objects come as events to a running agent.
        self.fleet.start()
        made, good = self.put_poison()
        self.check(made, good)
        # Through the LIST: an agent (re)started with them already there.
        self.assertEqual(self.fleet.stop(), {"gpu-a": 0})
        self.fleet.start_one("gpu-a")
        self.fleet.wait_reports(["gpu-a"], 60)
        self.check(made, good)
        # Deleting one that cannot be read clears it from the report too.
        self.srv.delete_object("gpufaults", "wide")
        self.fleet.wait_phase(made["wide"]["metadata"]["uid"], ["gpu-a"], {None}, timeout=30)

    def test_poisoned_own_node_keeps_the_agent(self):
        self.srv.modify("gpu-a", lambda n: n["metadata"]["annotations"].update(note="a" + NUL + "b"))
        self.fleet.start()
        f = self.srv.create_object("gpufaults", fault("canary", [4], {"xid": 79},
                                                      {"selector": {"matchLabels": {"pool": "canary"}}}))
        self.fleet.wait_phase(f["metadata"]["uid"], ["gpu-a"], {"Applied"}, timeout=30)
        # Past the bound: the labels last seen still hold.
        self.srv.modify("gpu-a", lambda n: n["metadata"].update(
            finalizers=["a"] * 260000))
        deadline = time.time() + 30 * SLOW
        while "its Node object cannot be read" not in self.fleet.log("gpu-a"):
            self.assertLess(time.time(), deadline, self.fleet.log("gpu-a")[-2000:])
            time.sleep(0.1)
        self.assertIn("node gpu-a: its Node object cannot be read: it holds more than 250000 JSON "
                      "values (the limit for one object); the faults go by the labels last seen",
                      self.fleet.log("gpu-a"))
        self.assertEqual(self.fleet.phase("gpu-a", f["metadata"]["uid"])["phase"], "Applied")
        self.assertIsNone(self.fleet.procs["gpu-a"].poll(), self.fleet.log("gpu-a")[-2000:])
        self.assertEqual(self.fleet.stop(), {"gpu-a": 0})

    def inject(self, *args, timeout=90):
        return subprocess.run([MOKKA, "inject", "--kubeconfig", self.kubeconfig(name="kc-cli"), *args],
                              capture_output=True, text=True, env=self.fleet.env, timeout=timeout)

    def test_poisoned_report_is_skipped_by_list_and_wait(self):
        self.fleet.start()
        report = self.fleet.report("gpu-a")
        for name, meta in (("gpu-y", {"annotations": {"n": NUL}}),
                           ("gpu-z", {"finalizers": ["a"] * 260000})):
            bad = dict(report, metadata=dict(meta, name=name))
            self.srv.put_object("gpufaultreports", bad)
        p = self.inject("--node", "gpu-a", "--gpu", "5", "--xid", "79", "--name", "five", "--wait", "30s")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertRegex(p.stdout, r"GPUFault five: applied on 1 of 1 nodes in")
        self.assertIn("skipped GPUFaultReport 'gpu-z': it holds more than 250000 JSON values (the "
                      "limit for one object); its node counts as running no agent", p.stderr)
        p = self.inject("--list")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertRegex(p.stdout, r"five\s+xid 79\s+5\s+gpu-a\s+1/1")
        self.assertIn("skipped GPUFaultReport 'gpu-z': it holds more than 250000 JSON values", p.stderr)
        # A GPUFault that cannot be read is listed, as invalid.
        self.srv.put_object("gpufaults", poisoned()["huge-int"][0])
        p = self.inject("--list")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertRegex(p.stdout, r"huge-int\s+invalid")

    def test_assert_reads_a_nul_annotation_and_shows_it_escaped(self):
        self.srv.modify("gpu-a", lambda n: n["metadata"]["annotations"].update(note="a" + NUL + "b"))
        self.srv.add_node("gpu-b")
        suite = os.path.join(self.dir, "s.yaml")
        with open(suite, "w") as f:
            f.write("cases:\n  - name: note\n    expect: {annotation: {note: plain}}\n")
        p = subprocess.run([MOKKA, "assert", "--kubeconfig", self.kubeconfig(name="kc-a"), "--suite", suite,
                            "--timeout", "30s"], capture_output=True, text=True, env=self.fleet.env,
                           timeout=60)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("node gpu-a annotation note is 'a\\u0000b', expected", p.stdout + p.stderr)


class WatchBackoffTest(FleetCase):
    """kube-watch against a watch whose every event is refused whole: the
    stream breaks at once after each 200."""
    NODES = {"gpu-1": {}}

    def test_event_that_always_breaks_the_stream_backs_off(self):
        # An event that never ends breaks each stream past the bound; that
        # re-listed and re-watched 94 times in 15 s, each 200 resetting the
        # backoff.
        self.srv.misbehave("watch", "endless_event", times=0)
        rc, out, err = self.run_driver("--kubeconfig", self.kubeconfig(), "--expect-allocatable", "7",
                                       "--timeout", "15", timeout=60)
        self.assertEqual(rc, 1, err)
        c = counts(out)
        self.assertGreaterEqual(c["relists"], 1, out)
        self.assertLessEqual(c["relists"], 12, out)


if __name__ == "__main__":
    import unittest
    unittest.main()
