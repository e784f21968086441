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

"""The request groups of a candidates request, as the user types them.

The options that describe resources (``--resource``, ``--required``,
``--forbidden``, ``--member-of``, ``--in-tree``) belong to a request group:
the unnamed one until the first ``--group <name>``, then the named group.
``StartGroup`` and ``AddToGroup`` collect them while argparse reads the
command line (``request_groups()`` returns them); the checks of their
values (``parse_resource()``, ``check_group_names()``,
``check_resources()``...) fail with one line naming the option and the
value, before any request. ``constraints()`` and ``without()`` take the
request apart one constraint at a time (``explain --summary``).
"""

import argparse
import copy
import re

from osc_lib import exceptions

from osc_placement.cli import parsers
from osc_placement import microversions

INTEGER_GROUP = r'^[1-9][0-9]*$'
NAMED_GROUP = r'^[A-Za-z0-9_-]{1,64}$'

# The options read per request group, in the order of their query
# parameters.
GROUPED = ('resource', 'required', 'forbidden', 'member_of',
           'aggregate_uuid', 'in_tree')
# Their flags, in the labels of constraints().
_FLAGS = tuple((dest, '--' + dest.replace('_', '-')) for dest in GROUPED)

# A request without any --resource.
NO_RESOURCE = 'At least one --resource must be specified.'

GROUPS_ATTR = '_request_groups'
CURRENT_ATTR = '_current_group'


def request_groups(namespace):
    """{group name: {option dest: [values]}}, unnamed group ''."""
    groups = getattr(namespace, GROUPS_ATTR, None)
    if groups is None:
        groups = {}
        setattr(namespace, GROUPS_ATTR, groups)
    return groups


def _require_text(action, values):
    # argparse turns a lone ``--`` value (``--group=--``) into an empty list.
    if not isinstance(values, str):
        raise argparse.ArgumentError(action, 'expected one value')


class StartGroup(argparse.Action):
    """``--group <name>``: the following options go to that group.

    A name given again continues the same group.
    """

    def __call__(self, parser, namespace, values, option_string=None):
        _require_text(self, values)
        request_groups(namespace).setdefault(values, {})
        setattr(namespace, CURRENT_ATTR, values)
        names = getattr(namespace, self.dest, None) or []
        setattr(namespace, self.dest, names + [values])


class AddToGroup(argparse.Action):
    """An option of the current request group (the unnamed one at first)."""

    def __call__(self, parser, namespace, values, option_string=None):
        _require_text(self, values)
        current = getattr(namespace, CURRENT_ATTR, '')
        group = request_groups(namespace).setdefault(current, {})
        group.setdefault(self.dest, []).append(values)


def gated_values(parsed_args):
    """{dest: value} of the options, the grouped ones across all groups.

    What the option gates are checked on.
    """
    values = dict(vars(parsed_args))
    for group in request_groups(parsed_args).values():
        for dest in GROUPED:
            values[dest] = (values.get(dest) or []) + group.get(dest, [])
    return values


# The values, each checked before any request.

def parse_resource(value):
    """'VCPU=2' -> ('VCPU', '2'), validated, before any request."""
    resource_class, sep, amount = value.partition('=')
    if not sep or '=' in amount:
        raise exceptions.CommandError(
            'Arguments to --resource must be of form '
            '<resource_class>=<value>')
    if not resource_class.strip():
        raise exceptions.CommandError(
            '--resource %r: the resource class is missing (expected '
            '<resource_class>=<value>).' % value)
    number = parsers.parse_amount(amount, '--resource %r: amount' % value)
    return resource_class.strip(), str(number)


def parse_shape(values):
    """The ``--resource`` values of a shape: [(class, amount)], checked.

    The syntax of ``allocation candidate list``; each amount a positive
    integer, each class named once, at least one.
    """
    if not values:
        raise exceptions.CommandError(NO_RESOURCE)
    shape = []
    for value in values:
        rc, amount = parse_resource(value)
        amount = parsers.parse_int(amount, '--resource %r: amount' % value,
                                   minimum=1)
        if rc in dict(shape):
            raise exceptions.CommandError(
                '--resource %r: %s is given twice; give each resource '
                'class once.' % (value, rc))
        shape.append((rc, amount))
    return shape


def split_names(value, option):
    """The comma-separated names of one option value, none empty."""
    names = [name.strip() for name in value.split(',')]
    if not all(names):
        raise exceptions.CommandError(
            '%s %r: empty name in the comma-separated list.'
            % (option, value))
    return names


