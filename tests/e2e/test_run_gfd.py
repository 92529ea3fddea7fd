"""test_run_gfd.py - `mokka run --gfd`: gpu-feature-discovery under
supervision in the GPU-node sandbox beside the device plugin, its labels in
the node view that suites check.

With the stand-in GFD (build/tests/fake-gfd, which reads NVML, the sandbox's
sysfs and /sys/class/dmi/id/product_name as GFD does): label: cases pass on
the default universe, MIG mixed and an H100 config; `machine:` names the
machine; labels follow a hot reload of the config (a within: waits for the
relabel); a GFD that crashes once is restarted and reported; one that keeps
crashing or never labels ends the run with exit 3 and says why; SIGTERM
reaches GFD and nothing is left behind; without --gfd a label: case is an
ERROR that says to pass --gfd; usage errors exit 2.

With NVIDIA's real gpu-feature-discovery when env MOKKA_GFD names its
binary: the same label suites on the default universe, MIG mixed and H100.

Needs root (or user namespaces) for the sandbox; skips saying so otherwise."""
import json
import os
import re
import subprocess
import signal
import time
import unittest

from cli_support import BUILD, CONFIGS, MIG_MIXED, MOKKA, SAN
from test_fabric import TRAY  # a GB200 tray; GPU 3's registration is in progress
from test_run import RunTest

FAKE_GFD = os.path.join(BUILD, 'build', 'tests', 'fake-gfd')
REAL_GFD = os.environ.get('MOKKA_GFD', '')
H100 = os.path.join(CONFIGS, 'hgx-h100.yaml')

DEFAULT_LABELS = '''
cases:
  - name: gfd labels the A100 node
    expect:
      label:
        nvidia.com/gpu.product: NVIDIA-A100-SXM4-40GB
        nvidia.com/gpu.count: "8"
        nvidia.com/gpu.memory: "40960"
        nvidia.com/gpu.family: ampere
        nvidia.com/gpu.compute.major: "8"
        nvidia.com/gpu.compute.minor: "0"
        nvidia.com/gpu.machine: NVIDIA-DGX-A100
        nvidia.com/gpu.mode: compute
        nvidia.com/vgpu.present: "false"
        nvidia.com/mig.capable: "true"
        nvidia.com/cuda.driver.major: "535"
        nvidia.com/cuda.driver.minor: "261"
        nvidia.com/cuda.driver.rev: "03"
        nvidia.com/cuda.runtime.major: "12"
        nvidia.com/cuda.runtime.minor: "2"
        nvidia.com/gfd.timestamp: /^[0-9]+$/
  - name: the plugin's view is still there
    expect: {capacity: 8, allocatable: 8, healthy-count: 8}
'''

MIG_LABELS = '''
cases:
  - name: gfd labels the MIG devices
    expect:
      label:
        nvidia.com/mig.capable: "true"
        nvidia.com/mig.strategy: mixed
        nvidia.com/mig-1g.5gb.count: "2"
        nvidia.com/mig-2g.10gb.count: "1"
        nvidia.com/mig-3g.20gb.count: "1"
        nvidia.com/mig-1g.5gb.memory: /^4[0-9]{3}$/
        nvidia.com/gpu.product: NVIDIA-A100-SXM4-40GB
'''

H100_LABELS = '''
cases:
  - name: gfd labels the H100 node
    expect:
      label:
        nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
        nvidia.com/gpu.count: "8"
        nvidia.com/gpu.family: hopper
        nvidia.com/gpu.compute.major: "9"
        nvidia.com/gpu.machine: NVIDIA-DGX-H100
        nvidia.com/gpu.memory: /^8[0-9]{4}$/
'''


class GfdTest(RunTest):
    """`mokka run --gfd=GFD` with the stand-in plugin."""

    gfd = FAKE_GFD

    def setUp(self):
        super().setUp()
        if not os.access(self.gfd, os.X_OK):
            self.skipTest('%s is not built (make testbins)' % self.gfd)

    def gfd_run(self, *args, gfd_args=(), **kw):
        extra = ['--gfd=' + self.gfd]
        for a in gfd_args:
            extra.append('--gfd-arg=' + a)
        return self.run_mokka(*(extra + list(args)), **kw)

    def assertPassed(self, r, n):
        self.assertExit(r, 0)
        self.assertJUnitRules(r)
        self.assertEqual([r.status(c.get('name')) for c in r.cases()], ['pass'] * n)


