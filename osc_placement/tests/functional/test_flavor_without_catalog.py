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

"""The --flavor options where the session has no service catalog.

``--os-auth-type admin_token`` and ``none`` give Placement's endpoint and
nothing else: the flavors cannot be read, which the command says in one
line.
"""

import testscenarios

from osc_placement.tests import cli
from osc_placement.tests.functional import base

load_tests = testscenarios.load_tests_apply_scenarios

FIT = ('resource', 'provider', 'capacity', 'fit')


class TestFlavorWithoutCatalog(base.TestCase):

    scenarios = [
        ('admin_token', {'auth': 'admin_token'}),
        ('none', {'auth': 'none'}),
    ]
    runs = [
        FIT + ('--flavor', 'm1.large'),
        FIT + ('--all-flavors', '--summary'),
        ('allocation', 'candidate', 'list', '--flavor', 'm1.large'),
        ('allocation', 'candidate', 'explain', '--flavor', 'm1.large'),
    ]

    def run_without_catalog(self, *argv):
        auth = ['--os-auth-type', self.auth, '--os-endpoint', self.endpoint]
        if self.auth == 'admin_token':
            auth += ['--os-token', 'admin']
        return cli.run(auth + list(argv))

    def test_one_line_saying_what_to_do(self):
        for argv in self.runs:
            out, err, code = self.run_without_catalog(*argv)
            self.assertEqual(
                ('', '--flavor, --all-flavors and --availability-zone read '
                 'the compute API, which this session cannot reach: '
                 '--os-auth-type %s gives no service catalog. Log in '
                 'through Keystone (e.g. --os-auth-type password) so that '
                 'the catalog names the compute endpoint, or ask with '
                 '--resource instead.\n' % self.auth, 1),
                (out, err, code), argv)


class TestAuditWithoutCatalog(TestFlavorWithoutCatalog):
    """The audit says what it needs of the compute API, in its words."""

    runs = [('resource', 'provider', 'audit')]

    def test_one_line_saying_what_to_do(self):
        for argv in self.runs:
            out, err, code = self.run_without_catalog(*argv)
            self.assertEqual(
                ('', 'This command reads the servers, migrations, '
                 'hypervisors and aggregates of the compute API, which this '
                 'session cannot reach: --os-auth-type %s gives no service '
                 'catalog. Log in through Keystone (e.g. --os-auth-type '
                 'password) so that the catalog names the compute '
                 'endpoint.\n' % self.auth, 1), (out, err, code), argv)
