"""test_container_runtime.py - `mokka container-runtime` and `mokka cdi
generate`: workload containers see exactly their GPUs, unmodified.

Against a fake runc that records its arguments and the bundle's config.json:
a container without GPUs passes byte for byte, a GPU container gets Mokka's
library, the twin, the live state and the variables, other verbs pass
unchanged, bad input fails with a clear message in runc's --log. The
install command on a containerd config (idempotent, the rest kept). With
the real runc (root only): a busybox root filesystem with a libc, created
and started with NVIDIA_VISIBLE_DEVICES naming two GPUs, whose
`nvidia-smi -L` (the twin, then NVIDIA's own copied into the image) lists
exactly those two, and shows a fault injected on the node. The CDI spec's
edits, applied as a CDI runtime would, with podman where it runs.

Env: MOKKA_BUILD, MOKKA_SRC (cli_support.py)."""
import json
import os
import re
import shutil
import stat
import subprocess
import time
import unittest
import uuid

from cli_support import BUILD, SAN, CliTest

TWIN = os.path.join(BUILD, 'lib', 'nvidia-smi')
SHIM = os.path.join(BUILD, 'lib', 'mokka-container-runtime')
RUNC = shutil.which('runc') or '/usr/sbin/runc'
NVIDIA_SMI = '/usr/bin/nvidia-smi'

FAKE_RUNC = '''#!/bin/sh
# records what the shim hands on
printf '%s\\n' "$@" > "$RECORD/argv"
b=.
prev=
for a in "$@"; do
  case "$prev" in --bundle|-b) b="$a" ;; esac
  case "$a" in --bundle=*) b="${a#--bundle=}" ;; esac
  prev="$a"
done
[ -f "$b/config.json" ] && cp "$b/config.json" "$RECORD/config.json"
exit 0
'''

# A spec as containerd writes one: key order and spacing of its own.
SPEC_NO_GPU = '''{
  "ociVersion": "1.0.2-dev",
  "process": {"user": {"uid": 0, "gid": 0}, "args": ["sh"],
              "env": ["PATH=/bin", "HOSTNAME=pod-a"], "cwd": "/"},
  "root": {"path": "rootfs"},
  "mounts": [{"destination": "/proc", "type": "proc", "source": "proc"}]
}
'''


class ShimBase(CliTest):
    """A node's live state (from `mokka exec`), its GPUs' UUIDs, a fake runc."""

    def setUp(self):
        super().setUp()
        if not os.access(TWIN, os.X_OK):
            self.skipTest('%s not built' % TWIN)
        self.need_unsanitized_peers()
        self.state = self.path('node-state')
        p = self.mokka('exec', '--state-dir', self.state, '--', TWIN, '-L')
        self.assertEqual(p.returncode, 0, p.stderr)
        self.uuids = [line.split('UUID: ')[1].rstrip(')') for line in p.stdout.splitlines()
                      if line.startswith('GPU ')]
        self.assertGreaterEqual(len(self.uuids), 4)
        self.record = self.path('record')
        os.makedirs(self.record)
        self.fake = self.path('fake-runc')
        with open(self.fake, 'w') as f:
            f.write(FAKE_RUNC)
        os.chmod(self.fake, 0o755)
        self.env['RECORD'] = self.record

    def bundle(self, text, name='bundle'):
        b = self.path(name)
        os.makedirs(os.path.join(b, 'rootfs', 'usr', 'lib', 'x86_64-linux-gnu'))
        with open(os.path.join(b, 'rootfs', 'usr', 'lib', 'x86_64-linux-gnu', 'libc.so.6'),
                  'w') as f:
            f.write('elf')
        with open(os.path.join(b, 'config.json'), 'w') as f:
            f.write(text)
        return b

    def shim(self, *runc_args, opts=None):
        args = ['container-runtime', '--runtime', self.fake, '--state-dir', self.state]
        return self.mokka(*(args + (opts or []) + ['--'] + list(runc_args)))

    def recorded(self):
        with open(os.path.join(self.record, 'argv')) as f:
            argv = f.read().splitlines()
        cfg = os.path.join(self.record, 'config.json')
        if not os.path.exists(cfg):
            return argv, None
        with open(cfg) as f:
            return argv, f.read()

    def gpu_spec(self, visible):
        spec = json.loads(SPEC_NO_GPU)
        spec['process']['env'].append('NVIDIA_VISIBLE_DEVICES=' + visible)
        return json.dumps(spec)


