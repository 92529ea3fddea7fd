"""test_cli_smi.py - `mokka smi`: the table, -L, -q and --json views on the
default universe, the MIG layout of fixtures/configs/mig-mixed.yaml and the
seed config; -i selection; the real driver library on a machine without a
GPU (exit 3 with NVML's own message); and the readings checked against
pynvml on the same mock: where pynvml gets a value smi shows one, where it
gets NOT_SUPPORTED smi shows N/A.

Env: see cli_support.py."""
import json
import os
import re
import unittest

from cli_support import CliTest, MIG_MIXED, MOKKA, REAL_NVML, SEED

LIST_GPU = re.compile(r'^GPU (\d+): (.+) \(UUID: (GPU-[0-9A-Za-z-]+)\)$')
LIST_MIG = re.compile(r'^  MIG (\S+) +Device +(\d+): \(UUID: (MIG-[0-9a-f-]+)\)$')

# pynvml's view of GPU i on the mock, as JSON (None for NOT_SUPPORTED).
PYNVML_READ = r'''
import json, sys, pynvml as n
n.nvmlInit()
def get(f, *a):
    try:
        return f(*a)
    except n.NVMLError_NotSupported:
        return None
def s(x):
    return x.decode() if isinstance(x, bytes) else x
def migs(h):
    out = []
    if not (get(n.nvmlDeviceGetMigMode, h) or [0])[0]:
        return out
    for j in range(n.nvmlDeviceGetMaxMigDeviceCount(h)):
        try:
            out.append(s(n.nvmlDeviceGetUUID(n.nvmlDeviceGetMigDeviceHandleByIndex(h, j))))
        except n.NVMLError_NotFound:
            pass
    return out
out = []
for i in range(n.nvmlDeviceGetCount()):
    h = n.nvmlDeviceGetHandleByIndex(i)
    out.append({
        "name": s(n.nvmlDeviceGetName(h)), "uuid": s(n.nvmlDeviceGetUUID(h)),
        "bus_id": s(n.nvmlDeviceGetPciInfo(h).busId),
        "fb_total": n.nvmlDeviceGetMemoryInfo(h).total >> 20,
        "minor": n.nvmlDeviceGetMinorNumber(h),
        "serial": s(get(n.nvmlDeviceGetSerial, h)),
        "temperature": get(n.nvmlDeviceGetTemperature, h, n.NVML_TEMPERATURE_GPU),
        "power": get(n.nvmlDeviceGetPowerUsage, h),
        "power_limit": get(n.nvmlDeviceGetPowerManagementLimit, h),
        "fan": get(n.nvmlDeviceGetFanSpeed, h),
        "utilization": get(lambda: n.nvmlDeviceGetUtilizationRates(h).gpu),
        "pstate": get(n.nvmlDeviceGetPerformanceState, h),
        "max_sm_clock": get(n.nvmlDeviceGetMaxClockInfo, h, n.NVML_CLOCK_SM),
        "mig": migs(h),
    })
print(json.dumps({"driver": s(n.nvmlSystemGetDriverVersion()), "gpus": out}))
'''


class SmiTest(CliTest):

    def smi(self, *args, config=None):
        extra = ['--config', config] if config else []
        p = self.mokka('smi', '--mock', *(extra + list(args)))
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout

    def smi_json(self, *args, config=None):
        return json.loads(self.smi('--json', *args, config=config))

    def parse_list(self, out):
        gpus = []
        for line in out.splitlines():
            m = LIST_GPU.match(line)
            if m:
                gpus.append({'index': int(m.group(1)), 'name': m.group(2), 'uuid': m.group(3),
                             'mig': []})
                continue
            m = LIST_MIG.match(line)
            self.assertTrue(m and gpus, 'unexpected -L line %r' % line)
            gpus[-1]['mig'].append((m.group(1), int(m.group(2)), m.group(3)))
        return gpus


