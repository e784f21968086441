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

"""A ``GET /allocation_candidates`` request, read from its query.

``Request.from_query(params, microversion)`` reads the query parameters as
Placement's ``lib.RequestGroup`` and ``util`` do: one ``Group`` per suffix
(the unnamed one has ``''``), with its resources, traits, aggregates and
``in_tree``, and the request-wide ``group_policy``, ``root_required`` and
``same_subtree``. The microversions at which a rule changes are named
here, once.
"""

import itertools
import re

from osc_placement import microversions
from osc_placement import version as versions

UNNAMED = ''

# Microversions at which the rules change, as (major, minor).
NESTED = versions.parse(microversions.NESTED_CANDIDATES)
FORBIDDEN_TRAITS = versions.parse(microversions.FORBIDDEN_TRAITS)
MULTI_MEMBER_OF = versions.parse(microversions.MULTI_MEMBER_OF)
FORBIDDEN_AGGREGATES = versions.parse(microversions.FORBIDDEN_AGGREGATES)
NAMED_GROUPS = versions.parse(microversions.NAMED_GROUPS)
RESOURCELESS = versions.parse(microversions.SAME_SUBTREE)
ANY_TRAITS = versions.parse(microversions.ANY_TRAITS)

_KEY = {
    False: re.compile(r'^(resources|required|member_of|in_tree)'
                      r'([1-9][0-9]*)?$'),
    True: re.compile(r'^(resources|required|member_of|in_tree)'
                     r'([a-zA-Z0-9_-]{1,64})?$'),
}


def _version(microversion):
    if isinstance(microversion, tuple):
        return microversion
    return versions.parse(str(microversion))


def _values(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


class Group(object):
    """One request group: ``suffix`` '' for the unnamed one."""

    def __init__(self, suffix):
        self.suffix = suffix
        self.resources = {}        # class -> amount, in request order
        self.required = []         # [frozenset of traits, any of which]
        self.forbidden = []        # traits
        self.member_of = []        # [frozenset of aggregates, any of which]
        self.forbidden_aggs = []   # aggregates
        self.in_tree = None

    @property
    def granular(self):
        return self.suffix != UNNAMED

    @property
    def label(self):
        return 'group %s' % self.suffix if self.suffix else 'unnamed group'


class Request(object):
    """A parsed ``GET /allocation_candidates`` request."""

    def __init__(self, groups, microversion, group_policy='none',
                 root_required=(), root_forbidden=(), same_subtrees=()):
        self.groups = groups
        self.microversion = _version(microversion)
        self.group_policy = group_policy or 'none'
        self.root_required = list(root_required)
        self.root_forbidden = list(root_forbidden)
        self.same_subtrees = [list(names) for names in same_subtrees]

    def at_least(self, version):
        return self.microversion >= version

    @property
    def granular(self):
        return [g for g in self.groups.values() if g.granular]

    @classmethod
    def from_query(cls, params, microversion):
        """Parse the query parameters as Placement does.

        ``params``: parameter name -> value, or list of values when
        repeated. Raises ValueError where Placement answers 400 for the
        form of a value (unknown trait or class names are the server's
        business).
        """
        version = _version(microversion)
        key = _KEY[version >= NAMED_GROUPS]
        groups = {}
        for name, value in params.items():
            match = key.match(name)
            if not match:
                continue
            prefix, suffix = match.group(1), match.group(2) or ''
            group = groups.setdefault(suffix, Group(suffix))
            values = _values(value)
            if prefix == 'resources':
                # lib.RequestGroup._parse_request_items: the last one wins.
                group.resources = _parse_resources(values[-1])
            elif prefix == 'required':
                if version < ANY_TRAITS:
                    values = values[-1:]
                for text in values:
                    _parse_traits(group, text, version)
            elif prefix == 'member_of':
                if version < MULTI_MEMBER_OF and len(values) > 1:
                    raise ValueError('Multiple %s parameters are not '
                                     'supported' % name)
                for text in values:
                    _parse_member_of(group, text, version)
            else:
                group.in_tree = values[-1]
        if not any(g.resources for g in groups.values()):
            raise ValueError('At least one resources parameter is needed.')
        root_required, root_forbidden = [], []
        for text in _values(params.get('root_required', [])):
            for trait in text.split(','):
                trait = trait.strip()
                if trait.startswith('!'):
                    root_forbidden.append(trait.lstrip('!'))
                else:
                    root_required.append(trait)
        same_subtrees = [
            [name.strip() for name in text.split(',')]
            for text in _values(params.get('same_subtree', []))]
        for names in same_subtrees:
            for name in names:
                if name not in groups:
                    raise ValueError('same_subtree: no group %r' % name)
        in_subtree = set(itertools.chain(*same_subtrees))
        for group in groups.values():
            if group.resources:
                continue
            if version < RESOURCELESS or group.suffix not in in_subtree:
                raise ValueError('%s has no resources' % group.label)
        policy = _values(params.get('group_policy', ['none']))[0]
        return cls(groups, version, policy, root_required, root_forbidden,
                   same_subtrees)


def _parse_resources(text):
    resources = {}
    for item in text.split(','):
        rc, sep, amount = item.partition(':')
        if not sep or int(amount) < 1:
            raise ValueError('Badly formed resources: %r' % text)
        resources[rc] = int(amount)
    return resources


def _parse_traits(group, text, version):
    if text.startswith('in:'):
        if version < ANY_TRAITS:
            raise ValueError('in: traits need 1.39: %r' % text)
        group.required.append(frozenset(
            t.strip() for t in text[3:].split(',')))
        return
    for trait in (t.strip() for t in text.split(',')):
        if trait.startswith('!'):
            if version < FORBIDDEN_TRAITS:
                raise ValueError('forbidden traits need 1.22: %r' % text)
            # util.normalize_traits_qs_param strips every leading '!'.
            if trait.lstrip('!') not in group.forbidden:
                group.forbidden.append(trait.lstrip('!'))
        else:
            group.required.append(frozenset([trait]))


def _parse_member_of(group, text, version):
    forbidden = text.startswith('!')
    if forbidden and version < FORBIDDEN_AGGREGATES:
        raise ValueError('forbidden aggregates need 1.32: %r' % text)
    body = text.lstrip('!')
    if body.startswith('in:'):
        aggs = body[3:].split(',')
    elif ',' in body:
        raise ValueError('several aggregates need "in:": %r' % text)
    else:
        aggs = [body]
    if forbidden:
        group.forbidden_aggs.extend(
            a for a in aggs if a not in group.forbidden_aggs)
    else:
        group.member_of.append(frozenset(aggs))
