"""test_kube.py - cluster mode end to end: build/tests/kube-watch (the API
server client, src/kube/) against the stand-in API server over TLS on
loopback. Also, when $MOKKA_TEST_KUBECONFIG names a real cluster's
kubeconfig, read-only checks against it."""
import base64
import email.utils
import os
import select
import shutil
import socket
import statistics
import threading
import time
import unittest

from kubetest import KUBE_WATCH, SLOW, TOKEN, Driver, KubeTestCase, clean_env, counts, detected_at, fa


def start_time(pid):
    """A process's start time (to tell it from a later one with its pid), or None."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def alive(pid, start):
    """Whether the process that had that start time still runs (a zombie does not)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            rest = f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return False
    return start is not None and rest[19] == start and rest[0] != "Z"


def b64file(path):
    with open(path, "rb") as f:
        return base64.b64encode(f.read()).decode()


class Access(KubeTestCase):
    """Finding the cluster and authenticating, like kubectl."""

    def test_client_certificate_files(self):
        self.server(require_client_cert=True, tokens=())
        rc, out, err = self.run_driver("--kubeconfig", self.kubeconfig(), "--expect-allocatable", "8")
        self.assertEqual(rc, 0, err)
        self.assertIn("ok: 1/1 nodes show allocatable nvidia.com/gpu=8", out)
        self.assertEqual(self.srv.log[0]["auth"], "cert")

    def test_inline_certificate_data(self):
        self.server(require_client_cert=True, tokens=())
        kc = self.kubeconfig(user={"client-certificate-data": b64file(self.certs["client_cert"]),
                                   "client-key-data": b64file(self.certs["client_key"])},
                             cluster={"certificate-authority-data": b64file(self.certs["ca"])})
        rc, out, err = self.run_driver("--kubeconfig", kc, "--expect-allocatable", "8")
        self.assertEqual(rc, 0, err)

    def test_bearer_token_never_shown(self):
        self.server(client_certs=False)
        kc = self.kubeconfig(user={"token": TOKEN})
        rc, out, err = self.run_driver("--kubeconfig", kc, "--expect-allocatable", "8", "--verbose")
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.srv.log[0]["auth"], "token:" + TOKEN)
        self.assertIn("token (redacted)", out)
        self.assertNotIn(TOKEN, out + err)

    def test_basic_auth(self):
        self.server(client_certs=False, tokens=(), basic={"ann:pa55-word"})
        kc = self.kubeconfig(user={"username": "ann", "password": "pa55-word"})
        rc, out, err = self.run_driver("--kubeconfig", kc, "--expect-allocatable", "8", "--verbose")
        self.assertEqual(rc, 0, err)
        self.assertIn("basic auth as 'ann' (password redacted)", out)
        self.assertNotIn("pa55-word", out + err)

    def test_kubeconfig_env_merged_and_context_flag(self):
        self.server(client_certs=False)
        good = self.kubeconfig(user={"token": TOKEN}, name="good")
        with open(os.path.join(self.dir, "first"), "w") as f:
            f.write(fa.to_yaml({"current-context": "elsewhere",
                                "contexts": [{"name": "elsewhere", "context": {"cluster": "nope"}}]}))
        env = self.env(KUBECONFIG=os.path.join(self.dir, "first") + ":" + good)
        rc, out, err = self.run_driver("--expect-allocatable", "8", env=env)
        self.assertEqual(rc, 3)
        self.assertIn("context 'elsewhere' names cluster 'nope', which no file defines", err)
        rc, out, err = self.run_driver("--context", "fake", "--expect-allocatable", "8", env=env)
        self.assertEqual(rc, 0, err)

    def test_home_kube_config(self):
        self.server(client_certs=False)
        os.makedirs(os.path.join(self.dir, ".kube"))
        os.rename(self.kubeconfig(user={"token": TOKEN}), os.path.join(self.dir, ".kube", "config"))
        rc, out, err = self.run_driver("--expect-allocatable", "8")
        self.assertEqual(rc, 0, err)

    def test_in_cluster_service_account(self):
        self.server(client_certs=False)
        sa = os.path.join(self.dir, "sa")
        os.makedirs(sa)
        shutil.copy(self.certs["ca"], os.path.join(sa, "ca.crt"))
        with open(os.path.join(sa, "token"), "w") as f:
            f.write(TOKEN + "\n")
        env = self.env(KUBERNETES_SERVICE_HOST="127.0.0.1", KUBERNETES_SERVICE_PORT=str(self.srv.port),
                       MOKKA_SA_DIR=sa)
        rc, out, err = self.run_driver("--expect-allocatable", "8", "--verbose", env=env)
        self.assertEqual(rc, 0, err)
        self.assertIn("in-cluster config (" + sa + ")", out)
        self.assertNotIn(TOKEN, out + err)

    def test_token_file_rotation_and_401(self):
        self.server(client_certs=False)
        tf = os.path.join(self.dir, "token")
        with open(tf, "w") as f:
            f.write("token-one")
        self.srv.set_tokens({"token-one"})
        d = self.start("--kubeconfig", self.kubeconfig(user={"tokenFile": tf}), "--expect-allocatable", "7")
        self.srv.wait_watching()
        # The token rotates; the open stream goes on, the next request gets a
        # 401, and the client re-reads the file.
        with open(tf, "w") as f:
            f.write("token-two")
        self.srv.set_tokens({"token-two"})
        self.srv.end_watches()
        self.srv.wait_watching(count=3)
        self.srv.set_allocatable("gpu-1", value=7)
        rc, out, err = d.finish()
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.srv.counts["401"], 1)
        self.assertEqual(counts(out)["credential_loads"], 2)
        self.assertNotIn("token-one", out + err)
        self.assertNotIn("token-two", out + err)

    def test_one_401_then_the_reread_token_works(self):
        self.server(client_certs=False)
        tf = os.path.join(self.dir, "token")
        with open(tf, "w") as f:
            f.write(TOKEN)
        d = self.start("--kubeconfig", self.kubeconfig(user={"tokenFile": tf}), "--expect-allocatable", "7")
        self.srv.wait_watching()
        self.srv.fail_next("watch", 401)
        self.srv.end_watches()
        self.srv.wait_watching(count=3)
        self.srv.set_allocatable("gpu-1", value=7)
        rc, out, err = d.finish()
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.srv.counts["401"], 1)
        self.assertEqual(counts(out)["credential_loads"], 2)

    def write_plugin(self, expiry_s=None):
        """An exec plugin that counts its runs and returns the token in $D/token.
        With expiry_s, its first credential expires that many seconds after it
        ran (whole seconds, so possibly sooner) and every later one in an hour:
        a slow machine must not see a second credential expire mid-test."""
        d = self.dir
        with open(os.path.join(d, "token"), "w") as f:
            f.write("plugin-token-1")
        expiry = ""
        if expiry_s is not None:
            expiry = (',"expirationTimestamp":"\'"$(date -u -d @$(( $(date +%s) + '
                      '$([ "$n" = 0 ] && echo ' + str(expiry_s) + ' || echo 3600) )) +%Y-%m-%dT%H:%M:%SZ)"\'"')
        script = os.path.join(d, "plugin.sh")
        with open(script, "w") as f:
            f.write("#!/bin/sh\n"
                    'n=$(cat "$D/count" 2>/dev/null || echo 0); echo $((n + 1)) > "$D/count"\n'
                    'printf "%s" "$KUBERNETES_EXEC_INFO" > "$D/info"\n'
                    "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
                    "\"status\":{\"token\":\"'$(cat \"$D/token\")'\"" + expiry + "}}'\n")
        os.chmod(script, 0o755)
        return {"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": "./plugin.sh",
                         "args": ["--ignored"], "env": [{"name": "D", "value": d}],
                         "interactiveMode": "Never"}}

    def plugin_runs(self):
        with open(os.path.join(self.dir, "count")) as f:
            return int(f.read())

    def test_exec_plugin_given_up_takes_its_children_along(self):
        # A plugin that never answers, with a child in the background and
        # one in the foreground: given up at the deadline, it goes with both
        # (they lived on with PPID 1 when only the plugin was killed).
        self.server(client_certs=False)
        d = self.dir
        script = os.path.join(d, "hang.sh")
        with open(script, "w") as f:
            f.write('#!/bin/sh\necho $$ > "$D/plugin.pid"\n'
                    'sleep 1000 & echo $! > "$D/background.pid"\n'
                    "sh -c 'echo $$ > \"$D/foreground.pid\"; exec sleep 1000'\n")
        os.chmod(script, 0o755)
        started = {}

        def kill_left():
            for pid, start in started.items():
                if alive(pid, start):
                    os.kill(pid, 9)
        self.addCleanup(kill_left)
        kc = self.kubeconfig(user={"exec": {"apiVersion": "client.authentication.k8s.io/v1",
                                            "command": script, "env": [{"name": "D", "value": d}],
                                            "interactiveMode": "Never"}})
        driver = self.start("--kubeconfig", kc, "--expect-allocatable", "8", "--timeout", "3")
        names = ("plugin", "background", "foreground")
        deadline = time.monotonic() + 30 * SLOW
        while not all(os.path.exists(os.path.join(d, n + ".pid")) for n in names):
            self.assertLess(time.monotonic(), deadline, "the plugin never started its children")
            time.sleep(0.05)
        for n in names:
            with open(os.path.join(d, n + ".pid")) as f:
                pid = int(f.read())
            started[pid] = start_time(pid)
        rc, out, err = driver.finish()
        self.assertEqual(rc, 3)
        self.assertIn("did not finish within", err)
        deadline = time.monotonic() + 30 * SLOW
        while any(alive(p, s) for p, s in started.items()) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertEqual([p for p, s in started.items() if alive(p, s)], [],
                         "the plugin's children outlived it")

    def test_exec_plugin_rerun_on_401(self):
        self.server(client_certs=False, tokens={"plugin-token-1"})
        d = self.start("--kubeconfig", self.kubeconfig(user=self.write_plugin()), "--expect-allocatable", "7")
        self.srv.wait_watching()
        self.assertEqual(self.plugin_runs(), 1)
        with open(os.path.join(self.dir, "info")) as f:
            self.assertEqual(f.read(), '{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",'
                                       '"spec":{"interactive":false}}')
        with open(os.path.join(self.dir, "token"), "w") as f:
            f.write("plugin-token-2")
        self.srv.set_tokens({"plugin-token-2"})
        self.srv.end_watches()
        self.srv.wait_watching(count=3)
        self.srv.set_allocatable("gpu-1", value=7)
        rc, out, err = d.finish()
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.plugin_runs(), 2)
        self.assertEqual(self.srv.counts["401"], 1)
        self.assertNotIn("plugin-token", out + err)

    def test_exec_plugin_rerun_on_expiry(self):
        self.server(client_certs=False, tokens={"plugin-token-1"})
        d = self.start("--kubeconfig", self.kubeconfig(user=self.write_plugin(expiry_s=1)),
                       "--expect-allocatable", "7")
        self.srv.wait_watching()
        time.sleep(2.1)
        self.srv.end_watches()
        self.srv.wait_watching(count=2)
        self.srv.set_allocatable("gpu-1", value=7)
        rc, out, err = d.finish()
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.plugin_runs(), 2)
        self.assertEqual(self.srv.counts["401"], 0)

    def test_unauthorized_static_token(self):
        self.server(client_certs=False)
        kc = self.kubeconfig(user={"token": "wrong-secret-value"})
        rc, out, err = self.run_driver("--kubeconfig", kc, "--expect-allocatable", "8")
        self.assertEqual(rc, 3)
        self.assertIn("401 Unauthorized", err)
        self.assertIn("token (redacted)", err)
        self.assertNotIn("wrong-secret-value", out + err)
        self.assertEqual(self.srv.counts["list"], 1)

    def test_proxy_url(self):
        self.server(client_certs=False)
        proxy = ConnectProxy()
        try:
            kc = self.kubeconfig(user={"token": TOKEN}, cluster={"certificate-authority": self.certs["ca"],
                                                                 "proxy-url": f"http://127.0.0.1:{proxy.port}"})
            rc, out, err = self.run_driver("--kubeconfig", kc, "--expect-allocatable", "8")
        finally:
            proxy.close()
        self.assertEqual(rc, 0, err)
        self.assertIn(f"CONNECT 127.0.0.1:{self.srv.port}", proxy.requests)


