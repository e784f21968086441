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

"""Run one ``openstack`` command under a profiler (run by bench.py).

Usage, with the Python of the client's virtualenv::

    python profiled.py --areas FILE.json -- OPENSTACK ARGS...
    python profiled.py --cprofile FILE.pstats -- OPENSTACK ARGS...

Both measure CPU time, thread by thread (``time.thread_time``), in every
thread of the process (the batch engine's workers included): a thread
waiting for an answer costs nothing.

``--areas`` charges each slice of CPU time to the innermost *area* on the
thread's stack: the package of the function running, or the first caller
up the stack that belongs to one (the standard library counts for the
area that called it), with a few functions singled out, which count
with everything they call: keystoneauth's request and response logging,
requests' merging of the environment into each request (proxies, CA
bundle) and its ``.netrc`` lookup, JSON decoding.
Everything that runs in the main thread before cliff starts the command
is the start-up. The profiler's own time is left out. Writes
``{area: seconds}`` as JSON.

``--cprofile`` writes cProfile's statistics of every thread merged, for
``pstats``: in the main thread, only while cliff runs the command (its
``App.run_subcommand``), so that the start-up's imports stay out.
"""

import argparse
import atexit
import cProfile
import json
import os
import pstats
import runpy
import sys
import threading
import time

START_UP = 'start-up (before cliff runs the command)'
REST = 'the rest (cliff, osc-lib, OpenStackClient, the standard library)'
IMPORTS = 'imports and entry points after the start-up (importlib, stevedore)'
# (the directory of a package, then the function or None, and its area);
# the first match wins.
AREAS = (
    ('keystoneauth1', '_http_log_request', 'keystoneauth: request logging'),
    ('keystoneauth1', '_http_log_response',
     'keystoneauth: response logging'),
    ('keystoneauth1', None,
     'keystoneauth: the rest of Session.request (headers, auth)'),
    ('requests', 'merge_environment_settings',
     'requests: merge_environment_settings (proxies, CA bundle)'),
    ('requests', 'get_netrc_auth', 'requests: get_netrc_auth (.netrc)'),
    ('requests', None, 'requests: the rest'),
    ('urllib3', None, 'urllib3 (with http.client and the sockets)'),
    ('json', 'loads', 'JSON decoding'),
    ('json', 'decode', 'JSON decoding'),
    ('json', 'raw_decode', 'JSON decoding'),
    ('simplejson', 'loads', 'JSON decoding'),
    ('simplejson', 'decode', 'JSON decoding'),
    ('json', 'dumps', 'JSON encoding'),
    ('simplejson', 'dumps', 'JSON encoding'),
    ('osc_placement', None, 'osc_placement (ours)'),
    # The frameworks that call us and that we call (cliff's parser and
    # formatters, osc-lib's client manager) are theirs, not ours.
    ('cliff', None, REST),
    ('osc_lib', None, REST),
    ('openstackclient', None, REST),
    ('stevedore', None, IMPORTS),
    ('importlib', None, IMPORTS),
)


_AREA_OF = {}
# The areas of single functions: everything they call counts for them
# (requests' merge_environment_settings calls requests' get_environ_proxies,
# which would otherwise start "requests: the rest").
SINGLED_OUT = frozenset(area for _package, function, area in AREAS
                        if function is not None)


def area_of(code):
    """The area that a function starts, or None (its caller's)."""
    try:
        return _AREA_OF[code]
    except KeyError:
        pass
    path = code.co_filename.replace(os.sep, '/')
    if path.startswith('<frozen importlib'):
        path = '/importlib/'
    found = None
    for package, function, area in AREAS:
        if '/%s/' % package in path and function in (None, code.co_name):
            found = area
            break
    _AREA_OF[code] = found
    return found


class Areas(object):
    """A profile hook that charges CPU time to areas, per thread."""

    def __init__(self):
        self.seconds = {}
        self.threads = {}
        self.main = threading.get_ident()

    def hook(self, frame, event, arg):
        now = time.thread_time()
        ident = threading.get_ident()
        state = self.threads.get(ident)
        if state is None:
            base = START_UP if ident == self.main else REST
            state = self.threads[ident] = [[base], now]
        stack = state[0]
        top = stack[-1]
        self.seconds[top] = self.seconds.get(top, 0.0) + now - state[1]
        if event == 'call':
            area = area_of(frame.f_code)
            if top in SINGLED_OUT:
                area = top
            elif top == START_UP and not (
                    area == REST and frame.f_code.co_name == 'run_subcommand'):
                # Until cliff runs the command, all is the start-up.
                area = START_UP
            stack.append(area or top)
        elif event == 'return' and len(stack) > 1:
            stack.pop()
        state[1] = time.thread_time()

    def start(self):
        threading.setprofile(self.hook)
        sys.setprofile(self.hook)

    def stop(self):
        sys.setprofile(None)
        threading.setprofile(None)


def run_script(script, argv):
    """Run a console script as ``python SCRIPT ARGV`` would; its code."""
    sys.argv = [script] + argv
    try:
        runpy.run_path(script, run_name='__main__')
    except SystemExit as exc:
        return exc.code
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument('--areas', metavar='FILE')
    mode.add_argument('--cprofile', metavar='FILE')
    parser.add_argument('command', nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ['--'] \
        else args.command
    if not command:
        parser.error('no command to run')
    if args.areas:
        areas = Areas()

        def write_areas():
            # After threading's shutdown has joined the batch workers.
            areas.stop()
            with open(args.areas, 'w') as f:
                json.dump(areas.seconds, f, indent=1, sort_keys=True)

        atexit.register(write_areas)
        areas.start()
        return run_script(command[0], command[1:])

    profiles = []
    thread_run = threading.Thread.run

    def profiled_run(thread):
        profile = cProfile.Profile(time.thread_time)
        profile.enable()
        try:
            thread_run(thread)
        finally:
            profile.disable()
            profiles.append(profile)

    threading.Thread.run = profiled_run
    main_profile = cProfile.Profile(time.thread_time)
    # Here, not at the top: with --areas, the command imports cliff under
    # the areas profiler, as part of the start-up it measures.
    from cliff import app
    run_subcommand = app.App.run_subcommand

    def profiled_subcommand(shell, argv):
        main_profile.enable()
        try:
            return run_subcommand(shell, argv)
        finally:
            main_profile.disable()

    app.App.run_subcommand = profiled_subcommand

    def write_stats():
        stats = pstats.Stats(main_profile)
        for profile in profiles:
            stats.add(profile)
        stats.dump_stats(args.cprofile)

    atexit.register(write_stats)
    return run_script(command[0], command[1:])


if __name__ == '__main__':
    sys.exit(main())
