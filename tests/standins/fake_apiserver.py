#!/usr/bin/env python3
"""fake_apiserver.py - a stand-in Kubernetes API server for Mokka's tests
(Python 3 standard library only).

It serves GET /api/v1/nodes - a NodeList with a resourceVersion, filtered by
fieldSelector (metadata.name) and labelSelector, in pages with limit= and
continue= tokens served from the first page's snapshot - and ?watch=true streams
(chunked, one JSON event per line, bookmarks when asked for) of real Node
objects, over TLS on 127.0.0.1 with an ephemeral port. Certificates come from
make_certs(), which runs the openssl CLI into a directory the caller owns.

Tests drive it in-process:

    certs = make_certs(tmpdir)
    srv = FakeAPIServer(certs, tokens={"s3cret"}).start()
    srv.add_node("gpu-1", gpus=8)
    ... srv.set_allocatable("gpu-1", "nvidia.com/gpu", 7)
    ... srv.fail_next("watch", 429, retry_after="1"); srv.end_watches()
    srv.counts["list"], srv.counts["watch"]
    srv.stop()

Hostile answers, for the client's bounds and secrecy (see _Handler's
_hostile_* methods): srv.misbehave("list", "huge_list", size=2 << 30),
srv.misbehave("watch", "endless_event"), srv.misbehave("any", "echo_401").
SilentServer() accepts connections and never answers.

Run alone (python3 fake_apiserver.py --dir D --nodes 3), it writes
D/kubeconfig and takes the same calls as POST /_mokka/<method> with a JSON
object of arguments, e.g. curl --cacert D/ca.crt -d '{"name": "node-0000",
"resource": "nvidia.com/gpu", "value": 7}' https://127.0.0.1:PORT/_mokka/set_allocatable
"""
import argparse
import base64
import collections
import copy
import json
import os
import socket
import ssl
import subprocess
import threading
import time
import urllib.parse
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

GPU = "nvidia.com/gpu"
# What the API server says when a continue token's snapshot is gone.
EXPIRED_CONTINUE = ("The provided continue parameter is too old to display a consistent list result. "
                    "You can start a new list without the continue parameter.")


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


def _field_match(node, selector):
    for term in filter(None, (selector or "").split(",")):
        k, v = term.replace("==", "=").split("=", 1)
        if k != "metadata.name" or node["metadata"]["name"] != v:
            return False
    return True


def status_object(code, reason, message):
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": message, "reason": reason, "code": code}


# --- the server ------------------------------------------------------------------------

