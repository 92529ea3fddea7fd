"""test_pynvml.py - the built libnvidia-ml.so.1 as pynvml sees it.

pynvml runs in a child process (pynvml_probe.py) under a Python that can
import it (/usr/bin/python3 here; MOKKA_PYNVML_PYTHON to choose), with the
library preloaded, or found through LD_LIBRARY_PATH, and the config in
MOCK_CONFIG_PATH. Covered: the seed config loads as written, the default
universe, live values (ranges, drift, follow, seeds, energy), every getter
of the telemetry chapters on several boards and on MIG devices, a lost GPU,
and nvmlErrorString against the real NVML library when it is installed.

Env: MOKKA_BUILD (directory holding lib/libnvidia-ml.so.1), MOKKA_SRC (the
source tree), MOKKA_SAN=asan (the library was built with ASan: libasan is
preloaded before it), MOKKA_REAL_NVML (the real library; default
/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get('MOKKA_SRC') or os.path.dirname(os.path.dirname(HERE))
BUILD = os.environ.get('MOKKA_BUILD') or SRC
LIB = os.path.join(BUILD, 'lib', 'libnvidia-ml.so.1')
REAL = os.environ.get('MOKKA_REAL_NVML', '/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1')
PROBE = os.path.join(HERE, 'pynvml_probe.py')
NOT_SUPPORTED, NO_PERMISSION, NOT_FOUND, GPU_IS_LOST = 3, 4, 6, 15
P2P_NOT_SUPPORTED = 5   # NVML_P2P_STATUS_NOT_SUPPORTED
NO_INSTANCE = 0xFFFFFFFF


def find_python():
    """The first Python that can import pynvml, or None."""
    for py in (os.environ.get('MOKKA_PYNVML_PYTHON'), '/usr/bin/python3', sys.executable,
               shutil.which('python3')):
        if py and os.access(py, os.X_OK):
            p = subprocess.run([py, '-c', 'import pynvml'], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
            if p.returncode == 0:
                return py
    return None


def sanitizer_preload():
    """An ASan-built library must be loaded after libasan."""
    if os.environ.get('MOKKA_SAN') != 'asan':
        return []
    cc = os.environ.get('CC') or 'cc'
    p = subprocess.run([cc, '-print-file-name=libasan.so'], stdout=subprocess.PIPE,
                       universal_newlines=True)
    return [p.stdout.strip()]


PYTHON = find_python()

SEED_EXPECTED = [
    {'name': 'NVIDIA A100-SXM4-40GB', 'uuid': 'GPU-1a2b3c4d-5e6f-7g8h-9i0j-1k2l3m4n5o6p',
     'memory_mib': 40960, 'temperature': 42, 'power_mw': 210000, 'utilization': [15, 32]},
    {'name': 'NVIDIA RTX 6000 Ada Generation', 'uuid': 'GPU-7p6o5n4m-3l2k-1j0i-9h8g-7f6e5d4c3b2a',
     'memory_mib': 49152, 'temperature': 38, 'power_mw': 260000, 'utilization': [0, 0]},
]

# Live values: 0 a range, 1 drift, 2 fixed utilisation with power following
# it, 3 drift with a narrow band and power following it, 4 idle with power
# following it.
LIVE_CONFIG = """\
version: 1.0
seed: {seed}
profile: a100-sxm4-40gb
count: 5
devices:
  - index: 0
    temperature: 35-45
  - index: 1
    utilization: {{gpu: -1}}
  - index: 2
    utilization: {{gpu: 80, memory: 40}}
    power: follow
  - index: 3
    utilization: {{gpu: {{min: 20, max: 60, step: 3}}}}
    power: follow
  - index: 4
    power: follow
"""
A100_IDLE_MW, A100_LIMIT_MW = 53000, 400000

# Boards for the every-getter test; what each should answer.
BOARDS_CONFIG = """\
version: 1.0
profile: a100-sxm4-40gb
count: 6
devices:
  - index: 0
    processes:
      - {pid: 4242, name: train, usedMemory: 2GiB}
      - {pid: 4343, name: viz, usedMemory: 512MiB, type: both}
  - index: 1
    profile: t4
    fans: 1
    fanSpeed: 30-60
  - index: 2
    profile: rtx-6000-ada
  - index: 3
    profile: h100-sxm5-80gb
  - index: 4
    profile: l4
  - index: 5
    mig: {instances: [1g.5gb, 2g.10gb]}
    processes:
      - {pid: 5151, name: infer, usedMemory: 1GiB}
