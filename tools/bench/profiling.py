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


"""``--profile``: where the client CPU of one of our batches goes.

Runs the command on a seeded cloud under ``profiled.py``, once charging
its CPU to areas and once under cProfile, and renders both.
"""

import json
import os
import pstats
import re
import shlex

from osc_placement.tests.support import client
from osc_placement.tests.support import cloud
from osc_placement.tests.support import placement
from osc_placement.tests.support import relay

import common
import measure
import venvs

PROFILE_COMMAND = 'resource provider capacity list --summary'
# Functions whose cumulative CPU (cProfile) --profile prints: costs that
# cut across the areas. (path ending, function name, what it is).
PROFILE_WATCH = (
    ('typing.py', '__instancecheck__',
     'isinstance() against runtime-checkable Protocols'),
    ('logging/__init__.py', '_log', 'log records made (Logger._log)'),
    ('email/feedparser.py', 'feed',
     'response headers parsed (http.client, email.feedparser)'),
    ('urllib/parse.py', 'urlparse', 'URLs parsed (urllib.parse.urlparse)'),
    ('urllib/parse.py', 'urlsplit', 'URLs split (urllib.parse.urlsplit)'),
    ('copy.py', 'deepcopy', 'copy.deepcopy'),
)


def run_profile(args, ours, out_dir):
    """One of our batches under profiled.py: areas, then cProfile."""
    argv = shlex.split(args.profile_command)
    n = args.profile_providers
    python = os.path.join(os.path.dirname(ours), 'python')
    tool = os.path.join(common.HERE, 'profiled.py')
    areas_file = os.path.join(out_dir, 'profile-areas.json')
    stats_file = os.path.join(out_dir, 'profile.pstats')
    with placement.Placement(db='postgresql') as sb:
        common.log('profile: populating %d providers' % n)
        cloud.populate(sb.server_endpoint, n, parallel=sb.requests_in_flight)
        sb.analyze()
        with relay.Relay(sb.server_endpoint, delay_ms=0) as proxy:
            env = venvs.clean_env(client.client_env(proxy.endpoint))
            runs = {}
            for name, command in (
                    ('startup', [ours, '--version']),
                    ('plain', [ours] + argv),
                    ('areas', [python, tool, '--areas', areas_file, '--',
                               ours] + argv),
                    ('cprofile', [python, tool, '--cprofile', stats_file,
                                  '--', ours] + argv)):
                common.log('profile: %s run' % name)
                runs[name] = measure.check_run(command, env, sb, None)
                if runs[name]['code']:
                    raise SystemExit('%s run exited with %d: %s' % (
                        name, runs[name]['code'],
                        runs[name]['err'].strip()[-300:]))
    with open(areas_file) as f:
        areas = json.load(f)
    stats = pstats.Stats(stats_file)
    top = sorted(stats.stats.items(), key=lambda item: -item[1][2])[:15]
    requests = len(runs['plain']['requests'])
    command_s = sum(values[2] for values in stats.stats.values())
    watched = []
    for ending, function, what in PROFILE_WATCH:
        for (path, _, name), values in stats.stats.items():
            if name == function and path.endswith(ending):
                watched.append((what, values[1], round(values[3], 4)))
    return {'command': argv, 'providers': n, 'requests': requests,
            'cprofile_s': round(command_s, 4), 'watched': watched,
            'plain_client_s': round(runs['plain']['client'], 3),
            'startup_client_s': round(runs['startup']['client'], 3),
            'areas_client_s': round(runs['areas']['client'], 3),
            'areas': {k: round(v, 4) for k, v in areas.items()},
            'top': [('%s:%d(%s)' % (_short(path), line, function),
                     round(values[2], 4), values[1])
                    for (path, line, function), values in top],
            'pstats': stats_file}


def _short(path):
    """A module's path from its package (site-packages or the stdlib)."""
    return re.sub(r'^.*/(site-packages|lib/python3\.\d+)/', '', path)


def render_profile(profile):
    areas = profile['areas']
    start_up = [k for k in areas if k.startswith('start-up')]
    command = sum(v for k, v in areas.items() if k not in start_up)
    lines = ['Profile of "openstack %s" on %d providers, PostgreSQL, '
             '0 ms relay: %d requests; client CPU %.2f s unprofiled '
             '(openstack --version: %.2f s), %.2f s under the areas '
             'profiler' % (' '.join(profile['command']),
                           profile['providers'], profile['requests'],
                           profile['plain_client_s'],
                           profile['startup_client_s'],
                           profile['areas_client_s']),
             '', 'CPU of the command after the start-up, by area '
                 '(profiled seconds; share; share without the imports; ms '
                 'per request):']
    imports = sum(v for k, v in areas.items() if k.startswith('imports'))
    for name, seconds in sorted(areas.items(), key=lambda kv: -kv[1]):
        if name in start_up:
            continue
        lines.append('  %6.1f %%  %7.3f s  %6s  %6.3f ms  %s' % (
            100 * seconds / command, seconds,
            '-' if name.startswith('imports') else '%.1f %%' % (
                100 * seconds / (command - imports)),
            1000 * seconds / profile['requests'], name))
    for name in start_up:
        lines.append('  (%s: %.3f s, left out)' % (name, areas[name]))
    lines += ['', 'cProfile, every thread, by own time (%s; %.3f s in '
              'all):' % (profile['pstats'], profile['cprofile_s'])]
    for where, seconds, calls in profile['top']:
        lines.append('  %7.3f s  %8d calls  %s' % (seconds, calls, where))
    lines += ['', 'cProfile, cumulative time of a few functions:']
    for what, calls, seconds in profile['watched']:
        lines.append('  %7.3f s  %5.1f %%  %8d calls  %s' % (
            seconds, 100 * seconds / profile['cprofile_s'], calls, what))
    return '\n'.join(lines)
