"""test_gfd_model.py - `mokka render --labels` (src/nvmodel/: the labels
gpu-feature-discovery would put on a node, computed from its universe)
against NVIDIA's real gpu-feature-discovery v0.17.4 on the same universe:
exactly the same keys and values, GFD's timestamp label aside.

Each universe runs under `mokka run --gfd` with NVIDIA's device plugin
beside GFD, once per MIG strategy that tells something on it; a wrapper
around GFD keeps a copy of its first label file (GFD removes its file when
it stops). The universes: the default DGX A100, MIG mixed, an H100 that the
single strategy fits, an A100 80GB with +me and 1g.20gb profiles and a
two-part driver version, an H200 with an empty MIG-enabled GPU, a B200 with
one MIG GPU, an L4 on a machine whose name needs sanitising, a T4, a GB200
tray on the NVLink fabric (one GPU still registering) and one whose GPUs
disagree on the clique, the HGX H100 config, and A10, L40S, RTX 6000 Ada
and H100 PCIe cards.

Needs env MOKKA_GFD and MOKKA_DEVICE_PLUGIN (the real programs) and root
(or user namespaces) for the sandbox; skips saying so otherwise."""
import os
import subprocess
import unittest

from cli_support import CONFIGS, MIG_MIXED, MOKKA, SAN
from test_run import RunTest

REAL_GFD = os.environ.get('MOKKA_GFD', '')
REAL_PLUGIN = os.environ.get('MOKKA_DEVICE_PLUGIN', '')
STRATEGIES = ('none', 'single', 'mixed')

# GFD with a copy of its first label file at DEST: GFD writes the file
# whole (a rename), so the first non-empty one is a complete set. The
# copier gives up after 60 s so that it never outlives a run for long.
WRAPPER = '''#!/bin/sh
for a in "$@"; do case $a in --output-file=*) out=${a#--output-file=};; esac; done
( i=0
  while [ ! -s "$out" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
  [ -s "$out" ] && cp "$out" '%(dest)s.tmp' && mv '%(dest)s.tmp' '%(dest)s' ) &
exec '%(gfd)s' "$@"
'''

# The run's suite: GFD's labels reached the node view. (The built-in smoke
# suite would wait out its within: on a plugin that refuses a strategy.)
LABELLED = '''
cases:
  - name: gfd labelled the node
    expect: {label: {nvidia.com/gfd.timestamp: "/^[0-9]+$/"}}
    within: 30s
'''

# name: (config text or path (None: the built-in default), node, strategies)
UNIVERSES = {
    'default_dgx_a100': (None, 'mokka-e2e-node', STRATEGIES),
    'mig_mixed': (MIG_MIXED, 'mokka-e2e-node', STRATEGIES),
    'h100_single': ('''version: 1.0
profile: h100-sxm5-80gb
count: 2
defaults:
  mig: {mode: enabled, instances: [1g.10gb, 1g.10gb, 1g.10gb, 1g.10gb, 1g.10gb, 1g.10gb, 1g.10gb]}
''', 'mokka-e2e-node', STRATEGIES),
    'a100_80gb_me': ('''version: 1.0
profile: a100-sxm4-80gb
count: 2
driverVersion: "550.54"
cudaVersion: "12.4"
devices:
  - index: 0
    mig: {mode: enabled, instances: [1g.10gb+me, 1g.20gb, 2g.20gb]}
  - index: 1
    mig: {mode: enabled, instances: [7g.80gb]}
''', 'mokka-e2e-node', STRATEGIES),
    'h200_empty_mig_gpu': ('''version: 1.0
profile: h200-sxm-141gb
count: 2
devices:
  - {index: 0, mig: {mode: enabled, instances: []}}
  - {index: 1, mig: {mode: enabled, instances: [1g.18gb+me, 1g.35gb, 3g.71gb]}}
''', 'mokka-e2e-node', ('single', 'mixed')),
    'b200_one_mig_gpu': ('''version: 1.0
profile: b200
count: 8
devices:
  - {index: 7, mig: {mode: enabled, instances: [1g.23gb, 1g.23gb+me, 1g.45gb, 2g.45gb]}}
''', 'mokka-e2e-node', ('none', 'mixed')),
    'l4_named_machine': ('''version: 1.0
profile: l4
count: 2
machine: "  Acme GPU Box 9000 (rev. 2) / \u00fcn\u00efcode  "
''', 'mokka-e2e-node', ('none', 'mixed')),
    't4': ('version: 1.0\nprofile: t4\ncount: 1\n', 'mokka-e2e-node', ('none',)),
    'gb200_tray': ('''version: 1.0
profile: gb200
count: 4
defaults:
  fabric: {clusterUuid: auto, cliqueId: 32766}
devices:
  - {index: 3, fabric: {state: inProgress, status: notReady}}
topology: {nvlink: none}
''', 'gb200-r01-tray07', ('none', 'mixed')),
    'gb200_cliques_disagree': ('''version: 1.0
profile: gb200
count: 2
defaults:
  fabric: {clusterUuid: auto, cliqueId: 1}
devices:
  - {index: 1, fabric: {cliqueId: 2}}
topology: {nvlink: none}
''', 'gb200-r01-tray07', ('none',)),
    'hgx_h100': (os.path.join(CONFIGS, 'hgx-h100.yaml'), 'mokka-e2e-node', ('none',)),
}
for _profile in ('a10', 'l40s', 'rtx-6000-ada', 'h100-pcie-80gb'):
    UNIVERSES[_profile.replace('-', '_')] = (
        'version: 1.0\nprofile: %s\ncount: 2\n' % _profile, 'mokka-e2e-node', ('none',))


