"""test_rig_cluster.py - Mokka in a real cluster, from the image to a GPU
workload, on the rig's kube-apiserver, controller-manager, scheduler and
kubelet v1.20.2 with containerd 1.6 (../shared/rig, MOKKA_RIG):

  1. the images of `make image` (built here from NVIDIA's plugin and GFD,
     MOKKA_DEVICE_PLUGIN and MOKKA_GFD, unless MOKKA_IMAGE_DIR holds them)
     imported into the node's containerd as `kind load image-archive` does;
  2. ci/deploy/overlays/runtime (the base DaemonSet, its init container
     that installs the runtime shim onto the node as containerd's `mokka`
     handler, and the RuntimeClass), applied as `kubectl kustomize` renders
     it with the rig's containerd config path and the rig's way of
     restarting containerd (the test's own: no systemd here); the node
     labelled: the DaemonSet's pod makes the node advertise every GPU of the
     base universe, with the UUIDs `mokka render --node rig-node-1` shows;
  3. the node's containerd has the handler, the shim and Mokka's files in
     the node's /opt/mokka;
  4. a pod asking for 2 nvidia.com/gpu under runtimeClassName mokka, image
     mokka:VERSION (no NVIDIA software in it): its `nvidia-smi -L` lists
     exactly the two UUIDs the plugin allocated to it (its
     NVIDIA_VISIBLE_DEVICES);
  5. `mokka inject --cluster` of a lost GPU on one of them: the node's
     allocatable drops by one and the pod's nvidia-smi shows the GPU lost;
     clearing it brings the node back to full strength;
  6. everything removed in the documented order (DaemonSet first, so its
     agent writes its last report), the runtime uninstalled and the
     containerd config restored byte for byte;
and ci/deploy/overlays/mig-mixed: the node advertises the MIG profiles of
its universe beside the whole GPU.

Prints the time from `kubectl apply` to the GPUs being allocatable, and
saves it for `make bench` (BUILD/build/rig-cluster.stats). Needs root, MOKKA_RIG,
and the plugin and GFD (or prebuilt images); skips saying which is missing.
Starts the rig's parts that are not running and stops only those."""
import json
import os
import yaml
import re
import shutil
import subprocess
import time
import unittest

from cli_support import BUILD, MOKKA, SRC
from rig_support import RIG, rig_down, rig_up

NODE = os.environ.get('NODE_NAME', 'rig-node-1')
PLUGIN = os.environ.get('MOKKA_DEVICE_PLUGIN', '')
GFD = os.environ.get('MOKKA_GFD', '')
IMAGE_DIR = os.environ.get('MOKKA_IMAGE_DIR', '')
LABEL = 'mokka.io/virtual-gpus'
OVERLAY = os.path.join(SRC, 'ci', 'deploy', 'overlays', 'runtime')
POD = 'mokka-e2e-workload'


def version():
    with open(os.path.join(SRC, 'Makefile')) as f:
        return re.search(r'^MOKKA_VERSION := (\S+)', f.read(), re.M).group(1)


def missing():
    if not RIG:
        return 'set MOKKA_RIG to the rig ../shared/rig builds (e.g. /var/cache/mokka-rig)'
    if not os.access(os.path.join(RIG, 'bin', 'kubelet'), os.X_OK):
        return 'MOKKA_RIG=%s holds no built rig (bin/kubelet): run ../shared/rig/setup.sh' % RIG
    if os.geteuid() != 0:
        return 'the rig runs a kubelet and containerd: root only'
    if not IMAGE_DIR and not (os.access(PLUGIN, os.X_OK) and os.access(GFD, os.X_OK)):
        return ('the image needs NVIDIA\'s plugin and GFD: set MOKKA_DEVICE_PLUGIN and MOKKA_GFD '
                '(or MOKKA_IMAGE_DIR to a dist/ with the amd64 image archives)')
    if not shutil.which('mmdebstrap') and not IMAGE_DIR:
        return 'make image needs mmdebstrap (apt-get install mmdebstrap)'
    return None


