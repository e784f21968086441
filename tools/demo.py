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
"""

import os
import shlex
import subprocess
import sys
import textwrap
import time

import fixtures

from osc_placement.tests import support
from osc_placement.tests.support import client
from osc_placement.tests.support import cloud
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


def say(text=''):
    print(text, flush=True)


def main():
    started = time.monotonic()
    say('Starting a Placement server (openstack-placement, SQLite, '
        'gunicorn) on 127.0.0.1 ...')
    failed = []
    try:
        with placement.Placement() as sandbox:
            cloud.seed(sandbox.endpoint)
            say('Placement is listening on %s and holds a small cloud.'
                % sandbox.endpoint)
            say('Each command below runs the installed openstack executable '
                'with:')
            say('  ' + ' '.join(client.auth_argv(sandbox.endpoint)))
            argv0 = client.openstack_argv(sandbox.endpoint)
            env = client.client_env(sandbox.endpoint, os.environ)
            # The options above say it all; keep a user's OS_* out.
            for key in ('OS_AUTH_TYPE', 'OS_ENDPOINT', 'OS_TOKEN'):
                env.pop(key)
            for comment, argv in TOUR:
                say()
                say(textwrap.fill(comment, 79, initial_indent='# ',
                                  break_on_hyphens=False,
                                  subsequent_indent='# '))
                say('$ openstack ' + ' '.join(shlex.quote(a) for a in argv))
                code = subprocess.call(argv0 + argv, env=env,
                                       stdin=subprocess.DEVNULL)
                if code:
                    say('(exit code %d)' % code)
                    failed.append(argv)
            say()
            say('Stopping the server.')
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
        print('%d of %d commands failed:' % (len(failed), len(TOUR)),
              file=sys.stderr)
        for argv in failed:
            print('  openstack ' + ' '.join(argv), file=sys.stderr)
        return 1
    say('Try it yourself: ".venv/bin/tox -e sandbox" keeps a server running '
        '(add "-- --help" for its options).')
    return 0


if __name__ == '__main__':
    sys.exit(main())
