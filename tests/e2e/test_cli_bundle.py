"""test_cli_bundle.py - the library that travels inside mokka, and the
commands every install relies on: `mokka lib-path` in the build tree and
from a copy of mokka alone in an empty directory (materialised once into a
per-user cache, reused, repaired when damaged), `mokka smi --mock` and
pynvml through `mokka exec` from that lone copy, `mokka extract-lib DIR`
for images, `mokka version`, and `mokka help` for every command.

Env: see cli_support.py."""
import json
import os
import re
import shutil
import stat
import subprocess
import unittest

from cli_support import CliTest, LIB, MOKKA, SRC

COUNT_GPUS = 'import pynvml as n; n.nvmlInit(); print(n.nvmlDeviceGetCount())'


def library_bytes():
    with open(LIB, 'rb') as f:
        return f.read()


def commands():
    """The command table of src/commands.c: CMD("name", fn)."""
    with open(os.path.join(SRC, 'src', 'commands.c')) as f:
        return re.findall(r'CMD\("([a-z-]+)"', f.read())


class LibPathTest(CliTest):

    def test_build_tree_uses_the_library_beside_mokka(self):
        p = self.mokka('lib-path')
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, os.path.realpath(LIB) + '\n')
        d = self.mokka('lib-path', '--dir')
        self.assertEqual(d.stdout, os.path.dirname(os.path.realpath(LIB)) + '\n')

    def test_usage(self):
        self.usage_error(self.mokka('lib-path', 'extra'), "unexpected argument 'extra'")
        self.usage_error(self.mokka('lib-path', '--file'), 'file')
        self.assertEqual(self.mokka('lib-path', '--help').stdout,
                         self.mokka('help', 'lib-path').stdout)


class LoneCopyTest(CliTest):
    """mokka copied alone into an empty directory."""

    def setUp(self):
        super().setUp()
        self.lone = self.path('empty', 'mokka')
        os.makedirs(os.path.dirname(self.lone))
        shutil.copy2(MOKKA, self.lone)
        self.env['HOME'] = self.path('home')
        os.makedirs(self.env['HOME'])

    def lib_path(self, env=None):
        p = self.mokka('lib-path', binary=self.lone, env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout.strip()

    def test_materialised_in_xdg_cache(self):
        path = self.lib_path()
        self.assertRegex(path, '^' + re.escape(self.path('cache', 'mokka')) +
                         r'/[0-9a-f]{16}/libnvidia-ml\.so\.1$')
        with open(path, 'rb') as f:
            self.assertEqual(f.read(), library_bytes())
        self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o644)
        self.assertEqual(os.listdir(os.path.dirname(path)), ['libnvidia-ml.so.1'])

    def test_home_cache_without_xdg(self):
        env = dict(self.env)
        del env['XDG_CACHE_HOME']
        self.assertTrue(self.lib_path(env).startswith(self.path('home', '.cache', 'mokka') + '/'))

    def test_reused_then_repaired(self):
        path = self.lib_path()
        ino = os.stat(path).st_ino
        self.assertEqual(self.lib_path(), path)
        self.assertEqual(os.stat(path).st_ino, ino, 'rewritten although it was intact')
        with open(path, 'r+b') as f:   # a damaged copy (truncated download, disk trouble)
            f.truncate(1000)
        self.assertEqual(self.lib_path(), path)
        with open(path, 'rb') as f:
            self.assertEqual(f.read(), library_bytes())

    def test_no_home_falls_back_to_tmp(self):
        env = dict(self.env, HOME=self.path('not-a-dir'))
        del env['XDG_CACHE_HOME']
        open(env['HOME'], 'w').close()
        hashdir = os.path.join('/tmp/mokka-%d' % os.getuid(), 'lib', self.library_hash())
        # Ours to remove afterwards when it is new; never its parents, which
        # other mokka processes of this user may be using right now.
        if not os.path.exists(hashdir):
            self.addCleanup(shutil.rmtree, hashdir, True)
        path = self.lib_path(env)
        self.assertEqual(path, os.path.join(hashdir, 'libnvidia-ml.so.1'))
        with open(path, 'rb') as f:
            self.assertEqual(f.read(), library_bytes())
        self.assertFalse(os.path.exists(os.path.join(env['HOME'], '.cache')))

    def library_hash(self):
        return json.loads(self.mokka('version', '--json').stdout)['library_hash']

    def test_smi_mock_works_from_the_lone_copy(self):
        p = self.mokka('smi', '--mock', '-L', binary=self.lone)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(len(p.stdout.splitlines()), 8)

    def test_pynvml_through_exec_from_the_lone_copy(self):
        py = self.need_pynvml()
        p = self.mokka('exec', py, '-c', COUNT_GPUS, binary=self.lone)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, '8\n')

    def test_unwritable_everywhere_is_exit_3(self):
        if os.getuid() == 0:
            self.skipTest('root can write anywhere')
        env = dict(self.env, HOME='/proc', XDG_CACHE_HOME='/proc/mokka-cannot-write')
        p = self.mokka('lib-path', binary=self.lone, env=env)
        if p.returncode == 0:
            self.skipTest('/tmp/mokka-UID is writable, so the fallback worked')
        self.assertEqual(p.returncode, 3)


