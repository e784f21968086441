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

"""Serve a real Placement on 127.0.0.1 until Ctrl-C: ``tox -e sandbox``.

The server is the fixture of ``osc_placement/tests/support/placement.py``,
seeded with the sample cloud when its database is empty (and with N more
providers with ``--providers N``); the program prints the variables that
point ``openstack`` at it. ``--with-nova`` puts it behind a real Keystone,
beside a real Nova API (``support/stack.py``). ``--help`` lists the
shapes and the defaults.
"""

import argparse
import contextlib
import os
import shlex
import signal
import sys
import termios
import time

import fixtures

from osc_placement.tests import support
from osc_placement.tests.support import client
from osc_placement.tests.support import cloud
from osc_placement.tests.support import neutron
from osc_placement.tests.support import nova_seed
from osc_placement.tests.support import placement
from osc_placement.tests.support import SandboxError
from osc_placement.tests.support import stack

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_SQLITE = os.path.join(REPO, 'sandbox.sqlite')
DEFAULT_PORT = 8778

SHAPES = '''\
shapes:
  --db sqlite (default)   SQLite and one gunicorn worker: requests are
                          handled one at a time, in arrival order
  --db postgresql         PostgreSQL and %(postgresql)d gunicorn workers, as
                          Placement runs in production: requests run truly
                          in parallel
  --latency-ms MS         either shape, MS milliseconds away: a relay in
                          front of the server delays each request
  --providers N           a bigger cloud: N more providers in trees of five
                          shaped like compute-1 of the sample cloud
  --with-nova             behind a real Keystone (tokens, a catalog with
                          regions and interfaces), beside a real Nova API
                          (flavors, aggregates) seeded with servers,
                          migrations and hypervisors that disagree with
                          Placement in every way "resource provider audit"
                          finds; every database temporary

examples (tox -e sandbox passes its arguments after --):
  tox -e sandbox
  tox -e sandbox -- --db postgresql
  tox -e sandbox -- --db postgresql --latency-ms 20
  tox -e sandbox -- --temporary --providers 2000
  tox -e sandbox -- --with-nova
''' % placement.DEFAULT_WORKERS


def build_parser():
    parser = argparse.ArgumentParser(
        prog='tox -e sandbox --',
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description='Run a real Placement server on 127.0.0.1 until '
                    'Ctrl-C, seeded with a small cloud\nwhen its database '
                    'is empty, and print the variables that point openstack '
                    'at it.',
        epilog=SHAPES)
    parser.add_argument(
        '--db', choices=placement.DATABASES, default='sqlite',
        help='sqlite (default): one worker, requests handled one at a '
             'time; postgresql: the production-like shape, several '
             'workers, a temporary database')
    parser.add_argument(
        '--workers', type=int, metavar='N',
        help='gunicorn workers (default: 1 for sqlite, 4 for postgresql)')
    parser.add_argument(
        '--latency-ms', type=int, default=0, metavar='MS',
        help='delay each request by MS milliseconds in a relay in front of '
             'the server, as for a shell far from the cloud (default: 0, '
             'no relay)')
    parser.add_argument(
        '--sqlite-file', metavar='PATH', default=DEFAULT_SQLITE,
        help='SQLite database file, kept across runs (default: '
             '%(default)s); not used with --db postgresql')
    parser.add_argument(
        '--temporary', action='store_true',
        help='a temporary SQLite database, removed on exit, instead of '
             'the file')
    parser.add_argument('--host', default='127.0.0.1',
                        help='address to listen on (default: %(default)s)')
    parser.add_argument('--port', type=int, default=DEFAULT_PORT,
                        help='port to listen on; 0 picks a free one '
                             '(default: %(default)s)')
    parser.add_argument('--no-seed', action='store_true',
                        help='do not create the sample cloud (nor, with '
                             '--with-nova, the servers of the audit)')
    parser.add_argument(
        '--with-nova', action='store_true',
        help='also run a real Keystone (Placement then validates its '
             'tokens) and a real Nova API, on free ports, with every '
             'database temporary; openstack logs in with a password and '
             'finds Placement and Nova in the catalog')
    parser.add_argument(
        '--providers', type=int, default=0, metavar='N',
        help='also create N providers in trees of five (a compute node, '
             'two NUMA nodes, an SR-IOV PF under each) with inventories, '
             'traits, aggregates and one consumer per tree; those already '
             'there are kept; PostgreSQL is then analyzed (default: 0)')
    return parser


