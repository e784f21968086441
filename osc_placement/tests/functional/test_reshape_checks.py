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

"""``resource provider reshape`` against a real Placement: who may send it,
and what its dry run refuses before any write.

The placement fixture runs with ``enforce_new_defaults`` off, which lets
the deprecated ``role:admin`` rule through; a deployment of today has it
on (oslo.policy's default today), and then only the ``service`` role
may ``POST /reshaper``. :class:`TestReshapePolicy` turns it on.
"""

import json
import os

import fixtures
from placement.tests.unit import policy_fixture

from osc_placement import tests
from osc_placement.tests.functional import test_allocation_writes as writes

RESHAPE = ('resource', 'provider', 'reshape')
CHILD = 'aaaaaaaa-aaaa-4aaa-8aaa-0000000000c1'


class ReshapeCase(writes.WritesTestCase):
    """compute-3 (VCPU 8, VGPU 4), C1 on it; its child compute-3-pgpu-0.

    ``body()`` is the reshape of a virt driver: VGPU from the root to the
    child, C1's VGPU with it; ``write_file(body)`` writes a file.
    """

    def setUp(self):
        super().setUp()
        tests.create_provider(self, writes.RP3, 'compute-3',
                              {'VCPU': 8, 'VGPU': 4})
        tests.allocate(self, writes.C1, {writes.RP3: {'VCPU': 2, 'VGPU': 1}})
        self.child = CHILD
        tests.create_provider(self, CHILD, 'compute-3-pgpu-0',
                              parent=writes.RP3)
        self.file = os.path.join(
            self.useFixture(fixtures.TempDir()).path, 'reshape.json')

    def body(self):
        root = self.api('GET', '/resource_providers/' + writes.RP3)
        return {
            'inventories': {
                writes.RP3: {'resource_provider_generation':
                             root['generation'],
                             'inventories': {'VCPU': {'total': 8}}},
                CHILD: {'resource_provider_generation': 0,
                        'inventories': {'VGPU': {'total': 4}}}},
            'allocations': {writes.C1: {
                'allocations': {writes.RP3: {'resources': {'VCPU': 2}},
                                CHILD: {'resources': {'VGPU': 1}}},
                'project_id': 'project-1', 'user_id': 'user-1',
                'consumer_generation': self.consumer(writes.C1)[
                    'consumer_generation'],
                'consumer_type': 'INSTANCE'}}}

    def write_file(self, body=None, text=None):
        with open(self.file, 'w') as f:
            f.write(json.dumps(body or self.body()) if text is None
                    else text)

    def inventories(self, rp):
        return {rc: inv['total'] for rc, inv in self.api(
            'GET', '/resource_providers/%s/inventories' % rp)[
                'inventories'].items()}

    def unchanged(self):
        """The server holds what it held before any reshape."""
        self.assertEqual({'VCPU': 8, 'VGPU': 4},
                         self.inventories(writes.RP3))
        self.assertEqual({}, self.inventories(CHILD))
        self.assertEqual({writes.RP3: {'VCPU': 2, 'VGPU': 1}},
                         self.held(writes.C1))


class TestReshapePolicy(ReshapeCase):
    """Placement's default policy, new defaults enforced."""

    def setUp(self):
        super().setUp()
        self.placement.conf_fixture.config(
            group='oslo_policy', enforce_new_defaults=True)
        # Loads the rules again, with the option above.
        self.policy = self.useFixture(
            policy_fixture.PolicyFixture(self.placement.conf_fixture))

    def test_admin_token_gets_one_line_naming_policy_and_role(self):
        self.write_file()
        err, code = self.fails(*RESHAPE, self.file, version='1.39')
        self.assertEqual(1, code)
        self.assertEqual([
            'Placement refuses POST /reshaper to this token (HTTP 403): its '
            'policy placement:reshaper:reshape allows, by default, only the '
            'service role (rule:service_api, role:service), not admin; run '
            'it with a token of the service role (as Nova\'s compute '
            'service does) or a policy that allows it. Nothing was '
            'written.'], err.splitlines())
        self.assertEqual([('POST', '/reshaper')], self.writes())
        self.unchanged()

    def test_service_role_reshapes(self):
        self.write_file()

        def as_service(method, url, kwargs):
            kwargs.setdefault('headers', {})['X-Roles'] = 'service'

        self.before_request(as_service, 'POST', '/reshaper')
        self.ok(*RESHAPE, self.file, version='1.39')
        self.assertEqual({'VGPU': 4}, self.inventories(self.child))

    def test_policy_that_allows_admin_reshapes(self):
        self.write_file()
        self.policy.set_rules({'placement:reshaper:reshape': 'role:admin'},
                              overwrite=False)
        self.ok(*RESHAPE, self.file, version='1.39')
        self.assertEqual({'VCPU': 8}, self.inventories(writes.RP3))
        self.assertEqual({writes.RP3: {'VCPU': 2},
                          self.child: {'VGPU': 1}}, self.held(writes.C1))


class TestReshapeRefusedBeforeAnyWrite(ReshapeCase):
    """What Placement refuses, or fails on, is one line in both runs."""

    def both(self):
        """(stderr, exit code) of the dry run, then the real run's.

        Asserts that neither sent a write and the server is unchanged.
        """
        self.sent[:] = []
        _out, dry_err, dry = self.openstack(*RESHAPE, self.file, '--dry-run',
                                            version='1.39')
        _out, err, code = self.openstack(*RESHAPE, self.file,
                                         version='1.39')
        self.assertEqual([], self.writes())
        self.unchanged()
        return (dry_err, dry), (err, code)

    def test_unknown_resource_class(self):
        body = self.body()
        body['inventories'][CHILD]['inventories']['CUSTOM_NOPE'] = {
            'total': 1}
        self.write_file(body)
        dry, real = self.both()
        self.assertEqual((
            'Placement would refuse: resource provider %s: no resource '
            'class CUSTOM_NOPE (create it with "openstack resource class '
            'create CUSTOM_NOPE").\n'
            'Placement would refuse this reshape (1 problem); nothing was '
            'sent.\n' % CHILD, 1), real)
        self.assertEqual(real, dry)

    def test_record_without_total(self):
        body = self.body()
        body['inventories'][CHILD]['inventories']['VGPU'] = {'max_unit': 2}
        self.write_file(body)
        dry, real = self.both()
        self.assertEqual((
            '%s: inventories.%s.inventories.VGPU.total: expected an integer '
            '(missing).\n' % (self.file, CHILD), 1), real)
        self.assertEqual(real, dry)

    def test_nan_and_infinity(self):
        for constant in ('NaN', 'Infinity', '-Infinity'):
            text = json.dumps(self.body()).replace(
                '"VGPU": {"total": 4}',
                '"VGPU": {"total": 4, "allocation_ratio": %s}' % constant)
            self.assertIn(constant, text)
            self.write_file(text=text)
            dry, real = self.both()
            self.assertEqual((
                '%s: not JSON: %s is not a number JSON allows.\n'
                % (self.file, constant), 1), real)
            self.assertEqual(real, dry)