def clique_suite(case, clique):
    return 'cases:\n  - name: %s\n    expect: {label: {nvidia.com/gpu.clique: "%s"}}\n' % (
        case, clique)


class CliqueMixin:
    """nvidia.com/gpu.clique on a GB200 tray: Mokka's cluster UUID for the
    node (mokka render) and clique id, joined as GFD v0.17 joins them."""

    def expected_clique(self, config):
        p = subprocess.run([MOKKA, 'render', '--format', 'json', '--config', config],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, env=self.env, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        f = json.loads(p.stdout)['devices'][0]['fabric']
        return '%s.%d' % (f['clusterUuid'], f['cliqueId'])

    def test_gb200_clique(self):
        config = self.suite(TRAY, 'gb200.yaml')
        r = self.gfd_run(config=config, suite=clique_suite('the rack\'s clique',
                                                           self.expected_clique(config)))
        self.assertPassed(r, 1)


class StandInGfd(CliqueMixin, GfdTest):

    def test_default_universe(self):
        r = self.gfd_run(suite=DEFAULT_LABELS + '''
  - name: the sandbox shows GFD the GPUs' PCI class
    expect: {label: {nvidia.com/gpu.mode: compute}}
''')
        self.assertPassed(r, 3)
        self.assertRegex(r.stderr, r'gpu-feature-discovery labelled the node: \d+ labels in')
        self.assertIn('--- gpu-feature-discovery ---', r.plugin_log())
        self.assertIn('Writing labels to output file', r.plugin_log())

    def test_mig_mixed(self):
        r = self.gfd_run(config=MIG_MIXED, suite=MIG_LABELS, gfd_args=['--mig-strategy=mixed'])
        self.assertPassed(r, 1)

    def test_h100(self):
        r = self.gfd_run(config=H100, suite=H100_LABELS)
        self.assertPassed(r, 1)

    def test_machine_key(self):
        config = self.suite('version: 1.0\nprofile: l4\ncount: 2\nmachine: Acme GPU Box 9000\n',
                            'l4.yaml')
        r = self.gfd_run(config=config, suite='''
cases:
  - name: machine from the config
    expect: {label: {nvidia.com/gpu.machine: Acme-GPU-Box-9000, nvidia.com/gpu.count: "2",
                     nvidia.com/mig.capable: "false", nvidia.com/gpu.family: ada-lovelace}}
''')
        self.assertPassed(r, 1)

    def test_generic_machine(self):
        config = self.suite('version: 1.0\nprofile: t4\ncount: 1\n', 't4.yaml')
        r = self.gfd_run(config=config, suite='''
cases:
  - name: a generic machine
    expect: {label: {nvidia.com/gpu.machine: Mokka-Virtual-GPU-Node, nvidia.com/gpu.family: turing}}
''')
        self.assertPassed(r, 1)

    def test_labels_follow_a_hot_reload(self):
        config = self.path('gpus.yaml')
        with open(config, 'w') as f:
            f.write('version: 1.0\nprofile: a100-sxm4-40gb\ncount: 2\ndriverVersion: "535.261.03"\n')
        proc, lines = self.start_mokka('--gfd=' + self.gfd, config=config, suite='''
cases:
  - name: before
    expect: {label: {nvidia.com/cuda.driver.major: "535"}}
  - name: after the reload
    expect: {label: {nvidia.com/cuda.driver.major: "550", nvidia.com/cuda.driver.rev: "15"}}
    within: 60s
''')
        self.wait_for_line(proc, lines, "case 2/2 'after the reload'")
        with open(config + '.new', 'w') as f:
            f.write('version: 1.0\nprofile: a100-sxm4-40gb\ncount: 2\ndriverVersion: "550.54.15"\n')
        os.rename(config + '.new', config)
        proc.communicate(timeout=120)
        self.assertEqual(proc.returncode, 0, ''.join(lines))

    def test_crash_is_restarted_and_reported(self):
        marker = self.path('crashed-once')
        r = self.gfd_run('--report', 'json', suite=DEFAULT_LABELS + '''
  - name: gfd crashes after its first labels and is restarted
    wait: 3s
    expect: {label: {nvidia.com/gpu.count: "8"}}
    within: 30s
''', gfd_args=['--crash-after=1', '--crash-marker=' + marker])
        self.assertPassed(r, 3)
        self.assertTrue(os.path.exists(marker))
        self.assertIn('gpu-feature-discovery crashed 1 time during the run and was restarted '
                      '(its log is in the report)', r.stderr)
        log = r.plugin_log()
        self.assertIn('crashing on purpose (--crash-after 1)', log)
        self.assertIn('gfd exited with status 2; restarting (crash 1 of at most 5)', log)
        self.assertIn('gfd started again', log)

    def test_crashing_gfd_fails_the_run(self):
        r = self.gfd_run('--restart-limit', '1', gfd_args=['--crash-after=0'])
        self.assertExit(r, 3)
        case = r.case('gpu-feature-discovery starts and labels')
        self.assertEqual(r.status(case.get('name')), 'error')
        msg = case.find('error').get('message')
        self.assertIn('gpu-feature-discovery exited with status 2 and crashed 2 times; it never '
                      'wrote its labels; its last line: ', msg)
        self.assertIn('crashing on purpose (--crash-after 0)', msg)   # GFD's own words
        self.assertIn('crashing on purpose', r.plugin_log())

    def test_gfd_that_fails_while_suites_run(self):
        r = self.gfd_run('--restart-limit', '1', suite=DEFAULT_LABELS + '''
  - name: meanwhile gfd crashes twice
    wait: 6s
''', gfd_args=['--crash-after=1'])
        self.assertExit(r, 3)
        self.assertEqual(r.status('gfd labels the A100 node'), 'pass')
        case = r.case('gpu-feature-discovery keeps running')
        self.assertIn('gpu-feature-discovery exited with status 2 and crashed 2 times, more than '
                      '--restart-limit allows', case.find('error').get('message'))

    def test_gfd_that_never_labels(self):
        silent = self.suite('#!/bin/sh\nexec sleep 600\n', 'silent-gfd')
        r = self.run_mokka('--gfd=' + silent, '--register-timeout', '3s')
        self.assertExit(r, 3)
        msg = r.case('gpu-feature-discovery starts and labels').find('error').get('message')
        self.assertRegex(msg, r'--register-timeout ran out before gpu-feature-discovery wrote '
                              r'its labels to .*/features\.d/gfd')

    def test_sigterm_reaches_gfd(self):
        proc, lines = self.start_mokka('--gfd=' + self.gfd, '--hold', suite=DEFAULT_LABELS)
        self.wait_for_line(proc, lines, 'holding the plugin')
        os.kill(proc.pid, signal.SIGTERM)
        proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 0, ''.join(lines))
        with open(self.path('report.xml')) as f:
            report = f.read()
        self.assertIn('Received signal 15, exiting', report)
        time.sleep(0.2)
        self.assertEqual([p for p in os.listdir('/proc') if p.isdigit() and
                          comm(int(p)) == 'fake-gfd' and environ_mentions(int(p), self.runtime)],
                         [])

    def test_gfd_arguments(self):
        r = self.gfd_run('-v', suite=DEFAULT_LABELS, gfd_args=['--no-timestamp'])
        # The timestamp label is gone, so the first case fails on it alone.
        self.assertExit(r, 1)
        self.assertIn('has no label nvidia.com/gfd.timestamp', r.stderr)
        self.assertRegex(r.stderr, r'gfd \| .* Starting fake-gfd: output \S+/features\.d/gfd, '
                                   r'interval 1000ms')

    def test_missing_gfd(self):
        r = self.run_mokka('--gfd=' + self.path('no-such-gfd'))
        self.assertExit(r, 3)
        self.assertIn('cannot run the gpu-feature-discovery', r.stderr)
        env = dict(self.env, PATH='/nonexistent')
        r = self.run_mokka('--gfd', env=env)
        self.assertExit(r, 3)
        self.assertIn("no gpu-feature-discovery: 'gpu-feature-discovery' is not on PATH", r.stderr)

    def test_usage(self):
        # (--gfd in cluster mode: test_run_cluster_gfd.py)
        for args, msg in ((['--gfd-arg=x'], '--gfd-arg needs --gfd'),
                          (['--gfd='], '--gfd=PATH: the path is empty')):
            r = self.run_mokka(*args, junit=False)
            self.assertExit(r, 2)
            self.assertIn(msg, r.stderr)


