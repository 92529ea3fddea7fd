"""test_cli_view.py - `mokka smi`, `mokka stats` and `mokka metrics` say when
NVIDIA_VISIBLE_DEVICES (or the variables of Mokka's CDI devices) restricts
a view: smi on stderr and in its JSON,
stats and metrics for each attached process whose view is restricted (the
GPUs it sees, by their universe index), and nothing when the view is whole."""
import json
import os

from mokka_probe import CliTest, Probe, mokka


class ViewTest(CliTest):

    def test_smi_says_the_view_is_restricted(self):
        env = dict(os.environ, NVIDIA_VISIBLE_DEVICES='3,1')
        p = mokka('smi', '--mock', '-L', env=env)
        self.assertExit(p, 0)
        self.assertEqual(len(p.stdout.splitlines()), 2)
        self.assertIn('mokka smi: the view is restricted: NVIDIA_VISIBLE_DEVICES=3,1 shows 2 GPUs, '
                      'numbered from 0 as in a container', p.stderr)
        p = mokka('smi', '--mock', '--json', env=env)
        self.assertEqual(json.loads(p.stdout)['visible_devices'], '3,1')
        env['NVIDIA_VISIBLE_DEVICES'] = 'all'
        p = mokka('smi', '--mock', '--json', env=env)
        self.assertEqual(p.stderr, '')
        self.assertNotIn('visible_devices', json.loads(p.stdout))
        self.assertEqual(len(json.loads(p.stdout)['gpus']), 8)

    def test_stats_and_metrics_name_each_restricted_process(self):
        pr = Probe(self, visible='2,0')
        self.assertEqual(pr.count, 2)
        r = json.loads(pr.mokka('stats', '--json').stdout)
        self.assertEqual(r['processes']['restrictedViews'],
                         [{'pid': pr.pid, 'visibleDevices': '2,0', 'gpus': [2, 0]}])
        self.assertEqual(len(r['gpus']), 8)   # the universe stays whole
        text = pr.mokka('stats').stdout
        self.assertIn('\nview       pid %d sees GPU 2, GPU 0 (NVIDIA_VISIBLE_DEVICES=2,0; it numbers '
                      'them from 0)\n' % pr.pid, text)
        m = pr.mokka('metrics', '--once').stdout
        self.assertIn('mokka_process_visible_gpus{pid="%d",visible_devices="2,0"} 2\n' % pr.pid, m)
        uuid = r['gpus'][2]['uuid']
        self.assertIn('mokka_process_visible_gpu{pid="%d",gpu="2",uuid="%s",index="0"} 1\n'
                      % (pr.pid, uuid), m)

    def test_cdi_devices_restrict_the_view_too(self):
        """MOKKA_VISIBLE_GPU_<index>, one a CDI device: the union, by index."""
        cdi = {'MOKKA_VISIBLE_GPU_5': '5', 'MOKKA_VISIBLE_GPU_1': '1'}
        env = dict(os.environ, NVIDIA_VISIBLE_DEVICES='void', **cdi)
        p = mokka('smi', '--mock', '--json', env=env)
        self.assertExit(p, 0)
        self.assertEqual(json.loads(p.stdout)['visible_devices'], '1,5')
        self.assertIn('NVIDIA_VISIBLE_DEVICES with MOKKA_VISIBLE_GPU_*=1,5 shows 2 GPUs', p.stderr)
        pr = Probe(self, visible='void', extra=cdi)
        self.assertEqual(pr.count, 2)
        r = json.loads(pr.mokka('stats', '--json').stdout)
        self.assertEqual(r['processes']['restrictedViews'],
                         [{'pid': pr.pid, 'visibleDevices': '1,5', 'gpus': [1, 5]}])

    def test_control_characters_are_shown_escaped(self):
        # Once printed raw: the value could clear the screen, forge lines or
        # retitle the terminal, and a byte that is not UTF-8 dropped the
        # process from --json's restrictedViews.
        hostile = '2,0\x1b[2J\x1b]0;owned\x07\nview       pid 1 sees GPU 7\r,\udcff'
        escaped = '2,0\\x1b[2J\\x1b]0;owned\\x07\\nview       pid 1 sees GPU 7\\r,'
        as_utf8 = hostile.replace('\udcff', '\ufffd')   # JSON: the bad byte is U+FFFD
        pr = Probe(self, visible=hostile)
        text = pr.mokka('stats').stdout
        self.assertIn('\nview       pid %d sees GPU 2 (NVIDIA_VISIBLE_DEVICES=%s\ufffd; it numbers '
                      'them from 0)\n' % (pr.pid, escaped), text)
        self.assertNotIn('\x1b', text)
        self.assertNotIn('\nview       pid 1 ', text)
        r = json.loads(pr.mokka('stats', '--json').stdout)
        self.assertEqual(r['processes']['restrictedViews'],
                         [{'pid': pr.pid, 'visibleDevices': as_utf8, 'gpus': [2]}])
        env = dict(os.environ, NVIDIA_VISIBLE_DEVICES=hostile)
        p = mokka('smi', '--mock', '-L', env=env)
        self.assertIn('NVIDIA_VISIBLE_DEVICES=%s\\xff shows 1 GPU' % escaped, p.stderr)
        self.assertNotIn('\x1b', p.stderr)   # the library's own line too
        p = mokka('smi', '--mock', '--json', env=env)
        self.assertEqual(json.loads(p.stdout)['visible_devices'], as_utf8)

    def test_whole_views_are_not_mentioned(self):
        pr = Probe(self)
        r = json.loads(pr.mokka('stats', '--json').stdout)
        self.assertEqual(r['processes']['restrictedViews'], [])
        self.assertNotIn('\nview ', pr.mokka('stats').stdout)
        self.assertNotIn('mokka_process_visible_gpus{', pr.mokka('metrics', '--once').stdout)
        pr = Probe(self, visible='none')
        self.assertEqual(pr.count, 0)
        self.assertIn('view       pid %d sees no GPU' % pr.pid, pr.mokka('stats').stdout)
