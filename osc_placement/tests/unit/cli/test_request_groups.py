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

"""The request options of the candidates commands: ``cli/request_groups.py``.

Property tests of their parsers: a value of the expected shape, or the
plugin's own one-line error, never another exception.
"""

import hypothesis
from hypothesis import strategies as st
from osc_lib import exceptions

from osc_placement.cli import request_groups
from osc_placement.tests.unit import base


class TestParseResource(base.TestCase):

    @hypothesis.given(st.text(alphabet='VCPU=:0123x- ', max_size=12))
    def test_fails_only_with_a_one_line_command_error(self, value):
        try:
            resource_class, amount = request_groups.parse_resource(value)
        except exceptions.CommandError as exc:
            self.assertOneLine(str(exc))
            self.assertNotIn('invalid literal', str(exc))
            return
        self.assertTrue(resource_class)
        self.assertEqual(int(value.split('=')[1]), int(amount))
