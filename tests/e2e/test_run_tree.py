"""test_run_tree.py - nothing `mokka run` started outlives it, even when it is
killed with SIGKILL: a wrapper-script plugin's real plugin (the wrapper runs
it without exec), an exec step's background and foreground children, a
`setsid` daemon and a double-forked one. PDEATHSIG reaches only mokka's own
children; the tree goes by the keeper of src/util/treeguard.c, through a
cgroup v2 of mokka's own where one is writable, and by the MOKKA_TREE mark
in the environment otherwise (tested by running mokka where the cgroup2
mount is read-only, in a mount namespace of the test's own). SIGTERM still
stops everything in order, and nothing is left when mokka has returned.

Every process of the tree is recorded (pid and start time) before the
signal, and killed at cleanup if a test fails half way. A process counts
as gone when /proc no longer has it or it is a zombie (dead, waiting for
its reaper). Needs the sandbox (root or user namespaces)."""
import os
import signal
import subprocess
import threading
import time

from test_run import FAKE, RUN_LIMIT, Result, RunTest, comm, descendants, proc_stat, script

# The exec step's tree: a `setsid -f` daemon, a double-forked one, a
# background and a foreground sleep; each records its pid in $D.
TREE = '''
suite: tree
cases:
  - name: a tree
    exec:
      command: >-
        setsid -f sh -c 'echo $$ > "$D/setsid.pid"; exec sleep 1000';
        ( sleep 1000 & echo $! > "$D/double.pid" ) &
        sleep 1000 & echo $! > "$D/background.pid";
        echo $$ > "$D/shell.pid";
        sleep 1000
      env: {D: "%s"}
      timeout: 20m
  - name: never reached
    expect: {capacity: 8}
'''

PIDS = ('wrapper', 'plugin', 'setsid', 'double', 'background', 'shell')


def cgroup2_mount():
    """The cgroup2 mount point, or None."""
    with open('/proc/self/mountinfo') as f:
        for line in f:
            if ' - cgroup2 ' in line:
                return line.split()[4]
    return None


def alive(pid, start):
    st = proc_stat(pid)
    return bool(st) and st[2] == start and st[1] != 'Z'


class Tree(RunTest):

    def setUp(self):
        super().setUp()
        self.pids = self.path('pids')
        os.makedirs(self.pids)
        self.tree = {}
        self.addCleanup(self.kill_tree)

    def kill_tree(self):
        """Whatever of the tree is still there (a failed test)."""
        for pid, start in self.tree.items():
            if alive(pid, start):
                os.kill(pid, signal.SIGKILL)

    def wrapper(self):
        """A plugin that is a shell script running the stand-in plugin (not
        exec'ing it): PDEATHSIG kills the script only."""
        return script(self.path('wrapper'), '#!/bin/sh\necho $$ > %s/wrapper.pid\n'
                      '%s "$@" &\necho $! > %s/plugin.pid\nwait\n' % (self.pids, FAKE, self.pids))

    def start_tree(self, prefix=()):
        """Starts mokka run with the wrapper and the tree's suite, waits until
        every process of the tree runs; returns (process, its output lines:
        a list that fills as they come)."""
        argv = list(prefix) + self.argv(['-v'], plugin=self.wrapper(), suite=TREE % self.pids)
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                universal_newlines=True, env=self.env, start_new_session=True)
        self.addCleanup(self.stop_mokka, proc)
        lines = []
        reader = threading.Thread(target=lambda: lines.extend(proc.stdout), daemon=True)
        reader.start()
        self.addCleanup(reader.join, 30)
        deadline = time.monotonic() + RUN_LIMIT
        while True:
            names = [comm(p) for p in descendants(proc.pid)]
            if all(os.path.exists(os.path.join(self.pids, n + '.pid')) for n in PIDS) and \
                    names.count('sleep') >= 4:
                break
            if proc.poll() is not None or time.monotonic() > deadline:
                time.sleep(0.5)
                self.fail('the tree never ran (exit %s):\n%s' % (proc.poll(), ''.join(lines)))
            time.sleep(0.1)
        self.tree = descendants(proc.pid)
        for name in PIDS:
            with open(os.path.join(self.pids, name + '.pid')) as f:
                self.assertIn(int(f.read()), self.tree, '%s runs below mokka' % name)
        return proc, lines

    def stop_mokka(self, proc):
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=60)

    def left(self, deadline_s):
        """The tree's processes still alive once they had deadline_s to go."""
        deadline = time.monotonic() + deadline_s
        while True:
            left = {p: comm(p) for p, s in self.tree.items() if alive(p, s)}
            if not left or time.monotonic() > deadline:
                return left
            time.sleep(0.05)

    def how(self, lines):
        said = [l for l in lines if 'what mokka starts ends with it: ' in l]
        self.assertEqual(len(said), 1, ''.join(lines))
        return said[0].split('what mokka starts ends with it: ', 1)[1]

    def sigkill(self, prefix=()):
        proc, lines = self.start_tree(prefix)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=RUN_LIMIT)
        self.assertEqual(self.left(30), {}, 'outlived a SIGKILL of mokka run')
        return self.how(lines)

    def test_sigkill_takes_the_whole_tree(self):
        how = self.sigkill()
        if how.startswith('in cgroup '):
            cgroup = how.split()[2]
            deadline = time.monotonic() + 30
            while os.path.exists(cgroup) and time.monotonic() < deadline:
                time.sleep(0.05)
            self.assertFalse(os.path.exists(cgroup), "mokka's cgroup stayed")

    def test_sigkill_without_a_writable_cgroup_goes_by_the_mark(self):
        prefix = ()
        mnt = cgroup2_mount()
        if mnt and os.access(mnt, os.W_OK):
            # Read-only for mokka alone, as in a container.
            prefix = ('unshare', '--mount', '--propagation', 'private', 'sh', '-c',
                      'mount -o remount,bind,ro "$0" && exec "$@"', mnt)
            try:
                p = subprocess.run(prefix + ('true',), stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, universal_newlines=True, timeout=60)
                why = p.stdout.strip() if p.returncode else None
            except OSError as e:
                why = str(e)
            if why:
                self.skipTest('the cgroup2 mount is writable and cannot be made read-only '
                              'for mokka alone here: %s' % why)
        how = self.sigkill(prefix)
        self.assertTrue(how.startswith('by the MOKKA_TREE mark in their environment ('), how)

    def test_sigterm_stops_in_order_and_leaves_nothing(self):
        proc, lines = self.start_tree()
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait(timeout=RUN_LIMIT)
        # mokka waits for its keeper's sweep before it returns.
        self.assertEqual(self.left(0), {}, 'left behind by mokka run')
        r = Result(proc, '', ''.join(lines), self.path('report.xml'))
        self.assertExit(r, 3)
        self.assertEqual(r.case('run finishes').find('error').get('message'),
                         'interrupted by Terminated')
        self.assertEqual(os.listdir(self.runtime), [])
