"""test_prefer_model.py - the models of NVIDIA's device plugin in
src/nvmodel/ against the real plugin v0.17.4 under `mokka run`: the devices
it lists under a MIG strategy (mk_pdevs_list) and its answers to
GetPreferredAllocation (mk_pdevs_prefer), which `mokka fleet` admits pods
by. build/tests/prefer-model prints what the models say; each universe's
suite asks the plugin the same questions and expects the model's answers.

Universes: the DGX A100 and HGX H100 fixtures (NVSwitch: the allocator sees
PCIe only), a PCIe board with NVLink pairs of uneven link counts, eight
PCIe GPUs over two NUMA nodes placed unevenly, eight H100s wired to each
other directly (uneven link counts), MIG under mixed (the fixture and a
bigger one) and single, and sixteen PCIe GPUs in pairs (seven or more sets
of a partition: where Go's shared append arrays change the answer).
Requests are random with a fixed seed: available sets in random order,
sizes, must-include sets.

Whole GPUs: the plugin's answer must be the model's exactly (as sets; the
best-effort policy is deterministic for a given order of the list). MIG
devices: the plugin picks among equals through Go map order, so its answer
must be one it can give: the must-include devices and, with up to 8
devices available, a run of consecutive candidates in the request's order
(cyclically), with more any candidates; how often it matched the model's
pick is printed. Then what the plugin refuses: the nil-device crash of the
best-effort policy the model predicts, the universes it will not serve
under the single strategy, in the model's words, and (outside the model,
which has no live state) whole-GPU calls while a GPU is lost.

Needs MOKKA_DEVICE_PLUGIN (NVIDIA's plugin v0.17.4) and what test_run.py
needs (root or user namespaces); skips saying so otherwise."""
import json
import os
import random
import re
import subprocess
import sys
import unittest

from cli_support import BUILD, CONFIGS, MIG_MIXED
from test_run import REAL, SAN, RunTest

MODEL = os.path.join(BUILD, 'build', 'tests', 'prefer-model')
SEED = 20261206
NODE = 'prefer-node'
MIG_WINDOW = 8        # up to this many devices a Go map iterates as a rotation

PCIE_PAIRS = '''
version: 1.0
profile: h100-pcie-80gb
count: 8
defaults:
  uuid: auto
  nvlink: {version: 4, links: 12}
topology:
  nvlink: [[0, 1, 4], [1, 2, 2], [2, 3, 4], [3, 0, 1], [4, 5, 6], [6, 7, 3], [5, 6, 1], [0, 4, 1]]
  numaNodes: 2
'''

PCIE_NUMA = '''
version: 1.0
profile: l40s
count: 8
defaults: {uuid: auto}
devices:
  - {index: 0, numaNode: 0}
  - {index: 1, numaNode: 0}
  - {index: 2, numaNode: 0}
  - {index: 3, numaNode: 1}
  - {index: 4, numaNode: 1}
  - {index: 5, numaNode: 1}
  - {index: 6, numaNode: 1}
  - {index: 7, numaNode: 0}
topology: {nvlink: none, numaNodes: 2}
'''

NVLINK_ALL = '''
version: 1.0
profile: h100-sxm5-80gb
count: 8
defaults: {uuid: auto}
topology: {nvlink: all, numaNodes: 2}
'''

MIG_BIG = '''
version: 1.0
profile: a100-sxm4-40gb
count: 5
defaults: {uuid: auto}
devices:
  - {index: 0, mig: {mode: enabled, instances: [1g.5gb, 1g.5gb, 1g.5gb, 1g.5gb, 1g.5gb, 1g.5gb, 1g.5gb]}}
  - {index: 1, mig: {mode: enabled, instances: [1g.5gb, 1g.5gb, 1g.5gb, 1g.5gb, 1g.5gb, 1g.5gb, 1g.5gb]}}
  - {index: 2, mig: {mode: enabled, instances: [3g.20gb, 2g.10gb, 1g.5gb, 1g.5gb]}}
  - {index: 4, mig: {mode: enabled}}
topology: {numaNodes: 2}
'''

MIG_SINGLE = '''
version: 1.0
profile: a100-sxm4-40gb
count: 3
defaults: {uuid: auto}
devices:
  - {index: 0, mig: {mode: enabled, instances: [3g.20gb, 3g.20gb]}}
  - {index: 1, mig: {mode: enabled, instances: [3g.20gb, 3g.20gb]}}
  - {index: 2, mig: {mode: enabled, instances: [3g.20gb, 3g.20gb]}}
'''

