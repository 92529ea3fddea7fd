"""test_nvidia_smi.py - NVIDIA's own nvidia-smi on Mokka's library: every
layout exits 0 on six universes (the default DGX A100, 8 x H100 with
NVLink, MIG mixed, 2 x T4 with fans, 1 GPU, 64 GPUs), and what it prints is
the universe's, field by field against `mokka render`; `mokka smi --mock`
prints -L and the table line for line as nvidia-smi does, and the -q fields
both show with the same values; faults look as on a real GPU; the
NOT_SUPPORTED answers nvidia-smi -q gets on the default A100 are the ones a
real A100 gives.

The nvidia-smi is MOKKA_NVIDIA_SMI, else Debian's (package nvidia-smi,
/usr/lib/nvidia/current/nvidia-smi; sh ci/deps.sh installs it); without one
the module skips, saying so. The builds of other driver lines that
ci/smi-builds.sh unpacks (525 and 470 in Debian 12) run the main layouts too.

Env: MOKKA_BUILD, MOKKA_SRC, MOKKA_SAN (see cli_support.py)."""
import csv
import io
import json
import os
import re
import subprocess
import xml.etree.ElementTree as ET

from cli_support import CliTest, LIB, MIG_MIXED, SRC

SMI = os.environ.get('MOKKA_NVIDIA_SMI') or '/usr/lib/nvidia/current/nvidia-smi'
# nvidia-smi builds of other driver lines, unpacked by ci/smi-builds.sh.
SMI_BUILDS = os.environ.get('MOKKA_SMI_BUILDS') or '/var/cache/mokka/nvidia-smi'

H100 = """\
version: 1.0
profile: h100-sxm5-80gb
count: 8
defaults:
  temperature: 41
  power: 312W
  utilization: {gpu: 37, memory: 12}
topology:
  nvlink: all
"""
T4 = """\
version: 1.0
profile: t4
count: 2
defaults:
  temperature: 47
  power: 31W
"""
ONE = "version: 1.0\ncount: 1\n"
SIXTY_FOUR = "version: 1.0\nprofile: a100-sxm4-80gb\ncount: 64\n"
PROCESSES = """\
version: 1.0
count: 2
devices:
  - index: 0
    processes:
      - {pid: 4242, name: python3 train.py, usedMemory: 1234MiB}
      - {pid: 777, name: Xorg, usedMemory: 64MiB, type: graphics}
"""
FAULTS = """\
version: 1.0
count: 4
devices:
  - {index: 1, mode: lost, xid: 79, unhealthy_after_seconds: 0}
  - {index: 2, mode: ecc, xid: 48, unhealthy_after_seconds: 0}
  - {index: 3, mode: xid, xid: 48, unhealthy_after_seconds: 0}
"""

# The universes every layout runs on: name -> config text (None: the default).
UNIVERSES = {'dgx-a100': None, 'h100-nvlink': H100, 'mig-mixed': 'FILE', 't4': T4,
             'one': ONE, 'sixty-four': SIXTY_FOUR}
LAYOUTS = [['-L'], [], ['-i', '0'], ['-q'], ['-x', '-q'], ['topo', '-m'], ['nvlink', '-s'],
           ['dmon', '-c', '2'], ['pmon', '-c', '1']] + \
          [['-q', '-d', d] for d in ('MEMORY', 'UTILIZATION', 'ECC', 'TEMPERATURE', 'POWER', 'CLOCK',
                                     'COMPUTE', 'PIDS', 'PERFORMANCE', 'SUPPORTED_CLOCKS',
                                     'PAGE_RETIREMENT', 'ROW_REMAPPER', 'ACCOUNTING')]
MIG_LAYOUTS = [['mig', '-lgip'], ['mig', '-lgi'], ['mig', '-lci']]

