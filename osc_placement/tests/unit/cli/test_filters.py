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

"""The provider filters (``cli/filters.py``): the query they build."""

import argparse
from unittest import mock

from oslotest import base

from osc_placement.cli import filters
from osc_placement.resources import resource_provider


class TestProviderFilters(base.BaseTestCase):
    """The query of the provider filters: declared once, in one order."""

    def query(self, **values):
        cmd = resource_provider.ListResourceProvider(mock.Mock(), None)
        cmd.get_parser('openstack resource provider list')
        args = argparse.Namespace(**{dest: values.get(dest, []) for dest in (
            'name', 'uuid', 'resource', 'in_tree', 'required', 'forbidden',
            'member_of', 'aggregate_uuid')})
        return filters.query(cmd, mock.Mock(), args)

    def test_order_of_the_query_whatever_the_order_given(self):
        params = self.query(member_of=['a1,a2', '!a3'], required=['T1'],
                            forbidden=['F1,F2'], resource=['VCPU=1'],
                            name='n')
        self.assertEqual(
            [('name', 'n'), ('resources', 'VCPU:1'),
             ('required', ['T1,!F1,!F2']),
             ('member_of', ['in:a1,a2', '!a3'])],
            list(params.items()))

    def test_any_of_traits_is_a_parameter_of_its_own(self):
        self.assertEqual({'required': ['in:A,B', 'C']},
                         self.query(required=['A,B', 'C']))

    def test_nothing_given_nothing_sent(self):
        self.assertEqual({}, self.query())