class TLS(KubeTestCase):
    """The server is verified against the kubeconfig's CA, and only skipped
    when the kubeconfig says so."""

    def test_wrong_ca_fails_fast(self):
        self.server(client_certs=False)
        other = fa.make_certs(os.path.join(self.dir, "other"))
        kc = self.kubeconfig(user={"token": TOKEN}, cluster={"certificate-authority": other["ca"]})
        rc, out, err = self.run_driver("--kubeconfig", kc, "--expect-allocatable", "8", "--timeout", "20")
        self.assertEqual(rc, 3)
        self.assertIn(f"GET https://127.0.0.1:{self.srv.port}/api/v1/nodes?limit=500: SSL certificate problem", err)
        self.assertLess(self.srv.counts["tls_fail"] + self.srv.counts["list"], 3)

    def test_tls_server_name(self):
        self.server(client_certs=False)
        url = f"https://localhost:{self.srv.port}"     # not in the certificate
        kc = self.kubeconfig(user={"token": TOKEN}, server=url)
        rc, out, err = self.run_driver("--kubeconfig", kc, "--expect-allocatable", "8")
        self.assertEqual(rc, 3, out)
        self.assertIn("localhost", err)
        kc = self.kubeconfig(user={"token": TOKEN}, server=url,
                             cluster={"certificate-authority": self.certs["ca"],
                                      "tls-server-name": "kubernetes.default.svc"})
        rc, out, err = self.run_driver("--kubeconfig", kc, "--expect-allocatable", "8")
        self.assertEqual(rc, 0, err)

    def test_insecure_skip_tls_verify_warns_once(self):
        self.server(client_certs=False)
        kc = self.kubeconfig(user={"token": TOKEN}, cluster={"insecure-skip-tls-verify": True})
        d = self.start("--kubeconfig", kc, "--expect-allocatable", "7")
        self.srv.wait_watching()
        self.srv.end_watches()
        self.srv.wait_watching(count=2)
        self.srv.set_allocatable("gpu-1", value=7)
        rc, out, err = d.finish()
        self.assertEqual(rc, 0, err)
        warnings = [l for l in err.splitlines() if "insecure-skip-tls-verify" in l]
        self.assertEqual(len(warnings), 1, err)
        self.assertIn("warning: ", warnings[0])

    def test_unreachable(self):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()                        # nobody listens there now
        self.srv = None
        with open(os.path.join(self.dir, "kc"), "w") as f:
            f.write(fa.kubeconfig(f"https://127.0.0.1:{port}", {"token": TOKEN},
                                  {"certificate-authority": self.certs["ca"]}))
        rc, out, err = self.run_driver("--kubeconfig", os.path.join(self.dir, "kc"),
                                       "--expect-allocatable", "8", "--timeout", "2")
        self.assertEqual(rc, 3)
        self.assertIn("Couldn't connect to server", err)
        self.assertIn("gave up", err)


