"""rig_support.py - the tests that use the rig (../shared/rig, MOKKA_RIG: a
real kube-apiserver, controller-manager, scheduler and kubelet v1.20.2)
start the parts of it that are not running and stop only those: the rig is
shared by whatever runs on this machine, and a test that stopped a rig it
found running would pull the node from under another's feet."""
import os
import subprocess

from cli_support import SRC

RIG = os.environ.get('MOKKA_RIG', '')
RIG_SRC = os.environ.get('MOKKA_RIG_SRC', os.path.join(SRC, '..', 'shared', 'rig'))


def _parts():
    """(up, down) commands of each part, in starting order."""
    return {'apiserver': (['bash', os.path.join(RIG_SRC, 'apiserver-up.sh')],
                          ['bash', os.path.join(RIG_SRC, 'apiserver-down.sh')]),
            'controlplane': (['bash', os.path.join(RIG_SRC, 'controlplane-up.sh')],
                             ['bash', os.path.join(RIG_SRC, 'controlplane-down.sh')]),
            'kubelet': ([os.path.join(RIG, 'kubelet', 'up.sh')], [os.path.join(RIG, 'kubelet', 'down.sh')])}


def rig_env():
    return dict(os.environ, MOKKA_RIG=RIG)


def rig_up(*names):
    """Starts the named parts (in the rig's order); returns the down commands
    of those that this call started (a part already up says so and is left
    alone). Raises AssertionError with the script's output on failure."""
    parts = _parts()
    started = []
    for name in ('apiserver', 'controlplane', 'kubelet'):
        if name not in names:
            continue
        up, down = parts[name]
        p = subprocess.run(up, env=rig_env(), capture_output=True, text=True, timeout=600)
        if p.returncode != 0:
            raise AssertionError('%s failed:\n%s%s' % (' '.join(up), p.stdout, p.stderr))
        if ': started ' in p.stdout:
            started.append(down)
    return started


def rig_down(started):
    """Stops what rig_up started, the last first."""
    for down in reversed(started):
        subprocess.run(down, env=rig_env(), stdout=subprocess.DEVNULL, timeout=600)