# What nvidia-smi -q asks the default DGX A100 universe that answers
# NOT_SUPPORTED, each N/A on a real A100-SXM4 with the 535 driver too: no
# Windows driver model, no fans on SXM, no page retirement (row remapping
# instead), no bridge chip, no vGPU or grid licences on bare metal, no
# NVSwitch fabric (Hopper on), no confidential computing, no GSP firmware
# before the R555 drivers, no auto boost on data-centre boards, no inforom
# power object or BBX flush record, thresholds of other boards (acoustic,
# T.Limit), and the private table's slots for other hardware.
A100_NOT_SUPPORTED = {
    'nvmlDeviceGetAutoBoostedClocksEnabled', 'nvmlDeviceGetBridgeChipInfo',
    'nvmlDeviceGetConfComputeProtectedMemoryUsage', 'nvmlDeviceGetDriverModel',
    'nvmlDeviceGetFanSpeed', 'nvmlDeviceGetGpuFabricInfo', 'nvmlDeviceGetGridLicensableFeatures_v4',
    'nvmlDeviceGetGspFirmwareVersion', 'nvmlDeviceGetHostVgpuMode', 'nvmlDeviceGetInforomVersion',
    'nvmlDeviceGetLastBBXFlushTime', 'nvmlDeviceGetRetiredPages',
    'nvmlDeviceGetRetiredPagesPendingStatus', 'nvmlDeviceGetTemperatureThreshold',
    'nvmlInternalGetExportTable',
}


def parse_q(text):
    """nvidia-smi -q as {(gpu bus id, 'Section/Sub/Key'): value}."""
    out, gpu, stack = {}, None, []
    for line in text.splitlines():
        m = re.match(r'^GPU ([0-9A-Fa-f:.]+)$', line)
        if m:
            gpu, stack = m.group(1), []
            continue
        m = re.match(r'^( +)(\S.*?)\s*(?::\s(.*))?$', line)
        if not m or gpu is None:
            continue
        depth = len(m.group(1)) // 4 - 1
        stack = stack[:depth] + [m.group(2).rstrip(' :')]
        if m.group(3) is not None:
            out[(gpu, '/'.join(stack))] = m.group(3).strip()
    return out


def mib(quantity):
    """'40GiB' or '620MiB' (render's) in MiB."""
    m = re.match(r'^(\d+)(GiB|MiB)$', quantity)
    return int(m.group(1)) * (1024 if m.group(2) == 'GiB' else 1)


