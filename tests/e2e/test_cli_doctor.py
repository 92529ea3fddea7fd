"""test_cli_doctor.py - `mokka doctor`: the library layer on the build, a
config that loads and one that does not, processes on and off the mock (and
the two classic failures: "Healthy but nvidia-smi fails in the container",
"LD_PRELOAD had no effect"), and kubelet sockets made here with Python's
socket module: listening, stale, missing.

Env: see cli_support.py."""
import os
import shutil
import socket
import subprocess
import sys
import unittest

from cli_support import CliTest, LIB, MOKKA, REAL_NVML, SEED, child_pid

# Loads NVML by name through ctypes (no pynvml needed), says so, and waits.
NVML_BY_NAME = ('import ctypes, sys, time; lib = ctypes.CDLL("libnvidia-ml.so.1"); '
                'print("ready", lib.nvmlInit_v2(), flush=True); time.sleep(60)')
NVML_BY_PATH = ('import ctypes, sys, time; ctypes.CDLL(%r); print("ready", flush=True); '
                'time.sleep(60)' % REAL_NVML)
SLEEP = 'import os, time; print("ready", os.getpid(), flush=True); time.sleep(60)'


class DoctorTest(CliTest):

    def doctor(self, *args, env=None):
        return self.mokka('doctor', *args, env=env)

    def lines(self, p, word):
        return [l.strip()[6:] for l in p.stdout.splitlines() if l.strip().startswith(word + '  ')]

    def assertLine(self, p, word, text):
        found = [l for l in self.lines(p, word) if text in l]
        self.assertTrue(found, 'no %s line with %r in:\n%s' % (word, text, p.stdout))

    def on_mock(self, script, *args):
        """Starts `mokka exec python3 -c script`; returns the python's pid."""
        proc, _ = self.start([MOKKA, 'exec'] + list(args) + ['--', sys.executable, '-c', script],
                             ready='ready')
        return child_pid(proc.pid)

    def off_mock(self, script, env=None):
        proc, _ = self.start([sys.executable, '-c', script], env=env, ready='ready')
        return proc.pid


class DoctorUsageTest(DoctorTest):

    def test_help_is_what_help_doctor_prints(self):
        a, b = self.doctor('--help'), self.mokka('help', 'doctor')
        self.assertEqual(a.stdout, b.stdout)
        self.assertEqual((a.returncode, b.returncode), (0, 0))

    def test_bad_pid(self):
        for bad in ('abc', '0', '-3', '12x'):
            self.usage_error(self.doctor('--pid', bad), '--pid')

    def test_unknown_option_and_argument(self):
        self.usage_error(self.doctor('--bogus'), 'bogus')
        self.usage_error(self.doctor('extra'), "unexpected argument 'extra'")


class DoctorLibraryTest(DoctorTest):

    def test_library_passes(self):
        p = self.doctor()
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertLine(p, 'PASS', 'holds the bundled library')
        self.assertLine(p, 'PASS', 'its SONAME is libnvidia-ml.so.1')
        self.assertLine(p, 'PASS', 'exports all')
        self.assertLine(p, 'PASS', 'built-in default universe loads (8 GPUs)')
        # No kubelet directory here: a warning, not a failure.
        self.assertLine(p, 'WARN', 'not a Kubernetes node')
        self.assertRegex(p.stdout, r'doctor: \d+ passed, 0 failed, \d+ warnings\n$')

    def test_good_config(self):
        p = self.doctor('--config', SEED)
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertLine(p, 'PASS', 'config %s loads (2 GPUs)' % SEED)

    def test_config_from_the_environment(self):
        p = self.doctor(env=dict(self.env, MOCK_CONFIG_PATH=SEED))
        self.assertLine(p, 'PASS', 'config %s loads (2 GPUs)' % SEED)

    def test_bad_config_fails_with_position_and_fix(self):
        bad = self.path('bad.yaml')
        with open(bad, 'w') as f:
            f.write('version: 1.0\ncount: x\n')
        p = self.doctor('--config', bad)
        self.assertEqual(p.returncode, 1)
        self.assertLine(p, 'FAIL', '%s:2:8: error:' % bad)
        self.assertIn('fix: `mokka lint %s`' % bad, p.stdout)

    def test_library_from_a_lone_copy(self):
        lone = self.path('bin', 'mokka')
        os.makedirs(os.path.dirname(lone))
        shutil.copy2(MOKKA, lone)
        p = self.mokka('doctor', binary=lone)
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertLine(p, 'PASS', self.path('cache', 'mokka'))