class RigCluster(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        why = missing()
        if why:
            raise unittest.SkipTest(why)
        cls.env = dict(os.environ, MOKKA_RIG=RIG,
                       KUBECONFIG=os.path.join(RIG, 'apiserver', 'kubeconfig-token.yaml'),
                       PATH=os.path.join(RIG, 'bin') + ':' + os.environ['PATH'])
        cls.kubectl_bin = os.path.join(RIG, 'bin', 'kubectl')
        cls.sock = os.path.join(RIG, 'kubelet', 'containerd.sock')
        cls.ctrd_config = os.path.join(RIG, 'kubelet', 'containerd.toml')
        cls.version = version()
        cls.images = cls.build_images()
        cls.started = rig_up('apiserver', 'controlplane', 'kubelet')

    @classmethod
    def tearDownClass(cls):
        rig_down(cls.started)

    @classmethod
    def build_images(cls):
        names = ('mokka-device-plugin', 'mokka')
        if IMAGE_DIR:
            d = IMAGE_DIR
        else:
            d = os.path.join(SRC, 'dist')
            p = subprocess.run(['make', '-C', SRC, 'image', 'IMAGE_ARCHES=amd64', 'PLUGIN=' + PLUGIN,
                                'GFD=' + GFD], capture_output=True, text=True, timeout=1800)
            if p.returncode != 0:
                raise AssertionError('make image failed:\n' + p.stdout[-3000:] + p.stderr[-3000:])
        paths = [os.path.join(d, '%s_%s_linux_amd64.image.tar' % (n, cls.version)) for n in names]
        for path in paths:
            if not os.path.isfile(path):
                raise AssertionError('no image archive %s' % path)
        return paths

    def kubectl(self, *args, check=True, stdin=None):
        p = subprocess.run([self.kubectl_bin] + list(args), env=self.env, capture_output=True,
                           text=True, input=stdin, timeout=120)
        if check:
            self.assertEqual(p.returncode, 0, 'kubectl %s: %s%s' % (' '.join(args), p.stdout, p.stderr))
        return p

    def ctr(self, *args):
        return subprocess.run(['ctr', '-a', self.sock, '-n', 'k8s.io'] + list(args), capture_output=True,
                              text=True, timeout=300)

    def restart_containerd(self):
        with open(os.path.join(RIG, 'kubelet', 'containerd.pid')) as f:
            pid = int(f.read())
        os.kill(pid, 15)
        for _ in range(100):
            if not os.path.exists('/proc/%d' % pid):
                break
            time.sleep(0.1)
        p = subprocess.run([os.path.join(RIG, 'kubelet', 'up.sh')], env=self.env, capture_output=True,
                           text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

    def allocatable(self):
        node = json.loads(self.kubectl('get', 'node', NODE, '-o', 'json').stdout)
        return int(node['status'].get('allocatable', {}).get('nvidia.com/gpu', '0'))

    def wait_for(self, what, cond, timeout=120, seen=None):
        """Seconds until cond() holds; else fails, showing seen()."""
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            got = cond()
            if got:
                return time.monotonic() - t0
            time.sleep(0.25)
        self.fail('waited %d s for %s%s' % (timeout, what, ': ' + seen() if seen else ''))

    def pod_log(self, name, ns='default'):
        """The container's output, from the kubelet's log files (the rig's
        apiserver cannot reach the kubelet for kubectl logs)."""
        out = []
        for d in sorted(os.listdir('/var/log/pods')):
            if d.startswith('%s_%s_' % (ns, name)):
                for root, _, files in os.walk(os.path.join('/var/log/pods', d)):
                    for f in sorted(files):
                        with open(os.path.join(root, f), errors='replace') as fh:
                            out += [line.split(' ', 3)[-1].rstrip('\n') for line in fh]
        return out

    def last_round(self, name):
        """The last whole round of the workload's loop: its lines between
        the last two '---'."""
        lines = self.pod_log(name)
        marks = [i for i, line in enumerate(lines) if line == '---']
        return lines[marks[-2] + 1:marks[-1]] if len(marks) >= 2 else []

    # --- the test -----------------------------------------------------------------
    def test_image_daemonset_workload(self):
        self.addCleanup(self.uninstall)
        for path in self.images:
            p = self.ctr('images', 'import', '--all-platforms', '--digests', path)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        have = self.ctr('images', 'ls', '-q').stdout.split()
        for name in ('mokka-device-plugin', 'mokka'):
            self.assertIn('docker.io/library/%s:%s' % (name, self.version), have)

        # the overlay: the DaemonSet, its runtime installer, the RuntimeClass
        with open(self.ctrd_config, 'rb') as f:
            self.saved_config = f.read()
        self.made_opt = not os.path.exists('/opt/mokka')
        docs = [d for d in yaml.safe_load_all(self.kubectl('kustomize', OVERLAY).stdout) if d]
        for d in docs:
            for c in d.get('spec', {}).get('template', {}).get('spec', {}).get('initContainers', []):
                env = {e['name']: e for e in c['env']}
                env['CONTAINERD_CONFIG']['value'] = self.ctrd_config
                env['RESTART_CONTAINERD']['value'] = 'true'   # the rig's containerd: below
        self.manifest = yaml.safe_dump_all(docs)
        render = subprocess.run([MOKKA, 'render', '-c', os.path.join(SRC, 'ci', 'deploy', 'base', 'gpus.yaml'),
                                 '--node', NODE, '--format', 'json'], capture_output=True, text=True, timeout=60)
        self.assertEqual(render.returncode, 0, render.stderr)
        uuids = [g['uuid'] for g in json.loads(render.stdout)['devices']]
        t0 = time.monotonic()
        self.kubectl('apply', '-f', '-', stdin=self.manifest)
        self.kubectl('label', 'node', NODE, '%s=true' % LABEL, '--overwrite')
        self.wait_for('nvidia.com/gpu allocatable %d' % len(uuids), lambda: self.allocatable() == len(uuids), 180)
        ready = time.monotonic() - t0
        print('\nrig-cluster: kubectl apply to %d GPUs allocatable: %.1f s' % (len(uuids), ready))
        with open(os.path.join(BUILD, 'build', 'rig-cluster.stats'), 'w') as f:
            f.write('apply_to_allocatable_seconds %.1f\ngpus %d\n' % (ready, len(uuids)))

        # what the init container did on the node
        with open(self.ctrd_config) as f:
            self.assertIn('runtimes.mokka]', f.read())
        for name in ('mokka-container-runtime', 'libnvidia-ml.so.1', 'libyaml-0.so.2', 'nvidia-smi'):
            self.assertTrue(os.path.isfile(os.path.join('/opt/mokka', name)), name)
        with open('/usr/local/bin/mokka-container-runtime') as f:
            self.assertIn("exec '/opt/mokka/mokka-container-runtime'", f.read())
        self.restart_containerd()
        # the agent's live state and its config, on the node for the shim
        states = [d for d in os.listdir('/run/mokka') if os.path.isfile(os.path.join('/run/mokka', d, 'state'))]
        self.assertEqual(len(states), 1, os.listdir('/run/mokka'))
        self.assertTrue(os.path.isfile(os.path.join('/run/mokka', states[0], 'gpus.yaml')))

        # a workload under the runtime class, with no NVIDIA software in its image
        pod = {'apiVersion': 'v1', 'kind': 'Pod', 'metadata': {'name': POD, 'namespace': 'default'},
               'spec': {'runtimeClassName': 'mokka', 'restartPolicy': 'Never', 'hostNetwork': True,
                        'terminationGracePeriodSeconds': 1, 'automountServiceAccountToken': False,
                        'containers': [{'name': 'c', 'image': 'mokka:%s' % self.version,
                                        'imagePullPolicy': 'Never',
                                        'command': ['sh', '-c', 'while :; do echo "NVD=$NVIDIA_VISIBLE_DEVICES"; '
                                                    'nvidia-smi -L 2>&1; echo ---; sleep 1; done'],
                                        'resources': {'limits': {'nvidia.com/gpu': 2}}}]}}
        self.kubectl('apply', '-f', '-', stdin=json.dumps(pod))
        self.wait_for('the workload pod to list its GPUs', lambda: any(
            line.startswith('GPU ') for line in self.last_round(POD)), 120)
        first = self.last_round(POD)
        nvd = [line[4:] for line in first if line.startswith('NVD=')][0].split(',')
        listed = re.findall(r'\(UUID: (GPU-[0-9a-f-]+)\)', '\n'.join(first))
        self.assertEqual(len(nvd), 2, first)
        self.assertEqual(sorted(listed), sorted(nvd), first)
        self.assertTrue(set(listed) <= set(uuids), (listed, uuids))
        self.assertEqual(self.allocatable(), len(uuids))   # allocated, still allocatable

        # a fault through the API server: the node loses a GPU, the pod sees it
        gpu = uuids.index(nvd[0])
        p = subprocess.run([MOKKA, 'inject', '--kubeconfig', self.env['KUBECONFIG'], '--node', NODE,
                            '--gpu', str(gpu), '--lost', '--name', 'mokka-e2e-lost', '--wait', '60s'],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.wait_for('allocatable %d' % (len(uuids) - 1), lambda: self.allocatable() == len(uuids) - 1, 90)
        def lost():   # nvidia-smi -L: the other GPU listed, this one "GPU is lost"
            out = '\n'.join(line for line in self.last_round(POD) if not line.startswith('NVD='))
            return 'GPU is lost' in out and nvd[1] in out and nvd[0] not in out
        self.wait_for('the pod to see GPU %d lost' % gpu, lost, 30, lambda: repr(self.last_round(POD)))
        p = subprocess.run([MOKKA, 'inject', '--kubeconfig', self.env['KUBECONFIG'], '--clear', 'mokka-e2e-lost',
                            '--wait', '60s'], capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.wait_for('allocatable back at %d' % len(uuids), lambda: self.allocatable() == len(uuids), 120)

    def test_mig_mixed_overlay(self):
        """ci/deploy/overlays/mig-mixed on the real kubelet: NVIDIA's plugin
        finds the MIG devices' capability files in the pod's sandbox and the
        node advertises each MIG profile beside the whole GPU."""
        for path in self.images[:1]:
            p = self.ctr('images', 'import', '--all-platforms', '--digests', path)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.addCleanup(self.uninstall)
        self.manifest = self.kubectl('kustomize', os.path.join(SRC, 'ci', 'deploy', 'overlays', 'mig-mixed')).stdout
        self.kubectl('apply', '-f', '-', stdin=self.manifest)
        self.kubectl('label', 'node', NODE, '%s=true' % LABEL, '--overwrite')
        want = {'nvidia.com/gpu': '1', 'nvidia.com/mig-1g.5gb': '2', 'nvidia.com/mig-2g.10gb': '1',
                'nvidia.com/mig-3g.20gb': '1'}

        def advertised():
            node = json.loads(self.kubectl('get', 'node', NODE, '-o', 'json').stdout)
            return {k: v for k, v in node['status'].get('allocatable', {}).items() if k.startswith('nvidia.com/')}
        self.wait_for('the MIG resources allocatable', lambda: advertised() == want, 120,
                      lambda: repr(advertised()))

    def uninstall(self):
        """The documented order: the workload, the DaemonSet (its agent
        writes its last report while RBAC and the namespace still exist),
        then the rest; the node's containerd and /opt/mokka as they were."""
        self.kubectl('delete', 'pod', POD, '--grace-period=1', '--ignore-not-found', check=False)
        self.kubectl('-n', 'mokka', 'delete', 'daemonset', 'mokka-virtual-gpus', '--cascade=foreground', '--wait',
                     '--timeout=2m', '--ignore-not-found', check=False)
        if getattr(self, 'manifest', None):
            self.kubectl('delete', '-f', '-', '--ignore-not-found', stdin=self.manifest, check=False)
        self.kubectl('label', 'node', NODE, LABEL + '-', check=False)
        if getattr(self, 'saved_config', None) is not None:
            p = subprocess.run([MOKKA, 'container-runtime', 'uninstall', '--containerd-config', self.ctrd_config],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(self.ctrd_config, 'rb') as f:
                self.assertEqual(f.read(), self.saved_config, 'uninstall left the containerd config changed')
            self.restart_containerd()
            if self.made_opt:
                shutil.rmtree('/opt/mokka', True)


if __name__ == '__main__':
    unittest.main()
