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

"""A flavor's PCI devices, as Nova 34 asks Placement for them.

Nova's ``[pci] alias`` option names the PCI devices a flavor may ask for
with ``pci_passthrough:alias=<alias>:<count>[,<alias>:<count>...]``. With
``[filter_scheduler] pci_in_placement``, Nova asks Placement for each
device in a request group of its own: one unit of the alias's
``resource_class`` (or of ``CUSTOM_PCI_<VENDOR_ID>_<PRODUCT_ID>``), with
the alias's ``traits``; a count of two is two groups, so that two devices
may come from two providers (``RequestSpec.
generate_request_groups_from_pci_requests()``). ``device_type``,
``numa_policy`` and ``live_migratable`` are for the compute's PCI claim,
never sent to Placement.

``aliases(entries, in_placement)`` reads the entries of ``[pci] alias``
and checks them as Nova's ``get_alias_from_config()`` does: nova-api does
not start with an alias it refuses, so neither does a request made with
it (``InvalidAlias``, one line naming the alias). ``devices()`` and
``group_policy()`` are rules of the pipeline of
``osc_placement.model.flavors.rules``: the first adds a flavor's devices
to its request (or refuses the flavor), the second sets
``group_policy=none`` where Nova's ``resources_from_request_spec()`` does.
"""

import json
import re

from osc_lib import exceptions

from osc_placement.model.flavors import specs as tables
from osc_placement.model.flavors import traits as standard_traits
from osc_placement.model import text

# The extra spec of a flavor's PCI devices.
SPEC = 'pci_passthrough:alias'

# What Nova's flavor API takes as the extra spec's value (fullmatch).
_SPEC_VALUE = re.compile(r'[^:]+:\d+(?:\s*,\s*[^:]+:\d+)*')
# A vendor_id or product_id, as Nova's JSON schema of an alias takes it
# (jsonschema's pattern is a search: "$" also matches before a final
# newline, which Nova lets through too).
_PCI_ID = re.compile(r'^([\da-fA-F]{4})$')
# A flavor's keys of request groups (Nova's ResourceRequest.XS_KEYPAT).
_GROUPED_KEY = re.compile(r'^(resources|trait)([a-zA-Z0-9_-]{1,64})?:(.*)$')
# What a group suffix may hold (Placement's, from 1.33).
_NOT_IN_SUFFIX = re.compile(r'[^a-zA-Z0-9_-]+')
_NOT_ALNUM = re.compile('[^0-9A-Za-z]+')
_MAX_SUFFIX = 64

# The fields of an alias, and the values of those that take a few.
_CHOICES = {
    'capability_type': ('pci',),
    'device_type': ('type-PCI', 'type-PF', 'type-VF'),
    'numa_policy': ('required', 'legacy', 'preferred', 'socket'),
}
_FIELDS = ('name', 'capability_type', 'product_id', 'vendor_id',
           'device_type', 'numa_policy', 'resource_class', 'traits',
           'live_migratable')
_MAX_NAME = 256
_LEGACY = 'legacy'
# The booleans of oslo.utils' bool_from_string (strict).
_TRUE = ('1', 't', 'true', 'on', 'y', 'yes')
_FALSE = ('0', 'f', 'false', 'off', 'n', 'no')


class InvalidAlias(exceptions.CommandError):
    """An alias Nova refuses: ``PCI alias <alias>: <reason>``.

    ``alias``: the alias as named in the line (``'gpu'``, or ``#2``, its
    place among the entries, before its name is known).
    """

    def __init__(self, alias, reason):
        super().__init__('PCI alias %s: %s' % (alias, reason))
        self.alias = alias
        self.reason = reason


class Alias(object):
    """The entries of one alias name: their NUMA policy and specs.

    ``specs``: one dict per entry, as Nova keeps it (``device_type`` as
    ``dev_type``, ``live_migratable`` as ``"true"`` or ``"false"``).
    """

    def __init__(self, name, numa_policy, spec):
        self.name = name
        self.numa_policy = numa_policy
        self.specs = [spec]

    @property
    def resource_class(self):
        return resource_class(self.specs[0])

    @property
    def traits(self):
        return traits(self.specs[0])


class Aliases(object):
    """The aliases of a Nova's configuration, checked.

    ``by_name``: {name: ``Alias``}, in the order of the entries;
    ``in_placement``: Nova's ``[filter_scheduler] pci_in_placement`` (its
    PCI devices are asked of Placement).
    """

    def __init__(self, by_name, in_placement):
        self.by_name = by_name
        self.in_placement = in_placement


def _named(name):
    return "'%s'" % text.printable(name)


