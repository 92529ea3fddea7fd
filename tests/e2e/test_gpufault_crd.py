"""test_gpufault_crd.py - the GPUFault and GPUFaultReport CRDs
(ci/deploy/gpufault-crd.yaml) as the API server will take them, and in
step with the agent's C model (src/fault/gpufault.h).

Checks that the schemas are structural (a type on every node, or
int-or-string), that their limits are the C model's limits, that the
printer columns and short names are there, and, with python3-jsonschema,
that what the builder makes (build/tests/gpufault-build) passes the
schema while the bad objects it refuses, the schema refuses too.

Env: MOKKA_SRC, MOKKA_BUILD."""
import json
import os
import re
import subprocess
import unittest

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get('MOKKA_SRC') or os.path.dirname(os.path.dirname(HERE))
BUILD = os.environ.get('MOKKA_BUILD') or SRC
CRD = os.path.join(SRC, 'ci', 'deploy', 'gpufault-crd.yaml')
BUILDER = os.path.join(BUILD, 'build', 'tests', 'gpufault-build')

try:
    import jsonschema
except ImportError:  # not a CI dependency: the schema runs are skipped
    jsonschema = None


def defines(*headers):
    out = {}
    for h in headers:
        with open(os.path.join(SRC, h), encoding='utf-8') as f:
            for name, value in re.findall(r'^#define (MK_\w+) \(?(-?\d+)\)?', f.read(), re.M):
                out[name] = int(value)
    return out


def crds():
    with open(CRD, encoding='utf-8') as f:
        return {d['spec']['names']['kind']: d for d in yaml.safe_load_all(f)}


def schema(kind):
    return crds()[kind]['spec']['versions'][0]['schema']['openAPIV3Schema']


def walk(node, path='', out=None):
    """(path, node) for every schema node."""
    out = [] if out is None else out
    out.append((path, node))
    for k, v in node.get('properties', {}).items():
        walk(v, path + '.' + k, out)
    if isinstance(node.get('items'), dict):
        walk(node['items'], path + '[]', out)
    if isinstance(node.get('additionalProperties'), dict):
        walk(node['additionalProperties'], path + '.*', out)
    return out


def as_jsonschema(node):
    """OpenAPI v3 as the API server reads it, in JSON Schema draft 7 terms:
    the x-kubernetes-* extensions dropped (int-or-string is its anyOf)."""
    if isinstance(node, dict):
        return {k: as_jsonschema(v) for k, v in node.items() if not k.startswith('x-kubernetes-')}
    if isinstance(node, list):
        return [as_jsonschema(v) for v in node]
    return node


def build(*args):
    return subprocess.run([BUILDER] + list(args), capture_output=True, text=True, timeout=30)


class SchemaShapeTest(unittest.TestCase):

    def test_both_kinds_cluster_scoped_with_short_names(self):
        c = crds()
        self.assertEqual(sorted(c), ['GPUFault', 'GPUFaultReport'])
        self.assertEqual(c['GPUFault']['spec']['names']['shortNames'], ['gf'])
        self.assertEqual(c['GPUFaultReport']['spec']['names']['shortNames'], ['gfr'])
        for d in c.values():
            self.assertEqual(d['apiVersion'], 'apiextensions.k8s.io/v1')
            self.assertEqual(d['spec']['scope'], 'Cluster')
            self.assertEqual(d['metadata']['name'], d['spec']['names']['plural'] + '.mokka.io')
            v = d['spec']['versions']
            self.assertEqual([x['name'] for x in v], ['v1alpha1'])
            self.assertNotIn('subresources', v[0], 'the report is PUT whole, the fault has no status')

    def test_structural(self):
        for kind in ('GPUFault', 'GPUFaultReport'):
            for path, node in walk(schema(kind)):
                with self.subTest(kind=kind, path=path):
                    self.assertTrue('type' in node or node.get('x-kubernetes-int-or-string'),
                                    'no type')
                    for branch in node.get('anyOf', []):
                        self.assertTrue(node.get('x-kubernetes-int-or-string') and
                                        branch in ({'type': 'integer'}, {'type': 'string'}),
                                        'anyOf is only for int-or-string')
                    if 'pattern' in node:
                        re.compile(node['pattern'])

    def test_printer_columns(self):
        cols = {k: [c['name'] for c in crds()[k]['spec']['versions'][0]['additionalPrinterColumns']]
                for k in ('GPUFault', 'GPUFaultReport')}
        for want in ('Fault', 'GPUs', 'Duration', 'Age'):
            self.assertIn(want, cols['GPUFault'])
        for want in ('Applied', 'Updated'):
            self.assertIn(want, cols['GPUFaultReport'])