# A GFD of 100,000 labels (9 bytes a line: the file stays under the 1 MiB
# mokka reads), which writes one more two seconds later. Each label once
# cost a scan of all before it, on every snapshot: 10k/40k/100k labels took
# 2.7/31.6/309 s of CPU, a within: 3s case 79 s, SIGTERM 25 s.
MANY_LABELS_GFD = r'''#!/bin/sh
for a in "$@"; do case $a in --output-file=*) out=${a#--output-file=};; esac; done
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "k%05d=1\n", i }' > "$out.tmp"
mv "$out.tmp" "$out"
sleep 2
cp "$out" "$out.tmp"
echo late=1 >> "$out.tmp"
mv "$out.tmp" "$out"
exec sleep 600
'''

MANY_LABELS = '''
cases:
  - name: the last of 100,000 labels, and one written later
    expect: {label: {k00000: "1", k99999: "1", late: "1"}, capacity: 8}
    within: 60s
  - name: then a short wait
    expect: {label: {k50000: "1"}, allocatable: 8}
    within: 3s
'''


class ManyLabels(GfdTest):
    """100,000 labels from GFD: the run reads them in linear time, so the
    wait for the late label (rechecking the plugin every second meanwhile)
    passes, and SIGTERM while the run holds ends it at once."""

    def setUp(self):
        super().setUp()
        self.gfd = self.suite(MANY_LABELS_GFD, 'many-labels-gfd')

    def test_within_passes(self):
        r = self.gfd_run(suite=MANY_LABELS)
        self.assertPassed(r, 2)
        self.assertRegex(r.stderr, r'gpu-feature-discovery labelled the node: 100000 labels in')

    def test_sigterm_while_holding(self):
        proc, lines = self.start_mokka('--gfd=' + self.gfd, '--hold', suite=MANY_LABELS)
        self.wait_for_line(proc, lines, 'holding the plugin')
        os.kill(proc.pid, signal.SIGTERM)
        proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 0, ''.join(lines))


