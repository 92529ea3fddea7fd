"""test_layout.py - the source tree keeps the shape the README draws.

src/ is mokka.c (dispatch), commands.c (the command table), cmd/ (one file
per subcommand) and one folder per engine. Each engine folder has one face
header, FOLDER/FOLDER.h; code outside the folder includes only that face
(a folder's own unit tests, tests/unit/FOLDER/, and fuzz targets,
tests/fuzz/FOLDER/, may reach its internals).
Dependencies run one way: cmd/ -> engines -> util/ and lib/core, with no
circle between folders, nor between the files of a folder, nor in lib/nvml.
Includes are read from the sources; calls from the built objects (nm), so a
circle made by a declaration copied into a .c file is caught too.

Env: MOKKA_SRC, MOKKA_BUILD (a build tree with build/src/**/*.o)."""
import collections
import glob
import os
import re
import subprocess
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get('MOKKA_SRC') or os.path.dirname(os.path.dirname(HERE))
BUILD = os.environ.get('MOKKA_BUILD') or SRC
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
TOP = {'mokka.c', 'commands.c', 'commands.h', 'mokka.1'}


def rel(path):
    return os.path.relpath(path, SRC)


def engines():
    src = os.path.join(SRC, 'src')
    return sorted(d for d in os.listdir(src)
                  if os.path.isdir(os.path.join(src, d)) and d != 'cmd')


def sources(*patterns):
    out = []
    for p in patterns:
        out += glob.glob(os.path.join(SRC, p), recursive=True)
    return sorted(f for f in out if f.endswith(('.c', '.h')))


def includes(path):
    with open(path, encoding='utf-8') as f:
        return INCLUDE.findall(f.read())


def folder_of(path):
    """The src/ folder a file belongs to: an engine, 'cmd', or '' (top)."""
    parts = rel(path).split(os.sep)
    return parts[1] if parts[0] == 'src' and len(parts) > 2 else ''


def cycles(graph):
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def include_graph():
    """folder -> folders whose face it includes. The command table
    (commands.c, 'top') names every command: a registry, not a dependency."""
    g = collections.defaultdict(set)
    names = set(engines()) | {'cmd'}
    for f in sources('src/**/*'):
        me = folder_of(f) or 'top'
        for inc in includes(f):
            head = inc.split('/')[0]
            if '/' in inc and head in names and head != me and (me, head) != ('top', 'cmd'):
                g[me].add(head)
            elif inc == 'commands.h' and me != 'top':
                g[me].add('top')
    return g


class FacesTest(unittest.TestCase):

    def test_top_level_holds_only_the_dispatch(self):
        top = [f for f in os.listdir(os.path.join(SRC, 'src'))
               if os.path.isfile(os.path.join(SRC, 'src', f))]
        self.assertEqual(sorted(set(top) - TOP), [],
                         'src/ keeps only the dispatch at its top; engines have folders')

    def test_every_engine_has_its_face(self):
        for d in engines():
            with self.subTest(folder=d):
                self.assertTrue(os.path.exists(os.path.join(SRC, 'src', d, d + '.h')),
                                'src/%s has no face header %s.h' % (d, d))

    def test_outside_a_folder_only_its_face_is_included(self):
        names = set(engines())
        bad = []
        for f in sources('src/**/*', 'tests/**/*'):
            parts = rel(f).split(os.sep)
            own = folder_of(f) or (parts[2] if parts[:2] in (['tests', 'unit'], ['tests', 'fuzz'])
                                   else None)
            for inc in includes(f):
                head, _, rest = inc.partition('/')
                if head in names and rest and rest != head + '.h' and head != own:
                    bad.append('%s includes %s' % (rel(f), inc))
                if inc.startswith('../'):
                    target = os.path.normpath(os.path.join(os.path.dirname(f), inc))
                    if rel(target).startswith('src' + os.sep):
                        bad.append('%s reaches into %s' % (rel(f), inc))
        self.assertEqual(bad, [])

    def test_a_bare_include_in_an_engine_stays_in_its_folder(self):
        # A quoted name without a folder is found beside the file first: it
        # must be there (or be lib/, generated, or NVML's ABI), never the
        # top level's command table.
        lib = set(os.listdir(os.path.join(SRC, 'lib', 'core'))) | \
            set(os.listdir(os.path.join(SRC, 'lib', 'nvml')))
        bad = []
        for f in sources(*('src/%s/**/*' % d for d in engines())):
            here = set(os.listdir(os.path.dirname(f)))
            for inc in includes(f):
                if '/' in inc:
                    continue
                if inc not in here and inc not in lib and not inc.endswith(('.pb-c.h', 'fntable.h')):
                    bad.append('%s includes %s' % (rel(f), inc))
        self.assertEqual(bad, [])


