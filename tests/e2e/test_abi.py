"""test_abi.py - our NVML declarations (lib/nvml/abi) against NVIDIA's nvml.h
(tests/abi/check_abi.py), and the rules the stub generator relies on: each
header compiles on its own, and every exported name has exactly one
one-line MK_API prototype.

Env: MOKKA_SRC (source tree; defaults to the tree this file is in),
MOKKA_NVML_H (NVIDIA's header; default /usr/include/nvml.h), CC."""
import glob
import os
import re
import shutil
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get('MOKKA_SRC') or os.path.dirname(os.path.dirname(HERE))
ABI = os.path.join(SRC, 'lib', 'nvml', 'abi')
CHECK = os.path.join(SRC, 'tests', 'abi', 'check_abi.py')
NVML_H = os.environ.get('MOKKA_NVML_H', '/usr/include/nvml.h')
SKIP = 77


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, **kw)


def export_names():
    out = []
    with open(os.path.join(SRC, 'lib', 'nvml', 'exports.list')) as f:
        for line in f:
            line = line.split('#', 1)[0].strip()
            if line:
                out.append(line)
    return out


class AbiTest(unittest.TestCase):

    def test_matches_nvidia_header(self):
        if not os.path.isfile(NVML_H):
            self.skipTest("NVIDIA's nvml.h not found (install libnvidia-ml-dev)")
        if not shutil.which('clang'):
            self.skipTest('clang not found')
        p = run([sys.executable, CHECK, '--nvml-h', NVML_H])
        if p.returncode == SKIP:
            self.skipTest(p.stdout.strip())
        print(p.stdout.rstrip().splitlines()[-1] if p.stdout.strip() else '', file=sys.stderr)
        self.assertEqual(p.returncode, 0, '\n' + p.stdout)

    def test_headers_compile_alone(self):
        cc = os.environ.get('CC') or 'cc'
        if not shutil.which(cc):
            self.skipTest('%s not found' % cc)
        bad = []
        for h in sorted(glob.glob(os.path.join(ABI, '*.h'))):
            p = run([cc, '-std=c11', '-Wall', '-Wextra', '-Werror', '-Wstrict-prototypes',
                     '-fsyntax-only', '-x', 'c', '-'], input='#include "%s"\n' % h)
            if p.returncode != 0:
                bad.append('%s:\n%s' % (os.path.basename(h), p.stdout))
        self.assertEqual(bad, [], '\n'.join(bad))

    def test_one_line_prototype_per_export(self):
        protos = {}
        broken = []
        for h in sorted(glob.glob(os.path.join(ABI, '*.h'))):
            with open(h) as f:
                for n, line in enumerate(f, 1):
                    if not line.startswith('MK_API '):
                        continue
                    m = re.match(r'MK_API [^(]*[ *](\w+)\(.*\);\s*$', line)
                    if not m:
                        broken.append('%s:%d: %s' % (os.path.basename(h), n, line.strip()))
                        continue
                    protos.setdefault(m.group(1), []).append('%s:%d' % (os.path.basename(h), n))
        self.assertEqual(broken, [], 'MK_API lines that are not one whole prototype')
        twice = {k: v for k, v in protos.items() if len(v) > 1}
        self.assertEqual(twice, {}, 'declared more than once')
        missing = [n for n in export_names() if n not in protos]
        self.assertEqual(missing, [], 'exported without a prototype in lib/nvml/abi')
        unlisted = sorted(set(protos) - set(export_names()))
        self.assertEqual(unlisted, [], 'prototypes not in lib/nvml/exports.list')


if __name__ == '__main__':
    unittest.main()