def _schema(where, entry):
    """Refuse what Nova's JSON schema of an alias refuses."""
    if not isinstance(entry, dict):
        raise InvalidAlias(where, 'not a JSON object')
    for field in entry:
        if field not in _FIELDS:
            raise InvalidAlias(where, 'unknown field %s (an alias has %s)'
                               % (_named(field), ', '.join(_FIELDS)))
    if 'name' not in entry:
        raise InvalidAlias(where, 'no name')
    for field, value in entry.items():
        if not isinstance(value, str):
            raise InvalidAlias(where, '%s is not a string' % field)
        if field in _CHOICES and value not in _CHOICES[field]:
            raise InvalidAlias(where, '%s %s is not one of %s' % (
                field, _named(value), ', '.join(_CHOICES[field])))
        if field in ('vendor_id', 'product_id') and not _PCI_ID.search(
                value):
            raise InvalidAlias(where, '%s %s is not 4 hexadecimal digits'
                               % (field, _named(value)))
    if not 1 <= len(entry['name']) <= _MAX_NAME:
        raise InvalidAlias(where, 'a name has 1 to %d characters'
                           % _MAX_NAME)


def _entry(number, raw):
    """(name, NUMA policy, spec) of one entry, as Nova reads it."""
    where = '#%d' % number
    try:
        entry = json.loads(raw)
    except ValueError as exc:
        raise InvalidAlias(where, 'not JSON (%s)' % exc)
    if isinstance(entry, dict) and isinstance(entry.get('name'), str):
        where = _named(entry['name'].strip())
    _schema(where, entry)
    name = entry.pop('name').strip()
    numa_policy = entry.pop('numa_policy', None) or _LEGACY
    device_type = entry.pop('device_type', None)
    if device_type:
        entry['dev_type'] = device_type
    live = entry.pop('live_migratable', None)
    if live is not None:
        lowered = live.strip().lower()
        if lowered not in _TRUE + _FALSE:
            raise InvalidAlias(where, 'live_migratable %s is not a boolean'
                               % _named(live))
        entry['live_migratable'] = 'true' if lowered in _TRUE else 'false'
    return name, numa_policy, entry


def aliases(entries, in_placement=True):
    """The ``Aliases`` of ``[pci] alias`` entries (JSON texts).

    Checked as Nova's ``get_alias_from_config()`` checks them, which
    nova-api runs as it starts: each entry against Nova's schema (a
    ``name``, known fields, ``vendor_id`` and ``product_id`` of four
    hexadecimal digits...); entries of one name must agree on their NUMA
    policy and device type; with ``in_placement``, one entry per name, and
    each with a ``resource_class`` or a ``vendor_id`` and a
    ``product_id`` (both, without it). Raises ``InvalidAlias``.
    """
    by_name = {}
    for number, raw in enumerate(entries, 1):
        name, numa_policy, spec = _entry(number, raw)
        if name not in by_name:
            by_name[name] = Alias(name, numa_policy, spec)
            continue
        first = by_name[name]
        if first.numa_policy != numa_policy:
            raise InvalidAlias(_named(name), 'two entries of this name with '
                               'different NUMA policies, which Nova refuses')
        types = [one.get('dev_type') for one in (first.specs[0], spec)]
        if None in types or types[0] != types[1]:
            raise InvalidAlias(_named(name), 'two entries of this name '
                               'without the same device_type, which Nova '
                               'refuses')
        first.specs.append(spec)
    several = [name for name, alias in by_name.items()
               if len(alias.specs) > 1]
    if in_placement and several:
        raise InvalidAlias(', '.join(_named(name) for name in several),
                           'several entries of one name, which Nova '
                           'refuses with [filter_scheduler] '
                           'pci_in_placement (one entry per name)')
    lacking = sorted(name for name, alias in by_name.items()
                     if any(_lacks_ids(spec, in_placement)
                            for spec in alias.specs))
    if lacking:
        raise InvalidAlias(', '.join(_named(name) for name in lacking), (
            'neither a resource_class nor a vendor_id and a product_id, '
            'which Nova refuses with [filter_scheduler] pci_in_placement'
            if in_placement else
            'no vendor_id and product_id, which Nova refuses without '
            '[filter_scheduler] pci_in_placement'))
    return Aliases(by_name, in_placement)


def _lacks_ids(spec, in_placement):
    ids = 'vendor_id' in spec and 'product_id' in spec
    return not ids and not (in_placement and 'resource_class' in spec)


def _custom(name):
    """A custom class or trait made of any name (os-traits' way)."""
    return 'CUSTOM_' + _NOT_ALNUM.sub('_', name).upper()


def resource_class(spec):
    """The class of an alias's devices in Placement.

    Its ``resource_class`` in capitals, made a custom class unless it is
    a standard one or starts with ``CUSTOM_``; without one,
    ``CUSTOM_PCI_<VENDOR_ID>_<PRODUCT_ID>`` (Nova's
    ``pci_placement_translator.get_resource_class()``).
    """
    requested = spec.get('resource_class')
    if requested:
        rclass = requested.upper()
        if not (rclass in tables.STANDARD_CLASSES
                or rclass.startswith('CUSTOM_')):
            rclass = _custom(rclass)
        return rclass
    return ('CUSTOM_PCI_%s_%s' % (spec.get('vendor_id'),
                                  spec.get('product_id'))).upper()


