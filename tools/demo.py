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

"""A tour of the plugin against a real, local Placement (``tox -e demo``).

Starts the sandbox server (osc_placement/tests/support/placement.py), seeds
it with the sample cloud (support/cloud.py), runs a few commands through
the installed ``openstack`` executable, printing each command line and its
output, then stops the server. Exits 1 if any command failed.

``--with-nova`` (``tox -e demo-nova``): the same cloud behind a real
Keystone, beside a real Nova API (support/stack.py) seeded with the
servers and migrations of support/nova_seed.py; the tour makes flavors
and an availability zone with OpenStackClient's own commands and reads
them back with Placement's providers, every service found in the
catalog, then audits the seeded servers, fixes what can be fixed and
shows how to undo it. A step may state the exit code it must have (the
audit's 3 and 4); any other code is a failure.
"""

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
import textwrap
import time

import fixtures

from osc_placement import microversions
from osc_placement.tests import support
from osc_placement.tests.support import client
from osc_placement.tests.support import cloud
from osc_placement.tests.support import nova_seed
from osc_placement.tests.support import placement

VM4 = 'cccccccc-cccc-4ccc-8ccc-000000000004'

# (comment, argv after "openstack")
TOUR = (
    ('The providers: two compute nodes, one with NUMA and SR-IOV children. '
     'No --os-placement-api-version: the client negotiates 1.29.',
     ['resource', 'provider', 'list']),
    ('What compute-2 offers (a provider can be given by name or UUID).',
     ['resource', 'provider', 'inventory', 'list', 'compute-2']),
    ('The traits of a physical function.',
     ['resource', 'provider', 'trait', 'list', 'compute-1_ens1f0']),
    ('Where could a server with 10 GB of disk and two virtual functions on '
     'physnet1, from two different physical functions, go?',
     ['allocation', 'candidate', 'list', '--resource', 'DISK_GB=10',
      '--group', '1', '--resource', 'SRIOV_NET_VF=1',
      '--required', 'CUSTOM_PHYSNET1',
      '--group', '2', '--resource', 'SRIOV_NET_VF=1',
      '--required', 'CUSTOM_PHYSNET1',
      '--group-policy', 'isolate']),
    ('Claim the first candidate for a new consumer (at 1.28+ the client '
     'sends the consumer generation, so concurrent writers cannot '
     'overwrite each other).',
     ['resource', 'provider', 'allocation', 'set', VM4,
      '--allocation', 'rp=compute-1,DISK_GB=10',
      '--allocation', 'rp=compute-1_ens1f0,SRIOV_NET_VF=1',
      '--allocation', 'rp=compute-1_ens1f1,SRIOV_NET_VF=1',
      '--project-id', cloud.PROJECT, '--user-id', cloud.USER]),
    ('And read it back.',
     ['resource', 'provider', 'allocation', 'show', VM4]),
    ('What the first physical function now has in use.',
     ['resource', 'provider', 'usage', 'show', 'compute-1_ens1f0']),
    ('What project-1 uses in total.',
     ['resource', 'usage', 'show', cloud.PROJECT]),
    ('The custom traits of this cloud.',
     ['trait', 'list', '--name', 'startswith:CUSTOM_']),
)

# The tour of --with-nova: flavors and an availability zone made with
# OpenStackClient's own commands, then read back.
NOVA_TOUR = (
    ('The catalog Keystone gives: Placement and Nova are found by service '
     'type, region and interface, as in any cloud.',
     ['catalog', 'show', 'placement']),
    ('Flavors, with OpenStackClient\'s own command: a plain one ...',
     ['flavor', 'create', '--vcpus', '4', '--ram', '8192', '--disk', '40',
      'm1.large']),
    ('... one that asks for an FPGA on an AVX2 host ...',
     ['flavor', 'create', '--vcpus', '2', '--ram', '4096', '--disk', '20',
      '--property', 'resources:CUSTOM_FPGA=1',
      '--property', 'trait:HW_CPU_X86_AVX2=required', 'm1.fpga']),
    ('... and one with a virtual function on physnet1, in a group of its '
     'own.',
     ['flavor', 'create', '--vcpus', '2', '--ram', '2048', '--disk', '10',
      '--swap', '512', '--property', 'resources1:SRIOV_NET_VF=1',
      '--property', 'trait1:CUSTOM_PHYSNET1=required', 'm1.sriov']),
    ('An availability zone is a Nova host aggregate with that metadata; '
     'Nova mirrors its UUID into Placement when hosts join it.',
     ['aggregate', 'create', '--zone', 'az1', 'az1-hosts']),
    ('The flavors with their extra specs, from the compute API.',
     ['flavor', 'list', '--long']),
    ('The aggregates, with their UUIDs.',
     ['aggregate', 'list', '--long']),
    ('And Placement\'s providers, with the same token and the same catalog.',
     ['resource', 'provider', 'list']),
    ('How many more m1.large fit, tree by tree: the shape is the request '
     'Nova\'s scheduler sends for the flavor, read from the compute API '
     '(--debug prints it).',
     ['--os-placement-api-version', microversions.LATEST, 'resource',
      'provider', 'capacity', 'fit', '--flavor', 'm1.large']),
    ('Every flavor at once, one row each: how many fit for sure, and '
     'at most (each sharing pool counted once).',
     ['--os-placement-api-version', microversions.LATEST, 'resource',
      'provider', 'capacity', 'fit', '--all-flavors', '--summary']),
    ('"No valid host" for m1.fpga: why each tree is not a candidate ...',
     ['--os-placement-api-version', microversions.LATEST, 'allocation',
      'candidate', 'explain', '--flavor', 'm1.fpga']),
    ('... and which constraint of its request, dropped, would let more '
     'trees in.',
     ['--os-placement-api-version', microversions.LATEST, 'allocation',
      'candidate', 'explain', '--flavor', 'm1.fpga', '--summary']),
    # The audit of the seeded servers; (comment, argv, exit code).
    ('Where Nova and Placement disagree: one row per finding, of each '
     'kind (exit code 3: found).',
     ['resource', 'provider', 'audit'], 3),
    ('What --fix would do, without writing anything (exit code 3).',
     ['resource', 'provider', 'audit', '--fix', '--dry-run',
      '--undo-file', 'audit-undo.json', '-c', 'problem', '-c', 'consumer',
      '-c', 'fix'], 3),
    ('The fix, after saving what it changes to an undo file (exit code 4: '
     'found and fixed).',
     ['resource', 'provider', 'audit', '--fix', '--undo-file',
      'audit-undo.json', '-c', 'problem', '-c', 'consumer', '-c', 'fix'],
     4),
    ('What is left needs an operator: the fix leaves it by design.',
     ['resource', 'provider', 'audit'], 3),
    ('The undo file gives every consumer back as it was (a plain restore: '
     'only a consumer changed after the fix would be refused; --dry-run: '
     'only say what would change).',
     ['resource', 'provider', 'allocation', 'restore',
      '--file', 'audit-undo.json', '--dry-run']),
)