def _stop_on_signals():
    """SIGINT, SIGTERM and SIGHUP end the program, so clean-up runs.

    SIGINT too: a shell starts background jobs with it ignored.
    """
    def handler(signum, frame):
        # Once: a second Ctrl-C must not interrupt the clean-up.
        for sig in signals:
            signal.signal(sig, signal.SIG_IGN)
        raise KeyboardInterrupt
    signals = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    for sig in signals:
        signal.signal(sig, handler)


@contextlib.contextmanager
def _ignoring(signum):
    previous = signal.signal(signum, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signum, previous)


@contextlib.contextmanager
def keyboard_to_self():
    """Take the terminal's keyboard signals from the parent (tox).

    tox runs this program in tox's own process group, so a Ctrl-C reaches
    tox as well, which then interrupts the program a second time and
    reports the environment as skipped and failed whenever the program
    takes more than a moment to stop. Here the program moves to a process
    group of its own and makes it the terminal's foreground group, as a
    shell does for a job: the keyboard's signals reach this program only,
    and tox sees a program that stops cleanly and exits 0. The terminal
    goes back to the parent's group on exit. Ctrl-Z is ignored meanwhile
    (nobody would resume the program).

    Nothing changes without a controlling terminal, when the program
    leads its process group already (a shell started it), or when
    background processes may not write to the terminal (``stty tostop``:
    tox prints the program's output).
    """
    try:
        tty = os.open('/dev/tty', os.O_RDWR | os.O_NOCTTY)
    except OSError:
        yield
        return
    try:
        group = os.getpgrp()
        take = (os.tcgetpgrp(tty) == group and group != os.getpid()
                and not termios.tcgetattr(tty)[3] & termios.TOSTOP)
        if take:
            with _ignoring(signal.SIGTTOU):
                os.setpgid(0, 0)
                os.tcsetpgrp(tty, os.getpgrp())
        try:
            with _ignoring(signal.SIGTSTP) if take else \
                    contextlib.nullcontext():
                yield
        finally:
            if take:
                with _ignoring(signal.SIGTTOU):
                    os.tcsetpgrp(tty, group)
    finally:
        os.close(tty)


def _seed(args, server):
    """Seed the server as asked; returns what the banner says of it."""
    endpoint = server.server_endpoint
    empty = cloud.is_empty(endpoint, server.token)
    if empty and not args.no_seed:
        cloud.seed(endpoint, server.token)
        state = 'seeded with the sample cloud'
    elif empty:
        state = 'empty'
    else:
        state = 'existing data kept'
    if args.providers:
        started = time.monotonic()
        made = cloud.populate(endpoint, args.providers,
                              parallel=server.requests_in_flight,
                              token=server.token)
        server.analyze()
        state += '; %d of %d providers in trees of five added in %.1f s' % (
            made, args.providers, time.monotonic() - started)
    return state