def check_group_names(groups, named):
    """Refuse a group name that ``named`` (1.33+) or not disallows."""
    for name in groups:
        if not name:
            continue
        if named and not re.match(NAMED_GROUP, name):
            raise exceptions.CommandError(
                '--group %r: a group name is 1 to 64 characters among '
                'A-Z, a-z, 0-9, _ and -.' % name)
        if not named and not re.match(INTEGER_GROUP, name):
            raise exceptions.CommandError(
                '--group %r: before --os-placement-api-version %s a '
                'group name must be a positive integer (e.g. 1).'
                % (name, microversions.NAMED_GROUPS))


def named_groups(groups):
    """The names of the groups that are not positive integers (1.33+)."""
    return [name for name in groups
            if name and not re.match(INTEGER_GROUP, name)]


def same_subtrees(parsed_args, groups):
    """The --same-subtree values: [[group name]], each a group given."""
    subtrees = []
    for value in parsed_args.same_subtree:
        names = split_names(value, '--same-subtree')
        for name in names:
            if name not in groups:
                raise exceptions.CommandError(
                    '--same-subtree %r: %r is not the name of a --group '
                    'of this request.' % (value, name))
        subtrees.append(names)
    return subtrees


def root_required(parsed_args):
    """The --root-required values as one ``root_required`` value."""
    traits = []
    for value in parsed_args.root_required:
        for trait in split_names(value, '--root-required'):
            if trait == '!':
                raise exceptions.CommandError(
                    '--root-required %r: "!" must be followed by a '
                    'trait name.' % value)
            traits.append(trait)
    return ','.join(traits)


def require_resources(groups):
    """Refuse a request without any --resource."""
    if not any(group.get('resource') for group in groups.values()):
        raise exceptions.CommandError(NO_RESOURCE)


def check_resources(groups, subtrees):
    """Parsed resources per group; a group needs one unless exempt.

    A request without any --resource passes: :func:`require_resources`
    refuses it once the version is negotiated, as the reference does.
    """
    if not any(group.get('resource') for group in groups.values()):
        return {name: [] for name in groups}
    in_subtree = set(name for names in subtrees for name in names)
    resources = {}
    for name, group in groups.items():
        resources[name] = [parse_resource(value)
                           for value in group.get('resource', [])]
        if resources[name] or name in in_subtree:
            continue
        if name:
            raise exceptions.CommandError(
                'Group %s has no --resource: every --group needs at '
                'least one --resource, unless it is named in '
                '--same-subtree (--os-placement-api-version %s or '
                'later).'
                % (name, microversions.SAME_SUBTREE))
        raise exceptions.CommandError(
            'The options given before the first --group have no '
            '--resource: at least one --resource is needed there.')
    for name, group in groups.items():
        if len(group.get('in_tree', [])) > 1:
            raise exceptions.CommandError(
                '--in-tree given %d times for %s: one provider tree '
                'per group.' % (len(group['in_tree']),
                                'group %s' % name if name
                                else 'the unnamed group'))
    return resources


# explain --summary: the request one constraint at a time.

def constraints(parsed_args):
    """(label, how to drop it) of every constraint of the request."""
    found = []
    for name, group in request_groups(parsed_args).items():
        where = '--group %s ' % name if name else ''
        for dest, flag in _FLAGS:
            for index, value in enumerate(group.get(dest, [])):
                found.append(('%s%s %s' % (where, flag, value),
                              ('group', name, dest, index)))
    for index, value in enumerate(parsed_args.root_required):
        found.append(('--root-required %s' % value,
                      ('args', 'root_required', index)))
    for index, value in enumerate(parsed_args.same_subtree):
        found.append(('--same-subtree %s' % value,
                      ('args', 'same_subtree', index)))
    if parsed_args.group_policy == 'isolate':
        found.append(('--group-policy isolate',
                      ('args', 'group_policy', None)))
    return found


def without(parsed_args, drop):
    """A copy of the parsed request without one constraint.

    drop: as :func:`constraints` gives it.
    """
    relaxed = copy.copy(parsed_args)
    groups = {name: {dest: list(values) for dest, values in group.items()}
              for name, group in request_groups(parsed_args).items()}
    setattr(relaxed, GROUPS_ATTR, groups)
    if drop[0] == 'group':
        _kind, name, dest, index = drop
        del groups[name][dest][index]
    elif drop[1] == 'group_policy':
        relaxed.group_policy = 'none'
    else:
        _kind, dest, index = drop
        values = list(getattr(parsed_args, dest))
        del values[index]
        setattr(relaxed, dest, values)
    return relaxed