class FakeAPIServer:
    """State and control; the HTTP side is _Handler."""

    CONTROL = {"add_node", "delete_node", "set_allocatable", "set_capacity", "set_label",
               "set_condition", "add_taint", "set_all_allocatable", "end_watches", "gone_event",
               "bookmark", "fail_next", "compact", "set_tokens", "stats", "misbehave"}

    def __init__(self, certs, tokens=(), basic=(), client_certs=True, require_client_cert=False):
        self.certs = certs
        self.tokens = set(tokens)
        self.basic = set(basic)             # "user:password"
        self.client_certs = client_certs    # a verified client certificate authenticates
        self.require_client_cert = require_client_cert
        self.cond = threading.Condition()
        self.nodes = {}
        self.rv = 1000
        self.history = []                   # (rv, type, node) for watches to replay
        self.compacted_rv = 0
        self.list_snapshots = {}            # continue token -> (rv, items left)
        self.list_serial = 0                # makes every continue token unique
        self.faults = collections.deque()   # (kind, code, headers, body)
        self.hostile = collections.deque()  # (kind, how, args, times left)
        self.end_epoch = 0                  # end_watches() bumps it
        self.gone_epoch = 0                 # gone_event() bumps it
        self.bookmark_epoch = 0
        self.active_watches = 0
        self.counts = collections.Counter()
        self.log = []                       # {"t", "kind", "status", "auth", "path"}
        self.stopping = False
        self.httpd = None

    # lifecycle
    def start(self):
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
        with self.cond:
            self.stopping = True
            self.cond.notify_all()
        if self.httpd:
            self.httpd.shutdown()
            self.httpd.server_close()

    # changes to nodes: each bumps the resourceVersion and wakes the watches
    def _changed(self, kind, node):
        self.rv += 1
        node["metadata"]["resourceVersion"] = str(self.rv)
        self.history.append((self.rv, kind, copy.deepcopy(node)))
        self.cond.notify_all()
        return time.time()

    def add_node(self, name, gpus=8, allocatable=None, labels=None, taints=None):
        with self.cond:
            self.nodes[name] = make_node(name, gpus, allocatable, labels, taints)
            return self._changed("ADDED", self.nodes[name])

    def delete_node(self, name):
        with self.cond:
            return self._changed("DELETED", self.nodes.pop(name))

    def modify(self, name, fn):
        """Apply fn(node) and send MODIFIED; returns the time.time() of the change."""
        with self.cond:
            fn(self.nodes[name])
            return self._changed("MODIFIED", self.nodes[name])

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
        with self.cond:
            t = time.time()
            for n in self.nodes.values():
                n["status"]["allocatable"][resource] = str(value)
                self._changed("MODIFIED", n)
            return t

    # faults
    def fail_next(self, kind, code, retry_after=None, times=1):
        """The next `times` requests of `kind` ("list", "watch", "continue" -
        a LIST page after the first - or "any") get `code` (401, 410, 429,
        500, ...) with a Status body."""
        headers = {"Retry-After": str(retry_after)} if retry_after is not None else {}
        with self.cond:
            for _ in range(times):
                self.faults.append((kind, code, headers))

    def misbehave(self, kind, how, times=1, **args):
        """The next `times` requests of `kind` ("list", "watch" or "any";
        times=0: all of them) get the hostile answer _Handler._hostile_<how>(**args)."""
        if not hasattr(_Handler, "_hostile_" + how):
            raise ValueError("no hostile answer " + how)
        with self.cond:
            self.hostile.append([kind, how, args, times])

    def end_watches(self):
        """End every open watch stream, as the API server does at timeoutSeconds."""
        with self.cond:
            self.end_epoch += 1
            self.cond.notify_all()

    def gone_event(self):
        """Send open watches an ERROR event with a 410 Status inside their 200
        stream, then end them."""
        with self.cond:
            self.gone_epoch += 1
            self.cond.notify_all()

    def bookmark(self):
        with self.cond:
            self.bookmark_epoch += 1
            self.cond.notify_all()

    def compact(self):
        """Forget history: watches from an older resourceVersion get 410, and
        so do LIST pages asked for with a continue token given before."""
        with self.cond:
            self.compacted_rv = self.rv
            self.history.clear()
            self.list_snapshots.clear()

    def set_tokens(self, tokens):
        with self.cond:
            self.tokens = set(tokens)

    def stats(self):
        with self.cond:
            return dict(self.counts, active_watches=self.active_watches)

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
        """Until `count` watches were made in all and one is open."""
        self.wait_for(lambda: self.counts["watch"] >= count and self.active_watches > 0, timeout)

    # used by _Handler, under self.cond
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

    def _record(self, kind, status, auth, path):
        self.counts[kind] += 1
        self.counts[str(status)] += 1
        self.log.append({"t": time.time(), "kind": kind, "status": status, "auth": auth, "path": path})
        self.cond.notify_all()


