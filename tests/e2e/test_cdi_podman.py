"""test_cdi_podman.py - `mokka cdi generate` read by a real CDI runtime:
podman (root) runs containers of a tiny local image with
`--device nvidia.com/gpu=...` from the spec written into /var/run/cdi.

`all` lists every GPU; `=3 --device =1` exactly GPUs 1 and 3, by the
UUIDs `mokka render` shows, numbered by index (a real node numbers the
device nodes a container has by bus id), to the twin, to pynvml (the
host's python bound in) and to NVIDIA's nvidia-smi; a device by UUID as
NVIDIA's specs name them; a container without --device gets nothing; a fault
injected on the host's live state shows inside; an image that ships its
own libnvidia-ml.so.1 in the library directory gets Mokka's over it; an
image whose NVIDIA_VISIBLE_DEVICES is `all` (CUDA images) still sees only
its devices; a read-only root filesystem works.

The image is made here, without a registry: busybox and the loader and
libc the nvidia-smi twin needs, from the host, through `podman import`.
The spec file is /var/run/cdi/mokka-e2e-<pid>.json, removed after.

Env: MOKKA_BUILD, MOKKA_SRC (cli_support.py)."""
import hashlib
import json
import os
import resource
import shutil
import subprocess
import tarfile
import tempfile
import unittest

from cli_support import BUILD, LIB, PYNVML, SAN, CliTest
from test_container_runtime import busybox_rootfs

PODMAN = shutil.which('podman')
TWIN = os.path.join(BUILD, 'lib', 'nvidia-smi')
CDI_DIR = '/var/run/cdi'
SPEC = os.path.join(CDI_DIR, 'mokka-e2e-%d.json' % os.getpid())
IMAGE = 'localhost/mokka-e2e-cdi-%d' % os.getpid()
MULTIARCH = '/usr/lib/x86_64-linux-gnu'
NVIDIA_SMI = '/usr/bin/nvidia-smi'
NOT_MOKKA = b'the image\'s own libnvidia-ml.so.1, not an ELF file\n'

PY_INFO = r'''
import _ctypes, json, os, sys, sysconfig, pynvml
print(json.dumps({'exe': os.path.realpath(sys.executable), 'stdlib': sysconfig.get_path('stdlib'),
                  'pynvml': os.path.dirname(os.path.realpath(pynvml.__file__)),
                  'ctypes': getattr(_ctypes, '__file__', sys.executable)}))
'''
PY_LIST = ('import pynvml; pynvml.nvmlInit(); print("\\n".join(pynvml.nvmlDeviceGetUUID('
           'pynvml.nvmlDeviceGetHandleByIndex(i)) for i in range(pynvml.nvmlDeviceGetCount())))')


def host_python():
    """The host's python with pynvml, to bind into containers: its
    executable, standard library and pynvml's directory at the same paths,
    and the libraries they link, for the image. None when there is none."""
    if not PYNVML or not shutil.which('ldd'):
        return None
    p = subprocess.run([PYNVML, '-c', PY_INFO], stdout=subprocess.PIPE, universal_newlines=True)
    if p.returncode != 0:
        return None
    py = json.loads(p.stdout)
    libs = set()
    for elf in (py['exe'], py['ctypes']):
        out = subprocess.run(['ldd', elf], stdout=subprocess.PIPE, universal_newlines=True).stdout
        libs |= {w.split()[2] for w in out.splitlines() if ' => /' in w}
    py['libs'] = sorted(libs)
    py['binds'] = []
    for path in (py['exe'], py['stdlib'], py['pynvml']):
        py['binds'] += ['-v', '%s:%s:ro' % (path, path)]
    return py


PYTHON = host_python()


def rootfs(root, ships_nvml=False):
    """busybox, and the loader and libc the twin needs, from the host; the
    libraries of the host's python (bound in by the pynvml test)."""
    busybox_rootfs(root)
    for d in ('run', 'etc'):
        os.makedirs(os.path.join(root, d), exist_ok=True)
    for lib in (PYTHON or {}).get('libs', []):
        shutil.copy(lib, os.path.join(root, MULTIARCH.lstrip('/'), os.path.basename(lib)))
    if ships_nvml:
        with open(os.path.join(root, MULTIARCH.lstrip('/'), 'libnvidia-ml.so.1'), 'wb') as f:
            f.write(NOT_MOKKA)


def podman(*args, check=True, timeout=120):
    p = subprocess.run([PODMAN] + list(args), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, timeout=timeout)
    if check and p.returncode != 0:
        raise AssertionError('podman %s: exit %d\n%s' % (' '.join(args), p.returncode, p.stderr))
    return p