class DoctorProcessTest(DoctorTest):

    def setUp(self):
        super().setUp()
        self.need_unsanitized_peers()

    def test_process_on_the_mock_passes(self):
        pid = self.on_mock(NVML_BY_NAME, '--config', SEED)
        p = self.doctor('--pid', str(pid))
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertIn('process %d (python' % pid, p.stdout)
        self.assertLine(p, 'PASS', "Mokka's libnvidia-ml.so.1 is mapped")
        self.assertLine(p, 'PASS', 'LD_PRELOAD=')
        self.assertLine(p, 'PASS', 'MOCK_CONFIG_PATH=%s loads (2 GPUs)' % SEED)
        self.assertLine(p, 'PASS', 'lists process %d as attached' % pid)

    def test_process_off_the_mock(self):
        pid = self.off_mock(SLEEP)
        p = self.doctor('--pid', str(pid))
        self.assertEqual(p.returncode, 1)
        self.assertLine(p, 'FAIL', 'Healthy but nvidia-smi fails in the container: no '
                        'libnvidia-ml.so.1 is mapped')
        self.assertIn('fix: start it with `mokka exec`', p.stdout)

    def test_real_driver_library_mapped(self):
        if not os.path.exists(REAL_NVML):
            self.skipTest('no real libnvidia-ml.so.1 at %s' % REAL_NVML)
        pid = self.off_mock(NVML_BY_PATH)
        p = self.doctor('--pid', str(pid))
        self.assertEqual(p.returncode, 1)
        self.assertLine(p, 'FAIL', 'Healthy but nvidia-smi fails in the container: the real '
                        'NVIDIA driver library is mapped')

    def test_dlopen_by_absolute_path_defeats_the_preload(self):
        if not os.path.exists(REAL_NVML):
            self.skipTest('no real libnvidia-ml.so.1 at %s' % REAL_NVML)
        pid = self.on_mock(NVML_BY_PATH)
        p = self.doctor('--pid', str(pid))
        self.assertEqual(p.returncode, 1)
        self.assertLine(p, 'FAIL', 'LD_PRELOAD had no effect for part of the program')
        self.assertLine(p, 'FAIL', 'are both mapped')

    def test_preload_stripped_by_a_wrapper(self):
        proc, _ = self.start([MOKKA, 'exec', 'sh', '-c',
                              'echo ready; env -u LD_PRELOAD -u LD_LIBRARY_PATH sleep 60; true'],
                             ready='ready')
        sh = child_pid(proc.pid, 'sh')
        pid = child_pid(sh, 'sleep')
        p = self.doctor('--pid', str(pid))
        self.assertEqual(p.returncode, 1)
        self.assertLine(p, 'FAIL', 'LD_PRELOAD had no effect: its parent %d (sh) has it' % sh)

    def test_static_binary(self):
        cc = shutil.which(os.environ.get('CC') or 'cc')
        if not cc:
            self.skipTest('no C compiler to build a static program')
        src, exe = self.path('st.c'), self.path('st')
        with open(src, 'w') as f:
            f.write('#include <stdio.h>\n#include <unistd.h>\n'
                    'int main(void) { puts("ready"); fflush(stdout); sleep(60); return 0; }\n')
        if subprocess.run([cc, '-static', '-o', exe, src], stderr=subprocess.DEVNULL).returncode:
            self.skipTest('cannot link statically here (no libc.a)')
        proc, _ = self.start([MOKKA, 'exec', exe], ready='ready')
        pid = child_pid(proc.pid)
        p = self.doctor('--pid', str(pid))
        self.assertEqual(p.returncode, 1)
        self.assertLine(p, 'FAIL', 'LD_PRELOAD had no effect: the program is statically linked')

    def test_library_of_another_architecture(self):
        # Mokka's library with its ELF machine made the other one's
        # (x86-64 <-> AArch64): what an arm64 node gets from an amd64 image.
        with open(LIB, 'rb') as f:
            data = bytearray(f.read())
        ours = int.from_bytes(data[18:20], 'little')
        other = 183 if ours == 62 else 62  # EM_AARCH64, EM_X86_64
        data[18:20] = other.to_bytes(2, 'little')
        lib = self.path('libnvidia-ml.so.1')
        with open(lib, 'wb') as f:
            f.write(data)
        pid = self.off_mock(SLEEP, env=dict(os.environ, LD_PRELOAD=lib))
        p = self.doctor('--pid', str(pid))
        self.assertEqual(p.returncode, 1)
        names = {62: 'x86-64', 183: 'arm64 (AArch64)'}
        self.assertLine(p, 'FAIL', 'LD_PRELOAD had no effect: architecture mismatch: the program '
                        'is built for %s, the library its LD_PRELOAD=%s names for %s'
                        % (names[ours], lib, names[other]))
        self.assertIn("fix: give it Mokka's library built for the program's architecture", p.stdout)

    def test_no_such_process(self):
        p = self.doctor('--pid', '2147483646')
        self.assertEqual(p.returncode, 1)
        self.assertLine(p, 'FAIL', 'no process 2147483646')


