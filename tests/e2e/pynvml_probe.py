"""pynvml_probe.py - run by test_pynvml.py under a Python that has pynvml,
with Mokka's libnvidia-ml.so.1 preloaded or on LD_LIBRARY_PATH: asks NVML
something through pynvml and prints the answers as one JSON document.

    python3 pynvml_probe.py identity | sequence N | energy | getters | lost | loaded | nvlinks |
                             view UUID...
    python3 pynvml_probe.py errstrings LIBRARY   (ctypes only, no nvmlInit)

An NVML error is written as {"err": CODE}. Getters that this pynvml does not
wrap are called through its library handle with ctypes."""
import ctypes
import json
import sys
import time

C = ctypes


def main():
    cmd = sys.argv[1]
    if cmd == 'errstrings':
        print(json.dumps(errstrings(sys.argv[2])))
        return
    import pynvml
    global N
    N = pynvml
    N.nvmlInit()
    try:
        out = COMMANDS[cmd](*sys.argv[2:])
    finally:
        N.nvmlShutdown()
    print(json.dumps(out))


def errstrings(path):
    """nvmlErrorString for a sample of codes from -1 to 1000 and beyond."""
    lib = C.CDLL(path)
    lib.nvmlErrorString.restype = C.c_char_p
    lib.nvmlErrorString.argtypes = [C.c_int]
    codes = list(range(-1, 64)) + list(range(64, 1001, 7)) + [998, 999, 1000, 2 ** 31 - 1, -2 ** 31]
    return {str(c): lib.nvmlErrorString(c).decode() for c in codes}


def plain(v):
    """A pynvml answer as JSON: structs become dicts, arrays lists."""
    if isinstance(v, (bytes, bytearray)):
        return v.decode(errors='replace')
    if isinstance(v, C.Array):
        return [plain(x) for x in v]
    if isinstance(v, (C.Structure, C.Union)):
        return {name: plain(getattr(v, name)) for name, *_ in v._fields_}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, N.nvmlFriendlyObject):
        return {k: plain(x) for k, x in v.__dict__.items()}
    if hasattr(v, 'value') and isinstance(v, C._SimpleCData):
        return v.value
    return v


def call(fn, *args):
    try:
        return plain(fn(*args))
    except N.NVMLError as e:
        return {'err': e.value}


def raw(name, *args):
    """Calls an NVML function that this pynvml has no wrapper for."""
    rc = N._nvmlGetFunctionPointer(name)(*args)
    if rc != 0:
        raise N.NVMLError(rc)


def handles():
    return [N.nvmlDeviceGetHandleByIndex(i) for i in range(N.nvmlDeviceGetCount())]


def mib(b):
    return b // (1 << 20)


# --- commands -------------------------------------------------------------------------

def identity():
    out = []
    for h in handles():
        u = N.nvmlDeviceGetUtilizationRates(h)
        out.append({
            'name': N.nvmlDeviceGetName(h),
            'uuid': N.nvmlDeviceGetUUID(h),
            'memory_mib': mib(N.nvmlDeviceGetMemoryInfo(h).total),
            'temperature': N.nvmlDeviceGetTemperature(h, N.NVML_TEMPERATURE_GPU),
            'power_mw': N.nvmlDeviceGetPowerUsage(h),
            'utilization': [u.gpu, u.memory],
        })
    return out


def sequence(n):
    """n reads of temperature, GPU utilisation and power, per device."""
    out = []
    for h in handles():
        temp, util, power = [], [], []
        for _ in range(int(n)):
            temp.append(call(N.nvmlDeviceGetTemperature, h, N.NVML_TEMPERATURE_GPU))
            util.append(call(N.nvmlDeviceGetUtilizationRates, h))
            power.append(call(N.nvmlDeviceGetPowerUsage, h))
        out.append({'temperature': temp, 'utilization': [u['gpu'] if isinstance(u, dict) and 'gpu' in u else u
                                                         for u in util], 'power': power})
    return out


