"""test_fake_apiserver_crd.py - the stand-in API server's custom resources
(tests/standins/fake_apiserver.py): CRDs installed from YAML, the CRUD
verbs, watches, schema validation and pruning, the status subresource and
request counts, as the real API server has them. Raw HTTP over TLS with the
client certificate; no Mokka binary."""
import http.client
import json
import os
import re
import shutil
import ssl
import subprocess
import sys
import tempfile
import time
import unittest

from kubetest import SLOW, SRC, fa

CRDS = """\
apiVersion: v1
kind: ServiceAccount
metadata: {name: mokka-agent, namespace: mokka}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gpufaults.mokka.io}
spec:
  group: mokka.io
  scope: Cluster
  names: {plural: gpufaults, singular: gpufault, kind: GPUFault, listKind: GPUFaultList}
  versions:
  - name: v1alpha1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [fault]
            properties:
              nodes: {type: array, maxItems: 3, items: {type: string, minLength: 1}}
              fault:
                type: object
                required: [xid]
                properties:
                  xid: {type: integer, minimum: 1, maximum: 999}
                  kind: {type: string, enum: [xid, ecc], default: xid}
                  gpu: {x-kubernetes-int-or-string: true}
                  note: {type: string, maxLength: 8, pattern: "^[a-z ]*$"}
              extra: {type: object, x-kubernetes-preserve-unknown-fields: true}
              limits: {type: object, additionalProperties: {type: integer}}
          status:
            type: object
            properties:
              phase: {type: string}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gpufaultreports.mokka.io}
spec:
  group: mokka.io
  scope: Cluster
  names: {plural: gpufaultreports, kind: GPUFaultReport}
  versions:
  - name: v1alpha1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              node: {type: string}
          status:
            type: object
            properties:
              active: {type: array, items: {type: string}}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gpuprobes.mokka.io}
spec:
  group: mokka.io
  scope: Namespaced
  names: {plural: gpuprobes, kind: GPUProbe}
  versions:
  - name: v1alpha1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
"""
API = "/apis/mokka.io/v1alpha1"
FAULTS = API + "/gpufaults"


def fault(name, xid=43, labels=None, **spec):
    meta = {"name": name, "labels": labels} if labels else {"name": name}
    return {"apiVersion": "mokka.io/v1alpha1", "kind": "GPUFault", "metadata": meta,
            "spec": dict({"fault": {"xid": xid}}, **spec)}


