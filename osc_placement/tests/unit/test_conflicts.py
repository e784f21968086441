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

"""Conflicts (HTTP 409) that say what changed and how to go on.

A generation conflict names the provider or consumer and the command
that reads it again; a class in use keeps the server's own words.
"""

from osc_placement.tests.unit import base

URL = base.ENDPOINT
RP1 = base.RP1


class TestConflictGuidance(base.TestCase):
    """A generation conflict says who changed and how to go on."""

    def test_consumer_generation_conflict(self):
        consumer = URL + '/allocations/' + base.C1
        self.requests_mock.get(consumer, json={
            'allocations': {}, 'consumer_generation': 11})
        self.requests_mock.put(consumer, **base.error_reply(
            409, base.webob_detail(
                'consumer generation conflict - expected 12 but got 11'),
            code='placement.concurrent_update'))
        out, err, code = self.openstack(
            'resource', 'provider', 'allocation', 'set', base.C1,
            '--allocation', 'rp=%s,VCPU=1' % RP1, *base.OWNER,
            version='1.28')
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(
            'consumer generation conflict - expected 12 but got 11. '
            'Consumer %s changed since it was read: read it again with '
            '"openstack resource provider allocation show %s", then retry '
            '(HTTP 409)\n' % (base.C1, base.C1), err)

    def test_provider_generation_conflict(self):
        self.requests_mock.get(URL + '/resource_providers/' + RP1,
                               json=base.provider(RP1, generation=4))
        self.requests_mock.put(
            URL + '/resource_providers/%s/inventories' % RP1,
            **base.error_reply(409, base.webob_detail(
                'resource provider generation conflict'),
                code='placement.concurrent_update'))
        out, err, code = self.openstack(
            'resource', 'provider', 'inventory', 'set', RP1, '--resource',
            'VCPU=8', version='1.26')
        self.assertEqual(('', 1), (out, code))
        self.assertEqual(
            'resource provider generation conflict. Resource provider %s '
            'changed since it was read: read it again with "openstack '
            'resource provider show %s", then run the command again (HTTP '
            '409)\n' % (RP1, RP1), err)

    def test_other_conflicts_keep_the_server_words(self):
        self.requests_mock.get(URL + '/resource_providers/' + RP1,
                               json=base.provider(RP1, generation=4))
        self.requests_mock.put(
            URL + '/resource_providers/%s/inventories' % RP1,
            **base.error_reply(409, base.webob_detail(
                "update conflict: Inventory for 'VCPU' on resource provider "
                "'%s' in use." % RP1), code='placement.inventory.inuse'))
        out, err, code = self.openstack(
            'resource', 'provider', 'inventory', 'set', RP1, '--resource',
            'DISK_GB=8', version='1.26')
        self.assertEqual(
            ('', "update conflict: Inventory for 'VCPU' on resource provider "
             "'%s' in use. (HTTP 409)\n" % RP1, 1), (out, err, code))


class TestInUseIsNotAGenerationConflict(base.TestCase):
    """Placement codes a class in use as a concurrent update too."""

    def test_delete_of_a_class_in_use_keeps_the_server_words(self):
        detail = ("Unable to delete inventory of class VCPU: Inventory for "
                  "'VCPU' on resource provider '%s' in use." % RP1)
        self.requests_mock.delete(
            URL + '/resource_providers/%s/inventories/VCPU' % RP1,
            **base.error_reply(409, base.webob_detail(detail),
                               code='placement.concurrent_update'))
        out, err, code = self.openstack(
            'resource', 'provider', 'inventory', 'delete', RP1,
            '--resource-class', 'VCPU', version='1.39')
        self.assertEqual(('', detail + ' (HTTP 409)\n', 1), (out, err, code))