def energy():
    """Energy before and after a 0.3 s pause, the draw, and a time that
    contains the library's interval between the two readings."""
    out = []
    hs = handles()
    first = []
    for h in hs:
        p = N.nvmlDeviceGetPowerUsage(h)
        t0 = time.monotonic()
        first.append((p, t0, N.nvmlDeviceGetTotalEnergyConsumption(h)))
    time.sleep(0.3)
    for h, (p, t0, e0) in zip(hs, first):
        e1 = N.nvmlDeviceGetTotalEnergyConsumption(h)
        out.append({'power_mw': p, 'e0': e0, 'e1': e1, 'seconds': time.monotonic() - t0})
    return out


def lost():
    """By index a lost GPU answers GPU_IS_LOST, as from the driver; by its PCI
    bus id (the default DGX A100 layout's second slot) it is still found."""
    out = []
    for i in range(N.nvmlDeviceGetCount()):
        by_index = call(N.nvmlDeviceGetHandleByIndex, i)
        h = N.nvmlDeviceGetHandleByPciBusId('00000000:0F:00.0') if i == 1 else by_index
        out.append({'by_index': by_index if isinstance(by_index, dict) else 'ok',
                    'uuid': call(N.nvmlDeviceGetUUID, h), 'bus': call(lambda x: N.nvmlDeviceGetPciInfo(x).busId, h),
                    'temperature': call(N.nvmlDeviceGetTemperature, h, 0), 'power': call(N.nvmlDeviceGetPowerUsage, h),
                    'clocks': call(N.nvmlDeviceGetClockInfo, h, 0),
                    'processes': call(N.nvmlDeviceGetComputeRunningProcesses, h)})
    return out


def loaded():
    """Which libnvidia-ml.so.1 this process has mapped, and what it says."""
    with open('/proc/self/maps') as f:
        paths = sorted({line.split()[-1] for line in f if 'libnvidia-ml' in line})
    h = N.nvmlDeviceGetHandleByIndex(0)
    return {'maps': paths, 'count': N.nvmlDeviceGetCount(), 'name': N.nvmlDeviceGetName(h),
            'temperature': N.nvmlDeviceGetTemperature(h, 0)}


# --- every getter ------------------------------------------------------------------------

class Temperature(C.Structure):
    _fields_ = [('version', C.c_uint), ('sensorType', C.c_int), ('temperature', C.c_int)]


class Margin(C.Structure):
    _fields_ = [('version', C.c_uint), ('marginTemperature', C.c_int)]


class RemappedRowsV2(C.Structure):
    _fields_ = [(n, C.c_uint) for n in ('corrActiveRemaps', 'corrInactiveRemaps', 'uncActiveRemaps',
                                        'uncInactiveRemaps', 'bPending', 'bFailureOccurred')]


class ProcessV1(C.Structure):
    _fields_ = [('pid', C.c_uint), ('usedGpuMemory', C.c_ulonglong)]


def version(struct, v):
    return C.sizeof(struct) | (v << 24)


def temperature_v(h):
    t = Temperature(version(Temperature, 1), 0, 0)
    raw('nvmlDeviceGetTemperatureV', h, C.byref(t))
    return t.temperature


def margin(h):
    m = Margin(version(Margin, 1), 0)
    raw('nvmlDeviceGetMarginTemperature', h, C.byref(m))
    return m.marginTemperature


def out_uints(name, n, *args):
    def get(h):
        vals = [C.c_uint() for _ in range(n)]
        raw(name, h, *args, *[C.byref(v) for v in vals])
        return [v.value for v in vals]
    return get


def out_ull(name, *args):
    def get(h):
        v = C.c_ulonglong()
        raw(name, h, *args, C.byref(v))
        return v.value
    return get


def listed(name, struct):
    """A list getter with NVML's count convention, called like pynvml does."""
    def get(h):
        n = C.c_uint(0)
        try:
            raw(name, h, C.byref(n), None)
            return []
        except N.NVMLError as e:
            if e.value != N.NVML_ERROR_INSUFFICIENT_SIZE:
                raise
        arr = (struct * n.value)()
        raw(name, h, C.byref(n), arr)
        return [plain(x) for x in arr[:n.value]]
    return get


def thermal_settings(h):
    s = N.c_nvmlGpuThermalSettings_t()
    N.nvmlDeviceGetThermalSettings(h, 15, C.byref(s))
    return {'count': s.count, 'current': [s.sensor[i].currentTemp for i in range(s.count)]}


