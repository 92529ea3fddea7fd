"""test_cli_lint.py - `mokka lint`: exact file:line:col diagnostics in order,
the summary line, exit codes (0 clean, 1 --strict warnings only, 2 errors),
stdin, suites, and the --strict checks."""
import os
import unittest

from mokka_probe import CONFIGS, CliTest, mokka

BAD = """\
version: 1.0
profile: a100-sxm4-40gb
count: 4
defaults:
  temprature: 40
devices:
  - index: 1
    power: lots
  - index: 2
    mig: {instances: [9g.99gb]}
"""

SUSPICIOUS = """\
version: 1.0
profile: a100-sxm4-40gb
count: 4
defaults:
  temperature: 40-99
  unhealthy_on_temperature: 120
devices:
  - index: 1
    power: 500W
    memoryUsed: 1024
    health: {unhealthy_on_memory_exceed: 90}
  - index: 2
    migEnabled: true
"""


class LintTest(CliTest):

    def test_fixtures_are_clean(self):
        files = [os.path.join(CONFIGS, f) for f in sorted(os.listdir(CONFIGS))
                 if f.endswith('.yaml') and f != 'seed.yaml']
        p = mokka('lint', '--strict', *files)
        self.assertExit(p, 0)
        self.assertEqual(p.stderr, '0 errors, 0 warnings in %d files\n' % len(files))
        self.assertEqual(p.stdout, '')

    def test_errors_with_positions_in_order(self):
        path = self.write(BAD)
        p = mokka('lint', path)
        self.assertExit(p, 2)
        lines = p.stderr.splitlines()
        self.assertEqual(lines, [
            "%s:5:3: error: unknown key 'temprature' in defaults; did you mean 'temperature'?" % path,
            "%s:8:12: error: power: 'lots': expected a power like 210, 210W, 0.21kW or 210000mW"
            % path,
            "%s:10:23: error: GPU 2 (NVIDIA A100-SXM4-40GB) has no MIG profile '9g.99gb' (it has: "
            "1g.5gb, 1g.5gb+me, 1g.10gb, 2g.10gb, 3g.20gb, 4g.20gb, 7g.40gb)" % path,
            '3 errors, 0 warnings in 1 file',
        ])

    def test_sorted_by_file_then_line(self):
        b = self.write(BAD, 'b.yaml')
        a = self.write('version: 1.0\nprofile: nope\ncount: 1\n', 'a.yaml')
        p = mokka('lint', b, a)
        self.assertExit(p, 2)
        files = [l.split(':', 1)[0] for l in p.stderr.splitlines()[:-1]]
        self.assertEqual(files, sorted(files))
        self.assertIn("%s:2:10: error: unknown profile 'nope'" % a, p.stderr)
        self.assertTrue(p.stderr.endswith('4 errors, 0 warnings in 2 files\n'), p.stderr)

    def test_stdin(self):
        p = mokka('lint', '-', input=BAD)
        self.assertExit(p, 2)
        self.assertTrue(p.stderr.startswith("<stdin>:5:3: error: unknown key 'temprature'"),
                        p.stderr)

    def test_yaml_syntax_error(self):
        p = mokka('lint', '-', input='version: 1.0\ndevices: [\n')
        self.assertExit(p, 2)
        self.assertRegex(p.stderr.splitlines()[0], r'^<stdin>:\d+:\d+: error: YAML syntax error')

    def test_missing_file(self):
        p = mokka('lint', '/nonexistent/x.yaml')
        self.assertExit(p, 2)
        self.assertIn('/nonexistent/x.yaml: error: cannot open: No such file or directory',
                      p.stderr)

    def test_strict_warnings(self):
        path = self.write(SUSPICIOUS)
        self.assertExit(mokka('lint', path), 0)
        p = mokka('lint', '--strict', path)
        self.assertExit(p, 1)
        w = '%s:%%s: warning: ' % path
        self.assertEqual(p.stderr.splitlines(), [
            w % '5:16' + 'GPUs 0-3: temperature can reach 99 C, above the shutdown threshold of '
            '92 C (thresholds.shutdown): a real GPU would have shut down',
            w % '5:16' + 'temperature is a range, but the config has no seed: values differ '
            'from run to run; add a top-level `seed: N` to make runs reproducible',
            w % '6:29' + 'GPUs 0-3: unhealthy_on_temperature: 120 C is never exceeded: the '
            'temperature stays at or below 99 C (only `mokka inject --set temperature=...` can '
            'fire this rule)',
            w % '9:12' + 'GPU 1: power can reach 500 W, above the enforced power limit of 400 W '
            '(powerLimits): a real board never draws more than its limit',
            w % '10:17' + "memoryUsed: '1024' has no unit (a bare size means MB from 1024 up and "
            'GB below); write 1024MiB',
            w % '11:42' + 'GPU 1: unhealthy_on_memory_exceed: 90% (36306 MiB) is never exceeded: '
            'memoryUsed stays at or below 1 GiB (only `mokka inject --set memoryUsed=...` can '
            'fire this rule)',
            w % '12:5' + 'GPU 2: MIG is enabled but no instances are configured, so it offers no '
            'MIG devices (add mig: {instances: [...]})',
            '0 errors, 7 warnings in 1 file',
        ])

    def test_strict_seed_fixture(self):
        path = os.path.join(CONFIGS, 'seed.yaml')
        p = mokka('lint', '--strict', path)
        self.assertExit(p, 1)
        self.assertIn("%s:6:13: warning: memory: '40960' has no unit" % path, p.stderr)
        self.assertIn("%s:15:13: warning: memory: '48' has no unit" % path, p.stderr)
        self.assertIn("%s:3:5: warning: GPU 0: uuid 'GPU-1a2b3c4d-5e6f-7g8h-9i0j-1k2l3m4n5o6p' is "
                      "not of the form" % path, p.stderr)

    def test_errors_win_over_warnings(self):
        path = self.write(SUSPICIOUS + '  - {index: 3, fans: many}\n')
        p = mokka('lint', '--strict', path)
        self.assertExit(p, 2)

    def test_suites(self):
        suites = os.path.join(os.path.dirname(CONFIGS), 'suites')
        files = [os.path.join(suites, 'smoke.yaml')] + [
            os.path.join(suites, 'examples', f) for f in sorted(os.listdir(os.path.join(suites, 'examples')))]
        p = mokka('lint', *files)
        self.assertExit(p, 0)
        self.assertEqual(p.stderr, '0 errors, 0 warnings in %d files\n' % len(files))
        path = self.write('cases:\n  - name: a\n    expect: {capacty: 8}\n', 'suite.yaml')
        p = mokka('lint', path, os.path.join(CONFIGS, 'dgx-a100.yaml'))
        self.assertExit(p, 2)
        self.assertEqual(p.stderr, "%s:3:14: error: unknown key 'capacty' in expect; did you mean "
                         "'capacity'?\n1 error, 0 warnings in 2 files\n" % path)

    def test_problems_shown_per_file_are_capped(self):
        """60,000 unknown keys took seconds: each error was compared with all
        before it."""
        keys = ''.join('k%05d: 1\n' % i for i in range(60000))
        path = self.write('profile: a100-sxm4-40gb\ncount: 8\n' + keys, 'keys.yaml')
        p = mokka('lint', path)
        self.assertExit(p, 2)
        lines = p.stderr.splitlines()
        self.assertEqual(len(lines), 102, p.stderr[:2000])
        self.assertEqual(lines[0], "%s:3:1: error: unknown key 'k00000' in the config" % path)
        self.assertEqual(lines[99], "%s:102:1: error: unknown key 'k00099' in the config" % path)
        self.assertEqual(lines[100:], [
            '%s: error: 59900 more errors in this file are not shown (only the first 100 '
            'problems are)' % path,
            '60000 errors, 0 warnings in 1 file'])

    def test_deep_nesting_stops_at_the_limit(self):
        """libyaml's document loader is quadratic on deep nesting; the parse
        now stops at the 257th level."""
        path = self.write('{a: ' * 40000 + 'b' + '}' * 40000 + '\n', 'deep.yaml')
        p = mokka('lint', path)
        self.assertExit(p, 2)
        self.assertEqual(p.stderr, '%s:1:1025: error: nested deeper than 256 levels (the limit)\n'
                         '1 error, 0 warnings in 1 file\n' % path)

    def test_input_size_limit(self):
        p = mokka('lint', '-', input=' ' * ((16 << 20) + 1))
        self.assertExit(p, 2)
        self.assertEqual(p.stderr, '<stdin>: error: larger than 16 MiB, the most a YAML file may '
                         'be\n1 error, 0 warnings in 1 file\n')

    def test_a_shared_value_is_one_line(self):
        """512 GPUs sharing a minor made 130,816 errors and minutes of work
        (mokka() gives up after 30 s)."""
        path = self.write('profile: a100-sxm4-40gb\ncount: 512\ndefaults: {minorNumber: 5}\n')
        p = mokka('lint', path)
        self.assertExit(p, 2)
        self.assertEqual(p.stderr.splitlines(), [
            '%s:2:8: error: GPU 1: minorNumber 5 is already used by GPU 0; 512 GPUs share it '
            '(GPUs 0, 1, 2, 3, 4, 5, 6, 7 and 504 more)' % path,
            '1 error, 0 warnings in 1 file'])

    def test_long_versions(self):
        path = self.write("profile: t4\ncount: 1\ndriverVersion: '%s'\nnvmlVersion: '%s'\n"
                          % ('5' * 5000, '1' * 80))
        p = mokka('lint', path)
        self.assertExit(p, 2)
        self.assertEqual(p.stderr.splitlines(), [
            '%s:3:16: error: driverVersion: longer than 63 characters' % path,
            '%s:4:14: error: nvmlVersion: longer than 79 characters' % path,
            '2 errors, 0 warnings in 1 file'])

    def test_quiet_drops_the_summary(self):
        p = mokka('lint', '--quiet', os.path.join(CONFIGS, 'dgx-a100.yaml'))
        self.assertExit(p, 0)
        self.assertEqual(p.stderr, '')

    def test_usage(self):
        p = mokka('lint')
        self.assertExit(p, 2)
        self.assertIn('no files to check', p.stderr)
        self.assertExit(mokka('lint', '--bogus', 'x'), 2)
        h = mokka('lint', '--help')
        self.assertExit(h, 0)
        self.assertTrue(h.stdout.startswith('Usage: mokka lint'))


    def test_name_resolved_to_a_profile(self):
        path = self.write('version: 1.0\ncount: 2\ndefaults:\n  name: NVIDIA A100\n')
        p = mokka('lint', path)
        self.assertExit(p, 0)
        self.assertEqual(p.stderr.splitlines(), [
            "%s:4:9: note: name 'NVIDIA A100' is not a profile's GPU name; it names profile "
            "a100-sxm4-40gb (NVIDIA A100-SXM4-40GB), the default of its family (give profile: "
            "for another)" % path,
            '0 errors, 0 warnings in 1 file'])
        self.assertExit(mokka('lint', '--strict', path), 0)
        path = self.write('version: 1.0\ndevices:\n  - name: H100 80GB\n')
        p = mokka('lint', path)
        self.assertExit(p, 2)
        self.assertIn("%s:3:11: error: name 'H100 80GB' names 2 profiles: h100-pcie-80gb (NVIDIA "
                      "H100 PCIe), h100-sxm5-80gb (NVIDIA H100 80GB HBM3); give profile: or the "
                      "full GPU name" % path, p.stderr)


if __name__ == '__main__':
    unittest.main()