class ShimTest(ShimBase):
    def test_no_gpu_untouched(self):
        """No NVIDIA_VISIBLE_DEVICES, or void/none/empty: the spec is not
        rewritten (same bytes, same file) and runc gets the same argv."""
        for env in (None, 'void', 'none', ''):
            text = SPEC_NO_GPU if env is None else SPEC_NO_GPU.replace(
                '"HOSTNAME=pod-a"', '"HOSTNAME=pod-a", "NVIDIA_VISIBLE_DEVICES=%s"' % env)
            b = self.bundle(text, 'b-%s' % env)
            before = os.stat(os.path.join(b, 'config.json'))
            args = ['--root', '/run/x', '--log', self.path('log'), '--log-format', 'json',
                    'create', '--bundle', b, '--pid-file', self.path('pid'), 'ctr']
            p = self.shim(*args)
            self.assertEqual(p.returncode, 0, p.stderr)
            argv, seen = self.recorded()
            self.assertEqual(argv, args)
            self.assertEqual(seen, text)
            after = os.stat(os.path.join(b, 'config.json'))
            self.assertEqual((before.st_ino, before.st_mtime_ns),
                             (after.st_ino, after.st_mtime_ns))

    def test_no_gpu_needs_no_mokka(self):
        """A container without GPUs runs even where Mokka's node state is
        missing: it is never touched."""
        b = self.bundle(SPEC_NO_GPU)
        p = self.mokka('container-runtime', '--runtime', self.fake, '--state-dir',
                       self.path('nothing-here'), '--', 'create', '-b', b, 'x')
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(self.recorded()[1], SPEC_NO_GPU)

    def test_gpu_container_edited(self):
        visible = ','.join(self.uuids[1:3])
        b = self.bundle(self.gpu_spec(visible))
        p = self.shim('--root', '/r', 'create', '--bundle=' + b, 'ctr')
        self.assertEqual(p.returncode, 0, p.stderr)
        argv, text = self.recorded()
        self.assertEqual(argv, ['--root', '/r', 'create', '--bundle=' + b, 'ctr'])
        spec = json.loads(text)
        mounts = {m['destination']: m for m in spec['mounts']}
        self.assertEqual(spec['mounts'][0]['destination'], '/proc')   # the spec's own first
        lib = mounts['/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1']
        self.assertEqual(lib['type'], 'bind')
        self.assertIn('ro', lib['options'])
        with open(lib['source'], 'rb') as f, open(os.path.join(BUILD, 'lib',
                                                             'libnvidia-ml.so.1'), 'rb') as g:
            self.assertEqual(f.read(), g.read())
        self.assertIn('/usr/lib/x86_64-linux-gnu/libnvidia-ml.so', mounts)
        self.assertEqual(os.path.realpath(mounts['/usr/bin/nvidia-smi']['source']),
                         os.path.realpath(TWIN))
        state = mounts['/run/mokka/state']
        self.assertEqual(state['source'], os.path.join(self.state, 'state'))
        self.assertNotIn('ro', state['options'])
        env = spec['process']['env']
        self.assertIn('NVIDIA_VISIBLE_DEVICES=' + visible, env)
        self.assertIn('MOKKA_STATE_DIR=/run/mokka', env)
        self.assertIn('MOKKA_NODE_NAME=mokka-e2e-node', env)
        self.assertIn('HOSTNAME=pod-a', env)

    def test_node_layout(self):
        """The agent's layout: DIR/run-PID/state, its config copied to
        DIR/gpus.yaml; a config the state names but this host lacks."""
        from cli_support import MIG_MIXED
        base = self.path('base')
        os.makedirs(os.path.join(base, 'run-7'))
        pod_config = self.path('in-the-pod.yaml')   # a path only the agent's pod has
        shutil.copy(MIG_MIXED, pod_config)
        p = self.mokka('exec', '--config', pod_config, '--state-dir',
                       os.path.join(base, 'run-7'), '--', TWIN, '-L')
        self.assertEqual(p.returncode, 0, p.stderr)
        os.unlink(pod_config)
        b = self.bundle(self.gpu_spec('0'))
        p = self.mokka('container-runtime', '--runtime', self.fake, '--state-dir', base, '--',
                       'create', '--bundle', b, 'c')
        self.assertEqual(p.returncode, 3)
        self.assertIn('was made from the config %s, which this host does not have' % pod_config,
                      p.stderr)
        self.assertIn('copy it to %s' % os.path.join(base, 'gpus.yaml'), p.stderr)
        shutil.copy(MIG_MIXED, os.path.join(base, 'gpus.yaml'))
        p = self.mokka('container-runtime', '--runtime', self.fake, '--state-dir', base, '--',
                       'create', '--bundle', b, 'c')
        self.assertEqual(p.returncode, 0, p.stderr)
        spec = json.loads(self.recorded()[1])
        mounts = {m['destination']: m['source'] for m in spec['mounts']}
        self.assertEqual(mounts['/run/mokka/state'], os.path.join(base, 'run-7', 'state'))
        self.assertEqual(mounts['/run/mokka/config.yaml'], os.path.join(base, 'gpus.yaml'))
        self.assertIn('MOKKA_CONFIG=/run/mokka/config.yaml', spec['process']['env'])

    def test_other_verbs_pass_through(self):
        """start, state, kill, delete, exec, --version: argv unchanged, no
        bundle read (an invalid config.json in the cwd does not matter)."""
        junk = self.path('cwd')
        os.makedirs(junk)
        with open(os.path.join(junk, 'config.json'), 'w') as f:
            f.write('{not json')
        for args in (['start', 'ctr'], ['--root', '/r', 'state', 'ctr'],
                     ['kill', 'ctr', 'KILL'], ['delete', '--force', 'ctr'],
                     ['exec', '--process', '/p.json', 'ctr'], ['--version'],
                     ['--log', '/l', 'events', '--stats', 'ctr']):
            p = self.shim(*args, opts=None)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(self.recorded()[0], args)

    def test_invalid_config_json(self):
        b = self.bundle('{"process": {"env": ["NVIDIA_VISIBLE_DEVICES=all"]},\n  oops}\n')
        log = self.path('runc-log.json')
        p = self.shim('--log', log, '--log-format', 'json', 'create', '--bundle', b, 'ctr')
        self.assertEqual(p.returncode, 2)
        where = os.path.join(b, 'config.json') + ':2:'
        self.assertIn(where, p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.record, 'argv')))   # runc not run
        with open(log) as f:
            line = json.loads(f.read().splitlines()[-1])
        self.assertEqual(line['level'], 'error')
        self.assertIn('mokka container-runtime: ' + where, line['msg'])

    def test_missing_state(self):
        b = self.bundle(self.gpu_spec(self.uuids[0]))
        log = self.path('runc.log')
        p = self.mokka('container-runtime', '--runtime', self.fake, '--state-dir',
                       self.path('no-state'), '--', '--log', log, 'create', '-b', b, 'c')
        self.assertEqual(p.returncode, 3)
        for words in ('no live state at %s' % self.path('no-state'), 'mokka run --cluster',
                      'MOKKA_RUNTIME_DIR'):
            self.assertIn(words, p.stderr)
        with open(log) as f:
            self.assertIn('level=error msg="mokka container-runtime: no live state', f.read())
        self.assertFalse(os.path.exists(os.path.join(self.record, 'argv')))

    def test_no_runc(self):
        b = self.bundle(SPEC_NO_GPU)
        p = self.mokka('container-runtime', '--runtime', self.path('nope'), '--', 'create',
                       '-b', b, 'c')
        self.assertEqual(p.returncode, 3)
        self.assertIn('cannot run the OCI runtime', p.stderr)
        p = self.mokka('container-runtime', '--runtime', os.path.join(BUILD, 'mokka'), '--',
                       'create', '-b', b, 'c')
        self.assertEqual(p.returncode, 3)
        self.assertIn('is mokka itself', p.stderr)

    def test_usage(self):
        p = self.mokka('container-runtime')
        self.usage_error(p, 'no runc arguments')
        p = self.mokka('container-runtime', '--help')
        self.assertEqual(p.returncode, 0)
        self.assertIn('Usage: mokka container-runtime', p.stdout)
        p = self.mokka('container-runtime', 'install', '--name', 'Bad_Name')
        self.usage_error(p, "--name 'Bad_Name'")