class NvidiaSmiTest(CliTest):

    def setUp(self):
        super().setUp()
        if not os.access(SMI, os.X_OK):
            self.skipTest('no nvidia-smi at %s (sh ci/deps.sh installs Debian\'s; '
                          'MOKKA_NVIDIA_SMI names another)' % SMI)
        self.need_unsanitized_peers()

    def config(self, name, text):
        if text == 'FILE':
            return MIG_MIXED
        if text is None:
            return None
        path = self.path(name + '.yaml')
        with open(path, 'w') as f:
            f.write(text)
        return path

    def smi(self, args, config=None, how='preload', extra_env=None):
        env = dict(self.env)
        env.update(extra_env or {})
        if config:
            env['MOCK_CONFIG_PATH'] = config
        cmd = [SMI] + list(args)
        if how == 'preload':
            env['LD_PRELOAD'] = LIB
        elif how == 'library-path':
            env['LD_LIBRARY_PATH'] = os.path.dirname(LIB)
        elif how == 'exec':
            cmd = [self.mokka_path(), 'exec', '--quiet', '--'] + cmd
        return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True, env=env, timeout=120)

    def mokka_path(self):
        from cli_support import MOKKA
        return MOKKA

    def render(self, config):
        args = ['render', '--format', 'json'] + (['--config', config] if config else [])
        p = self.mokka(*args)
        self.assertEqual(p.returncode, 0, p.stderr)
        return json.loads(p.stdout)

    def mock_smi(self, args, config):
        env = dict(self.env)
        if config:
            env['MOCK_CONFIG_PATH'] = config
        return self.mokka('smi', '--mock', *args, env=env)

    # --- every layout runs -----------------------------------------------------------

    def test_every_layout_exits_zero_on_every_universe(self):
        for name, text in UNIVERSES.items():
            config = self.config(name, text)
            layouts = LAYOUTS + (MIG_LAYOUTS if name == 'mig-mixed' else [])
            for args in layouts:
                with self.subTest(universe=name, args=' '.join(args)):
                    p = self.smi(args, config)
                    self.assertEqual(p.returncode, 0, p.stdout[-2000:] + p.stderr[-2000:])
                    self.assertNotIn('Mismatch in versions', p.stdout + p.stderr)
                    # nvlink -s prints nothing on GPUs without NVLink, as on real ones
                    if not args or args[0] != 'nvlink':
                        self.assertTrue(p.stdout.strip(), args)

    def test_other_driver_lines_run_too(self):
        builds = sorted(os.path.join(SMI_BUILDS, d, 'nvidia-smi') for d in
                        (os.listdir(SMI_BUILDS) if os.path.isdir(SMI_BUILDS) else []))
        if not builds:
            self.skipTest('no other nvidia-smi builds in %s (sh ci/smi-builds.sh fetches them)'
                          % SMI_BUILDS)
        u = self.render(None)
        for smi in builds:
            for args in (['-L'], [], ['-q'], ['-x', '-q'], ['topo', '-m'], ['nvlink', '-s'],
                         ['dmon', '-c', '1'], ['pmon', '-c', '1'],
                         ['--query-gpu=name,uuid,memory.total', '--format=csv,noheader']):
                with self.subTest(build=smi, args=' '.join(args)):
                    env = dict(self.env, LD_PRELOAD=LIB)
                    p = subprocess.run([smi] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       universal_newlines=True, env=env, timeout=120)
                    self.assertEqual(p.returncode, 0, p.stdout[-1000:] + p.stderr[-1000:])
                    if args == ['-L']:
                        self.assertEqual(p.stdout.splitlines()[0], 'GPU 0: %s (UUID: %s)' % (
                            u['devices'][0]['name'], u['devices'][0]['uuid']))

    def test_mig_layouts_without_mig_say_so(self):
        for args in MIG_LAYOUTS:
            p = self.smi(args)
            self.assertEqual(p.returncode, 6, p.stdout + p.stderr)
            self.assertIn('No MIG-enabled devices found', p.stdout)

    def test_every_way_of_loading_the_library(self):
        for how in ('preload', 'library-path', 'exec'):
            with self.subTest(how=how):
                p = self.smi(['-L'], how=how)
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertEqual(len(p.stdout.splitlines()), 8, p.stdout)

    # --- the universe's values -------------------------------------------------------

    def test_list_names_every_gpu_and_mig_device(self):
        for name, text in UNIVERSES.items():
            config = self.config(name, text)
            with self.subTest(universe=name):
                u = self.render(config)
                lines = self.smi(['-L'], config).stdout.splitlines()
                gpus = [ln for ln in lines if ln.startswith('GPU ')]
                self.assertEqual(len(gpus), u['count'])
                for d, ln in zip(u['devices'], gpus):
                    self.assertEqual(ln, 'GPU %d: %s (UUID: %s)' % (d['index'], d['name'], d['uuid']))
                migs = [ln.strip() for ln in lines if ln.startswith('  MIG ')]
                want = [i['uuid'] for d in u['devices'] for i in d.get('mig', {}).get('instances', [])]
                self.assertEqual([re.search(r'UUID: (MIG-[^)]+)', m).group(1) for m in migs], want)

    def test_query_gpu_every_field_in_every_csv_form(self):
        help_text = self.smi(['--help-query-gpu']).stdout
        fields = re.findall(r'^"([A-Za-z0-9_.]+)"', help_text, re.M)
        self.assertGreater(len(fields), 100)
        for name, text in UNIVERSES.items():
            config = self.config(name, text)
            u = self.render(config)
            for fmt in ('csv', 'csv,noheader', 'csv,nounits', 'csv,noheader,nounits'):
                with self.subTest(universe=name, format=fmt):
                    p = self.smi(['--query-gpu=' + ','.join(fields), '--format=' + fmt], config)
                    self.assertEqual(p.returncode, 0, p.stdout[-500:] + p.stderr[-500:])
                    rows = list(csv.reader(io.StringIO(p.stdout), skipinitialspace=True))
                    if 'noheader' not in fmt:
                        rows = rows[1:]
                    self.assertEqual(len(rows), u['count'])
                    for d, row in zip(u['devices'], rows):
                        self.assertEqual(len(row), len(fields))
                        v = dict(zip(fields, row))
                        unit = '' if 'nounits' in fmt else ' MiB'
                        self.assertEqual(v['name'], d['name'])
                        self.assertEqual(v['uuid'], d['uuid'])
                        self.assertEqual(v['serial'], d['serial'])
                        self.assertEqual(v['pci.bus_id'], d['pciBusID'])
                        self.assertEqual(v['vbios_version'], d['vbiosVersion'])
                        self.assertEqual(v['driver_version'], u['driverVersion'])
                        self.assertEqual(v['count'], str(u['count']))
                        self.assertEqual(v['index'], str(d['index']))
                        self.assertEqual(v['memory.total'], '%d%s' % (mib(d['memory']), unit))
                        watts = float(d['powerLimits']['enforced'].rstrip('W'))
                        self.assertEqual(float(v['enforced.power.limit'].split()[0]), watts)
                        if isinstance(d['temperature'], int):
                            self.assertEqual(v['temperature.gpu'], str(d['temperature']))
                        self.assertEqual(v['mig.mode.current'],
                                         {'enabled': 'Enabled', 'disabled': 'Disabled'}.get(
                                             d.get('mig', {}).get('mode'), '[N/A]'))

    def test_query_report_values(self):
        for name, text in UNIVERSES.items():
            config = self.config(name, text)
            with self.subTest(universe=name):
                u = self.render(config)
                q = parse_q(self.smi(['-q'], config).stdout)
                for d in u['devices']:
                    bus = d['pciBusID']
                    self.assertEqual(q[(bus, 'Product Name')], d['name'])
                    self.assertEqual(q[(bus, 'GPU UUID')], d['uuid'])
                    self.assertEqual(q[(bus, 'Serial Number')], d['serial'])
                    self.assertEqual(q[(bus, 'VBIOS Version')], d['vbiosVersion'])
                    self.assertEqual(q[(bus, 'Minor Number')], str(d['minorNumber']))
                    self.assertEqual(q[(bus, 'FB Memory Usage/Total')], '%d MiB' % mib(d['memory']))
                    self.assertEqual(q[(bus, 'FB Memory Usage/Reserved')],
                                     '%d MiB' % mib(d['memoryReserved']))
                    self.assertEqual(q[(bus, 'BAR1 Memory Usage/Total')],
                                     '%d MiB' % mib(d['bar1Memory']))
                    self.assertEqual(q[(bus, 'PCI/GPU Link Info/PCIe Generation/Host Max')],
                                     str(d['pcie']['maxGen']))
                    self.assertEqual(q[(bus, 'Temperature/GPU Shutdown Temp')],
                                     '%d C' % d['thresholds']['shutdown'])
                    self.assertEqual(q[(bus, 'GPU Power Readings/Max Power Limit')],
                                     '%.2f W' % float(d['powerLimits']['max'].rstrip('W')))
                    self.assertEqual(q[(bus, 'Max Clocks/Graphics')],
                                     '%d MHz' % d['maxClocks']['graphics'])
                    self.assertEqual(q[(bus, 'GPU Reset Status/Reset Required')], 'No')
                    if d['fans']:
                        self.assertRegex(q[(bus, 'Fan Speed')], r'^\d+ %$')
                    else:
                        self.assertEqual(q[(bus, 'Fan Speed')], 'N/A')

    def test_xml_report_is_well_formed_and_carries_the_values(self):
        p = self.smi(['-x', '-q'], self.config('mig-mixed', 'FILE'))
        self.assertIn('<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">', p.stdout)
        root = ET.fromstring(p.stdout)
        u = self.render(MIG_MIXED)
        gpus = root.findall('gpu')
        self.assertEqual(len(gpus), u['count'])
        for d, g in zip(u['devices'], gpus):
            self.assertEqual(g.get('id'), d['pciBusID'])
            self.assertEqual(g.findtext('product_name'), d['name'])
            self.assertEqual(g.findtext('uuid'), d['uuid'])
            self.assertEqual(len(g.findall('mig_devices/mig_device')), len(d['mig']['instances']))

    def check_matrix(self, out, u):
        """topo -m as the universe has it: NV<links> between GPUs wired to each
        other or both on the switch fabric (row GPU's links), else a PCIe level."""
        rows = {ln.split('\t')[0]: ln.split('\t') for ln in out.splitlines()
                if re.match(r'^GPU\d+\t', ln)}
        self.assertEqual(len(rows), u['count'], out)
        fabric = {d['index'] for d in u['devices'] if d['nvlink'].get('fabric') == 'nvswitch'}
        for d in u['devices']:
            row = rows['GPU%d' % d['index']]
            links = {}
            for peer in d['nvlink'].get('peers', []):
                links[peer['gpu']] = links.get(peer['gpu'], 0) + 1
            if d['index'] in fabric:
                links = {j: d['nvlink']['links'] for j in fabric}
            for j in range(u['count']):
                cell = row[1 + j].strip()
                if j == d['index']:
                    self.assertEqual(cell, 'X')
                elif j in links:
                    self.assertEqual(cell, 'NV%d' % links[j], (d['index'], j))
                else:
                    self.assertIn(cell, ('SYS', 'NODE', 'PHB', 'PXB', 'PIX'))
            self.assertEqual(row[u['count'] + 2].strip(), str(d['numaNode']))

    def test_topology_matrix_is_the_universes(self):
        for name in ('h100-nvlink', 'dgx-a100', 't4'):
            config = self.config(name, UNIVERSES[name])
            with self.subTest(universe=name):
                self.check_matrix(self.smi(['topo', '-m'], config).stdout, self.render(config))

    def test_nvlink_status_lists_the_links(self):
        config = self.config('h100', H100)
        u = self.render(config)
        out = self.smi(['nvlink', '-s'], config).stdout
        for d in u['devices']:
            self.assertIn('GPU %d: %s (UUID: %s)' % (d['index'], d['name'], d['uuid']), out)
        self.assertEqual(len(re.findall(r'Link \d+: [\d.]+ GB/s', out)),
                         sum(len(d['nvlink']['peers']) for d in u['devices']))

    def test_switch_fabrics_as_on_the_real_boards(self):
        """DGX A100, HGX H100, HGX B200: NV12 / NV18 between every pair in topo -m,
        every link active at the NVLink generation's speed in nvlink -s, each
        link's far end the NVSwitch port the universe names in nvlink -R, P2P
        over every link in nvlink -c; with 535 and the other lines (470 has no
        Hopper or Blackwell support, so only the A100 board there)."""
        builds = [SMI] + sorted(os.path.join(SMI_BUILDS, d, 'nvidia-smi') for d in
                                (os.listdir(SMI_BUILDS) if os.path.isdir(SMI_BUILDS) else []))
        boards = {'dgx-a100': ('25 GB/s', 12), 'hgx-h100': ('26.562 GB/s', 18),
                  'hgx-b200': ('53.125 GB/s', 18)}
        for smi in builds:
            for board, (speed, nlinks) in boards.items():
                if board != 'dgx-a100' and '-470-' in smi:
                    continue
                config = os.path.join(SRC, 'fixtures', 'configs', board + '.yaml')
                if board == 'hgx-b200':
                    config = self.config(board, 'version: 1.0\nprofile: b200\ncount: 8\n')
                u = self.render(config)
                sw = {k['index']: '0000' + k['pciBusID'] for k in u['topology']['nvswitches']}
                with self.subTest(build=smi, board=board):
                    run = lambda *a: self.smi_at(smi, list(a), config)
                    self.check_matrix(run('topo', '-m'), u)
                    self.assertIn('NV%d' % nlinks, run('topo', '-m'))
                    status, remote, caps = run('nvlink', '-s'), run('nvlink', '-R'), \
                        run('nvlink', '-c')
                    self.assertEqual(status.count(': %s' % speed), nlinks * u['count'], status)
                    self.assertNotIn('inactive', status)
                    for d in u['devices']:
                        block = remote.split('GPU %d: ' % d['index'])[1].split('\nGPU ')[0]
                        want = ['Link %d: Remote Device %s: Link %d' % (
                            x['link'], sw[x['switch']], x['port']) for x in d['nvlink']['switchLinks']]
                        self.assertEqual([ln.strip() for ln in block.splitlines()[1:]], want)
                    self.assertEqual(caps.count('P2P is supported: true'), nlinks * u['count'])

    def smi_at(self, smi, args, config):
        env = dict(self.env, LD_PRELOAD=LIB, MOCK_CONFIG_PATH=config)
        p = subprocess.run([smi] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, env=env, timeout=120)
        self.assertEqual(p.returncode, 0, p.stdout[-1000:] + p.stderr[-1000:])
        return p.stdout

    def test_dmon_samples_every_gpu(self):
        config = self.config('h100', H100)
        out = self.smi(['dmon', '-c', '2'], config).stdout
        rows = [ln.split() for ln in out.splitlines() if not ln.startswith('#')]
        self.assertEqual(len(rows), 16, out)
        for r in rows:
            self.assertEqual(r[1:3], ['312', '41'], r)   # pwr W, gtemp C

    def test_pmon_lists_the_processes_of_every_gpu(self):
        out = self.smi(['pmon', '-c', '1'], self.config('procs', PROCESSES)).stdout
        rows = [ln.split() for ln in out.splitlines() if not ln.startswith('#')]
        self.assertEqual(rows, [['0', '777', 'C+G', '-', '-', '-', '-', 'Xorg'],
                                ['0', '4242', 'C', '-', '-', '-', '-', 'python3', 'train.p'],
                                ['1', '-', '-', '-', '-', '-', '-', '-']])

    def test_processes_in_the_table_the_report_and_the_query(self):
        config = self.config('procs', PROCESSES)
        table = self.smi([], config).stdout
        self.assertRegex(table, r'\|\s+0\s+N/A\s+N/A\s+777\s+C\+G\s+Xorg\s+64MiB \|')
        self.assertRegex(table, r'\|\s+0\s+N/A\s+N/A\s+4242\s+C\s+python3 train.py\s+1234MiB \|')
        apps = self.smi(['--query-compute-apps=pid,process_name,used_memory',
                         '--format=csv,noheader'], config).stdout.splitlines()
        self.assertEqual(sorted(apps), ['4242, python3 train.py, 1234 MiB', '777, Xorg, 64 MiB'])
        report = self.smi(['-q', '-d', 'PIDS', '-i', '0'], config).stdout
        self.assertIn('Name                          : python3 train.py', report)

    # --- mokka smi is nvidia-smi's twin ------------------------------------------------

    def test_mokka_smi_prints_the_list_and_table_line_for_line(self):
        universes = dict(UNIVERSES, processes=PROCESSES, faults=FAULTS)
        for name, text in universes.items():
            config = self.config(name, text)
            for args in (['-L'], []):
                with self.subTest(universe=name, args=args):
                    real = self.smi(args, config).stdout.splitlines()
                    twin = self.mock_smi(args, config).stdout.splitlines()
                    if not args:  # the clock line
                        real, twin = real[1:], twin[1:]
                    if name == 'h100-nvlink' or text is None or name == 'sixty-four':
                        # live values move between the two runs; the frame may not
                        real = [re.sub(r'\d+W / ', 'W / ', ln) for ln in real]
                        twin = [re.sub(r'\d+W / ', 'W / ', ln) for ln in twin]
                    self.assertEqual(twin, real)

    def test_mokka_smi_query_agrees_where_both_show_a_field(self):
        for name in ('dgx-a100', 't4', 'mig-mixed'):
            config = self.config(name, UNIVERSES[name])
            with self.subTest(universe=name):
                real = parse_q(self.smi(['-q'], config).stdout)
                twin = parse_q(self.mock_smi(['-q'], config).stdout)
                common = [k for k in twin if k in real and 'Timestamp' not in k[1]
                          and not k[1].startswith(('Utilization', 'GPU Power Readings/Power Draw'))]
                self.assertGreater(len(common), 40 * len({k[0] for k in twin}) // 2)
                diff = {k: (twin[k], real[k]) for k in common if twin[k] != real[k]}
                self.assertEqual(diff, {})

    # --- faults ------------------------------------------------------------------------

    def test_faults_show_as_on_a_real_gpu(self):
        config = self.config('faults', FAULTS)
        p = self.smi(['-L'], config)
        self.assertEqual(p.returncode, 15, p.stdout)   # NVML_ERROR_GPU_IS_LOST
        self.assertIn('Unable to determine the device handle for gpu 1: GPU is lost.', p.stdout)
        for i in (0, 2, 3):
            self.assertIn('GPU %d: ' % i, p.stdout)
        q = parse_q(self.smi(['-q', '-i', '2'], config).stdout)
        ecc = {k[1]: v for k, v in q.items()}
        self.assertEqual(ecc['ECC Errors/Volatile/DRAM Uncorrectable'], '1')
        self.assertEqual(ecc['GPU Reset Status/Reset Required'], 'Yes')
        q = {k[1]: v for k, v in parse_q(self.smi(['-q', '-i', '3'], config).stdout).items()}
        self.assertEqual(q['GPU Reset Status/Reset Required'], 'Yes')
        self.assertEqual(q['GPU Reset Status/Drain and Reset Recommended'], 'Yes')
        q = {k[1]: v for k, v in parse_q(self.smi(['-q', '-i', '0'], config).stdout).items()}
        self.assertEqual(q['GPU Reset Status/Reset Required'], 'No')

    # --- what it asks that Mokka does not answer ---------------------------------------

    def test_query_on_the_default_a100_meets_only_a100_not_supported(self):
        state = self.path('state')
        p = self.mokka('exec', '--quiet', '--state-dir', state, '--', SMI, '-q', timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        stats = json.loads(self.mokka('stats', '--state-dir', state, '--json').stdout)
        unsupported = {c['function'] for c in stats['calls'] if c['notSupported']}
        self.assertEqual(unsupported - A100_NOT_SUPPORTED, set())