class SmiUsageTest(SmiTest):

    def test_help_is_what_help_smi_prints(self):
        a, b = self.mokka('smi', '--help'), self.mokka('help', 'smi')
        self.assertEqual(a.stdout, b.stdout)
        self.assertEqual((a.returncode, b.returncode), (0, 0))

    def test_one_view_at_a_time(self):
        self.usage_error(self.mokka('smi', '--mock', '-L', '-q'), 'choose one')
        self.usage_error(self.mokka('smi', '--mock', '-q', '--json'), 'choose one')

    def test_config_needs_mock(self):
        self.usage_error(self.mokka('smi', '--config', SEED), '--mock')

    def test_unknown_option_and_stray_argument(self):
        self.usage_error(self.mokka('smi', '--mock', '--frobnicate'), 'frobnicate')
        self.usage_error(self.mokka('smi', '--mock', 'extra'), "unexpected argument 'extra'")

    def test_invalid_config(self):
        bad = self.path('bad.yaml')
        with open(bad, 'w') as f:
            f.write('version: 1.0\ncount: x\n')
        p = self.mokka('smi', '--mock', '--config', bad)
        self.assertEqual(p.returncode, 2)
        self.assertIn(bad + ':2:8: error:', p.stderr)
        self.assertEqual(p.stdout, '')

    def test_invalid_config_from_the_environment(self):
        bad = self.path('bad.yaml')
        with open(bad, 'w') as f:
            f.write('version: 1.0\ncount: x\n')
        p = self.mokka('smi', '--mock', env=dict(self.env, MOCK_CONFIG_PATH=bad))
        self.assertEqual(p.returncode, 2)
        self.assertIn(bad + ':2:8: error:', p.stderr)

    def test_unknown_gpu(self):
        for ident in ('8', 'GPU-00000000-0000-0000-0000-000000000000', '00000000:01:00.0', 'x'):
            p = self.mokka('smi', '--mock', '-i', ident)
            self.assertEqual(p.returncode, 2, ident)
            self.assertIn("no GPU '%s'" % ident, p.stderr)
            self.assertEqual(p.stdout, '')


class SmiRealDriverTest(SmiTest):

    def test_real_library_without_a_gpu_exits_3_with_nvml_words(self):
        p = self.mokka('smi')
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertEqual(p.stdout, '')
        if os.path.exists(REAL_NVML):
            self.assertIn('nvmlInit_v2 failed', p.stderr)
            self.assertIn('Driver Not Loaded', p.stderr)
        else:
            self.assertIn('cannot load libnvidia-ml.so.1', p.stderr)
        self.assertIn('--mock', p.stderr)


class SmiListTest(SmiTest):

    def test_default_universe(self):
        gpus = self.parse_list(self.smi('-L'))
        self.assertEqual([g['index'] for g in gpus], list(range(8)))
        self.assertEqual({g['name'] for g in gpus}, {'NVIDIA A100-SXM4-40GB'})
        self.assertEqual(len({g['uuid'] for g in gpus}), 8)
        self.assertTrue(all(not g['mig'] for g in gpus))

    def test_mig_mixed_lists_mig_devices(self):
        gpus = self.parse_list(self.smi('-L', config=MIG_MIXED))
        self.assertEqual(len(gpus), 2)
        self.assertEqual([(p, i) for p, i, _ in gpus[0]['mig']],
                         [('1g.5gb', 0), ('1g.5gb', 1), ('2g.10gb', 2), ('3g.20gb', 3)])
        self.assertEqual(gpus[1]['mig'], [])

    def test_mig_line_layout(self):
        line = self.smi('-L', config=MIG_MIXED).splitlines()[1]
        self.assertRegex(line, r'^  MIG 1g\.5gb      Device  0: \(UUID: MIG-')

    def test_seed_config(self):
        gpus = self.parse_list(self.smi('-L', config=SEED))
        self.assertEqual([(g['name'], g['uuid']) for g in gpus], [
            ('NVIDIA A100-SXM4-40GB', 'GPU-1a2b3c4d-5e6f-7g8h-9i0j-1k2l3m4n5o6p'),
            ('NVIDIA RTX 6000 Ada Generation', 'GPU-7p6o5n4m-3l2k-1j0i-9h8g-7f6e5d4c3b2a')])

    def test_select_by_index_uuid_and_bus_id(self):
        doc = self.smi_json(config=MIG_MIXED)
        second = doc['gpus'][1]
        for ident in ('1', second['uuid'], second['pci']['bus_id']):
            gpus = self.parse_list(self.smi('-L', '-i', ident, config=MIG_MIXED))
            self.assertEqual([g['index'] for g in gpus], [1], ident)
        gpus = self.parse_list(self.smi('-L', '-i', '1,0', config=MIG_MIXED))
        self.assertEqual([g['index'] for g in gpus], [1, 0])


