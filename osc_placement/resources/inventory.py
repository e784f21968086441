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

"""Resource provider inventory commands.

An inventory record says how much of one resource class a provider has and
how it may be consumed. Writes carry the provider generation that was read
just before: if another client changed the provider in between, Placement
answers 409 and the command fails with the server's message (it never
retries on its own).

The fields of a record and Placement's rules about them (ranges,
defaults, refusals, the warnings of a write) are the model's
(``osc_placement.model.inventories``); here are the options that give
them and the requests.
"""

import math
import textwrap

from osc_lib import exceptions
from osc_lib import utils

from osc_placement.api import paths
from osc_placement.api import providers
from osc_placement.cli import batch
from osc_placement.cli import common
from osc_placement.cli import parsers
from osc_placement import microversions
from osc_placement.model import amounts
from osc_placement.model import batch_names
from osc_placement.model import inventories as records
from osc_placement.model.text import printable
from osc_placement import version


def finite_float(text):
    """argparse type of ratios: a finite number (no nan, no inf)."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(text)
    return value


# argparse names the type in its error ("invalid float value: 'x'").
finite_float.__name__ = 'float'


def parse_value(field, value, what):
    """The value of ``field`` typed by the user as a number, or an error.

    An integer out of Placement's range is refused (rule D18: only a
    negative value or one above ``scalars.MAX_INT``).
    """
    if field.kind is float:
        return parsers.parse_float(value, what)
    return parsers.parse_amount(value, what, field.lowest)


def check_value(field, value, what):
    """A value of ``field`` given as an option, checked as parse_value."""
    if field.kind is int and value is not None:
        parsers.in_range(value, what, field.lowest)
    return value


def argparse_type(field):
    """The argparse ``type`` of the option of ``field``."""
    return finite_float if field.kind is float else parsers.integer


CLASS_HELP = ('A resource class, standard (e.g. VCPU, MEMORY_MB, DISK_GB) '
              'or custom (CUSTOM_*).')


def _inventories_path(rp_uuid, resource_class=None):
    segments = ['resource_providers', rp_uuid, 'inventories']
    if resource_class is not None:
        segments.append(resource_class)
    return paths.url(*segments)


def parse_resource(argument):
    """``CLASS=N`` or ``CLASS:FIELD=V`` -> (class, field, number).

    Raises a one-line CommandError for a malformed value, before any
    request is sent.
    """
    parts = argument.split('=')
    if len(parts) != 2:
        raise exceptions.CommandError(
            'Resource argument must have "name=value" format')
    name, value = parts
    name_parts = name.split(':')
    if len(name_parts) > 2:
        raise exceptions.CommandError(
            'Resource argument can contain only one colon')
    resource_class = name_parts[0]
    field = name_parts[1] if len(name_parts) == 2 else 'total'
    if not (resource_class.strip() and field and value):
        raise exceptions.CommandError(
            'Name, field and value must be not empty')
    if field not in records.FIELDS_BY_NAME:
        raise exceptions.CommandError(
            'Unknown inventory field %s' % printable(field))
    number = parse_value(records.FIELDS_BY_NAME[field], value,
                         '%s of --resource %s' % (field, argument))
    return resource_class, field, number


def _rows(inventories, fields, prefix=()):
    """One row per resource class of an ``inventories`` dictionary."""
    for resource_class, record in inventories.items():
        record = dict(record, resource_class=resource_class)
        yield prefix + utils.get_dict_properties(record, fields)


class SetInventory(common.NamedCommand, common.Lister):
    """Replace the inventory of a resource provider.

    By default the whole inventory is replaced: resource classes not given
    are removed (and with no ``--resource`` at all, the inventory is
    emptied). To change some classes and keep the others, give
    ``--amend``.

    A ``--resource`` value without a field sets the total:
    ``--resource VCPU=16`` is ``--resource VCPU:total=16``.

    Example::

        openstack resource provider inventory set <uuid> \\
            --resource VCPU=16 \\
            --resource MEMORY_MB=2048 \\
            --resource MEMORY_MB:step_size=128

    With ``--aggregate``, every provider of the aggregate is updated, one
    after another (several at once with ``--os-placement-parallel``); a
    provider that fails does not stop the others. The providers that were
    updated are printed, the failures are reported after them in the
    order of the providers, and the command then exits with 1.

    ``--dry-run`` prints what would be written and writes nothing. On
    stderr it warns, one line each, of every record Placement would
    refuse, of every class whose usage would be above its new capacity,
    and, without ``--amend``, of every class in use that the write would
    remove (Placement refuses that). A real ``--amend`` that lowers a
    capacity also warns of a usage above the new capacity: Placement
    accepts the write, but no new allocation of that class fits.
    """

    positional = ('uuid', '<uuid>', 'UUID or name of the resource provider; '
                  'with ``--aggregate``, UUID of the aggregate')
    positional_in_path = False

    def get_description(self):
        fields = '\n'.join(
            textwrap.fill('%s: %s' % (field.name, field.meaning),
                          common.DESCRIPTION_WIDTH, initial_indent='* ',
                          subsequent_indent='  ')
            for field in records.FIELDS_SPEC)
        return '%s\n\nThe fields of an inventory record:\n\n%s' % (
            super().get_description(), fields)

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--resource',
            metavar='<resource_class>:<inventory_field>=<value>',
            default=[], action='append',
            help='One inventory value. ' + CLASS_HELP + ' '
                 '<inventory_field> is optional (default: total) and is '
                 'one of the fields listed above. May be repeated.')
        self.add_option(
            parser, '--aggregate', action='store_true',
            since=microversions.PROVIDERS_MEMBER_OF,
            help='The positional argument is an aggregate UUID: set the '
                 'inventory of every resource provider in that aggregate.')
        parser.add_argument(
            '--amend', action='store_true',
            help='Change only the given values and keep the rest of the '
                 'inventory (the current inventory is read first)')
        parser.add_argument(
            '--dry-run', action='store_true',
            help='Print the inventory that would be written; write nothing')
        return parser

    def run(self, parsed_args):
        self._batch = None
        result = super().run(parsed_args)
        # Some providers were updated and printed; now say which failed.
        if self._batch is not None:
            return self._report() or result
        return result

    def _report(self):
        """Each failure, then the count (or what an interruption left)."""
        return batch.report(
            self, self._batch, 'set inventory for', batch_names.PROVIDERS,
            'updated', 'were not changed',
            key=lambda provider: provider['uuid'], period='.')

    def take_action(self, parsed_args):
        changes = [parse_resource(r) for r in parsed_args.resource]
        http = self.prepare(parsed_args)
        if parsed_args.aggregate:
            targets = http.request(
                'GET', providers.BASE_URL,
                params={'member_of': parsed_args.uuid},
            ).field('resource_providers', list)
            if not targets:
                raise exceptions.CommandError(
                    'No resource providers found in aggregate with uuid '
                    '%s.' % parsed_args.uuid)
        else:
            rp_uuid = providers.find_provider(http, parsed_args.uuid)
            targets = [{'uuid': rp_uuid, 'generation': http.request(
                'GET', paths.url('resource_providers', rp_uuid)).field(
                    'generation')}]
        fields = ('resource_class',) + records.FIELDS
        if not parsed_args.aggregate:
            inventories, warnings = self._set_one(http, targets[0], changes,
                                                  parsed_args)
            self._warn(targets[0], warnings)
            return fields, _rows(inventories, fields)

        # In parallel with --os-placement-parallel; the outcomes come back
        # in the order of the providers whatever order they finished in.
        self._batch = batch.run_for(
            self, http,
            lambda provider: self._set_one(http, provider, changes,
                                           parsed_args),
            targets, batch_names.PROVIDERS.many,
            name=lambda provider: provider['uuid'])
        updated = self._batch.done()
        if not updated and self._batch.interrupted is None:
            # Nothing to print: the failures are the command's error.
            self._report()

        # The warnings in the order of the providers, as the rows.
        for provider, (_, warnings) in updated:
            self._warn(provider, warnings)
        rows = [row for provider, (inventories, _) in updated
                for row in _rows(inventories, fields,
                                 prefix=(provider['uuid'],))]
        return ('resource_provider',) + fields, rows

    def _warn(self, provider, warnings):
        for text in warnings:
            self.log.warning('Warning: resource provider %s: %s.',
                             provider['uuid'], text)

    def _warnings(self, http, provider, current, inventories, parsed_args):
        """The warnings of one provider's write (rules D19 and D20).

        In a dry run, one per record Placement would refuse; then, in a
        dry run or an ``--amend`` write that lowers the capacity of a
        class the provider has, what the write does to the usages (read
        here: one request, before any write).
        """
        refused = {}
        if parsed_args.dry_run:
            can_reserve_total = self.compare_version(
                version.ge(microversions.RESERVED_CAN_BE_TOTAL))
            refused = {resource_class: rules for resource_class, rules in (
                (resource_class, records.refusals(record, can_reserve_total))
                for resource_class, record in inventories.items()) if rules}
        warnings = ['Placement would refuse the %s record: %s' % (
            printable(resource_class), '; '.join(rules))
            for resource_class, rules in refused.items()]
        if parsed_args.dry_run or (
                parsed_args.amend
                and records.lowers_capacity(current, inventories)):
            usages = providers.provider_usages(http, provider['uuid'])
            warnings += records.usage_warnings(
                inventories, usages, replaces=not parsed_args.amend,
                skip=refused)
        return warnings

    def _set_one(self, http, provider, changes, parsed_args):
        """Write the inventory of one provider.

        Returns what it now is (in a dry run, what it would be) and the
        warnings of :meth:`_warnings`.
        """
        path = _inventories_path(provider['uuid'])
        current = {}
        if parsed_args.amend:
            # Read-modify-write: the generation comes with the inventory.
            response = http.request('GET', path)
            payload = response.json_object()
            current = response.field('inventories', dict)
            inventories = dict(current)
            payload['inventories'] = inventories
        else:
            inventories = {}
            payload = {'inventories': inventories,
                       'resource_provider_generation':
                           provider['generation']}
        for resource_class, field, value in changes:
            record = dict(inventories.get(resource_class, {}))
            record[field] = value
            inventories[resource_class] = record
        warnings = self._warnings(http, provider, current, inventories,
                                  parsed_args)
        if parsed_args.dry_run:
            return inventories, warnings
        return http.request('PUT', path, json=payload).field(
            'inventories', dict), warnings


class SetClassInventory(common.ProviderCommand, common.ShowOne):
    """Replace the inventory of one resource class of a resource provider.

    The class must already be in the provider's inventory (use
    ``resource provider inventory set --amend`` to add one). Fields not
    given take the server's defaults.

    Example::

        openstack resource provider inventory class set <uuid> VCPU \\
            --total 16 \\
            --max-unit 4 \\
            --reserved 1
    """

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        self.in_path(parser.add_argument(
            'resource_class', metavar='<class>', type=parsers.non_empty,
            help=CLASS_HELP))
        for field in records.FIELDS_SPEC:
            # The reference's spelling first: the usage line keeps it; the
            # help shows the hyphenated one first (add_option).
            flags = ['--' + field.name]
            if '_' in field.name:
                flags.append('--' + field.name.replace('_', '-'))
            self.add_option(
                parser, *flags, dest=field.name, metavar='<%s>' % field.name,
                required=field.required, type=argparse_type(field),
                help=field.meaning)
        return parser

    def take_action(self, parsed_args):
        for field in records.FIELDS_SPEC:
            check_value(field, getattr(parsed_args, field.name),
                        '--' + field.name.replace('_', '-'))
        http, rp_uuid = self.prepare_provider(parsed_args)
        # Read-modify-write: the PUT carries the generation just read.
        generation = http.request('GET', paths.url(
            'resource_providers', rp_uuid)).field('generation')
        payload = {'resource_provider_generation': generation}
        for field in records.FIELDS:
            value = getattr(parsed_args, field)
            if value is not None:
                payload[field] = value
        record = http.request(
            'PUT', _inventories_path(rp_uuid, parsed_args.resource_class),
            json=payload).json_object()
        return records.FIELDS, utils.get_dict_properties(
            record, records.FIELDS)


class DeleteInventory(common.ProviderCommand, common.Command):
    """Delete the inventory of a resource provider.

    With ``--resource-class``, only the inventory of that class is deleted;
    without it, the whole inventory of the provider is (this needs at least
    ``--os-placement-api-version 1.5``).
    """

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        self.in_path(self.add_option(
            parser, '--resource-class', metavar='<resource_class>',
            type=parsers.non_empty,
            required_before=microversions.DELETE_ALL_INVENTORIES,
            help=(CLASS_HELP + ' Only the inventory of this class is '
                  'deleted; without this option, all the inventory of the '
                  'provider is.')))
        return parser

    def take_action(self, parsed_args):
        http, rp_uuid = self.prepare_provider(parsed_args)
        http.request('DELETE', _inventories_path(
            rp_uuid, parsed_args.resource_class))


def _with_usage(record, used, long):
    """The record with ``used`` and, for ``--long``, capacity and free."""
    record = dict(record, used=used)
    if long:
        capacity = amounts.capacity(record)
        record['capacity'] = capacity
        record['free'] = capacity - used
    return record


LONG_FIELDS = ('capacity', 'free')
LONG_HELP = ('Also show ``capacity``, the amount that can be allocated '
             '(``(total - reserved) * allocation_ratio``, rounded down), and '
             '``free``, what is left of it (capacity - used).')


class ShowInventory(common.ProviderCommand, common.ShowOne):
    """Show the inventory of one resource class of a resource provider"""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        self.in_path(parser.add_argument(
            'resource_class', metavar='<resource_class>',
            type=parsers.non_empty, help=CLASS_HELP))
        return parser

    def take_action(self, parsed_args):
        http, rp_uuid = self.prepare_provider(parsed_args)
        record = http.request('GET', _inventories_path(
            rp_uuid, parsed_args.resource_class)).json_object()
        usages = providers.provider_usages(http, rp_uuid)
        record = _with_usage(
            record, usages.get(parsed_args.resource_class, 0), long=False)
        fields = records.FIELDS + ('used',)
        return fields, utils.get_dict_properties(record, fields)


class ListInventory(common.ProviderCommand, common.Lister):
    """List the inventory of a resource provider, with the amounts used"""

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        self.add_option(
            parser, '--long', action='store_true', extended=True,
            help=LONG_HELP)
        return parser

    def take_action(self, parsed_args):
        http, rp_uuid = self.prepare_provider(parsed_args)
        inventories = http.request('GET', _inventories_path(rp_uuid)).field(
            'inventories', dict)
        usages = providers.provider_usages(http, rp_uuid)
        fields = ('resource_class',) + records.FIELDS + ('used',)
        if parsed_args.long:
            fields += LONG_FIELDS
        rows = []
        for resource_class, record in inventories.items():
            record = _with_usage(
                dict(record, resource_class=resource_class),
                usages.get(resource_class, 0), parsed_args.long)
            rows.append(utils.get_dict_properties(record, fields))
        return fields, rows