class Config(KubeTestCase):
    def test_bad_kubeconfig_names_file_and_object(self):
        path = os.path.join(self.dir, "kc")
        with open(path, "w") as f:
            f.write("current-context: kind-ci\n"
                    "clusters: [{name: kind, cluster: {server: 'https://127.0.0.1:1'}}]\n"
                    "contexts: [{name: kind-ci, context: {cluster: kind, user: admin}}]\n")
        rc, out, err = self.run_driver("--kubeconfig", path, "--expect-allocatable", "8")
        self.assertEqual(rc, 3)
        self.assertIn(f"kubeconfig {path}: context 'kind-ci' names user 'admin', which no file defines", err)

    def test_no_cluster_at_all(self):
        rc, out, err = self.run_driver("--expect-allocatable", "8")
        self.assertEqual(rc, 3)
        self.assertIn("no cluster to talk to", err)


class Watching(KubeTestCase):
    """One LIST, one WATCH; changes arrive in milliseconds; the stream's ends
    and 410s are handled as client-go's reflector handles them."""

    def wait_for_7(self, *extra):
        return self.start("--kubeconfig", self.kubeconfig(), "--expect-allocatable", "7", *extra)

    def test_change_detected_fast(self):
        self.server()
        latencies = []
        for _ in range(3):
            self.srv.set_allocatable("gpu-1", value=8)
            d = self.wait_for_7()
            self.srv.wait_watching(count=len(latencies) + 1)
            t0 = self.srv.set_allocatable("gpu-1", value=7)
            rc, out, err = d.finish()
            self.assertEqual(rc, 0, err)
            latencies.append(detected_at(out) - t0)
            c = counts(out)
            self.assertEqual((c["lists"], c["watches"], c["events"]), (1, 1, 1))
        median = statistics.median(latencies)
        print(f"\ndetection latency: median {median * 1000:.1f} ms of {latencies}")
        self.assertLess(median, 0.1 * SLOW)

    def test_stream_end_rewatches_from_last_version(self):
        self.server()
        d = self.wait_for_7()
        self.srv.wait_watching()
        self.srv.set_label("gpu-1", "touched", "yes")      # moves the resourceVersion on
        rv = str(self.srv.rv)
        self.srv.end_watches()
        self.srv.wait_watching(count=2)
        self.srv.set_allocatable("gpu-1", value=7)
        rc, out, err = d.finish()
        self.assertEqual(rc, 0, err)
        watches = [e["path"] for e in self.srv.log if e["kind"] == "watch"]
        self.assertIn("resourceVersion=" + rv + "&", watches[1])
        self.assertEqual(self.srv.counts["list"], 1)
        self.assertEqual(counts(out)["relists"], 0)

    def test_bookmark_moves_resource_version(self):
        self.server(nodes=("gpu-1", "cpu-1"))
        d = self.start("--kubeconfig", self.kubeconfig(), "--node", "gpu-1", "--expect-allocatable", "7")
        self.srv.wait_watching()
        self.srv.set_label("cpu-1", "x", "y")             # not ours: only a bookmark tells
        self.srv.bookmark()
        time.sleep(0.2 * SLOW)                   # nothing to see: the view does not change
        rv = str(self.srv.rv)
        self.srv.end_watches()
        self.srv.wait_watching(count=2)
        self.srv.set_allocatable("gpu-1", value=7)
        rc, out, err = d.finish()
        self.assertEqual(rc, 0, err)
        self.assertEqual(counts(out)["bookmarks"], 1)
        watches = [e["path"] for e in self.srv.log if e["kind"] == "watch"]
        self.assertIn("resourceVersion=" + rv + "&", watches[1])

    def test_410_status_relists(self):
        self.server()
        d = self.wait_for_7("--verbose")
        self.srv.wait_watching()
        self.srv.fail_next("watch", 410)
        self.srv.end_watches()
        self.srv.wait_watching(count=3)
        self.srv.set_allocatable("gpu-1", value=7)
        rc, out, err = d.finish()
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.srv.counts["list"], 2)
        self.assertEqual(counts(out)["relists"], 1)
        self.assertIn("410 Gone", err)

    def test_410_error_event_in_stream_relists(self):
        self.server()
        d = self.wait_for_7("--verbose")
        self.srv.wait_watching()
        self.srv.gone_event()
        self.srv.wait_watching(count=2)
        self.srv.set_allocatable("gpu-1", value=7)
        rc, out, err = d.finish()
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.srv.counts["list"], 2)
        self.assertEqual(counts(out)["relists"], 1)
        self.assertIn("watch ERROR event 410", err)

    def test_compacted_history_relists(self):
        self.server(nodes=("gpu-1", "cpu-1"))
        d = self.start("--kubeconfig", self.kubeconfig(), "--node", "gpu-1", "--expect-allocatable", "7")
        self.srv.wait_watching()
        self.srv.set_label("cpu-1", "x", "y")    # moves the server on, not our watch
        self.srv.compact()                       # our resourceVersion is now too old
        self.srv.end_watches()
        self.srv.wait_for(lambda: self.srv.counts["list"] == 2)
        self.srv.wait_watching(count=3)
        self.srv.set_allocatable("gpu-1", value=7)
        rc, out, err = d.finish()
        self.assertEqual(rc, 0, err)
        self.assertEqual(counts(out)["relists"], 1)

    def retry_gap(self, after_status):
        """Seconds from the first answer with `after_status` to the next request."""
        log = self.srv.log
        i = next(i for i, e in enumerate(log) if e["status"] == after_status)
        return log[i + 1]["t"] - log[i]["t"]

    def test_429_retry_after_seconds(self):
        self.server()
        d = self.wait_for_7()
        self.srv.wait_watching()
        self.srv.fail_next("watch", 429, retry_after=1)
        self.srv.end_watches()
        self.srv.wait_watching(count=3, timeout=10)
        self.srv.set_allocatable("gpu-1", value=7)
        rc, out, err = d.finish()
        self.assertEqual(rc, 0, err)
        gap = self.retry_gap(429)
        print(f"\n429 Retry-After: 1 -> waited {gap:.3f} s")
        self.assertGreaterEqual(gap, 0.98)
        self.assertLess(gap, 1.0 + 0.5 * SLOW)
        self.assertEqual(self.srv.counts["429"], 1)

    def test_429_retry_after_http_date(self):
        self.server()
        d = self.wait_for_7()
        self.srv.wait_watching()
        self.srv.fail_next("watch", 429, retry_after=email.utils.formatdate(time.time() + 3, usegmt=True))
        self.srv.end_watches()
        self.srv.wait_watching(count=3, timeout=10)
        self.srv.set_allocatable("gpu-1", value=7)
        rc, out, err = d.finish()
        self.assertEqual(rc, 0, err)
        gap = self.retry_gap(429)
        self.assertGreaterEqual(gap, 1.9)       # the date has whole seconds
        self.assertLess(gap, 3.0 + 0.5 * SLOW)

    def test_5xx_backs_off_exponentially(self):
        self.server()
        self.srv.fail_next("list", 503, times=4)
        rc, out, err = self.run_driver("--kubeconfig", self.kubeconfig(), "--expect-allocatable", "8")
        self.assertEqual(rc, 0, err)
        t = [e["t"] for e in self.srv.log if e["kind"] == "list"]
        gaps = [b - a for a, b in zip(t, t[1:])]
        self.assertEqual(len(gaps), 4)
        # Steps of 200, 400, 800, 1600 ms, each jittered into its upper half.
        for gap, step in zip(gaps, (0.2, 0.4, 0.8, 1.6)):
            self.assertGreaterEqual(gap, step / 2 - 0.01)
            self.assertLess(gap, step + 0.1 * SLOW)
        self.assertEqual(counts(out)["retries"], 4)

    def test_many_nodes_one_list_one_watch(self):
        self.server(nodes=())
        for i in range(500):
            self.srv.add_node(f"gpu-{i:03d}", allocatable=7, labels={"pool": "gpu"})
        for i in range(20):
            self.srv.add_node(f"cpu-{i:02d}", gpus=0, labels={"pool": "cpu"})
        d = self.start("--kubeconfig", self.kubeconfig(), "--selector", "pool=gpu", "--expect-allocatable", "8")
        self.srv.wait_watching()
        self.srv.set_all_allocatable(value=8)
        rc, out, err = d.finish()
        self.assertEqual(rc, 0, err)
        self.assertIn("ok: 500/500 nodes", out)
        self.assertEqual((self.srv.counts["list"], self.srv.counts["watch"]), (1, 1))
        c = counts(out)
        self.assertEqual((c["lists"], c["watches"], c["relists"], c["retries"]), (1, 1, 0, 0))
        self.assertIn("labelSelector=pool%3Dgpu", self.srv.log[0]["path"])

    def paged_nodes(self):
        """1001 GPU nodes, allocatable 8, and 20 others: three LIST pages."""
        self.server(nodes=())
        for i in range(1001):
            self.srv.add_node(f"gpu-{i:04d}", labels={"pool": "gpu"})
        for i in range(20):
            self.srv.add_node(f"cpu-{i:02d}", gpus=0, labels={"pool": "cpu"})

    def test_list_in_pages_of_500(self):
        self.paged_nodes()
        rc, out, err = self.run_driver("--kubeconfig", self.kubeconfig(), "--selector", "pool=gpu",
                                       "--expect-allocatable", "8", "--verbose")
        self.assertEqual(rc, 0, err)
        self.assertIn("ok: 1001/1001 nodes", out)
        pages = [e["path"] for e in self.srv.log if e["kind"] == "list"]
        self.assertEqual(len(pages), 3, pages)
        self.assertIn("labelSelector=pool%3Dgpu&limit=500", pages[0])
        self.assertNotIn("continue=", pages[0])
        for p in pages[1:]:
            self.assertRegex(p, r"labelSelector=pool%3Dgpu&limit=500&continue=[A-Za-z0-9%]+$")
        self.assertEqual(counts(out)["lists"], 3)
        self.assertIn("listed 1001 nodes at resourceVersion", err)
        self.assertIn("(3 pages)", err)

    def test_expired_continue_lists_whole(self):
        self.paged_nodes()
        self.srv.fail_next("continue", 410)
        rc, out, err = self.run_driver("--kubeconfig", self.kubeconfig(), "--selector", "pool=gpu",
                                       "--expect-allocatable", "8", "--verbose")
        self.assertEqual(rc, 0, err)
        self.assertIn("ok: 1001/1001 nodes", out)
        pages = [(e["status"], e["path"]) for e in self.srv.log if e["kind"] == "list"]
        self.assertEqual([st for st, _ in pages], [200, 410, 200], pages)
        self.assertEqual(pages[2][1], "/api/v1/nodes?labelSelector=pool%3Dgpu")
        self.assertIn("the continue token expired after 500 nodes; listing them all at once", err)
        self.assertIn("listed 1001 nodes at resourceVersion", err)

    def test_node_field_selector(self):
        self.server(nodes=("gpu-1", "gpu-2", "gpu-3"))
        self.srv.set_allocatable("gpu-1", value=1)
        rc, out, err = self.run_driver("--kubeconfig", self.kubeconfig(), "--node", "gpu-2",
                                       "--expect-allocatable", "8")
        self.assertEqual(rc, 0, err)
        self.assertIn("ok: 1/1 nodes", out)
        self.assertIn("fieldSelector=metadata.name%3Dgpu-2", self.srv.log[0]["path"])

    def test_node_leaving_selection_is_dropped(self):
        self.server(nodes=())
        self.srv.add_node("a", labels={"pool": "gpu"})
        self.srv.add_node("b", allocatable=7, labels={"pool": "gpu"})
        d = self.start("--kubeconfig", self.kubeconfig(), "--selector", "pool=gpu", "--expect-allocatable", "8")
        d.wait_line("waiting: 1/2")
        self.srv.wait_watching()
        self.srv.set_label("b", "pool", "retired")
        rc, out, err = d.finish()
        self.assertEqual(rc, 0, err)
        self.assertIn("ok: 1/1 nodes", out)

    def test_deadline_reports_last_value(self):
        self.server()
        d = self.start("--kubeconfig", self.kubeconfig(), "--expect-allocatable", "9", "--timeout", "1")
        self.srv.wait_watching()
        self.srv.set_allocatable("gpu-1", value=6)
        rc, out, err = d.finish()
        self.assertEqual(rc, 1, err)
        self.assertIn("timeout: 0/1 nodes show allocatable nvidia.com/gpu=9; last seen: gpu-1=6", out)
        self.assertLess(d.elapsed, 1.0 + 0.5 * SLOW)

    def test_deadline_holds_while_server_fails(self):
        self.server()
        d = self.start("--kubeconfig", self.kubeconfig(), "--expect-allocatable", "9", "--timeout", "1.5")
        self.srv.wait_watching()
        self.srv.fail_next("any", 503, times=1000)
        self.srv.end_watches()
        rc, out, err = d.finish()
        self.assertEqual(rc, 1, err)
        self.assertIn("last seen: gpu-1=8", out)
        self.assertLess(d.elapsed, 1.5 + 0.5 * SLOW)

    def test_forbidden_stops_the_watch(self):
        self.server()
        d = self.wait_for_7()
        self.srv.wait_watching()
        self.srv.fail_next("watch", 403)
        self.srv.end_watches()
        rc, out, err = d.finish()
        self.assertEqual(rc, 3, out)
        self.assertIn("403 Forbidden: injected 403", err)
        self.assertIn("last seen: gpu-1=8", out)


