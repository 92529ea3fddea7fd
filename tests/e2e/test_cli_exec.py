"""test_cli_exec.py - `mokka exec`: the environment a program gets (library
first in LD_PRELOAD and LD_LIBRARY_PATH, an absolute checked config, a fresh
state directory removed afterwards, the node name), exit statuses passed
through like a shell (3, 42, 126, 127, 128+N), signals forwarded, and pynvml
running on the mock with a config.

Env: see cli_support.py."""
import json
import os
import signal
import sys
import unittest

from cli_support import CliTest, LIB, MIG_MIXED, MOKKA, SEED

SHOW_ENV = ('import json, os; print(json.dumps({k: os.environ.get(k) for k in '
            '("LD_PRELOAD", "LD_LIBRARY_PATH", "MOCK_CONFIG_PATH", "MOKKA_STATE_DIR", '
            '"MOKKA_NODE_NAME")}))')


class ExecUsageTest(CliTest):

    def test_no_command_is_a_usage_error(self):
        self.usage_error(self.mokka('exec'), 'missing COMMAND')

    def test_options_without_command(self):
        self.usage_error(self.mokka('exec', '--keep-state', '--'), 'missing COMMAND')

    def test_unknown_option(self):
        self.usage_error(self.mokka('exec', '--bogus', 'true'), 'bogus')

    def test_option_missing_its_argument(self):
        self.usage_error(self.mokka('exec', '--config'), 'config')

    def test_help_is_what_help_exec_prints(self):
        a, b = self.mokka('exec', '--help'), self.mokka('help', 'exec')
        self.assertEqual((a.returncode, b.returncode), (0, 0))
        self.assertEqual(a.stdout, b.stdout)
        self.assertIn('Usage: mokka exec', a.stdout)

    def test_invalid_config_names_the_position_and_runs_nothing(self):
        bad = self.path('bad.yaml')
        with open(bad, 'w') as f:
            f.write('version: 1.0\ncount: x\n')
        marker = self.path('ran')
        p = self.mokka('exec', '--config', bad, '--', 'touch', marker)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn('%s:2:8: error:' % bad, p.stderr)
        self.assertFalse(os.path.exists(marker), 'the command ran with a broken config')

    def test_missing_config(self):
        p = self.mokka('exec', '--config', self.path('nope.yaml'), 'true')
        self.assertEqual(p.returncode, 2)
        self.assertIn('nope.yaml', p.stderr)
        self.assertIn('No such file', p.stderr)

    def test_broken_config_from_the_environment_is_checked_too(self):
        bad = self.path('bad.yaml')
        with open(bad, 'w') as f:
            f.write('version: 1.0\ncount: -3\n')
        env = dict(self.env, MOCK_CONFIG_PATH=bad)
        p = self.mokka('exec', 'true', env=env)
        self.assertEqual(p.returncode, 2)
        self.assertIn(bad + ':2:', p.stderr)


class ExecStatusTest(CliTest):

    def setUp(self):
        super().setUp()
        self.need_unsanitized_peers()

    def test_exit_status_passes_through(self):
        for code in (0, 1, 3, 42, 255):
            p = self.mokka('exec', 'sh', '-c', 'exit %d' % code)
            self.assertEqual(p.returncode, code, p.stderr)

    def test_death_by_signal_is_128_plus_n(self):
        for sig in (signal.SIGKILL, signal.SIGTERM, signal.SIGSEGV):
            p = self.mokka('exec', 'sh', '-c', 'kill -%d $$' % sig)
            self.assertEqual(p.returncode, 128 + sig, p.stderr)

    def test_command_not_found_is_127(self):
        p = self.mokka('exec', 'no-such-program-here')
        self.assertEqual(p.returncode, 127)
        self.assertIn("cannot run 'no-such-program-here'", p.stderr)

    def test_command_not_executable_is_126(self):
        script = self.path('script')
        with open(script, 'w') as f:
            f.write('#!/bin/sh\nexit 0\n')
        os.chmod(script, 0o644)
        p = self.mokka('exec', script)
        self.assertEqual(p.returncode, 126)
        self.assertIn('Permission denied', p.stderr)

    def test_options_after_the_command_belong_to_it(self):
        p = self.mokka('exec', 'sh', '-c', 'echo "$1"', 'sh', '--keep-state')
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, '--keep-state\n')

    def test_stdout_is_the_programs(self):
        p = self.mokka('exec', 'echo', 'hello')
        self.assertEqual(p.stdout, 'hello\n')
        self.assertEqual(p.stderr, '')