class SmiTableTest(SmiTest):

    def test_default_universe_table(self):
        out = self.smi()
        lines = out.splitlines()
        self.assertIn('Driver Version: 535.261.03', out)
        self.assertIn('CUDA Version: 12.2', out)
        self.assertIn('| GPU  Name                 Persistence-M | Bus-Id        Disp.A |', out)
        rows = [l for l in lines if re.match(r'^\|\s+\d+  NVIDIA A100-SXM4-40GB', l)]
        self.assertEqual(len(rows), 8)
        # Every table line is 89 columns wide, as nvidia-smi's.
        for l in lines:
            if l.startswith(('|', '+')):
                self.assertEqual(len(l), 89, l)
        self.assertIn('| Processes:', out)
        self.assertNotIn('MIG devices:', out)

    def test_mig_table(self):
        out = self.smi(config=MIG_MIXED)
        self.assertIn('| MIG devices:', out)
        mig_rows = re.findall(r'^\|\s+0\s+\d+\s+0\s+(\d)\s+\|\s+\d+MiB /\s+(\d+)MiB', out, re.M)
        self.assertEqual([int(i) for i, _ in mig_rows], [0, 1, 2, 3])
        doc = self.smi_json(config=MIG_MIXED)
        self.assertEqual([int(t) for _, t in mig_rows],
                         [m['fb_memory_usage']['total_mib'] for m in doc['gpus'][0]['mig_devices']])

    def test_processes(self):
        cfg = self.path('procs.yaml')
        with open(cfg, 'w') as f:
            f.write('version: 1.0\nprofile: a100-sxm4-40gb\ncount: 2\ndevices:\n'
                    '  - index: 1\n    processes:\n'
                    '      - {pid: 4242, name: python3 train.py, usedMemory: 10GiB}\n'
                    '      - {pid: 4343, name: Xorg, usedMemory: 512MiB, type: both}\n')
        doc = self.smi_json(config=cfg)
        procs = doc['gpus'][1]['processes']
        if procs is None:
            self.skipTest('this library does not report running processes yet')
        self.assertEqual([(p['pid'], p['type'], p['used_memory_mib']) for p in procs],
                         [(4242, 'C', 10240), (4343, 'C+G', 512)])
        self.assertEqual(doc['gpus'][0]['processes'], [])
        out = self.smi(config=cfg)
        self.assertRegex(out, r'\|    1   N/A  N/A      4242      C   python3 train\.py +10240MiB \|')
        self.assertRegex(out, r'\|    1   N/A  N/A      4343    C\+G   Xorg +512MiB \|')
        self.assertNotIn('No running processes found', out)

    def test_memory_column_matches_json(self):
        out = self.smi('-i', '0')
        doc = self.smi_json('-i', '0')
        fb = doc['gpus'][0]['fb_memory_usage']
        self.assertIn('%5dMiB / %5dMiB' % (fb['used_mib'], fb['total_mib']), out)


class SmiQueryTest(SmiTest):

    def test_layout(self):
        out = self.smi('-q', '-i', '0')
        self.assertIn('==============NVSMI LOG==============', out)
        self.assertRegex(out, r'\nAttached GPUs {29}: 8\n')
        self.assertRegex(out, r'\nGPU 00000000:[0-9A-F]{2}:00\.0\n    Product Name {26}: '
                              r'NVIDIA A100-SXM4-40GB\n')
        for line in out.splitlines():
            if ' : ' in line and not line.startswith('='):
                self.assertEqual(line.index(' : '), 41, line)

    def test_na_where_json_has_null(self):
        doc = self.smi_json('-i', '0', config=MIG_MIXED)
        out = self.smi('-q', '-i', '0', config=MIG_MIXED)
        na = sum(1 for l in out.splitlines() if l.endswith(': N/A'))
        self.assertEqual(na, count_nulls(doc['gpus'][0]))

    def test_query_shows_every_json_value(self):
        doc = self.smi_json(config=MIG_MIXED)
        out = self.smi('-q', config=MIG_MIXED)
        for g in doc['gpus']:
            for v in leaves(g):
                if isinstance(v, str):
                    self.assertIn(': ' + v, out)

    def test_mig_devices_in_query(self):
        out = self.smi('-q', '-i', '0', config=MIG_MIXED)
        self.assertEqual(out.count('        MIG Device\n'), 4)
        self.assertIn('Multiprocessor count', out)
        out = self.smi('-q', '-i', '1', config=MIG_MIXED)
        self.assertRegex(out, r'MIG Devices +: None')


