"""test_cli_stats.py - `mokka stats` against a pynvml program on the mock:
the header, call counts that grow with the program's calls, the calls that
answered NOT_SUPPORTED listed as the program's unsupported calls, values
that match what the program reads, --watch, and the exit codes."""
import json
import os
import select
import signal
import subprocess
import time
import unittest

from mokka_probe import CONFIGS, MOKKA, NODE, CliTest, Probe, mokka, pynvml_python


def calls(report):
    return {c['function']: (c['calls'], c['notSupported']) for c in report['calls']}


class StatsTest(CliTest):

    def report(self, probe):
        p = probe.mokka('stats', '--json')
        self.assertExit(p, 0)
        return json.loads(p.stdout)

    def test_header(self):
        pr = Probe(self, config=os.path.join(CONFIGS, 'hgx-h100.yaml'))
        r = self.report(pr)
        self.assertEqual(r['state'], os.path.join(pr.state_dir, 'state'))
        self.assertEqual(r['config'], os.path.join(CONFIGS, 'hgx-h100.yaml'))
        self.assertEqual(r['node'], NODE)
        self.assertEqual(r['driverVersion'], '535.261.03')
        self.assertEqual(r['processes'], {'attached': 1, 'alive': 1, 'pids': [pr.pid],
                                          'restrictedViews': []})
        self.assertEqual(r['reloads'], 0)
        self.assertEqual(len(r['gpus']), 8)
        self.assertEqual(r['gpus'][0]['name'], 'NVIDIA H100 80GB HBM3')
        self.assertEqual(r['gpus'][0]['pciBusID'], '00000000:1B:00.0')
        text = pr.mokka('stats').stdout
        self.assertIn('config     %s\n' % os.path.join(CONFIGS, 'hgx-h100.yaml'), text)
        self.assertIn('processes  1 attached, 1 alive (pid %d)\n' % pr.pid, text)
        self.assertIn('\nGPU 7  NVIDIA H100 80GB HBM3  ', text)

    def test_calls_grow(self):
        pr = Probe(self)
        first = calls(self.report(pr)).get('nvmlDeviceGetMemoryInfo', (0, 0))[0]
        for _ in range(5):
            pr.ask('mem 1')
        r = self.report(pr)
        self.assertEqual(calls(r)['nvmlDeviceGetMemoryInfo'], (first + 5, 0))
        self.assertEqual(r['totalCalls'], sum(c['calls'] for c in r['calls']))
        counts = [c['calls'] for c in r['calls']]
        self.assertEqual(counts, sorted(counts, reverse=True))

    def test_unsupported_calls_listed(self):
        pr = Probe(self)
        unsupported = pr.ask('unsupported 0')['ok']
        if not unsupported:
            self.skipTest('every candidate call is implemented in this build')
        r = self.report(pr)
        self.assertEqual(sorted(r['unsupportedCalls']), sorted(unsupported))
        for name in unsupported:
            self.assertEqual(calls(r)[name], (1, 1), name)
        text = pr.mokka('stats').stdout
        self.assertIn('Unsupported calls your program made', text)
        for name in unsupported:
            self.assertRegex(text, r'\n\s+1\s+1  %s\n' % name)
            self.assertIn('\n  %s\n' % name, text.split('Unsupported calls')[1])

    def test_values_match_the_program(self):
        pr = Probe(self, config=os.path.join(CONFIGS, 'hgx-h100.yaml'))
        used = pr.ask('mem 6')
        g = self.report(pr)['gpus'][6]
        reserved = used['total'] - used['free'] - g['metrics']['memoryUsed']['value']
        self.assertEqual(g['metrics']['memoryUsed'], {'value': 10 << 30, 'text': '10 GiB',
                                                      'pinned': False})
        self.assertGreater(reserved, 0)
        self.assertEqual(g['metrics']['fanSpeed']['value'], None)
        self.assertEqual(g['metrics']['fanSpeed']['text'], 'N/A')
        self.assertEqual(g['health'], 'healthy')

    def test_pinned_marked(self):
        pr = Probe(self)
        pr.mokka('inject', '--gpu', '0', '--set', 'utilization.gpu=80')
        text = pr.mokka('stats').stdout
        self.assertIn('  utilization  gpu 80 %*, memory 0 %', text)
        self.assertIn('* pinned by mokka inject', text)

    def test_pid(self):
        pr = Probe(self)
        p = mokka('stats', '--pid', str(pr.pid), '--json')
        self.assertExit(p, 0)
        self.assertEqual(json.loads(p.stdout)['state'], os.path.join(pr.state_dir, 'state'))

    def test_other_universe_on_a_live_state_dir_is_kept_apart(self):
        # issue 20: a second program with another universe on the same state
        # directory replaced the live state; the first one vanished from stats.
        pr = Probe(self, config=os.path.join(CONFIGS, 'hgx-h100.yaml'))
        two = self.write('profile: a100-sxm4-40gb\ncount: 2\n')
        env = None
        if os.environ.get('MOKKA_SAN') == 'asan':   # mokka exec puts the library first
            env = {'ASAN_OPTIONS': 'verify_asan_link_order=0:detect_leaks=0'}
        p = mokka('exec', '--config', two, '--state-dir', pr.state_dir, '--', pynvml_python(), '-c',
                  'import pynvml; pynvml.nvmlInit(); print(pynvml.nvmlDeviceGetCount()); '
                  'print(pynvml.nvmlDeviceGetName(pynvml.nvmlDeviceGetHandleByIndex(0)))',
                  env=env)
        self.assertExit(p, 0)
        self.assertEqual(p.stdout.splitlines()[-2:], ['2', 'NVIDIA A100-SXM4-40GB'])
        line = ('mokka: live state: state directory %s is in use by pid %d with another universe '
                '(8 GPUs, config %s, node %s); give this program a state directory of its own '
                '(MOKKA_STATE_DIR, mokka exec --state-dir) or stop pid %d first; using private '
                'memory (mokka stats and inject cannot reach this process)\n'
                % (pr.state_dir, pr.pid, os.path.join(CONFIGS, 'hgx-h100.yaml'), NODE, pr.pid))
        self.assertEqual(p.stderr.count(line), 1, p.stderr)
        r = self.report(pr)
        self.assertEqual(r['config'], os.path.join(CONFIGS, 'hgx-h100.yaml'))
        self.assertEqual(r['processes']['pids'], [pr.pid])
        self.assertEqual(r['gpus'][0]['name'], 'NVIDIA H100 80GB HBM3')
        before = calls(r).get('nvmlDeviceGetMemoryInfo', (0, 0))[0]
        self.assertIn('ok', pr.ask('mem 1'))          # the first program still counts there
        self.assertEqual(calls(self.report(pr))['nvmlDeviceGetMemoryInfo'][0], before + 1)

    def watch(self, probe, *extra, until):
        """Runs stats --watch until `until(lines)` holds, then stops it with SIGINT."""
        w = subprocess.Popen([MOKKA, 'stats', '--state-dir', probe.state_dir, '--watch', '0.2'] +
                             list(extra), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             universal_newlines=True, env=dict(os.environ, NO_COLOR='1'))
        self.addCleanup(lambda: w.poll() is None and w.kill())
        self.addCleanup(w.stdout.close)
        self.addCleanup(w.stderr.close)
        lines = []
        deadline = time.monotonic() + 30
        while not until(lines) and time.monotonic() < deadline:
            r, _, _ = select.select([w.stdout], [], [], 1)
            if r:
                line = w.stdout.readline()
                if not line:
                    break
                lines.append(line)
        w.send_signal(signal.SIGINT)
        # Not communicate(): it reads the pipe past what readline() buffered.
        rest, err = w.stdout.read(), w.stderr.read()
        self.assertEqual(w.wait(10), 0, err)
        return lines + rest.splitlines(True)

    def test_watch_prints_blocks(self):
        pr = Probe(self)
        out = self.watch(pr, until=lambda ls: sum(l.startswith('--- ') for l in ls) >= 3)
        blocks = sum(l.startswith('--- ') for l in out)
        self.assertGreaterEqual(blocks, 3)
        self.assertEqual(sum(l.startswith('state      ') for l in out), blocks)
        self.assertNotIn('\033', ''.join(out))

    def test_watch_json_lines(self):
        pr = Probe(self)
        out = self.watch(pr, '--json', until=lambda ls: len(ls) >= 2)
        self.assertGreaterEqual(len(out), 2)
        for line in out:
            self.assertEqual(len(json.loads(line)['gpus']), 8)

    def test_no_state(self):
        d = self.tempdir()
        p = mokka('stats', '--state-dir', d)
        self.assertExit(p, 3)
        self.assertTrue(p.stderr.startswith('mokka stats: '), p.stderr)
        self.assertEqual(p.stdout, '')
        p = mokka('stats', env={'MOKKA_RUNTIME_DIR': d})
        self.assertExit(p, 3)
        self.assertIn('--state-dir', p.stderr)

    def test_usage(self):
        self.assertExit(mokka('stats', '--watch', '0'), 2)
        self.assertExit(mokka('stats', '--pid', 'abc'), 2)
        self.assertExit(mokka('stats', 'extra'), 2)
        h = mokka('stats', '--help')
        self.assertExit(h, 0)
        self.assertTrue(h.stdout.startswith('Usage: mokka stats'))


if __name__ == '__main__':
    unittest.main()
