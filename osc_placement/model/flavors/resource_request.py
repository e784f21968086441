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

"""One flavor's request as the rules build it, and the query it becomes.

``Request`` holds what Nova's ``RequestSpec`` and ``ResourceRequest`` hold
between them for a flavor: the flavor and the caller's options, the
request groups (resources, required and forbidden traits, by suffix), the
group policy, the aggregates and the traits of the root provider, and the
warnings to print. The rules (``osc_placement.model.flavors.rules``) add
to it; ``query()`` writes it as the query of ``GET
/allocation_candidates`` with the microversion each part needs, as Nova's
``ResourceRequest.to_querystring()`` does. A translation ends in a
``Translation`` or a ``Refused``.
"""

import re
import types

from osc_lib import exceptions

from osc_placement import microversions
from osc_placement.model.flavors import specs as tables
from osc_placement.model import query_values
from osc_placement.model import text
from osc_placement import version

# The suffix of the unnamed request group.
UNNAMED = ''

_NUMBERED = re.compile(r'^[1-9][0-9]*$')
_TRUE = ('1', 't', 'true', 'on', 'y', 'yes')
_FALSE = ('0', 'f', 'false', 'off', 'n', 'no')


class Refused(exceptions.CommandError):
    """A flavor that cannot be asked for: ``Flavor <name>: <reason>``.

    ``flavor``: the flavor's printable name; ``reason``: the rest of the
    line, for a caller that names the flavor in its own way.
    """

    def __init__(self, flavor, reason):
        super().__init__('Flavor %s: %s' % (flavor, reason))
        self.flavor = flavor
        self.reason = reason


class Translation(object):
    """The request of one flavor.

    ``params``: the query, as ``(name, value)`` pairs; ``microversion``:
    the lowest that takes every part of it (``needs`` lists each part with
    its version); ``warnings``: lines to print; ``untranslated``: the extra
    specs of which the request lacks a part (the answer is incomplete).
    """

    def __init__(self, params, needs, warnings, untranslated):
        self.params = params
        self.needs = needs
        self.warnings = warnings
        self.untranslated = untranslated

    @property
    def microversion(self):
        return max((needed for _part, needed in self.needs),
                   key=version.parse)

    @property
    def complete(self):
        return not self.untranslated


class Group(object):
    """A request group: resources by class, required and forbidden traits."""

    def __init__(self):
        self.resources = {}
        self.required = set()
        self.forbidden = set()

    def empty(self):
        return not (self.resources or self.required or self.forbidden)


