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


"""What importing the plugin costs every ``openstack`` command.

Each check runs in a fresh interpreter (a subprocess), the only way to see
which modules an import really loads.

cliff imports every command module of every plugin on every run (its
command manager loads the entry points through stevedore), and its
``--help`` makes each command to print its description: the engines that
only some runs need (the local evaluation, the flavor translation, the
compute client, the save files, DOT) are imported by those runs only, and
the parts that only a few commands have (the --flavor options, the
OpenMetrics formatter) by those commands only.
"""

import json
import os
import subprocess
import sys

from oslotest import base


# What the openstack command imports on every run (its plugins but ours),
# in a fresh interpreter; then SNAPSHOT holds the modules loaded so far.
_WITHOUT_US = """
import importlib.abc, importlib.metadata, json, sys

class Hide(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.partition('.')[0] == 'osc_placement':
            raise ImportError('hidden for the test')

hide = Hide()
sys.meta_path.insert(0, hide)
import openstackclient.shell
sys.meta_path.remove(hide)
assert not [m for m in sys.modules if m.startswith('osc_placement')]
SNAPSHOT = set(sys.modules)
"""


# Modules that no run needs unless it uses them: loaded only by the
# commands (or options) that use them, never by importing a command module
# or building a parser.
ENGINES = ('osc_placement.api.allocations', 'osc_placement.api.compute',
           'osc_placement.api.nova_state', 'osc_placement.cli.audit',
           'osc_placement.model.audit', 'osc_placement.api.drain',
           'osc_placement.cli.drain', 'osc_placement.model.drain',
           'osc_placement.api.fit_requests', 'osc_placement.api.verdicts',
           'osc_placement.cli.dot', 'osc_placement.model.candidates',
           'osc_placement.model.evaluation', 'osc_placement.model.fit_rows',
           'osc_placement.model.flavors', 'osc_placement.model.reshape',
           'osc_placement.model.savefile')
# Modules of a part that only a few commands have: never loaded by
# importing a command module, nor by the other commands' runs. The
# --flavor options are declared by the parsers of the candidates requests;
# the OpenMetrics formatter is one of the capacity commands' formatters,
# which cliff loads when it makes one of them (and --help makes every
# command, parsing none).
PARTS = ('osc_placement.cli.flavor_requests', 'osc_placement.cli.openmetrics')

# Runs of the openstack shell, one after another in this interpreter, every
# request answered by requests-mock with one body that has every key the
# reads below take; then, for each run, the osc_placement modules loaded
# so far.
_RUNS = """
import contextlib, io, json, sys
import requests_mock
from openstackclient import shell
BODY = {'traits': [], 'resource_providers': [], 'inventories': {},
        'usages': {}, 'resource_provider_generation': 0}
loaded = []
for argv in ARGVS:
    with requests_mock.Mocker() as mocker, \\
            contextlib.redirect_stdout(io.StringIO()):
        mocker.register_uri(requests_mock.ANY, requests_mock.ANY, json=BODY)
        try:
            code = shell.main(argv)
        except SystemExit as exc:  # --help
            code = exc.code
    assert not code, (argv, code)
    loaded.append(sorted(m for m in sys.modules
                         if m.startswith('osc_placement')))
print(json.dumps(loaded))
"""
_AUTH = ['--os-auth-type', 'admin_token', '--os-endpoint',
         'http://placement.test/placement', '--os-token', 'admin',
         '--os-placement-api-version', '1.6']
_UUID = '7a2f6d5e-0f3b-4b8e-9c1a-2d4e6f8a0b1c'
# The help of the commands that use the engines: their parsers.
HELPS = (['allocation', 'candidate', 'explain', '--help'],
         ['resource', 'provider', 'capacity', 'fit', '--help'],
         ['resource', 'provider', 'allocation', 'save', '--help'],
         ['resource', 'provider', 'tree', 'show', '--help'])
# Simple reads of the original plugin (as in the start-up benchmark,
# tools/bench/targets.py START_UP).
READS = (['trait', 'list'],
         ['resource', 'provider', 'list'],
         ['resource', 'provider', 'inventory', 'list', _UUID],
         ['resource', 'provider', 'usage', 'show', _UUID])
