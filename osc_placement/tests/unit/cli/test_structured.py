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

"""osc_placement.cli.structured: data in json and yaml, text elsewhere."""

from oslotest import base

from osc_placement.cli import structured


class Words(structured.Column):

    def human_readable(self):
        return ' '.join(self._value)

    def machine_readable(self):
        return list(self._value)


class TestColumn(base.BaseTestCase):

    def test_data_in_json_and_yaml_text_elsewhere(self):
        for formatter in ('json', 'yaml'):
            self.assertEqual(['a', 'b'], Words.column(
                ('a', 'b'), formatter).machine_readable())
        for formatter in ('table', 'value', 'csv', 'shell'):
            self.assertEqual('a b', Words.column(('a', 'b'), formatter))