class LimitsTest(unittest.TestCase):
    """The schema and the agent's checks agree on every limit."""

    def test_limits_are_the_c_models(self):
        d = defines('src/fault/gpufault.h', 'src/kube/kube_selector.h')
        spec = schema('GPUFault')['properties']['spec']['properties']
        gpus, fault = spec['gpus'], spec['fault']['properties']
        sel = spec['nodes']['properties']['selector']['properties']
        self.assertEqual(gpus['maxItems'], d['MK_GF_MAX_GPUS'])
        self.assertEqual(gpus['items']['maximum'], d['MK_GF_MAX_GPUS'] - 1)
        self.assertIn('409[0-5]', gpus['items']['pattern'])
        self.assertIn('GPU-[A-Za-z0-9-]{1,%d}' % (d['MK_GF_MAX_UUID'] - 4), gpus['items']['pattern'])
        self.assertEqual(spec['nodes']['properties']['names']['maxItems'], d['MK_GF_MAX_NAMES'])
        self.assertEqual(fault['set']['maxProperties'], d['MK_GF_MAX_PINS'])
        self.assertEqual(fault['xid']['maximum'], d['MK_GF_XID_MAX'])
        self.assertEqual(sel['matchLabels']['maxProperties'], d['MK_KSEL_MAX'])
        self.assertEqual(sel['matchExpressions']['maxItems'], d['MK_KSEL_MAX'])
        self.assertEqual(sel['matchExpressions']['items']['properties']['values']['maxItems'],
                         d['MK_KSEL_MAX'])
        report = schema('GPUFaultReport')['properties']['status']['properties']
        item = report['faults']['items']['properties']['gpus']
        self.assertEqual(item['maxItems'], d['MK_GF_MAX_GPUS'])
        self.assertEqual(item['items']['maximum'], d['MK_GF_MAX_GPUS'] - 1)

    def test_fabric_names_are_the_c_models(self):
        with open(os.path.join(SRC, 'lib', 'core', 'fabric.c'), encoding='utf-8') as f:
            text = f.read()

        def names(table):
            body = re.search(table + r'\[\] = \{(.*?)NULL', text, re.S).group(1)
            return re.findall(r'"(\w+)"', body)
        fab = schema('GPUFault')['properties']['spec']['properties']['fault']['properties']['fabric']
        p = fab['properties']
        self.assertEqual(p['state']['enum'], names('mk_fabric_state_names')[1:])   # not notSupported
        self.assertEqual(p['status']['enum'], names('mk_nvml_return_names'))
        self.assertEqual(p['health']['items']['enum'], names('mk_fabric_health_names'))
        self.assertEqual(p['health']['maxItems'], len(names('mk_fabric_health_names')))

    def test_report_bounds_are_the_agents(self):
        # The report's description states the agent's bounds on it, and it
        # has the field that counts what they left out (else pruned).
        d = defines('src/fault/reconcile.h', 'src/fault/agentreport.h')
        report = schema('GPUFaultReport')['properties']['status']['properties']
        said = ' '.join(report['faults']['description'].split())
        self.assertIn('at most %d ended ones' % d['MK_FR_HISTORY'], said)
        self.assertIn('within %d bytes' % d['MK_FREPORT_MAX_BYTES'], said)
        self.assertLess(d['MK_FREPORT_MAX_BYTES'], 1.5 * 1024 * 1024 * 0.5, 'well under etcd\'s 1.5 MiB')
        self.assertEqual(report['faultsDropped']['type'], 'integer')