def parse_labels(text):
    out = {}
    for line in text.splitlines():
        key, sep, value = line.partition('=')
        if sep:
            out[key] = value
    return out


class GfdModel(RunTest):
    """render --labels against the real GFD, universe by universe."""

    maxDiff = None

    def setUp(self):
        for var, value in (('MOKKA_GFD', REAL_GFD), ('MOKKA_DEVICE_PLUGIN', REAL_PLUGIN)):
            if not value:
                self.skipTest('set %s to NVIDIA\'s binary to compare the labels with the real '
                              'gpu-feature-discovery' % var)
        if SAN:
            self.skipTest('the library is built with %s; programs built without it cannot '
                          'load it' % SAN)
        super().setUp()
        self.dest = self.path('gfd-labels')
        self.gfd = self.suite(WRAPPER % {'dest': self.dest, 'gfd': REAL_GFD}, 'gfd-wrapper')
        os.chmod(self.gfd, 0o755)

    def config_path(self, config):
        if config is None or os.path.isabs(config):
            return config
        return self.suite(config, 'universe.yaml')

    def real_labels(self, config, node, strategy):
        """GFD's labels on the universe, its timestamp left out."""
        if os.path.exists(self.dest):
            os.unlink(self.dest)
        # A plugin that refuses the strategy (single on a mixed node, as
        # it should) is restarted once: GFD has labelled by then.
        r = self.run_mokka('--node', node, '--gfd=' + self.gfd, '--restart-limit', '1',
                           '--gfd-arg=--mig-strategy=' + strategy,
                           '-e', 'MIG_STRATEGY=' + strategy, plugin=REAL_PLUGIN, config=config,
                           suite=LABELLED)
        self.assertIn(r.rc, (0, 3), str(r))
        self.assertTrue(os.path.exists(self.dest), 'GFD wrote no labels\n%s' % r)
        with open(self.dest) as f:
            labels = parse_labels(f.read())
        self.assertRegex(labels.pop('nvidia.com/gfd.timestamp', ''), r'^[0-9]+$')
        return labels

    def model_labels(self, config, node, strategy):
        argv = [MOKKA, 'render', '--labels', '--node', node, '--mig-strategy', strategy]
        if config:
            argv += ['--config', config]
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, env=self.env, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.splitlines()
        self.assertEqual(lines, sorted(lines), 'render --labels prints them sorted')
        return parse_labels(p.stdout)

    def check(self, name):
        text, node, strategies = UNIVERSES[name]
        config = self.config_path(text)
        for strategy in strategies:
            with self.subTest(strategy=strategy):
                real = self.real_labels(config, node, strategy)
                self.assertGreater(len(real), 20)
                self.assertEqual(self.model_labels(config, node, strategy), real)


def _add_test(name):
    setattr(GfdModel, 'test_' + name, lambda self: self.check(name))


for _name in UNIVERSES:
    _add_test(_name)


if __name__ == '__main__':
    unittest.main()
