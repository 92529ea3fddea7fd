"""test_fuzz_regress.py - what fuzzing found stays fixed: every seed
(tests/fuzz/seeds.py) and every regression case (tests/fuzz/regress/TARGET/)
of every target goes through every fuzz target's replay binary
(build/tests/replay-TARGET: the target with tests/fuzz/replay.c's main, no
libFuzzer), which must run them all and exit 0: no crash, no sanitizer
report (under make asan), no failed check of the target's own. Also keeps
the targets, seed lists and regression folders in step, and the cases
small.

Env: MOKKA_BUILD (a build tree with build/tests/replay-*), MOKKA_SRC."""
import glob
import os
import re
import resource
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get('MOKKA_SRC') or os.path.dirname(os.path.dirname(HERE))
BUILD = os.environ.get('MOKKA_BUILD') or SRC
FUZZ = os.path.join(SRC, 'tests', 'fuzz')
REGRESS = os.path.join(FUZZ, 'regress')
MAX_CASE = 64 * 1024
# What one replay may hold: a regression that makes an input blow up (a
# regex bomb once took 14-23 GB) fails here instead of taking the machine.
# Sanitizers reserve terabytes of address space: ASan gets its own RSS limit.
MEMORY_MB = 4096
SAN = os.environ.get('MOKKA_SAN', '')


def limit_memory():
    if not SAN:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_MB << 20, resource.RLIM_INFINITY))


def replay_env():
    env = dict(os.environ)
    if SAN == 'asan':
        env['ASAN_OPTIONS'] = 'hard_rss_limit_mb=%d:%s' % (MEMORY_MB, env.get('ASAN_OPTIONS', ''))
    return env

sys.path.insert(0, FUZZ)
import seeds  # noqa: E402  (after the path it lives on)


def targets():
    """Target names from the sources, tests/fuzz/FOLDER/NAME.c."""
    return sorted(os.path.basename(f)[:-2] for f in glob.glob(os.path.join(FUZZ, '*', '*.c')))


def replay_bin(target):
    return os.path.join(BUILD, 'build', 'tests', 'replay-' + target)


class LayoutTest(unittest.TestCase):

    def test_every_target_has_seeds_and_a_replay_binary(self):
        self.assertEqual(targets(), sorted(seeds.TARGETS))
        for t in targets():
            with self.subTest(target=t):
                self.assertTrue(os.access(replay_bin(t), os.X_OK), replay_bin(t) + ' is not built')

    def test_regression_cases_belong_to_targets_and_are_small(self):
        for d in sorted(glob.glob(os.path.join(REGRESS, '*'))):
            self.assertIn(os.path.basename(d), targets(), d + ' names no target')
            for f in sorted(glob.glob(os.path.join(d, '*'))):
                self.assertLessEqual(os.path.getsize(f), MAX_CASE, f + ' is not small')


class ReplayTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix='mokka-fuzz-seeds-')
        cls.inputs = []   # directories: each target's seeds, then its regression cases
        cls.count = 0
        for t in targets():
            d = os.path.join(cls.tmp.name, t)
            seeds.write(t, d)
            cls.inputs.append(d)
            reg = os.path.join(REGRESS, t)
            if os.path.isdir(reg):
                cls.inputs.append(reg)
        cls.count = sum(len(os.listdir(d)) for d in cls.inputs)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_every_input_through_every_target(self):
        self.assertGreater(self.count, 0)
        for t in targets():
            with self.subTest(target=t):
                r = subprocess.run([replay_bin(t)] + self.inputs, capture_output=True,
                                   text=True, errors='replace', timeout=600,
                                   preexec_fn=limit_memory, env=replay_env())
                last = [line for line in r.stderr.splitlines() if line.startswith('replay: ')]
                self.assertEqual(r.returncode, 0, 'replay-%s died (exit %d) after %s:\n%s' % (
                    t, r.returncode, last[-1] if last else 'nothing', r.stderr[-4000:]))
                done = re.search(r'^replay: (\d+) inputs, no crash$', r.stderr, re.M)
                self.assertIsNotNone(done, r.stderr[-2000:])
                self.assertEqual(int(done.group(1)), self.count)


if __name__ == '__main__':
    unittest.main()
