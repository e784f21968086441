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


"""Running an example's commands and recording what they print.

A ``Recorder`` runs ``openstack`` commands against a scenario's sandbox
and collects the example files; the helpers read its tables back and
check what the guide's prose says about them.
"""

import shlex
import subprocess

from osc_placement import microversions
from osc_placement.tests.support import client

WIDTH = 79
# The time ``allocation save`` records in the examples (2026-12-01 09:00
# UTC), given through SOURCE_DATE_EPOCH, so that the file shown is stable.
SAVE_TIME = '1796115600'


class ExampleError(Exception):
    """A command did not behave as the example says it does."""


def display(args):
    """The command line as shown in the docs, wrapped at WIDTH columns.

    A long command is broken before its options, shell style, so that each
    option stays on one line with its value.
    """
    words = ['openstack'] + [shlex.quote(a) for a in args]
    line = '$ ' + ' '.join(words)
    if len(line) <= WIDTH:
        return line
    lines = ['$ openstack']
    for word in words[1:]:
        if (word.startswith('-') and word != '-'
                and lines[-1] != '$ openstack'):
            lines.append('    ' + word)
        else:
            lines[-1] += ' ' + word
    return ' \\\n'.join(lines)


class Recorder(object):
    """Runs commands against a sandbox and collects the example files."""

    def __init__(self, box, files, env=None):
        self.box = box
        self.files = files
        # The environment of the commands (None: the sandbox's admin
        # token, client.client_env()).
        self.env = env
        self.current = None
        # The directory the commands run in (None: this one).
        self.cwd = None

    def file(self, name):
        """The commands run from now on go to ``examples/<name>.txt``."""
        if name in self.files:
            raise ExampleError('example %s is written twice' % name)
        self.current = name
        self.files[name] = []

    def run(self, *args, expect=0, endpoint=None, stdin=None):
        """Run ``openstack <args>`` and record it; return its stdout.

        ``stdin``: (file name, text): the command reads the text on its
        standard input, shown as ``< <file name>``.
        """
        env = dict(self.env) if self.env is not None and not endpoint \
            else client.client_env(endpoint or self.box.endpoint)
        # Library warnings depend on the versions installed, not on this
        # plugin: keep them out of the examples.
        env['PYTHONWARNINGS'] = 'ignore'
        env['SOURCE_DATE_EPOCH'] = SAVE_TIME
        proc = subprocess.run(
            [client.openstack_executable()] + list(args), env=env,
            input=stdin[1] if stdin else '', capture_output=True, text=True,
            timeout=120, cwd=self.cwd)
        if proc.returncode != expect:
            raise ExampleError(
                'openstack %s exited with %d, the example expects %d:\n%s%s'
                % (' '.join(args), proc.returncode, expect, proc.stdout,
                   proc.stderr))
        shown = display(args) + (' < %s' % stdin[0] if stdin else '')
        self.files[self.current].append(
            shown + '\n' + proc.stdout + proc.stderr)
        return proc.stdout

    def show_file(self, name, text):
        """Record ``$ cat <name>`` and the text (a file the reader made)."""
        self.files[self.current].append('$ cat %s\n%s' % (name, text))

    def api(self, method, path, body=None, version=microversions.LATEST):
        """A direct request to Placement (setup; not shown)."""
        return self.box.api(method, path, body=body, version=version)


def table_rows(output):
    """The cells of each data row of a table printed by ``openstack``."""
    lines = [line for line in output.splitlines() if line.startswith('|')]
    return [[cell.strip() for cell in line.strip('|').split('|')]
            for line in lines[1:]]


def candidate_rows(output):
    """{candidate number: [(allocation, provider uuid), ...]}."""
    found = {}
    for row in table_rows(output):
        found.setdefault(int(row[0]), []).append((row[1], row[2]))
    return found


def claim(condition, what):
    """The prose of the guide says ``what`` about an output: check it."""
    if not condition:
        raise ExampleError('the user guide says that %s, but the output '
                           'does not show it any more: update the text'
                           % what)
