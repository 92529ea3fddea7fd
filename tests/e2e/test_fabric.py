"""test_fabric.py - the NVLink fabric identity of GB200 NVL72 trays (the
`fabric:` config key): lint errors name file:line:col; `mokka render` shows
it, one cluster UUID per rack; NVIDIA's nvidia-smi (535 and the other driver
lines that print a Fabric section) shows state and status in -q, -x -q and
--query-gpu field by field against the universe; pynvml's call reaches the
same values; `mokka inject --fabric-*` changes them in a running program's
next answer, and --fabric-clear restores them.

The configs here wire no NVLink peers (topology.nvlink: none); the fixture
fixtures/configs/gb200-nvl72.yaml puts a tray's GPUs on the rack's 18
NVLink switch chips (topology.nvlink: nvswitch).

Env: MOKKA_BUILD, MOKKA_SRC, MOKKA_SAN (see cli_support.py)."""
import json
import os
import subprocess
import xml.etree.ElementTree as ET

from cli_support import CliTest, CONFIGS, LIB
from test_nvidia_smi import parse_q

SMI = os.environ.get('MOKKA_NVIDIA_SMI') or '/usr/lib/nvidia/current/nvidia-smi'
SMI_BUILDS = os.environ.get('MOKKA_SMI_BUILDS') or '/var/cache/mokka/nvidia-smi'
NVL72 = os.path.join(CONFIGS, 'gb200-nvl72.yaml')

TRAY = """\
version: 1.0
profile: gb200
count: 4
defaults:
  fabric: {clusterUuid: auto, cliqueId: 32766}
devices:
  - {index: 3, fabric: {state: inProgress, status: notReady}}
topology: {nvlink: none}
"""
# nvidia-smi's words for NVML's fabric states.
STATE_TEXT = {'notSupported': 'N/A', 'notStarted': 'Not Started', 'inProgress': 'In Progress',
              'completed': 'Completed'}
STATUS_TEXT = {'success': 'Success', 'notReady': 'System is not in ready state'}

# pynvml 11.525's c_nvmlGpuFabricInfo_t has the wrong layout (an 80-byte UUID,
# a 4-byte state), so the probe passes NVML's own struct to pynvml's call.
PYNVML_PROBE = r'''
import ctypes, json, sys, pynvml
class Info(ctypes.Structure):
    _fields_ = [("clusterUuid", ctypes.c_ubyte * 16), ("status", ctypes.c_uint),
                ("cliqueId", ctypes.c_uint), ("state", ctypes.c_ubyte)]
class InfoV(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint), ("clusterUuid", ctypes.c_ubyte * 16),
                ("status", ctypes.c_uint), ("cliqueId", ctypes.c_uint),
                ("state", ctypes.c_ubyte), ("healthMask", ctypes.c_uint),
                ("healthSummary", ctypes.c_ubyte)]
pynvml.nvmlInit()
out = []
for i in range(pynvml.nvmlDeviceGetCount()):
    h = pynvml.nvmlDeviceGetHandleByIndex(i)
    info = Info()
    pynvml.nvmlDeviceGetGpuFabricInfo(h, ctypes.byref(info))
    v = InfoV(version=3 << 24 | ctypes.sizeof(InfoV))
    fn = pynvml._nvmlGetFunctionPointer("nvmlDeviceGetGpuFabricInfoV")
    rc = fn(h, ctypes.byref(v))
    out.append({"uuid": bytes(info.clusterUuid).hex(), "clique": info.cliqueId,
                "state": info.state, "status": info.status, "rcV": rc,
                "maskV": v.healthMask, "summaryV": v.healthSummary})
print(json.dumps(out))
'''


def uuid_hex(u):
    return u.replace('-', '')