def traits(spec):
    """The traits an alias's devices must have in Placement.

    Its ``traits``, comma-separated: a standard trait spelled exactly is
    kept; any other name in capitals, made a custom trait unless it
    starts with ``CUSTOM_`` (Nova's ``pci_placement_translator.
    get_traits()``).
    """
    value = spec.get('traits', '')
    found = set()
    if not value:
        return found
    for name in value.split(','):
        if name not in standard_traits.STANDARD:
            name = name.upper()
            if not name.startswith('CUSTOM_'):
                name = _custom(name)
        found.add(name)
    return found


def wanted(value):
    """[(alias name, count)] of a ``pci_passthrough:alias`` value.

    Raises ValueError, saying why, for a value that Nova's flavor API or
    its boot refuses.
    """
    if not _SPEC_VALUE.fullmatch(value):
        raise ValueError('not <alias>:<count>[,<alias>:<count>...]')
    found = []
    for part in value.split(','):
        pieces = part.split(':')
        if len(pieces) != 2:
            raise ValueError('%s is not <alias>:<count>' % _named(part))
        name, count = pieces
        found.append((name.strip(), int(count)))
    return found


def flavor_suffixes(specs):
    """The suffixes of the flavor's request groups, as Nova counts them.

    Every suffix of a ``resources<S>:`` or ``trait<S>:`` key, whatever its
    value (a group of a negative amount, which Nova ignores, counts too).
    """
    found = set()
    for key in specs:
        match = _GROUPED_KEY.match(key)
        if match and match.group(2):
            found.add(match.group(2))
    return found


def _suffix(name, number, taken):
    """A group suffix for a device of an alias, none of ``taken``.

    ``_pci_<alias>_<number>``, the alias's name in what a suffix may hold
    and cut to fit; ``_pci<k>_<alias>_<number>`` for the first ``k`` free
    where the flavor has a group of that suffix.
    """
    tail = '_%d' % number
    stem = _NOT_IN_SUFFIX.sub('_', name)
    suffix = ('_pci_' + stem)[:_MAX_SUFFIX - len(tail)] + tail
    other = 0
    while suffix in taken:
        other += 1
        suffix = ('_pci%d_' % other + stem)[:_MAX_SUFFIX - len(tail)] + tail
    return suffix


def devices(request):
    """One request group of one unit per PCI device, for PCI in Placement.

    ``pci_passthrough:alias`` asks for ``<count>`` devices of each alias:
    a value that Nova's flavor API refuses, or an alias that the aliases
    given do not define, refuses the flavor (Nova's
    ``get_pci_requests_from_flavor()``). With the aliases of a Nova that
    asks Placement for PCI devices (``pci_in_placement``), each device
    becomes a group of its own: one unit of the alias's class, its traits
    required, and ``OWNER_NOVA`` with ``owner_nova`` (Nova's
    ``owner_nova_filter`` requires it of the PCI groups as of the root).
    Nova names each group after a random request ID; here they are named
    ``_pci_<alias>_<n>``, the contents the same. Without the aliases, or
    without PCI in Placement, the spec stays untranslated
    (``rules.untranslated_specs()``).
    """
    if SPEC not in request.specs:
        return
    try:
        asked = wanted(request.specs[SPEC])
    except ValueError as exc:
        request.refuse(SPEC, str(exc))
    known = request.pci_aliases
    if known is None:
        return
    for name, _count in asked:
        if name not in known.by_name:
            request.refuse(SPEC, 'no PCI alias is named %s' % _named(name))
    if not known.in_placement:
        return
    request.translated.add(SPEC)
    taken = flavor_suffixes(request.specs) | set(request.groups)
    number = 0
    for name, count in asked:
        alias = known.by_name[name]
        for _ in range(count):
            number += 1
            suffix = _suffix(name, number, taken)
            taken.add(suffix)
            request.add_resource(alias.resource_class, 1, suffix)
            for trait in alias.traits:
                request.add_trait(trait, suffix)
            if request.owner_nova:
                request.add_trait(tables.OWNER_NOVA, suffix)


def group_policy(request):
    """``group_policy=none`` where Nova's scheduler defaults to it.

    A request of several suffixed groups needs a group policy. Where the
    flavor defines at most one of them (the others being its PCI
    devices), Nova sets ``none``, so that the groups may share providers
    (two VFs of one PF); a flavor of several groups and no policy is left
    as it is, and Placement refuses it (Nova's
    ``resources_from_request_spec()``).
    """
    suffixed = [suffix for suffix in request.groups if suffix]
    if (len(suffixed) >= 2 and not request.group_policy
            and len(flavor_suffixes(request.specs)) <= 1):
        request.group_policy = 'none'
