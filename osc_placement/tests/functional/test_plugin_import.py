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
        self.assertEqual(['osc_placement', 'osc_placement.plugin',
                          'osc_placement.version'], new)

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
        self.assertNotIn('osc_placement.http', new)
        self.assertEqual(
            [], [m for m in new if m.partition('.')[0] != 'osc_placement'])
        self.assertIn('osc_placement.resources.resource_provider', new)

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
        self.assertNotIn('osc_placement.http', loaded)
