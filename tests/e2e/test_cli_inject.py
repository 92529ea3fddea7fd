"""test_cli_inject.py - `mokka inject` against a pynvml program on the mock:
an XID reaches the program's event wait and shows in stats, pinned values
are what the program reads, --healthy clears, --unset lets go; bad
arguments exit 2 naming the problem, a missing state exits 3."""
import json
import os
import unittest

from mokka_probe import CONFIGS, CliTest, Probe, mokka

GIB = 1 << 30


def stats(probe):
    p = probe.mokka('stats', '--json')
    if p.returncode != 0:
        raise AssertionError(p.stderr)
    return json.loads(p.stdout)


class InjectTest(CliTest):

    def test_xid_reaches_the_program(self):
        pr = Probe(self)
        self.assertEqual(pr.ask('register 3'), {'ok': True})
        p = pr.mokka('inject', '--gpu', '3', '--xid', '79')
        self.assertExit(p, 0)
        uuid = stats(pr)['gpus'][3]['uuid']
        self.assertEqual(p.stdout, 'GPU 3 (%s): XID 79 injected; 1 process attached will see it\n'
                         % uuid)
        self.assertEqual(pr.ask('wait 5000'), {'ok': 79, 'gpu': 3})
        g = stats(pr)['gpus'][3]
        self.assertEqual((g['health'], g['xidCount'], g['lastXid']), ('xid 79', 1, 79))
        self.assertEqual(stats(pr)['gpus'][2]['health'], 'healthy')

    def test_healthy_clears(self):
        pr = Probe(self)
        self.assertExit(pr.mokka('inject', '-g', '1', '--lost'), 0)
        self.assertEqual(stats(pr)['gpus'][1]['health'], 'lost')
        self.assertEqual(pr.ask('mem 1'), {'err': 'GPU is lost'})
        p = pr.mokka('inject', '-g', '1', '--healthy')
        self.assertExit(p, 0)
        self.assertIn(': marked healthy; 1 process attached will see it', p.stdout)
        self.assertEqual(stats(pr)['gpus'][1]['health'], 'healthy')
        self.assertIn('ok', pr.ask('mem 1'))

    def test_ecc_double(self):
        pr = Probe(self)
        pr.ask('register 0')
        self.assertExit(pr.mokka('inject', '--gpu', '0', '--ecc', 'double'), 0)
        self.assertEqual(pr.ask('wait 5000'), {'ok': 48, 'gpu': 0})
        g = stats(pr)['gpus'][0]
        self.assertEqual((g['health'], g['ecc']['doubleBit'], g['lastXid']), ('ecc', 1, 48))

    def test_set_memory_is_what_the_program_reads(self):
        pr = Probe(self)
        before = pr.ask('mem 2')
        p = pr.mokka('inject', '--gpu', '2', '--set', 'memoryUsed=30GiB')
        self.assertExit(p, 0)
        self.assertIn(': memoryUsed pinned to 30 GiB; 1 process', p.stdout)
        after = pr.ask('mem 2')
        # nvmlDeviceGetMemoryInfo (v1) counts the driver's reserved share as used.
        reserved = before['ok']
        self.assertEqual(after['ok'], 30 * GIB + reserved)
        self.assertEqual(after['free'], after['total'] - after['ok'])
        m = stats(pr)['gpus'][2]['metrics']['memoryUsed']
        self.assertEqual(m, {'value': 30 * GIB, 'text': '30 GiB', 'pinned': True})
        self.assertExit(pr.mokka('inject', '--gpu', '2', '--unset', 'memoryUsed'), 0)
        self.assertEqual(pr.ask('mem 2')['ok'], reserved)
        self.assertFalse(stats(pr)['gpus'][2]['metrics']['memoryUsed']['pinned'])

    def test_set_temperature_is_what_the_program_reads(self):
        pr = Probe(self)
        self.assertExit(pr.mokka('inject', '--gpu', '0', '--set', 'temperature=90',
                                 '--set', 'power=300W'), 0)
        t = pr.ask('temp 0')
        if 'err' in t:
            self.skipTest('this build answers nvmlDeviceGetTemperature with %s' % t['err'])
        self.assertEqual(t, {'ok': 90})
        self.assertEqual(pr.ask('power 0'), {'ok': 300000})
        self.assertEqual(stats(pr)['gpus'][0]['metrics']['temperature']['value'], 90)

    def test_bad_arguments(self):
        pr = Probe(self)
        cases = [
            (['--gpu', '8', '--xid', '79'], 'GPU 8 is out of range: this universe has GPUs 0-7'),
            (['--gpu', '0', '--mig', '0', '--xid', '79'], 'GPU 0 has no MIG devices'),
            (['--gpu', '0', '--set', 'temperature=hot'],
             "--set temperature: 'hot': expected a whole temperature in degrees C, like 42"),
            (['--gpu', '0', '--set', 'temprature=90'],
             "unknown metric 'temprature'; did you mean 'temperature'?"),
            (['--gpu', '0', '--set', 'temperature'], '--set takes METRIC=VALUE'),
            (['--gpu', '0', '--ecc', 'triple'], '--ecc takes single or double'),
            (['--gpu', '0', '--xid', '79', '--lost'], 'give one of --xid, --ecc, --lost'),
            (['--gpu', '0', '--xid', '79', '--set', 'power=1W'], 'not both'),
            (['--gpu', '0'], 'nothing to do'),
            (['--xid', '79'], '--gpu N is required'),
            (['--gpu', 'x', '--lost'], '--gpu takes a number'),
        ]
        for args, msg in cases:
            p = pr.mokka('inject', *args)
            self.assertExit(p, 2, '%s: %s' % (args, p.stderr))
            self.assertIn(msg, p.stderr)
            self.assertEqual(p.stdout, '')
        self.assertEqual([g['health'] for g in stats(pr)['gpus']], ['healthy'] * 8)

    def test_mig_device(self):
        pr = Probe(self, config=os.path.join(CONFIGS, 'mig-mixed.yaml'))
        p = pr.mokka('inject', '--gpu', '0', '--mig', '2', '--xid', '31')
        self.assertExit(p, 0)
        self.assertIn(', MIG device 2: XID 31 injected', p.stdout)
        p = pr.mokka('inject', '--gpu', '0', '--mig', '4', '--xid', '31')
        self.assertExit(p, 2)
        self.assertIn('GPU 0 has no MIG device 4 (it has 0-3)', p.stderr)

    def test_no_state(self):
        d = self.tempdir()
        p = mokka('inject', '--state-dir', d, '--gpu', '0', '--lost')
        self.assertExit(p, 3)
        self.assertIn('mokka inject: ', p.stderr)
        p = mokka('inject', '--state-dir', d, '--pid', '1', '--gpu', '0', '--lost')
        self.assertExit(p, 2)

    def test_help(self):
        h = mokka('inject', '--help')
        self.assertExit(h, 0)
        self.assertTrue(h.stdout.startswith('Usage: mokka inject'))


if __name__ == '__main__':
    unittest.main()
