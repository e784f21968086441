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

"""Time one ``openstack`` command with pyperf (run by bench.py).

Usage: ``python timer.py --spec SPEC.json <pyperf options>``. SPEC holds
the command line, its environment and, for a command that changes the
cloud, how to put the cloud back before each run (outside the time
measured). pyperf spawns the worker processes, warms up, and writes every
value; one value is one whole ``openstack`` process.

Each run also appends one line of JSON to SPEC's ``cpu_log``: its wall
time, the CPU time the client, the server and the relay used during it,
``warmup`` (a run that pyperf does not keep) and ``round`` (SPEC's: the
turn of bench.py's rounds). The CPU figures then come from the runs that
are timed.
"""

import json
import os
import subprocess
import sys
import time

import psutil
import pyperf

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import targets  # noqa: E402

from osc_placement.tests.support import processes  # noqa: E402


def add_cmdline_args(cmd, args):
    cmd.extend(('--spec', args.spec))


def main():
    runner = pyperf.Runner(add_cmdline_args=add_cmdline_args)
    runner.argparser.add_argument('--spec', required=True)
    args = runner.parse_args()
    with open(args.spec) as f:
        spec = json.load(f)

    relay = psutil.Process(spec['relay_pid'])
    calls = [0]

    def relay_cpu():
        times = relay.cpu_times()
        return times.user + times.system

    def run(loops):
        warmup = calls[0] < (runner.args.warmups or 0)
        calls[0] += 1
        elapsed = 0.0
        for _ in range(loops):
            targets.restore_cloud(spec['server'], spec['restore'])
            server = processes.cpu_seconds(spec['server_pids'])
            relayed = relay_cpu()
            started = time.perf_counter()
            proc = subprocess.Popen(spec['argv'], env=spec['env'],
                                    stdin=subprocess.DEVNULL,
                                    stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)
            _, status, usage = os.wait4(proc.pid, 0)
            wall = time.perf_counter() - started
            elapsed += wall
            code = os.waitstatus_to_exitcode(status)
            if code:
                raise SystemExit('%s exited with %d' % (spec['name'], code))
            with open(spec['cpu_log'], 'a') as log:
                log.write(json.dumps({
                    'warmup': warmup, 'round': spec['round'],
                    'wall': wall,
                    'client': usage.ru_utime + usage.ru_stime,
                    'server': processes.cpu_seconds(spec['server_pids'])
                    - server,
                    'relay': relay_cpu() - relayed}) + '\n')
        return elapsed

    runner.bench_time_func(spec['name'], run)


if __name__ == '__main__':
    main()
