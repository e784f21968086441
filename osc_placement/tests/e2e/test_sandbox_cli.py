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

"""``python -m osc_placement.tests.sandbox`` (what ``tox -e sandbox`` runs):
the exports it prints work, Ctrl-C stops everything, the database file
survives a restart.
"""

import re
import signal
import subprocess
import sys

from osc_placement.tests import sandbox as sb
from osc_placement.tests.e2e.conftest import server_processes_of


def start_cli(db_path):
    proc = subprocess.Popen(
        [sys.executable, '-m', 'osc_placement.tests.sandbox',
         '--db', str(db_path)],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if 'Ctrl-C stops the server' in line:
            break
    else:
        proc.wait(30)
        raise AssertionError('the sandbox did not start: %s%s'
                             % (''.join(lines), proc.stderr.read()))
    return proc, ''.join(lines)


def stop_cli(proc):
    pid = proc.pid
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    return proc.returncode, out, err, server_processes_of(pid)


def exports(text):
    """The environment of a shell where the printed exports were pasted
    (and no other OS_* variable is set)."""
    found = dict(re.findall(r'^export (OS_\w+)=(\S+)$', text, re.M))
    env = {key: value
           for key, value in sb.client_env(found['OS_ENDPOINT']).items()
           if not key.startswith('OS_')}
    env.update(found)
    return env


def openstack(env, *argv):
    return subprocess.run([sb.openstack_executable()] + list(argv),
                          env=env, capture_output=True, text=True,
                          timeout=120)


def test_serves_until_interrupted_and_keeps_its_database(tmp_path):
    db = tmp_path / 'placement.sqlite'

    proc, banner = start_cli(db)
    try:
        assert '(seeded with the sample cloud)' in banner
        env = exports(banner)
        assert env['OS_AUTH_TYPE'] == 'admin_token'
        assert env['OS_TOKEN'] == 'admin'
        assert re.match(r'^http://127\.0\.0\.1:\d+$', env['OS_ENDPOINT'])
        res = openstack(env, 'resource', 'provider', 'list', '-f', 'value',
                        '-c', 'name')
        assert (res.returncode, res.stderr) == (0, '')
        assert sorted(res.stdout.split()) == sorted(
            name for name, _, _, _, _ in sb.PROVIDERS)
        res = openstack(env, 'resource', 'provider', 'create', 'added')
        assert res.returncode == 0, res.stderr
    finally:
        code, out, err, left = stop_cli(proc)
    assert (code, err, left) == (0, '', [])
    assert out.strip() == 'Stopped.'
    assert db.exists()

    # Started again on the same file: nothing lost, nothing seeded twice.
    proc, banner = start_cli(db)
    try:
        assert '(existing data kept)' in banner
        res = openstack(exports(banner), 'resource', 'provider', 'list',
                        '-f', 'value', '-c', 'name')
        assert sorted(res.stdout.split()) == sorted(
            ['added'] + [name for name, _, _, _, _ in sb.PROVIDERS])
    finally:
        code, out, err, left = stop_cli(proc)
    assert (code, err, left) == (0, '', [])