# Runs and the PARTS that each loads, one interpreter for each list (it
# keeps what every run loaded): the runs that load none first.
PART_RUNS = (
    [(['command', 'list'], [])] + [(_AUTH + argv, []) for argv in READS]
    + [(['resource', 'provider', 'allocation', 'save', '--help'], []),
       (['resource', 'provider', 'tree', 'show', '--help'], []),
       (['--help'], ['osc_placement.cli.openmetrics'])],
    [(['allocation', 'candidate', 'explain', '--help'],
      ['osc_placement.cli.flavor_requests']),
     (['resource', 'provider', 'capacity', 'fit', '--help'], list(PARTS))],
)


def _engines(modules, names=ENGINES):
    """The modules among ``modules`` that are (or are in) ``names``."""
    return sorted(m for m in modules
                  if any(m == name or m.startswith(name + '.')
                         for name in names))


class TestImports(base.BaseTestCase):

    def python(self, code):
        """Run ``code`` in a fresh interpreter; return what it printed."""
        env = {key: value for key, value in os.environ.items()
               if not key.startswith(('OS_', 'CLIFF_'))}
        result = subprocess.run(
            [sys.executable, '-c', code], env=env,
            capture_output=True, text=True, timeout=120)
        self.assertEqual(0, result.returncode, result.stderr)
        return json.loads(result.stdout)

    def test_import_adds_no_module_to_what_openstack_imports(self):
        """OpenStackClient imports every plugin on every run.

        Whatever the command, ours must not make that slower by importing
        anything new.
        """
        new = self.python(_WITHOUT_US + """
import osc_placement.plugin
print(json.dumps(sorted(set(sys.modules) - SNAPSHOT)))
""")
        # version.py reads its bounds from the microversion table, a module
        # of constants.
        self.assertEqual(['osc_placement', 'osc_placement.microversions',
                          'osc_placement.plugin', 'osc_placement.version'],
                         new)

    def test_command_modules_add_only_their_own_modules(self):
        """cliff imports every command module of the group on every run.

        Even for other services' commands: they must not import anything
        new either, in particular not the HTTP layer.
        """
        new = self.python(_WITHOUT_US + """
import osc_placement.plugin
for ep in importlib.metadata.entry_points(group='openstack.placement.v1'):
    ep.load()
print(json.dumps(sorted(set(sys.modules) - SNAPSHOT)))
""")
        self.assertNotIn('osc_placement.http.client', new)
        self.assertEqual(
            [], [m for m in new if m.partition('.')[0] != 'osc_placement'])
        self.assertIn('osc_placement.resources.resource_provider', new)
        self.assertEqual([], _engines(new))
        self.assertEqual([], _engines(new, PARTS))

    def test_help_and_simple_reads_load_no_engine(self):
        """``openstack --help`` makes every command for its description.

        Then ``command list``, the parsers of the commands that use the
        engines and simple reads, each run to its end: none loads an
        engine.
        """
        argvs = ([['--help'], ['command', 'list']] + list(HELPS)
                 + [_AUTH + argv for argv in READS])
        loaded = self.python('ARGVS = %r' % (argvs,) + _RUNS)
        self.assertIn('osc_placement.resources.capacity', loaded[0])
        self.assertIn('osc_placement.http.client', loaded[-1])
        for argv, modules in zip(argvs, loaded):
            self.assertEqual([], _engines(modules), argv)

    def test_parts_load_only_with_their_commands(self):
        """The --flavor options, -f openmetrics: their commands' runs only.

        ``--help`` makes the capacity commands, so it loads their
        formatter, but parses no command, so not the --flavor options;
        the parser of explain loads the options, not the formatter.
        """
        for runs in PART_RUNS:
            argvs = [argv for argv, _parts in runs]
            loaded = self.python('ARGVS = %r' % (argvs,) + _RUNS)
            for (argv, parts), modules in zip(runs, loaded):
                self.assertEqual(parts, _engines(modules, PARTS), argv)

    def test_other_commands_do_not_load_the_http_layer(self):
        loaded = self.python("""
import io, json, sys, contextlib
from openstackclient import shell
with contextlib.redirect_stdout(io.StringIO()):
    code = shell.main(['module', 'list'])
assert code == 0, code
print(json.dumps(sorted(m for m in sys.modules
                        if m.startswith('osc_placement'))))
""")
        self.assertIn('osc_placement.plugin', loaded)
        self.assertNotIn('osc_placement.http.client', loaded)
