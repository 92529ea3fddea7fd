"""test_exports.py - what the built libnvidia-ml.so.1 exports: its SONAME,
every name in tests/abi/required_symbols.txt, every nvml* name the real
driver library exports (when one is installed), nothing that is not NVML,
and exactly lib/nvml/exports.list; plus the shape of the name lists.

Env: MOKKA_BUILD (directory holding lib/libnvidia-ml.so.1), MOKKA_SRC
(source tree); both default to the tree this file is in."""
import os
import struct
import subprocess
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get('MOKKA_SRC') or os.path.dirname(os.path.dirname(HERE))
BUILD = os.environ.get('MOKKA_BUILD') or SRC
LIB = os.path.join(BUILD, 'lib', 'libnvidia-ml.so.1')
REAL_DIRS = ('/usr/lib/x86_64-linux-gnu/nvidia/current', '/usr/lib/aarch64-linux-gnu/nvidia/current')
TOOLCHAIN = {'_init', '_fini'}


class Elf:
    """The dynamic symbols and SONAME of an ELF shared object (64-bit or
    32-bit, either byte order), read with nothing but struct."""

    def __init__(self, path):
        with open(path, 'rb') as f:
            self.data = f.read()
        d = self.data
        if d[:4] != b'\x7fELF':
            raise ValueError('%s: not an ELF file' % path)
        self.is64 = d[4] == 2
        self.end = '<' if d[5] == 1 else '>'
        if self.is64:
            shoff, = self.unpack('Q', 0x28)
            shentsize, shnum = self.unpack('HH', 0x3A)
        else:
            shoff, = self.unpack('I', 0x20)
            shentsize, shnum = self.unpack('HH', 0x2E)
        self.sections = []
        for i in range(shnum):
            o = shoff + i * shentsize
            if self.is64:
                _, stype, _, _, off, size, link, _, _, entsize = self.unpack('IIQQQQIIQQ', o)
            else:
                _, stype, _, _, off, size, link, _, _, entsize = self.unpack('IIIIIIIIII', o)
            self.sections.append((stype, off, size, link, entsize))

    def unpack(self, fmt, off):
        fmt = self.end + fmt
        return struct.unpack_from(fmt, self.data, off)

    def cstr(self, off):
        return self.data[off:self.data.index(b'\0', off)].decode()

    def symbols(self):
        """(name, defined, binding, visibility) of every .dynsym entry."""
        out = []
        for stype, off, size, link, entsize in self.sections:
            if stype != 11:                      # SHT_DYNSYM
                continue
            stroff = self.sections[link][1]
            for i in range(1, size // entsize):
                o = off + i * entsize
                if self.is64:
                    name, info, other, shndx, _, _ = self.unpack('IBBHQQ', o)
                else:
                    name, _, _, info, other, shndx = self.unpack('IIIBBH', o)
                out.append((self.cstr(stroff + name), shndx != 0, info >> 4, other & 3))
        return out

    def exported(self):
        """Names other objects can bind to: defined, global or weak, default
        or protected visibility."""
        return {n for n, defined, bind, vis in self.symbols()
                if n and defined and bind in (1, 2) and vis in (0, 3)}

    def soname(self):
        for stype, off, size, link, entsize in self.sections:
            if stype != 6:                       # SHT_DYNAMIC
                continue
            stroff = self.sections[link][1]
            fmt, step = ('qQ', 16) if self.is64 else ('iI', 8)
            for o in range(off, off + size, step):
                tag, val = self.unpack(fmt, o)
                if tag == 0:
                    break
                if tag == 14:                    # DT_SONAME
                    return self.cstr(stroff + val)
        return None


def names(path):
    """The names in a list file: '#' starts a comment, blank lines ignored."""
    out = []
    with open(path) as f:
        for line in f:
            line = line.split('#', 1)[0].strip()
            if line:
                out.append(line)
    return out


def real_library():
    """NVIDIA's libnvidia-ml.so.1 if one is installed (not ours)."""
    cands = []
    try:
        out = subprocess.run(['ldconfig', '-p'], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, universal_newlines=True).stdout
        for line in out.splitlines():
            if line.strip().startswith('libnvidia-ml.so.1 ') and '=>' in line:
                cands.append(line.split('=>', 1)[1].strip())
    except OSError:
        pass
    cands += [os.path.join(d, 'libnvidia-ml.so.1') for d in REAL_DIRS]
    try:
        out = subprocess.run(['dpkg', '-L', 'libnvidia-ml1'], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, universal_newlines=True).stdout
        cands += [l for l in out.splitlines() if l.endswith('/libnvidia-ml.so.1')]
    except OSError:
        pass
    ours = os.path.realpath(LIB)
    for c in cands:
        if os.path.isfile(c) and os.path.realpath(c) != ours:
            return c
    return None


class ListsTest(unittest.TestCase):
    """The name lists in the source tree."""

    def check_list(self, path):
        got = names(path)
        dups = sorted({n for n in got if got.count(n) > 1})
        self.assertEqual(dups, [], '%s: duplicate names' % path)
        self.assertEqual(got, sorted(got), '%s: not sorted (LC_ALL=C)' % path)
        return got

    def test_exports_list_sorted_unique(self):
        self.check_list(os.path.join(SRC, 'lib', 'nvml', 'exports.list'))

    def test_stubs_list_sorted_unique_subset(self):
        exports = set(self.check_list(os.path.join(SRC, 'lib', 'nvml', 'exports.list')))
        stubs = self.check_list(os.path.join(SRC, 'lib', 'nvml', 'stubs.list'))
        extra = [n for n in stubs if n not in exports]
        self.assertEqual(extra, [], 'in stubs.list but not in exports.list')

    def test_required_symbols_sorted_unique_in_exports(self):
        exports = set(names(os.path.join(SRC, 'lib', 'nvml', 'exports.list')))
        req = self.check_list(os.path.join(SRC, 'tests', 'abi', 'required_symbols.txt'))
        missing = [n for n in req if n not in exports]
        self.assertEqual(missing, [], 'required but not in exports.list:\n  ' + '\n  '.join(missing))


class LibraryTest(unittest.TestCase):
    """The built library."""

    @classmethod
    def setUpClass(cls):
        if not os.path.isfile(LIB):
            raise AssertionError('%s not built (make lib)' % LIB)
        cls.elf = Elf(LIB)
        cls.exported = cls.elf.exported()

    def test_soname(self):
        self.assertEqual(self.elf.soname(), 'libnvidia-ml.so.1')

    def test_exports_required_symbols(self):
        req = names(os.path.join(SRC, 'tests', 'abi', 'required_symbols.txt'))
        missing = [n for n in req if n not in self.exported]
        self.assertEqual(missing, [], '%d required names not exported:\n  %s'
                         % (len(missing), '\n  '.join(missing)))

    def test_exports_what_the_real_library_exports(self):
        real = real_library()
        if real is None:
            self.skipTest("NVIDIA's libnvidia-ml.so.1 not installed")
        theirs = {n for n in Elf(real).exported() if n.startswith('nvml')}
        missing = sorted(theirs - self.exported)
        self.assertEqual(missing, [], '%d names %s exports that ours does not:\n  %s'
                         % (len(missing), real, '\n  '.join(missing)))

    def test_exports_only_nvml_names(self):
        other = sorted(n for n in self.exported if not n.startswith('nvml') and n not in TOOLCHAIN)
        self.assertEqual(other, [], 'non-NVML symbols exported:\n  ' + '\n  '.join(other))

    def test_exports_exactly_exports_list(self):
        listed = set(names(os.path.join(SRC, 'lib', 'nvml', 'exports.list')))
        ours = self.exported - TOOLCHAIN
        self.assertEqual(sorted(listed - ours), [], 'listed in exports.list but not exported')
        self.assertEqual(sorted(ours - listed), [], 'exported but not in exports.list')


if __name__ == '__main__':
    unittest.main()
