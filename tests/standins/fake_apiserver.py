#!/usr/bin/env python3
"""fake_apiserver.py - a stand-in Kubernetes API server for Mokka's tests
(Python 3 standard library and PyYAML).

It serves GET /api/v1/nodes[/NAME] - a NodeList with a resourceVersion, filtered by
fieldSelector (metadata.name) and labelSelector, in pages with limit= and
continue= tokens served from the first page's snapshot - and ?watch=true streams
(chunked, one JSON event per line, bookmarks when asked for) of real Node
objects, over TLS on 127.0.0.1 with an ephemeral port. Certificates come from
make_certs(), which runs the openssl CLI into a directory the caller owns.

Nodes also take merge patches (PATCH /api/v1/nodes/NAME: labels, annotations), and
/api/v1/namespaces/NS/events holds Events (create, get, patch; srv.objects("events")).
Pods (srv.add_pod(ns, name, node=, phase=, gpus=, labels=, unschedulable=),
set_pod_phase, delete_pod; or POST) are listed and watched across namespaces at
/api/v1/pods, with fieldSelector spec.nodeName and status.phase as the real
server takes them; nobody schedules or runs them.

Custom resources, as the real server serves them: a CustomResourceDefinition
(POST /apis/apiextensions.k8s.io/v1/customresourcedefinitions, or
srv.install_crds_file(path)) makes /apis/G/V[/namespaces/NS]/PLURAL[/NAME[/status]]
answer list and watch (as for nodes), get, create (generateName), update
(resourceVersion required; 409 when stale), merge and JSON patch, delete and
the status subresource, with the version's openAPIV3Schema applied: defaults,
pruning of unknown fields, validation with the real server's 422 messages (and
its ratcheting: an update may keep an invalid value it does not change). One
resourceVersion counter serves every kind, as etcd's revision does; each kind
keeps its own bounded history and wakes only its own watches.

Tests drive it in-process:

    certs = make_certs(tmpdir)
    srv = FakeAPIServer(certs, tokens={"s3cret"}).start()
    srv.add_node("gpu-1", gpus=8)
    ... srv.set_allocatable("gpu-1", "nvidia.com/gpu", 7)
    ... srv.fail_next("watch", 429, retry_after="1"); srv.end_watches()
    srv.counts["list"], srv.counts["watch"]
    srv.install_crds_file("ci/deploy/gpufault-crd.yaml")
    srv.create_object("gpufaults", {...})             # validated, raises APIError
    srv.put_object("gpufaults", {...})                # stored as given: an older CRD's object
    srv.objects("gpufaultreports"), srv.get_object("gpufaults", "f1"), srv.delete_object(...)
    srv.counts["watch:gpufaults"], srv.counts["update:gpufaultreports"]
    srv.active_watches_of("gpufaults"), srv.requests("update", "gpufaultreports", since=t0)
    srv.stop()

Node LISTs and WATCHes count as "list" and "watch" (and "list:nodes",
"watch:nodes"); every other request as "<verb>:<plural>", verb one of get,
list, watch, create, update, patch, delete. srv.log has one entry a request:
{"t", "kind", "verb", "resource", "status", "auth", "path"}. fail_next and
misbehave take the same kinds.

Hostile answers, for the client's bounds and secrecy (see _Handler's
_hostile_* methods): srv.misbehave("list", "huge_list", size=2 << 30),
srv.misbehave("watch", "endless_event"), srv.misbehave("any", "echo_401").
SilentServer() accepts connections and never answers.

Run alone (python3 fake_apiserver.py --dir D --nodes 3 [--crds FILE]...), it
writes D/kubeconfig and takes the same calls as POST /_mokka/<method> with a
JSON object of arguments, e.g. curl --cacert D/ca.crt -d '{"name": "node-0000",
"resource": "nvidia.com/gpu", "value": 7}' https://127.0.0.1:PORT/_mokka/set_allocatable
"""
import argparse
import base64
import bisect
import collections
import copy
import json
import os
import random
import re
import select
import socket
import ssl
import subprocess
import threading
import time
import urllib.parse
import uuid
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from resource import RLIMIT_NOFILE, getrlimit, setrlimit

import yaml

GPU = "nvidia.com/gpu"
# What the API server says when a continue token's snapshot is gone.
EXPIRED_CONTINUE = ("The provided continue parameter is too old to display a consistent list result. "
                    "You can start a new list without the continue parameter.")
NO_RESOURCE = "the server could not find the requested resource"
CRD_GROUP = "apiextensions.k8s.io"
# metadata fields a custom resource keeps (ObjectMeta); the rest is pruned.
OBJECT_META = {"name", "generateName", "namespace", "uid", "resourceVersion", "generation",
               "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels",
               "annotations", "ownerReferences", "finalizers", "managedFields"}
DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
# The letters generateName suffixes are made of (no vowels, no look-alikes).
NAME_SUFFIX = "bcdfghjklmnpqrstvwxz2456789"


# --- certificates ---------------------------------------------------------------