class WithoutGfd(GfdTest):

    def test_label_needs_gfd(self):
        r = self.run_mokka(suite='cases:\n  - name: product\n'
                                 '    expect: {label: {nvidia.com/gpu.product: /A100/}}\n')
        self.assertExit(r, 3)
        err = r.case('product').find('error').get('message')
        self.assertIn('pass --gfd to mokka run to have gpu-feature-discovery label the node', err)


class RealGfd(CliqueMixin, GfdTest):
    """NVIDIA's gpu-feature-discovery; the stand-in plugin beside it."""

    gfd = REAL_GFD

    def setUp(self):
        if not REAL_GFD:
            self.skipTest('set MOKKA_GFD to the gpu-feature-discovery binary to run these')
        if SAN:
            self.skipTest('the library is built with %s; programs built without it cannot '
                          'load it' % SAN)
        super().setUp()

    def test_default_universe(self):
        self.assertPassed(self.gfd_run(suite=DEFAULT_LABELS), 2)

    def test_mig_mixed(self):
        self.assertPassed(self.gfd_run(config=MIG_MIXED, suite=MIG_LABELS,
                                       gfd_args=['--mig-strategy=mixed']), 1)

    def test_h100(self):
        self.assertPassed(self.gfd_run(config=H100, suite=H100_LABELS), 1)


def comm(pid):
    try:
        with open('/proc/%d/comm' % pid) as f:
            return f.read().strip()
    except OSError:
        return None


def environ_mentions(pid, text):
    try:
        with open('/proc/%d/environ' % pid, 'rb') as f:
            return text.encode() in f.read()
    except OSError:
        return False


if __name__ == '__main__':
    unittest.main()
