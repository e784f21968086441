# Licensed under the Apache License, Version 2.0 (the "License"); you may
# not use this file except in compliance with the License. You may obtain
# a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
# WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
# License for the specific language governing permissions and limitations
# under the License.


"""The bench's report: the machine it ran on, and the targets in words.

``render()`` prints the summary of the targets, one line of figures and
one clause of verdict a line; ``clauses()`` cuts a verdict into them.
"""

import os
import platform
import time

import pyperf


def utc_date():
    """The date of a report, in UTC."""
    return time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())


def machine(out_dir):
    """What pyperf recorded of the machine, from one of its files."""
    for name in sorted(os.listdir(out_dir)):
        if name.endswith('-ours.json'):
            meta = pyperf.Benchmark.load(
                os.path.join(out_dir, name)).get_metadata()
            return {key: meta.get(key) for key in (
                'cpu_count', 'cpu_model_name', 'platform', 'python_version')}
    # No target timed (--only scale): this process's view.
    model = None
    if os.path.exists('/proc/cpuinfo'):
        with open('/proc/cpuinfo') as f:
            model = next((line.split(':', 1)[1].strip() for line in f
                          if line.startswith('model name')), None)
    return {'cpu_count': os.cpu_count(), 'cpu_model_name': model,
            'platform': platform.platform(),
            'python_version': platform.python_version()}


def render(report):
    m = report['machine']
    lines = ['ours: osc-placement %s; reference: %s; python-openstackclient '
             '%s; Placement %s' % (report['ours'], report['upstream'],
                                   report['python-openstackclient'],
                                   report['openstack-placement']),
             'machine: %s CPUs, %s, %s, Python %s; load average %.1f at '
             'start, %.1f at end; %s; pyperf %s, %d rounds; took %d s' % (
                 m.get('cpu_count'), m.get('cpu_model_name'),
                 m.get('platform'), m.get('python_version'),
                 report['load_average'][0], report['load_average'][1],
                 report['date'],
                 ' '.join(report['pyperf']), report['rounds'],
                 report['duration_s']),
             '']
    for r in report['results']:
        lines.append('[%s] %s (%d items, %s server)' % (
            'ok' if r['holds'] else 'not met', r['target'], r['items'],
            r['shape']))
        if 'median_s' in r:
            lines.append('      %.0f ms (baseline) -> %.0f ms (ours); '
                         'requests %s; peak RSS %.1f / %.1f MiB' % (
                             r['median_s']['baseline'] * 1000,
                             r['median_s']['ours'] * 1000,
                             '/'.join(map(str, r['requests'])),
                             r['baseline_rss_kib'] / 1024,
                             r['ours_rss_kib'] / 1024))
        if 'ceiling' in r:
            lines.append('      CPU s (client + server + relay): baseline '
                         '%s, ours %s; the most %s CPUs allow: about '
                         '%.2fx' % (
                             _cpu(r['baseline_cpu_s']), _cpu(r['ours_cpu_s']),
                             m.get('cpu_count'), r['ceiling']))
        if 'loop_s_per_provider' in r:
            per = r['loop_s_per_provider']
            lines.append('      shell loop of reference commands: %.2f s '
                         'per provider, about %.0f s for %d (%.0fx ours)' % (
                             per, per * r['items'], r['items'],
                             per * r['items'] / r['median_s']['ours']))
        # One clause a line: a batch's detail holds every target it
        # checks.
        detail = clauses(r['detail'])
        lines.append('      %s' % detail[0])
        lines.extend('        %s' % clause for clause in detail[1:])
    return '\n'.join(lines)


def clauses(text):
    """``text`` cut at each "; " outside parentheses."""
    found, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += {'(': 1, ')': -1}.get(char, 0)
        if depth == 0 and text.startswith('; ', i):
            found.append(text[start:i])
            start = i + 2
    return found + [text[start:]]


def _cpu(seconds):
    return '%.1f + %.1f + %.1f' % (seconds['client'], seconds['server'],
                                   seconds['relay'])