@unittest.skipIf(jsonschema is None, 'python3-jsonschema is not installed')
class ValidateTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        if not os.access(BUILDER, os.X_OK):
            raise unittest.SkipTest(BUILDER + ' is not built')
        cls.fault = jsonschema.Draft7Validator(as_jsonschema(schema('GPUFault')))
        cls.report = jsonschema.Draft7Validator(as_jsonschema(schema('GPUFaultReport')))

    def errors(self, validator, obj):
        return [e.message for e in validator.iter_errors(obj)]

    def test_what_the_builder_makes_passes(self):
        cases = [
            ['--gpu', '3', '--xid', '79'],
            ['--gpu', '0-2,5,GPU-6f0c1234-aaaa', '--ecc', 'double', '--duration', '1m30s'],
            ['--gpu', 'all', '--lost', '--node', 'gpu-node-1', '--node', 'gpu-node-2'],
            ['--gpu', '0', '--healthy', '--selector', 'mokka.io/pool=a,zone in (z1,z2)',
             '--selector', 'gone,!down,x!=y,w notin (v)'],
            ['--name', 'hot', '--gpu', '4095', '--set', 'temperature=90', '--set', 'power=300W',
             '--set', 'memoryUsed=30GiB', '--duration', '24h'],
            ['--gpu', 'all', '--fabric-state', 'inprogress', '--fabric-status', 'notReady',
             '--fabric-health', 'degradedBandwidth,routeRecovery,routeUnhealthy,accessTimeoutRecovery'],
            ['--gpu', '1', '--fabric-health', 'none'],
            ['--gpu', '1', '--fabric-status', 'unknown'],
        ]
        for args in cases:
            with self.subTest(args=args):
                r = build(*args)
                self.assertEqual(r.returncode, 0, r.stderr)
                obj = json.loads(r.stdout)
                self.assertEqual(self.errors(self.fault, obj), [])

    def test_what_the_builder_refuses_the_schema_refuses(self):
        base = {'apiVersion': 'mokka.io/v1alpha1', 'kind': 'GPUFault', 'metadata': {'name': 'f'}}
        cases = [
            (['--gpu', '0', '--xid', '0'], {'gpus': [0], 'fault': {'xid': 0}}),
            (['--gpu', '0', '--xid', '1000'], {'gpus': [0], 'fault': {'xid': 1000}}),
            (['--gpu', '0-4096', '--lost'], {'gpus': [4096], 'fault': {'lost': True}}),
            (['--gpu', 'GPU-a_b', '--lost'], {'gpus': ['GPU-a_b'], 'fault': {'lost': True}}),
            (['--gpu', '0', '--lost', '--duration', '5'],
             {'gpus': [0], 'fault': {'lost': True}, 'duration': '5'}),
            (['--gpu', '0', '--lost', '--node', 'Gpu_1'],
             {'gpus': [0], 'fault': {'lost': True}, 'nodes': {'names': ['Gpu_1']}}),
            (['--gpu', '0', '--fabric-state', 'notSupported'],
             {'gpus': [0], 'fault': {'fabric': {'state': 'notSupported'}}}),
            (['--gpu', '0', '--fabric-status', 'notRedy'],
             {'gpus': [0], 'fault': {'fabric': {'status': 'notRedy'}}}),
            (['--gpu', '0', '--fabric-health', 'slow'],
             {'gpus': [0], 'fault': {'fabric': {'health': ['slow']}}}),
        ]
        for args, spec in cases:
            with self.subTest(args=args):
                r = build(*args)
                self.assertEqual(r.returncode, 2, r.stdout)
                self.assertNotEqual(self.errors(self.fault, dict(base, spec=spec)), [])

    def test_schema_refuses(self):
        base = {'apiVersion': 'mokka.io/v1alpha1', 'kind': 'GPUFault', 'metadata': {'name': 'f'}}
        bad = [
            {'fault': {'xid': 79}},
            {'gpus': [], 'fault': {'xid': 79}},
            {'gpus': [0], 'fault': {}},
            {'gpus': [0], 'fault': {'xid': 79, 'lost': True}},
            {'gpus': [0], 'fault': {'ecc': 'triple'}},
            {'gpus': [0], 'fault': {'lost': False}},
            {'gpus': [-1], 'fault': {'lost': True}},
            {'gpus': [True], 'fault': {'lost': True}},
            {'gpus': ['4096'], 'fault': {'lost': True}},
            {'gpus': [0], 'fault': {'set': {}}},
            {'gpus': [0], 'fault': {'set': {'power': 1.5}}},
            {'gpus': [0], 'fault': {'fabric': {}}},
            {'gpus': [0], 'fault': {'fabric': {'state': 'inProgress'}, 'xid': 79}},
            {'gpus': [0], 'fault': {'fabric': {'health': 'degradedBandwidth'}}},
            {'gpus': [0], 'fault': {'xid': 79}, 'duration': '5x'},
            {'gpus': [0], 'fault': {'xid': 79}, 'duration': '0'},
            {'gpus': [0], 'fault': {'xid': 79}, 'nodes': {'names': []}},
            {'gpus': [0], 'fault': {'xid': 79}, 'nodes': {'selector': {'matchExpressions': [
                {'key': 'a', 'operator': 'Equals'}]}}},
            {'gpus': [0], 'fault': {'xid': 79}, 'nodes': {'selector': {'matchLabels': {'a': '-b'}}}},
        ]
        for spec in bad:
            with self.subTest(spec=spec):
                self.assertNotEqual(self.errors(self.fault, dict(base, spec=spec)), [])

    def test_a_report(self):
        report = {
            'apiVersion': 'mokka.io/v1alpha1', 'kind': 'GPUFaultReport',
            'metadata': {'name': 'gpu-node-1'},
            'status': {
                'node': 'gpu-node-1',
                'agent': {'version': '0.1.0', 'startedAt': '2026-12-02T03:04:05Z', 'gpus': 8,
                          'mode': 'agent'},
                'updatedAt': '2026-12-02T03:04:06.123Z',
                'faults': [{'name': 'gpu3-xid79', 'uid': '6f0c', 'resourceVersion': '1234',
                            'phase': 'Applied', 'gpus': [3], 'reason': '',
                            'time': '2026-12-02T03:04:06.120Z'}],
                'faultsDropped': 0,
            },
        }
        self.assertEqual(self.errors(self.report, report), [])
        report['status']['faults'][0]['phase'] = 'Done'
        report['status']['agent']['mode'] = 'daemon'
        self.assertEqual(len(self.errors(self.report, report)), 2)


if __name__ == '__main__':
    unittest.main()
