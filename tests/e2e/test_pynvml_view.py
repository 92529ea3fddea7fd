"""test_pynvml_view.py - the container's view through pynvml: with
NVIDIA_VISIBLE_DEVICES set, the library shows only the GPUs (and MIG
devices) it names, renumbered from 0 in the listed order, as inside a
container on a real node; every form (indexes, GPU UUIDs, MIG UUIDs, G:M,
all, none, void, empty, unknown entries) is checked. The variables of
Mokka's CDI devices, MOKKA_VISIBLE_GPU_<index>, add their GPUs to it.

Env: as test_pynvml.py."""
import json
import os
import subprocess
import tempfile
import unittest

from test_pynvml import LIB, PROBE, PYTHON, NOT_FOUND, sanitizer_preload

# Four A100s; GPU 2 in MIG mode with three MIG devices.
CONFIG = """\
version: 1.0
profile: a100-sxm4-40gb
count: 4
devices:
  - index: 2
    mig: {mode: enabled, instances: [1g.5gb, 1g.5gb, 2g.10gb]}
"""


class ViewTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        if not PYTHON:
            raise unittest.SkipTest('no python3 here can import pynvml (Debian: apt install python3-pynvml)')
        if not os.path.isfile(LIB):
            raise unittest.SkipTest('%s not built' % LIB)
        fd, cls.config = tempfile.mkstemp(suffix='.yaml', prefix='mokka-view-')
        with os.fdopen(fd, 'w') as f:
            f.write(CONFIG)
        out, _ = cls.run_probe(None)
        cls.gpu = [g['uuid'] for g in out['gpus']]
        cls.mig = out['gpus'][2]['migs']

    @classmethod
    def tearDownClass(cls):
        os.unlink(cls.config)

    @classmethod
    def run_probe(cls, visible, *uuids, cdi=None):
        env = {k: v for k, v in os.environ.items()
               if k not in ('MOKKA_CONFIG', 'MOKKA_STATE_DIR', 'LD_PRELOAD', 'LD_LIBRARY_PATH',
                            'NVIDIA_VISIBLE_DEVICES') and not k.startswith('MOKKA_VISIBLE_GPU_')}
        env.update(cdi or {})
        preload = sanitizer_preload() + [LIB]
        if len(preload) > 1:
            env['ASAN_OPTIONS'] = 'detect_leaks=0'
        env['LD_PRELOAD'] = ' '.join(preload)
        env['MOCK_CONFIG_PATH'] = cls.config
        if visible is not None:
            env['NVIDIA_VISIBLE_DEVICES'] = visible
        p = subprocess.run([PYTHON, PROBE, 'view'] + list(uuids), env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
        if p.returncode != 0:
            raise AssertionError('probe failed with NVIDIA_VISIBLE_DEVICES=%r:\n%s' % (visible, p.stderr))
        return json.loads(p.stdout), p.stderr

    def view(self, visible, *uuids, stderr='', cdi=None):
        out, err = self.run_probe(visible, *uuids, cdi=cdi)
        self.assertEqual(err, stderr)
        self.assertEqual(out['count'], len(out['gpus']))
        self.assertEqual([g['index'] for g in out['gpus']], list(range(out['count'])))
        return out

    def uuids(self, out):
        return [g['uuid'] for g in out['gpus']]

    def test_unset_and_all_show_every_gpu(self):
        self.assertEqual(len(self.gpu), 4)
        self.assertEqual(len(self.mig), 3)
        for form in ('all', ' ALL '):
            out = self.view(form)
            self.assertEqual(self.uuids(out), self.gpu)
            self.assertEqual(out['gpus'][2]['migs'], self.mig)

    def test_none_void_and_empty_show_no_gpu(self):
        for form in ('none', 'void', '', ' '):
            out = self.view(form, self.gpu[0], self.mig[0])
            self.assertEqual(out['count'], 0, form)
            self.assertEqual(out['lookup'], {self.gpu[0]: {'err': NOT_FOUND},
                                             self.mig[0]: {'err': NOT_FOUND}})

    def test_indexes_renumbered_in_listed_order(self):
        out = self.view('3,1', self.gpu[0], self.gpu[1])
        self.assertEqual(self.uuids(out), [self.gpu[3], self.gpu[1]])
        self.assertEqual(out['lookup'], {self.gpu[0]: {'err': NOT_FOUND}, self.gpu[1]: 'found'})

    def test_gpu_uuids_spaces_case_and_repeats(self):
        out = self.view(' %s , %s,%s,3 ' % (self.gpu[1], self.gpu[0].upper(), self.gpu[1]))
        self.assertEqual(self.uuids(out), [self.gpu[1], self.gpu[0], self.gpu[3]])

    def test_mig_uuid_shows_its_parent_with_only_that_mig_device(self):
        out = self.view(self.mig[1], *self.mig)
        self.assertEqual(self.uuids(out), [self.gpu[2]])
        self.assertEqual(out['gpus'][0]['mig'], [1, 1])
        self.assertEqual(out['gpus'][0]['migs'], [self.mig[1]])
        self.assertEqual(out['lookup'], {self.mig[0]: {'err': NOT_FOUND}, self.mig[1]: 'found',
                                         self.mig[2]: {'err': NOT_FOUND}})

    def test_gpu_colon_mig_form_and_mixed_with_whole_gpus(self):
        out = self.view('0,2:2,2:0')
        self.assertEqual(self.uuids(out), [self.gpu[0], self.gpu[2]])
        self.assertEqual(out['gpus'][1]['migs'], [self.mig[0], self.mig[2]])
        out = self.view('%s,2' % self.mig[2])
        self.assertEqual(out['gpus'][0]['migs'], self.mig)

    def test_unknown_entries_are_left_out_with_one_line(self):
        spec = '1,GPU-00000000-0000-0000-0000-000000000000,9,0:0,x'
        out, err = self.run_probe(spec)
        self.assertEqual(self.uuids(out), [self.gpu[1]])
        self.assertEqual(err.count('\n'), 1, err)
        self.assertIn("NVIDIA_VISIBLE_DEVICES=%s: no such GPU or MIG device in this universe: "
                      "'GPU-00000000-0000-0000-0000-000000000000', '9', '0:0', 'x'; left out "
                      "(1 GPU visible)" % spec, err)

    def test_cdi_devices_each_add_their_gpu(self):
        """As Mokka's CDI spec sets them for --device nvidia.com/gpu=3 and
        =1 (with NVIDIA_VISIBLE_DEVICES=void): by index, whatever the
        order of the environment."""
        cdi = {'MOKKA_VISIBLE_GPU_3': self.gpu[3], 'MOKKA_VISIBLE_GPU_1': self.gpu[1]}
        out = self.view('void', self.gpu[0], cdi=cdi)
        self.assertEqual(self.uuids(out), [self.gpu[1], self.gpu[3]])
        self.assertEqual(out['lookup'], {self.gpu[0]: {'err': NOT_FOUND}})
        out = self.view(None, cdi=cdi)
        self.assertEqual(self.uuids(out), [self.gpu[1], self.gpu[3]])
        out = self.view('2', cdi=cdi)   # the union, NVIDIA_VISIBLE_DEVICES's first
        self.assertEqual(self.uuids(out), [self.gpu[2], self.gpu[1], self.gpu[3]])
        out = self.view('void', cdi=dict(cdi, MOKKA_VISIBLE_GPU_ALL='all'))
        self.assertEqual(self.uuids(out), self.gpu)

    def test_cdi_device_naming_nothing_has_its_line(self):
        out, err = self.run_probe('void', cdi={'MOKKA_VISIBLE_GPU_7': 'GPU-gone',
                                               'MOKKA_VISIBLE_GPU_0': self.gpu[0]})
        self.assertEqual(self.uuids(out), [self.gpu[0]])
        self.assertIn("NVIDIA_VISIBLE_DEVICES with MOKKA_VISIBLE_GPU_*=%s,GPU-gone: no such GPU "
                      "or MIG device in this universe: 'GPU-gone'; left out (1 GPU visible)"
                      % self.gpu[0], err)

    def test_the_line_shows_control_characters_escaped(self):
        # Once written raw into the host program's stderr: escape sequences
        # acted on the terminal, and a newline forged a second line.
        spec = '1,x\x1b[31m\n\x7f,\udcff,%s' % ('y' * 300)
        out, err = self.run_probe(spec)
        self.assertEqual(self.uuids(out), [self.gpu[1]])
        self.assertEqual(err.count('\n'), 1, err)
        self.assertNotIn('\x1b', err)
        self.assertIn("NVIDIA_VISIBLE_DEVICES=1,x\\x1b[31m\\n\\x7f,\\xff,%s...: no such GPU or "
                      "MIG device in this universe: 'x\\x1b[31m\\n\\x7f', '\\xff', '"
                      % ('y' * 187), err)   # 200 bytes of the value


if __name__ == '__main__':
    unittest.main()