class SmiJsonTest(SmiTest):

    def test_document(self):
        doc = self.smi_json()
        self.assertEqual(doc['driver_version'], '535.261.03')
        self.assertEqual(doc['cuda_version'], '12.2')
        self.assertEqual(doc['nvml_version'], '12.535.261.03')
        self.assertEqual(doc['attached_gpus'], 8)
        self.assertEqual([g['index'] for g in doc['gpus']], list(range(8)))
        g = doc['gpus'][0]
        self.assertEqual(g['product_architecture'], 'Ampere')
        self.assertEqual(g['fb_memory_usage']['total_mib'], 40960)
        self.assertEqual(g['pci']['device_id'], '0x20B010DE')
        self.assertEqual(g['mig_devices'], [])
        for key in ('temperature', 'gpu_power_readings', 'clocks', 'max_clocks', 'utilization',
                    'ecc_mode', 'ecc_errors', 'processes', 'bar1_memory_usage'):
            self.assertIn(key, g)

    def test_selection_keeps_the_attached_count(self):
        doc = self.smi_json('-i', '3')
        self.assertEqual(doc['attached_gpus'], 8)
        self.assertEqual([g['index'] for g in doc['gpus']], [3])

    def test_mig_devices(self):
        migs = self.smi_json(config=MIG_MIXED)['gpus'][0]['mig_devices']
        self.assertEqual([m['profile'] for m in migs], ['1g.5gb', '1g.5gb', '2g.10gb', '3g.20gb'])
        self.assertEqual([m['device_attributes']['shared']['multiprocessor_count'] for m in migs],
                         [14, 14, 28, 42])


class SmiAgainstPynvmlTest(SmiTest):
    """The same mock read two ways: pynvml under `mokka exec`, and smi."""

    def setUp(self):
        super().setUp()
        self.py = self.need_pynvml()

    def pynvml(self, config):
        p = self.mokka('exec', '--config', config, '--', self.py, '-c', PYNVML_READ)
        self.assertEqual(p.returncode, 0, p.stderr)
        return json.loads(p.stdout)

    def check(self, config):
        want = self.pynvml(config)
        doc = self.smi_json(config=config)
        self.assertEqual(doc['driver_version'], want['driver'])
        self.assertEqual(len(doc['gpus']), len(want['gpus']))
        for g, w in zip(doc['gpus'], want['gpus']):
            self.assertEqual(g['product_name'], w['name'])
            self.assertEqual(g['uuid'], w['uuid'])
            self.assertEqual(g['pci']['bus_id'], w['bus_id'])
            self.assertEqual(g['fb_memory_usage']['total_mib'], w['fb_total'])
            self.assertEqual(g['minor_number'], w['minor'])
            self.assertEqual(g['serial_number'], w['serial'])
            self.assertEqual([m['uuid'] for m in g['mig_devices'] or []], w['mig'])
            # Live values change between reads: compare what is there, not the value.
            for ours, theirs in ((g['temperature']['gpu_current_temp_c'], w['temperature']),
                                 (g['gpu_power_readings']['power_draw_w'], w['power']),
                                 (g['fan_speed_pct'], w['fan']),
                                 (g['utilization']['gpu_pct'], w['utilization']),
                                 (g['performance_state'], w['pstate']),
                                 (g['max_clocks']['sm_mhz'], w['max_sm_clock'])):
                self.assertEqual(ours is None, theirs is None, (ours, theirs))
            limit = g['gpu_power_readings']['requested_power_limit_w']
            self.assertEqual(limit, None if w['power_limit'] is None else w['power_limit'] / 1000)

    def test_default_universe(self):
        p = self.mokka('exec', '--', self.py, '-c', PYNVML_READ)
        self.assertEqual(p.returncode, 0, p.stderr)
        want = json.loads(p.stdout)
        got = self.smi_json()
        self.assertEqual([g['uuid'] for g in got['gpus']], [g['uuid'] for g in want['gpus']])

    def test_mig_mixed(self):
        self.check(MIG_MIXED)

    def test_seed(self):
        self.check(SEED)

    def test_smi_under_exec_reads_the_mock(self):
        p = self.mokka('exec', '--config', MIG_MIXED, '--', MOKKA, 'smi', '-L')
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, self.smi('-L', config=MIG_MIXED))


def leaves(o):
    if isinstance(o, dict):
        if set(o) == {'error'}:
            yield o['error']
            return
        for v in o.values():
            yield from leaves(v)
    elif isinstance(o, list):
        for v in o:
            yield from leaves(v)
    else:
        yield o


def count_nulls(o):
    return sum(1 for v in leaves(o) if v is None)


if __name__ == '__main__':
    unittest.main()