class ExtractLibTest(CliTest):

    def test_extract_then_load_by_ld_library_path(self):
        d = self.path('image', 'usr', 'lib', 'mokka')
        p = self.mokka('extract-lib', d)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, os.path.join(d, 'libnvidia-ml.so.1') + '\n')
        lib = os.path.join(d, 'libnvidia-ml.so.1')
        with open(lib, 'rb') as f:
            self.assertEqual(f.read(), library_bytes())
        self.assertEqual(stat.S_IMODE(os.stat(lib).st_mode), 0o644)
        self.assertEqual(os.listdir(d), ['libnvidia-ml.so.1'], 'temporary files left behind')
        py = self.need_pynvml()
        env = dict(self.env, LD_LIBRARY_PATH=d)
        r = subprocess.run([py, '-c', COUNT_GPUS], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True, env=env, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, '8\n')

    def test_extract_twice_is_fine(self):
        d = self.path('x')
        self.assertEqual(self.mokka('extract-lib', d).returncode, 0)
        self.assertEqual(self.mokka('extract-lib', d).returncode, 0)

    def test_usage(self):
        self.usage_error(self.mokka('extract-lib'), 'missing DIR')
        self.usage_error(self.mokka('extract-lib', 'a', 'b'), 'one DIR')

    def test_dir_that_is_a_file_is_exit_3(self):
        f = self.path('file')
        open(f, 'w').close()
        p = self.mokka('extract-lib', f)
        self.assertEqual(p.returncode, 3)
        self.assertIn(f, p.stderr)
        self.assertEqual(p.stdout, '')


class VersionTest(CliTest):

    def test_text(self):
        p = self.mokka('version')
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stdout, r'^mokka \d+\.\d+\.\d+ \(commit [0-9a-z]+\)\n')
        self.assertIn('emulates NVML 12.535.261.03, driver 535.261.03, CUDA 12.2 by default '
                      '(8 x NVIDIA A100-SXM4-40GB)', p.stdout)
        self.assertRegex(p.stdout, r'\nbuilt with (gcc|clang) \d')
        self.assertEqual(self.mokka('--version').stdout, p.stdout)

    def test_json(self):
        p = self.mokka('version', '--json')
        self.assertEqual(p.returncode, 0, p.stderr)
        v = json.loads(p.stdout)
        self.assertEqual((v['nvml_version'], v['driver_version'], v['cuda_version']),
                         ('12.535.261.03', '535.261.03', '12.2'))
        self.assertEqual(v['default_gpu_count'], 8)
        self.assertRegex(v['library_hash'], r'^[0-9a-f]{16}$')
        # The hash names the cache directory of a lone copy.
        self.assertIn(v['library_hash'], self.mokka('lib-path', env=dict(
            self.env, XDG_CACHE_HOME=self.path('c')), binary=self.lone_copy()).stdout)

    def lone_copy(self):
        lone = self.path('lone', 'mokka')
        os.makedirs(os.path.dirname(lone))
        shutil.copy2(MOKKA, lone)
        return lone

    def test_usage(self):
        self.usage_error(self.mokka('version', '--yaml'), 'yaml')


class HelpTest(CliTest):

    def test_every_command_is_listed_with_its_summary(self):
        p = self.mokka('--help')
        self.assertEqual(p.returncode, 0)
        self.assertEqual(self.mokka('help').stdout, p.stdout)
        listed = re.findall(r'^  ([a-z-]+) +\S.*$', p.stdout.split('Commands:')[1].split('\n\n')[0],
                            re.M)
        self.assertEqual(listed, commands())

    def test_help_cmd_is_cmd_help(self):
        for cmd in commands():
            a, b = self.mokka('help', cmd), self.mokka(cmd, '--help')
            if b.returncode == 3 and 'not implemented yet' in b.stderr:
                continue  # a placeholder still waiting for its branch
            self.assertEqual((a.returncode, b.returncode), (0, 0), cmd)
            self.assertEqual(a.stdout, b.stdout, cmd)
            self.assertIn('Usage: mokka ' + cmd, a.stdout)

    def test_unknown_command_suggests(self):
        p = self.mokka('smu')
        self.usage_error(p, "'smu' is not a mokka command", "did you mean 'smi'")
        p = self.mokka('help', 'docter')
        self.usage_error(p, "did you mean 'doctor'")
        self.usage_error(self.mokka('frobnicate'), "'frobnicate' is not a mokka command")

    def test_no_command(self):
        self.usage_error(self.mokka(), 'no command given')

    def test_unknown_global_option(self):
        self.usage_error(self.mokka('--frob'), "unknown option '--frob'")


if __name__ == '__main__':
    unittest.main()