class DoctorSocketTest(DoctorTest):

    def listen(self, path):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.addCleanup(s.close)
        s.bind(path)
        s.listen(8)
        return s

    def stale(self, path):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(path)
        s.close()  # the file stays, nobody listens

    def kubelet_dir(self):
        d = self.path('device-plugins')
        os.makedirs(d)
        return d

    def test_listening_sockets_pass(self):
        d = self.kubelet_dir()
        self.listen(os.path.join(d, 'kubelet.sock'))
        self.listen(os.path.join(d, 'nvidia-gpu.sock'))
        p = self.doctor('--kubelet-dir', d)
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertLine(p, 'PASS', 'kubelet socket %s/kubelet.sock accepts connections' % d)
        self.assertLine(p, 'PASS', 'plugin socket %s/nvidia-gpu.sock accepts connections' % d)

    def test_default_dir_from_the_environment(self):
        d = self.kubelet_dir()
        self.listen(os.path.join(d, 'kubelet.sock'))
        p = self.doctor(env=dict(self.env, MOKKA_KUBELET_DIR=d))
        self.assertLine(p, 'PASS', 'kubelet socket %s/kubelet.sock accepts' % d)
        self.assertLine(p, 'WARN', 'no device-plugin sockets')

    def test_stale_plugin_socket_fails(self):
        d = self.kubelet_dir()
        self.listen(os.path.join(d, 'kubelet.sock'))
        self.stale(os.path.join(d, 'nvidia-gpu.sock'))
        p = self.doctor('--kubelet-dir', d)
        self.assertEqual(p.returncode, 1)
        self.assertLine(p, 'FAIL', 'nvidia-gpu.sock refuses connections: nothing listens')
        self.assertIn('fix: restart the device plugin', p.stdout)

    def test_no_kubelet_socket_fails(self):
        d = self.kubelet_dir()
        p = self.doctor('--kubelet-dir', d)
        self.assertEqual(p.returncode, 1)
        self.assertLine(p, 'FAIL', 'kubelet.sock: the kubelet is not running here')

    def test_stale_kubelet_socket_fails(self):
        d = self.kubelet_dir()
        self.stale(os.path.join(d, 'kubelet.sock'))
        p = self.doctor('--kubelet-dir', d)
        self.assertEqual(p.returncode, 1)
        self.assertLine(p, 'FAIL', 'kubelet.sock refuses connections')

    def test_named_dir_missing_fails(self):
        p = self.doctor('--kubelet-dir', self.path('nope'))
        self.assertEqual(p.returncode, 1)
        self.assertLine(p, 'FAIL', 'No such file or directory')


if __name__ == '__main__':
    unittest.main()