def with_refs(fn, n, *args):
    def get(h):
        vals = [C.c_uint() for _ in range(n)]
        fn(h, *args, *[C.byref(v) for v in vals])
        return [v.value for v in vals]
    return get


def remapped_v2(h):
    info = RemappedRowsV2()
    raw('nvmlDeviceGetRemappedRows_v2', h, C.byref(info))
    return plain(info)


def gsp_version(h):
    buf = C.create_string_buffer(64)
    N.nvmlDeviceGetGspFirmwareVersion(h, buf)
    return buf.value.decode()


FIELDS = [1, 2, 3, 4, 5, 6, 11, 12, 29, 30, 31, 82, 83, 91, (164, 0), (165, 0), (166, 0), 142, 143, 144, 145,
          94, (185, 0), (186, 0), (186, 1), 187, 188, 189, 190, 191, 74, 60, 66, 38, 9999]


def fields(h):
    return [{'id': v.fieldId, 'scope': v.scopeId, 'rc': v.nvmlReturn, 'type': v.valueType,
             'ui': v.value.uiVal, 'ull': v.value.ullVal, 'ts': v.timestamp, 'latency': v.latencyUsec}
            for v in N.nvmlDeviceGetFieldValues(h, FIELDS)]


def getter_table():
    T = {
        'Temperature': lambda h: N.nvmlDeviceGetTemperature(h, 0),
        'TemperatureV': temperature_v,
        'MarginTemperature': margin,
        'ThermalSettings': thermal_settings,
        'FanSpeed': N.nvmlDeviceGetFanSpeed,
        'FanSpeed_v2': lambda h: N.nvmlDeviceGetFanSpeed_v2(h, 0),
        'TargetFanSpeed': lambda h: N.nvmlDeviceGetTargetFanSpeed(h, 0),
        'NumFans': N.nvmlDeviceGetNumFans,
        'MinMaxFanSpeed': with_refs(N.nvmlDeviceGetMinMaxFanSpeed, 2),
        'FanControlPolicy_v2': with_refs(N.nvmlDeviceGetFanControlPolicy_v2, 1, 0),
        'PowerUsage': N.nvmlDeviceGetPowerUsage,
        'TotalEnergyConsumption': N.nvmlDeviceGetTotalEnergyConsumption,
        'PowerManagementMode': N.nvmlDeviceGetPowerManagementMode,
        'PowerManagementLimit': N.nvmlDeviceGetPowerManagementLimit,
        'EnforcedPowerLimit': N.nvmlDeviceGetEnforcedPowerLimit,
        'PowerManagementDefaultLimit': N.nvmlDeviceGetPowerManagementDefaultLimit,
        'PowerManagementLimitConstraints': N.nvmlDeviceGetPowerManagementLimitConstraints,
        'PowerSource': N.nvmlDeviceGetPowerSource,
        'PerformanceState': N.nvmlDeviceGetPerformanceState,
        'PowerState': N.nvmlDeviceGetPowerState,
        'SupportedPerformanceStates': N.nvmlDeviceGetSupportedPerformanceStates,
        'SupportedMemoryClocks': N.nvmlDeviceGetSupportedMemoryClocks,
        'CurrentClocksEventReasons': out_ull('nvmlDeviceGetCurrentClocksEventReasons'),
        'CurrentClocksThrottleReasons': N.nvmlDeviceGetCurrentClocksThrottleReasons,
        'SupportedClocksEventReasons': out_ull('nvmlDeviceGetSupportedClocksEventReasons'),
        'SupportedClocksThrottleReasons': N.nvmlDeviceGetSupportedClocksThrottleReasons,
        'AutoBoostedClocksEnabled': N.nvmlDeviceGetAutoBoostedClocksEnabled,
        'ViolationStatus': lambda h: N.nvmlDeviceGetViolationStatus(h, 0),
        'UtilizationRates': N.nvmlDeviceGetUtilizationRates,
        'EncoderUtilization': N.nvmlDeviceGetEncoderUtilization,
        'DecoderUtilization': N.nvmlDeviceGetDecoderUtilization,
        'JpgUtilization': out_uints('nvmlDeviceGetJpgUtilization', 2),
        'OfaUtilization': out_uints('nvmlDeviceGetOfaUtilization', 2),
        'EncoderCapacity': lambda h: N.nvmlDeviceGetEncoderCapacity(h, 0),
        'EncoderStats': N.nvmlDeviceGetEncoderStats,
        'EncoderSessions': N.nvmlDeviceGetEncoderSessions,
        'FBCStats': N.nvmlDeviceGetFBCStats,
        'FBCSessions': N.nvmlDeviceGetFBCSessions,
        'TotalEccErrors': lambda h: [N.nvmlDeviceGetTotalEccErrors(h, e, c) for e in (0, 1) for c in (0, 1)],
        'DetailedEccErrors': lambda h: N.nvmlDeviceGetDetailedEccErrors(h, 1, 0),
        'MemoryErrorCounter': lambda h: [N.nvmlDeviceGetMemoryErrorCounter(h, 1, 1, loc) for loc in (0, 1, 2, 3, 7)],
        'RetiredPages': lambda h: [N.nvmlDeviceGetRetiredPages(h, c) for c in (0, 1)],
        'RetiredPages_v2': lambda h: N.nvmlDeviceGetRetiredPages_v2(h, 1),
        'RetiredPagesPendingStatus': N.nvmlDeviceGetRetiredPagesPendingStatus,
        'RemappedRows': N.nvmlDeviceGetRemappedRows,
        'RemappedRows_v2': remapped_v2,
        'RowRemapperHistogram': N.nvmlDeviceGetRowRemapperHistogram,
        'ComputeRunningProcesses': listed('nvmlDeviceGetComputeRunningProcesses', ProcessV1),
        'ComputeRunningProcesses_v2': listed('nvmlDeviceGetComputeRunningProcesses_v2', N.c_nvmlProcessInfo_t),
        'ComputeRunningProcesses_v3': N.nvmlDeviceGetComputeRunningProcesses_v3,
        'GraphicsRunningProcesses': listed('nvmlDeviceGetGraphicsRunningProcesses', ProcessV1),
        'GraphicsRunningProcesses_v2': listed('nvmlDeviceGetGraphicsRunningProcesses_v2', N.c_nvmlProcessInfo_t),
        'GraphicsRunningProcesses_v3': N.nvmlDeviceGetGraphicsRunningProcesses_v3,
        'MPSComputeRunningProcesses': listed('nvmlDeviceGetMPSComputeRunningProcesses', ProcessV1),
        'MPSComputeRunningProcesses_v2': listed('nvmlDeviceGetMPSComputeRunningProcesses_v2', N.c_nvmlProcessInfo_t),
        'MPSComputeRunningProcesses_v3': N.nvmlDeviceGetMPSComputeRunningProcesses_v3,
        'ProcessUtilization': lambda h: N.nvmlDeviceGetProcessUtilization(h, 0),
        'AccountingMode': N.nvmlDeviceGetAccountingMode,
        'AccountingBufferSize': N.nvmlDeviceGetAccountingBufferSize,
        'FieldValues': fields,
        'ClearFieldValues': lambda h: N.nvmlDeviceClearFieldValues(h, [3]),
        'GpuOperationMode': N.nvmlDeviceGetGpuOperationMode,
        'DriverModel': N.nvmlDeviceGetDriverModel,
        'DriverModel_v2': out_uints('nvmlDeviceGetDriverModel_v2', 2),
        'MemoryBusWidth': N.nvmlDeviceGetMemoryBusWidth,
        'PcieThroughput': lambda h: [N.nvmlDeviceGetPcieThroughput(h, c) for c in (0, 1)],
        'PcieReplayCounter': N.nvmlDeviceGetPcieReplayCounter,
        'IrqNum': N.nvmlDeviceGetIrqNum,
        'GspFirmwareMode': with_refs(N.nvmlDeviceGetGspFirmwareMode, 2),
        'GspFirmwareVersion': gsp_version,
    }
    for name, kind in (('GRAPHICS', 0), ('SM', 1), ('MEM', 2), ('VIDEO', 3)):
        T['ClockInfo.' + name] = lambda h, k=kind: N.nvmlDeviceGetClockInfo(h, k)
        T['MaxClockInfo.' + name] = lambda h, k=kind: N.nvmlDeviceGetMaxClockInfo(h, k)
        T['ApplicationsClock.' + name] = lambda h, k=kind: N.nvmlDeviceGetApplicationsClock(h, k)
        T['DefaultApplicationsClock.' + name] = lambda h, k=kind: N.nvmlDeviceGetDefaultApplicationsClock(h, k)
        T['MaxCustomerBoostClock.' + name] = lambda h, k=kind: N.nvmlDeviceGetMaxCustomerBoostClock(h, k)
        for cid in range(4):
            T['Clock.%s.%d' % (name, cid)] = lambda h, k=kind, i=cid: N.nvmlDeviceGetClock(h, k, i)
    for t in range(8):
        T['TemperatureThreshold.%d' % t] = lambda h, k=t: N.nvmlDeviceGetTemperatureThreshold(h, k)
    T['SupportedGraphicsClocks'] = lambda h: N.nvmlDeviceGetSupportedGraphicsClocks(
        h, N.nvmlDeviceGetSupportedMemoryClocks(h)[0])
    return T


