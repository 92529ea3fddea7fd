"""test_gen_profiles.py - the build tool that carries the GPU profiles into
the library parsed (lib/core/gen_profiles.c): what it prints compiles, and
unpacks to the tree the YAML loader makes of the file, texts that C string
literals must escape included; a profile that does not parse stops the build
with its file:line:col.

Env: MOKKA_BUILD (build tree with build/tools/gen_profiles and
build/libmokkacore.a), MOKKA_SRC, MOKKA_SAN, CC."""
import os
import shutil
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get('MOKKA_SRC') or os.path.dirname(os.path.dirname(HERE))
BUILD = os.environ.get('MOKKA_BUILD') or SRC
GEN = os.path.join(BUILD, 'build', 'tools', 'gen_profiles')
CORE = os.path.join(BUILD, 'build', 'libmokkacore.a')
SAN_FLAGS = {'asan': ['-fsanitize=address,undefined'], 'tsan': ['-fsanitize=thread']}

# Loads each built-in profile both ways and prints the two trees, a node a
# line: a difference is then a difference of lines.
PROBE = r'''
#include <stdio.h>
#include "profiles.h"

static void dump(const char *tag, const mk_ynode *y, int depth)
{
    printf("%s %*s%d:%d kind=%d quoted=%d n=%zu", tag, depth * 2, "", y->line, y->col,
           (int)y->kind, y->kind == MK_Y_SCALAR && y->quoted, y->n);
    if (y->kind == MK_Y_SCALAR)
        printf(" [%s]", y->str);
    putchar('\n');
    for (size_t i = 0; y->kind != MK_Y_SCALAR && i < y->n; i++) {
        if (y->kind == MK_Y_MAP)
            dump(tag, y->keys[i], depth + 1);
        dump(tag, y->vals[i], depth + 1);
    }
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const mk_profile *p = &mk_profiles[i - 1];
        mk_diags d;
        mk_diags_init(&d);
        mk_ydoc *file = mk_yload_file(argv[i], &d), *packed = mk_yunpack(p->name, &p->tree, &d);
        printf("profile %s gpu=[%s]\n", p->name, p->gpu ? p->gpu : "(none)");
        if (file->root)
            dump("file", file->root, 0);
        if (packed->root)
            dump("packed", packed->root, 0);
        mk_yfree(file);
        mk_yfree(packed);
        mk_diags_free(&d);
    }
    return 0;
}
'''

TRICKY = '''name: "NVIDIA \\"Q\\" ??= back\\\\slash"
plain: a\tb
utf8: Grüße – 東京
digits: x
after: "123"
empty: ""
nul: "a\\0b"
list: [1, "two", {three: 3}]
nested:
  - {a: 1}
  - - deep
'''


@unittest.skipUnless(os.path.exists(GEN), 'build/tools/gen_profiles is not built (make testbins)')
class GenProfilesTest(unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix='mokka-genprof-')
        self.addCleanup(shutil.rmtree, self.dir, True)

    def write(self, name, text):
        path = os.path.join(self.dir, name)
        with open(path, 'w', encoding='utf-8') as f:
            f.write(text)
        return path

    def gen(self, *paths):
        return subprocess.run([GEN] + list(paths), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True)

    def test_round_trip(self):
        cc = os.environ.get('CC') or 'cc'
        if not shutil.which(cc):
            self.skipTest('%s not found' % cc)
        files = [self.write('tricky.yaml', TRICKY), self.write('empty.yaml', '# nothing\n'),
                 os.path.join(SRC, 'fixtures', 'profiles', 'h100-sxm5-80gb.yaml')]
        p = self.gen(*files)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stderr, '')
        gen_c, probe_c = self.write('profiles.c', p.stdout), self.write('probe.c', PROBE)
        exe = os.path.join(self.dir, 'probe')
        c = subprocess.run([cc, '-std=c11', '-Wall', '-Wextra', '-Werror', '-o', exe, probe_c, gen_c,
                            '-I' + os.path.join(SRC, 'lib', 'core'), CORE, '-lyaml']
                           + SAN_FLAGS.get(os.environ.get('MOKKA_SAN', ''), []),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
        self.assertEqual(c.returncode, 0, c.stdout)
        r = subprocess.run([exe] + files, stdout=subprocess.PIPE, universal_newlines=True, check=True)
        out = r.stdout
        for prof in out.split('profile ')[1:]:
            lines = prof.splitlines()
            file_tree = [l[len('file '):] for l in lines if l.startswith('file ')]
            packed = [l[len('packed '):] for l in lines if l.startswith('packed ')]
            self.assertEqual(packed, file_tree, lines[0])
        self.assertIn('profile tricky gpu=[NVIDIA "Q" ??= back\\slash]', out)
        self.assertIn('[Grüße – 東京]', out)
        self.assertIn('file   5:8 kind=0 quoted=1 n=0 [123]', out)
        self.assertIn('profile empty gpu=[(none)]', out)
        self.assertIn('profile h100-sxm5-80gb gpu=[NVIDIA H100 80GB HBM3]', out)

    def test_syntax_error_stops_the_build(self):
        bad = self.write('bad.yaml', 'name: x\nclocks: {graphics: 1\n')
        p = self.gen(bad)
        self.assertEqual(p.returncode, 1)
        self.assertRegex(p.stderr, r'^%s:3:1: error: YAML syntax error' % bad)

    def test_duplicate_key_stops_the_build(self):
        bad = self.write('dup.yaml', 'name: x\nsmCount: 1\nsmCount: 2\n')
        p = self.gen(bad)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stderr, "%s:3:1: error: duplicate key 'smCount' (first at line 2)\n" % bad)


if __name__ == '__main__':
    unittest.main()
