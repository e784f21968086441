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

"""The package ``osc_placement.model.flavors`` as a whole.

The tests of its modules are in ``model/flavors/``.
"""

import ast
import os

from oslotest import base

from osc_placement.model import flavors


class TestPackage(base.BaseTestCase):

    def test_imports_no_nova(self):
        folder = os.path.dirname(flavors.__file__)
        imported = set()
        for name in os.listdir(folder):
            if not name.endswith('.py'):
                continue
            with open(os.path.join(folder, name)) as f:
                tree = ast.parse(f.read())
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom):
                    imported.add(node.module.split('.')[0])
                elif isinstance(node, ast.Import):
                    imported.update(a.name.split('.')[0] for a in node.names)
        self.assertEqual({'json', 'math', 're', 'types', 'osc_lib',
                          'osc_placement'},
                         imported)
