"""test_ci_apt_archive.py - ci/apt-archive.sh finds the Debian archive the
machine's apt sources already use (a mirror, a proxy), which ci/deps.sh then
uses for contrib and non-free instead of a host of its own.

Each test writes fake apt sources under a temporary root (--root) and reads
what the script prints; the machine's own apt configuration is never read
or changed.

Env: MOKKA_SRC."""
import os
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get('MOKKA_SRC') or os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(SRC, 'ci', 'apt-archive.sh')
KEYRING = '/usr/share/keyrings/debian-archive-keyring.gpg'


class AptArchive(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix='mokka-apt-')
        self.root = self.tmp.name
        os.makedirs(os.path.join(self.root, 'etc/apt/sources.list.d'))

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, rel, text):
        with open(os.path.join(self.root, 'etc/apt', rel), 'w') as f:
            f.write(text)

    def archive(self, codename='bookworm'):
        return subprocess.run(['sh', SCRIPT, '--root', self.root, codename],
                              capture_output=True, text=True, timeout=30)

    def fields(self, codename='bookworm'):
        p = self.archive(codename)
        self.assertEqual(p.returncode, 0, p.stderr)
        return dict(line.split(': ', 1) for line in p.stdout.splitlines())

    def test_one_line_sources_list_with_a_mirror(self):
        self.write('sources.list',
                   '# a local mirror\n'
                   'deb http://mirror.example.org/debian bookworm main\n'
                   'deb-src http://src.example.org/debian bookworm main\n'
                   'deb http://mirror.example.org/debian bookworm-updates main\n'
                   'deb http://mirror.example.org/debian-security bookworm-security main\n')
        self.assertEqual(self.fields(), {'URIs': 'http://mirror.example.org/debian',
                                         'Suites': 'bookworm bookworm-updates'})

    def test_one_line_options_keep_signed_by(self):
        self.write('sources.list',
                   'deb [arch=amd64 signed-by=%s] http://mirror.example.org/debian bookworm main\n'
                   'deb [ arch=amd64 ] http://mirror.example.org/debian bookworm-backports main\n'
                   % KEYRING)
        self.assertEqual(self.fields(), {'URIs': 'http://mirror.example.org/debian',
                                         'Suites': 'bookworm bookworm-backports',
                                         'Signed-By': KEYRING})

    def test_deb822_with_a_proxy(self):
        self.write('sources.list.d/debian.sources',
                   'Types: deb\n'
                   'URIs: http://apt-proxy.example:3142/debian\n'
                   'Suites: bookworm bookworm-updates\n'
                   'Components: main\n'
                   'Signed-By: %s\n'
                   '\n'
                   'Types: deb\n'
                   'URIs: http://apt-proxy.example:3142/debian-security\n'
                   'Suites: bookworm-security\n'
                   'Components: main\n'
                   'Signed-By: %s\n' % (KEYRING, KEYRING))
        self.assertEqual(self.fields(), {'URIs': 'http://apt-proxy.example:3142/debian',
                                         'Suites': 'bookworm bookworm-updates',
                                         'Signed-By': KEYRING})

    def test_both_forms_sources_list_first(self):
        self.write('sources.list', 'deb http://mirror.example.org/debian bookworm main\n')
        self.write('sources.list.d/debian.sources',
                   'Types: deb\nURIs: http://apt-proxy.example:3142/debian\n'
                   'Suites: bookworm\nComponents: main\n')
        self.assertEqual(self.fields()['URIs'], 'http://mirror.example.org/debian')

    def test_security_suite_first_is_passed_over(self):
        self.write('sources.list.d/debian.sources',
                   'Types: deb\n'
                   'URIs: http://apt-proxy.example:3142/debian-security\n'
                   'Suites: bookworm-security\n'
                   'Components: main\n'
                   '\n'
                   '# the main archive\n'
                   'Types: deb deb-src\n'
                   'URIs: http://apt-proxy.example:3142/debian\n'
                   'Suites: bookworm bookworm-updates bookworm-security\n'
                   'Components: main\n')
        self.assertEqual(self.fields(), {'URIs': 'http://apt-proxy.example:3142/debian',
                                         'Suites': 'bookworm bookworm-updates'})

    def test_disabled_other_releases_and_our_own_file_are_skipped(self):
        self.write('sources.list.d/a-off.sources',
                   'Enabled: no\nTypes: deb\nURIs: http://off.example/debian\n'
                   'Suites: bookworm\nComponents: main\n')
        self.write('sources.list.d/b-testing.list', 'deb http://other.example/debian trixie main\n')
        self.write('sources.list.d/mokka-nvidia-peers.sources',
                   'Types: deb\nURIs: http://stale.example/debian\nSuites: bookworm\n'
                   'Components: contrib non-free\n')
        self.write('sources.list.d/c-debian.sources',
                   'Types: deb\nURIs: http://mirror.example.org/debian\nSuites: bookworm\n'
                   'Components: main\n')
        self.assertEqual(self.fields()['URIs'], 'http://mirror.example.org/debian')
        self.assertEqual(self.fields('trixie')['URIs'], 'http://other.example/debian')

    def test_inline_key_is_kept_whole(self):
        self.write('sources.list.d/debian.sources',
                   'Types: deb\nURIs: http://mirror.example.org/debian\nSuites: bookworm\n'
                   'Components: main\n'
                   'Signed-By:\n -----BEGIN PGP PUBLIC KEY BLOCK-----\n .\n mQINBF\n'
                   ' -----END PGP PUBLIC KEY BLOCK-----\n')
        p = self.archive()
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(p.stdout.endswith(
            'Signed-By: \n -----BEGIN PGP PUBLIC KEY BLOCK-----\n .\n mQINBF\n'
            ' -----END PGP PUBLIC KEY BLOCK-----\n'), p.stdout)

    def test_no_debian_source_is_a_clear_error(self):
        self.write('sources.list.d/other.list', 'deb https://vendor.example/apt stable main\n')
        self.write('sources.list.d/debian.sources',
                   'Types: deb\nURIs: http://mirror.example.org/debian-security\n'
                   'Suites: bookworm-security\nComponents: main\n')
        p = self.archive()
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stdout, '')
        self.assertIn("no enabled 'deb' source serves Debian 'bookworm'", p.stderr)
        self.assertIn('other.list', p.stderr)

    def test_no_sources_at_all(self):
        p = self.archive()
        self.assertEqual(p.returncode, 1)
        self.assertIn('there are no apt sources under', p.stderr)

    def test_deps_names_no_archive(self):
        """ci/deps.sh writes what apt-archive.sh found, no URI of its own."""
        with open(os.path.join(SRC, 'ci', 'deps.sh')) as f:
            deps = f.read()
        self.assertNotIn('://', deps)
        self.assertIn('apt-archive.sh', deps)


if __name__ == '__main__':
    unittest.main()
