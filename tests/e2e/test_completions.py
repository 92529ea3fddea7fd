"""test_completions.py - completions/mokka.bash, _mokka (zsh) and mokka.fish
loaded in their own shells: subcommands (exactly the dispatch table's),
each subcommand's options (every long option its --help names), value
choices, *.yaml files, directories for --state-dir, PIDs for --pid and
metric names for inject --set/--unset.

bash: the file is sourced after bash-completion, COMP_WORDS/COMP_CWORD are
set and _mokka is called; COMPREPLY is the answer. zsh: an interactive zsh
in a zpty types the line and TAB with compadd wrapped to print every match
it adds. fish: complete -C."""
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from mokka_probe import SRC, CliTest, mokka

COMPLETIONS = os.path.join(SRC, 'completions')
BASH_COMPLETION = '/usr/share/bash-completion/bash_completion'

ZSH_CAPTURE = r'''
# capture.zsh DIR LINE...: for each LINE, what zsh completes after it (TAB),
# as <M>match</M> items and a <DONE> line; DIR goes first in fpath.
zmodload zsh/zpty || exit 77
zpty z zsh -f -i
zpty -w z "PROMPT='' RPROMPT='' fpath=(${(q)1} \$fpath)"
zpty -w z 'autoload -Uz compinit && compinit -u -D'
# No listing of ambiguous matches, so no "do you wish to see all" prompt
# can swallow the keys that follow.
zpty -w z 'unsetopt auto_list list_beep; LISTMAX=100000'
zpty -w z 'compadd() {
  if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return; fi
  local -a hits; builtin compadd -A hits "$@"
  local h; for h in $hits; do print -r -- "<M>$h</M>"; done
  builtin compadd "$@"
}'
zpty -w z '_done() { print -r -- "<DONE>"; BUFFER= }; zle -N _done; bindkey "^X" _done'
# The marker is spelt in two pieces so that the terminal's echo of this very
# line cannot be mistaken for it (and the echoes of the lines above, which
# contain <M>, arrive before it).
zpty -w z 'bindkey "^I" complete-word; print -r -- "<READ""Y>"'
local out line
while zpty -r z out; do [[ $out == *'<READY>'* ]] && break; done
for line in "${@[2,-1]}"; do
  zpty -n -w z "$line"$'\t\C-x'
  while zpty -r z out; do
    print -rn -- "$out"
    [[ $out == *'<DONE>'* ]] && break
  done
done
zpty -d z
'''


def dispatch_commands():
    with open(os.path.join(SRC, 'src', 'commands.c')) as f:
        return re.findall(r'CMD\("([a-z-]+)"', f.read())


def long_options(cmd):
    """The long options `mokka CMD --help` documents (none for a command
    that is still a placeholder in this build)."""
    text = mokka(cmd, '--help').stdout
    opts = set(re.findall(r'^\s+(?:-\w, )?(--[a-z][a-z-]*)', text, re.M))
    return opts - {'--colour'}


class Fixture:
    """A directory with configs, a subdirectory and a non-YAML file."""

    def __init__(self, test):
        self.dir = tempfile.mkdtemp(prefix='mokka-compl-')
        test.addCleanup(shutil.rmtree, self.dir, True)
        os.mkdir(os.path.join(self.dir, 'statedir'))
        for name in ('gpus.yaml', 'suite.yml', 'notes.txt'):
            open(os.path.join(self.dir, name), 'w').close()


class BashTest(CliTest):

    def setUp(self):
        super().setUp()
        if not shutil.which('bash') or not os.path.exists(BASH_COMPLETION):
            self.skipTest('bash with bash-completion not installed')
        self.fx = Fixture(self)

    def complete(self, line):
        words = line.split(' ')
        script = '''
source %s
source %s
compopt() { :; }   # only valid inside a real completion
COMP_WORDS=(%s)
COMP_CWORD=%d
COMP_LINE=%s
COMP_POINT=${#COMP_LINE}
_mokka mokka "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%%s\\n' "${COMPREPLY[@]}"
''' % (BASH_COMPLETION, os.path.join(COMPLETIONS, 'mokka.bash'),
            ' '.join("'%s'" % w for w in words), len(words) - 1, "'%s'" % line)
        p = subprocess.run(['bash', '--norc', '--noprofile', '-c', script], cwd=self.fx.dir,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, timeout=30)
        self.assertEqual(p.stderr, '', line)
        return [w for w in p.stdout.splitlines() if w]

    def test_subcommands(self):
        self.assertEqual(self.complete('mokka '), dispatch_commands())
        self.assertEqual(self.complete('mokka st'), ['stats'])
        self.assertEqual(self.complete('mokka --quiet li'), ['lint', 'lib-path'])

    def test_options(self):
        for cmd in dispatch_commands():
            got = {o.rstrip('=') for o in self.complete('mokka %s --' % cmd)}
            self.assertLessEqual(long_options(cmd), got, cmd)

    def test_values(self):
        self.assertEqual(self.complete('mokka render --format '), ['yaml', 'json'])
        self.assertEqual(self.complete('mokka inject --ecc '), ['single', 'double'])
        self.assertEqual(self.complete('mokka inject --set te'), ['temperature='])
        self.assertEqual(self.complete('mokka inject --set=util'),
                         ['utilization.gpu=', 'utilization.memory=', 'utilization.encoder=',
                          'utilization.decoder='])
        self.assertEqual(self.complete('mokka inject --unset memory'),
                         ['memoryTemperature', 'memoryUsed'])

    def test_files(self):
        self.assertEqual(sorted(self.complete('mokka lint ')), ['gpus.yaml', 'statedir', 'suite.yml'])
        self.assertEqual(sorted(self.complete('mokka render --config ')),
                         ['gpus.yaml', 'statedir', 'suite.yml'])
        self.assertEqual(self.complete('mokka stats --state-dir '), ['statedir'])
        self.assertIn(str(os.getpid()), self.complete('mokka stats --pid '))
        self.assertIn('bash', self.complete('mokka exec -- bas'))
        self.assertIn('bash', self.complete('mokka exec -c gpus.yaml bas'))
        self.assertIn('bash', self.complete('mokka run -c gpus.yaml -- bas'))


