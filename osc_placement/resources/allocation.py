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

"""Allocation commands: what a consumer holds, and on which providers.

``set``, ``unset``, ``show`` and ``delete`` are keyed by consumer
(``/allocations/<consumer>``); ``list`` is keyed by provider
(``/resource_providers/<rp>/allocations``).

The wire details of a consumer's allocations live in three functions:
``parse_allocations`` (the ``--allocation`` values), ``allocations_body``
(the PUT body per microversion) and ``consumer_rows`` (the output, whose
columns per microversion are declared in ``consumers.CONSUMER_FIELDS``).

``move``, ``save`` and ``restore``, which write or read several consumers
at once, are in ``allocation_ops.py``.
"""

from osc_lib import exceptions
from osc_lib import utils

from osc_placement.api import providers
from osc_placement.cli import batch
from osc_placement.cli import common
from osc_placement.cli import filters
from osc_placement.cli import parsers
from osc_placement import microversions
from osc_placement.model import batch_names
from osc_placement.model import consumers
from osc_placement.model import scalars
from osc_placement.model.text import printable
from osc_placement import version

# The positional of the commands about one consumer.
CONSUMER = ('uuid', '<uuid>', 'UUID of the consumer')

ALLOCATION_METAVAR = ('<rp=resource-provider-id,'
                      'resource-class-name=amount-of-resource-used>')
ALLOCATION_FORMAT = 'Incorrect allocation string format'


def _parse_one(text):
    """('rp value', {class: amount}) of one ``--allocation`` value."""
    if '=' not in text or ',' not in text:
        raise exceptions.CommandError(ALLOCATION_FORMAT)
    provider = None
    resources = {}
    for item in text.split(','):
        key, sep, value = item.partition('=')
        key, value = key.strip(), value.strip()
        if not sep or '=' in value or not key:
            raise exceptions.CommandError(
                "%s: %r in --allocation %r is not <name>=<value> (expected "
                "rp=<provider>,<resource class>=<amount>[,...])."
                % (ALLOCATION_FORMAT, item, text))
        if key == 'rp':
            if not value:
                raise exceptions.CommandError(
                    '--allocation %r: rp= needs a resource provider UUID '
                    'or name.' % text)
            if provider is not None:
                raise exceptions.CommandError(
                    '--allocation %r: one rp= per --allocation (repeat the '
                    'option for more providers).' % text)
            provider = value
            continue
        amount = parsers.parse_amount(
            value, '--allocation %r: amount of %s' % (text, key))
        if resources.get(key, amount) != amount:
            raise exceptions.CommandError(
                '--allocation %r: two different amounts of %s.'
                % (text, printable(key)))
        resources[key] = amount
    if provider is None:
        # The reference's words, which scripts match.
        raise exceptions.CommandError(
            'Resource provider parameter is required for allocation string')
    return provider, resources


def _merge(allocations, provider, resources):
    """Add ``resources`` to ``allocations[provider]``; refuse a conflict."""
    known = allocations.setdefault(provider, {})
    for resource_class, amount in resources.items():
        if known.get(resource_class, amount) != amount:
            raise exceptions.CommandError(
                'Conflict detected for resource provider %s resource class '
                '%s' % (printable(provider), printable(resource_class)))
        known[resource_class] = amount


def parse_allocations(values):
    """``--allocation`` values -> {provider as given: {class: amount}}.

    Values naming the same provider are merged; the same class with two
    different amounts on one provider is an error. Raises before anything
    is sent.
    """
    allocations = {}
    for text in values:
        provider, resources = _parse_one(text)
        _merge(allocations, provider, resources)
    if not allocations:
        raise exceptions.CommandError(
            'At least one resource allocation must be specified')
    return allocations


def resolve_providers(http, allocations):
    """Providers given by name replaced by their UUIDs, merged again."""
    resolved = {}
    for provider, resources in allocations.items():
        _merge(resolved, providers.find_provider(http, provider),
               resources)
    return resolved


def allocations_body(cmd, allocations):
    """The ``allocations`` of a PUT: a list before 1.12, then a dict."""
    if cmd.compare_version(version.ge(microversions.DICT_ALLOCATIONS)):
        return {rp: {'resources': resources}
                for rp, resources in allocations.items()}
    return [{'resource_provider': {'uuid': rp}, 'resources': resources}
            for rp, resources in allocations.items()]


def consumer_rows(cmd, http, consumer):
    """(columns, rows) of ``allocation show``: one row per provider."""
    # Runs only: consumer reads, writes (see osc_placement.resources).
    from osc_placement.api import allocations as consumer_api
    fields = common.columns(cmd, consumers.CONSUMER_FIELDS)
    return fields, consumers.shown(
        consumer_api.read_allocations(http, consumer), fields)