def _openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def make_certs(d):
    """A CA, a server certificate for 127.0.0.1 and kubernetes.default.svc
    (not "localhost": tests use that for tls-server-name), and a client
    certificate for "mokka-admin". Returns a dict of absolute paths."""
    os.makedirs(d, exist_ok=True)
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    _openssl("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.crt", "-days", "2",
             "-subj", "/CN=mokka-test-ca", "-addext", "basicConstraints=critical,CA:TRUE",
             "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=d)
    for name, subj, ext in (
            ("server", "/CN=kube-apiserver",
             "subjectAltName=IP:127.0.0.1,DNS:kubernetes.default.svc\nextendedKeyUsage=serverAuth\n"),
            ("client", "/O=system:masters/CN=mokka-admin", "extendedKeyUsage=clientAuth\n")):
        with open(os.path.join(d, name + ".ext"), "w") as f:
            f.write(ext)
        _openssl("req", *ec, "-keyout", name + ".key", "-out", name + ".csr", "-subj", subj, cwd=d)
        _openssl("x509", "-req", "-in", name + ".csr", "-CA", "ca.crt", "-CAkey", "ca.key",
                 "-CAcreateserial", "-out", name + ".crt", "-days", "2",
                 "-extfile", name + ".ext", cwd=d)
    return {k: os.path.join(os.path.abspath(d), v) for k, v in (
        ("ca", "ca.crt"), ("server_cert", "server.crt"), ("server_key", "server.key"),
        ("client_cert", "client.crt"), ("client_key", "client.key"))}


# --- kubeconfig --------------------------------------------------------------------

def to_yaml(obj, indent=0):
    """Block-style YAML; scalars as JSON strings, which YAML reads the same."""
    pad = " " * indent
    if isinstance(obj, dict):
        if not obj:
            return pad + "{}\n"
        out = ""
        for k, v in obj.items():
            if isinstance(v, (dict, list)) and v:
                out += f"{pad}{k}:\n{to_yaml(v, indent + 2)}"
            else:
                out += f"{pad}{k}: {to_yaml(v).strip()}\n"
        return out
    if isinstance(obj, list):
        if not obj:
            return pad + "[]\n"
        out = ""
        for v in obj:
            body = to_yaml(v, indent + 2)
            out += f"{pad}- {body.lstrip()}"
        return out
    if isinstance(obj, bool):
        return pad + ("true" if obj else "false") + "\n"
    return pad + json.dumps(obj) + "\n"


def kubeconfig(server, user, cluster_extra=None, name="fake"):
    """A one-context kubeconfig as YAML text; `user` is the users[].user map."""
    cluster = {"server": server}
    cluster.update(cluster_extra or {})
    return to_yaml({
        "apiVersion": "v1", "kind": "Config",
        "clusters": [{"name": name, "cluster": cluster}],
        "users": [{"name": name + "-user", "user": user}],
        "contexts": [{"name": name, "context": {"cluster": name, "user": name + "-user"}}],
        "current-context": name,
    })


# --- nodes and selectors -------------------------------------------------------------

def make_node(name, gpus=8, allocatable=None, labels=None, taints=None):
    labels = dict({"kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
                   "nvidia.com/gpu.present": "true"}, **(labels or {}))
    alloc = gpus if allocatable is None else allocatable
    now = "2024-05-01T10:00:00Z"
    return {
        "kind": "Node", "apiVersion": "v1",
        "metadata": {"name": name, "uid": "uid-" + name, "labels": labels,
                     "annotations": {"node.alpha.kubernetes.io/ttl": "0",
                                     "volumes.kubernetes.io/controller-managed-attach-detach": "true"},
                     "creationTimestamp": now},
        "spec": {"podCIDR": "10.244.0.0/24", "taints": list(taints or [])},
        "status": {
            "capacity": {"cpu": "64", "ephemeral-storage": "1055762868Ki", "hugepages-1Gi": "0",
                         "memory": "528280128Ki", "pods": "110", GPU: str(gpus)},
            "allocatable": {"cpu": "63500m", "ephemeral-storage": "972991057538",
                            "hugepages-1Gi": "0", "memory": "517794368Ki", "pods": "110",
                            GPU: str(alloc)},
            "conditions": [
                {"type": "MemoryPressure", "status": "False", "reason": "KubeletHasSufficientMemory",
                 "message": "kubelet has sufficient memory available",
                 "lastHeartbeatTime": now, "lastTransitionTime": now},
                {"type": "Ready", "status": "True", "reason": "KubeletReady",
                 "message": "kubelet is posting ready status",
                 "lastHeartbeatTime": now, "lastTransitionTime": now}],
            "nodeInfo": {"kubeletVersion": "v1.30.0", "containerRuntimeVersion": "containerd://1.7.16",
                         "operatingSystem": "linux", "architecture": "amd64"},
        },
    }


def _label_match(labels, selector):
    for term in filter(None, (t.strip() for t in (selector or "").split(","))):
        if "!=" in term:
            k, v = term.split("!=", 1)
            if labels.get(k) == v:
                return False
        elif "=" in term:
            k, v = term.replace("==", "=").split("=", 1)
            if labels.get(k) != v:
                return False
        elif term.startswith("!"):
            if term[1:] in labels:
                return False
        elif term not in labels:
            return False
    return True


POD_FIELDS = ("spec.nodeName", "status.phase")


def _field_terms(selector, plural=None):
    """fieldSelector as (path, value, equal) terms; the real server takes
    metadata.name and metadata.namespace for every kind, and pods also
    spec.nodeName and status.phase."""
    terms = []
    for term in filter(None, (t.strip() for t in (selector or "").split(","))):
        eq = "!=" not in term
        k, v = term.replace("!=", "=").replace("==", "=").split("=", 1)
        if k not in ("metadata.name", "metadata.namespace") and not (plural == "pods" and k in POD_FIELDS):
            raise APIError(400, "BadRequest", "field label not supported: " + k)
        terms.append((k.split("."), v, eq))
    return terms


def _field(obj, path):
    for p in path:
        obj = obj.get(p) if isinstance(obj, dict) else None
    return obj if obj is not None else ""


def _selector(q, namespace=None, plural=None):
    """The filter a LIST or WATCH asks for: fieldSelector, labelSelector and
    the URL's namespace."""
    fields, labels = _field_terms(q.get("fieldSelector"), plural), q.get("labelSelector")

    def selected(obj):
        m = obj["metadata"]
        return (namespace is None or m.get("namespace") == namespace) and \
            all((_field(obj, k) == v) == eq for k, v, eq in fields) and \
            _label_match(m.get("labels") or {}, labels)
    return selected


def _seen_as(typ, obj, prev, selected):
    """The event a watch with this filter sees for a change: ADDED when the
    object starts to match, DELETED when it stops (or is deleted), MODIFIED
    while it matches, none while it does not."""
    now = typ != "DELETED" and selected(obj)
    was = prev is not None and selected(prev)
    if now:
        return "MODIFIED" if was else "ADDED"
    return "DELETED" if was else None


def status_object(code, reason, message, details=None):
    obj = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
           "message": message, "reason": reason, "code": code}
    if details is not None:
        obj["details"] = details
    return obj


class APIError(Exception):
    """A request the API server refuses: its code and Status object."""

    def __init__(self, code, reason, message, details=None):
        super().__init__(message)
        self.code, self.status = code, status_object(code, reason, message, details)


def _at_version(obj, api_version):
    """obj as served at another of its kind's versions: conversion "None",
    which changes apiVersion only."""
    return obj if obj.get("apiVersion") == api_version else dict(obj, apiVersion=api_version)


def _rfc3339(t=None):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


# --- schemas: what the real server does with a custom resource's openAPIV3Schema ---

def _path_text(path):
    return "".join(f"[{p}]" if isinstance(p, int) else ("." if i else "") + p for i, p in enumerate(path))


def _num(x):
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def _type_of(v):
    if v is None:
        return "null"
    for t, name in ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"),
                    (list, "array"), (dict, "object")):
        if isinstance(v, t):
            return name
    raise TypeError(type(v))


def _type_ok(s, v):
    if s.get("x-kubernetes-int-or-string"):
        return _type_of(v) in ("integer", "string")
    want, got = s.get("type"), _type_of(v)
    return not want or want == got or (want == "number" and got == "integer")


def _conform(s, v, path, errs):
    """v pruned, defaulted and checked against schema s, as the real server
    does for structural schemas: unknown fields dropped, null dropped where
    not nullable, defaults filled in, then validated. Errors are appended to
    errs as (path, reason, bad value, detail)."""
    if v is None and s.get("nullable"):
        return None
    if not _type_ok(s, v):
        want = "integer or string" if s.get("x-kubernetes-int-or-string") else s["type"]
        errs.append((path, "FieldValueTypeInvalid", _type_of(v),
                     f"{_path_text(path)} in body must be of type {want}: \"{_type_of(v)}\""))
        return v
    if isinstance(v, dict):
        v = _conform_object(s, v, path, errs)
    elif isinstance(v, list):
        v = [_conform(s.get("items") or {"x-kubernetes-preserve-unknown-fields": True}, x, path + (i,), errs)
             for i, x in enumerate(v)]
    _check(s, v, path, errs)
    return v


def _conform_object(s, v, path, errs):
    props, extra = s.get("properties") or {}, s.get("additionalProperties")
    keep = s.get("x-kubernetes-preserve-unknown-fields") or extra is True
    out = {}
    for k, x in v.items():
        sub = props.get(k, extra if isinstance(extra, dict) else None)
        if sub is None:
            if keep:
                out[k] = x
        elif x is not None or sub.get("nullable"):
            out[k] = _conform(sub, x, path + (k,), errs)
    for k, sub in props.items():
        if k not in out and "default" in sub:
            out[k] = _conform(sub, copy.deepcopy(sub["default"]), path + (k,), errs)
    errs.extend((path + (k,), "FieldValueRequired", None, "") for k in s.get("required") or () if k not in out)
    return out


def _check(s, v, path, errs):
    """The value constraints (enum, bounds, lengths, pattern), worded as the
    real server words them (kube-openapi's messages in field errors)."""
    p = _path_text(path)

    def bad(detail, reason="FieldValueInvalid"):
        errs.append((path, reason, v, detail))
    if "enum" in s and v not in s["enum"]:
        bad("supported values: " + ", ".join(json.dumps(e) for e in s["enum"]), "FieldValueNotSupported")
    if _type_of(v) in ("integer", "number"):
        for key, ex, cmp, word in (("minimum", "exclusiveMinimum", lambda a, b: a >= b, "greater than"),
                                   ("maximum", "exclusiveMaximum", lambda a, b: a <= b, "less than")):
            if key in s and not (cmp(v, s[key]) and not (s.get(ex) and v == s[key])):
                bad(f"{p} in body should be {word}{'' if s.get(ex) else ' or equal to'} {_num(s[key])}")
    if isinstance(v, str):
        if len(v) < s.get("minLength", 0):
            bad(f"{p} in body should be at least {s['minLength']} chars long")
        if "maxLength" in s and len(v) > s["maxLength"]:
            bad(f"may not be longer than {s['maxLength']}", "FieldValueTooLong")
        if "pattern" in s and not re.search(s["pattern"], v):
            bad(f"{p} in body should match '{s['pattern']}'")
    if isinstance(v, list):
        if len(v) < s.get("minItems", 0):
            bad(f"{p} in body should have at least {s['minItems']} items")
        if "maxItems" in s and len(v) > s["maxItems"]:
            errs.append((path, "FieldValueTooMany", len(v), f"must have at most {s['maxItems']} items"))