PCIE_16 = '''
version: 1.0
profile: a10
count: 16
defaults: {uuid: auto}
topology: {nvlink: none, numaNodes: 2}
'''

# what the plugin refuses under the single strategy, one reason each
SINGLE_MIXED_MODES = '''
version: 1.0
profile: a100-sxm4-40gb
count: 2
defaults: {uuid: auto}
devices:
  - {index: 0, mig: {mode: enabled, instances: [3g.20gb, 3g.20gb]}}
'''

SINGLE_NO_INSTANCES = '''
version: 1.0
profile: a100-sxm4-40gb
count: 2
defaults: {uuid: auto}
devices:
  - {index: 0, mig: {mode: enabled, instances: [3g.20gb, 3g.20gb]}}
  - {index: 1, mig: {mode: enabled}}
'''


def valid(ans, req):
    """The checks every answer passes: size, no duplicates, must included,
    within available."""
    return (len(ans) == req['size'] and len(set(ans)) == len(ans)
            and set(req['must']) <= set(ans) and set(ans) <= set(req['available']))


def mig_possible(ans, req):
    """Whether the plugin's distributed policy can give ans: the must-include
    devices, then candidates in a Go map's order."""
    if not valid(ans, req):
        return False
    cand = [d for d in req['available'] if d not in req['must']]
    rest = set(ans) - set(req['must'])
    if len(req['available']) > MIG_WINDOW or not rest:
        return True
    n = len(rest)
    return any(set(cand[(s + i) % len(cand)] for i in range(n)) == rest for s in range(len(cand)))