class CustomResources(unittest.TestCase):
    """One server for the class; each test has objects of its own names."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="mokka-crd-")
        if not shutil.which("openssl"):
            raise unittest.SkipTest("no openssl CLI to make certificates")
        cls.certs = fa.make_certs(os.path.join(cls.tmp, "certs"))
        cls.crd_file = os.path.join(cls.tmp, "crds.yaml")
        with open(cls.crd_file, "w") as f:
            f.write(CRDS)
        cls.srv = fa.FakeAPIServer(cls.certs).start()
        cls.installed = cls.srv.install_crds_file(cls.crd_file)
        cls.srv.add_node("gpu-1")
        cls.ctx = ssl.create_default_context(cafile=cls.certs["ca"])
        cls.ctx.load_cert_chain(cls.certs["client_cert"], cls.certs["client_key"])

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def conn(self, timeout=5):
        return http.client.HTTPSConnection("127.0.0.1", self.srv.port, context=self.ctx, timeout=timeout)

    def api(self, method, path, body=None, ctype="application/json"):
        c = self.conn()
        c.request(method, path, body=None if body is None else json.dumps(body),
                  headers={"Content-Type": ctype})
        r = c.getresponse()
        out = json.loads(r.read() or b"null")
        c.close()
        return r.status, out

    def ok(self, method, path, body=None, code=200, **kw):
        status, out = self.api(method, path, body, **kw)
        self.assertEqual(status, code, out)
        return out

    def refused(self, method, path, body, code, reason, ctype="application/json"):
        """The Status message of a refused request."""
        status, out = self.api(method, path, body, ctype)
        self.assertEqual((status, out["kind"], out["reason"], out["code"]), (code, "Status", reason, code), out)
        return out["message"]

    def watch(self, query, conns=None):
        """A watch stream; next(events) is the next event (5 s at most). Its
        connection goes into conns, when given, for the caller to close."""
        c = self.conn()
        c.request("GET", query)
        r = c.getresponse()
        self.assertEqual(r.status, 200)
        self.addCleanup(c.close)
        if conns is not None:
            conns.append(c)

        def events():
            while True:
                line = r.readline()
                if not line:
                    return
                yield json.loads(line)
        return events()

    def test_crds_installed_from_yaml(self):
        self.assertEqual(self.installed, ["gpufaults.mokka.io", "gpufaultreports.mokka.io", "gpuprobes.mokka.io"])
        crds = self.ok("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions")
        self.assertEqual(crds["kind"], "CustomResourceDefinitionList")
        self.assertEqual(sorted(c["metadata"]["name"] for c in crds["items"]), sorted(self.installed))
        one = self.ok("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gpufaults.mokka.io")
        self.assertIn({"type": "Established", "status": "True"},
                      [{k: c[k] for k in ("type", "status")} for c in one["status"]["conditions"]])
        # Over HTTP: made, served, deleted (and its objects with it).
        crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
               "metadata": {"name": "widgets.example.com"},
               "spec": {"group": "example.com", "scope": "Cluster", "names": {"plural": "widgets", "kind": "Widget"},
                        "versions": [{"name": "v1", "served": True, "storage": True, "schema": {
                            "openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}]}}
        self.ok("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd, 201)
        self.ok("POST", "/apis/example.com/v1/widgets", {"apiVersion": "example.com/v1", "kind": "Widget",
                                                         "metadata": {"name": "w"}}, 201)
        self.ok("DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com")
        self.refused("GET", "/apis/example.com/v1/widgets", None, 404, "NotFound")
        bad = dict(crd, metadata={"name": "gadgets.example.com"})
        self.assertIn('metadata.name: Invalid value: "gadgets.example.com": must be spec.names.plural+"."+spec.group',
                      self.refused("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", bad, 422, "Invalid"))

    def test_create_get_list_delete(self):
        made = self.ok("POST", FAULTS, fault("c1", labels={"tier": "gold"}), 201)
        meta = made["metadata"]
        self.assertRegex(meta["uid"], r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
        self.assertRegex(meta["creationTimestamp"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
        self.assertEqual(meta["generation"], 1)
        self.assertEqual(made["spec"]["fault"], {"xid": 43, "kind": "xid"})     # the default filled in
        self.assertEqual(self.ok("GET", FAULTS + "/c1"), made)
        self.ok("POST", FAULTS, fault("c2"), 201)
        listed = self.ok("GET", FAULTS)
        self.assertEqual((listed["kind"], listed["apiVersion"]), ("GPUFaultList", "mokka.io/v1alpha1"))
        self.assertGreaterEqual(int(listed["metadata"]["resourceVersion"]), int(meta["resourceVersion"]))
        names = lambda q: [o["metadata"]["name"] for o in self.ok("GET", FAULTS + q)["items"]]  # noqa: E731
        self.assertEqual(names("?fieldSelector=metadata.name%3Dc2"), ["c2"])
        self.assertEqual(names("?labelSelector=tier%3Dgold"), ["c1"])
        self.assertNotIn("c1", names("?labelSelector=tier%21%3Dgold"))
        page = self.ok("GET", FAULTS + "?limit=1")
        self.assertEqual(len(page["items"]), 1)
        self.assertEqual(len(self.ok("GET", FAULTS + "?limit=1&continue=" + page["metadata"]["continue"])["items"]), 1)
        self.assertEqual(self.refused("POST", FAULTS, fault("c1"), 409, "AlreadyExists"),
                         'gpufaults.mokka.io "c1" already exists')
        self.assertEqual(self.ok("DELETE", FAULTS + "/c1")["metadata"]["uid"], meta["uid"])
        self.assertEqual(self.refused("GET", FAULTS + "/c1", None, 404, "NotFound"), 'gpufaults.mokka.io "c1" not found')
        self.refused("DELETE", FAULTS + "/c1", None, 404, "NotFound")

    def test_fan_out_and_hang_up(self):
        """A change reaches every watch of its kind at once, and no watch of
        another kind; a watch whose client hung up ends within seconds."""
        rv, conns = str(self.srv.rv), []
        faults = [self.watch(FAULTS + "?watch=true&resourceVersion=" + rv, conns) for _ in range(50)]
        nodes = [self.watch("/api/v1/nodes?watch=true&fieldSelector=metadata.name%3Dgpu-1&resourceVersion=" + rv,
                            conns) for _ in range(50)]
        self.srv.wait_for(lambda: self.srv.active_watches_of("gpufaults") == 50 and self.srv.active_watches == 50)
        t0 = time.time()
        self.ok("POST", FAULTS, fault("fan1"), 201)
        self.assertEqual({next(w)["object"]["metadata"]["name"] for w in faults}, {"fan1"})
        self.assertLess(time.time() - t0, 2 * SLOW)
        self.srv.set_label("gpu-1", "fan", "out")
        self.assertEqual({(e["type"], e["object"]["kind"]) for e in (next(w) for w in nodes)}, {("MODIFIED", "Node")})
        for c in conns:
            c.close()
        self.srv.wait_for(lambda: self.srv.active_watches_of("gpufaults") == 0 and self.srv.active_watches == 0,
                          timeout=5 * SLOW)

    def test_generate_name(self):
        body = fault("")
        body["metadata"] = {"generateName": "xid-43-"}
        names = {self.ok("POST", FAULTS, body, 201)["metadata"]["name"] for _ in range(3)}
        self.assertEqual(len(names), 3)
        for n in names:
            self.assertRegex(n, r"^xid-43-[a-z0-9]{5}$")
        self.assertIn("metadata.name: Required value: name or generateName is required",
                      self.refused("POST", FAULTS, dict(body, metadata={}), 422, "Invalid"))

    def test_update_conflict_generation(self):
        made = self.ok("POST", FAULTS, fault("u1"), 201)
        stale = made["metadata"]["resourceVersion"]
        made["spec"]["fault"]["xid"] = 48
        v2 = self.ok("PUT", FAULTS + "/u1", made)
        self.assertEqual((v2["metadata"]["generation"], v2["metadata"]["uid"]), (2, made["metadata"]["uid"]))
        self.assertEqual(v2["metadata"]["creationTimestamp"], made["metadata"]["creationTimestamp"])
        self.assertEqual(self.refused("PUT", FAULTS + "/u1", made, 409, "Conflict"),
                         'Operation cannot be fulfilled on gpufaults.mokka.io "u1": the object has been modified; '
                         "please apply your changes to the latest version and try again")
        unversioned = fault("u1", 48)
        self.assertEqual(self.refused("PUT", FAULTS + "/u1", unversioned, 422, "Invalid"),
                         'gpufaults.mokka.io "u1" is invalid: metadata.resourceVersion: Invalid value: 0x0: '
                         "must be specified for an update")
        v2["metadata"]["labels"] = {"seen": "yes"}
        v3 = self.ok("PUT", FAULTS + "/u1", v2)
        self.assertEqual(v3["metadata"]["generation"], 2)           # metadata only
        self.assertNotEqual(v3["metadata"]["resourceVersion"], v2["metadata"]["resourceVersion"])
        self.assertEqual(self.ok("PUT", FAULTS + "/u1", v3), v3)    # no change: no new version
        self.refused("PUT", FAULTS + "/nothere", dict(v3, metadata={"name": "nothere", "resourceVersion": "1"}),
                     404, "NotFound")
        self.assertIn("does not match the name on the URL", self.refused("PUT", FAULTS + "/u2", v3, 400, "BadRequest"))

    def test_patch(self):
        self.ok("POST", FAULTS, fault("p1", nodes=["gpu-1"]), 201)
        merged = self.ok("PATCH", FAULTS + "/p1", {"spec": {"fault": {"xid": 79, "kind": None}, "nodes": ["gpu-2"]}},
                         ctype="application/merge-patch+json")
        self.assertEqual(merged["spec"]["fault"], {"xid": 79, "kind": "xid"})  # removed, defaulted again
        self.assertEqual((merged["spec"]["nodes"], merged["metadata"]["generation"]), (["gpu-2"], 2))
        patched = self.ok("PATCH", FAULTS + "/p1", [{"op": "test", "path": "/spec/fault/xid", "value": 79},
                                                   {"op": "add", "path": "/spec/nodes/-", "value": "gpu-3"},
                                                   {"op": "replace", "path": "/spec/fault/kind", "value": "ecc"}],
                          ctype="application/json-patch+json")
        self.assertEqual((patched["spec"]["nodes"], patched["spec"]["fault"]["kind"]), (["gpu-2", "gpu-3"], "ecc"))
        self.refused("PATCH", FAULTS + "/p1", [{"op": "test", "path": "/spec/fault/xid", "value": 1}], 422,
                     "Invalid", ctype="application/json-patch+json")
        self.refused("PATCH", FAULTS + "/p1", {"metadata": {"resourceVersion": merged["metadata"]["resourceVersion"]}},
                     409, "Conflict", ctype="application/merge-patch+json")
        self.refused("PATCH", FAULTS + "/p1", {"spec": {}}, 415, "UnsupportedMediaType",
                     ctype="application/strategic-merge-patch+json")
        self.assertIn("spec.fault.xid in body should be greater than or equal to 1",
                      self.refused("PATCH", FAULTS + "/p1", {"spec": {"fault": {"xid": 0}}}, 422, "Invalid",
                                   ctype="application/merge-patch+json"))
        self.refused("PATCH", FAULTS + "/p9", {}, 404, "NotFound", ctype="application/merge-patch+json")

    def test_validation_messages(self):
        def message(**spec):
            body = fault("bad")
            body["spec"] = spec
            return self.refused("POST", FAULTS, body, 422, "Invalid")
        self.assertEqual(message(fault={"xid": 0}), 'GPUFault.mokka.io "bad" is invalid: spec.fault.xid: Invalid value: '
                         "0: spec.fault.xid in body should be greater than or equal to 1")
        self.assertEqual(message(fault={"xid": "43"}), 'GPUFault.mokka.io "bad" is invalid: spec.fault.xid: Invalid '
                         'value: "string": spec.fault.xid in body must be of type integer: "string"')
        self.assertEqual(message(fault={}), 'GPUFault.mokka.io "bad" is invalid: spec.fault.xid: Required value')
        self.assertEqual(message(fault={"xid": 1, "kind": "nvlink"}), 'GPUFault.mokka.io "bad" is invalid: '
                         'spec.fault.kind: Unsupported value: "nvlink": supported values: "xid", "ecc"')
        self.assertEqual(message(fault={"xid": 1000, "note": "far too long"}),
                         'GPUFault.mokka.io "bad" is invalid: [spec.fault.xid: Invalid value: 1000: spec.fault.xid in '
                         'body should be less than or equal to 999, spec.fault.note: Too long: may not be longer than 8]')
        self.assertIn("spec.fault.note in body should match '^[a-z ]*$'", message(fault={"xid": 1, "note": "A"}))
        self.assertIn("spec.nodes: Too many: 4: must have at most 3 items", message(fault={"xid": 1}, nodes=list("abcd")))
        self.assertIn("spec.nodes[1]: Invalid value: \"\": spec.nodes[1] in body should be at least 1 chars long",
                      message(fault={"xid": 1}, nodes=["a", ""]))
        self.assertIn("spec.limits.b: Invalid value: \"string\"", message(fault={"xid": 1}, limits={"a": 1, "b": "x"}))
        body = fault("bad")
        self.assertEqual(self.refused("POST", FAULTS, dict(body, apiVersion="mokka.io/v1"), 400, "BadRequest"),
                         "the API version in the data (mokka.io/v1) does not match the expected API version "
                         "(mokka.io/v1alpha1)")
        self.refused("POST", FAULTS, dict(body, kind="GPUFaultReport"), 400, "BadRequest")
        self.assertFalse([o for o in self.srv.objects("gpufaults") if o["metadata"]["name"] == "bad"])

    def test_pruning(self):
        body = fault("pr1", extra={"any": {"thing": [1]}}, limits={"a": 1}, unknown=True)
        body["spec"]["fault"].update(gpu="GPU-0", bogus="x")
        body["top"] = 1
        body["metadata"]["selfish"] = "x"
        made = self.ok("POST", FAULTS, body, 201)
        self.assertEqual(made["spec"], {"fault": {"xid": 43, "kind": "xid", "gpu": "GPU-0"},
                                        "extra": {"any": {"thing": [1]}}, "limits": {"a": 1}})
        self.assertNotIn("top", made)
        self.assertNotIn("selfish", made["metadata"])
        self.assertEqual(self.ok("GET", FAULTS + "/pr1"), made)
        for name, gpu, code in (("pr2", 3, 201), ("pr3", True, 422)):      # int-or-string
            body = fault(name)
            body["spec"]["fault"]["gpu"] = gpu
            status, out = self.api("POST", FAULTS, body)
            self.assertEqual(status, code, out)
        self.assertIn('spec.fault.gpu: Invalid value: "boolean"', out["message"])

    def test_status_subresource(self):
        body = fault("s1")
        body["status"] = {"phase": "Active"}
        made = self.ok("POST", FAULTS, body, 201)
        self.assertNotIn("status", made)                             # create ignores status
        made["status"] = {"phase": "Active", "junk": 1}
        with_status = self.ok("PUT", FAULTS + "/s1/status", dict(made, spec={"fault": {"xid": 99}}))
        self.assertEqual(with_status["status"], {"phase": "Active"})
        self.assertEqual(with_status["spec"]["fault"]["xid"], 43)     # /status changes status only
        self.assertEqual(with_status["metadata"]["generation"], 1)
        with_status["status"] = {"phase": "Cleared"}
        with_status["spec"]["fault"]["xid"] = 44
        main = self.ok("PUT", FAULTS + "/s1", with_status)
        self.assertEqual((main["status"], main["spec"]["fault"]["xid"]), ({"phase": "Active"}, 44))
        self.assertEqual(main["metadata"]["generation"], 2)
        patched = self.ok("PATCH", FAULTS + "/s1/status", {"status": {"phase": "Cleared"}},
                          ctype="application/merge-patch+json")
        self.assertEqual(patched["status"], {"phase": "Cleared"})
        # Without the subresource, status is part of the object and /status is not served.
        report = {"apiVersion": "mokka.io/v1alpha1", "kind": "GPUFaultReport", "metadata": {"name": "gpu-1"},
                  "spec": {"node": "gpu-1"}, "status": {"active": ["s1"]}}
        self.assertEqual(self.ok("POST", API + "/gpufaultreports", report, 201)["status"], {"active": ["s1"]})
        self.refused("PUT", API + "/gpufaultreports/gpu-1/status", report, 404, "NotFound")

    def test_back_door_and_ratcheting(self):
        stored = self.srv.put_object("gpufaults", fault("old1", xid=0))         # an older CRD let it in
        self.assertEqual(self.ok("GET", FAULTS + "/old1")["spec"], {"fault": {"xid": 0}})
        stored["metadata"]["labels"] = {"touched": "yes"}
        self.ok("PUT", FAULTS + "/old1", stored)                    # xid unchanged: let be
        with self.assertRaises(fa.APIError) as e:
            self.srv.create_object("gpufaults", fault("new1", xid=0))
        self.assertEqual(e.exception.code, 422)
        self.assertEqual(self.srv.create_object("gpufaults", fault("new1"))["metadata"]["generation"], 1)
        self.assertEqual(self.srv.get_object("gpufaults", "new1")["spec"]["fault"]["xid"], 43)
        self.assertEqual(self.srv.delete_object("gpufaults", "new1")["metadata"]["name"], "new1")
        self.assertIsNone(self.srv.get_object("gpufaults", "new1"))

    def test_watch_events_and_label_transitions(self):
        rv = self.ok("GET", FAULTS)["metadata"]["resourceVersion"]
        gold = self.watch(FAULTS + "?watch=true&labelSelector=tier%3Dgold&resourceVersion=" + rv)
        every = self.watch(FAULTS + "?watch=true&allowWatchBookmarks=true&resourceVersion=" + rv)
        self.ok("POST", FAULTS, fault("w1"), 201)
        merge = {"ctype": "application/merge-patch+json"}
        self.ok("PATCH", FAULTS + "/w1", {"metadata": {"labels": {"tier": "gold"}}}, **merge)
        self.ok("PATCH", FAULTS + "/w1", {"spec": {"fault": {"xid": 31}}}, **merge)
        self.ok("PATCH", FAULTS + "/w1", {"metadata": {"labels": {"tier": "lead"}}}, **merge)
        self.ok("PATCH", FAULTS + "/w1", {"metadata": {"labels": {"tier": "gold"}}}, **merge)
        last = self.ok("DELETE", FAULTS + "/w1")
        self.assertEqual([(e["type"], e["object"]["metadata"].get("labels", {}).get("tier")) for e in
                          (next(gold) for _ in range(5))],
                         [("ADDED", "gold"), ("MODIFIED", "gold"), ("DELETED", "lead"), ("ADDED", "gold"),
                          ("DELETED", "gold")])
        seen = [next(every) for _ in range(6)]
        self.assertEqual([e["type"] for e in seen], ["ADDED"] + ["MODIFIED"] * 4 + ["DELETED"])
        self.assertEqual(seen[2]["object"]["spec"]["fault"]["xid"], 31)
        self.assertGreater(int(seen[-1]["object"]["metadata"]["resourceVersion"]),
                           int(last["metadata"]["resourceVersion"]))          # the deletion's own version
        self.srv.bookmark()
        mark = next(every)
        self.assertEqual((mark["type"], mark["object"]["kind"]), ("BOOKMARK", "GPUFault"))
        # Without a resourceVersion: the current objects first, as ADDED.
        self.ok("POST", FAULTS, fault("w2"), 201)
        fresh = self.watch(FAULTS + "?watch=true&fieldSelector=metadata.name%3Dw2")
        self.assertEqual([next(fresh)["type"]], ["ADDED"])
        self.srv.set_label("gpu-1", "x", "y")                      # a node: not a GPUFault event
        self.ok("DELETE", FAULTS + "/w2")
        self.assertEqual(next(fresh)["type"], "DELETED")
        self.assertEqual(self.srv.active_watches_of("gpufaults"), 3)

    def test_watch_too_old_after_compaction(self):
        rv = self.ok("GET", FAULTS)["metadata"]["resourceVersion"]
        self.ok("POST", FAULTS, fault("old-rv"), 201)
        self.srv.compact()
        ev = next(self.watch(FAULTS + "?watch=true&resourceVersion=" + rv))
        self.assertEqual((ev["type"], ev["object"]["code"]), ("ERROR", 410))
        live = self.watch(FAULTS + "?watch=true&timeoutSeconds=1&resourceVersion=" + str(self.srv.rv))
        t0 = time.time()
        self.assertEqual(list(live), [])                            # ends at timeoutSeconds
        self.assertLess(time.time() - t0, 3)

    def test_bounded_history(self):
        """Past history_limit changes of a kind, the oldest go: a watch from
        before them gets 410, one from after them all that followed."""
        srv = fa.FakeAPIServer(self.certs, history_limit=4).start()
        self.addCleanup(srv.stop)
        srv.install_crds_file(self.crd_file)
        rv = srv.rv
        for i in range(6):
            srv.create_object("gpufaults", fault(f"h{i}"))
        res = srv.resources[("mokka.io", "gpufaults")]
        self.assertEqual((len(res.history), res.compacted_rv), (3, rv + 3))
        c = http.client.HTTPSConnection("127.0.0.1", srv.port, context=self.ctx, timeout=5)
        self.addCleanup(c.close)
        for since, first in ((rv, "ERROR"), (rv + 3, "ADDED")):
            c.request("GET", f"{FAULTS}?watch=true&timeoutSeconds=1&resourceVersion={since}")
            events = [json.loads(line) for line in c.getresponse().read().splitlines()]
            self.assertEqual(events[0]["type"], first, events)
        self.assertEqual([e["object"]["metadata"]["name"] for e in events], ["h3", "h4", "h5"])

    def test_namespaced(self):
        probe = {"apiVersion": "mokka.io/v1alpha1", "kind": "GPUProbe", "metadata": {"name": "p"}, "x": {"y": 1}}
        for ns in ("a", "b"):
            made = self.ok("POST", f"{API}/namespaces/{ns}/gpuprobes", probe, 201)
            self.assertEqual((made["metadata"]["namespace"], made["x"]), (ns, {"y": 1}))
        self.assertEqual(len(self.ok("GET", API + "/gpuprobes")["items"]), 2)
        self.assertEqual(len(self.ok("GET", API + "/namespaces/a/gpuprobes")["items"]), 1)
        self.ok("DELETE", API + "/namespaces/a/gpuprobes/p")
        self.refused("GET", API + "/namespaces/a/gpuprobes/p", None, 404, "NotFound")
        self.ok("GET", API + "/namespaces/b/gpuprobes/p")
        wrong = dict(probe, metadata={"name": "q", "namespace": "b"})
        self.refused("POST", API + "/namespaces/a/gpuprobes", wrong, 400, "BadRequest")

    def test_unknown_resources(self):
        for path in (API + "/nothings", "/apis/mokka.io/v9/gpufaults", "/apis/other.io/v1alpha1/gpufaults",
                     API + "/namespaces/a/gpufaults", FAULTS + "/x/scale", "/apis/mokka.io"):
            self.assertEqual(self.refused("GET", path, None, 404, "NotFound"),
                             "the server could not find the requested resource", path)
        self.assertEqual(self.refused("GET", FAULTS + "?fieldSelector=spec.x%3D1", None, 400, "BadRequest"),
                         "field label not supported: spec.x")

    def test_counts_and_log(self):
        t0 = time.time()
        before = dict(self.srv.counts)
        self.ok("POST", FAULTS, fault("n1"), 201)
        obj = self.ok("GET", FAULTS + "/n1")
        self.ok("GET", FAULTS)
        self.ok("PUT", FAULTS + "/n1", obj)
        self.ok("PATCH", FAULTS + "/n1", {}, ctype="application/merge-patch+json")
        self.ok("DELETE", FAULTS + "/n1")
        self.ok("GET", "/api/v1/nodes")
        self.assertEqual(self.ok("GET", "/api/v1/nodes/gpu-1")["metadata"]["name"], "gpu-1")
        self.srv.fail_next("create:gpufaultreports", 500)
        self.refused("POST", API + "/gpufaultreports", {}, 500, "InternalError")
        grew = {k: v - before.get(k, 0) for k, v in self.srv.counts.items() if v != before.get(k, 0)}
        self.assertEqual(grew, {"create:gpufaults": 1, "get:gpufaults": 1, "list:gpufaults": 1, "update:gpufaults": 1,
                                "patch:gpufaults": 1, "delete:gpufaults": 1, "list": 1, "list:nodes": 1,
                                "get:nodes": 1, "create:gpufaultreports": 1, "201": 1, "200": 7, "500": 1})
        log = self.srv.requests(since=t0)
        self.assertEqual([(e["verb"], e["resource"]) for e in log][:2], [("create", "gpufaults"), ("get", "gpufaults")])
        self.assertEqual(log[6]["kind"], "list")
        self.assertEqual(len(self.srv.requests("create", "gpufaults", since=t0)), 1)
        self.assertEqual(set(log[0]), {"t", "kind", "verb", "resource", "status", "auth", "path"})


class RunAlone(unittest.TestCase):
    """python3 fake_apiserver.py --crds FILE, driven over its control channel."""

    def test_control_channel(self):
        if not shutil.which("openssl"):
            self.skipTest("no openssl CLI to make certificates")
        d = tempfile.mkdtemp(prefix="mokka-crd-alone-")
        self.addCleanup(shutil.rmtree, d, True)
        with open(os.path.join(d, "crds.yaml"), "w") as f:
            f.write(CRDS)
        p = subprocess.Popen([sys.executable, os.path.join(SRC, "tests", "standins", "fake_apiserver.py"), "--dir",
                              d, "--nodes", "2", "--crds", os.path.join(d, "crds.yaml")],
                             stdout=subprocess.PIPE, text=True)
        self.addCleanup(p.stdout.close)
        self.addCleanup(p.wait)
        self.addCleanup(p.terminate)
        port = int(re.search(r"127\.0\.0\.1:(\d+)", p.stdout.readline()).group(1))
        ctx = ssl.create_default_context(cafile=os.path.join(d, "ca.crt"))

        def call(method, **args):
            c = http.client.HTTPSConnection("127.0.0.1", port, context=ctx, timeout=5)
            c.request("POST", "/_mokka/" + method, body=json.dumps(args))
            r = c.getresponse()
            out = json.loads(r.read())
            c.close()
            return r.status, out
        self.assertEqual(call("create_object", plural="gpufaults", obj=fault("f1"))[0], 200)
        self.assertEqual(call("put_object", plural="gpufaults", obj=fault("f2", xid=0))[0], 200)
        status, out = call("create_object", plural="gpufaults", obj=fault("f3", xid=0))
        self.assertEqual((status, out["reason"]), (422, "Invalid"))
        self.assertEqual([o["metadata"]["name"] for o in call("objects", plural="gpufaults")[1]["result"]], ["f1", "f2"])
        self.assertEqual(call("delete_object", plural="gpufaults", name="f1")[0], 200)
        self.assertEqual(call("delete_object", plural="gpufaults", name="f1")[0], 404)
        self.assertEqual(call("install_crds_file", path=os.path.join(d, "crds.yaml"))[1]["result"][0],
                         "gpufaults.mokka.io")
        self.assertNotIn("create:gpufaults", call("stats")[1]["result"])   # the calls above were not requests
        self.assertEqual(call("requests", verb="create")[1]["result"], [])
        self.assertEqual(call("active_watches_of", resource="gpufaults")[1]["result"], 0)


if __name__ == "__main__":
    unittest.main()