class _Go(str):
    """A bad value as the real server prints it (Go's %#v), not as JSON."""


_LABELS = {"FieldValueRequired": "Required value", "FieldValueInvalid": "Invalid value",
           "FieldValueTypeInvalid": "Invalid value", "FieldValueNotSupported": "Unsupported value",
           "FieldValueTooLong": "Too long", "FieldValueTooMany": "Too many"}


def _invalid(kind, name, errs):
    """422 Invalid, worded as the real server's NewInvalid: one cause, or
    several joined by ", " inside [...]."""
    causes = []
    for path, reason, value, detail in errs:
        body = _LABELS[reason]
        if reason not in ("FieldValueRequired", "FieldValueTooLong"):
            body += ": " + (value if isinstance(value, _Go) else json.dumps(value))
        if detail:
            body += ": " + detail
        causes.append({"reason": reason, "message": body,
                       "field": path if isinstance(path, str) else _path_text(path)})
    texts = list(dict.fromkeys(f"{c['field']}: {c['message']}" for c in causes))
    text = texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"
    kind_name, _, group = kind.partition(".")
    return APIError(422, "Invalid", f'{kind} "{name}" is invalid: {text}',
                    {"name": name, "group": group, "kind": kind_name, "causes": causes})


_ABSENT = object()


def _at(obj, path):
    """The value at path in obj, or _ABSENT."""
    for p in path:
        try:
            obj = obj[p]
        except (KeyError, IndexError, TypeError):
            return _ABSENT
    return obj


# --- patches --------------------------------------------------------------------------

def _merge_patch(target, patch):
    """RFC 7386 (application/merge-patch+json)."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = dict(target) if isinstance(target, dict) else {}
    for k, v in patch.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = _merge_patch(out.get(k), v)
    return out


def _pointer(path):
    if path and not path.startswith("/"):
        raise ValueError(f"invalid JSON pointer {path!r}")
    return [p.replace("~1", "/").replace("~0", "~") for p in path.split("/")[1:]]


def _json_patch(doc, ops):
    """RFC 6902 (application/json-patch+json) on a copy of doc; ValueError
    (or KeyError, IndexError) when an operation cannot apply."""
    doc = copy.deepcopy(doc)
    for op in ops:
        path = _pointer(op["path"])
        if op["op"] in ("move", "copy"):
            src = _pointer(op["from"])
            value = doc
            for p in src:
                value = value[int(p)] if isinstance(value, list) else value[p]
            if op["op"] == "move":
                doc = _patch_one(doc, src, "remove", None)
            doc = _patch_one(doc, path, "add", value)
        else:
            doc = _patch_one(doc, path, op["op"], op.get("value"))
    return doc


def _patch_one(doc, path, op, value):
    if not path:
        if op == "test" and doc != value:
            raise ValueError("test failed at the root")
        return None if op == "remove" else (doc if op == "test" else copy.deepcopy(value))
    parent = doc
    for p in path[:-1]:
        parent = parent[int(p)] if isinstance(parent, list) else parent[p]
    last = path[-1]
    if isinstance(parent, list):
        i = len(parent) if last == "-" and op == "add" else int(last)
        if op == "add":
            if i > len(parent):
                raise IndexError(f"index {i} out of range")
            parent.insert(i, copy.deepcopy(value))
        elif op == "remove":
            del parent[i]
        elif op == "replace":
            parent[i] = copy.deepcopy(value)
        elif op == "test" and parent[i] != value:
            raise ValueError(f"testing value /{'/'.join(path)} failed")
    else:
        if op in ("remove", "replace", "test") and last not in parent:
            raise KeyError(f"no value at /{'/'.join(path)}")
        if op == "remove":
            del parent[last]
        elif op in ("add", "replace"):
            parent[last] = copy.deepcopy(value)
        elif op == "test" and parent[last] != value:
            raise ValueError(f"testing value /{'/'.join(path)} failed")
    if op not in ("add", "remove", "replace", "test"):
        raise ValueError(f"unknown op {op!r}")
    return doc


# --- the server ------------------------------------------------------------------------

class _Resource:
    """One kind: its objects (snapshots, replaced on every change, never
    changed in place), its history for watches (bounded; bisected by
    resourceVersion) and a Condition of its own on the server's one lock, so
    that a change wakes only the watches of its kind."""

    def __init__(self, lock, group, plural, kind, list_kind, namespaced, versions, history_limit):
        self.group, self.plural, self.kind, self.list_kind = group, plural, kind, list_kind
        self.namespaced = namespaced
        self.versions = versions            # served version -> {"schema": ..., "status": subresource on}
        self.objects = {}                   # "name" or "namespace/name" -> object
        self.history, self.rvs = [], []     # (rv, type, object, object before), and their rvs
        self.history_limit = history_limit
        self.compacted_rv = 0               # watches from before it get 410
        self.trimmed_rv = 0                 # open watches behind it missed events: 410
        self.active_watches = 0
        self.removed = False                # its CRD was deleted
        self.cond = threading.Condition(lock)

    @property
    def qualified(self):
        """"gpufaults.mokka.io", "nodes": how the real server's messages name it."""
        return self.plural + ("." + self.group if self.group else "")

    def api_version(self, version):
        return f"{self.group}/{version}" if self.group else version

    def key(self, namespace, name):
        return f"{namespace}/{name}" if self.namespaced else name

    def remember(self, rv, typ, obj, prev):
        self.history.append((rv, typ, obj, prev))
        self.rvs.append(rv)
        if len(self.history) > self.history_limit:
            cut = len(self.history) - self.history_limit // 2
            self.compacted_rv = self.trimmed_rv = self.rvs[cut - 1]
            del self.history[:cut], self.rvs[:cut]

    def not_found(self, name):
        return APIError(404, "NotFound", f'{self.qualified} "{name}" not found',
                        {"name": name, "group": self.group, "kind": self.plural})


