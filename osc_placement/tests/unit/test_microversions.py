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

"""The microversion table (``microversions.py``).

Each Placement name is a microversion of its own, in ascending order of
the history, up to ``LATEST``; the aliases name one of them.
"""

from oslotest import base

from osc_placement import microversions
from osc_placement import version


def _table():
    return [(name, value) for name, value in vars(microversions).items()
            if name.isupper() and isinstance(value, str)]


class TestTable(base.BaseTestCase):

    def test_placement_names_one_each_ascending(self):
        placement = [(name, value) for name, value in _table()
                     if value.startswith('1.')]
        values = [version.parse(value) for _name, value in placement]
        distinct = sorted(set(values))
        self.assertEqual((1, 0), distinct[0])
        self.assertEqual(microversions.LATEST,
                         '%d.%d' % distinct[-1])
        # Declared in order, each once but for the aliases that follow
        # (USAGES_BY_CLASS, LATEST...), which repeat a value above them.
        first_seen = []
        for value in values:
            if value not in first_seen:
                first_seen.append(value)
        self.assertEqual(distinct, first_seen)

    def test_aliases(self):
        self.assertEqual(
            (microversions.REPARENT, microversions.ANY_TRAITS,
             microversions.NESTED_CANDIDATES, microversions.SAME_SUBTREE),
            (microversions.USAGES_BY_CLASS, microversions.LATEST,
             microversions.REFERENCE_DEFAULT,
             microversions.NOVA_SCHEDULER))

    def test_compute_versions(self):
        self.assertEqual(
            ['2.41', '2.53', '2.80', '2.96'],
            sorted(value for _name, value in _table()
                   if value.startswith('2.')))
