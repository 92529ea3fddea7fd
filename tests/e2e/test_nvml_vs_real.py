"""test_nvml_vs_real.py - the built libnvidia-ml.so.1 against NVIDIA's real
NVML library (the Debian libnvidia-ml1 package) in what the real one can do
without a driver: the text of every error code, and the answer of calls
made before nvmlInit. nvmlInit itself is never called on the real library
(without a driver it may create /dev/nvidiactl as root).

The private export table nvidia-smi asks for (nvmlInternalGetExportTable)
is compared in what needs no driver: the answer to an id neither knows, to
NULL arguments, and the size word of the table nvidia-smi 535 reads.

Not compared: nvmlShutdown without nvmlInit. NVIDIA documents
NVML_ERROR_UNINITIALIZED and Mokka answers that, but the 535 library
answers NVML_SUCCESS when no driver is loaded.

Env: MOKKA_BUILD (directory holding lib/libnvidia-ml.so.1), MOKKA_SAN
(a sanitizer build cannot be loaded into Python: skipped)."""
import ctypes
import os
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get('MOKKA_SRC') or os.path.dirname(os.path.dirname(HERE))
BUILD = os.environ.get('MOKKA_BUILD') or SRC
MOCK = os.path.join(BUILD, 'lib', 'libnvidia-ml.so.1')
REAL = ('/usr/lib/x86_64-linux-gnu/nvidia/current/libnvidia-ml.so.1',
        '/usr/lib/aarch64-linux-gnu/nvidia/current/libnvidia-ml.so.1',
        '/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1')

NVML_ERROR_UNINITIALIZED = 1


def real_path():
    for p in REAL:
        if os.path.exists(p):
            return p
    return None


class VersusRealTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        if os.environ.get('MOKKA_SAN'):
            raise unittest.SkipTest('a sanitizer build (%s) cannot be loaded into Python'
                                    % os.environ['MOKKA_SAN'])
        path = real_path()
        if not path:
            raise unittest.SkipTest('NVIDIA\'s libnvidia-ml.so.1 is not installed '
                                    '(sh ci/deps.sh installs libnvidia-ml1)')
        cls.real = ctypes.CDLL(path)
        cls.mock = ctypes.CDLL(MOCK)
        for lib in (cls.real, cls.mock):
            lib.nvmlErrorString.restype = ctypes.c_char_p
            lib.nvmlErrorString.argtypes = [ctypes.c_int]

    def test_error_strings(self):
        for code in list(range(0, 64)) + [999, 12345, -1]:
            with self.subTest(code=code):
                self.assertEqual(self.mock.nvmlErrorString(code),
                                 self.real.nvmlErrorString(code))

    def test_calls_before_init(self):
        n = ctypes.c_uint(7)
        h = ctypes.c_void_p()
        buf = ctypes.create_string_buffer(96)
        calls = {
            'nvmlDeviceGetCount_v2': lambda lib: lib.nvmlDeviceGetCount_v2(ctypes.byref(n)),
            'nvmlDeviceGetHandleByIndex_v2':
                lambda lib: lib.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(h)),
            'nvmlDeviceGetHandleByUUID':
                lambda lib: lib.nvmlDeviceGetHandleByUUID(b'GPU-0', ctypes.byref(h)),
            'nvmlSystemGetDriverVersion':
                lambda lib: lib.nvmlSystemGetDriverVersion(buf, 96),
            'nvmlEventSetCreate': lambda lib: lib.nvmlEventSetCreate(ctypes.byref(h)),
            'nvmlDeviceGetTemperature':
                lambda lib: lib.nvmlDeviceGetTemperature(None, 0, ctypes.byref(n)),
        }
        for name, call in calls.items():
            with self.subTest(call=name):
                real = call(self.real)
                self.assertEqual(real, NVML_ERROR_UNINITIALIZED)
                self.assertEqual(call(self.mock), real)


    def test_export_table_ids_and_arguments(self):
        smi_id = bytes.fromhex('c4fe3e6cc98f6c4ea327ee696e12f7c4')
        unknown = bytes(16)
        for lib in (self.real, self.mock):
            lib.nvmlInternalGetExportTable.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        answers = []
        for lib in (self.real, self.mock):
            table = ctypes.c_void_p(1)
            rc = lib.nvmlInternalGetExportTable(ctypes.byref(table), unknown)
            answers.append((rc, table.value,
                            lib.nvmlInternalGetExportTable(None, smi_id),
                            lib.nvmlInternalGetExportTable(ctypes.byref(table), None)))
            table = ctypes.c_void_p()
            self.assertEqual(lib.nvmlInternalGetExportTable(ctypes.byref(table), smi_id), 0)
            answers.append(ctypes.c_uint64.from_address(table.value).value)
        self.assertEqual(answers[0], answers[2])
        self.assertEqual(answers[0], (2, None, 2, 2))
        self.assertEqual(answers[1], answers[3])   # the size word: 1960 in 535


if __name__ == '__main__':
    unittest.main()