class FakeAPIServer:
    """State and control; the HTTP side is _Handler."""

    CONTROL = {"add_node", "delete_node", "add_pod", "set_pod_phase", "delete_pod", "set_allocatable", "set_capacity", "set_label",
               "set_condition", "add_taint", "set_all_allocatable", "end_watches", "gone_event",
               "bookmark", "fail_next", "compact", "set_tokens", "stats", "misbehave",
               "install_crd", "install_crds_file", "put_object", "create_object", "delete_object",
               "get_object", "objects", "requests", "active_watches_of"}

    def __init__(self, certs, tokens=(), basic=(), client_certs=True, require_client_cert=False,
                 history_limit=10000):
        self.certs = certs
        self.tokens = set(tokens)
        self.basic = set(basic)             # "user:password"
        self.client_certs = client_certs    # a verified client certificate authenticates
        self.require_client_cert = require_client_cert
        self.lock = threading.RLock()
        self.cond = threading.Condition(self.lock)   # requests and watch counts, for wait_for
        self.history_limit = history_limit
        self.resources = {}                 # (group, plural) -> _Resource
        # Nodes and Pods have the status subresource (what a kubelet writes)
        self.node_res = self._resource("", "nodes", "Node", "NodeList", False, {"v1": {"status": True}})
        self.nodes = self.node_res.objects
        self.crds = self._resource(CRD_GROUP, "customresourcedefinitions", "CustomResourceDefinition",
                                   "CustomResourceDefinitionList", False, {"v1": {}})
        # core v1 Events (what a pod says about itself), without the real server's checks
        self._resource("", "events", "Event", "EventList", True, {"v1": {}})
        # core v1 Pods, stored as given (add_pod), listed and watched across namespaces
        # (/api/v1/pods) with fieldSelector spec.nodeName and status.phase
        self.pod_res = self._resource("", "pods", "Pod", "PodList", True, {"v1": {"status": True}})
        # the kubelet's heartbeats (mokka fleet renews one per virtual node)
        self._resource("coordination.k8s.io", "leases", "Lease", "LeaseList", True, {"v1": {}})
        self.rv = 1000                      # one counter for every kind, as etcd's revision
        self.list_snapshots = {}            # continue token -> (rv, items left)
        self.list_serial = 0                # makes every continue token unique
        self.faults = collections.deque()   # (kind, code, headers, body)
        self.hostile = collections.deque()  # (kind, how, args, times left)
        self.end_epoch = 0                  # end_watches() bumps it
        self.gone_epoch = 0                 # gone_event() bumps it
        self.bookmark_epoch = 0
        self.counts = collections.Counter()
        self.log = []                       # {"t", "kind", "verb", "resource", "status", "auth", "path"}
        self.stopping = False
        self.httpd = None

    def _resource(self, group, plural, kind, list_kind, namespaced, versions):
        res = _Resource(self.lock, group, plural, kind, list_kind, namespaced, versions, self.history_limit)
        self.resources[(group, plural)] = res
        return res

    # lifecycle
    def start(self):
        # A connection a watch: hundreds of agents need more descriptors than a soft limit of 1024.
        soft, hard = getrlimit(RLIMIT_NOFILE)
        setrlimit(RLIMIT_NOFILE, (max(soft, min(hard, 65536) if hard >= 0 else 65536), hard))
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(self.certs["server_cert"], self.certs["server_key"])
        ctx.load_verify_locations(self.certs["ca"])
        ctx.verify_mode = ssl.CERT_REQUIRED if self.require_client_cert else ssl.CERT_OPTIONAL
        self.httpd = _Server(self, ctx)
        self.port = self.httpd.server_address[1]
        self.url = f"https://127.0.0.1:{self.port}"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05},
                         daemon=True).start()
        return self

    def stop(self):
        with self.lock:
            self.stopping = True
            self._wake_all()
        if self.httpd:
            self.httpd.shutdown()
            self.httpd.server_close()

    @property
    def active_watches(self):
        """Open node watches."""
        return self.node_res.active_watches

    def active_watches_of(self, resource):
        with self.lock:
            return self._res(resource).active_watches

    # every change: the next resourceVersion, the history, the kind's watches woken
    def _commit(self, res, typ, key, obj=None):
        """Store obj under key (a new object: it is kept as the snapshot) or,
        for DELETED, drop the object there; with the lock held. Returns the
        object as stored (for DELETED: with the deletion's resourceVersion)."""
        self.rv += 1
        prev = res.objects.get(key)
        if typ == "DELETED":
            del res.objects[key]
            obj = dict(prev, metadata=dict(prev["metadata"]))
        else:
            res.objects[key] = obj
        obj["metadata"]["resourceVersion"] = str(self.rv)
        res.remember(self.rv, typ, obj, prev)
        if res is self.crds:
            (self._undefine if typ == "DELETED" else self._define)(obj)
        res.cond.notify_all()
        return obj

    def _wake_all(self):
        for res in self.resources.values():
            res.cond.notify_all()
        self.cond.notify_all()

    # changes to nodes (copies: the stored ones are snapshots)
    def add_node(self, name, gpus=8, allocatable=None, labels=None, taints=None):
        with self.lock:
            self._commit(self.node_res, "ADDED" if name not in self.nodes else "MODIFIED", name,
                         make_node(name, gpus, allocatable, labels, taints))
            return time.time()

    # pods (stored as given: no scheduler, no kubelet; the test plays both)
    def add_pod(self, namespace, name, node=None, phase="Pending", gpus=0, resource=GPU,
                labels=None, unschedulable=None):
        """A pod asking for `gpus` of `resource`, bound to `node` (None: not
        scheduled; unschedulable: its PodScheduled=False message)."""
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": name, "namespace": namespace, "labels": dict(labels or {}),
                            "uid": f"uid-pod-{namespace}-{name}"},
               "spec": {"containers": [{"name": "main", "image": "busybox", "resources": {
                   "limits": {resource: str(gpus)}} if gpus else {}}]},
               "status": {"phase": phase}}
        if node:
            pod["spec"]["nodeName"] = node
        if unschedulable:
            pod["status"]["conditions"] = [{"type": "PodScheduled", "status": "False",
                                            "reason": "Unschedulable", "message": unschedulable}]
        with self.lock:
            key = self.pod_res.key(namespace, name)
            self._commit(self.pod_res, "MODIFIED" if key in self.pod_res.objects else "ADDED", key, pod)
            return time.time()

    def set_pod_phase(self, namespace, name, phase):
        with self.lock:
            key = self.pod_res.key(namespace, name)
            pod = copy.deepcopy(self.pod_res.objects[key])
            pod["status"]["phase"] = phase
            self._commit(self.pod_res, "MODIFIED", key, pod)
            return time.time()

    def delete_pod(self, namespace, name):
        with self.lock:
            self._commit(self.pod_res, "DELETED", self.pod_res.key(namespace, name))
            return time.time()

    def delete_node(self, name):
        with self.lock:
            self._commit(self.node_res, "DELETED", name)
            return time.time()

    def modify(self, name, fn):
        """Apply fn(node) and send MODIFIED; returns the time.time() of the change."""
        with self.lock:
            node = copy.deepcopy(self.nodes[name])
            fn(node)
            self._commit(self.node_res, "MODIFIED", name, node)
            return time.time()

    def set_allocatable(self, name, resource=GPU, value=0):
        return self.modify(name, lambda n: n["status"]["allocatable"].__setitem__(resource, str(value)))

    def set_capacity(self, name, resource=GPU, value=0):
        return self.modify(name, lambda n: n["status"]["capacity"].__setitem__(resource, str(value)))

    def set_label(self, name, key, value):
        return self.modify(name, lambda n: n["metadata"]["labels"].__setitem__(key, value))

    def set_condition(self, name, type, status, reason="", message=""):
        def fn(n):
            conds = [c for c in n["status"]["conditions"] if c["type"] != type]
            conds.append({"type": type, "status": status, "reason": reason, "message": message})
            n["status"]["conditions"] = conds
        return self.modify(name, fn)

    def add_taint(self, name, key, value, effect):
        return self.modify(name, lambda n: n["spec"].setdefault("taints", []).append(
            {"key": key, "value": value, "effect": effect}))

    def set_all_allocatable(self, resource=GPU, value=0):
        """Every node at once (one MODIFIED event each)."""
        with self.lock:
            t = time.time()
            for name in list(self.nodes):
                self.modify(name, lambda n: n["status"]["allocatable"].__setitem__(resource, str(value)))
            return t

    # custom resource definitions
    def install_crd(self, obj):
        """Create the CRD, or replace the one of that name (its objects stay).
        Returns the CRD as stored."""
        with self.lock:
            old = self.crds.objects.get((obj.get("metadata") or {}).get("name"))
            if old is None:
                return copy.deepcopy(self._create(self.crds, "v1", None, obj))
            obj = copy.deepcopy(obj)
            obj.setdefault("metadata", {})["resourceVersion"] = old["metadata"]["resourceVersion"]
            return copy.deepcopy(self._update(self.crds, "v1", None, old["metadata"]["name"], obj))

    def install_crds_file(self, path):
        """Every CustomResourceDefinition in a multi-document YAML file (the
        other documents are skipped, so a whole deploy file will do). Returns
        their names."""
        with open(path) as f:
            docs = [d for d in yaml.safe_load_all(f) if isinstance(d, dict) and
                    d.get("apiVersion") == CRD_GROUP + "/v1" and d.get("kind") == "CustomResourceDefinition"]
        return [self.install_crd(d)["metadata"]["name"] for d in docs]

    def _check_crd(self, crd):
        spec = crd.get("spec") or {}
        names = spec.get("names") or {}
        errs = [(f, "FieldValueRequired", None, "") for f, v in (
            ("spec.group", spec.get("group")), ("spec.names.plural", names.get("plural")),
            ("spec.names.kind", names.get("kind")), ("spec.versions", spec.get("versions"))) if not v]
        if spec.get("scope") not in ("Cluster", "Namespaced"):
            errs.append(("spec.scope", "FieldValueNotSupported", spec.get("scope") or "",
                         'supported values: "Cluster", "Namespaced"'))
        want = f"{names.get('plural')}.{spec.get('group')}"
        if not errs and crd["metadata"]["name"] != want:
            errs.append(("metadata.name", "FieldValueInvalid", crd["metadata"]["name"],
                         f'must be spec.names.plural+"."+spec.group'))
        if errs:
            raise _invalid("CustomResourceDefinition." + CRD_GROUP, crd["metadata"].get("name", ""), errs)
        crd["status"] = {"acceptedNames": names, "storedVersions": [
            v["name"] for v in spec["versions"] if v.get("storage")],
            "conditions": [{"type": t, "status": "True", "reason": r, "lastTransitionTime": _rfc3339()}
                           for t, r in (("NamesAccepted", "NoConflicts"), ("Established", "InitialNamesAccepted"))]}

    def _define(self, crd):
        """A stored CRD's resource: served versions with their schema and
        status subresource."""
        spec, names = crd["spec"], crd["spec"]["names"]
        versions = {v["name"]: {"schema": (v.get("schema") or {}).get("openAPIV3Schema"),
                                "status": "status" in (v.get("subresources") or {})}
                    for v in spec["versions"] if v.get("served", True)}
        res = self.resources.get((spec["group"], names["plural"])) or self._resource(
            spec["group"], names["plural"], names["kind"], None, None, None)
        res.kind, res.list_kind = names["kind"], names.get("listKind") or names["kind"] + "List"
        res.namespaced, res.versions = spec["scope"] == "Namespaced", versions

    def _undefine(self, crd):
        """The CRD is gone: so are its objects; its watches end."""
        res = self.resources.pop((crd["spec"]["group"], crd["spec"]["names"]["plural"]))
        res.removed = True
        res.cond.notify_all()

    # custom resources: the writes, with the lock held; APIError as the real server refuses
    def _res(self, resource):
        """A kind by plural ("gpufaults") or plural.group."""
        for res in self.resources.values():
            if resource in (res.plural, res.qualified):
                return res
        raise KeyError("no resource " + resource)

    def _body(self, res, version, namespace, obj):
        """A copy of a request's object, its apiVersion, kind and namespace
        checked against the URL's."""
        if not isinstance(obj, dict):
            raise APIError(400, "BadRequest", "the object provided is unrecognized")
        obj = copy.deepcopy(obj)
        want = res.api_version(version)
        if not obj.get("kind"):
            raise APIError(400, "BadRequest", f"Object 'Kind' is missing in '{json.dumps(obj)}'")
        if obj.get("apiVersion") != want:
            raise APIError(400, "BadRequest", f"the API version in the data ({obj.get('apiVersion')}) "
                           f"does not match the expected API version ({want})")
        if obj["kind"] != res.kind:
            raise APIError(400, "BadRequest", f"the kind in the data ({obj['kind']}) does not match "
                           f"the expected kind ({res.kind})")
        meta = obj.get("metadata") or {}
        if not isinstance(meta, dict):
            raise APIError(400, "BadRequest", "metadata must be an object")
        obj["metadata"] = {k: v for k, v in meta.items() if k in OBJECT_META}
        if res.namespaced:
            if meta.get("namespace", namespace) != namespace:
                raise APIError(400, "BadRequest", "the namespace of the provided object does not match "
                               "the namespace sent on the request")
            obj["metadata"]["namespace"] = namespace
        return obj

    def _prepared(self, res, version, obj, old, sub=None):
        """What the real server stores for a write: the status subresource's
        split (a write to the resource keeps the old status, one to /status
        keeps all but the status), then the schema (defaults, pruning,
        validation; on update an unchanged invalid value is let be, as with
        validation ratcheting), then metadata kept from the old object and
        generation bumped when anything but metadata (and a subresource's
        status) changed."""
        status_sub = res.versions[version].get("status")
        if sub == "status":
            new = {k: v for k, v in old.items() if k not in ("metadata", "status")}
            new["metadata"] = dict(old["metadata"])
            if res is self.pod_res:     # v1.20 takes a pod's labels and annotations from /status too
                for k in ("labels", "annotations"):
                    if k in obj["metadata"]:
                        new["metadata"][k] = obj["metadata"][k]
            if "status" in obj:
                new["status"] = obj["status"]
            obj = new
        elif status_sub and not (old is None and res is self.node_res):   # a Node is made with its status
            obj = {k: v for k, v in obj.items() if k != "status"}
            if old is not None and "status" in old:
                obj["status"] = old["status"]
        meta = obj["metadata"]
        body = {k: v for k, v in obj.items() if k not in ("apiVersion", "kind", "metadata")}
        schema = res.versions[version].get("schema")
        if schema is not None:
            errs = []
            body = _conform(schema, body, (), errs)
            if old is not None:
                errs = [e for e in errs if _at(body, e[0]) != _at(old, e[0])]
            if errs:
                raise _invalid(f"{res.kind}.{res.group}", meta.get("name", ""), errs)
        new = {"apiVersion": obj["apiVersion"], "kind": obj["kind"], "metadata": meta, **body}
        if res is self.crds:
            self._check_crd(new)
        if old is None:
            return new
        for k in ("uid", "creationTimestamp", "namespace", "generation"):
            if k in old["metadata"]:
                meta[k] = old["metadata"][k]
            else:
                meta.pop(k, None)
        skip = ("apiVersion", "metadata", "status") if status_sub else ("apiVersion", "metadata")
        if {k: v for k, v in new.items() if k not in skip} != {k: v for k, v in old.items() if k not in skip}:
            meta["generation"] = meta.get("generation", 0) + 1
        return new

    def _create(self, res, version, namespace, obj):
        obj = self._body(res, version, namespace, obj)
        meta = obj["metadata"]
        if not meta.get("name"):
            if not meta.get("generateName"):
                raise _invalid(f"{res.kind}.{res.group}", "", [(
                    "metadata.name", "FieldValueRequired", None, "name or generateName is required")])
            while not meta.get("name") or res.key(namespace, meta["name"]) in res.objects:
                meta["name"] = meta["generateName"] + "".join(random.choices(NAME_SUFFIX, k=5))
        name = meta["name"]
        if len(name) > 253 or not DNS_SUBDOMAIN.fullmatch(name):
            raise _invalid(f"{res.kind}.{res.group}", name, [(
                "metadata.name", "FieldValueInvalid", name,
                "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
                "or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "
                "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")])
        obj = self._prepared(res, version, obj, None)
        key = res.key(namespace, name)
        if key in res.objects:
            raise APIError(409, "AlreadyExists", f'{res.qualified} "{name}" already exists',
                           {"name": name, "group": res.group, "kind": res.plural})
        obj["metadata"].update(uid=str(uuid.uuid4()), generation=1, creationTimestamp=_rfc3339())
        return self._commit(res, "ADDED", key, obj)

    def _update(self, res, version, namespace, name, obj, sub=None):
        """PUT, and PATCH once the patch is applied: the body's
        resourceVersion is required and must be the stored one (custom
        resources allow no unconditional update)."""
        obj = self._body(res, version, namespace, obj)
        meta = obj["metadata"]
        if meta.setdefault("name", name) != name:
            raise APIError(400, "BadRequest", f"the name of the object ({meta['name']}) does not match "
                           f"the name on the URL ({name})")
        old = res.objects.get(res.key(namespace, name))
        if old is None:
            raise res.not_found(name)
        if not meta.get("resourceVersion"):
            raise _invalid(res.qualified, name, [("metadata.resourceVersion", "FieldValueInvalid", _Go("0x0"),
                                                  "must be specified for an update")])
        if meta["resourceVersion"] != old["metadata"]["resourceVersion"]:
            raise APIError(409, "Conflict", f'Operation cannot be fulfilled on {res.qualified} "{name}": '
                           "the object has been modified; please apply your changes to the latest version "
                           "and try again", {"name": name, "group": res.group, "kind": res.plural})
        new = self._prepared(res, version, obj, old, sub)
        if new == old:
            return old      # nothing changed: no new resourceVersion, no event
        return self._commit(res, "MODIFIED", res.key(namespace, name), new)

    def _patch(self, res, version, namespace, name, content_type, patch, sub=None):
        old = res.objects.get(res.key(namespace, name))
        if old is None:
            raise res.not_found(name)
        try:
            if content_type == "application/merge-patch+json":
                obj = _merge_patch(old, patch)
            elif content_type == "application/json-patch+json":
                obj = _json_patch(old, patch)
            else:
                raise APIError(415, "UnsupportedMediaType", "the body of the request was in an unknown "
                               "format - accepted media types include: application/json-patch+json, "
                               "application/merge-patch+json")
        except (ValueError, KeyError, IndexError, TypeError) as e:
            raise APIError(422, "Invalid", f"the server rejected our request due to an error in our "
                           f"request: {e}") from None
        return self._update(res, version, namespace, name, obj, sub)

    def _delete(self, res, namespace, name):
        key = res.key(namespace, name)
        if key not in res.objects:
            raise res.not_found(name)
        old = res.objects[key]
        self._commit(res, "DELETED", key)
        return old

    # custom resources, for tests (plural: "gpufaults" or "gpufaults.mokka.io")
    def _version_of(self, res, obj):
        v = str(obj.get("apiVersion", "")).rpartition("/")[2]
        return v if v in res.versions else next(iter(res.versions))

    def create_object(self, plural, obj, namespace=None):
        """As POST does: validated, pruned, defaulted; raises APIError.
        Returns the object as stored."""
        with self.lock:
            res = self._res(plural)
            ns = namespace or (obj.get("metadata") or {}).get("namespace") if res.namespaced else None
            return copy.deepcopy(self._create(res, self._version_of(res, obj), ns, obj))

    def put_object(self, plural, obj, validate=False):
        """Store obj as given, made or replaced, sending ADDED or MODIFIED:
        an object that passed an older, looser CRD. With validate, as an
        unconditional PUT (or POST when new) would store it."""
        with self.lock:
            res = self._res(plural)
            meta = obj.get("metadata") or {}
            ns = meta.get("namespace") if res.namespaced else None
            key, version = res.key(ns, meta.get("name")), self._version_of(res, obj)
            old = res.objects.get(key)
            if validate:
                if old is None:
                    return copy.deepcopy(self._create(res, version, ns, obj))
                obj = dict(obj, metadata=dict(meta, resourceVersion=old["metadata"]["resourceVersion"]))
                return copy.deepcopy(self._update(res, version, ns, meta["name"], obj))
            obj = copy.deepcopy(obj)
            m = obj.setdefault("metadata", {})
            was = old["metadata"] if old else {"uid": str(uuid.uuid4()), "creationTimestamp": _rfc3339()}
            for k in ("uid", "creationTimestamp", "generation"):
                m.setdefault(k, was.get(k, 1))
            return copy.deepcopy(self._commit(res, "MODIFIED" if old else "ADDED", key, obj))

    def delete_object(self, plural, name, namespace=None):
        """Returns the object as it was; raises APIError (404) when none."""
        with self.lock:
            return copy.deepcopy(self._delete(self._res(plural), namespace, name))

    def get_object(self, plural, name, namespace=None):
        """A copy of the object, or None."""
        with self.lock:
            res = self._res(plural)
            return copy.deepcopy(res.objects.get(res.key(namespace, name)))

    def objects(self, plural, namespace=None):
        """Copies of the kind's objects (in one namespace, if given)."""
        with self.lock:
            return [copy.deepcopy(o) for o in self._res(plural).objects.values()
                    if namespace is None or o["metadata"].get("namespace") == namespace]

    def requests(self, verb=None, resource=None, since=0, until=float("inf")):
        """Log entries of that verb and resource (plural) from since to until (time.time())."""
        with self.lock:
            return [e for e in self.log if since <= e["t"] <= until and verb in (None, e["verb"])
                    and resource in (None, e["resource"])]

    # faults
    def fail_next(self, kind, code, retry_after=None, times=1):
        """The next `times` requests of `kind` ("list", "watch", "continue" -
        a LIST page after the first - of nodes; "<verb>:<plural>" of any kind,
        or "any") get `code` (401, 410, 429, 500, ...) with a Status body."""
        headers = {"Retry-After": str(retry_after)} if retry_after is not None else {}
        with self.lock:
            for _ in range(times):
                self.faults.append((kind, code, headers))

    def misbehave(self, kind, how, times=1, **args):
        """The next `times` requests of `kind` ("list", "watch" or "any";
        times=0: all of them) get the hostile answer _Handler._hostile_<how>(**args)."""
        if not hasattr(_Handler, "_hostile_" + how):
            raise ValueError("no hostile answer " + how)
        with self.lock:
            self.hostile.append([kind, how, args, times])

    def end_watches(self):
        """End every open watch stream, as the API server does at timeoutSeconds."""
        with self.lock:
            self.end_epoch += 1
            self._wake_all()

    def gone_event(self):
        """Send open watches an ERROR event with a 410 Status inside their 200
        stream, then end them."""
        with self.lock:
            self.gone_epoch += 1
            self._wake_all()

    def bookmark(self):
        with self.lock:
            self.bookmark_epoch += 1
            self._wake_all()

    def compact(self):
        """Forget history: watches from an older resourceVersion get 410, and
        so do LIST pages asked for with a continue token given before."""
        with self.lock:
            for res in self.resources.values():
                res.compacted_rv = self.rv
                res.history.clear()
                res.rvs.clear()
            self.list_snapshots.clear()

    def set_tokens(self, tokens):
        with self.lock:
            self.tokens = set(tokens)

    def stats(self):
        with self.lock:
            return dict(self.counts, active_watches=self.active_watches,
                        watches={r.plural: r.active_watches for r in self.resources.values()})

    # waiting, for tests
    def wait_for(self, pred, timeout=10):
        end = time.time() + timeout
        with self.cond:
            while not pred():
                left = end - time.time()
                if left <= 0:
                    raise TimeoutError("fake_apiserver: condition not met in time")
                self.cond.wait(min(left, 0.05))

    def wait_watching(self, count=1, timeout=10):
        """Until `count` node watches were made in all and one is open."""
        self.wait_for(lambda: self.counts["watch"] >= count and self.active_watches > 0, timeout)

    # used by _Handler, with the lock held
    def _route(self, path):
        """(resource, version, namespace, name, subresource) that an API path
        names, or None: /api/v1/PLURAL..., /apis/GROUP/VERSION/PLURAL...,
        either with namespaces/NS/ before PLURAL."""
        parts = [urllib.parse.unquote(p) for p in path.strip("/").split("/")]
        if parts[:2] == ["api", "v1"]:
            group, version, rest = "", "v1", parts[2:]
        elif parts[0] == "apis" and len(parts) > 3:
            group, version, rest = parts[1], parts[2], parts[3:]
        else:
            return None
        ns = None
        if not rest:
            return None
        if rest[0] == "namespaces" and len(rest) > 2:
            ns, rest = rest[1], rest[2:]
        res = self.resources.get((group, rest[0]))
        if not res or version not in res.versions or len(rest) > 3 or (ns is not None and not res.namespaced):
            return None
        name, sub = (rest[1:] + [None, None])[:2]
        if sub is not None and (sub != "status" or not res.versions[version].get("status")):
            return None
        if res.namespaced and name is not None and ns is None:
            return None
        return res, version, ns, name, sub

    def _take_fault(self, kinds):
        for f in list(self.faults):
            if f[0] in kinds + ("any",):
                self.faults.remove(f)
                return f
        return None

    def _take_hostile(self, kind):
        for h in self.hostile:
            if h[0] in (kind, "any"):
                if h[3] == 1:
                    self.hostile.remove(h)
                elif h[3] > 1:
                    h[3] -= 1
                return h[1], h[2]
        return None

    def _record(self, kind, verb, resource, status, auth, path, t=None):
        self.counts[kind] += 1
        if kind != f"{verb}:{resource}":
            self.counts[f"{verb}:{resource}"] += 1
        self.counts[str(status)] += 1
        self.log.append({"t": t or time.time(), "kind": kind, "verb": verb, "resource": resource,
                         "status": status, "auth": auth, "path": path})
        self.cond.notify_all()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # Hundreds of agents connect at once: no SYN retries behind a short backlog.
    request_queue_size = 1024

    def __init__(self, fake, ctx):
        self.fake, self.ctx = fake, ctx
        super().__init__(("127.0.0.1", 0), _Handler)

    def finish_request(self, request, client_address):
        # The TLS handshake runs here, in the connection's thread.
        # No Nagle: like the real API server (Go sets TCP_NODELAY), events
        # leave at once instead of waiting for the client's delayed ACK.
        request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            request.settimeout(10)
            tls = self.ctx.wrap_socket(request, server_side=True)
            tls.settimeout(None)
        except (ssl.SSLError, OSError):
            with self.fake.cond:
                self.fake.counts["tls_fail"] += 1
                self.fake.cond.notify_all()
            request.close()
            return
        try:
            self.RequestHandlerClass(tls, client_address, self)
        finally:
            tls.close()

    def handle_error(self, request, client_address):
        pass  # clients that hang up mid-stream are normal here


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    VERBS = {"POST": "create", "PUT": "update", "PATCH": "patch", "DELETE": "delete"}

    def log_message(self, *args):
        pass

    @property
    def fake(self):
        return self.server.fake

    def _auth(self):
        fake = self.fake
        if fake.client_certs and self.request.getpeercert():
            return "cert"
        h = self.headers.get("Authorization", "")
        if h.startswith("Bearer ") and h[7:] in fake.tokens:
            return "token:" + h[7:]
        if h.startswith("Basic "):
            try:
                if base64.b64decode(h[6:]).decode() in fake.basic:
                    return "basic"
            except ValueError:
                pass
        return None

    def _send_json(self, code, obj, headers=None):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def _chunk(self, obj):
        data = json.dumps(obj).encode() + b"\n"
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

    def do_GET(self):
        self._api("GET")

    def do_PUT(self):
        self._api("PUT")

    def do_PATCH(self):
        self._api("PATCH")

    def do_DELETE(self):
        self._api("DELETE")

    def do_POST(self):
        if self.path.startswith("/_mokka/"):
            return self._control()
        self._api("POST")

    def _api(self, method):
        """One API request: routed, counted and logged as "<verb>:<plural>"
        (node LIST and WATCH as "list" and "watch"), then authenticated and
        given any injected fault or hostile answer before it is served."""
        fake = self.fake
        t = time.time()
        url = urllib.parse.urlsplit(self.path)
        q = dict(urllib.parse.parse_qsl(url.query))
        data = self.rfile.read(int(self.headers.get("Content-Length") or 0)) if method != "GET" else b""
        with fake.lock:
            route = fake._route(url.path)
        res, name = (route[0], route[3]) if route else (None, None)
        if method != "GET":
            verb = self.VERBS[method]
        else:
            verb = "get" if name else "watch" if q.get("watch") in ("true", "1") else "list"
        resource = res.plural if res else "unknown"
        kind = verb if res is fake.node_res and verb in ("list", "watch") else f"{verb}:{resource}"
        auth = self._auth()

        def record(code):
            with fake.lock:
                fake._record(kind, verb, resource, code, auth, self.path, t)
        with fake.lock:
            hostile = fake._take_hostile(kind)
        if hostile:
            record("hostile")
            try:
                return getattr(self, "_hostile_" + hostile[0])(**hostile[1])
            except OSError:         # the client hung up, as it should
                self.close_connection = True
                return
        with fake.lock:
            kinds = (kind, f"{verb}:{resource}") + (("continue",) if verb == "list" and "continue" in q else ())
            fault = fake._take_fault(kinds) if auth else None
        try:
            if not auth:
                raise APIError(401, "Unauthorized", "Unauthorized")
            if fault:
                reasons = {410: "Expired", 429: "TooManyRequests", 500: "InternalError"}
                raise APIError(fault[1], reasons.get(fault[1], "Failure"), f"injected {fault[1]}")
            if not route:
                raise APIError(404, "NotFound", NO_RESOURCE, {})
            # Any kind takes any write (nodes too: mokka fleet makes and deletes them);
            # POST to the collection, the others to an object.
            if method != "GET" and (name is None) != (method == "POST"):
                raise APIError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource")
            if verb == "watch":
                return self._watch(route, q, record)
            code, obj = self._serve(method, route, q, data)
        except APIError as e:
            record(e.code)
            return self._send_json(e.code, e.status, fault[2] if fault else None)
        record(code)
        self._send_json(code, obj)

    def _serve(self, method, route, q, data):
        res, version, ns, name, sub = route
        fake = self.fake
        if method == "GET":
            return 200, self._list(route, q) if name is None else self._get(route)
        try:
            body = json.loads(data) if data else None
        except ValueError as e:
            raise APIError(400, "BadRequest", f"the object provided is unrecognized: {e}") from None
        with fake.lock:
            if method == "POST":
                return 201, fake._create(res, version, ns, body)
            if method == "PUT":
                return 200, fake._update(res, version, ns, name, body, sub)
            if method == "PATCH":
                ctype = self.headers.get("Content-Type", "").split(";")[0].strip()
                return 200, fake._patch(res, version, ns, name, ctype, body, sub)
            return 200, fake._delete(res, ns, name)

    def _get(self, route):
        res, version, ns, name, _ = route
        with self.fake.lock:
            obj = res.objects.get(res.key(ns, name))
        if obj is None:
            raise res.not_found(name)
        return _at_version(obj, res.api_version(version))

    def _list(self, route, q):
        """One LIST answer; with limit=, a page of a snapshot taken at the
        first page, and a continue token while objects are left."""
        res, version, ns, _, _ = route
        fake = self.fake
        limit = int(q.get("limit") or 0)
        selected = _selector(q, ns, res.plural)
        with fake.lock:
            if "continue" in q:
                if q["continue"] not in fake.list_snapshots:
                    raise APIError(410, "Expired", EXPIRED_CONTINUE)
                rv, items = fake.list_snapshots.pop(q["continue"])
            else:
                rv = str(fake.rv)
                items = [o for o in res.objects.values() if selected(o)]
            meta = {"resourceVersion": rv}
            if 0 < limit < len(items):
                fake.list_serial += 1
                token = base64.b64encode(json.dumps({"v": "meta.k8s.io/v1", "rv": int(rv),
                                                     "start": items[limit]["metadata"]["name"],
                                                     "n": fake.list_serial}).encode()).decode()
                fake.list_snapshots[token] = (rv, items[limit:])
                meta.update({"continue": token, "remainingItemCount": len(items) - limit})
                items = items[:limit]
        av = res.api_version(version)
        return {"kind": res.list_kind, "apiVersion": av, "metadata": meta,
                "items": [_at_version(o, av) for o in items]}

    def _watch(self, route, q, record):
        """A watch stream: from resourceVersion=, or (none or 0) the current
        objects as ADDED first, as the real server does."""
        res, version, ns, _, _ = route
        fake = self.fake
        rv = int(q.get("resourceVersion") or 0)
        deadline = time.time() + int(q.get("timeoutSeconds") or 1800)
        bookmarks = q.get("allowWatchBookmarks") == "true"
        selected = _selector(q, ns, res.plural)
        av = res.api_version(version)
        record(200)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        with fake.lock:
            res.active_watches += 1
            fake.cond.notify_all()
            epochs = (fake.end_epoch, fake.gone_epoch, fake.bookmark_epoch)
            initial = [] if rv else [o for o in res.objects.values() if selected(o)]
            rv = rv or fake.rv
        try:
            if rv < res.compacted_rv:
                self._chunk({"type": "ERROR", "object": status_object(
                    410, "Expired", f"too old resource version: {rv} ({res.compacted_rv})")})
            else:
                for o in initial:
                    self._chunk({"type": "ADDED", "object": _at_version(o, av)})
                self._stream(res, av, rv, deadline, bookmarks, selected, epochs)
            self.wfile.write(b"0\r\n\r\n")
        except OSError:
            self.close_connection = True
        finally:
            with fake.lock:
                res.active_watches -= 1
                fake.cond.notify_all()

    def _hung_up(self):
        """The watching client closed its end (a watch sends nothing more).
        poll, not select: hundreds of connections take descriptors past 1024."""
        p = select.poll()
        p.register(self.connection, select.POLLIN)
        return bool(p.poll(0))

    def _stream(self, res, av, rv, deadline, bookmarks, selected, epochs):
        fake = self.fake
        end0, gone0, book0 = epochs
        while True:
            out = []
            with fake.lock:
                while True:
                    lost = rv < res.trimmed_rv
                    new = res.history[bisect.bisect_right(res.rvs, rv):]
                    if lost or new or fake.stopping or res.removed or fake.end_epoch != end0 or \
                            fake.gone_epoch != gone0 or fake.bookmark_epoch != book0 or time.time() >= deadline:
                        break
                    if not res.cond.wait(min(2.0, max(deadline - time.time(), 0.001))) and self._hung_up():
                        self.close_connection = True
                        return
                for hrv, typ, obj, prev in [] if lost else new:
                    rv = hrv
                    seen = _seen_as(typ, obj, prev, selected)
                    if seen:
                        out.append({"type": seen, "object": _at_version(obj, av)})
                gone = lost or fake.gone_epoch != gone0
                if bookmarks and fake.bookmark_epoch != book0:
                    book0 = fake.bookmark_epoch
                    out.append({"type": "BOOKMARK", "object": {
                        "kind": res.kind, "apiVersion": av, "metadata": {"resourceVersion": str(fake.rv)}}})
                done = fake.stopping or res.removed or fake.end_epoch != end0 or time.time() >= deadline
            for ev in out:
                self._chunk(ev)
            if gone:
                self._chunk({"type": "ERROR", "object": status_object(
                    410, "Expired", f"too old resource version: {rv} ({res.trimmed_rv})" if lost
                    else "too old resource version")})
                return
            if done:
                return

    # --- hostile answers (FakeAPIServer.misbehave) ---------------------------

    def _chunked_head(self, headers=()):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()

    def _raw_chunk(self, data):
        if data:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

    def _hostile_huge_list(self, size, gzip=False, pad=0):
        """A valid NodeList of `size` bytes (before compression) streamed as
        it is made: many copies of one node, with an annotation of `pad`
        bytes; with gzip, a compression bomb (Content-Encoding: gzip)."""
        head = b'{"kind":"NodeList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":['
        node = make_node("bulk")
        node["metadata"]["annotations"]["pad"] = "x" * pad
        node = json.dumps(node).encode()
        block = b",".join([node] * max(1, (256 << 10) // len(node)))
        z = zlib.compressobj(9, zlib.DEFLATED, 31) if gzip else None
        put = (lambda d: self._raw_chunk(z.compress(d))) if gzip else self._raw_chunk
        self._chunked_head([("Content-Encoding", "gzip")] if gzip else [])
        put(head + block)
        sent = len(head) + len(block)
        while sent + len(block) + 2 < size:
            put(b"," + block)
            sent += len(block) + 1
        put(b"]}")
        if gzip:
            self._raw_chunk(z.flush())
        self.wfile.write(b"0\r\n\r\n")

    def _hostile_multiline_event(self, lines, allocatable=None):
        """One valid MODIFIED event for gpu-1 (with that allocatable GPU
        count) spread over `lines` lines, its pad array holding a number a
        line; then the stream stays open."""
        with self.fake.cond:
            node = copy.deepcopy(self.fake.nodes.get("gpu-1") or make_node("gpu-1"))
            node["metadata"]["resourceVersion"] = str(self.fake.rv)
        if allocatable is not None:
            node["status"]["allocatable"][GPU] = str(allocatable)
        head = json.dumps({"type": "MODIFIED", "object": node})[:-2].encode()
        body = head + b',"pad":[\n' + b"10,\n" * (lines - 1) + b"10\n]}}\n"
        self._chunked_head()
        for i in range(0, len(body), 16384):
            self._raw_chunk(body[i:i + 16384])
        self.wfile.flush()
        while not self.fake.stopping:
            time.sleep(0.05)

    def _hostile_endless_event(self):
        """A watch event that never ends: lines of its pad array (a string
        each), as fast as the client reads, until it hangs up."""
        self._chunked_head()
        self._raw_chunk(b'{"type":"MODIFIED","object":{"metadata":{"name":"gpu-1"},"pad":[\n')
        lines = (b'"' + b"x" * 60 + b'",\n') * 1024
        while not self.fake.stopping:
            self._raw_chunk(lines)

    def _hostile_echo_401(self):
        """401 with a Status message that quotes the request's Authorization
        header, as some proxies and webhooks do."""
        self._send_json(401, status_object(401, "Unauthorized", "Unauthorized: the request carried "
                                           "Authorization: " + self.headers.get("Authorization", "")))

    def _control(self):
        """The control channel when run alone: POST /_mokka/<method> {args}."""
        method = self.path.rsplit("/", 1)[-1]
        if method not in FakeAPIServer.CONTROL:
            return self._send_json(404, status_object(404, "NotFound", "no such control"))
        n = int(self.headers.get("Content-Length") or 0)
        args = json.loads(self.rfile.read(n) or b"{}")
        try:
            result = getattr(self.fake, method)(**args)
        except APIError as e:
            return self._send_json(e.code, e.status)
        except (KeyError, TypeError, ValueError, OSError) as e:
            return self._send_json(400, {"error": str(e)})
        self._send_json(200, {"result": result})


class SilentServer:
    """A TCP listener on loopback that accepts connections and never says a
    word: a hung API server, or a load balancer with nothing behind it."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.url = f"https://127.0.0.1:{self.port}"
        self.conns = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                self.conns.append(self.sock.accept()[0])
            except OSError:
                return

    def stop(self):
        self.sock.close()
        for c in self.conns:
            c.close()


def main():
    ap = argparse.ArgumentParser(description="stand-in Kubernetes API server")
    ap.add_argument("--dir", required=True, help="certificates and kubeconfig go here")
    ap.add_argument("--nodes", type=int, default=1)
    ap.add_argument("--gpus", type=int, default=8)
    ap.add_argument("--crds", action="append", default=[], metavar="FILE",
                    help="install the CustomResourceDefinitions in this YAML file (repeatable)")
    a = ap.parse_args()
    certs = make_certs(a.dir)
    srv = FakeAPIServer(certs).start()
    for path in a.crds:
        srv.install_crds_file(path)
    for i in range(a.nodes):
        srv.add_node(f"node-{i:04d}", gpus=a.gpus)
    path = os.path.join(a.dir, "kubeconfig")
    with open(path, "w") as f:
        f.write(kubeconfig(srv.url, {"client-certificate": certs["client_cert"],
                                     "client-key": certs["client_key"]},
                           {"certificate-authority": certs["ca"]}))
    print(f"serving {srv.url}; kubeconfig {path}", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        srv.stop()


if __name__ == "__main__":
    main()
