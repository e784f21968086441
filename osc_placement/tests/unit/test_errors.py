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

"""What Placement's failures say (``osc_placement/errors.py``).

The one line of an error response, whatever its body: Placement's JSON,
HTML, text, or nothing. Conflicts (HTTP 409) that say what changed and
how to go on: a generation conflict names the provider or consumer and
the command that reads it again; a class in use keeps the server's own
words.
"""

import json
import re

import hypothesis
from hypothesis import strategies as st
from osc_lib import exceptions
import testscenarios

from osc_placement import errors
from osc_placement.model import text
from osc_placement.tests.unit import base
from osc_placement.tests.unit import strategies

load_tests = testscenarios.load_tests_apply_scenarios

URL = base.ENDPOINT
RP1 = base.RP1


class TestErrorMessage(base.TestCase):

    scenarios = [(name, {'body': body, 'expected': expected})
                 for name, body, expected in [
        # Placement's JSON: the last line of the detail.
        ('detail-last-line', {'errors': [{'detail': 'A\n\n B '}]}, 'B'),
        ('detail-one-line', {'errors': [{'detail': 'One line'}]},
         'One line'),
        ('detail-trailing-lines', {'errors': [{'detail': 'A\n\n B\n\n'}]},
         'B'),
        ('title-only', {'errors': [{'title': 'Only a title'}]},
         'Only a title'),
        ('first-error', {'errors': [{'detail': 'first'},
                                    {'detail': 'second'}]}, 'first'),
        # A JSON-schema error of the body: the reason and the field, not
        # the schema.
        ('schema-error', {'errors': [{'detail': (
            "Headline.\n\n JSON does not validate: 0 is less than the "
            "minimum of 1  Failed validating 'minimum' in schema['properties']"
            "['inventories']['patternProperties']['^[A-Z0-9_]+$']"
            "['properties']['total']:     {'type': 'integer', 'minimum': 1}"
            "  On instance['inventories']['VCPU']['total']:     0  ")}]},
         'JSON does not validate: 0 is less than the minimum of 1 (field '
         'inventories/VCPU/total)'),
        ('schema-error-list-item', {'errors': [{'detail': (
            "JSON does not validate: 'agg-one' is not a 'uuid'  Failed "
            "validating 'format' in schema['items']:     {'type': 'string', "
            "'format': 'uuid'}  On instance[0]:     'agg-one'  ")}]},
         "JSON does not validate: 'agg-one' is not a 'uuid' (field 0)"),
        ('schema-error-of-the-root', {'errors': [{'detail': (
            "JSON does not validate: 'x' is not of type 'object'  Failed "
            "validating 'type' in schema:     {'type': 'object'}  On "
            "instance:     'x'")}]},
         "JSON does not validate: 'x' is not of type 'object'"),
        # A query string error keeps the server's text, as the reference.
        ('query-schema-error', {'errors': [{'detail': (
            "Invalid query string parameters: '0' does not match '^[1-9]'"
            "  Failed validating 'pattern' in schema['properties']['limit']"
            ":     {}  On instance['limit']:     '0'")}]},
         "Invalid query string parameters: '0' does not match '^[1-9]'"
         "  Failed validating 'pattern' in schema['properties']['limit']:"
         "     {}  On instance['limit']:     '0'"),
        # Anything else: the body as text.
        ('detail-not-text', {'errors': [{'detail': ['x']}]},
         '{"errors": [{"detail": ["x"]}]}'),
        ('error-not-object', {'errors': ['x']}, '{"errors": ["x"]}'),
        ('errors-not-list', {'errors': {}}, '{"errors": {}}'),
        ('other-json', {'message': 'm'}, '{"message": "m"}'),
        ('html', '<p>A &amp; <b>B</b></p>', 'A & B'),
        ('script-and-style',
         '<script>var x = "<p>";</script><style>p{}</style>text', 'text'),
        ('spaces', '  several\n\n lines\t here ', 'several lines here'),
        ('long', 'y' * 400, 'y' * 297 + '...'),
        # No body: the reason phrase, or the standard one.
        ('empty', '', 'Reason Given'),
    ]]

    def test_error_message(self):
        response = base.response(418, self.body, reason='Reason Given')
        self.assertEqual(self.expected, errors.error_message(response))


class TestErrorMessageWithoutBody(base.TestCase):

    scenarios = [
        ('503', {'status': 503, 'reason': None,
                 'expected': 'Service Unavailable'}),
        ('404-empty-reason', {'status': 404, 'reason': '',
                              'expected': 'Not Found'}),
        ('599', {'status': 599, 'reason': None, 'expected': 'Error'}),
    ]

    def test_error_message_without_body_or_reason(self):
        self.assertEqual(self.expected, errors.error_message(
            base.response(self.status, reason=self.reason)))


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


# Any value, property-based (see the strategies module).

class TestAnyBody(base.TestCase):
    """The error line of a failed response, whatever its body."""

    @strategies.SETTINGS
    @hypothesis.given(st.integers(400, 599), strategies.BODIES,
                      st.sampled_from([None, 'application/json', 'text/html',
                                       'text/plain; charset=latin-1']),
                      st.sampled_from(['Bad Request', '', None]))
    def test_error_line_of_any_body_is_one_clean_line(
            self, status, body, content_type, reason):
        response = strategies.read_response(status, body, content_type,
                                            reason)
        message = errors.error_message(response)
        self.assertTrue(
            isinstance(message, str) and message.strip() == message)
        self.assertTrue(message)
        self.assertOneLine(message)
        self.assertFalse(re.search(text._CONTROL_RE, message), repr(message))
        error = errors.exception_for(response)
        self.assertIsInstance(error, exceptions.ClientException)
        self.assertEqual('%s (HTTP %d)' % (message, status), str(error))

    def test_carriage_return_in_a_json_detail_is_not_printed(self):
        body = json.dumps({'errors': [{'status': 400,
                                       'detail': 'Refused.\rAll good'}]})
        message = errors.error_message(
            strategies.read_response(400, body.encode()))
        self.assertOneLine(message)


class TestInterruptedWrite(base.TestCase):
    """What became of a write is data on the error, not only its text."""

    def test_the_outcome_and_why(self):
        exc = errors.interrupted_write(2, errors.WRITE_REFUSED, 'No room.')
        self.assertEqual('sent and refused: No room', exc.write)
        self.assertEqual('Interrupted: the write was sent and refused: No '
                         'room.', str(exc))
        self.assertEqual(2, exc.signum)

    def test_a_signal_outside_a_write_has_none(self):
        self.assertIsNone(errors.Interrupted('Interrupted.', 2).write)
