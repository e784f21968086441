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

"""Request paths (``api/paths.py``): a value stays one segment of a path.

Through the shell, against a fake Placement that answers anything
(``base.BadInputTestCase``): a value given where the commands put it into
the request path is refused if it would change the path.
"""

import testscenarios

from osc_placement.tests.unit import base

load_tests = testscenarios.load_tests_apply_scenarios

RP = base.RP1


# Values that would not stay one segment of the request path: refused
# before any request, the version negotiation included.
DOT_SEGMENTS = [
    (' '.join(argv), {'argv': argv, 'value': value})
    for value in ('.', '..')
    for argv in (
        ['trait', 'show', value],
        ['trait', 'create', value],
        ['trait', 'delete', 'CUSTOM_A', value],
        ['resource', 'class', 'show', value],
        ['resource', 'class', 'set', value],
        ['resource', 'class', 'delete', value],
        ['resource', 'provider', 'inventory', 'delete', RP,
         '--resource-class', value],
        ['resource', 'provider', 'inventory', 'show', RP, value],
        ['resource', 'provider', 'inventory', 'class', 'set', RP, value,
         '--total', '1'],
        ['resource', 'provider', 'allocation', 'show', value],
        ['resource', 'provider', 'allocation', 'delete', value],
    )
]


class TestDotSegments(base.BadInputTestCase):

    scenarios = DOT_SEGMENTS

    def test_dot_segment_is_refused_before_any_request(self):
        out, err, code = self.run_argv(self.argv)
        self.assertEqual(('', 1), (out, code), err)
        self.assertOneLine(err.rstrip('\n'))
        self.assertIn("cannot be %r: it would change the path of the "
                      "request." % self.value, err)
        self.assertEqual([], self.requests_sent())