def ulimits():
    """Limits no higher than this process's: podman asks for more than a
    root without CAP_SYS_RESOURCE (a container, a CI runner) may have."""
    out = []
    for name, res in (('nofile', resource.RLIMIT_NOFILE), ('nproc', resource.RLIMIT_NPROC)):
        hard = resource.getrlimit(res)[1]
        n = 1024 if hard == resource.RLIM_INFINITY else min(1024, hard)
        out += ['--ulimit', '%s=%d:%d' % (name, n, n)]
    return out


def import_image(tag, ships_nvml=False, env=None):
    with tempfile.TemporaryDirectory(prefix='mokka-cdi-img-') as d:
        rootfs(os.path.join(d, 'root'), ships_nvml)
        tar = os.path.join(d, 'root.tar')
        with tarfile.open(tar, 'w') as t:
            t.add(os.path.join(d, 'root'), arcname='.')
        changes = ['--change', 'ENV %s' % env] if env else []
        podman('import', '-q', *(changes + [tar, tag]))


def podman_ready():
    """Why podman cannot be tested here, or None."""
    if os.geteuid() != 0:
        return 'needs root (podman reads CDI specs from /etc/cdi and /var/run/cdi)'
    if not PODMAN:
        return 'no podman (apt-get install -y podman)'
    if not shutil.which('busybox'):
        return 'no busybox for the image (apt-get install -y busybox-static)'
    if os.uname().machine != 'x86_64':
        return 'the image is built for x86_64'
    if SAN:
        return 'a sanitized library does not load in a container without its runtime'
    if not os.access(TWIN, os.X_OK):
        return '%s not built' % TWIN
    return None


def other_gpu_specs():
    """Specs of kind nvidia.com/gpu already there (NVIDIA's, an installed
    Mokka's): a device name in two specs of one kind resolves to none."""
    found = []
    for d in ('/etc/cdi', CDI_DIR):
        for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            path = os.path.join(d, name)
            if path != SPEC and name.endswith(('.json', '.yaml')):
                with open(path, errors='replace') as f:
                    if 'nvidia.com/gpu' in f.read():
                        found.append(path)
    return found


WHY_NOT = podman_ready()


