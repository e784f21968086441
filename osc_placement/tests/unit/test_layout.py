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

"""The layout of the house: commands on top of what they use.

``osc_placement/resources/`` holds the command modules and their
``common.py``; every other module of the package is a helper that the
commands use, and no helper imports a command module.
"""

import ast
import os

from oslotest import base

import osc_placement

PACKAGE = os.path.dirname(os.path.abspath(osc_placement.__file__))
COMMANDS = 'osc_placement.resources'


def _helper_modules():
    for dirpath, dirnames, filenames in os.walk(PACKAGE):
        rel = os.path.relpath(dirpath, PACKAGE).split(os.sep)
        if rel[0] in ('resources', 'tests'):
            dirnames[:] = []
            continue
        for name in filenames:
            if name.endswith('.py'):
                yield os.path.join(dirpath, name)


def _imported(path):
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            yield node.module
            for alias in node.names:
                yield '%s.%s' % (node.module, alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name


class TestLayout(base.BaseTestCase):

    def test_helpers_import_no_command_module(self):
        offenders = {}
        for path in _helper_modules():
            found = sorted(name for name in _imported(path)
                           if name == COMMANDS
                           or name.startswith(COMMANDS + '.'))
            if found:
                offenders[os.path.relpath(path, PACKAGE)] = found
        self.assertEqual({}, offenders)

    def test_resources_holds_only_commands_and_common(self):
        commands = os.path.join(PACKAGE, 'resources')
        for name in os.listdir(commands):
            if not name.endswith('.py') or name in ('__init__.py',
                                                    'common.py'):
                continue
            with open(os.path.join(commands, name)) as f:
                tree = ast.parse(f.read())
            classes = [node for node in tree.body
                       if isinstance(node, ast.ClassDef)]
            self.assertTrue(classes, '%s declares no command' % name)
