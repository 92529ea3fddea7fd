"""test_manpage.py - src/mokka.1: `mandoc -Tlint` has nothing to say, `man -l`
renders it, and it covers every subcommand of the dispatch table, the long
options their --help texts name, the environment and the exit codes."""
import os
import re
import shutil
import subprocess
import unittest

from mokka_probe import SRC, CliTest, mokka

PAGE = os.path.join(SRC, 'src', 'mokka.1')


def dispatch_commands():
    with open(os.path.join(SRC, 'src', 'commands.c')) as f:
        return re.findall(r'CMD\("([a-z-]+)"', f.read())


def source():
    with open(PAGE) as f:
        return f.read()


class ManPageTest(unittest.TestCase):

    def test_mandoc_lint(self):
        if not shutil.which('mandoc'):
            self.skipTest('mandoc not installed')
        p = subprocess.run(['mandoc', '-Tlint', PAGE], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True)
        self.assertEqual((p.returncode, p.stdout), (0, ''))

    def test_man_renders(self):
        if not shutil.which('man'):
            self.skipTest('man not installed')
        p = subprocess.run(['man', '-l', PAGE], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, env=dict(os.environ, MANPAGER='cat',
                                                             PAGER='cat', MANWIDTH='80'))
        self.assertEqual(p.returncode, 0, p.stderr)
        text = re.sub(r'.\x08', '', p.stdout)  # overstrike bold/underline
        for heading in ('NAME', 'SYNOPSIS', 'DESCRIPTION', 'COMMANDS', 'CONFIGURATION', 'SUITES',
                        'ENVIRONMENT', 'FILES', 'EXIT STATUS', 'EXAMPLES'):
            self.assertRegex(text, r'(?m)^%s$' % heading)
        self.assertIn('mokka inject --gpu 3 --xid 79', text)

    def test_every_command(self):
        page = source()
        for cmd in dispatch_commands():
            roff = cmd.replace('-', '\\-')  # lib-path is written lib\-path
            self.assertRegex(page, r'(?m)^\.It Cm ' + re.escape(roff) + r'\b', cmd)

    def test_environment(self):
        page = source()
        for var in ('MOCK_CONFIG_PATH', 'MOKKA_CONFIG', 'MOKKA_STATE_DIR', 'MOKKA_NODE_NAME',
                    'MOKKA_RUNTIME_DIR', 'NO_COLOR', 'KUBECONFIG'):
            self.assertIn('.It Ev %s\n' % var, page)

    def test_exit_codes(self):
        self.assertRegex(source(), r'\.Sh EXIT STATUS\n(.*\n)*\.It 0\n(.*\n)*\.It 1\n(.*\n)*'
                                   r'\.It 2\n(.*\n)*\.It 3\n')


class ManPageOptionsTest(CliTest):

    def test_every_long_option(self):
        page = source().replace('\\-', '-')
        for cmd in dispatch_commands():
            text = mokka(cmd, '--help').stdout
            for opt in set(re.findall(r'^\s+(?:-\w, )?--([a-z][a-z-]*)', text, re.M)):
                if opt in ('help', 'quiet', 'color'):
                    continue
                self.assertIn('Fl -%s' % opt, page, '%s --%s' % (cmd, opt))


if __name__ == '__main__':
    unittest.main()