class Request(object):
    """The request of one flavor, as the rules build it.

    What the rules read: ``flavor``, its ``name`` (printable), ``specs``
    and ``vcpus``, and the caller's options that Nova would know
    (``boot_from_volume``, ``include_disabled``, ``aggregates``: the
    zone's, ``owner_nova``, ``pci_aliases``: the ``pci.Aliases`` of
    Nova's ``[pci] alias``, None when not known). What they fill:
    ``groups`` (suffix: ``Group``), ``group_policy``, ``member_of``
    (values of the unnamed group), ``root_required``, ``root_forbidden``,
    ``warnings``, ``untranslated`` and ``translated`` (the specs of
    ``specs.UNTRANSLATED`` that a rule translated). ``user``: what the
    user adds (``required``, ``forbidden``, ``member_of``, ``in_tree``,
    ``root_required``, as ``translate()`` takes them), which ``query()``
    writes after the rules' own.
    """

    def __init__(self, flavor, boot_from_volume=False,
                 include_disabled=False, aggregates=None, required=(),
                 forbidden=(), member_of=(), in_tree=None, root_required=(),
                 owner_nova=False, pci_aliases=None):
        self.flavor = flavor
        self.name = text.printable(flavor.get('name') or flavor.get('id')
                                   or '?')
        self.specs = dict(flavor.get('extra_specs') or {})
        self.vcpus = flavor['vcpus']
        self.boot_from_volume = boot_from_volume
        self.include_disabled = include_disabled
        self.aggregates = aggregates
        self.owner_nova = owner_nova
        self.pci_aliases = pci_aliases
        self.user = types.SimpleNamespace(
            required=required, forbidden=forbidden, member_of=member_of,
            in_tree=in_tree, root_required=root_required)
        self.groups = {}
        self.group_policy = None
        # The member_of values of the unnamed group, as the rules add them.
        self.member_of = []
        self.root_required = set()
        self.root_forbidden = set()
        self.warnings = []
        self.untranslated = []
        self.translated = set()

    def refuse(self, key, why):
        """Raise ``Refused``: one line naming the extra spec and why."""
        raise Refused(self.name, 'extra spec %s=%s: %s; Nova refuses it.'
                      % (text.printable(key),
                         text.printable(self.specs[key]),
                         text.printable(why)))

    def warn(self, line):
        """A line to print before the answer."""
        self.warnings.append(line)

    def group(self, suffix):
        return self.groups.setdefault(suffix, Group())

    def add_resource(self, rclass, amount, suffix=UNNAMED):
        self.group(suffix).resources[rclass] = amount

    def add_trait(self, trait, suffix=UNNAMED, forbidden=False):
        group = self.group(suffix)
        (group.forbidden if forbidden else group.required).add(trait)

    def merged_classes(self):
        """The resource classes that any group asks for."""
        return set(rclass for group in self.groups.values()
                   for rclass in group.resources)

    def choice(self, key, table=tables.SPECS):
        """The value of an enumerated spec (None if unset or empty)."""
        value = self.specs.get(key)
        if not value:
            return None
        if value not in table[key]:
            self.refuse(key, 'not one of %s' % ', '.join(table[key]))
        return value

    def boolean(self, key):
        """True, False, or None when the spec is not set."""
        value = self.specs.get(key)
        if value is None:
            return None
        lowered = value.strip().lower()
        if lowered not in _TRUE + _FALSE:
            self.refuse(key, 'not a boolean (true or false)')
        return lowered in _TRUE

    def query(self):
        """(params, needs): the query, and the version each part needs.

        ``params``: the ``(name, value)`` pairs of ``GET
        /allocation_candidates``: ``group_policy``, then each group (the
        unnamed one first, with the aggregates and ``in_tree``, then the
        others by suffix), then ``root_required``. ``needs``: (part,
        microversion) pairs.
        """
        needs = [('allocation candidates',
                  microversions.ALLOCATION_CANDIDATES)]
        params = []
        if self.group_policy:
            params.append(('group_policy', self.group_policy))
            needs.append(('group_policy', microversions.GRANULAR_GROUPS))
        for suffix in [UNNAMED] + sorted(s for s in self.groups if s):
            group = self.groups.get(suffix)
            if group is None:
                user = self.user
                if not (self.member_of or user.required or user.forbidden
                        or user.member_of or user.in_tree):
                    continue
                group = Group()
            self._group_query(suffix, group, params, needs)
            if suffix == UNNAMED:
                self._unnamed_query(params, needs)
        self._root_query(params, needs)
        return params, needs

    def _group_query(self, suffix, group, params, needs):
        """The resources and traits of a group (the user's after its own)."""
        if suffix:
            needs.append((
                'request group %s' % suffix,
                microversions.GRANULAR_GROUPS
                if _NUMBERED.match(suffix)
                else microversions.NAMED_GROUPS))
        params.append(('resources' + suffix, ','.join(
            '%s:%d' % (rclass, group.resources[rclass])
            for rclass in sorted(group.resources))))
        required = sorted(group.required)
        forbidden = sorted(group.forbidden)
        if suffix == UNNAMED:
            required += [t for t in self.user.required
                         if t not in group.required]
            forbidden += [t for t in self.user.forbidden
                          if t not in group.forbidden]
        values = query_values.required_traits_params(required, forbidden)
        for value in values:
            params.append(('required' + suffix, value))
        if required:
            needs.append(('required traits',
                          microversions.CANDIDATES_REQUIRED))
        if forbidden:
            needs.append(('forbidden traits (%s)' % ','.join(forbidden),
                          microversions.FORBIDDEN_TRAITS))
        if any(value.startswith('in:') for value in values):
            needs.append(('any of several traits', microversions.ANY_TRAITS))

    def _unnamed_query(self, params, needs):
        """The aggregates (the rules', then the user's) and ``in_tree``."""
        memberships = self.member_of + [
            query_values.member_of_param(value)
            for value in self.user.member_of]
        for value in memberships:
            params.append(('member_of', value))
        if memberships:
            needs.append(('aggregates', microversions.CANDIDATES_MEMBER_OF))
        if len(memberships) > 1:
            needs.append(('several member_of', microversions.MULTI_MEMBER_OF))
        if any(value.startswith('!') for value in memberships):
            needs.append(('forbidden aggregates',
                          microversions.FORBIDDEN_AGGREGATES))
        if self.user.in_tree:
            params.append(('in_tree', self.user.in_tree))
            needs.append(('in_tree', microversions.IN_TREE_CANDIDATES))

    def _root_query(self, params, needs):
        """``root_required``: the rules' root traits, and the user's."""
        required = set(self.root_required)
        forbidden = set(self.root_forbidden)
        for trait in self.user.root_required:
            if trait.startswith('!'):
                forbidden.add(trait[1:])
            else:
                required.add(trait)
        roots = sorted(required) + ['!' + trait for trait in sorted(forbidden)]
        if roots:
            params.append(('root_required', ','.join(roots)))
            needs.append(('root_required (%s)' % ','.join(roots),
                          microversions.ROOT_REQUIRED))