class FabricTest(CliTest):

    def write(self, name, text):
        path = self.path(name)
        with open(path, 'w') as f:
            f.write(text)
        return path

    def render(self, config, node='gb200-r07-tray03'):
        p = self.mokka('render', '--format', 'json', '--config', config, '--node', node)
        self.assertEqual(p.returncode, 0, p.stderr)
        return json.loads(p.stdout)

    def mock_env(self, config, state):
        env = dict(self.env, MOCK_CONFIG_PATH=config, MOKKA_STATE_DIR=state,
                   MOKKA_NODE_NAME='gb200-r07-tray03', LD_PRELOAD=LIB)
        return env

    # --- config --------------------------------------------------------------------

    def test_lint_names_the_key(self):
        bad = self.write('bad.yaml', """\
version: 1.0
count: 2
devices:
  - index: 0
    profile: gb200
    fabric: {clusterUuid: 8c4ba2e1-0f9d, cliqueId: 70000}
  - index: 1
    profile: a100-sxm4-40gb
    fabric: {cliqueId: 3}
topology: {nvlink: none}
""")
        p = self.mokka('lint', bad)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        out = p.stdout + p.stderr
        self.assertIn("bad.yaml:6:27: error: fabric.clusterUuid: '8c4ba2e1-0f9d' is not a UUID", out)
        self.assertIn('bad.yaml:6:52: error: fabric.cliqueId: 70000 is out of range (0 to 32767)',
                      out)
        self.assertIn('bad.yaml:9:13: error: GPU 1 (NVIDIA A100-SXM4-40GB): fabric: given, but '
                      'only Hopper and newer GPUs report an NVLink fabric', out)

    def test_render_one_cluster_per_rack(self):
        tray = self.write('tray.yaml', TRAY)
        a = self.render(tray, 'gb200-r07-tray03')['devices']
        b = self.render(tray, 'gb200-r07-tray17')['devices']
        c = self.render(tray, 'gb200-r08-tray03')['devices']
        self.assertEqual(a[0]['fabric'], {'state': 'completed', 'status': 'success',
                                          'clusterUuid': a[0]['fabric']['clusterUuid'],
                                          'rack': 'gb200-r07', 'cliqueId': 32766, 'health': []})
        self.assertEqual({d['fabric']['clusterUuid'] for d in a + b}, {a[0]['fabric']['clusterUuid']})
        self.assertNotEqual(c[0]['fabric']['clusterUuid'], a[0]['fabric']['clusterUuid'])
        self.assertEqual(a[3]['fabric']['state'], 'inProgress')
        self.assertEqual(a[3]['fabric']['status'], 'notReady')
        self.assertEqual(self.render_default_fabric(), {'state': 'notSupported'})

    def render_default_fabric(self):
        p = self.mokka('render', '--format', 'json')
        self.assertEqual(p.returncode, 0, p.stderr)
        return json.loads(p.stdout)['devices'][0]['fabric']

    # --- NVIDIA's nvidia-smi -------------------------------------------------------------

    def smi(self, smi, args, config, state):
        p = subprocess.run([smi] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, env=self.mock_env(config, state), timeout=120)
        self.assertEqual(p.returncode, 0, p.stdout[-2000:] + p.stderr[-2000:])
        return p.stdout

    def smis(self):
        builds = sorted(os.path.join(SMI_BUILDS, d, 'nvidia-smi') for d in
                        (os.listdir(SMI_BUILDS) if os.path.isdir(SMI_BUILDS) else []))
        return [s for s in [SMI] + builds if os.access(s, os.X_OK)]

    def fabric_of_q(self, text):
        """The Fabric sections of nvidia-smi -q, in GPU order."""
        out, lines = [], text.splitlines()
        for i, line in enumerate(lines):
            if line.strip() == 'Fabric':
                out.append({l.split(':')[0].strip(): l.split(':', 1)[1].strip()
                            for l in lines[i + 1:i + 3]})
        return out

    def test_nvidia_smi_shows_the_universe(self):
        self.need_unsanitized_peers()
        smis = self.smis()
        if not smis:
            self.skipTest('no nvidia-smi at %s (sh ci/deps.sh installs Debian\'s)' % SMI)
        tray = self.write('tray.yaml', TRAY)
        devs = self.render(tray)['devices']
        # The status is nvmlErrorString's, printed only once registration completed.
        want = [{'State': STATE_TEXT[d['fabric']['state']],
                 'Status': STATUS_TEXT[d['fabric']['status']]
                 if d['fabric']['state'] == 'completed' else 'N/A'} for d in devs]
        printed = 0
        for smi in smis:
            with self.subTest(smi=smi):
                got = self.fabric_of_q(self.smi(smi, ['-q'], tray, self.path('st')))
                if not got:
                    continue   # a driver line from before the fabric (470)
                printed += 1
                self.assertEqual(got, want)
                root = ET.fromstring(self.smi(smi, ['-q', '-x'], tray, self.path('st')))
                xml = [{'State': g.find('fabric/state').text, 'Status': g.find('fabric/status').text}
                       for g in root.findall('gpu')]
                self.assertEqual(xml, want)
        self.assertGreater(printed, 0, 'no nvidia-smi printed a Fabric section')
        csv = self.smi(SMI, ['--query-gpu=fabric.state,fabric.status', '--format=csv,noheader'],
                       tray, self.path('st')).splitlines()
        self.assertEqual(csv[0], 'state  Completed, status Success')   # 535's own words

    def test_inject_reaches_nvidia_smi_and_clears(self):
        self.need_unsanitized_peers()
        if not os.access(SMI, os.X_OK):
            self.skipTest('no nvidia-smi at %s' % SMI)
        tray = self.write('tray.yaml', TRAY)
        state = self.path('st')
        self.smi(SMI, ['-L'], tray, state)   # makes the live state
        p = self.mokka('inject', '--state-dir', state, '--gpu', '1', '--fabric-state',
                       'notStarted', '--fabric-health', 'degradedBandwidth,routeRecovery')
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn('fabric state notStarted, status success, health '
                      'degradedBandwidth,routeRecovery', p.stdout)
        got = self.fabric_of_q(self.smi(SMI, ['-q'], tray, state))
        self.assertEqual(got[1], {'State': 'Not Started', 'Status': 'N/A'})
        self.assertEqual(got[0]['State'], 'Completed')
        p = self.mokka('inject', '--state-dir', state, '--gpu', '1', '--fabric-clear')
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(self.fabric_of_q(self.smi(SMI, ['-q'], tray, state))[1],
                         {'State': 'Completed', 'Status': 'Success'})

    def test_inject_usage_errors(self):
        tray = self.write('tray.yaml', TRAY)
        state = self.path('st')
        subprocess.run(['true'], env=self.mock_env(tray, state))
        self.usage_error(self.mokka('inject', '--state-dir', state, '--gpu', '0',
                                    '--fabric-status', 'notRedy'),
                         "--fabric-status: unknown value 'notRedy'; did you mean 'notReady'?")
        self.usage_error(self.mokka('inject', '--state-dir', state, '--gpu', '0',
                                    '--fabric-state', 'notSupported'),
                         "--fabric-state: unknown value 'notSupported'")
        self.usage_error(self.mokka('inject', '--state-dir', state, '--gpu', '0',
                                    '--fabric-clear', '--fabric-health', 'none'),
                         '--fabric-clear goes alone')
        self.usage_error(self.mokka('inject', '--cluster', '--all-nodes', '--gpu', '0',
                                    '--fabric-clear'),
                         '--fabric-clear works on a local universe only; with --cluster, delete')

    def test_inject_refuses_a_gpu_without_fabric(self):
        self.need_unsanitized_peers()
        if not os.access(SMI, os.X_OK):
            self.skipTest('no nvidia-smi at %s' % SMI)
        a100 = self.write('a100.yaml', 'version: 1.0\nprofile: a100-sxm4-40gb\ncount: 1\n')
        state = self.path('st')
        self.smi(SMI, ['-L'], a100, state)
        self.usage_error(self.mokka('inject', '--state-dir', state, '--gpu', '0',
                                    '--fabric-state', 'inProgress'),
                         'GPU 0 (NVIDIA A100-SXM4-40GB) has no NVLink fabric')

    # --- mokka smi ------------------------------------------------------------------------

    def mokka_smi_fabric(self, config, state):
        env = dict(self.mock_env(config, state))
        del env['LD_PRELOAD']
        p = self.mokka('smi', '--mock', '-q', env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        return [{k.split('/', 1)[1]: v for (gpu, k), v in sorted(parse_q(p.stdout).items())
                 if k.startswith('Fabric/') and gpu == bus}
                for bus in sorted({gpu for gpu, _ in parse_q(p.stdout)})]

    def test_mokka_smi_shows_identity_and_health(self):
        tray = self.write('tray.yaml', TRAY)
        state = self.path('st')
        devs = self.render(tray)['devices']
        got = self.mokka_smi_fabric(tray, state)
        self.assertEqual(got[0], {'State': 'Completed', 'Status': 'Success', 'CliqueId': '32766',
                                  'ClusterUUID': devs[0]['fabric']['clusterUuid'],
                                  'Health/Bandwidth': 'Full',
                                  'Health/Route Recovery in progress': 'False',
                                  'Health/Route Unhealthy': 'False',
                                  'Health/Access Timeout Recovery': 'False'})
        self.assertEqual((got[3]['State'], got[3]['Status']), ('In Progress', 'N/A'))
        p = self.mokka('inject', '--state-dir', state, '--gpu', '0', '--fabric-health',
                       'degradedBandwidth,accessTimeoutRecovery')
        self.assertEqual(p.returncode, 0, p.stderr)
        got = self.mokka_smi_fabric(tray, state)
        self.assertEqual((got[0]['Health/Bandwidth'], got[0]['Health/Access Timeout Recovery'],
                          got[0]['Health/Route Unhealthy']), ('Degraded', 'True', 'False'))
        # A GPU without a fabric: what 535 prints.
        got = self.mokka_smi_fabric(self.write('a100.yaml', 'version: 1.0\ncount: 1\n'),
                                    self.path('st2'))
        self.assertEqual(got, [{'State': 'N/A', 'Status': 'N/A'}])

    # --- pynvml ----------------------------------------------------------------------------

    def test_pynvml_reads_the_same(self):
        py = self.need_pynvml()
        tray = self.write('tray.yaml', TRAY)
        devs = self.render(tray)['devices']
        p = subprocess.run([py, '-c', PYNVML_PROBE], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True,
                           env=self.mock_env(tray, self.path('st')), timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        got = json.loads(p.stdout)
        states = {'completed': 3, 'inProgress': 2}
        for d, g in zip(devs, got):
            f = d['fabric']
            self.assertEqual(g['uuid'], uuid_hex(f['clusterUuid']))
            self.assertEqual(g['clique'], f['cliqueId'])
            self.assertEqual(g['state'], states[f['state']])
            self.assertEqual(g['status'], {'success': 0, 'notReady': 27}[f['status']])
            self.assertEqual((g['rcV'], g['maskV'], g['summaryV']), (0, 0xAA, 1))

    # --- the fixture ----------------------------------------------------------------------

    def test_fixture_one_tray_of_a_rack(self):
        p = self.mokka('lint', NVL72)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        a = self.render(NVL72, 'gb200-nvl72-r01-tray01')['devices']
        b = self.render(NVL72, 'gb200-nvl72-r01-tray18')['devices']
        self.assertEqual(len(a), 4)
        self.assertEqual(len(self.render(NVL72, 'gb200-nvl72-r01-tray01')['topology']['nvswitches']),
                         18)
        self.assertEqual({(d['nvlink']['fabric'], len(d['nvlink']['switchLinks'])) for d in a},
                         {('nvswitch', 18)})
        self.assertEqual({d['fabric']['clusterUuid'] for d in a + b},
                         {a[0]['fabric']['clusterUuid']})
        self.assertEqual({d['fabric']['state'] for d in a}, {'completed'})
