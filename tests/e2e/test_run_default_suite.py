"""test_run_default_suite.py - `mokka run` without --suite runs its built-in
smoke suite, written for the universe it runs on (src/run/smoke.c), and
passes on every shipped config: plain GPUs, GPUs with health rules that
turn unhealthy on their own (faults.yaml), MIG (mig-mixed.yaml: under the
plugin's default strategy, and under mixed and single with NVIDIA's
plugin), NVLink topologies, and another node's identity (--node).

With the stand-in plugin always; with NVIDIA's plugin when env
MOKKA_DEVICE_PLUGIN names it (the MIG strategies: the stand-in knows none).
Needs what test_run.py needs (root or user namespaces)."""
import glob
import os
import tempfile
import unittest

from cli_support import CONFIGS, MIG_MIXED
from test_run import REAL, SAN, RunTest

# Two A100s split alike: what the single strategy needs (every GPU in MIG
# mode with one profile).
MIG_SINGLE = '''
version: 1.0
profile: a100-sxm4-40gb
count: 2
devices:
  - index: 0
    mig: {mode: enabled, instances: [3g.20gb, 3g.20gb]}
  - index: 1
    mig: {mode: enabled, instances: [3g.20gb, 3g.20gb]}
'''


class DefaultSuite(RunTest):

    def assertPassed(self, r):
        self.assertExit(r, 0)
        self.assertJUnitRules(r)
        names = [c.get('name') for c in r.cases()]
        self.assertEqual(len(names), 3, names)
        for n in names:
            self.assertEqual(r.status(n), 'pass', '%s\n%s' % (n, r))
        return names

    def test_every_shipped_config(self):
        configs = sorted(glob.glob(os.path.join(CONFIGS, '*.yaml')))
        self.assertGreaterEqual(len(configs), 5)
        for config in configs:
            with self.subTest(config=os.path.basename(config)):
                self.assertPassed(self.run_mokka(config=config))

    def test_health_rules_are_left_out(self):
        names = self.assertPassed(self.run_mokka(config=os.path.join(CONFIGS, 'faults.yaml')))
        self.assertEqual(names[0], 'every GPU registered and those without health rules healthy')

    def test_another_nodes_identity(self):
        self.assertPassed(self.run_mokka('--node', 'gpu-node-17',
                                         config=os.path.join(CONFIGS, 'dgx-a100.yaml')))

    def test_mig_strategy_none_advertises_whole_gpus(self):
        names = self.assertPassed(self.run_mokka('-e', 'MIG_STRATEGY=none', config=MIG_MIXED))
        self.assertEqual(names[0], 'every GPU registered and healthy')


class DefaultSuiteRealPlugin(DefaultSuite):
    """The same with NVIDIA's plugin, and its MIG strategies."""

    def setUp(self):
        if not REAL:
            self.skipTest('set MOKKA_DEVICE_PLUGIN to the NVIDIA device plugin binary to run '
                          'these (e.g. /opt/mokka-peers/bin/nvidia-device-plugin)')
        if SAN:
            self.skipTest("NVIDIA's plugin is a Go program built without %s: it cannot load "
                          "this build's library" % SAN)
        super().setUp()

    def run_mokka(self, *args, plugin_args=(), **kw):
        return super().run_mokka(*args, plugin=REAL, plugin_args=plugin_args, **kw)

    def test_mig_mixed(self):
        r = self.run_mokka(config=MIG_MIXED, plugin_args=['--mig-strategy=mixed'])
        names = self.assertPassed(r)
        self.assertEqual(names, ['every GPU and MIG device registered and healthy',
                                 'allocating one GPU sets NVIDIA_VISIBLE_DEVICES to it',
                                 'XID 79 on GPU 1 takes exactly that GPU out'])

    def test_mig_mixed_from_the_environment(self):
        self.assertPassed(self.run_mokka('-e', 'MIG_STRATEGY=mixed', config=MIG_MIXED))

    def test_mig_single(self):
        with tempfile.NamedTemporaryFile('w', suffix='.yaml', dir=self.tmp, delete=False) as f:
            f.write(MIG_SINGLE)
        r = self.run_mokka(config=f.name, plugin_args=['--mig-strategy=single'])
        names = self.assertPassed(r)
        self.assertEqual(names[2], 'XID 79 on GPU 0 takes out MIG devices of that GPU only')


if __name__ == '__main__':
    unittest.main()