class PreferModel(RunTest):

    def setUp(self):
        if not REAL:
            self.skipTest('set MOKKA_DEVICE_PLUGIN to NVIDIA\'s device plugin v0.17.4 '
                          '(e.g. /var/cache/mokka-nv/v0.17.4/nvidia-device-plugin) to set the '
                          'models beside it')
        if SAN:
            self.skipTest("NVIDIA's plugin is a Go program built without %s: it cannot load "
                          "this build's library" % SAN)
        super().setUp()
        if not os.access(MODEL, os.X_OK):
            self.skipTest('%s is not built (make testbins)' % MODEL)
        if not os.access(REAL, os.X_OK):
            self.fail('MOKKA_DEVICE_PLUGIN=%s is not an executable file' % REAL)

    # --- the model -------------------------------------------------------------------------

    def config(self, text_or_path, name):
        if os.path.exists(text_or_path):
            return text_or_path
        path = self.path(name + '.yaml')
        with open(path, 'w') as f:
            f.write(text_or_path)
        return path

    def model(self, config, strategy, *args, stdin=''):
        argv = [MODEL, '--config', config, '--node', NODE]
        if strategy:
            argv += ['--strategy', strategy]
        return subprocess.run(argv + list(args), input=stdin, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True)

    def model_list(self, config, strategy):
        p = self.model(config, strategy, '--list')
        self.assertEqual(p.returncode, 0, p.stderr)
        return json.loads(p.stdout)

    def model_answers(self, config, strategy, reqs):
        p = self.model(config, strategy,
                       stdin=''.join(json.dumps({k: r[k] for k in ('available', 'must', 'size')})
                                     + '\n' for r in reqs))
        self.assertEqual(p.returncode, 0, p.stderr)
        return [json.loads(line) for line in p.stdout.splitlines()]

    # --- the requests ----------------------------------------------------------------------

    @staticmethod
    def requests(rng, devs, n, sizes=None, least=1):
        """n random requests over the resources of devs: an available set
        (at least `least` devices) in random order, a size (from `sizes`
        when given), up to two must-include devices."""
        by = {}
        for d in devs:
            by.setdefault(d['resource'], []).append(d['id'])
        reqs = []
        while len(reqs) < n:
            res = rng.choice(sorted(by))
            ids = by[res]
            if len(ids) < least:
                continue
            avail = rng.sample(ids, rng.randint(least, len(ids)))
            size = rng.choice(sizes) if sizes else rng.randint(1, len(avail))
            must = rng.sample(avail, min(size, rng.choice((0, 0, 1, 2))))
            reqs.append({'resource': res, 'available': avail, 'must': must, 'size': size})
        return reqs

    # --- the suite -------------------------------------------------------------------------

    @staticmethod
    def suite_text(devs, reqs, answers):
        """A case listing each resource's devices, then one per request that
        expects the model's answer."""
        lines = ['suite: prefer-model', 'cases:', '  - name: the devices the model lists',
                 '    expect:']
        by = {}
        for d in devs:
            by.setdefault(d['resource'], []).append(d['id'])
        for res, ids in sorted(by.items()):
            lines.append('      - {resource: %s, devices: %d, healthy: %s}'
                         % (res, len(ids), json.dumps(ids)))
        lines.append('    within: 60s')
        for k, (r, a) in enumerate(zip(reqs, answers)):
            pref = {'available': r['available'], 'size': r['size'], 'expect': a['devices']}
            if r['must']:
                pref['must'] = r['must']
            lines += ['  - name: "request %d: %d of %d%s"' % (k, r['size'], len(r['available']),
                                                           ', %d must' % len(r['must'])
                                                           if r['must'] else ''),
                      '    expect: {resource: %s, preferred: %s}' % (r['resource'],
                                                                     json.dumps(pref))]
        return '\n'.join(lines) + '\n'

    def run_real(self, config, strategy, suite, *args, **kw):
        plugin_args = ['--mig-strategy=' + strategy] if strategy else []
        return self.run_mokka('--node', NODE, '--report', 'json=' + self.path('report.json'),
                              *args, plugin=REAL, plugin_args=plugin_args, config=config,
                              suite=suite, **kw)

    def report_cases(self):
        with open(self.path('report.json')) as f:
            return [c for s in json.load(f)['suites'] for c in s['cases']
                    if s['name'] == 'prefer-model']

    @staticmethod
    def actual(case):
        for line in (case.get('detail') or '').splitlines():
            line = line.strip()
            if line.startswith('actual:'):
                ids = line.split(':', 1)[1].strip().strip('[]')
                return ids.split(',') if ids else []
        return None

    def check_universe(self, name, text_or_path, strategy, ncases, sizes=None, least=1):
        """The model's list and answers on one universe against the plugin's."""
        config = self.config(text_or_path, name)
        devs = self.model_list(config, strategy)
        aligned = {d['resource'] for d in devs}
        aligned -= {d['resource'] for d in devs if d['mig'] >= 0}
        rng = random.Random('%s/%d' % (name, SEED))
        reqs, answers, crashes = [], [], 0
        while len(reqs) < ncases:
            batch = self.requests(rng, devs, ncases - len(reqs), sizes, least)
            for r, a in zip(batch, self.model_answers(config, strategy, batch)):
                if 'crashes' in a.get('error', ''):
                    crashes += 1     # the plugin would exit: test_nil_device_crash
                    continue
                self.assertIn('devices', a, '%s: %s: the model has no answer' % (name, r))
                self.assertTrue(valid(a['devices'], r), '%s: the model answered %s to %s'
                                % (name, a['devices'], r))
                reqs.append(r)
                answers.append(a)
        r = self.run_real(config, strategy, self.suite_text(devs, reqs, answers))
        cases = self.report_cases()
        self.assertEqual(len(cases), 1 + len(reqs), str(r))
        self.assertEqual(cases[0]['status'], 'pass', '%s: %s\n%s' % (name, cases[0], r))
        matched = mig = 0
        for case, req, ans in zip(cases[1:], reqs, answers):
            if req['resource'] in aligned:
                self.assertEqual(case['status'], 'pass', '%s: the plugin and the model differ:'
                                 ' %s\n%s' % (name, json.dumps(case, indent=1), r))
                continue
            mig += 1
            if case['status'] == 'pass':
                matched += 1
                continue
            got = self.actual(case)
            self.assertIsNotNone(got, '%s: %s' % (name, json.dumps(case, indent=1)))
            self.assertTrue(mig_possible(got, req), '%s: the plugin answered %s, which its '
                            'distributed policy cannot give, to %s' % (name, got, req))
        sys.stderr.write('%s: %d requests, %d on whole GPUs equal; %d on MIG devices, the '
                         'plugin picked the model\'s devices %d times%s\n'
                         % (name, len(reqs), len(reqs) - mig, mig, matched,
                            ', %d requests the plugin crashes on left out' % crashes
                            if crashes else ''))
        return len(reqs)

    # --- the tests -------------------------------------------------------------------------

    def test_nvswitch_boards(self):
        self.check_universe('dgx-a100', os.path.join(CONFIGS, 'dgx-a100.yaml'), None, 30)
        self.check_universe('hgx-h100', os.path.join(CONFIGS, 'hgx-h100.yaml'), None, 25)

    def test_pcie_nvlink_pairs(self):
        self.check_universe('pcie-pairs', PCIE_PAIRS, None, 30)

    def test_pcie_two_numa_nodes(self):
        self.check_universe('pcie-numa', PCIE_NUMA, None, 25)

    def test_nvlink_direct_uneven(self):
        self.check_universe('nvlink-all', NVLINK_ALL, None, 20)

    def test_mig_mixed(self):
        self.check_universe('mig-mixed', MIG_MIXED, 'mixed', 10)
        self.check_universe('mig-big', MIG_BIG, 'mixed', 25)

    def test_mig_single(self):
        self.check_universe('mig-single', MIG_SINGLE, 'single', 12)

    def test_sixteen_gpus_shared_append_arrays(self):
        # each request walks 2 million partitions in the plugin (seconds)
        self.check_universe('pcie-16', PCIE_16, None, 6, sizes=[2], least=13)

    def test_nil_device_crash(self):
        """Five GPUs in sets of 3 without must-include: the padded set holds
        the NVLinked pair 6-7 and outscores the full set, which the plugin
        answers with a nil device's UUID: it panics, and the kubelet's call
        fails."""
        config = self.config(PCIE_PAIRS, 'pcie-pairs')
        ids = [d['id'] for d in self.model_list(config, None)]
        req = {'available': [ids[i] for i in (0, 2, 4, 6, 7)], 'must': [], 'size': 3}
        a = self.model_answers(config, None, [req])[0]
        self.assertIn('crashes', a.get('error', ''), a)
        r = self.run_real(config, None, '''
suite: prefer-model
cases:
  - name: the padded set wins
    expect:
      preferred: {available: %s, size: 3}
  - name: the plugin crashed
    expect: {plugin: {crashes: 1}}
    within: 30s
''' % json.dumps(req['available']))
        self.assertExit(r, 1)
        cases = self.report_cases()
        self.assertRegex(cases[0]['message'], r'GetPreferredAllocation of 3 nvidia.com/gpu failed')
        self.assertEqual(cases[1]['status'], 'pass', str(r))
        self.assertIn('nil pointer dereference', r.plugin_log() + r.stderr)

    def test_lost_gpu(self):
        """What the model does not see (it has no live state): while a GPU
        of the node is lost, every whole-GPU call fails, since the allocator
        reads every GPU; MIG devices' calls read none and still answer."""
        r = self.run_real(MIG_MIXED, 'mixed', '''
suite: prefer-model
cases:
  - name: GPU 1 lost
    inject: {gpu: 1, lost: true}
    wait: 2s
    expect:
      - preferred: {available: ["${uuid.1}"], size: 1}
      - {resource: nvidia.com/mig-1g.5gb, preferred: {size: 1}}
''')
        self.assertExit(r, 1)
        detail = self.report_cases()[0]['detail']
        self.assertIn('GetPreferredAllocation of 1 nvidia.com/gpu failed', detail)
        self.assertIn("error getting device handle for index '1': GPU is lost", detail)
        self.assertNotIn('mig-1g.5gb', detail)

    def test_single_strategy_refused(self):
        """What the plugin will not serve under single, in the model's
        words: it exits at start, so nothing registers."""
        for name, text in (('mig-types', MIG_MIXED), ('mig-modes', SINGLE_MIXED_MODES),
                           ('no-instances', SINGLE_NO_INSTANCES)):
            with self.subTest(universe=name):
                config = self.config(text, name)
                p = self.model(config, 'single', '--list')
                self.assertEqual(p.returncode, 1, p.stdout)
                why = p.stderr.strip().split('prefer-model: ', 1)[1]
                r = self.run_real(config, 'single', 'cases:\n  - name: nothing\n    expect: '
                                  '{capacity: 0}\n', '--register-timeout', '20s',
                                  '--restart-limit', '1')
                self.assertNotEqual(r.rc, 0, str(r))
                said = [line.split('error starting plugins: ', 1)[1]
                        for line in (r.plugin_log() + r.stderr).splitlines()
                        if 'error starting plugins: ' in line]
                self.assertTrue(said, 'the plugin did not say why it stopped\n%s' % r)
                # the model leaves out the frames of Go's visitors
                self.assertTrue(re.sub(r'error visiting [^:]*: ', '', said[0]).endswith(why),
                                'the plugin said %r, the model %r' % (said[0], why))


if __name__ == '__main__':
    unittest.main()
