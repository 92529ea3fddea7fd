"""test_cli_render.py - `mokka render`: the built-in universe is the DGX A100
fixture, UUIDs follow the node name, output is stable and complete, JSON
and YAML agree, the MIG layout and NVLink peers are shown, --profiles lists
the built-in profiles, --labels prints gpu-feature-discovery's labels for
the node (sorted key=value lines, or a JSON object; test_gfd_model.py
compares them with the real GFD's), and bad input gives file:line:col and
exit 2."""
import json
import os
import re
import unittest

from mokka_probe import CONFIGS, NODE, CliTest, mokka

DGX = os.path.join(CONFIGS, 'dgx-a100.yaml')
MIG = os.path.join(CONFIGS, 'mig-mixed.yaml')


def render_json(*args):
    p = mokka('render', '--format', 'json', *args)
    if p.returncode != 0:
        raise AssertionError(p.stderr)
    return json.loads(p.stdout)


class RenderTest(CliTest):

    def test_default_is_the_dgx_fixture(self):
        a = mokka('render')
        b = mokka('render', '--config', DGX)
        self.assertExit(a, 0)
        self.assertExit(b, 0)
        self.assertEqual(a.stdout, b.stdout)
        self.assertEqual(a.stderr, '')

    def test_stable(self):
        self.assertEqual(mokka('render', '-c', DGX).stdout, mokka('render', '-c', DGX).stdout)

    def test_uuids_follow_the_node(self):
        a = render_json('--config', DGX)
        b = render_json('--config', DGX, '--node', 'other-node')
        self.assertEqual(a['node'], NODE)
        self.assertEqual(b['node'], 'other-node')
        ua = [d['uuid'] for d in a['devices']]
        ub = [d['uuid'] for d in b['devices']]
        self.assertEqual(len(set(ua)), 8)
        self.assertTrue(set(ua).isdisjoint(ub))
        self.assertNotEqual([d['serial'] for d in a['devices']],
                            [d['serial'] for d in b['devices']])
        for u in ua:
            self.assertRegex(u, r'^GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$')
        # Everything else is the same.
        for d in a['devices'] + b['devices']:
            del d['uuid'], d['serial']
        del a['node'], b['node']
        self.assertEqual(a, b)

    def test_node_from_environment(self):
        p = mokka('render', '-c', DGX, env={'MOKKA_NODE_NAME': 'env-node'})
        self.assertIn('node: env-node\n', p.stdout)

    def test_resolved_fields(self):
        u = render_json('--config', DGX)
        self.assertEqual(u['seed'], 1)
        self.assertEqual(u['driverVersion'], '535.261.03')
        self.assertEqual(u['cudaVersion'], '12.2')
        d = u['devices'][4]
        self.assertEqual(d['index'], 4)
        self.assertEqual(d['profile'], 'a100-sxm4-40gb')
        self.assertEqual(d['name'], 'NVIDIA A100-SXM4-40GB')
        self.assertEqual(d['pciBusID'], '00000000:87:00.0')
        self.assertEqual(d['minorNumber'], 4)
        self.assertEqual(d['numaNode'], 1)
        self.assertEqual(d['memory'], '40GiB')
        self.assertEqual(d['powerLimits'], {'default': '400W', 'min': '100W', 'max': '400W',
                                            'enforced': '400W'})
        self.assertEqual(d['fanSpeed'], 'N/A')
        self.assertEqual(d['health'], {'xid': 79, 'mode': 'xid'})
        self.assertEqual(d['mig']['mode'], 'disabled')
        # A DGX A100's fabric: 6 NVSwitches on buses of their own; GPU 4's 12
        # links 2 on each, on ports 8 and 9 (GPUs 0-3 took 0-7).
        self.assertEqual(d['nvlink']['fabric'], 'nvswitch')
        self.assertEqual(d['nvlink']['peers'], [])
        self.assertEqual(d['nvlink']['switchLinks'][:3], [{'link': 0, 'switch': 0, 'port': 8},
                                                          {'link': 1, 'switch': 0, 'port': 9},
                                                          {'link': 2, 'switch': 1, 'port': 8}])
        self.assertEqual([s['pciBusID'] for s in u['topology']['nvswitches']],
                         ['0000:C4:00.0', '0000:C5:00.0', '0000:C6:00.0', '0000:C7:00.0',
                          '0000:C8:00.0', '0000:C9:00.0'])
        self.assertEqual({s['pciDeviceId'] for s in u['topology']['nvswitches']}, {'0x1AF110DE'})

    def test_direct_nvlink_peers(self):
        # nvlink: all over 12 links and 8 GPUs: one link to each other GPU, symmetric.
        with open(DGX) as f:
            text = f.read().replace('nvlink: nvswitch', 'nvlink: all')
        p = mokka('render', '--format', 'json', '-c', '-', input=text)
        u = json.loads(p.stdout)
        d = u['devices'][4]
        self.assertEqual(d['nvlink']['fabric'], 'direct')
        peers = {p['gpu'] for p in d['nvlink']['peers']}
        self.assertEqual(peers, {0, 1, 2, 3, 5, 6, 7})
        for p in d['nvlink']['peers']:
            back = [q for q in u['devices'][p['gpu']]['nvlink']['peers'] if q['link'] == p['peerLink']]
            self.assertEqual(back, [{'link': p['peerLink'], 'gpu': 4, 'peerLink': p['link']}])
        self.assertEqual(u['topology']['nvswitches'], [])

    def test_live_values_in_config_syntax(self):
        text = mokka('render', '-c', os.path.join(CONFIGS, 'hgx-h100.yaml')).stdout
        self.assertIn('  temperature: 36-52\n', text)
        self.assertIn('  temperature: 32-44\n', text)
        self.assertIn('  power: follow\n', text)
        self.assertIn('  memoryUsed: 10GiB\n', text)
        self.assertIn('  utilization: {gpu: -1, memory: 30, encoder: 0, decoder: 0}\n', text)
        faults = render_json('-c', os.path.join(CONFIGS, 'faults.yaml'))['devices']
        self.assertEqual(faults[6]['health'], {'unhealthy_after_seconds': 60, 'xid': 79,
                                               'mode': 'lost'})
        self.assertEqual(faults[5]['health']['unhealthy_on_temperature'], 85)

    def test_mig_layout(self):
        u = render_json('-c', MIG)
        mig = u['devices'][0]['mig']
        self.assertEqual(mig['mode'], 'enabled')
        got = [(i['profile'], i['gpuInstance'], i['computeInstance'], i['placement']['start'],
                i['placement']['size'], i['memory']) for i in mig['instances']]
        self.assertEqual(got, [('1g.5gb', 7, 0, 0, 1, '4864MiB'), ('1g.5gb', 8, 0, 1, 1, '4864MiB'),
                               ('2g.10gb', 4, 0, 2, 2, '9856MiB'),
                               ('3g.20gb', 2, 0, 4, 4, '19968MiB')])
        for i in mig['instances']:
            self.assertRegex(i['uuid'], r'^MIG-[0-9a-f]{8}-')
            self.assertEqual(i['capsMinors']['computeInstance'], i['capsMinors']['gpuInstance'] + 1)
        self.assertEqual(u['devices'][1]['mig'], {'mode': 'disabled', 'instances': []})

    def test_yaml_matches_json(self):
        y = mokka('render', '-c', MIG).stdout
        j = render_json('-c', MIG)
        # Spot checks of quoting: strings that YAML would read as numbers.
        self.assertIn('driverVersion: "535.261.03"\n', y)
        self.assertIn('cudaVersion: "12.2"\n', y)
        self.assertIn('  pciBusID: "00000000:07:00.0"\n', y)
        self.assertIn('  serial: "%s"\n' % j['devices'][0]['serial'], y)
        self.assertIn('  uuid: %s\n' % j['devices'][0]['uuid'], y)
        self.assertEqual(len(re.findall(r'^- index: ', y, re.M)), len(j['devices']))

    def test_stdin(self):
        with open(MIG) as f:
            text = f.read()
        self.assertEqual(mokka('render', '-c', '-', input=text).stdout, mokka('render', '-c', MIG).stdout)

    def test_profiles(self):
        p = mokka('render', '--profiles', '--format', 'json')
        self.assertExit(p, 0)
        profiles = json.loads(p.stdout)
        names = [x['profile'] for x in profiles]
        self.assertEqual(names, sorted(names))
        on_disk = sorted(f[:-5] for f in os.listdir(os.path.join(os.path.dirname(CONFIGS), 'profiles'))
                         if f.endswith('.yaml'))
        self.assertEqual(names, on_disk)
        a100 = [x for x in profiles if x['profile'] == 'a100-sxm4-40gb'][0]
        self.assertEqual(a100['name'], 'NVIDIA A100-SXM4-40GB')
        self.assertEqual(a100['memory'], '40GiB')
        self.assertIn('3g.20gb', a100['migProfiles'])
        self.assertIn('- profile: a100-sxm4-40gb\n', mokka('render', '--profiles').stdout)

    def test_labels(self):
        p = mokka('render', '--labels')
        self.assertExit(p, 0)
        lines = p.stdout.splitlines()
        self.assertEqual(lines, sorted(lines))
        self.assertIn('nvidia.com/gpu.product=NVIDIA-A100-SXM4-40GB', lines)
        self.assertIn('nvidia.com/gpu.machine=NVIDIA-DGX-A100', lines)
        self.assertFalse([l for l in lines if l.startswith('nvidia.com/gfd.timestamp=')])
        self.assertFalse([l for l in lines if l.startswith('nvidia.com/mig.strategy=')])
        mixed = mokka('render', '--labels', '-c', MIG, '--mig-strategy', 'mixed', '-f', 'json')
        self.assertExit(mixed, 0)
        labels = json.loads(mixed.stdout)
        self.assertEqual(labels['nvidia.com/mig.strategy'], 'mixed')
        self.assertEqual(labels['nvidia.com/mig-1g.5gb.count'], '2')
        single = mokka('render', '--labels', '-c', MIG, '--mig-strategy=single')
        self.assertIn('nvidia.com/gpu.product=NVIDIA-A100-SXM4-40GB-MIG-INVALID\n', single.stdout)
        # A driver version GFD cannot split stops GFD: no labels.
        bad = mokka('render', '--labels', '-c', '-',
                    input='version: 1.0\nprofile: t4\ncount: 1\ndriverVersion: "535"\n')
        self.assertExit(bad, 2)
        self.assertEqual(bad.stdout, '')
        self.assertIn('Version "535" does not match format "X.Y[.Z]"', bad.stderr)

    def test_labels_follow_the_node(self):
        tray = ('version: 1.0\nprofile: gb200\ncount: 4\ntopology: {nvlink: none}\n'
                'defaults:\n  fabric: {clusterUuid: auto, cliqueId: 7}\n')

        def clique(node):
            p = mokka('render', '--labels', '-c', '-', '--node', node, input=tray)
            self.assertExit(p, 0)
            return [l for l in p.stdout.splitlines() if l.startswith('nvidia.com/gpu.clique=')]
        a, b = clique('gb200-r01-tray01'), clique('gb200-r01-tray02')
        self.assertEqual(len(a), 1)
        self.assertRegex(a[0], r'=[0-9a-f-]{36}\.7$')
        self.assertEqual(a, b)     # one rack, one clique
        self.assertNotEqual(a, clique('gb200-r02-tray01'))

    def test_bad_config(self):
        p = mokka('render', '-c', '-', input='version: 1.0\nprofile: a100-sxm4-40gb\ncount: x\n')
        self.assertExit(p, 2)
        self.assertEqual(p.stdout, '')
        self.assertEqual(p.stderr, "<stdin>:3:8: error: count: expected an integer, got 'x'\n")

    def test_usage(self):
        self.assertExit(mokka('render', '--format', 'xml'), 2)
        self.assertExit(mokka('render', 'file.yaml'), 2)
        self.assertExit(mokka('render', '--profiles', '--config', DGX), 2)
        for args, msg in ((['--mig-strategy', 'mixed'], '--mig-strategy goes with --labels'),
                          (['--labels', '--mig-strategy', 'both'],
                           "--mig-strategy takes none, single or mixed, not 'both'"),
                          (['--labels', '--profiles'], '--profiles and --labels: choose one')):
            p = mokka('render', *args)
            self.assertExit(p, 2)
            self.assertIn(msg, p.stderr)
        h = mokka('render', '--help')
        self.assertExit(h, 0)
        self.assertTrue(h.stdout.startswith('Usage: mokka render'))


if __name__ == '__main__':
    unittest.main()