def _banner(args, server, startup, state, box=None, network=None):
    print('Placement is listening on %s (pid %d, %d worker%s; %s in '
          '%.1f s)' % (server.server_endpoint, server.server_pids[0],
                       server.workers, 's' if server.workers > 1 else '',
                       'with Keystone and Nova, started' if box
                       else 'started', startup))
    if server.proxy:
        print('Relay: %s (+%d ms per request)'
              % (server.endpoint, server.latency_ms))
    if server.postgres:
        where = 'PostgreSQL from %s, pid %d, temporary' % (
            server.postgres.source, server.postgres.pids[0])
    elif server.db_path:
        where = 'SQLite %s' % server.db_path
    else:
        where = 'SQLite, temporary'
    print('Database: %s (%s)' % (where, state))
    if box:
        print('Keystone: %s (pid %d, SQLite, temporary); Placement '
              'validates its tokens' % (box.keystone.url,
                                        box.keystone.server_pids[0]))
        print('Nova API: %s (pid %d, SQLite, temporary)'
              % (box.nova.url, box.nova.server_pids[0]))
        if network:
            print('Network API: %s, a stand-in with no ports (what the '
                  'Nova API asks when it lists servers)'
                  % network.server_endpoint)
        print('Placement in the catalog (a relay for each URL):')
        for (region, interface), url in sorted(box.placement_urls.items()):
            print('  %s %s: %s' % (region, interface, url))
        env = box.client_env({})
        example = ('"openstack flavor list", "openstack resource provider '
                   'list", "openstack --os-interface internal resource '
                   'provider list", "openstack server list --all-projects '
                   '--long", "openstack resource provider audit"')
    else:
        env = client.client_env(server.endpoint, {})
        example = '"openstack resource provider list"'
    print('Point openstack at it from another shell with:\n')
    activate = os.path.join(os.path.dirname(sys.executable), 'activate')
    if os.path.exists(activate):
        print('. %s' % shlex.quote(activate))
    # Every OS_* variable of the shell first (OS_CLOUD, an openrc's, the
    # other sandbox's: --with-nova's OS_AUTH_URL and password), as the
    # tests' client_env() drops them: then only those below are set.
    print("unset $(env | sed -n 's/^\\(OS_[A-Za-z0-9_]*\\)=.*/\\1/p')")
    for key, value in sorted(env.items()):
        if key.startswith('OS_'):
            print('export %s=%s' % (key, shlex.quote(value)))
    print('\nthen e.g. %s. Ctrl-C stops the server%s.'
          % (example, 's' if box else ''), flush=True)


def serve(args):
    """Serve until the server dies (1) or a signal arrives."""
    options = dict(host=args.host, port=args.port, db=args.db,
                   workers=args.workers, latency_ms=args.latency_ms)
    if args.with_nova:
        return serve_with_nova(args, options)
    server = placement.Placement(
        db_path=(args.sqlite_file if args.db == 'sqlite'
                 and not args.temporary else None), **options)
    started = time.monotonic()
    with server:
        startup = time.monotonic() - started
        _banner(args, server, startup, _seed(args, server))
        code = server.wait()
        print('The Placement server exited with code %s:\n%s'
              % (code, server.log_tail()), file=sys.stderr)
        return 1


def serve_with_nova(args, options):
    """Keystone, Placement and Nova until one dies (1) or a signal."""
    host = options.pop('host')
    print('Starting Keystone, Placement and the Nova API on %s (a few '
          'minutes) ...' % host, flush=True)
    box = stack.NovaCloud(placement_options=options, host=host)
    started = time.monotonic()
    with box, neutron.NeutronStandIn(host=host) as network:
        neutron.register(box.keystone, network.server_endpoint)
        state = _seed(args, box.placement)
        if not args.no_seed:
            scenario = nova_seed.seed(box)
            state += ('; Nova seeded with %d servers, %d migrations and %d '
                      'hypervisors, with findings of each kind for '
                      '"openstack resource provider audit"' % (
                          len(scenario.nova['servers']),
                          len(scenario.nova['migrations']),
                          len(scenario.nova['hosts'])))
        startup = time.monotonic() - started
        _banner(args, box.placement, startup, state, box, network)
        servers = (box.keystone, box.placement, box.nova, network)
        while all(server.running for server in servers):
            time.sleep(0.5)
        for server in servers:
            if not server.running:
                print('The %s server exited with code %s:\n%s'
                      % (server.title, server.wait(), server.log_tail()),
                      file=sys.stderr)
        return 1


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.workers is not None and args.workers < 1:
        parser.error('--workers must be at least 1')
    if args.latency_ms < 0:
        parser.error('--latency-ms must not be negative')
    if args.providers < 0:
        parser.error('--providers must not be negative')

    with keyboard_to_self():
        _stop_on_signals()
        try:
            return serve(args)
        except KeyboardInterrupt:
            print('\nStopped.', flush=True)
            return 0
        except (SandboxError, fixtures.MultipleExceptions) as exc:
            error = support.first_error(exc)
            if not isinstance(error, SandboxError):
                raise
            hint = ''
            if args.port and 'cannot listen' in str(error):
                hint = ' (another port: --port N, or --port 0 for a free one)'
            print('error: %s%s' % (error, hint), file=sys.stderr)
            return 1


if __name__ == '__main__':
    sys.exit(main())