class DirectionTest(unittest.TestCase):

    def test_util_depends_on_no_other_folder(self):
        self.assertEqual(sorted(include_graph().get('util', ())), [])

    def test_engines_never_include_commands(self):
        g = include_graph()
        bad = {d: sorted(g[d] & {'cmd', 'top'}) for d in engines() if g[d] & {'cmd', 'top'}}
        self.assertEqual(bad, {})

    def test_no_circle_between_folders_by_include(self):
        self.assertEqual(cycles(include_graph()), [])


def object_graph():
    """object -> objects it calls into, from the symbols nm reports. The
    command table is a registry: its pointers to every command are not
    dependencies (help and version read the table, and are read by it)."""
    objs = sorted(glob.glob(os.path.join(BUILD, 'build', 'src', '**', '*.o'), recursive=True) +
                  glob.glob(os.path.join(BUILD, 'build', 'lib', 'nvml', '*.o')))
    srcroot = os.path.join(BUILD, 'build')
    objs = [o for o in objs if os.path.exists(os.path.join(SRC, os.path.relpath(o, srcroot)[:-2] + '.c'))]
    defined, undefined = {}, {}
    for o in objs:
        name = os.path.relpath(o, srcroot)[:-2] + '.c'
        out = subprocess.run(['nm', '-g', o], capture_output=True, text=True).stdout
        undefined[name] = set()
        for line in out.splitlines():
            p = line.split()
            if len(p) == 3 and p[1] not in 'Uwv':
                defined.setdefault(p[2], name)
            elif len(p) == 2 and p[0] == 'U':
                undefined[name].add(p[1])
    g = {}
    for name, syms in undefined.items():
        g[name] = {defined[s] for s in syms if s in defined and defined[s] != name}
    g['src/commands.c'] = {t for t in g.get('src/commands.c', ()) if not t.startswith('src/cmd/')}
    return g


class CallsTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.g = object_graph()
        if not any(k.startswith('src/') for k in cls.g):
            raise unittest.SkipTest('no objects under %s/build/src (build first)' % BUILD)

    def test_no_circle_between_files(self):
        self.assertEqual(cycles(self.g), [])

    def test_no_circle_between_folders_by_call(self):
        folders = collections.defaultdict(set)
        for a, targets in self.g.items():
            fa = a.split('/')[1] if a.startswith('src/') and a.count('/') > 1 else a
            for b in targets:
                fb = b.split('/')[1] if b.startswith('src/') and b.count('/') > 1 else b
                if fa != fb:
                    folders[fa].add(fb)
        self.assertEqual(cycles(folders), [])

    def test_nvml_shared_state_does_not_call_back_into_init(self):
        callers = sorted(a for a, t in self.g.items()
                         if 'lib/nvml/nvml_init.c' in t)
        self.assertEqual(callers, [], 'nvml_init.c holds entry points only')

    def test_engines_call_no_command(self):
        bad = sorted('%s -> %s' % (a, b) for a, t in self.g.items() for b in t
                     if a.startswith('src/') and a.count('/') > 1 and not a.startswith('src/cmd/')
                     and (b.startswith('src/cmd/') or b.count('/') == 1))
        self.assertEqual(bad, [])


if __name__ == '__main__':
    unittest.main()