class ZshTest(CliTest):

    def setUp(self):
        super().setUp()
        if not shutil.which('zsh'):
            self.skipTest('zsh not installed')
        self.fx = Fixture(self)
        self.driver = os.path.join(self.fx.dir, 'capture.zsh')
        with open(self.driver, 'w') as f:
            f.write(ZSH_CAPTURE)

    def complete_all(self, lines):
        """The matches for each line, from one zsh session."""
        p = subprocess.run(['zsh', '-f', self.driver, COMPLETIONS] + lines, cwd=self.fx.dir,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
        if p.returncode == 77:
            self.skipTest('zsh without the zpty module')
        raw = p.stdout.decode(errors='replace')
        out = raw.split('<DONE>')
        self.assertEqual(len(out), len(lines) + 1, 'zsh output:\n%s\nstderr:\n%s' % (raw, p.stderr))
        # zsh may add a match twice (e.g. _path_files' passes): keep the first.
        return [list(dict.fromkeys(re.findall(r'<M>(.*?)</M>', o))) for o in out[:-1]]

    def complete(self, line):
        return self.complete_all([line])[0]

    def test_subcommands(self):
        self.assertEqual(self.complete('mokka '), dispatch_commands())
        self.assertEqual(self.complete('mokka met'), ['metrics'])

    def test_options(self):
        cmds = dispatch_commands()
        got = self.complete_all(['mokka %s --' % cmd for cmd in cmds])
        for cmd, opts in zip(cmds, got):
            self.assertLessEqual(long_options(cmd), set(opts), cmd)

    def test_values(self):
        self.assertEqual(self.complete('mokka render --format '), ['yaml', 'json'])
        self.assertEqual(self.complete('mokka inject --ecc '), ['single', 'double'])
        self.assertEqual(self.complete('mokka inject --set te'), ['temperature'])
        self.assertEqual(self.complete('mokka inject --unset memory'),
                         ['memoryTemperature', 'memoryUsed'])

    def test_files(self):
        self.assertEqual(sorted(self.complete('mokka lint ')), ['gpus.yaml', 'statedir', 'suite.yml'])
        self.assertEqual(self.complete('mokka stats --state-dir '), ['statedir'])
        self.assertIn('zsh', self.complete('mokka exec zs'))
        self.assertIn('zsh', self.complete('mokka run -- zs'))


class FishTest(CliTest):

    def setUp(self):
        super().setUp()
        if not shutil.which('fish'):
            self.skipTest('fish not installed')
        self.fx = Fixture(self)

    def complete(self, line):
        p = subprocess.run(['fish', '--no-config', '-c',
                            'source %s; complete -C %s' % (os.path.join(COMPLETIONS, 'mokka.fish'),
                                                           "'%s'" % line)],
                           cwd=self.fx.dir, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, timeout=30)
        self.assertEqual(p.stderr, '', line)
        return [l.split('\t')[0] for l in p.stdout.splitlines()]

    def test_subcommands(self):
        self.assertEqual(sorted(self.complete('mokka ')), sorted(dispatch_commands()))
        self.assertEqual(self.complete('mokka sm'), ['smi'])

    def test_options(self):
        for cmd in dispatch_commands():
            got = set(self.complete('mokka %s --' % cmd))
            self.assertLessEqual(long_options(cmd), got, cmd)

    def test_values(self):
        self.assertEqual(self.complete('mokka render --format '), ['json', 'yaml'])
        self.assertEqual(self.complete('mokka inject --ecc '), ['double', 'single'])
        self.assertEqual(self.complete('mokka inject --set te'), ['temperature='])
        self.assertEqual(self.complete('mokka inject --unset memory'),
                         ['memoryTemperature', 'memoryUsed'])

    def test_files(self):
        self.assertEqual(sorted(self.complete('mokka lint ')), ['gpus.yaml', 'statedir/', 'suite.yml'])
        self.assertEqual(self.complete('mokka stats --state-dir '), ['statedir/'])
        self.assertIn(str(os.getpid()), self.complete('mokka stats --pid '))
        self.assertIn('fish', self.complete('mokka exec -c gpus.yaml fis'))
        self.assertIn('fish', self.complete('mokka run -- fis'))


if __name__ == '__main__':
    unittest.main()