"""
A100 = {'fans': False, 'procs': [], 'gsp': False}
BOARDS = [
    dict(A100, procs=[(4242, 2 << 30, False), (4343, 512 << 20, True)]),
    {'fans': True, 'procs': [], 'gsp': False},
    {'fans': True, 'procs': [], 'gsp': False},      # rtx-6000-ada: one fan at 30 %
    {'fans': False, 'procs': [], 'gsp': True},
    {'fans': False, 'procs': [], 'gsp': False},
    dict(A100, procs=[(5151, 1 << 30, False)], mig=True),
]

LOST_CONFIG = """\
version: 1.0
profile: a100-sxm4-40gb
count: 2
devices:
  - index: 1
    unhealthy_after_seconds: 0
    mode: lost
"""


class PynvmlTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        if not PYTHON:
            raise unittest.SkipTest('no python3 here can import pynvml (Debian: apt install python3-pynvml)')
        if not os.path.isfile(LIB):
            raise unittest.SkipTest('%s not built' % LIB)
        cls.tmp = tempfile.mkdtemp(prefix='mokka-pynvml-')

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    # --- running the probe ---------------------------------------------------------------

    def env(self, config=None, via='preload'):
        env = {k: v for k, v in os.environ.items()
               if k not in ('MOCK_CONFIG_PATH', 'MOKKA_CONFIG', 'MOKKA_STATE_DIR', 'LD_PRELOAD',
                            'LD_LIBRARY_PATH')}
        preload = sanitizer_preload()
        if preload:
            env['ASAN_OPTIONS'] = 'detect_leaks=0'
        if via == 'preload':
            preload.append(LIB)
        elif via == 'path':
            env['LD_LIBRARY_PATH'] = os.path.dirname(LIB)
        if preload:
            env['LD_PRELOAD'] = ' '.join(preload)
        if config is not None:
            fd, path = tempfile.mkstemp(suffix='.yaml', dir=self.tmp)
            with os.fdopen(fd, 'w') as f:
                f.write(config)
            env['MOCK_CONFIG_PATH'] = path
        return env

    def probe(self, *args, config=None, via='preload', config_file=None):
        env = self.env(config, via)
        if config_file:
            env['MOCK_CONFIG_PATH'] = config_file
        p = subprocess.run([PYTHON, PROBE] + [str(a) for a in args], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True, timeout=300)
        self.assertEqual(p.returncode, 0, 'probe %s failed:\n%s' % (' '.join(map(str, args)), p.stderr))
        return json.loads(p.stdout)

    # --- configs ----------------------------------------------------------------------------

    def test_seed_config_loads_as_written(self):
        got = self.probe('identity', config_file=os.path.join(SRC, 'fixtures', 'configs', 'seed.yaml'))
        self.assertEqual(got, SEED_EXPECTED)

    def test_default_universe(self):
        got = self.probe('identity')
        self.assertEqual(len(got), 8)
        self.assertEqual({d['name'] for d in got}, {'NVIDIA A100-SXM4-40GB'})
        self.assertEqual({d['memory_mib'] for d in got}, {40960})
        self.assertEqual(len({d['uuid'] for d in got}), 8)

    # --- live values -------------------------------------------------------------------------

    def test_range_is_respected_and_varies(self):
        temps = self.probe('sequence', 200, config=LIVE_CONFIG.format(seed=7))[0]['temperature']
        self.assertTrue(all(35 <= t <= 45 for t in temps), temps)
        self.assertGreater(len(set(temps)), 3, temps)

    def test_drift_moves_in_small_steps_within_bounds(self):
        seq = self.probe('sequence', 300, config=LIVE_CONFIG.format(seed=7))
        util = seq[1]['utilization']
        self.assertTrue(all(0 <= u <= 100 for u in util), util)
        self.assertTrue(all(abs(a - b) <= 5 for a, b in zip(util, util[1:])), util)
        self.assertGreater(len(set(util)), 3, util)
        narrow = seq[3]['utilization']  # power: follow reads it too, so two steps per round
        self.assertTrue(all(20 <= u <= 60 for u in narrow), narrow)
        self.assertTrue(all(abs(a - b) <= 6 for a, b in zip(narrow, narrow[1:])), narrow)

    def test_seed_makes_sequences_reproducible(self):
        a = self.probe('sequence', 60, config=LIVE_CONFIG.format(seed=1234))
        b = self.probe('sequence', 60, config=LIVE_CONFIG.format(seed=1234))
        c = self.probe('sequence', 60, config=LIVE_CONFIG.format(seed=4321))
        self.assertEqual(a, b)
        self.assertNotEqual([d['temperature'] for d in a], [d['temperature'] for d in c])

    def test_power_follows_utilization(self):
        seq = self.probe('sequence', 50, config=LIVE_CONFIG.format(seed=7))
        span = A100_LIMIT_MW - A100_IDLE_MW
        self.assertEqual(set(seq[2]['power']), {A100_IDLE_MW + span * 80 // 100})
        self.assertEqual(set(seq[4]['power']), {A100_IDLE_MW})
        band = seq[3]['power']
        self.assertTrue(all(A100_IDLE_MW + span * 20 // 100 <= p <= A100_IDLE_MW + span * 60 // 100
                            for p in band), band)
        self.assertGreater(len(set(band)), 1, band)

    def test_energy_grows_with_the_draw(self):
        for d in self.probe('energy', config=LIVE_CONFIG.format(seed=7)):
            grown = d['e1'] - d['e0']
            self.assertGreater(grown, 0, d)
            # mW x s = mJ; the library's interval lies within the probe's
            self.assertLessEqual(grown, d['power_mw'] * d['seconds'] + 1, d)
            self.assertGreaterEqual(grown, d['power_mw'] * 0.3 - 1, d)

    def test_lost_gpu_answers_gpu_is_lost_but_keeps_its_identity_by_bus_id(self):
        ok, lost = self.probe('lost', config=LOST_CONFIG)
        self.assertIsInstance(ok['temperature'], int)
        self.assertEqual(ok['by_index'], 'ok')
        self.assertEqual(lost['by_index'], {'err': GPU_IS_LOST})
        for key in ('temperature', 'power', 'clocks', 'processes'):
            self.assertEqual(lost[key], {'err': GPU_IS_LOST}, key)
        self.assertTrue(lost['uuid'].startswith('GPU-'))
        self.assertEqual(len(lost['bus']), 16)

    # --- every getter ------------------------------------------------------------------------

    def test_every_getter_on_several_boards(self):
        results = self.probe('getters', config=BOARDS_CONFIG)
        gpus = [r for r in results if r['_kind'] == 'gpu']
        migs = [r for r in results if r['_kind'] == 'mig']
        self.assertEqual(len(gpus), len(BOARDS))
        self.assertEqual(len(migs), 2)
        for r, board in zip(gpus, BOARDS):
            with self.subTest(gpu=r['_name']):
                self.check_gpu(r, board)
        for i, r in enumerate(migs):
            with self.subTest(mig=r['_name']):
                self.check_mig(r, BOARDS[5]['procs'] if i == 0 else [])

    def test_every_getter_on_the_default_universe(self):
        results = self.probe('getters')
        self.assertEqual(len(results), 8)
        for r in results:
            with self.subTest(gpu=r['_name']):
                self.check_gpu(r, A100)
                self.assertEqual(r['FanSpeed'], {'err': NOT_SUPPORTED})  # SXM boards have no fan

    def ok(self, r, name):
        v = r[name]
        self.assertFalse(isinstance(v, dict) and 'err' in v, '%s: %s' % (name, v))
        return v

    def unsupported(self, r, *names):
        for name in names:
            self.assertEqual(r[name], {'err': NOT_SUPPORTED}, name)

    def check_gpu(self, r, board):
        ok = lambda name: self.ok(r, name)
        # thermal
        temp = ok('Temperature')
        self.assertTrue(10 <= temp <= 100)
        self.assertEqual(ok('TemperatureV'), temp)
        shutdown, slowdown, gpu_max = (ok('TemperatureThreshold.%d' % t) for t in (0, 1, 3))
        self.assertTrue(shutdown > slowdown >= gpu_max > temp, (shutdown, slowdown, gpu_max, temp))
        self.assertEqual(ok('MarginTemperature'), gpu_max - temp)
        self.assertGreaterEqual(ok('ThermalSettings')['count'], 1)
        self.assertEqual(ok('ThermalSettings')['current'][0], temp)
        self.unsupported(r, 'TemperatureThreshold.4', 'TemperatureThreshold.6', 'TemperatureThreshold.7')
        fans = ('FanSpeed', 'FanSpeed_v2', 'TargetFanSpeed', 'NumFans', 'MinMaxFanSpeed', 'FanControlPolicy_v2')
        if board['fans']:
            self.assertEqual(ok('NumFans'), 1)
            for name in ('FanSpeed', 'FanSpeed_v2', 'TargetFanSpeed'):
                self.assertTrue(30 <= ok(name) <= 60, name)
            self.assertEqual(ok('MinMaxFanSpeed'), [30, 100])
            self.assertEqual(ok('FanControlPolicy_v2'), [0])
        else:
            self.unsupported(r, *fans)
        # power
        power = ok('PowerUsage')
        lo, hi = ok('PowerManagementLimitConstraints')
        self.assertTrue(lo <= ok('PowerManagementDefaultLimit') <= hi)
        self.assertEqual(ok('PowerManagementLimit'), ok('EnforcedPowerLimit'))
        self.assertTrue(0 < power <= hi)
        self.assertGreaterEqual(ok('TotalEnergyConsumption'), 0)
        self.assertEqual(ok('PowerManagementMode'), 1)
        self.assertEqual(ok('PowerSource'), 0)
        pstate = ok('PerformanceState')
        self.assertEqual(ok('PowerState'), pstate)
        self.assertIn(pstate, ok('SupportedPerformanceStates'))
        self.assertIn(0, ok('SupportedPerformanceStates'))
        # clocks
        for kind in ('GRAPHICS', 'SM', 'MEM', 'VIDEO'):
            cur, top = ok('ClockInfo.' + kind), ok('MaxClockInfo.' + kind)
            self.assertTrue(0 < cur <= top, kind)
            self.assertEqual(r['Clock.%s.0' % kind], cur)
            self.assertEqual(r['Clock.%s.1' % kind], r['ApplicationsClock.' + kind])
            self.assertEqual(r['Clock.%s.2' % kind], r['DefaultApplicationsClock.' + kind])
            self.assertEqual(r['Clock.%s.3' % kind], r['MaxCustomerBoostClock.' + kind])
            if kind != 'VIDEO':
                self.assertTrue(0 < ok('ApplicationsClock.' + kind) <= top, kind)
        self.assertEqual(ok('MaxCustomerBoostClock.GRAPHICS'), ok('MaxClockInfo.GRAPHICS'))
        self.unsupported(r, 'ApplicationsClock.VIDEO', 'MaxCustomerBoostClock.MEM', 'AutoBoostedClocksEnabled')
        mem = ok('SupportedMemoryClocks')
        self.assertEqual(mem[0], ok('MaxClockInfo.MEM'))
        graphics = ok('SupportedGraphicsClocks')
        self.assertEqual(graphics[0], ok('MaxClockInfo.GRAPHICS'))
        self.assertEqual(graphics, sorted(set(graphics), reverse=True))
        reasons = ok('CurrentClocksEventReasons')
        self.assertEqual(ok('CurrentClocksThrottleReasons'), reasons)
        self.assertEqual(reasons & ~ok('SupportedClocksEventReasons'), 0)
        self.assertEqual(ok('SupportedClocksThrottleReasons'), ok('SupportedClocksEventReasons'))
        self.assertEqual(ok('ViolationStatus')['violationTime'], 0)
        # utilisation and engines
        util = ok('UtilizationRates')
        self.assertTrue(0 <= util['gpu'] <= 100 and 0 <= util['memory'] <= 100)
        self.assertEqual(reasons & 1, 1 if util['gpu'] == 0 else 0)
        for name in ('EncoderUtilization', 'DecoderUtilization'):
            u, period = ok(name)
            self.assertTrue(0 <= u <= 100 and period == 167000, name)
        for name in ('JpgUtilization', 'OfaUtilization'):
            self.assertIn(r[name], ([0, 167000], {'err': NOT_SUPPORTED}), name)
        self.assertTrue(r['EncoderCapacity'] == {'err': NOT_SUPPORTED} or 0 <= r['EncoderCapacity'] <= 100)
        self.assertEqual(ok('EncoderStats'), [0, 0, 0])
        self.assertEqual(ok('EncoderSessions'), [])
        self.assertEqual(ok('FBCStats'), {'sessionsCount': 0, 'averageFPS': 0, 'averageLatency': 0})
        self.assertEqual(ok('FBCSessions'), [])
        # ECC and memory health
        ecc = r['_ecc'] == [1, 1]
        ecc_getters = ('TotalEccErrors', 'DetailedEccErrors', 'MemoryErrorCounter')
        remap = ('RemappedRows', 'RemappedRows_v2', 'RowRemapperHistogram')
        retire = ('RetiredPages', 'RetiredPages_v2', 'RetiredPagesPendingStatus')
        if not ecc:
            self.unsupported(r, *ecc_getters + remap + retire)
        else:
            self.assertEqual(ok('TotalEccErrors'), [0, 0, 0, 0])
            self.assertEqual(ok('MemoryErrorCounter'), [0, 0, 0, 0, 0])
            self.assertEqual(ok('DetailedEccErrors')['deviceMemory'], 0)
            if r['_arch'] >= 7:   # Ampere and later remap rows
                self.assertEqual(ok('RemappedRows'), [0, 0, 0, 0])
                self.assertEqual(set(ok('RemappedRows_v2').values()), {0})
                self.assertGreater(ok('RowRemapperHistogram')['max'], 0)
                self.unsupported(r, *retire)
            else:
                self.assertEqual(ok('RetiredPages'), [[], []])
                self.assertEqual(ok('RetiredPages_v2'), [])
                self.assertEqual(ok('RetiredPagesPendingStatus'), 0)
                self.unsupported(r, *remap)
        # processes
        self.check_processes(r, board['procs'], board.get('mig', False))
        self.assertEqual(ok('AccountingMode'), 0)
        self.assertEqual(ok('AccountingBufferSize'), 4000)
        # field values
        fields = {(f['id'], f['scope']): f for f in ok('FieldValues')}
        for f in fields.values():
            self.assertIn(f['rc'], (0, NOT_SUPPORTED), f)
            self.assertEqual(f['latency'], 0, f)
            self.assertGreater(f['ts'], 0, f)
        self.assertEqual(fields[(9999, 0)]['rc'], NOT_SUPPORTED)
        self.assertEqual(fields[(1, 0)]['ui'], 1 if ecc else 0)
        self.assertEqual(fields[(3, 0)]['rc'], 0 if ecc else NOT_SUPPORTED)
        self.assertEqual(fields[(83, 0)]['rc'], 0)
        self.assertEqual(fields[(186, 0)]['rc'], 0)
        self.assertEqual(fields[(186, 1)]['rc'], NOT_SUPPORTED)
        self.assertEqual(fields[(190, 0)]['ui'], ok('EnforcedPowerLimit'))
        self.assertIn(r['ClearFieldValues'], ({'err': NOT_SUPPORTED}, {'err': NO_PERMISSION}))
        # the rest
        self.assertEqual(ok('GpuOperationMode'), [0, 0])
        self.unsupported(r, 'DriverModel', 'DriverModel_v2')
        self.assertGreater(ok('MemoryBusWidth'), 0)
        self.assertEqual(ok('PcieThroughput'), [0, 0])
        self.assertEqual(ok('PcieReplayCounter'), 0)
        self.assertGreater(ok('IrqNum'), 0)
        if board['gsp']:
            self.assertEqual(ok('GspFirmwareMode'), [1, 1])
            self.assertRegex(ok('GspFirmwareVersion'), r'^\d+\.\d+')
        else:
            self.assertEqual(ok('GspFirmwareMode'), [0, 0])
            self.unsupported(r, 'GspFirmwareVersion')

    def check_processes(self, r, procs, in_mig):
        compute = [(pid, mem) for pid, mem, _ in procs]
        graphics = [(pid, mem) for pid, mem, g in procs if g]
        for kind, want in (('Compute', compute), ('Graphics', graphics), ('MPSCompute', [])):
            for v in ('', '_v2', '_v3'):
                got = self.ok(r, '%sRunningProcesses%s' % (kind, v))
                self.assertEqual([(p['pid'], p['usedGpuMemory']) for p in got], want, kind + v)
                if v:
                    for p in got:
                        self.assertEqual(p['gpuInstanceId'] != NO_INSTANCE, in_mig, p)
                        self.assertEqual(p['computeInstanceId'] != NO_INSTANCE, in_mig, p)
        if r['_kind'] == 'mig':
            return
        if procs:
            self.assertEqual([s['pid'] for s in self.ok(r, 'ProcessUtilization')], [p[0] for p in procs])
        else:
            self.assertEqual(r['ProcessUtilization'], {'err': NOT_FOUND})

    def check_mig(self, r, procs):
        """A MIG device lists its processes; whole-GPU telemetry is not its."""
        self.check_processes(r, procs, True)
        for f in self.ok(r, 'FieldValues'):
            self.assertEqual(f['rc'], NOT_SUPPORTED, f)
        for name in ('Temperature', 'PowerUsage', 'ClockInfo.SM', 'UtilizationRates', 'TotalEccErrors',
                     'RemappedRows', 'ProcessUtilization', 'MemoryBusWidth', 'EncoderStats'):
            self.assertEqual(r[name], {'err': NOT_SUPPORTED}, name)

    # --- loading --------------------------------------------------------------------------------

    def test_nvswitch_fabric_as_render_has_it(self):
        """HGX H100: 18 links a GPU, every one active, NVLink 4, its far end a
        switch (type 2) with the bus id and device id render gives that
        switch; P2P over NVLink OK to every other GPU. With nvlink: all the
        far ends are GPUs and P2P is OK only where links run."""
        config = os.path.join(SRC, 'fixtures', 'configs', 'hgx-h100.yaml')
        u = json.loads(subprocess.run([os.path.join(BUILD, 'mokka'), 'render', '--format', 'json',
                                       '-c', config], stdout=subprocess.PIPE, check=True).stdout)
        sw = u['topology']['nvswitches']
        got = self.probe('nvlinks', config_file=config)
        for d, g in zip(u['devices'], got):
            for x in d['nvlink']['switchLinks']:
                self.assertEqual(g['links'][x['link']], {
                    'state': 1, 'version': 4, 'remoteType': 2,
                    'remoteBusId': '0000' + sw[x['switch']]['pciBusID'],
                    'remoteDeviceId': int(sw[x['switch']]['pciDeviceId'], 16)})
            self.assertEqual(len(d['nvlink']['switchLinks']), 18)
            self.assertEqual(g['links'][18:], [])
            self.assertEqual(g['p2p'], [P2P_NOT_SUPPORTED if i == d['index'] else 0
                                        for i in range(8)])
        got = self.probe('nvlinks', config='profile: h100-sxm5-80gb\ncount: 4\n'
                         'topology: {nvlink: [[0, 1, 2]]}\n')
        self.assertEqual(got[0]['links'][0]['remoteType'], 0)
        self.assertEqual(got[0]['links'][2]['state'], 0)
        self.assertEqual(got[0]['p2p'][1:], [0, P2P_NOT_SUPPORTED, P2P_NOT_SUPPORTED])

    def test_found_through_ld_library_path(self):
        got = self.probe('loaded', via='path')
        self.assertEqual(got['maps'], [os.path.realpath(LIB)])
        self.assertEqual(got['count'], 8)
        self.assertEqual(got['name'], 'NVIDIA A100-SXM4-40GB')

    def test_error_strings_match_the_real_library(self):
        if not os.path.isfile(REAL):
            self.skipTest('the real NVML library %s is not installed' % REAL)
        ours = self.probe('errstrings', LIB, via='none')
        env = self.env(via='none')
        env.pop('LD_PRELOAD', None)
        p = subprocess.run([PYTHON, PROBE, 'errstrings', REAL], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        real = json.loads(p.stdout)
        self.assertGreater(len(real), 150)
        self.assertEqual(ours, real)


if __name__ == '__main__':
    unittest.main()