def getters():
    """Every getter on every GPU, and on each MIG device of a GPU in MIG mode."""
    table = getter_table()
    out = []
    for h in handles():
        devs = [('gpu', h)]
        mode = call(N.nvmlDeviceGetMigMode, h)
        if isinstance(mode, list) and mode[0] == 1:
            for j in range(N.nvmlDeviceGetMaxMigDeviceCount(h)):
                try:
                    devs.append(('mig', N.nvmlDeviceGetMigDeviceHandleByIndex(h, j)))
                except N.NVMLError_NotFound:
                    break
        for kind, d in devs:
            res = {name: call(fn, d) for name, fn in table.items()}
            res['_kind'] = kind
            res['_name'] = N.nvmlDeviceGetName(d)
            res['_ecc'] = call(N.nvmlDeviceGetEccMode, d)
            res['_arch'] = call(N.nvmlDeviceGetArchitecture, d)
            out.append(res)
    return out


def view(*uuids):
    """What enumeration shows (NVIDIA_VISIBLE_DEVICES): each GPU's index,
    UUID and MIG mode with the MIG devices under it, the GPU instances a
    profile lists, and what a lookup of each given UUID finds."""
    out = {'count': N.nvmlDeviceGetCount(), 'gpus': [], 'lookup': {}}
    for i, h in enumerate(handles()):
        g = {'index': N.nvmlDeviceGetIndex(h), 'uuid': N.nvmlDeviceGetUUID(h),
             'mig': call(N.nvmlDeviceGetMigMode, h), 'migs': []}
        if g['mig'] == [1, 1]:
            for j in range(N.nvmlDeviceGetMaxMigDeviceCount(h)):
                m = call(N.nvmlDeviceGetMigDeviceHandleByIndex, h, j)
                if isinstance(m, dict):
                    break
                g['migs'].append(N.nvmlDeviceGetUUID(m))
        out['gpus'].append(g)
    for u in uuids:
        h = call(N.nvmlDeviceGetHandleByUUID, u)
        out['lookup'][u] = h if isinstance(h, dict) else 'found'
    return out


