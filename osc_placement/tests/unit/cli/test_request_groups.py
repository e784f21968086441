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
plugin's own one-line error, never another exception (see
:mod:`osc_placement.tests.unit.strategies`).
"""

import re
import types

import hypothesis
from hypothesis import strategies as st
from osc_lib import exceptions

from osc_placement.cli import candidate_options
from osc_placement.cli import request_groups
from osc_placement.resources import allocation_candidate
from osc_placement.tests.unit import base
from osc_placement.tests.unit import strategies
from osc_placement import version


def _candidates_command(api_version):
    client_manager = types.SimpleNamespace(
        _api_version={'placement': api_version},
        placement=types.SimpleNamespace(api_version=api_version))
    app = types.SimpleNamespace(client_manager=client_manager,
                                options=None)
    return allocation_candidate.ListAllocationCandidate(app, None)


def mostly(good, bad, percent=85):
    """``good`` in ``percent`` % of the draws, else ``bad``."""
    return st.integers(0, 99).flatmap(
        lambda draw: good if draw < percent else bad)


# Mostly good names and resources, so that a whole command line is often
# valid; single bad values are common enough.
GROUP_NAMES = mostly(
    st.one_of(st.integers(1, 999).map(str),
              st.from_regex(request_groups.NAMED_GROUP,
                            fullmatch=True)),
    st.one_of(st.text(min_size=1, max_size=70),
              st.sampled_from(['0', '01', '-1', 'x' * 65, 'a b', 'é'])))
RESOURCES = mostly(
    st.builds('{}={}'.format, strategies.GOOD_CLASSES,
              st.integers(0, 10 ** 6).map(str)),
    st.one_of(strategies.TEXT,
              strategies.built_from(strategies.CLASSES + strategies.NUMBERS
                                    + strategies.SEPARATORS),
              st.builds('{}={}'.format, st.sampled_from(strategies.CLASSES),
                        st.sampled_from(strategies.NUMBERS)),
              st.builds('{}={}'.format, strategies.GOOD_CLASSES,
                        strategies.AMOUNTS)))


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


class TestParsers(base.TestCase):
    """The request options: a query, or one line.

    The property of :mod:`osc_placement.tests.unit.strategies`.
    """

    @strategies.SETTINGS
    @hypothesis.given(
        st.sampled_from(['1.25', '1.32', '1.33', '1.39']),
        st.lists(RESOURCES, max_size=2),
        st.lists(st.tuples(GROUP_NAMES, st.lists(RESOURCES, min_size=1,
                                                 max_size=2)),
                 max_size=3))
    def test_candidate_groups_are_a_query_or_a_command_error(
            self, api_version, unnamed, groups):
        argv = ['--resource=' + value for value in unnamed]
        for name, resources in groups:
            argv.append('--group=' + name)
            argv += ['--resource=' + value for value in resources]
        command = _candidates_command(api_version)
        try:
            parsed_args = command.get_parser(
                'allocation candidate list').parse_args(argv)
        except SystemExit as usage_error:
            # argparse refused it (e.g. ``--group=--``): a usage error.
            self.assertEqual(2, usage_error.code)
            return
        given = request_groups.request_groups(parsed_args)

        def query():
            request_groups.check_group_names(
                given, version.parse(api_version) >= (1, 33))
            request_groups.require_resources(given)
            resources = request_groups.check_resources(given, [])
            return candidate_options.query(command, None, parsed_args,
                                           given, resources, [], '', None)

        params, error = strategies.outcome(query)
        if error is not None:
            if '\n' not in ''.join(argv) and '\r' not in ''.join(argv):
                self.assertOneLine(str(error))
            return
        named = version.parse(api_version) >= (1, 33)
        pattern = request_groups.NAMED_GROUP if named \
            else request_groups.INTEGER_GROUP
        self.assertTrue(all(re.match(pattern, name) for name, _ in groups))
        keys = [key for key, value in params]
        # One resources<suffix> per group, in the order the groups came.
        expected = ['resources' + name for name in given]
        self.assertEqual(
            expected,
            [k for k in keys if k.startswith('resources')])
        for key, value in params:
            if key.startswith('resources'):
                for pair in value.split(','):
                    resource_class, amount = pair.rsplit(':', 1)
                    self.assertEqual(resource_class, resource_class.strip())
                    self.assertTrue(
                        resource_class and int(amount) == int(amount.strip()))

    @strategies.SETTINGS
    @hypothesis.given(st.one_of(
        strategies.TEXT, strategies.built_from(['a', 'b', ',', ' ', '!'])))
    def test_name_lists_have_no_empty_name_or_are_refused(self, value):
        names, error = strategies.outcome(request_groups.split_names,
                                          value, '--same-subtree')
        if error is None:
            self.assertEqual([n.strip() for n in value.split(',')], names)
            self.assertTrue(all(names))
        else:
            self.assertOneLine(str(error))
            self.assertTrue(str(error).startswith('--same-subtree %r' % value))