def say(text=''):
    print(text, flush=True)


def run_tour(tour, argv0, env, cwd=None):
    """Run each command of ``tour``, printed; returns those that failed.

    A step is (comment, argv) or (comment, argv, the exit code it must
    have: 0 if not given); the commands run in ``cwd``.
    """
    failed = []
    for comment, argv, *code in tour:
        expected = code[0] if code else 0
        say()
        say(textwrap.fill(comment, 79, initial_indent='# ',
                          break_on_hyphens=False, subsequent_indent='# '))
        say('$ openstack ' + ' '.join(shlex.quote(a) for a in argv))
        # One stream, unbuffered: warnings and tables in the order a
        # terminal shows them (tox reads stdout and stderr apart).
        code = subprocess.call(argv0 + argv, cwd=cwd,
                               env=dict(env, PYTHONUNBUFFERED='1'),
                               stdin=subprocess.DEVNULL,
                               stderr=subprocess.STDOUT)
        if code != expected:
            say('(exit code %d, not %d)' % (code, expected))
            failed.append(argv)
        elif code:
            say('(exit code %d)' % code)
    return failed


def placement_tour():
    say('Starting a Placement server (openstack-placement, SQLite, '
        'gunicorn) on 127.0.0.1 ...')
    with placement.Placement() as sandbox:
        cloud.seed(sandbox.endpoint)
        say('Placement is listening on %s and holds a small cloud.'
            % sandbox.endpoint)
        say('Each command below runs the installed openstack executable '
            'with:')
        say('  ' + ' '.join(client.auth_argv(sandbox.endpoint)))
        env = client.client_env(sandbox.endpoint, os.environ)
        # The options above say it all; keep a user's OS_* out.
        for key in ('OS_AUTH_TYPE', 'OS_ENDPOINT', 'OS_TOKEN'):
            env.pop(key)
        failed = run_tour(TOUR, client.openstack_argv(sandbox.endpoint),
                          env)
        say()
        say('Stopping the server.')
    return TOUR, failed


def nova_tour():
    say('Starting Keystone, Placement and the Nova API (SQLite, gunicorn) '
        'on 127.0.0.1, and seeding Nova with servers and migrations: a '
        'minute or more ...')
    with nova_seed.SeededNovaCloud() as seeded, \
            tempfile.TemporaryDirectory(prefix='demo-') as workdir:
        box = seeded.cloud
        cloud.seed(box.placement.endpoint, token=box.token)
        say('Keystone is listening on %s, the Nova API on %s; Placement, '
            'which validates Keystone\'s tokens, holds a small cloud and '
            'the allocations of Nova\'s %d servers, with a few mistakes.'
            % (box.keystone.url, box.nova.url,
               len(seeded.scenario.nova['servers'])))
        env = box.client_env(os.environ)
        say('Each command below runs the installed openstack executable '
            'in %s with:' % workdir)
        for key, value in sorted(env.items()):
            if key.startswith('OS_'):
                say('  %s=%s' % (key, value))
        failed = run_tour(NOVA_TOUR, [client.openstack_executable()], env,
                          cwd=workdir)
        say()
        say('Stopping the servers.')
    return NOVA_TOUR, failed


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog='tox -e demo --', description='A tour of the plugin against a '
        'real Placement on 127.0.0.1.')
    parser.add_argument('--with-nova', action='store_true',
                        help='behind a real Keystone, beside a real Nova '
                             'API: flavors, an availability zone and the '
                             'audit of seeded servers')
    args = parser.parse_args(argv)
    started = time.monotonic()
    try:
        tour, failed = nova_tour() if args.with_nova else placement_tour()
    except (support.SandboxError, fixtures.MultipleExceptions) as exc:
        error = support.first_error(exc)
        if not isinstance(error, support.SandboxError):
            raise
        print('error: %s' % error, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    say('Done in %.1f s.' % (time.monotonic() - started))
    if failed:
        print('%d of %d commands failed:' % (len(failed), len(tour)),
              file=sys.stderr)
        for argv in failed:
            print('  openstack ' + ' '.join(argv), file=sys.stderr)
        return 1
    if args.with_nova:
        say('Try it yourself: ".venv/bin/tox -e sandbox -- --with-nova" '
            'keeps them running.')
    else:
        say('Try it yourself: ".venv/bin/tox -e sandbox" keeps a server '
            'running (add "-- --help" for its options).')
    return 0


if __name__ == '__main__':
    sys.exit(main())