class RealCluster(unittest.TestCase):
    """Read-only checks against the cluster in $MOKKA_TEST_KUBECONFIG."""

    kc = os.environ.get("MOKKA_TEST_KUBECONFIG")

    def setUp(self):
        if not self.kc:
            self.skipTest("MOKKA_TEST_KUBECONFIG is not set: no real cluster to test against")
        if not os.access(KUBE_WATCH, os.X_OK):
            self.skipTest(f"{KUBE_WATCH} not built")

    def run_driver(self, *args):
        env = clean_env(os.environ.get("HOME", "/"))
        return Driver(["--kubeconfig", self.kc, *args], env).finish(60)

    def test_lists_nodes(self):
        rc, out, err = self.run_driver("--dump")
        self.assertEqual(rc, 0, err)
        self.assertIn("node ", out)
        self.assertIn("resource pods", out)

    def test_watch_times_out_with_last_values(self):
        rc, out, err = self.run_driver("--resource", "pods", "--expect-allocatable", "987654321", "--timeout", "3")
        self.assertEqual(rc, 1, err)
        self.assertIn("last seen:", out)
        self.assertGreaterEqual(counts(out)["watches"], 1)


class ConnectProxy:
    """An HTTP CONNECT proxy on loopback that records what it was asked."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.requests = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(c,), daemon=True).start()

    def _serve(self, c):
        head = b""
        while b"\r\n\r\n" not in head:
            data = c.recv(4096)
            if not data:
                return c.close()
            head += data
        line = head.split(b"\r\n", 1)[0].decode()
        self.requests.append(line.rsplit(" ", 1)[0])
        host, port = line.split()[1].rsplit(":", 1)
        up = socket.create_connection((host, int(port)))
        c.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        socks = [c, up]
        while True:
            ready, _, _ = select.select(socks, [], [], 30)
            if not ready:
                break
            for s in ready:
                data = s.recv(65536)
                if not data:
                    c.close()
                    up.close()
                    return
                (up if s is c else c).sendall(data)

    def close(self):
        self.sock.close()


if __name__ == "__main__":
    unittest.main()
