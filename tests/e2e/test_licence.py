"""test_licence.py - Mokka is licensed under Apache-2.0, and every place a
user or a packager looks says so: LICENSE (the full text), the Debian
package's copyright file (DEP-5, pointing at Debian's copy of the text), the
README, and the release archive's file list (ci/dist.sh).

Env: MOKKA_SRC."""
import os
import re
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get('MOKKA_SRC') or os.path.dirname(os.path.dirname(HERE))
DEBIAN_COPY = '/usr/share/common-licenses/Apache-2.0'


def read(rel):
    with open(os.path.join(SRC, rel)) as f:
        return f.read()


class Licence(unittest.TestCase):
    def test_licence_file_is_apache_2(self):
        text = read('LICENSE')
        self.assertIn('Apache License\n', text)
        self.assertIn('Version 2.0, January 2004', text)
        self.assertIn('END OF TERMS AND CONDITIONS', text)
        if os.path.exists(DEBIAN_COPY):
            with open(DEBIAN_COPY) as f:
                self.assertEqual(text, f.read())

    def test_debian_copyright_is_dep5_apache_2(self):
        paras = [p for p in re.split(r'\n\s*\n', read('ci/debian/copyright').strip())]
        fields = [dict(re.findall(r'^([A-Za-z-]+):[ \t]*(.*)$', p, re.M)) for p in paras]
        self.assertTrue(fields[0]['Format'].endswith('/copyright-format/1.0/'))
        files = [f for f in fields if 'Files' in f]
        self.assertEqual([f['Files'] for f in files], ['*'])
        self.assertEqual(files[0]['License'], 'Apache-2.0')
        standalone = [p for p, f in zip(paras, fields) if list(f) == ['License']]
        self.assertEqual(len(standalone), 1)
        self.assertTrue(standalone[0].startswith('License: Apache-2.0\n'))
        self.assertIn(DEBIAN_COPY, standalone[0])
        self.assertNotIn('none-chosen', read('ci/debian/copyright'))

    def test_readme_says_so(self):
        readme = read('README.md')
        self.assertIn('\n## License\n', readme)
        self.assertIn('Apache License, Version 2.0', readme)

    def test_release_archive_carries_it(self):
        self.assertRegex(read('ci/dist.sh'), r'install -m 644 [^\n]*\bLICENSE\b')
        self.assertRegex(read('tests/ship/smoke.sh'), r'for f in [^\n]*\bLICENSE\b')


if __name__ == '__main__':
    unittest.main()