class SetAllocation(common.NamedCommand, common.Lister):
    """Replace all allocations of a consumer

    This is a full replacement: allocations of the consumer that are not
    given again are removed. To add a resource class, repeat every
    allocation the consumer already has, plus the new one.

    ``--project-id`` and ``--user-id`` are required from
    ``--os-placement-api-version 1.8`` (and recommended before, for
    accounting). From 1.12 the output shows the consumer's project and
    user. From 1.28 the command reads the consumer generation first and
    sends it back, so that a concurrent change of the same consumer makes
    this command fail (HTTP 409) instead of being overwritten silently; it
    is not retried. ``--consumer-type`` is required from 1.38 and shown in
    the output.
    """

    positional = CONSUMER

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--allocation', metavar=ALLOCATION_METAVAR, action='append',
            default=[],
            help='The resources the consumer holds on one provider: '
                 '``rp=<provider>`` (UUID or name) then one or more '
                 '``<resource class>=<amount>``, comma-separated, e.g. '
                 '``rp=<uuid>,VCPU=2,MEMORY_MB=512``. Repeat the option for '
                 'more providers; values for the same provider are merged.')
        self.add_option(
            parser, '--project-id', metavar='project_id',
            required_since=microversions.PROJECT_USER_REQUIRED,
            help='ID of the project that owns the consumer.')
        self.add_option(
            parser, '--user-id', metavar='user_id',
            required_since=microversions.PROJECT_USER_REQUIRED,
            help='ID of the user that owns the consumer.')
        self.add_option(
            parser, '--consumer-type', metavar='consumer_type',
            required_since=microversions.CONSUMER_TYPES,
            help='Type of the consumer, e.g. INSTANCE or MIGRATION (upper '
                 'case letters, digits and _); ignored before '
                 '``--os-placement-api-version %s``.'
                 % microversions.CONSUMER_TYPES)
        return parser

    def take_action(self, parsed_args):
        # Runs only: consumer reads, writes (see osc_placement.resources).
        from osc_placement.api import allocations as consumer_api
        allocations = parse_allocations(parsed_args.allocation)
        http = self.prepare(parsed_args)
        allocations = resolve_providers(http, allocations)
        url = consumer_api.consumer_url(parsed_args.uuid)

        body = {}
        if self.compare_version(
                version.ge(microversions.CONSUMER_GENERATION)):
            # None for a consumer that does not exist yet.
            body['consumer_generation'] = http.request('GET', url).field(
                'consumer_generation', default=None)
        body['allocations'] = allocations_body(self, allocations)
        if self.compare_version(
                version.ge(microversions.PROJECT_USER_REQUIRED)):
            body['project_id'] = parsed_args.project_id
            body['user_id'] = parsed_args.user_id
        elif parsed_args.project_id or parsed_args.user_id:
            self.log.warning(
                '--project-id and --user-id options do not affect '
                'allocation for --os-placement-api-version less than %s'
                % microversions.PROJECT_USER_REQUIRED)
        if self.compare_version(version.ge(microversions.CONSUMER_TYPES)):
            body['consumer_type'] = parsed_args.consumer_type
        elif parsed_args.consumer_type:
            self.log.warning(
                '--consumer-type option does not affect allocation for '
                '--os-placement-api-version less than %s'
                % microversions.CONSUMER_TYPES)
        http.request('PUT', url, json=body)
        return consumer_rows(self, http, parsed_args.uuid)