CONTAINERD_CONFIG = '''version = 2
root = "/var/lib/containerd"

# the node's own settings, kept as they are
[plugins]
  [plugins."io.containerd.grpc.v1.cri"]
    sandbox_image = "registry.k8s.io/pause:3.6"
    [plugins."io.containerd.grpc.v1.cri".containerd]
      default_runtime_name = "runc"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
        runtime_type = "io.containerd.runc.v2"
        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
          SystemdCgroup = true
'''


class InstallTest(ShimBase):
    @staticmethod
    def read(path):
        with open(path) as f:
            return f.read()

    def install(self, *extra):
        return self.mokka('container-runtime', 'install', '--containerd-config', self.toml,
                          '--wrapper', self.wrapper, '--runtime', self.fake, '--state-dir',
                          self.state, *extra)

    def test_install_idempotent(self):
        self.toml = self.path('etc', 'containerd', 'config.toml')
        self.wrapper = self.path('bin', 'mokka-container-runtime')
        os.makedirs(os.path.dirname(self.toml))
        with open(self.toml, 'w') as f:
            f.write(CONTAINERD_CONFIG)
        p = self.install('--runtime-class')
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("runtime handler 'mokka' set", p.stderr)
        self.assertIn('kind: RuntimeClass', p.stdout)
        self.assertIn('handler: mokka', p.stdout)
        once = self.read(self.toml)
        self.assertTrue(once.startswith(CONTAINERD_CONFIG))
        self.assertIn('[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.mokka]\n'
                      '  # added by', once)
        self.assertIn('BinaryName = "%s"' % self.wrapper, once)
        p = self.install()
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn('already set', p.stderr)
        self.assertEqual(self.read(self.toml), once)
        # the wrapper is what containerd runs: runc's arguments in, the shim out;
        # the shim as a program of its own, which needs only the C library
        self.assertTrue(os.stat(self.wrapper).st_mode & stat.S_IXUSR)
        self.assertIn("exec '%s' --runtime" % os.path.realpath(SHIM), self.read(self.wrapper))
        needed = subprocess.run(['readelf', '-d', SHIM], stdout=subprocess.PIPE,
                                universal_newlines=True).stdout
        libs = re.findall(r'\(NEEDED\).*\[(.*)\]', needed)
        libs = [x for x in libs if not x.startswith('ld-linux')]   # the loader itself
        if not SAN:   # a sanitizer brings its runtime
            self.assertTrue(set(libs) <= {'libc.so.6', 'libdl.so.2', 'libpthread.so.0'}, libs)
        b = self.bundle(self.gpu_spec('all'))
        w = subprocess.run([self.wrapper, '--root', '/r', 'create', '--bundle', b, 'c'],
                           env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True)
        self.assertEqual(w.returncode, 0, w.stderr)
        argv, text = self.recorded()
        self.assertEqual(argv, ['--root', '/r', 'create', '--bundle', b, 'c'])
        self.assertIn('MOKKA_STATE_DIR=/run/mokka', json.loads(text)['process']['env'])
        p = self.mokka('container-runtime', 'uninstall', '--containerd-config', self.toml,
                       '--wrapper', self.wrapper)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(self.read(self.toml), CONTAINERD_CONFIG)   # byte for byte
        self.assertFalse(os.path.exists(self.wrapper))

    def test_install_host_root(self):
        """From a pod with the node's / at --host-root: the shim, the library,
        libyaml and the twin are copied onto the node where the shim is here,
        and the config and wrapper name node paths, never the mount's."""
        host = self.path('host')
        self.toml = os.path.join(host, 'etc', 'containerd', 'config.toml')
        os.makedirs(os.path.dirname(self.toml))
        with open(self.toml, 'w') as f:
            f.write(CONTAINERD_CONFIG)
        p = self.mokka('container-runtime', 'install', '--host-root', host)
        self.assertEqual(p.returncode, 0, p.stderr)
        shim = os.path.realpath(SHIM)
        here = os.path.dirname(shim)
        for name in ('mokka-container-runtime', 'libnvidia-ml.so.1', 'libyaml-0.so.2', 'nvidia-smi'):
            self.assertTrue(os.path.isfile(host + os.path.join(here, name)), name)
        with open(host + shim, 'rb') as a, open(shim, 'rb') as b:
            self.assertEqual(a.read(), b.read())
        self.assertTrue(os.stat(host + shim).st_mode & stat.S_IXUSR)
        wrapper = os.path.join(host, 'usr', 'local', 'bin', 'mokka-container-runtime')
        self.assertIn("exec '%s' -- " % shim, self.read(wrapper))
        self.assertIn('BinaryName = "/usr/local/bin/mokka-container-runtime"', self.read(self.toml))
        self.assertNotIn(host, self.read(self.toml) + self.read(wrapper))
        p = self.mokka('container-runtime', 'uninstall', '--host-root', host)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(self.read(self.toml), CONTAINERD_CONFIG)
        self.assertFalse(os.path.exists(wrapper))
        p = self.mokka('container-runtime', 'install', '--host-root', 'rel')
        self.assertEqual(p.returncode, 2)
        self.assertIn("--host-root 'rel': an absolute path", p.stderr)
        p = self.mokka('container-runtime', 'install', '--host-root', host, '--mokka', '/x')
        self.assertEqual(p.returncode, 2)
        self.assertIn('give no --mokka', p.stderr)

    def test_install_fresh_file(self):
        self.toml = self.path('new', 'config.toml')
        self.wrapper = self.path('w', 'shim')
        p = self.install()
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(self.read(self.toml).startswith('version = 2\n\n[plugins.'))

    def test_runtimeclass_manifest(self):
        from cli_support import SRC
        with open(os.path.join(SRC, 'ci', 'deploy', 'runtimeclass.yaml')) as f:
            text = f.read()
        self.assertIn('kind: RuntimeClass', text)
        self.assertIn('handler: mokka', text)


