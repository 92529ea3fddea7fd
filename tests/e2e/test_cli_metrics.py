"""test_cli_metrics.py - `mokka metrics` against a pynvml program on the
mock: the exposition parses and lints with promtool (only dcgm-exporter's own
naming is allowed to draw lint remarks), carries dcgm-exporter's names,
types and labels, values match what the program reads and what inject did,
and the HTTP server answers /metrics and /, refuses other paths and methods,
and stops cleanly on SIGINT and SIGTERM."""
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import unittest
import urllib.error
import urllib.request

from mokka_probe import CONFIGS, MOKKA, NODE, CliTest, Probe, mokka

PROMTOOL = os.environ.get('PROMTOOL') or shutil.which('promtool')
SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)\{(.*)\} (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')
# What promtool says about dcgm-exporter's own names, which dashboards rely on.
DCGM_LINT = re.compile(r'^DCGM_FI_\w+ (counter metrics should have "_total" suffix|label names '
                       r"should be written in 'snake_case' not 'camelCase'|metric name should not "
                       r"include type 'counter')$")


def parse(text):
    """{name: [(labels dict, value)]} and {name: type}."""
    samples, types = {}, {}
    for line in text.splitlines():
        if line.startswith('# TYPE '):
            _, _, name, typ = line.split(' ')
            types[name] = typ
            continue
        if not line or line.startswith('#'):
            continue
        m = SAMPLE.match(line)
        if m:
            name, labels, value = m.group(1), dict(LABEL.findall(m.group(2))), m.group(3)
        else:
            (name, value), labels = line.split(' '), {}
        samples.setdefault(name, []).append((labels, float(value)))
    return samples, types


def by_gpu(samples, name):
    return {int(l['gpu']): v for l, v in samples.get(name, [])}


class MetricsTest(CliTest):

    def scrape(self, probe):
        p = probe.mokka('metrics', '--once')
        self.assertExit(p, 0)
        return p.stdout

    def test_promtool(self):
        if not PROMTOOL:
            self.skipTest('promtool not found (Debian package prometheus)')
        pr = Probe(self, config=os.path.join(CONFIGS, 'mig-mixed.yaml'))
        pr.ask('unsupported 0')
        pr.mokka('inject', '--gpu', '1', '--xid', '79')
        text = self.scrape(pr)
        p = subprocess.run([PROMTOOL, 'check', 'metrics'], input=text, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True)
        self.assertIn(p.returncode, (0, 3), p.stdout)  # 3: lint remarks only
        remarks = [l for l in p.stdout.splitlines() if l.strip()]
        self.assertEqual([l for l in remarks if not DCGM_LINT.match(l)], [], p.stdout)

    def test_dcgm_names_types_labels(self):
        pr = Probe(self)
        samples, types = parse(self.scrape(pr))
        for name, typ in [('DCGM_FI_DEV_GPU_TEMP', 'gauge'), ('DCGM_FI_DEV_MEMORY_TEMP', 'gauge'),
                          ('DCGM_FI_DEV_POWER_USAGE', 'gauge'),
                          ('DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION', 'counter'),
                          ('DCGM_FI_DEV_GPU_UTIL', 'gauge'), ('DCGM_FI_DEV_MEM_COPY_UTIL', 'gauge'),
                          ('DCGM_FI_DEV_ENC_UTIL', 'gauge'), ('DCGM_FI_DEV_DEC_UTIL', 'gauge'),
                          ('DCGM_FI_DEV_FB_USED', 'gauge'), ('DCGM_FI_DEV_FB_FREE', 'gauge'),
                          ('DCGM_FI_DEV_FB_RESERVED', 'gauge'), ('DCGM_FI_DEV_SM_CLOCK', 'gauge'),
                          ('DCGM_FI_DEV_MEM_CLOCK', 'gauge'), ('DCGM_FI_DEV_XID_ERRORS', 'gauge'),
                          ('DCGM_FI_DEV_ECC_SBE_VOL_TOTAL', 'counter'),
                          ('DCGM_FI_DEV_ECC_DBE_VOL_TOTAL', 'counter'),
                          ('DCGM_FI_DEV_PCIE_REPLAY_COUNTER', 'counter'),
                          ('mokka_nvml_calls_total', 'counter'),
                          ('mokka_gpu_health_state', 'gauge')]:
            self.assertEqual(types.get(name), typ, name)
            if name.startswith('DCGM'):
                self.assertEqual(sorted(by_gpu(samples, name)), list(range(8)), name)
        labels, _ = samples['DCGM_FI_DEV_GPU_TEMP'][3]
        report = pr.mokka('stats', '--json').stdout
        uuid = re.findall(r'"uuid": "(GPU-[^"]+)"', report)[3]
        self.assertEqual(labels, {'gpu': '3', 'UUID': uuid, 'pci_bus_id': '00000000:4E:00.0',
                                  'device': 'nvidia3', 'modelName': 'NVIDIA A100-SXM4-40GB',
                                  'Hostname': NODE, 'DCGM_FI_DRIVER_VERSION': '535.261.03'})
        # The label order is dcgm-exporter's.
        line = [l for l in self.scrape(pr).splitlines() if l.startswith('DCGM_FI_DEV_GPU_TEMP{')][0]
        self.assertTrue(line.startswith('DCGM_FI_DEV_GPU_TEMP{gpu="0",UUID="GPU-'), line)
        self.assertRegex(line, r',pci_bus_id="[^"]+",device="nvidia0",modelName="[^"]+",'
                               r'Hostname="%s",DCGM_FI_DRIVER_VERSION="[^"]+"\} \d+$' % NODE)

    def test_values_match_the_program(self):
        pr = Probe(self, config=os.path.join(CONFIGS, 'hgx-h100.yaml'))
        mem = pr.ask('mem 6')
        samples, _ = parse(self.scrape(pr))
        used = by_gpu(samples, 'DCGM_FI_DEV_FB_USED')[6]
        free = by_gpu(samples, 'DCGM_FI_DEV_FB_FREE')[6]
        reserved = by_gpu(samples, 'DCGM_FI_DEV_FB_RESERVED')[6]
        self.assertEqual(used, 10 * 1024)
        self.assertEqual(free * 2**20, mem['free'])
        self.assertEqual((used + free + reserved) * 2**20, mem['total'])
        self.assertEqual(by_gpu(samples, 'DCGM_FI_DEV_FB_USED')[0], 0)
        t = pr.ask('temp 0')
        if 'ok' in t:
            self.assertEqual(by_gpu(parse(self.scrape(pr))[0], 'DCGM_FI_DEV_GPU_TEMP')[0], t['ok'])

    def test_inject_shows(self):
        pr = Probe(self)
        pr.mokka('inject', '--gpu', '2', '--set', 'temperature=90')
        pr.mokka('inject', '--gpu', '2', '--set', 'power=300W')
        pr.mokka('inject', '--gpu', '5', '--xid', '79')
        pr.mokka('inject', '--gpu', '6', '--lost')
        samples, _ = parse(self.scrape(pr))
        self.assertEqual(by_gpu(samples, 'DCGM_FI_DEV_GPU_TEMP')[2], 90)
        self.assertEqual(by_gpu(samples, 'DCGM_FI_DEV_POWER_USAGE')[2], 300.0)
        xid = {int(l['gpu']): (v, l['err_code'], l['err_msg'])
               for l, v in samples['DCGM_FI_DEV_XID_ERRORS']}
        self.assertEqual(xid[5], (79, '79', 'GPU has fallen off the bus'))
        self.assertEqual(xid[0], (0, '0', 'No Error'))
        # A GPU that fell off the bus has no telemetry, as with DCGM.
        self.assertNotIn(6, by_gpu(samples, 'DCGM_FI_DEV_GPU_TEMP'))
        self.assertIn(6, xid)
        state = {(int(l['gpu']), l['state']): v for l, v in samples['mokka_gpu_health_state']}
        self.assertEqual(state[(5, 'xid')], 1)
        self.assertEqual(state[(6, 'lost')], 1)
        self.assertEqual(state[(0, 'healthy')], 1)
        self.assertEqual(state[(5, 'healthy')], 0)
        pinned = {(int(l['gpu']), l['metric']) for l, v in samples['mokka_gpu_metric_pinned']}
        self.assertEqual(pinned, {(2, 'temperature'), (2, 'power')})
        self.assertEqual(by_gpu(samples, 'mokka_gpu_xid_errors_total')[5], 1)
        pr.mokka('inject', '--gpu', '5', '--healthy')
        samples, _ = parse(self.scrape(pr))
        state = {(int(l['gpu']), l['state']): v for l, v in samples['mokka_gpu_health_state']}
        self.assertEqual(state[(5, 'healthy')], 1)

    def test_calls_and_unsupported(self):
        pr = Probe(self)
        for _ in range(3):
            pr.ask('mem 0')
        unsupported = pr.ask('unsupported 0')['ok']
        samples, _ = parse(self.scrape(pr))
        calls = {l['function']: v for l, v in samples['mokka_nvml_calls_total']}
        self.assertGreaterEqual(calls['nvmlDeviceGetMemoryInfo'], 3)
        ns = {l['function']: v for l, v in samples.get('mokka_nvml_not_supported_total', [])}
        self.assertEqual(sorted(ns), sorted(unsupported))
        self.assertEqual(samples['mokka_processes_attached'], [({}, 1.0)])

    def test_no_state(self):
        p = mokka('metrics', '--once', '--state-dir', self.tempdir())
        self.assertExit(p, 3)
        self.assertEqual(p.stdout, '')

    def test_usage(self):
        self.assertExit(mokka('metrics', '--listen', 'nonsense', '--state-dir', '/x'), 2)
        self.assertExit(mokka('metrics', 'extra'), 2)
        h = mokka('metrics', '--help')
        self.assertExit(h, 0)
        self.assertTrue(h.stdout.startswith('Usage: mokka metrics'))


class ServerTest(CliTest):

    def start(self, probe, *extra):
        s = subprocess.Popen([MOKKA, 'metrics', '--state-dir', probe.state_dir, '--listen',
                              '127.0.0.1:0'] + list(extra), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, universal_newlines=True)
        self.addCleanup(lambda: s.poll() is None and s.kill() or s.wait())
        self.addCleanup(s.stdout.close)
        self.addCleanup(s.stderr.close)
        r, _, _ = select.select([s.stderr], [], [], 20)
        line = s.stderr.readline() if r else ''
        m = re.search(r'serving http://(127\.0\.0\.1:\d+)/metrics', line)
        self.assertTrue(m, 'no "serving" line: %r' % line)
        return s, 'http://' + m.group(1)

    def get(self, url, method='GET'):
        req = urllib.request.Request(url, method=method)
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, r.headers, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.headers, e.read().decode()

    def test_serves_and_stops(self):
        pr = Probe(self)
        for sig in (signal.SIGINT, signal.SIGTERM):
            s, base = self.start(pr)
            status, headers, body = self.get(base + '/metrics')
            self.assertEqual(status, 200)
            self.assertEqual(headers['Content-Type'], 'text/plain; version=0.0.4; charset=utf-8')
            self.assertIn('\nDCGM_FI_DEV_GPU_TEMP{gpu="0",', body)
            self.assertEqual(self.get(base + '/metrics?x=1')[0], 200)
            status, headers, body = self.get(base + '/')
            self.assertEqual(status, 200)
            self.assertIn('href="/metrics"', body)
            self.assertEqual(self.get(base + '/nope')[0], 404)
            self.assertEqual(self.get(base + '/metrics', 'POST')[0], 405)
            status, _, body = self.get(base + '/metrics', 'HEAD')
            self.assertEqual((status, body), (200, ''))
            s.send_signal(sig)
            self.assertEqual(s.wait(10), 0)
            self.assertIn('stopped', s.stderr.read())

    def test_idle_clients_do_not_block(self):
        pr = Probe(self)
        s, base = self.start(pr)
        host, port = base[len('http://'):].split(':')
        idle = [socket.create_connection((host, int(port))) for _ in range(5)]
        self.addCleanup(lambda: [c.close() for c in idle])
        self.assertEqual(self.get(base + '/metrics')[0], 200)
        # The scrape was answered while the idle clients still held their
        # slots: a server that waited on them would have dropped them first
        # (at their deadline), and they would read end-of-file now.
        for c in idle:
            c.setblocking(False)
            with self.assertRaises(BlockingIOError):
                c.recv(1)

    def test_no_state_at_start(self):
        p = mokka('metrics', '--state-dir', self.tempdir(), '--listen', '127.0.0.1:0')
        self.assertExit(p, 3)

    def test_non_loopback_warns(self):
        pr = Probe(self)
        s = subprocess.Popen([MOKKA, 'metrics', '--state-dir', pr.state_dir, '--listen',
                              '0.0.0.0:0'], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             universal_newlines=True)
        self.addCleanup(lambda: s.poll() is None and s.kill() or s.wait())
        r, _, _ = select.select([s.stderr], [], [], 20)
        first = s.stderr.readline() if r else ''
        s.send_signal(signal.SIGTERM)
        s.communicate(timeout=10)
        self.assertIn('warning: serving on 0.0.0.0:', first)
        self.assertIn('which other hosts can reach', first)


if __name__ == '__main__':
    unittest.main()