@unittest.skipIf(WHY_NOT, WHY_NOT)
class CdiPodmanTest(CliTest):
    @classmethod
    def setUpClass(cls):
        others = other_gpu_specs()
        if others:
            raise unittest.SkipTest('CDI specs of kind nvidia.com/gpu are installed (%s): their '
                                    'device names would clash with the test\'s spec'
                                    % ', '.join(others))
        cls.made_cdi_dir = not os.path.isdir(CDI_DIR)
        import_image(IMAGE + ':plain')
        import_image(IMAGE + ':ships-nvml', ships_nvml=True)
        import_image(IMAGE + ':cuda-env', env='NVIDIA_VISIBLE_DEVICES=all')

    @classmethod
    def tearDownClass(cls):
        for tag in ('plain', 'ships-nvml', 'cuda-env'):
            podman('rmi', '-f', IMAGE + ':' + tag, check=False)
        if cls.made_cdi_dir:
            try:
                os.rmdir(CDI_DIR)
            except OSError:
                pass

    def setUp(self):
        super().setUp()
        self.state = self.path('node-state')
        p = self.mokka('exec', '--state-dir', self.state, '--', TWIN, '-L')
        self.assertEqual(p.returncode, 0, p.stderr)
        os.makedirs(CDI_DIR, exist_ok=True)
        self.addCleanup(lambda: os.path.exists(SPEC) and os.unlink(SPEC))
        p = self.mokka('cdi', 'generate', '--state-dir', self.state, '--output', SPEC)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(SPEC) as f:
            self.spec = json.load(f)
        node = [e.split('=', 1)[1] for e in self.spec['containerEdits']['env']
                if e.startswith('MOKKA_NODE_NAME=')][0]
        p = self.mokka('render', '--node', node, '--format', 'json')
        self.assertEqual(p.returncode, 0, p.stderr)
        self.uuids = [d['uuid'] for d in json.loads(p.stdout)['devices']]
        self.assertGreaterEqual(len(self.uuids), 4)

    def run_in(self, devices, *cmd, image='plain', opts=()):
        args = ['run', '--rm', '--network', 'none'] + ulimits() + list(opts)
        for d in devices:
            args += ['--device', 'nvidia.com/gpu=' + d]
        return podman(*(args + [IMAGE + ':' + image] + list(cmd)), check=False)

    def listed(self, p):
        self.assertEqual(p.returncode, 0, p.stderr)
        return [line.split('UUID: ')[1].rstrip(')') for line in p.stdout.splitlines()
                if line.startswith('GPU ')]

    def test_all_lists_every_gpu(self):
        p = self.run_in(['all'], 'nvidia-smi', '-L')
        self.assertEqual(self.listed(p), self.uuids)

    def test_two_devices_exactly_those(self):
        p = self.run_in(['3', '1'], 'nvidia-smi', '-L')
        self.assertEqual(self.listed(p), [self.uuids[1], self.uuids[3]])
        self.assertTrue(p.stdout.startswith('GPU 0: '), p.stdout)

    def test_pynvml_sees_exactly_its_gpus(self):
        """pynvml loads libnvidia-ml.so.1 by name: the image's loader finds
        Mokka's in the multiarch directory (the host's python bound in)."""
        if not PYTHON:
            self.skipTest('no python3 with pynvml here (apt-get install -y python3-pynvml)')
        p = self.run_in(['3', '1'], PYTHON['exe'], '-c', PY_LIST, opts=PYTHON['binds'])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.split(), [self.uuids[1], self.uuids[3]])

    def test_nvidia_smi_reads_mokkas_library(self):
        """NVIDIA's own nvidia-smi (bound in beside the twin) dlopens
        libnvidia-ml.so.1 and gets Mokka's."""
        if not os.access(NVIDIA_SMI, os.X_OK):
            self.skipTest('no NVIDIA nvidia-smi at %s' % NVIDIA_SMI)
        real = os.path.realpath(NVIDIA_SMI)
        p = self.run_in(['0', '2'], '/opt/nvidia-smi', '-L',
                        opts=['-v', '%s:/opt/nvidia-smi:ro' % real])
        self.assertEqual(self.listed(p), [self.uuids[0], self.uuids[2]])

    def test_devices_by_uuid(self):
        """NVIDIA's specs name devices by UUID too; by index and by UUID,
        one GPU is shown once."""
        p = self.run_in([self.uuids[2], '2', self.uuids[0]], 'nvidia-smi', '-L')
        self.assertEqual(self.listed(p), [self.uuids[0], self.uuids[2]])

    def test_no_device_gets_nothing(self):
        p = self.run_in([], 'sh', '-c', 'ls %s/libnvidia-ml.so.1 /usr/bin/nvidia-smi /run/mokka '
                        '2>/dev/null; env | grep -E "^(MOKKA|NVIDIA)_"; echo done' % MULTIARCH)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, 'done\n')

    def test_fault_on_the_host_shows_inside(self):
        """The spec mounts the host's live state: what `mokka inject` does
        there, a container sees at its next NVML call."""
        p = self.mokka('inject', '--state-dir', self.state, '--gpu', '1', '--lost')
        self.assertEqual(p.returncode, 0, p.stderr)
        p = self.mokka('inject', '--state-dir', self.state, '--gpu', '0', '--set',
                       'temperature=93')
        self.assertEqual(p.returncode, 0, p.stderr)
        p = self.run_in(['0', '1'], 'sh', '-c', 'nvidia-smi -L; nvidia-smi -q -i 0')
        self.assertIn(self.uuids[0], p.stdout)
        self.assertIn('GPU is lost', p.stdout + p.stderr)
        self.assertRegex(p.stdout, r'GPU Current Temp\s*: 93 C')

    def test_image_shipping_the_library_gets_mokkas(self):
        """An image's own libnvidia-ml.so.1 in the library directory is
        mounted over, silently (a CDI runtime looks into no image; the
        runtime shim says so on stderr), as NVIDIA's specs mount the
        driver's over it."""
        p = self.run_in(['2'], 'sh', '-c', 'md5sum %s/libnvidia-ml.so.1; nvidia-smi -L'
                        % MULTIARCH, image='ships-nvml')
        self.assertEqual(self.listed(p), [self.uuids[2]])
        with open(LIB, 'rb') as f:
            self.assertIn(hashlib.md5(f.read()).hexdigest(), p.stdout)
        p = self.run_in([], 'sh', '-c', 'cat %s/libnvidia-ml.so.1' % MULTIARCH,
                        image='ships-nvml')
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.encode(), NOT_MOKKA)   # without a device: the image's

    def test_image_with_all_sees_only_its_devices(self):
        """CUDA images set NVIDIA_VISIBLE_DEVICES=all; the spec's void keeps
        the view to the devices asked for."""
        p = self.run_in(['1'], 'nvidia-smi', '-L', image='cuda-env')
        self.assertEqual(self.listed(p), [self.uuids[1]])

    def test_read_only_root_filesystem(self):
        p = self.run_in(['3'], 'nvidia-smi', '-L', opts=['--read-only'])
        self.assertEqual(self.listed(p), [self.uuids[3]])


if __name__ == '__main__':
    unittest.main()
