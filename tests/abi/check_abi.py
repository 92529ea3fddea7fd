#!/usr/bin/env python3
"""check_abi.py - compares Mokka's NVML declarations (lib/nvml/abi) with a
reference nvml.h from NVIDIA, using clang to read both.

For every name found in both headers it checks:
  structs/unions  size, alignment, and each field's name, offset and size
                  (fields of unnamed nested records included), and the tag
  prototypes      the canonical function type (compared as the C++ mangling
                  of a pointer to the function, which spells out every
                  parameter and the return type with typedefs resolved)
  constants       the value of every enum constant and integer #define
Names only in ours are counted as "not in reference"; they are not errors.

Both headers are read with NVML_NO_UNVERSIONED_FUNC_DEFS defined, so that
NVIDIA's header declares the old unversioned functions (nvmlInit, ...)
instead of renaming them to the newest version with macros.

Exit status: 0 all matched, 1 any mismatch, 77 reference header not found,
2 clang failed.

  check_abi.py [--nvml-h /usr/include/nvml.h] [--ours lib/nvml/abi/nvml_abi.h]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OURS = os.path.join(HERE, '..', '..', 'lib', 'nvml', 'abi', 'nvml_abi.h')
SKIP = 77

# Macros that describe the header itself rather than the ABI.
NOT_ABI = {'NVML_API_VERSION', 'NVML_API_VERSION_STR'}

# Intended differences, by the reference header's NVML_API_VERSION (11: CUDA
# 11.x and 12.0, 12: CUDA 12.1-12.9). Ours follows NVML 13.3; these are the
# names that moved since. They are printed as "known", not counted as errors.
# Against an API 13 header nothing is waived.
_GREW = 'count/max grew as NVML added members'
_COUNTS = ('NVML_BRAND_COUNT', 'NVML_COMPUTE_INSTANCE_PROFILE_COUNT',
           'NVML_DEVICE_VGPU_CAP_COUNT', 'NVML_FI_MAX', 'NVML_GPM_METRIC_MAX',
           'NVML_GPU_INSTANCE_PROFILE_COUNT', 'NVML_INFOROM_COUNT',
           'NVML_NVLINK_MAX_LINKS', 'NVML_SAMPLINGTYPE_COUNT',
           'NVML_TEMPERATURE_THRESHOLD_COUNT', 'NVML_VALUE_TYPE_COUNT',
           'NVML_VGPU_CAP_COUNT', 'NVML_VGPU_DRIVER_CAP_COUNT',
           'NVML_POWER_SMOOTHING_NUM_PROFILE_PARAMS', 'nvmlEventTypeAll')
_COMMON = dict({n: _GREW for n in _COUNTS}, **{
    'nvmlGpmMetricsGet_t': 'metrics[NVML_GPM_METRIC_MAX] grew; only numMetrics entries are used',
    'nvmlValue_t': 'union gained siVal and usVal; size unchanged',
    'nvmlGpuFabricInfo_t': 'field partitionId renamed cliqueId; same offset and size',
})
_PROCINFO = 'nvmlProcessInfo_t names struct nvmlProcessInfo_v2_st since 12.x; same layout'
_FABRIC_V = 'nvmlGpuFabricInfoV_t is v3 (healthSummary added) since 13.0; the version field tells'
_FI_RENUMBERED = 'field id renumbered in NVML 13.1'
KNOWN = {
    11: dict(_COMMON, **{
        'nvmlProcessInfo_t': _PROCINFO,
        'nvmlDeviceGetComputeRunningProcesses_v3': _PROCINFO,
        'nvmlDeviceGetGraphicsRunningProcesses_v3': _PROCINFO,
        'nvmlDeviceGetMPSComputeRunningProcesses_v3': _PROCINFO,
        'nvmlVgpuSchedulerGetState_t': 'field isEnabledARR renamed arrMode; same offset and size',
        'nvmlVgpuSchedulerLog_t': 'field isEnabledARR renamed arrMode; same offset and size',
    }),
    12: dict(_COMMON, **{
        'nvmlGpuFabricInfoV_t': _FABRIC_V,
        'nvmlDeviceGetGpuFabricInfoV': _FABRIC_V,
    }, **{n: _FI_RENUMBERED for n in (
        'NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN',
        'NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN',
        'NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN',
        'NVML_FI_DEV_POWER_SYNC_BALANCING_FREQ', 'NVML_FI_DEV_POWER_SYNC_BALANCING_AF',
        'NVML_FI_PWR_SMOOTHING_ENABLED', 'NVML_FI_PWR_SMOOTHING_PRIV_LVL',
        'NVML_FI_PWR_SMOOTHING_IMM_RAMP_DOWN_ENABLED', 'NVML_FI_PWR_SMOOTHING_APPLIED_TMP_CEIL',
        'NVML_FI_PWR_SMOOTHING_APPLIED_TMP_FLOOR',
        'NVML_FI_PWR_SMOOTHING_MAX_PERCENT_TMP_FLOOR_SETTING',
        'NVML_FI_PWR_SMOOTHING_MIN_PERCENT_TMP_FLOOR_SETTING',
        'NVML_FI_PWR_SMOOTHING_HW_CIRCUITRY_PERCENT_LIFETIME_REMAINING',
        'NVML_FI_PWR_SMOOTHING_MAX_NUM_PRESET_PROFILES',
        'NVML_FI_PWR_SMOOTHING_PROFILE_PERCENT_TMP_FLOOR',
        'NVML_FI_PWR_SMOOTHING_PROFILE_RAMP_UP_RATE',
        'NVML_FI_PWR_SMOOTHING_PROFILE_RAMP_DOWN_RATE',
        'NVML_FI_PWR_SMOOTHING_PROFILE_RAMP_DOWN_HYST_VAL',
        'NVML_FI_PWR_SMOOTHING_ACTIVE_PRESET_PROFILE',
        'NVML_FI_PWR_SMOOTHING_ADMIN_OVERRIDE_PERCENT_TMP_FLOOR',
        'NVML_FI_PWR_SMOOTHING_ADMIN_OVERRIDE_RAMP_UP_RATE',
        'NVML_FI_PWR_SMOOTHING_ADMIN_OVERRIDE_RAMP_DOWN_RATE',
        'NVML_FI_PWR_SMOOTHING_ADMIN_OVERRIDE_RAMP_DOWN_HYST_VAL')}),
}


def die(msg, code=2):
    print('check_abi: ' + msg, file=sys.stderr)
    sys.exit(code)


def run(cmd, **kw):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, **kw)
    return p.returncode, p.stdout, p.stderr


class Header:
    """What clang says about one header: records, functions, constants."""

    def __init__(self, path, clang, work):
        self.path = os.path.abspath(path)
        self.clang = clang
        self.work = work
        self.tag = re.sub(r'\W', '_', os.path.basename(work))
        self.records = {}     # id -> RecordDecl node (complete definitions)
        self.by_tag = {}      # 'struct X' -> id of the complete definition
        self.typedefs = {}    # name -> ('record'|'enum'|'other', id or None)
        self.enum_tags = {}   # enum decl id -> tag name ('' if anonymous)
        self.functions = {}   # name -> type as written
        self.enum_consts = []  # names
        self.layouts = {}     # key -> (size, align, [(path, offset, size)])
        self.constants = {}   # name -> int
        self.sigs = {}        # function name -> mangled pointer type
        self.api_version = None

    def src(self, name, text):
        path = os.path.join(self.work, name)
        with open(path, 'w') as f:
            f.write(text)
        return path

    def include(self):
        return ('#define NVML_NO_UNVERSIONED_FUNC_DEFS 1\n'
                '#include "%s"\n' % self.path)

    # --- reading the AST --------------------------------------------------
    def read_ast(self):
        c = self.src('ast.c', self.include())
        rc, out, err = run([self.clang, '-x', 'c', '-std=c11', '-fsyntax-only',
                            '-Xclang', '-ast-dump=json', c])
        if rc != 0:
            die('clang cannot parse %s:\n%s' % (self.path, err))
        top = json.loads(out).get('inner', [])
        decl_tag = {}
        for n in top:
            if n.get('isImplicit') or n.get('name', '').startswith('__'):
                continue
            k = n.get('kind')
            if k == 'RecordDecl':
                if n.get('name'):
                    decl_tag[n['id']] = '%s %s' % (n['tagUsed'], n['name'])
                if n.get('completeDefinition'):
                    self.records[n['id']] = n
                    if n.get('name'):
                        self.by_tag['%s %s' % (n['tagUsed'], n['name'])] = n['id']
            elif k == 'EnumDecl':
                self.enum_tags[n['id']] = n.get('name', '')
                for c2 in n.get('inner', []):
                    if c2.get('kind') == 'EnumConstantDecl':
                        self.enum_consts.append(c2['name'])
            elif k == 'FunctionDecl':
                self.functions[n['name']] = n['type']['qualType']
            elif k == 'TypedefDecl':
                self.typedefs[n['name']] = self.resolve(n['inner'][0])
        # A typedef may name a record before its definition: use the definition.
        for name, (kind, rid) in list(self.typedefs.items()):
            if kind == 'record' and rid not in self.records:
                full = self.by_tag.get(decl_tag.get(rid, ''))
                self.typedefs[name] = ('record', full)

    @staticmethod
    def resolve(t):
        while True:
            k = t.get('kind')
            if k in ('TypedefType', 'ElaboratedType', 'ParenType'):
                t = t['inner'][0]
            elif k == 'RecordType':
                return ('record', t['decl']['id'])
            elif k == 'EnumType':
                return ('enum', t['decl']['id'])
            else:
                return ('other', None)

    def record_keys(self):
        """Names a record is known by: typedef names and 'struct tag'."""
        keys = {}
        for name, (kind, rid) in self.typedefs.items():
            if kind == 'record' and rid in self.records:
                keys[name] = rid
        for tag, rid in self.by_tag.items():
            keys[tag] = rid
        return keys

    def fields(self, rec, prefix=''):
        """(path, node) for every named field; unnamed records are opened."""
        out = []
        nested = {}
        for c in rec.get('inner', []):
            if c.get('kind') == 'RecordDecl':
                nested[c['id']] = c
                continue
            if c.get('kind') != 'FieldDecl':
                continue
            name = c.get('name', '')
            sub = self.nested_record(c, nested)
            if not name:                       # C11 anonymous member
                if sub is not None:
                    out.extend(self.fields(sub, prefix))
                continue
            path = prefix + name
            out.append((path, c))
            if sub is not None:
                dims = re.findall(r'\[(\d+)\]', c['type']['qualType'])
                out.extend(self.fields(sub, path + '[0]' * len(dims) + '.'))
        return out

    @staticmethod
    def nested_record(field, nested):
        q = field['type']['qualType']
        if '(unnamed' not in q and '(anonymous' not in q:
            return None
        for rid, node in nested.items():
            loc = node.get('loc', {})
            if ':%s:%s)' % (loc.get('line', '?'), loc.get('col', '?')) in q:
                return node
        # Fall back to the last unnamed record declared before the field.
        cands = [n for n in nested.values() if not n.get('name')]
        return cands[-1] if cands else None

    # --- macros -----------------------------------------------------------
    def int_macros(self):
        c = self.src('macros.c', self.include())
        rc, out, err = run([self.clang, '-x', 'c', '-std=c11', '-E', '-dM', c])
        if rc != 0:
            die('clang -E failed on %s:\n%s' % (self.path, err))
        names = []
        for line in out.splitlines():
            m = re.match(r'#define ((?:NVML|nvml)\w*)(\(?)\s*(.*)$', line)
            if m and not m.group(2) and m.group(3) and m.group(1) not in NOT_ABI:
                names.append(m.group(1))
        # Keep those that are integer constant expressions: ask clang, and
        # drop every line it rejects until it accepts the rest.
        names = sorted(set(names))
        for _ in range(8):
            body = self.include() + ''.join(
                '_Static_assert((%s) || 1, "");\n' % n for n in names)
            c = self.src('ice.c', body)
            rc, out, err = run([self.clang, '-x', 'c', '-std=c11', '-fsyntax-only',
                                '-Werror=gnu-folding-constant', '-ferror-limit=0', c])
            if rc == 0:
                return names
            bad = set()
            for m in re.finditer(r'ice\.c:(\d+):\d+: error', err):
                bad.add(int(m.group(1)) - 3)   # two include lines, 1-based
            if not bad:
                die('cannot classify macros in %s:\n%s' % (self.path, err))
            names = [n for i, n in enumerate(names) if i not in bad]
        die('cannot classify macros in %s' % self.path)

    # --- layouts and values: one probe program ------------------------------
    def probe(self):
        keys = self.record_keys()
        lines = [self.include(), '#include <stdio.h>\n#include <stddef.h>\n',
                 'static void c(const char *n, int neg, long long s, unsigned long long u)\n'
                 '{ if (neg) printf("C\\t%s\\t%lld\\n", n, s); '
                 'else printf("C\\t%s\\t%llu\\n", n, u); }\n',
                 'int main(void) {\n']
        for key in sorted(keys):
            rec = self.records[keys[key]]
            t = key
            lines.append('printf("R\\t%s\\t%%zu\\t%%zu\\n", sizeof(%s), _Alignof(%s));\n'
                         % (key, t, t))
            for path, _ in self.fields(rec):
                lines.append('printf("F\\t%s\\t%s\\t%%zu\\t%%zu\\n", offsetof(%s, %s), '
                             'sizeof(((%s *)0)->%s));\n' % (key, path, t, path, t, path))
        for n in self.enum_consts + self.int_macros():
            lines.append('c("%s", (%s) < 0, (long long)(%s), (unsigned long long)(%s));\n'
                         % (n, n, n, n))
        lines.append('return 0; }\n')
        c = self.src('probe.c', ''.join(lines))
        exe = os.path.join(self.work, 'probe')
        rc, out, err = run([self.clang, '-x', 'c', '-std=c11', '-w', '-o', exe, c])
        if rc != 0:
            die('cannot build the layout probe for %s:\n%s' % (self.path, err[:4000]))
        rc, out, err = run([exe])
        if rc != 0:
            die('layout probe for %s failed:\n%s' % (self.path, err))
        for line in out.splitlines():
            f = line.split('\t')
            if f[0] == 'R':
                self.layouts[f[1]] = (int(f[2]), int(f[3]), [])
            elif f[0] == 'F':
                self.layouts[f[1]][2].append((f[2], int(f[3]), int(f[4])))
            elif f[0] == 'C':
                self.constants[f[1]] = int(f[2])
        self.api_version = self.constants.get('NVML_API_VERSION')
        if self.api_version is None:
            m = re.search(r'#define\s+NVML_API_VERSION\s+(\d+)', open(self.path, errors='replace').read())
            self.api_version = int(m.group(1)) if m else None

    # --- function types, via C++ mangling -------------------------------------
    def signatures(self, names):
        body = self.include() + ''.join(
            'void mk_sig_%s(decltype(%s) *) {}\n' % (n, n) for n in sorted(names))
        c = self.src('sig.cpp', body)
        rc, out, err = run([self.clang, '-x', 'c++', '-std=c++11', '-w', '-S',
                            '-o', '-', c])
        if rc != 0:
            die('clang (C++) cannot read %s:\n%s' % (self.path, err[:4000]))
        for m in re.finditer(r'^_Z(\d+)(\w+):', out, re.M):
            n = int(m.group(1))
            ident, rest = m.group(2)[:n], m.group(2)[n:]
            if ident.startswith('mk_sig_'):
                self.sigs[ident[len('mk_sig_'):]] = rest

    def load(self):
        self.read_ast()
        self.probe()


def demangle(sigs):
    """Readable forms of mangled pointer types (c++filt when present)."""
    tool = shutil.which('c++filt') or shutil.which('llvm-cxxfilt')
    if not tool or not sigs:
        return {s: s for s in sigs}
    syms = ['_Z1fP' + s[1:] for s in sigs]
    rc, out, _ = run([tool], input='\n'.join(syms) + '\n')
    lines = out.splitlines()
    if rc != 0 or len(lines) != len(syms):
        return {s: s for s in sigs}
    res = {}
    for s, d in zip(sigs, lines):
        d = re.sub(r'^f\((.*)\)$', r'\1', d)   # f(T*) -> T*
        res[s] = d
    return res


def compare(ours, ref):
    errors = []
    known = KNOWN.get(ref.api_version, {})
    waived = []

    def err(kind, name, what):
        if name in known:
            waived.append('known difference %s %s: %s (%s)' % (kind, name, what, known[name]))
        else:
            errors.append('%s %s: %s' % (kind, name, what))

    # Records: pair them up through every name both headers know them by.
    ok, rk = ours.record_keys(), ref.record_keys()
    pairs = {}
    for key in sorted(set(ok) & set(rk)):
        pairs.setdefault((ok[key], rk[key]), key)
    n_structs = 0
    for (_, _), key in sorted(pairs.items(), key=lambda p: p[1]):
        n_structs += 1
        o, r = ours.layouts[key], ref.layouts[key]
        if o[0] != r[0]:
            err('struct', key, 'size ours %d, NVIDIA %d' % (o[0], r[0]))
        if o[1] != r[1]:
            err('struct', key, 'alignment ours %d, NVIDIA %d' % (o[1], r[1]))
        of = [(p, off, sz) for p, off, sz in o[2]]
        rf = [(p, off, sz) for p, off, sz in r[2]]
        if of != rf:
            on, rn = [f[0] for f in of], [f[0] for f in rf]
            if on != rn:
                err('struct', key, 'fields ours [%s], NVIDIA [%s]'
                    % (', '.join(on), ', '.join(rn)))
            for a, b in zip(of, rf):
                if a != b and a[0] == b[0]:
                    err('struct', key, 'field %s: offset/size ours %d/%d, NVIDIA %d/%d'
                        % (a[0], a[1], a[2], b[1], b[2]))
    # Tags: a typedef should name the same struct or enum tag (C++ mangling).
    for name in sorted(set(ours.typedefs) & set(ref.typedefs)):
        a, b = ours.typedefs[name], ref.typedefs[name]
        if a[0] != b[0]:
            err('typedef', name, 'kind ours %s, NVIDIA %s' % (a[0], b[0]))
        elif a[0] == 'enum':
            ta, tb = ours.enum_tags.get(a[1], ''), ref.enum_tags.get(b[1], '')
            if ta != tb:
                err('typedef', name, 'enum tag ours "%s", NVIDIA "%s"' % (ta, tb))
        elif a[0] == 'record' and a[1] in ours.records and b[1] in ref.records:
            ta = ours.records[a[1]].get('name', '')
            tb = ref.records[b[1]].get('name', '')
            if ta != tb:
                err('typedef', name, 'struct tag ours "%s", NVIDIA "%s"' % (ta, tb))

    # Prototypes.
    common = sorted(set(ours.functions) & set(ref.functions))
    ours.signatures(common)
    ref.signatures(common)
    bad = [n for n in common if ours.sigs.get(n) != ref.sigs.get(n)]
    readable = demangle([s for n in bad for s in (ours.sigs.get(n), ref.sigs.get(n)) if s])
    for n in bad:
        a, b = ours.sigs.get(n), ref.sigs.get(n)
        err('prototype', n, 'ours %s, NVIDIA %s' % (readable.get(a, a), readable.get(b, b)))

    # Constants.
    consts = sorted(set(ours.constants) & set(ref.constants))
    for n in consts:
        if ours.constants[n] != ref.constants[n]:
            err('constant', n, 'ours %d, NVIDIA %d' % (ours.constants[n], ref.constants[n]))

    only = {
        'structs': len(set(ok.values())) - len({p[0] for p in pairs}),
        'prototypes': len(set(ours.functions) - set(ref.functions)),
        'constants': len(set(ours.constants) - set(ref.constants)),
    }
    theirs = {
        'structs': sorted(k for k in set(rk) - set(ok) if not k.startswith(('struct ', 'union '))),
        'prototypes': sorted(set(ref.functions) - set(ours.functions)),
        'constants': sorted(set(ref.constants) - set(ours.constants)),
    }
    return errors, waived, (n_structs, len(common), len(consts)), only, theirs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--nvml-h', default='/usr/include/nvml.h',
                    help="NVIDIA's nvml.h (default /usr/include/nvml.h)")
    ap.add_argument('--ours', default=DEFAULT_OURS, help='our umbrella header')
    ap.add_argument('--clang', default=os.environ.get('CLANG', 'clang'))
    ap.add_argument('-v', '--verbose', action='store_true',
                    help='also list what only NVIDIA declares')
    a = ap.parse_args()
    if not os.path.isfile(a.nvml_h):
        print("skipped: NVIDIA's nvml.h not found (install libnvidia-ml-dev)")
        return SKIP
    if not shutil.which(a.clang):
        print('skipped: %s not found' % a.clang)
        return SKIP
    if not os.path.isfile(a.ours):
        die('our header %s not found' % a.ours)
    with tempfile.TemporaryDirectory(prefix='check_abi.') as tmp:
        hs = []
        for tag, path in (('ours', a.ours), ('ref', a.nvml_h)):
            d = os.path.join(tmp, tag)
            os.mkdir(d)
            h = Header(path, a.clang, d)
            h.load()
            hs.append(h)
        errors, waived, counts, only, theirs = compare(*hs)
    ref = hs[1]
    print('reference: %s (NVML API %s)' % (a.nvml_h, ref.api_version))
    for line in waived:
        print('  ' + line)
    for line in errors:
        print('MISMATCH ' + line)
    print('not in reference: %d structs, %d prototypes, %d constants'
          % (only['structs'], only['prototypes'], only['constants']))
    print('only in reference: %s' % ', '.join('%d %s' % (len(v), k) for k, v in theirs.items()))
    if a.verbose:
        for k, v in theirs.items():
            for n in v:
                print('  only in reference (%s): %s' % (k, n))
    summary = '%d structs, %d prototypes, %d constants checked' % counts
    if errors:
        print('%d mismatches (%s)' % (len(errors), summary))
        return 1
    print(summary)
    return 0


if __name__ == '__main__':
    sys.exit(main())