class UnsetAllocation(common.NamedCommand, common.Lister):
    """Remove allocations of a consumer

    Without ``--provider`` and ``--resource-class`` every allocation of the
    consumer is removed. ``--provider`` limits the removal to those
    providers, ``--resource-class`` to those classes (on every provider, or
    on the ``--provider`` ones if both are given). Providers and classes
    the consumer has no allocation on are ignored.

    The command reads the allocations, edits them and writes them back.
    Before 1.12 the read does not return the project and user that the
    write needs: use ``resource provider allocation set`` there. From 1.28
    the write carries the consumer generation that was read: a concurrent
    change of the consumer makes it fail instead of being lost. From 1.38
    a consumer keeps its type; one written before 1.38, whose type is
    ``unknown``, is written back at 1.37 so that it stays unknown.
    """

    min_version = microversions.DICT_ALLOCATIONS
    positional = (
        'uuid', '<consumer_uuid>',
        'UUID of the consumer. Prefer ``--os-placement-api-version %s`` or '
        'later, which protects the allocations the command keeps against '
        'concurrent changes.' % microversions.CONSUMER_GENERATION)

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--provider', metavar='provider_uuid', action='append',
            default=[], type=parsers.non_empty,
            help='A resource provider (UUID or name) to remove the '
                 'consumer\'s allocations from, e.g. the source compute '
                 'node after an evacuation. Repeat for more providers. '
                 'Without it, every provider is concerned.')
        parser.add_argument(
            '--resource-class', metavar='resource_class', action='append',
            default=[], type=parsers.non_empty,
            help='A resource class to remove from the consumer\'s '
                 'allocations (on every provider, or only on the '
                 '``--provider`` ones). Repeat for more classes. Without '
                 'it, whole providers are removed.')
        return parser

    def take_action(self, parsed_args):
        # Runs only: consumer reads, writes (see osc_placement.resources).
        from osc_placement.api import allocations as consumer_api
        http = self.prepare(parsed_args)
        rps = set(providers.find_provider(http, p)
                  for p in parsed_args.provider)
        url = consumer_api.consumer_url(parsed_args.uuid)
        response = http.request('GET', url)
        payload = response.json_object()
        with_generation = self.compare_version(
            version.ge(microversions.CONSUMER_GENERATION))
        if with_generation and not response.field('allocations', dict):
            # Nothing to remove; the write would only fail on the missing
            # project and user.
            raise exceptions.CommandError(
                "No allocations for consumer '%s'" % parsed_args.uuid)
        payload['allocations'] = consumers.without(
            payload['allocations'], rps,
            set(parsed_args.resource_class))
        if payload['allocations'] or with_generation:
            write_version = None
            if payload.get(consumers.TYPE) == consumers.UNKNOWN_TYPE:
                # Written without a type, it stays unknown.
                del payload[consumers.TYPE]
                write_version = consumers.WITHOUT_TYPES
            http.request('PUT', url, json=payload, version=write_version)
        else:
            # Before 1.28 a PUT cannot empty the allocations.
            http.request('DELETE', url)
        return consumer_rows(self, http, parsed_args.uuid)


class ShowAllocation(common.NamedCommand, common.Lister):
    """Show the allocations of a consumer

    One row per resource provider the consumer holds resources on. From
    ``--os-placement-api-version 1.12`` the rows also show the consumer's
    project and user, and from 1.38 its type.
    """

    positional = CONSUMER

    def take_action(self, parsed_args):
        http = self.prepare(parsed_args)
        return consumer_rows(self, http, parsed_args.uuid)


class DeleteAllocation(common.NamedCommand, common.Command):
    """Delete all allocations of consumers

    Several consumers can be given: each one's allocations are deleted in
    turn, and the failures are reported at the end.
    """

    positional = CONSUMER
    more_help = 'More consumers can follow.'

    def take_action(self, parsed_args):
        # Runs only: consumer reads, writes (see osc_placement.resources).
        from osc_placement.api import allocations as consumer_api
        http = self.prepare(parsed_args)
        return batch.delete_each(
            self, http, self.named(parsed_args),
            lambda consumer: http.request(
                'DELETE', consumer_api.consumer_url(consumer)),
            batch_names.ALLOCATIONS)


def read_consumer_list(name, stdin):
    """The consumer UUIDs of a file (``-``: standard input), as a set.

    One UUID per line; blank lines and lines starting with ``#`` are
    skipped. Anything else is an error naming the line.
    """
    what = '--exclude-consumers-from %s' % printable(name)
    try:
        if name == '-':
            text = stdin.read()
        else:
            with open(name, encoding='utf-8') as f:
                text = f.read()
    except (OSError, UnicodeError) as exc:
        raise exceptions.CommandError('%s: cannot read it: %s' % (
            what, printable(getattr(exc, 'strerror', None) or str(exc))))
    listed = set()
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith('#'):
            continue
        uuid = scalars.canonical_uuid(line)
        if uuid is None:
            raise exceptions.CommandError(
                '%s: line %d: %r is not a consumer UUID.' % (
                    what, number, line))
        listed.add(uuid)
    return listed


