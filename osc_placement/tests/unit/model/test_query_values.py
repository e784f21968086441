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

"""The values of the query parameters (``model/query_values.py``).

Property tests: whatever the values given, the parameter keeps each of
them, in order.
"""

import hypothesis
from hypothesis import strategies as st
from oslotest import base

from osc_placement.model import query_values
from osc_placement.tests.unit import strategies

AGGREGATE_VALUES = st.one_of(
    strategies.TEXT,
    strategies.built_from(['!', ',', 'in:', 'agg1', 'agg2', ' ', '']))
TRAITS = st.lists(st.one_of(
    strategies.TEXT,
    strategies.built_from(['CUSTOM_A', 'HW_CPU_X86_AVX', ',', '!', ''])),
    max_size=4)


class TestQueryValues(base.BaseTestCase):

    @strategies.SETTINGS
    @hypothesis.given(AGGREGATE_VALUES)
    def test_member_of_param_is_in_or_forbidden_of_the_same_aggregates(
            self, value):
        param = query_values.member_of_param(value)
        self.assertIsInstance(param, str)
        if not value.startswith('!'):
            self.assertEqual('in:' + value, param)
            return
        aggregates = value[1:]
        if ',' in aggregates:
            self.assertEqual('!in:' + aggregates, param)
        else:
            self.assertEqual('!' + aggregates, param)

    @strategies.SETTINGS
    @hypothesis.given(TRAITS, TRAITS)
    def test_required_traits_params_keep_every_trait_in_order(
            self, required, forbidden):
        params = query_values.required_traits_params(required, forbidden)
        self.assertTrue(all(isinstance(p, str) for p in params))
        any_of = ['in:' + t for t in required if ',' in t]
        all_of = [t for t in required if ',' not in t] + \
            ['!' + t for value in forbidden for t in value.split(',')]
        self.assertEqual(
            any_of + ([','.join(all_of)] if all_of else []),
            params)