class ExecEnvironmentTest(CliTest):

    def setUp(self):
        super().setUp()
        self.need_unsanitized_peers()

    def show_env(self, *args, env=None):
        p = self.mokka('exec', *(list(args) + ['--', sys.executable, '-c', SHOW_ENV]), env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        return json.loads(p.stdout)

    def lib_path(self):
        p = self.mokka('lib-path')
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout.strip()

    def test_library_comes_first_and_existing_entries_stay(self):
        env = dict(self.env, LD_PRELOAD='libm.so.6', LD_LIBRARY_PATH='/opt/keep-me')
        e = self.show_env(env=env)
        lib = self.lib_path()
        self.assertEqual(e['LD_PRELOAD'], lib + ':libm.so.6')
        self.assertEqual(e['LD_LIBRARY_PATH'], os.path.dirname(lib) + ':/opt/keep-me')
        with open(lib, 'rb') as a, open(LIB, 'rb') as b:
            self.assertEqual(a.read(), b.read())

    def test_without_a_config_none_is_set(self):
        self.assertIsNone(self.show_env()['MOCK_CONFIG_PATH'])

    def test_config_becomes_absolute(self):
        rel = os.path.relpath(SEED)
        e = self.show_env('--config', rel)
        self.assertEqual(e['MOCK_CONFIG_PATH'], os.path.realpath(SEED))

    def test_node_name(self):
        self.assertEqual(self.show_env('--node', 'gpu-node-7')['MOKKA_NODE_NAME'], 'gpu-node-7')

    def test_fresh_state_dir_is_removed_afterwards(self):
        d = self.show_env()['MOKKA_STATE_DIR']
        self.assertEqual(os.path.dirname(d), self.path('run'))
        self.assertRegex(os.path.basename(d), r'^python[0-9.]*-\d+$')
        self.assertFalse(os.path.exists(d), 'state directory left behind')

    def test_keep_state_keeps_it_and_says_where(self):
        p = self.mokka('exec', '--keep-state', sys.executable, '-c', SHOW_ENV)
        d = json.loads(p.stdout)['MOKKA_STATE_DIR']
        self.assertTrue(os.path.isdir(d))
        self.assertIn(d, p.stderr)

    def test_given_state_dir_is_used_and_kept(self):
        d = self.path('my-state')
        self.assertEqual(self.show_env('--state-dir', d)['MOKKA_STATE_DIR'], d)
        self.assertTrue(os.path.isdir(d))


class ExecSignalTest(CliTest):

    def setUp(self):
        super().setUp()
        self.need_unsanitized_peers()

    def test_sigterm_is_forwarded(self):
        proc, _ = self.start([MOKKA, 'exec',
                              sys.executable, '-c',
                              'import time; print("ready", flush=True); time.sleep(60)'],
                             ready='ready')
        proc.send_signal(signal.SIGTERM)
        self.assertEqual(proc.wait(timeout=20), 128 + signal.SIGTERM)

    def test_sigint_reaches_a_program_that_handles_it(self):
        script = ('import sys, time\nprint("ready", flush=True)\n'
                  'try:\n    time.sleep(60)\nexcept KeyboardInterrupt:\n    sys.exit(5)\n')
        proc, _ = self.start([MOKKA, 'exec',
                              sys.executable, '-c', script], ready='ready')
        proc.send_signal(signal.SIGINT)
        self.assertEqual(proc.wait(timeout=20), 5)

    def test_state_dir_is_removed_after_a_forwarded_signal(self):
        script = 'import os, time; print("dir", os.environ["MOKKA_STATE_DIR"], flush=True); time.sleep(60)'
        proc, line = self.start([MOKKA, 'exec',
                                 sys.executable, '-c', script], ready='dir ')
        d = line.split(' ', 1)[1]
        self.assertTrue(os.path.isdir(d))
        proc.send_signal(signal.SIGHUP)
        self.assertEqual(proc.wait(timeout=20), 128 + signal.SIGHUP)
        self.assertFalse(os.path.exists(d))


class ExecPynvmlTest(CliTest):
    """pynvml, unmodified, on the mock: the real client library is the judge."""

    def setUp(self):
        super().setUp()
        self.py = self.need_pynvml()

    def pynvml(self, script, *args):
        return self.mokka('exec', *(list(args) + ['--', self.py, '-c', script]))

    def test_default_universe(self):
        p = self.pynvml('import pynvml as n; n.nvmlInit(); c = n.nvmlDeviceGetCount(); '
                        'print(c, n.nvmlDeviceGetName(n.nvmlDeviceGetHandleByIndex(0)))')
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.strip(), '8 NVIDIA A100-SXM4-40GB')

    def test_config_mig_mixed(self):
        script = ('import pynvml as n; n.nvmlInit(); h = n.nvmlDeviceGetHandleByIndex(0)\n'
                  'print(n.nvmlDeviceGetCount(), n.nvmlDeviceGetMigMode(h)[0])\n'
                  'for i in range(n.nvmlDeviceGetMaxMigDeviceCount(h)):\n'
                  '    try: m = n.nvmlDeviceGetMigDeviceHandleByIndex(h, i)\n'
                  '    except n.NVMLError: continue\n'
                  '    print(n.nvmlDeviceGetName(m))\n')
        p = self.pynvml(script, '--config', MIG_MIXED)
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.split('\n')
        self.assertEqual(lines[0], '2 1')
        self.assertEqual([l.rsplit(' ', 1)[1] for l in lines[1:] if l],
                         ['1g.5gb', '1g.5gb', '2g.10gb', '3g.20gb'])

    def test_exit_status_after_nvml(self):
        for code in (3, 42):
            p = self.pynvml('import pynvml as n, sys; n.nvmlInit(); n.nvmlShutdown(); '
                            'sys.exit(%d)' % code)
            self.assertEqual(p.returncode, code, p.stderr)

    def test_death_by_signal_after_nvml(self):
        p = self.pynvml('import pynvml as n, os, signal; n.nvmlInit(); '
                        'os.kill(os.getpid(), signal.SIGKILL)')
        self.assertEqual(p.returncode, 128 + signal.SIGKILL)

    def test_state_file_appears_in_the_state_dir(self):
        p = self.pynvml('import pynvml as n, os; n.nvmlInit(); '
                        'print(sorted(os.listdir(os.environ["MOKKA_STATE_DIR"])))')
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.strip(), "['state']")

    def test_node_name_decides_generated_uuids(self):
        script = 'import pynvml as n; n.nvmlInit(); print(n.nvmlDeviceGetUUID(n.nvmlDeviceGetHandleByIndex(0)))'
        a = self.pynvml(script, '--config', MIG_MIXED, '--node', 'node-a').stdout
        b = self.pynvml(script, '--config', MIG_MIXED, '--node', 'node-b').stdout
        a2 = self.pynvml(script, '--config', MIG_MIXED, '--node', 'node-a').stdout
        self.assertRegex(a, r'^GPU-[0-9a-f-]{36}\n$')
        self.assertNotEqual(a, b)
        self.assertEqual(a, a2)


if __name__ == '__main__':
    unittest.main()