class _Server(ThreadingHTTPServer):
    daemon_threads = True

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
        url = urllib.parse.urlsplit(self.path)
        q = dict(urllib.parse.parse_qsl(url.query))
        if url.path != "/api/v1/nodes":
            return self._send_json(404, status_object(404, "NotFound", "the server could not find the requested resource"))
        kind = "watch" if q.get("watch") in ("true", "1") else "list"
        fake = self.fake
        auth = self._auth()
        with fake.cond:
            hostile = fake._take_hostile(kind)
            if hostile:
                fake._record(kind, "hostile", auth, self.path)
        if hostile:
            try:
                return getattr(self, "_hostile_" + hostile[0])(**hostile[1])
            except OSError:         # the client hung up, as it should
                self.close_connection = True
                return
        with fake.cond:
            kinds = (kind, "continue") if kind == "list" and "continue" in q else (kind,)
            fault = fake._take_fault(kinds) if auth else None
            if not auth:
                code = 401
            elif fault:
                code = fault[1]
            elif kind == "list" and "continue" in q and q["continue"] not in fake.list_snapshots:
                code = 410
            else:
                code = 200
            fake._record(kind, code, auth, self.path)
        if code == 401:
            return self._send_json(401, status_object(401, "Unauthorized", "Unauthorized"))
        if code == 410 and not fault:
            return self._send_json(410, status_object(410, "Expired", EXPIRED_CONTINUE))
        if fault:
            reasons = {410: "Expired", 429: "TooManyRequests", 500: "InternalError"}
            return self._send_json(code, status_object(code, reasons.get(code, "Failure"), f"injected {code}"),
                                   fault[2])
        if kind == "list":
            return self._list(q)
        return self._watch(q)

    def _list(self, q):
        """One LIST answer; with limit=, a page of a snapshot taken at the
        first page, and a continue token while nodes are left."""
        fake = self.fake
        limit = int(q.get("limit") or 0)
        with fake.cond:
            if "continue" in q:
                rv, items = fake.list_snapshots.pop(q["continue"])
            else:
                rv = str(fake.rv)
                items = [copy.deepcopy(n) for n in fake.nodes.values()
                         if _field_match(n, q.get("fieldSelector")) and
                         _label_match(n["metadata"]["labels"], q.get("labelSelector"))]
            meta = {"resourceVersion": rv}
            if 0 < limit < len(items):
                fake.list_serial += 1
                token = base64.b64encode(json.dumps({"v": "meta.k8s.io/v1", "rv": int(rv),
                                                     "start": items[limit]["metadata"]["name"],
                                                     "n": fake.list_serial}).encode()).decode()
                fake.list_snapshots[token] = (rv, items[limit:])
                meta.update({"continue": token, "remainingItemCount": len(items) - limit})
                items = items[:limit]
        self._send_json(200, {"kind": "NodeList", "apiVersion": "v1", "metadata": meta, "items": items})

    def _watch(self, q):
        fake = self.fake
        rv = int(q.get("resourceVersion") or 0)
        deadline = time.time() + int(q.get("timeoutSeconds") or 1800)
        bookmarks = q.get("allowWatchBookmarks") == "true"

        def selected(n):
            return _field_match(n, q.get("fieldSelector")) and \
                _label_match(n["metadata"]["labels"], q.get("labelSelector"))

        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        with fake.cond:
            fake.active_watches += 1
            visible = {n for n, v in fake.nodes.items() if selected(v)}
            epochs = (fake.end_epoch, fake.gone_epoch, fake.bookmark_epoch)
        try:
            if rv and rv < fake.compacted_rv:
                self._chunk({"type": "ERROR", "object": status_object(
                    410, "Expired", f"too old resource version: {rv} ({fake.compacted_rv})")})
            else:
                self._stream(rv, deadline, bookmarks, selected, visible, epochs)
            self.wfile.write(b"0\r\n\r\n")
        except OSError:
            self.close_connection = True
        finally:
            with fake.cond:
                fake.active_watches -= 1
                fake.cond.notify_all()

    def _stream(self, rv, deadline, bookmarks, selected, visible, epochs):
        fake = self.fake
        end0, gone0, book0 = epochs
        while True:
            out = []
            with fake.cond:
                while True:
                    new = [h for h in fake.history if h[0] > rv]
                    if new or fake.stopping or fake.end_epoch != end0 or fake.gone_epoch != gone0 \
                            or fake.bookmark_epoch != book0 or time.time() >= deadline:
                        break
                    fake.cond.wait(min(0.5, max(deadline - time.time(), 0.001)))
                for hrv, typ, node in new:
                    rv = hrv
                    name = node["metadata"]["name"]
                    if typ != "DELETED" and selected(node):
                        out.append({"type": "ADDED" if name not in visible else typ, "object": node})
                        visible.add(name)
                    elif name in visible:
                        # Deleted, or no longer matches the selector.
                        out.append({"type": "DELETED", "object": node})
                        visible.discard(name)
                gone = fake.gone_epoch != gone0
                if bookmarks and fake.bookmark_epoch != book0:
                    book0 = fake.bookmark_epoch
                    out.append({"type": "BOOKMARK", "object": {
                        "kind": "Node", "apiVersion": "v1",
                        "metadata": {"resourceVersion": str(fake.rv)}}})
                done = fake.stopping or fake.end_epoch != end0 or time.time() >= deadline
            for ev in out:
                self._chunk(ev)
            if gone:
                self._chunk({"type": "ERROR", "object": status_object(
                    410, "Expired", "too old resource version")})
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

    def do_POST(self):
        """The control channel when run alone: POST /_mokka/<method> {args}."""
        method = self.path.rsplit("/", 1)[-1]
        if not self.path.startswith("/_mokka/") or method not in FakeAPIServer.CONTROL:
            return self._send_json(404, status_object(404, "NotFound", "no such control"))
        n = int(self.headers.get("Content-Length") or 0)
        args = json.loads(self.rfile.read(n) or b"{}")
        try:
            result = getattr(self.fake, method)(**args)
        except (KeyError, TypeError, ValueError) as e:
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
    a = ap.parse_args()
    certs = make_certs(a.dir)
    srv = FakeAPIServer(certs).start()
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
