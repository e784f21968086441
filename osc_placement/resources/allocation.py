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
columns per microversion are declared in ``CONSUMER_FIELDS``).

``move``, ``save`` and ``restore`` write or read several consumers at
once: the writes are one ``POST /allocations`` each (``write_consumers``,
which also says what changed when Placement refuses one with 409); the
records, sums and differences they compute are in ``consumers.py``, the
save file in ``savefile.py``.
"""

import uuid as uuid_lib

from osc_lib import exceptions
from osc_lib import utils

from osc_placement.api import paths
from osc_placement.api import providers
from osc_placement.cli import batch
from osc_placement.cli import common
from osc_placement.cli import filters
from osc_placement.cli import parsers
from osc_placement import errors
from osc_placement.model import consumers
from osc_placement.model.text import printable
from osc_placement import version

# Microversions at which the allocation API changed.
PROJECT_USER_REQUIRED = '1.8'   # PUT needs project_id and user_id
DICT_BODY = '1.12'              # PUT body keyed by provider; GET shows
#                                 project_id and user_id
MULTIPLE_CONSUMERS = '1.13'     # POST /allocations: several consumers in
#                                 one transaction
CONSUMER_GENERATION = '1.28'    # read-modify-write on consumer_generation
CONSUMER_TYPE = '1.38'          # consumer_type required and shown
# The type Placement shows for a consumer written before 1.38. It cannot be
# written back: a write at 1.37 (without a type) leaves it as it is.
UNKNOWN_TYPE = consumers.UNKNOWN_TYPE
BEFORE_CONSUMER_TYPE = '1.37'

# The consumer's owner columns, each with the microversion that shows it.
OWNER_FIELDS = (
    ('project_id', DICT_BODY),
    ('user_id', DICT_BODY),
    ('consumer_type', CONSUMER_TYPE),
)
# The columns of a consumer's allocations, one row per provider.
CONSUMER_FIELDS = (
    ('resource_provider', None),
    ('generation', None),
    ('resources', None),
) + OWNER_FIELDS

# The positional of the commands about one consumer.
CONSUMER = ('uuid', '<uuid>', 'UUID of the consumer')

ALLOCATION_METAVAR = ('<rp=resource-provider-id,'
                      'resource-class-name=amount-of-resource-used>')
ALLOCATION_FORMAT = 'Incorrect allocation string format'


def consumer_url(consumer):
    return paths.url('allocations', consumer)


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
    if cmd.compare_version(version.ge(DICT_BODY)):
        return {rp: {'resources': resources}
                for rp, resources in allocations.items()}
    return [{'resource_provider': {'uuid': rp}, 'resources': resources}
            for rp, resources in allocations.items()]


def consumer_rows(cmd, response):
    """(columns, rows): one row per provider of a GET /allocations/<c>."""
    fields = common.columns(cmd, CONSUMER_FIELDS)
    payload = response.json_object()
    shared = {name: payload.get(name) for name, _since in OWNER_FIELDS}
    rows = []
    for rp, held in response.field('allocations', dict).items():
        row = dict(shared, resource_provider=rp)
        row.update(held)
        rows.append(utils.get_dict_properties(row, fields))
    return fields, rows


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
            required_since=PROJECT_USER_REQUIRED,
            help='ID of the project that owns the consumer.')
        self.add_option(
            parser, '--user-id', metavar='user_id',
            required_since=PROJECT_USER_REQUIRED,
            help='ID of the user that owns the consumer.')
        self.add_option(
            parser, '--consumer-type', metavar='consumer_type',
            required_since=CONSUMER_TYPE,
            help='Type of the consumer, e.g. INSTANCE or MIGRATION (upper '
                 'case letters, digits and _); ignored before '
                 '``--os-placement-api-version %s``.' % CONSUMER_TYPE)
        return parser

    def take_action(self, parsed_args):
        allocations = parse_allocations(parsed_args.allocation)
        http = self.prepare(parsed_args)
        allocations = resolve_providers(http, allocations)
        url = consumer_url(parsed_args.uuid)

        body = {}
        if self.compare_version(version.ge(CONSUMER_GENERATION)):
            # None for a consumer that does not exist yet.
            body['consumer_generation'] = http.request('GET', url).field(
                'consumer_generation', default=None)
        body['allocations'] = allocations_body(self, allocations)
        if self.compare_version(version.ge(PROJECT_USER_REQUIRED)):
            body['project_id'] = parsed_args.project_id
            body['user_id'] = parsed_args.user_id
        elif parsed_args.project_id or parsed_args.user_id:
            self.log.warning(
                '--project-id and --user-id options do not affect '
                'allocation for --os-placement-api-version less than %s'
                % PROJECT_USER_REQUIRED)
        if self.compare_version(version.ge(CONSUMER_TYPE)):
            body['consumer_type'] = parsed_args.consumer_type
        elif parsed_args.consumer_type:
            self.log.warning(
                '--consumer-type option does not affect allocation for '
                '--os-placement-api-version less than %s' % CONSUMER_TYPE)
        http.request('PUT', url, json=body)
        return consumer_rows(self, http.request('GET', url))


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

    min_version = DICT_BODY
    positional = (
        'uuid', '<consumer_uuid>',
        'UUID of the consumer. Prefer ``--os-placement-api-version %s`` or '
        'later, which protects the allocations the command keeps against '
        'concurrent changes.' % CONSUMER_GENERATION)

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

    @staticmethod
    def _edit(allocations, rps, classes):
        """What remains of ``allocations`` once the unset is applied."""
        if not classes:
            if not rps:
                return {}
            return {rp: held for rp, held in allocations.items()
                    if rp not in rps}
        remaining = {}
        for rp, held in allocations.items():
            if not rps or rp in rps:
                resources = {rc: amount
                             for rc, amount in held['resources'].items()
                             if rc not in classes}
                if not resources:
                    continue
                held = dict(held, resources=resources)
            remaining[rp] = held
        return remaining

    def take_action(self, parsed_args):
        http = self.prepare(parsed_args)
        rps = set(providers.find_provider(http, p)
                  for p in parsed_args.provider)
        url = consumer_url(parsed_args.uuid)
        response = http.request('GET', url)
        payload = response.json_object()
        with_generation = self.compare_version(
            version.ge(CONSUMER_GENERATION))
        if with_generation and not response.field('allocations', dict):
            # Nothing to remove; the write would only fail on the missing
            # project and user.
            raise exceptions.CommandError(
                "No allocations for consumer '%s'" % parsed_args.uuid)
        payload['allocations'] = self._edit(
            payload['allocations'], rps,
            set(parsed_args.resource_class))
        if payload['allocations'] or with_generation:
            write_version = None
            if payload.get('consumer_type') == UNKNOWN_TYPE:
                del payload['consumer_type']
                write_version = BEFORE_CONSUMER_TYPE
            http.request('PUT', url, json=payload, version=write_version)
        else:
            # Before 1.28 a PUT cannot empty the allocations.
            http.request('DELETE', url)
        return consumer_rows(self, http.request('GET', url))


class ShowAllocation(common.NamedCommand, common.Lister):
    """Show the allocations of a consumer

    One row per resource provider the consumer holds resources on. From
    ``--os-placement-api-version 1.12`` the rows also show the consumer's
    project and user, and from 1.38 its type.
    """

    positional = CONSUMER

    def take_action(self, parsed_args):
        http = self.prepare(parsed_args)
        return consumer_rows(self, http.request(
            'GET', consumer_url(parsed_args.uuid)))


class DeleteAllocation(common.NamedCommand, common.Command):
    """Delete all allocations of consumers

    Several consumers can be given: each one's allocations are deleted in
    turn, and the failures are reported at the end.
    """

    positional = CONSUMER
    more_help = 'More consumers can follow.'

    def take_action(self, parsed_args):
        http = self.prepare(parsed_args)
        return batch.delete_each(
            self, http, self.named(parsed_args),
            lambda consumer: http.request('DELETE', consumer_url(consumer)),
            'allocations of consumer', 'allocations')


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
            what, printable(exc)))
    consumers = set()
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith('#'):
            continue
        if not providers.is_uuid_like(line):
            raise exceptions.CommandError(
                '%s: line %d: %r is not a consumer UUID.' % (
                    what, number, line))
        consumers.add(str(uuid_lib.UUID(line)))
    return consumers


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
            parser, '--long', action='store_true', since=DICT_BODY,
            help='Also show the project and user of each consumer (and its '
                 'type from ``--os-placement-api-version %s``).'
                 % CONSUMER_TYPE)
        self.add_selection(parser, 'in_tree', 'member_of')
        self.add_option(
            parser, '--project-id', metavar='<project_id>', since=DICT_BODY,
            extended=True,
            help='Only the consumers of this project.')
        self.add_option(
            parser, '--user-id', metavar='<user_id>', since=DICT_BODY,
            extended=True,
            help='Only the consumers of this user.')
        self.add_option(
            parser, '--consumer-type', metavar='<consumer_type>',
            since=CONSUMER_TYPE, extended=True,
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
            if name == 'consumer_type' and got is None:
                got = 'unknown'
            if got != value:
                return False
        return True

    def take_action(self, parsed_args):
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
        owner = common.columns(self, OWNER_FIELDS) if parsed_args.long else ()
        wanted = self._owner_filters(parsed_args)
        if owner or wanted:
            distinct = list(dict.fromkeys(row['consumer_uuid']
                                          for row in held))
            payloads = dict(self.each(
                http, lambda consumer: http.request(
                    'GET', consumer_url(consumer)).json_object(),
                distinct, 'consumer'))
            held = [dict(row, **{name: payloads[row['consumer_uuid']].get(
                        name) for name in owner})
                    for row in held if row['consumer_uuid'] in payloads
                    and self._matches(payloads[row['consumer_uuid']],
                                      wanted)]
        return fields + owner, [utils.get_dict_properties(row, fields + owner)
                                for row in held]


# -- Several consumers in one request: move, save, restore ------------------

MULTIPLE_URL = paths.url('allocations')
# The columns of what a write of several consumers changes.
CHANGE_FIELDS = ('consumer_uuid', 'resource_provider', 'change', 'before',
                 'after')


def consumer_uuid(value, what):
    """A consumer UUID as Placement writes it, or one line naming it."""
    if not providers.is_uuid_like(value):
        raise exceptions.CommandError(
            '%s %r is not a consumer UUID.' % (what, printable(value)))
    return str(uuid_lib.UUID(value))


def counted(number, thing):
    """'1 consumer', '2 consumers'."""
    return '%d %s%s' % (number, thing, '' if number == 1 else 's')


def read_consumer(http, consumer):
    """The record (``consumers.record``) of a consumer: one GET."""
    return consumers.record(http.request(
        'GET', consumer_url(consumer)).json_object())


def change_rows(before, after):
    """The rows of CHANGE_FIELDS: per consumer and provider, what changes.

    ``before``, ``after``: {consumer: record or None}, in the order to
    show. A consumer whose owner (project, user, type) changes but not its
    amounts gets one row ``owner``, with the owner before and after.
    """
    rows = []
    for consumer, new in after.items():
        old = before.get(consumer)
        found = consumers.diff(consumers.held(old), consumers.held(new))
        rows.extend((consumer, rp, change, old_res, new_res)
                    for rp, change, old_res, new_res in found)
        if not found and consumers.exists(old) and _owner(old) != _owner(
                new):
            rows.append((consumer, '', 'owner', _owner(old), _owner(new)))
    return rows


def _owner(rec):
    """'<project>/<user>[/<type>]' of a record."""
    return '/'.join(str(rec[name]) for name in consumers.OWNER + (
        consumers.TYPE,) if rec.get(name) is not None)


def write_version(cmd, records, types_sent):
    """The microversion of a write whose types could not all be sent.

    None (the live one) unless the live version needs a type for every
    consumer (1.38) and one has none that can be written; then the
    write goes at 1.37, which leaves every consumer's type as it is, and
    the command says so.
    """
    if types_sent or not cmd.compare_version(version.ge(CONSUMER_TYPE)):
        return None
    cmd.log.warning(
        'Consumer %s has no type that can be written (none, or %s): the '
        'request is sent at --os-placement-api-version %s, which keeps the '
        'type of every consumer in it as it is (a new consumer gets none).',
        ', '.join(consumers.untyped(records)), UNKNOWN_TYPE,
        BEFORE_CONSUMER_TYPE)
    return BEFORE_CONSUMER_TYPE


def _now(http, sent, provider_generations):
    """What differs now from the generations a write sent: a list.

    ``sent``: {consumer: generation sent}; ``provider_generations``:
    {provider: generation sent} (reshape). Read again, one GET each.
    """
    changed = []
    for consumer, generation in sent.items():
        now = read_consumer(http, consumer).get(consumers.GENERATION)
        if now != generation:
            changed.append('consumer %s (generation %s when read, %s now)'
                           % (consumer, _shown(generation), _shown(now)))
    for rp, generation in provider_generations.items():
        now = http.request('GET', paths.url(
            'resource_providers', rp)).field('generation')
        if now != generation:
            changed.append('resource provider %s (generation %s when read, '
                           '%s now)' % (rp, generation, now))
    return changed


def _shown(generation):
    return 'none: no such consumer' if generation is None else generation


def conflict_error(http, exc, sent, provider_generations=None):
    """The one line of a write of several things that Placement refused.

    Placement's words, then that nothing was written, then for a
    generation conflict what changed since the command read it (read
    again now) and how to go on.
    """
    text = '%s (HTTP %s). Nothing was written' % (
        str(exc.message).rstrip('.'), exc.code)
    if getattr(exc, 'error_code', None) != errors.CONCURRENT_UPDATE:
        return exceptions.CommandError(text + '.')
    changed = _now(http, sent, provider_generations or {})
    if not changed:
        return exceptions.CommandError(
            text + '; the generations read are current again: run the '
            'command again.')
    first = changed[0].split(' (')[0]
    kind, name = first.rsplit(' ', 1)
    return exceptions.CommandError('%s. Changed since it was read: %s. %s.' % (
        text, '; '.join(changed), errors.changed_advice(
            'consumer' if kind == 'consumer' else 'provider', name)))


def prepare_write(cmd, records):
    """(the entries of a write of several consumers, its microversion).

    ``records``: {consumer: record with the generation to send}. The
    entries are ``consumers.body()`` at the live version; the microversion
    is None (the live one) or 1.37 (see :func:`write_version`).
    """
    entries, types_sent = consumers.body(
        records, cmd.compare_version(version.ge(CONSUMER_GENERATION)),
        cmd.compare_version(version.ge(CONSUMER_TYPE)))
    return entries, write_version(cmd, records, types_sent)


def post(cmd, http, url, payload, at, entries, provider_generations=None):
    """The one POST of a write, all or nothing; a 409 explained.

    ``entries``: the consumers' part of ``payload`` (their generations
    say, after a 409, which consumer changed); ``provider_generations``
    the providers' (reshape).
    """
    try:
        http.request('POST', url, json=payload, version=at)
    except exceptions.Conflict as exc:
        sent = {consumer: entry.get(consumers.GENERATION)
                for consumer, entry in entries.items()} \
            if cmd.compare_version(version.ge(CONSUMER_GENERATION)) else {}
        raise conflict_error(http, exc, sent, provider_generations) \
            from None


def write_consumers(cmd, http, records):
    """One ``POST /allocations`` of several consumers; the entries sent."""
    entries, at = prepare_write(cmd, records)
    post(cmd, http, MULTIPLE_URL, entries, at, entries)
    return entries


class MoveAllocation(common.Lister):
    """Move allocations from one consumer to another, in one request

    The source consumer's allocations (all of them, or only those on the
    ``--resource-provider`` ones) are added to the target consumer's,
    summed per provider and resource class, and removed from the source,
    in one ``POST /allocations``: both change, or neither does. This is
    the clean-up after a failed migration, whose allocations (held by the
    migration's UUID) go back to the instance::

        openstack resource provider allocation move <migration> <server>

    The target keeps its project and user, or takes the source's when it
    holds nothing yet (``--project-id`` and ``--user-id`` set them); each
    consumer keeps its type (from ``--os-placement-api-version 1.38``).
    From 1.28 the write carries the generations of the two consumers read
    just before: if another writer changed either in between, Placement
    refuses it (HTTP 409), nothing is written, and the command names the
    consumer that changed. Below 1.28 nothing protects the move against a
    concurrent change.

    Prints the target's allocations as ``allocation show`` does.
    """

    min_version = MULTIPLE_CONSUMERS
    in_reference = False

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        self.in_path(parser.add_argument(
            'source', metavar='<source>', type=parsers.non_empty,
            help='UUID of the consumer whose allocations move'))
        self.in_path(parser.add_argument(
            'target', metavar='<target>', type=parsers.non_empty,
            help='UUID of the consumer that gets them (it need not hold '
                 'anything yet)'))
        filters.add_resource_provider(
            parser, 'Move only the allocations on this provider (UUID or '
                    'name). May be repeated. Without it, all of them move.')
        parser.add_argument(
            '--project-id', metavar='<project_id>',
            help='Project of the target (default: its own, or the '
                 'source\'s if it holds nothing).')
        parser.add_argument(
            '--user-id', metavar='<user_id>',
            help='User of the target (default: its own, or the source\'s '
                 'if it holds nothing).')
        self.add_option(
            parser, '--consumer-type', metavar='<consumer_type>',
            since=CONSUMER_TYPE,
            help='Type of the target, e.g. INSTANCE (default: its own, or '
                 'the source\'s if it holds nothing).')
        return parser

    def take_action(self, parsed_args):
        source = consumer_uuid(parsed_args.source, 'Source consumer')
        target = consumer_uuid(parsed_args.target, 'Target consumer')
        if source == target:
            raise exceptions.CommandError(
                'The source and the target are the same consumer %s.'
                % source)
        http = self.prepare(parsed_args)
        rps = list(dict.fromkeys(providers.find_provider(http, value)
                                 for value in parsed_args.resource_provider))
        before = {source: read_consumer(http, source),
                  target: read_consumer(http, target)}
        held = consumers.held(before[source])
        if not held:
            raise exceptions.CommandError(
                'Consumer %s holds no allocations: nothing to move.'
                % source)
        missing = [rp for rp in rps if rp not in held]
        if missing:
            raise exceptions.CommandError(
                'Consumer %s holds nothing on resource provider %s: '
                'nothing to move from it.' % (source, ', '.join(missing)))
        moved, kept = consumers.taken(held, set(rps) if rps else set(held))
        old_target = before[target]
        owner = old_target if consumers.exists(old_target) else dict(
            before[source], consumer_generation=None)
        new_target = {
            'allocations': consumers.as_allocations(consumers.added(
                consumers.held(old_target), moved)),
            'project_id': parsed_args.project_id or owner.get('project_id'),
            'user_id': parsed_args.user_id or owner.get('user_id'),
            consumers.GENERATION: old_target.get(consumers.GENERATION),
        }
        if parsed_args.consumer_type or consumers.TYPE in owner:
            new_target[consumers.TYPE] = parsed_args.consumer_type or \
                owner.get(consumers.TYPE)
        records = {source: dict(before[source],
                                allocations=consumers.as_allocations(kept)),
                   target: new_target}
        write_consumers(self, http, records)
        return consumer_rows(self, http.request('GET', consumer_url(target)))


class SaveAllocation(filters.ManyProviders, common.Command):
    """Save the allocations of consumers to a file, to restore them later

    Every consumer with allocations on the ``--resource-provider`` ones,
    and the ``--consumer`` ones, is read (without either option: every
    consumer of every provider), with all its allocations, its project
    and user, its generation (from ``--os-placement-api-version 1.28``)
    and its type (from 1.38). The file, JSON, also records the
    microversion they were read at and when. ``resource provider
    allocation restore`` puts them back.

    Save before any manual edit of allocations::

        openstack resource provider allocation save \\
            --resource-provider compute-1 --file before-edit.json

    The providers and consumers are read several at a time (see
    ``--os-placement-parallel``). If one cannot be read, no file is
    written.
    """

    min_version = DICT_BODY
    in_reference = False

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        filters.add_resource_provider(
            parser, 'Save every consumer that holds allocations on this '
                    'provider (UUID or name). May be repeated.')
        parser.add_argument(
            '--consumer', metavar='<consumer_uuid>', action='append',
            default=[], type=parsers.non_empty,
            help='Save this consumer. May be repeated.')
        parser.add_argument(
            '--file', metavar='<path>',
            help='Write the file here (replaced whole, or not at all); '
                 'default: standard output.')
        return parser

    def take_action(self, parsed_args):
        given = [consumer_uuid(value, '--consumer')
                 for value in parsed_args.consumer]
        http = self.prepare(parsed_args)
        found = []
        if parsed_args.resource_provider or not given:
            read = self.each_provider(
                http, lambda uuid: providers.provider_allocations(http, uuid),
                self.select_providers(http, parsed_args))
            self.require_complete('save file', 'resource provider')
            for _provider, allocations in read:
                found.extend(allocations)
        wanted = sorted(set(given + found))
        records = dict(self.each(
            http, lambda consumer: read_consumer(http, consumer), wanted,
            'consumer'))
        self.require_complete('save file', 'consumer')
        # save and restore only: the file format (see
        # osc_placement.resources).
        from osc_placement.model import savefile
        microversion = version.get_version(self)
        text = savefile.dumps(records, microversion, savefile.now_text())
        if not parsed_args.file:
            self.app.stdout.write(text)
            return 0
        savefile.write(parsed_args.file, text)
        rps = set(rp for rec in records.values()
                  for rp in rec['allocations'])
        self.app.stdout.write(
            'Saved the allocations of %s on %s to %s (read at '
            '--os-placement-api-version %s).\n' % (
                counted(len(records), 'consumer'),
                counted(len(rps), 'resource provider'),
                printable(parsed_args.file), microversion))
        return 0


class RestoreAllocation(batch.Batched, common.Lister):
    """Put saved allocations back, in one request

    Every consumer of the file whose allocations (or project and user)
    differ from the saved ones gets the saved ones again, in one ``POST
    /allocations``: all of them, or none. A consumer that holds nothing
    now is written as it was saved. A consumer that changed since the save
    (its generation is not the saved one; for a file saved before
    ``--os-placement-api-version 1.28``, which has no generations: it holds
    something other than the file says) is refused, and nothing is
    written; ``--force`` writes the saved allocations over its current
    ones. Every write carries the generations read just before it, so a
    change by another writer in between is refused too (from 1.28).

    Prints, per consumer and provider, what changes: ``added``,
    ``removed`` or ``changed``, with the resources before and after.
    ``--dry-run`` prints the same and writes nothing.

    A file saved at another microversion than the restore's is restored
    as the lower of the two allows, and the command says so: below 1.38
    no consumer type is written; at 1.38 and later, when a consumer has
    no type that can be written (none in the file and none now, or
    ``unknown``), the request is sent at 1.37, which keeps the type of
    every consumer as it is.
    """

    min_version = MULTIPLE_CONSUMERS
    in_reference = False

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            'path', metavar='<path>',
            help='A file written by ``resource provider allocation save``')
        parser.add_argument(
            '--dry-run', action='store_true',
            help='Print what would change; write nothing (exit 0).')
        parser.add_argument(
            '--force', action='store_true',
            help='Also restore the consumers that changed since the save, '
                 'over their current allocations (written with their '
                 'current generation).')
        return parser

    def _saved_notes(self, saved):
        """Say what a file of another microversion cannot give back."""
        live = version.get_version(self)
        file_at = saved.microversion
        if not version.compare(file_at, version.ge(CONSUMER_GENERATION),
                               exc=False):
            self.log.warning(
                'The file was saved at --os-placement-api-version %s, '
                'without consumer generations: a consumer counts as changed '
                'since the save when it holds other allocations than the '
                'file says.', file_at)
        elif not self.compare_version(version.ge(CONSUMER_GENERATION)):
            self.log.warning(
                'At --os-placement-api-version %s no consumer generation '
                'is read or written (they need %s): a consumer counts as '
                'changed when it holds other allocations than the file '
                'says, and a change by another writer during the restore '
                'is not detected.', live, CONSUMER_GENERATION)
        if version.compare(file_at, version.ge(CONSUMER_TYPE), exc=False) \
                and not self.compare_version(version.ge(CONSUMER_TYPE)):
            self.log.warning(
                'Consumer types are not written below '
                '--os-placement-api-version %s: the types in the file are '
                'not restored.', CONSUMER_TYPE)

    def _changed(self, saved_at_generations, saved, now):
        """Why a consumer counts as changed since the save, or None."""
        if not consumers.exists(now):
            return None
        by_generation = saved_at_generations and self.compare_version(
            version.ge(CONSUMER_GENERATION))
        if by_generation:
            was = saved.get(consumers.GENERATION)
            if now.get(consumers.GENERATION) == was:
                return None
            return 'generation %s in the file, %s now' % (
                'none' if was is None else was, now[consumers.GENERATION])
        if consumers.same(saved, now):
            return None
        return 'it holds other allocations than the file says'

    def take_action(self, parsed_args):
        from osc_placement.model import savefile
        http = self.prepare(parsed_args)
        saved = savefile.read_saved(parsed_args.path)
        self._saved_notes(saved)
        read = dict(self.each(
            http, lambda consumer: read_consumer(http, consumer),
            list(saved.consumers), 'consumer'))
        self.require_complete('rows', 'consumer')
        with_generations = version.compare(
            saved.microversion, version.ge(CONSUMER_GENERATION), exc=False)
        records, refused, before = {}, [], {}
        for consumer, entry in saved.consumers.items():
            now = read[consumer]
            rec = dict(entry)
            if not consumers.typed(rec) and consumers.typed(now):
                rec[consumers.TYPE] = now[consumers.TYPE]
            if consumers.same(entry, now) and (
                    rec.get(consumers.TYPE) == now.get(consumers.TYPE)
                    or not self.compare_version(version.ge(CONSUMER_TYPE))):
                continue
            why = self._changed(with_generations, entry, now)
            if why:
                refused.append((consumer, why, now))
            rec[consumers.GENERATION] = now.get(consumers.GENERATION)
            records[consumer] = rec
            before[consumer] = now
        rows = change_rows(before, records)
        if not records:
            self.log.warning('Nothing to restore: every consumer of the '
                             'file (%d) holds what it says.',
                             len(saved.consumers))
            return CHANGE_FIELDS, []
        for consumer, why, now in refused:
            if parsed_args.force:
                self.log.warning(
                    'Consumer %s changed since the save (%s): its current '
                    'allocations are replaced by the saved ones (--force).',
                    consumer, why)
                continue
            (self.log.warning if parsed_args.dry_run else self.log.error)(
                'Consumer %s changed since the save (%s): not restored; '
                '--force writes the saved allocations over its current '
                'ones%s.', consumer, why,
                '' if now.get(consumers.GENERATION) is None else
                ' (with its generation %s)' % now[consumers.GENERATION])
        if refused and not parsed_args.force and not parsed_args.dry_run:
            raise exceptions.CommandError(
                'Refused %d of %s to restore, changed since the save; '
                'nothing was written.' % (len(refused), counted(
                    len(records), 'consumer')))
        if parsed_args.dry_run:
            self.log.warning(
                'Dry run: %s would be written in one request%s; nothing '
                'was sent.', counted(len(records), 'consumer'),
                ' (%d refused without --force)' % len(refused)
                if refused and not parsed_args.force else '')
            return CHANGE_FIELDS, rows
        write_consumers(self, http, records)
        return CHANGE_FIELDS, rows