def nvlinks():
    """Per GPU: every link's state, version, far-end type and PCI bus id and
    device id, then P2P over NVLink to every GPU."""
    hs = handles()
    out = []
    for h in hs:
        links = []
        for link in range(N.NVML_NVLINK_MAX_LINKS):
            state = call(N.nvmlDeviceGetNvLinkState, h, link)
            if isinstance(state, dict):
                links.append(state)
                continue
            pci = call(N.nvmlDeviceGetNvLinkRemotePciInfo, h, link)
            links.append({'state': state, 'version': call(N.nvmlDeviceGetNvLinkVersion, h, link),
                          'remoteType': call(N.nvmlDeviceGetNvLinkRemoteDeviceType, h, link),
                          'remoteBusId': pci.get('busId', pci),
                          'remoteDeviceId': pci.get('pciDeviceId')})
        p2p = [call(N.nvmlDeviceGetP2PStatus, h, o, N.NVML_P2P_CAPS_INDEX_NVLINK) for o in hs]
        out.append({'links': links, 'p2p': p2p})
    return out


COMMANDS = {'identity': identity, 'sequence': sequence, 'energy': energy, 'getters': getters,
            'lost': lost, 'loaded': loaded, 'view': view, 'nvlinks': nvlinks}

if __name__ == '__main__':
    main()
