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

"""The transport package (``http/__init__.py``): its client, read lazily.

``osc_placement.http.SessionClient``, the path OpenStackClient is given,
is the client module's class; importing the package loads no module of
it (cliff imports every command module on every run); any other name is
an AttributeError.
"""

import subprocess
import sys

from oslotest import base

from osc_placement import http
from osc_placement.http import client


class TestPackage(base.BaseTestCase):

    def test_session_client_is_the_client_modules(self):
        self.assertIs(client.SessionClient, http.SessionClient)

    def test_other_names_are_attribute_errors(self):
        exc = self.assertRaises(AttributeError, getattr, http, 'Session')
        self.assertIn("'Session'", str(exc))

    def test_importing_the_package_loads_none_of_its_modules(self):
        loaded = subprocess.run(
            [sys.executable, '-c',
             'import sys, osc_placement.http; print(sorted('
             'm for m in sys.modules if m.startswith("osc_placement.")))'],
            capture_output=True, text=True, check=True).stdout
        self.assertEqual("['osc_placement.http']\n", loaded)