def busybox_rootfs(root):
    """A root filesystem with busybox and the loader and libc the twin needs."""
    for d in ('bin', 'lib64', 'usr/lib/x86_64-linux-gnu', 'usr/bin', 'proc', 'dev', 'sys',
              'tmp'):
        os.makedirs(os.path.join(root, d), exist_ok=True)
    shutil.copy(shutil.which('busybox'), os.path.join(root, 'bin', 'busybox'))
    os.symlink('busybox', os.path.join(root, 'bin', 'sh'))
    shutil.copy('/lib64/ld-linux-x86-64.so.2', os.path.join(root, 'lib64'))
    for lib in ('libc.so.6', 'libm.so.6', 'libdl.so.2', 'libpthread.so.0', 'librt.so.1'):
        src = os.path.join('/lib/x86_64-linux-gnu', lib)
        if os.path.exists(src):
            shutil.copy(src, os.path.join(root, 'usr/lib/x86_64-linux-gnu'))


@unittest.skipUnless(os.geteuid() == 0, 'needs root for runc')
@unittest.skipUnless(os.access(RUNC, os.X_OK), 'no runc (apt install runc)')
@unittest.skipUnless(shutil.which('busybox'), 'no busybox (apt install busybox-static)')
@unittest.skipUnless(os.uname().machine == 'x86_64', 'the rootfs is built for x86_64')
@unittest.skipIf(SAN, 'a sanitized library does not load in a container without its runtime')
class RealRuncTest(ShimBase):
    """Real containers under runc, with and without the shim."""

    def container(self, visible, args, readonly=False, smi=None, shim=True):
        b = self.path('c-%s' % uuid.uuid4().hex[:8])
        os.makedirs(b)
        busybox_rootfs(os.path.join(b, 'rootfs'))
        if smi:
            shutil.copy(smi, os.path.join(b, 'rootfs', 'usr', 'bin', 'nvidia-smi'))
        subprocess.run([RUNC, 'spec'], cwd=b, check=True)
        with open(os.path.join(b, 'config.json')) as f:
            spec = json.load(f)
        spec['process']['terminal'] = False
        spec['process']['args'] = args
        if visible is not None:
            spec['process']['env'].append('NVIDIA_VISIBLE_DEVICES=' + visible)
        spec['root']['readonly'] = readonly
        with open(os.path.join(b, 'config.json'), 'w') as f:
            json.dump(spec, f)
        return b

    def run_container(self, b, shim=True):
        """create, start, wait, delete; the container's stdout."""
        name = 'mokka-e2e-%s' % uuid.uuid4().hex[:10]
        root = self.path('runc-root')
        pre = (['container-runtime', '--runtime', RUNC, '--state-dir', self.state, '--']
               if shim else None)

        def runc(*args, **kw):
            if shim:
                return subprocess.run([os.path.join(BUILD, 'mokka')] + pre +
                                      ['--root', root] + list(args), env=self.env, **kw)
            return subprocess.run([RUNC, '--root', root] + list(args), env=self.env, **kw)
        out = open(self.path(name + '.out'), 'w+')
        err = open(self.path(name + '.err'), 'w+')
        self.addCleanup(out.close)
        self.addCleanup(err.close)
        self.addCleanup(runc, 'delete', '--force', name, stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL)
        p = runc('create', '--bundle', b, name, stdin=subprocess.DEVNULL, stdout=out,
                 stderr=err, timeout=60)
        err.seek(0)
        self.assertEqual(p.returncode, 0, err.read())
        self.assertEqual(runc('start', name, timeout=30).returncode, 0)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            st = runc('state', name, stdout=subprocess.PIPE, timeout=30)
            if json.loads(st.stdout)['status'] == 'stopped':
                break
            time.sleep(0.05)
        out.seek(0)
        return out.read()

    def listed(self, text):
        return [line.split('UUID: ')[1].rstrip(')') for line in text.splitlines()
                if line.startswith('GPU ')]

    def test_twin_sees_exactly_its_gpus(self):
        want = [self.uuids[3], self.uuids[1]]
        b = self.container(','.join(want), ['/usr/bin/nvidia-smi', '-L'])
        self.assertEqual(self.listed(self.run_container(b)), want)

    def test_nvidia_smi_of_the_image(self):
        """NVIDIA's own nvidia-smi in the image reads Mokka's library."""
        if not os.access(NVIDIA_SMI, os.X_OK):
            self.skipTest('no NVIDIA nvidia-smi at %s' % NVIDIA_SMI)
        want = [self.uuids[0], self.uuids[2]]
        b = self.container(','.join(want), ['/usr/bin/nvidia-smi', '-L'], smi=NVIDIA_SMI)
        self.assertEqual(self.listed(self.run_container(b)), want)

    def test_fault_on_the_node_shows_inside(self):
        """The container maps the node's live state: a GPU lost on the node
        is lost inside."""
        p = self.mokka('inject', '--state-dir', self.state, '--gpu', '1', '--lost')
        self.assertEqual(p.returncode, 0, p.stderr)
        b = self.container(','.join(self.uuids[:2]), ['/usr/bin/nvidia-smi', '-L'])
        out = self.run_container(b)
        self.assertIn(self.uuids[0], out)
        self.assertIn('GPU is lost', out)

    def test_readonly_rootfs(self):
        b = self.container(self.uuids[2], ['/usr/bin/nvidia-smi', '-L'], readonly=True)
        self.assertEqual(self.listed(self.run_container(b)), [self.uuids[2]])

    def test_no_gpu_container_gets_nothing(self):
        b = self.container(None, ['/bin/sh', '-c', 'ls /usr/bin/nvidia-smi /run/mokka; '
                                  'echo "env: $MOKKA_STATE_DIR"'])
        out = self.run_container(b)
        self.assertEqual(out.strip(), 'env:')

    def test_cdi_edits(self):
        """The CDI spec for GPU 1, applied as a CDI runtime applies it (the
        device's env, then the common mounts and env), under plain runc;
        with podman where podman can run containers here."""
        p = self.mokka('cdi', 'generate', '--state-dir', self.state, '--output',
                       self.path('cdi.json'))
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(self.path('cdi.json')) as f:
            cdi = json.load(f)
        self.assertEqual(cdi['kind'], 'nvidia.com/gpu')
        names = [d['name'] for d in cdi['devices']]
        self.assertEqual(names[:2], ['0', self.uuids[0]])
        self.assertEqual(names[-1], 'all')
        self.assertEqual(len(names), 2 * len(self.uuids) + 1)
        dev = cdi['devices'][2]
        b = self.container(None, ['/usr/bin/nvidia-smi', '-L'])
        with open(os.path.join(b, 'config.json')) as f:
            spec = json.load(f)
        edits = cdi['containerEdits']
        spec['process']['env'] += dev['containerEdits']['env'] + edits['env']
        spec['mounts'] += [{'destination': m['containerPath'], 'source': m['hostPath'],
                            'type': 'bind', 'options': m['options']} for m in edits['mounts']]
        with open(os.path.join(b, 'config.json'), 'w') as f:
            json.dump(spec, f)
        self.assertEqual(self.listed(self.run_container(b, shim=False)), [self.uuids[1]])


if __name__ == '__main__':
    unittest.main()