class ListProviderAllocation(filters.ManyProviders, common.Lister):
    """List the allocations on resource providers

    With a provider: one row per consumer that holds resources on it, with
    those resources. Without: every provider is read (or those that
    ``--in-tree`` and ``--member-of`` select), and each row starts with
    the ``resource_provider``.

    ``--long`` adds each consumer's project and user (and type from
    ``--os-placement-api-version 1.38``). They are read with one request
    per consumer, as are the ``--project-id``, ``--user-id`` and
    ``--consumer-type`` filters; without any of them no consumer is read.

    To find consumers that no longer exist, list the known ones in a file
    and give it to ``--exclude-consumers-from``: the rows left are those of
    the other consumers, e.g.::

        openstack server list --all-projects -f value -c ID > known
        openstack resource provider allocation list \\
            --exclude-consumers-from known

    Migrations hold allocations too (their UUIDs are those of ``openstack
    server migration list``).
    """

    # The upstream plugin has no such command: the usage shows every
    # option.
    in_reference = False

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            'uuid', metavar='<uuid>', nargs='?', type=parsers.non_empty,
            help='UUID or name of the resource provider (default: every '
                 'provider)')
        self.add_option(
            parser, '--long', action='store_true',
            since=microversions.DICT_ALLOCATIONS,
            help='Also show the project and user of each consumer (and its '
                 'type from ``--os-placement-api-version %s``).'
                 % microversions.CONSUMER_TYPES)
        self.add_selection(parser, 'in_tree', 'member_of')
        self.add_option(
            parser, '--project-id', metavar='<project_id>',
            since=microversions.DICT_ALLOCATIONS,
            extended=True,
            help='Only the consumers of this project.')
        self.add_option(
            parser, '--user-id', metavar='<user_id>',
            since=microversions.DICT_ALLOCATIONS,
            extended=True,
            help='Only the consumers of this user.')
        self.add_option(
            parser, '--consumer-type', metavar='<consumer_type>',
            since=microversions.CONSUMER_TYPES, extended=True,
            help='Only the consumers of this type, e.g. INSTANCE or '
                 'MIGRATION; ``unknown`` matches the consumers written '
                 'without a type (before that version).')
        self.add_option(
            parser, '--resource-class', metavar='<resource_class>',
            action='append', default=[], type=parsers.non_empty,
            extended=True,
            help='Only the rows that hold this resource class (the row '
                 'still shows all the consumer\'s resources on the '
                 'provider). May be repeated: any of them.')
        self.add_option(
            parser, '--exclude-consumers-from', metavar='<file>',
            extended=True,
            help='Leave out the consumers listed in this file (``-``: '
                 'standard input): one UUID per line, blank lines and '
                 '``#`` comments ignored.')
        return parser

    def _owner_filters(self, parsed_args):
        """{column: wanted value} of the filters on the consumer's owner."""
        return {name: value for name, value in (
            ('project_id', parsed_args.project_id),
            ('user_id', parsed_args.user_id),
            ('consumer_type', parsed_args.consumer_type)) if value}

    @staticmethod
    def _matches(payload, wanted):
        for name, value in wanted.items():
            got = payload.get(name)
            if name == consumers.TYPE and got is None:
                got = consumers.UNKNOWN_TYPE
            if got != value:
                return False
        return True

    def take_action(self, parsed_args):
        # Runs only: consumer reads, writes (see osc_placement.resources).
        from osc_placement.api import allocations as consumer_api
        across = parsed_args.uuid is None
        if not across and (parsed_args.in_tree or parsed_args.member_of):
            raise exceptions.CommandError(
                '--in-tree and --member-of select the providers to read: '
                'give them without a resource provider.')
        filters.check_aggregate_uuids(parsed_args.member_of)
        excluded = set()
        if parsed_args.exclude_consumers_from:
            excluded = read_consumer_list(
                parsed_args.exclude_consumers_from, self.app.stdin)
        http = self.prepare(parsed_args)
        if across:
            read = self.each_provider(
                http, lambda uuid: providers.provider_allocations(
                    http, uuid), self.select_providers(http, parsed_args))
        else:
            # One provider: its failure is the command's error.
            rp_uuid = providers.find_provider(http, parsed_args.uuid)
            read = [({'uuid': rp_uuid}, providers.provider_allocations(
                http, rp_uuid))]
        classes = set(parsed_args.resource_class)
        held = []
        for provider, allocations in read:
            for consumer, allocation in allocations.items():
                if consumer in excluded or (
                        classes and not classes & set(
                            allocation['resources'])):
                    continue
                held.append({'resource_provider': provider['uuid'],
                             'consumer_uuid': consumer,
                             'resources': allocation['resources']})

        fields = ('consumer_uuid', 'resources')
        if across:
            fields = ('resource_provider',) + fields
        owner = common.columns(self, consumers.OWNER_FIELDS) \
            if parsed_args.long else ()
        wanted = self._owner_filters(parsed_args)
        if owner or wanted:
            distinct = list(dict.fromkeys(row['consumer_uuid']
                                          for row in held))
            payloads = dict(self.each(
                http, lambda consumer: http.request(
                    'GET', consumer_api.consumer_url(consumer)).json_object(),
                distinct, batch_names.CONSUMERS))
            held = [dict(row, **{name: payloads[row['consumer_uuid']].get(
                        name) for name in owner})
                    for row in held if row['consumer_uuid'] in payloads
                    and self._matches(payloads[row['consumer_uuid']],
                                      wanted)]
        return fields + owner, [utils.get_dict_properties(row, fields + owner)
                                for row in held]
