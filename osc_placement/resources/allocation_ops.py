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

"""Allocation commands over several consumers: move, save, restore.

``move`` and ``restore`` write several consumers in one ``POST
/allocations`` (``api.allocations.write_consumers``, which also says what
changed when Placement refuses the write with 409); what they write is
decided by ``model.consumers`` (``moved()``, ``restoring()``). ``save``
and ``restore`` read and write the save file of ``model.savefile``.
"""

from osc_lib import exceptions

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


def consumer_uuid(value, what):
    """A consumer UUID as Placement writes it, or one line naming it."""
    uuid = scalars.canonical_uuid(value)
    if uuid is None:
        raise exceptions.CommandError(
            '%s %r is not a consumer UUID.' % (what, printable(value)))
    return uuid


def counted(number, thing):
    """'1 consumer', '2 consumers'."""
    return '%d %s%s' % (number, thing, '' if number == 1 else 's')


class MoveAllocation(common.Lister):
    """Move allocations from one consumer to another, in one request

    As Nova's own move (``move_allocations``, used to revert a resize or
    a migration), the target's allocations become the source's and the
    source's are removed, in one ``POST /allocations``: both change, or
    neither does. Without ``--resource-provider``, the target ends with
    exactly what the source held: it lets go of every provider the source
    does not hold. With ``--resource-provider``, only the source's
    allocations on those providers move; there they replace the target's,
    which keeps its allocations on the other providers, and the source
    keeps its own elsewhere. The command says on stderr what the target
    held that was replaced (as ``rp=<uuid>,<class>=<amount>``, what
    ``allocation set --allocation`` takes). ``--sum`` adds the source's
    amounts to the target's instead, per provider and class.

    The clean-up after a failed migration, whose allocations (held by the
    migration's UUID) go back to the server, which lets go of the
    destination::

        openstack resource provider allocation move <migration> <server>

    The target keeps its project and user, or takes the source's when it
    holds nothing yet (``--project-id`` and ``--user-id`` set them); each
    consumer keeps its type (from ``--os-placement-api-version 1.38``),
    unless ``--consumer-type`` sets the target's. A write at 1.38 carries
    a type for every consumer: with ``--consumer-type``, a source written
    before 1.38 (type ``unknown``) must be left with nothing (Placement
    then deletes it), or the command refuses and writes nothing.
    From 1.28 the write carries the generations of the two consumers read
    just before: if another writer changed either in between, Placement
    refuses it (HTTP 409), nothing is written, and the command names the
    consumer that changed. Below 1.28 nothing protects the move against a
    concurrent change.

    Prints the target's allocations as ``allocation show`` does.
    """

    min_version = microversions.MULTIPLE_CONSUMERS
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
                    'name); they replace the target\'s there. May be '
                    'repeated. Without it, all of them move and replace all '
                    'of the target\'s.')
        parser.add_argument(
            '--sum', action='store_true',
            help='Add the source\'s amounts to the target\'s, per provider '
                 'and class, instead of replacing them.')
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
            since=microversions.CONSUMER_TYPES,
            help='Type of the target, e.g. INSTANCE (default: its own, or '
                 'the source\'s if it holds nothing). A source written '
                 'before 1.38 (type unknown) must be left with nothing: '
                 'the request needs a type for it too.')
        return parser

    def take_action(self, parsed_args):
        # Runs only: consumer reads, writes (see osc_placement.resources).
        from osc_placement.api import allocations as consumer_api
        source = consumer_uuid(parsed_args.source, 'Source consumer')
        target = consumer_uuid(parsed_args.target, 'Target consumer')
        if source == target:
            raise exceptions.CommandError(
                'The source and the target are the same consumer %s.'
                % source)
        http = self.prepare(parsed_args)
        rps = list(dict.fromkeys(providers.find_provider(http, value)
                                 for value in parsed_args.resource_provider))
        source_rec = consumer_api.read_consumer(http, source)
        target_rec = consumer_api.read_consumer(http, target)
        held = consumers.held(source_rec)
        if not held:
            raise exceptions.CommandError(
                'Consumer %s holds no allocations: nothing to move.'
                % source)
        missing = [rp for rp in rps if rp not in held]
        if missing:
            raise exceptions.CommandError(
                'Consumer %s holds nothing on resource provider %s: '
                'nothing to move from it.' % (source, ', '.join(missing)))
        source_rec, target_rec, replaced = consumers.moved(
            source_rec, target_rec, rps, {
                'project_id': parsed_args.project_id,
                'user_id': parsed_args.user_id,
                consumers.TYPE: parsed_args.consumer_type},
            summed=parsed_args.sum)
        if parsed_args.consumer_type and not consumers.typed(source_rec):
            # Sent at 1.37 instead, the request would drop the type asked.
            raise exceptions.CommandError(
                'Consumer %s keeps allocations after the move and has no '
                'type that can be written (%s): --consumer-type %s needs a '
                'type for it in the same request; move all of its '
                'allocations, or leave out --consumer-type, which writes '
                'no type.' % (
                    source, source_rec.get(consumers.TYPE) or 'none',
                    printable(parsed_args.consumer_type)))
        consumer_api.write_consumers(
            http, {source: source_rec, target: target_rec},
            version.get_version(self), self.log)
        if replaced:
            # Said once the write is done: what was there is gone, and
            # this line is all that is left of it.
            self.log.warning(
                'Consumer %s held %s before the move: replaced by the '
                'source\'s (--sum adds to them instead).', target,
                consumers.allocations_text(replaced))
        fields = common.columns(self, consumers.CONSUMER_FIELDS)
        return fields, consumers.shown(
            consumer_api.read_allocations(http, target), fields)


class SaveAllocation(filters.ManyProviders, common.Command):
    """Save the allocations of consumers to a file, to restore them later

    Every consumer with allocations on the ``--resource-provider`` ones,
    and the ``--consumer`` ones, is read (without either option: every
    consumer of every provider), with all its allocations, its project
    and user, its generation (from ``--os-placement-api-version 1.28``)
    and its type (from 1.38). The file, JSON, also records the
    microversion they were read at and when (and, with
    ``--resource-provider``, the providers given). ``resource provider
    allocation restore`` puts them back.

    Save before any manual edit of allocations::

        openstack resource provider allocation save \\
            --resource-provider compute-1 --file before-edit.json

    The providers and consumers are read several at a time (see
    ``--os-placement-parallel``). If one cannot be read, no file is
    written.
    """

    min_version = microversions.DICT_ALLOCATIONS
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
            help='Write the file here: a new file, created 0600 (it holds '
                 'project and user IDs), or a regular file replaced whole or '
                 'not at all; a symlink or a device is refused. Default, or '
                 '"-": standard output.')
        return parser

    def take_action(self, parsed_args):
        # Runs only: consumer reads, writes (see osc_placement.resources).
        from osc_placement.api import allocations as consumer_api
        given = [consumer_uuid(value, '--consumer')
                 for value in parsed_args.consumer]
        http = self.prepare(parsed_args)
        found = []
        # The providers given: restore says which consumers on them,
        # not saved, it leaves alone.
        saved_rps = []
        if parsed_args.resource_provider or not given:
            read = self.each_provider(
                http, lambda uuid: providers.provider_allocations(http, uuid),
                self.select_providers(http, parsed_args))
            self.require_complete(batch_names.SAVE_FILE, batch_names.PROVIDERS)
            for provider, allocations in read:
                found.extend(allocations)
                if parsed_args.resource_provider:
                    saved_rps.append(provider['uuid'])
        wanted = sorted(set(given + found))
        records = dict(self.each(
            http, lambda consumer: consumer_api.read_consumer(http, consumer),
            wanted, batch_names.CONSUMERS))
        self.require_complete(batch_names.SAVE_FILE, batch_names.CONSUMERS)
        for consumer in given:
            if not consumers.exists(records[consumer]):
                raise exceptions.CommandError(
                    '--consumer %s holds no allocations (a mistyped UUID?): '
                    'nothing was saved.' % consumer)
        # One found on a provider that holds nothing by the time it is
        # read (its server deleted meanwhile) is saved as such: restore
        # then leaves it alone, or removes what it holds by then.
        empty = [consumer for consumer, rec in records.items()
                 if not consumers.exists(rec)]
        for consumer in empty:
            records[consumer] = {'allocations': {}}
        # save and restore only: the file format (see
        # osc_placement.resources).
        from osc_placement.model import savefile
        microversion = version.get_version(self)
        text = savefile.dumps(records, microversion, savefile.now_text(),
                              providers=saved_rps)
        if parsed_args.file in (None, '-'):
            self.app.stdout.write(text)
            return 0
        savefile.write(parsed_args.file, text, standard_output=True)
        rps = set(rp for rec in records.values()
                  for rp in rec['allocations'])
        self.app.stdout.write(
            'Saved the allocations of %s on %s to %s (read at '
            '--os-placement-api-version %s).\n' % (
                counted(len(records), 'consumer'),
                counted(len(rps), 'resource provider'),
                printable(parsed_args.file), microversion))
        if empty:
            self.app.stdout.write(
                '%d of them held nothing when read (deleted meanwhile?): '
                'saved as holding nothing.\n' % len(empty))
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
    change by another writer in between is refused too (from 1.28). The
    undo file of ``resource provider audit --fix`` also says what the fix
    wrote: a consumer that holds just that has changed by the fix alone
    and is restored; only one changed after the fix is refused. A
    consumer the file does not hold is never changed: of a save of
    providers (``--resource-provider``), those now on them are named.

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

    min_version = microversions.MULTIPLE_CONSUMERS
    in_reference = False

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parsers.add_file(
            parser, 'A file written by ``resource provider allocation save``')
        parser.add_argument(
            '--dry-run', action='store_true',
            help='Print what would change and check it as the real run '
                 'does (exit 1 where it would refuse); write nothing.')
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
        if not version.compare(file_at, version.ge(
                microversions.CONSUMER_GENERATION), exc=False):
            self.log.warning(
                'The file was saved at --os-placement-api-version %s, '
                'without consumer generations: a consumer counts as changed '
                'since the save when it holds other allocations than the '
                'file says.', file_at)
        elif not self.compare_version(
                version.ge(microversions.CONSUMER_GENERATION)):
            self.log.warning(
                'At --os-placement-api-version %s no consumer generation '
                'is read or written (they need %s): a consumer counts as '
                'changed when it holds other allocations than the file '
                'says, and a change by another writer during the restore '
                'is not detected.', live, microversions.CONSUMER_GENERATION)
        if version.compare(file_at, version.ge(microversions.CONSUMER_TYPES),
                           exc=False) and not self._types_written():
            self.log.warning(
                'Consumer types are not written below '
                '--os-placement-api-version %s: the types in the file are '
                'not restored.', microversions.CONSUMER_TYPES)

    def _types_written(self):
        """Whether the live microversion writes consumer types."""
        return self.compare_version(version.ge(microversions.CONSUMER_TYPES))

    def run(self, parsed_args):
        self._refusal = None
        result = super().run(parsed_args)
        if self._refusal:
            # The dry run's rows are printed; its refusal is the real
            # run's last line, and its exit code.
            self.log.error('%s', self._refusal)
            return 1
        return result

    def _problems(self, http, records, read):
        """Why Placement would refuse writing ``records``: one line each.

        The allocation checks of ``reshape --dry-run``
        (``model.reshape.Plan.allocation_problems``): the providers exist,
        each amount fits their inventory and capacity.
        """
        # Runs only: consumer reads, writes (see osc_placement.resources).
        from osc_placement.api import allocations as consumer_api
        # Runs only: the reshape plan (see osc_placement.resources).
        from osc_placement.model import reshape
        rps = sorted(set(rp for rec in records.values()
                         for rp in consumers.held(rec)))
        states = dict(self.each(
            http, lambda rp: consumer_api.read_provider_state(http, rp), rps,
            batch_names.PROVIDERS))
        self.require_complete(batch_names.ROWS, batch_names.PROVIDERS)
        return reshape.Plan.of_states(
            {'inventories': {}, 'allocations': records}, states,
            read).allocation_problems()

    def _refuse(self, parsed_args, refused, problems, records):
        """Say each refusal; the line that ends the run, or None.

        The dry run and the real run say the same, and both exit 1.
        """
        for consumer, why, now in refused:
            if parsed_args.force:
                self.log.warning(
                    'Consumer %s changed since the save (%s): its current '
                    'allocations are replaced by the saved ones (--force).',
                    consumer, why)
                continue
            self.log.error(
                'Consumer %s changed since the save (%s): not restored; '
                '--force writes the saved allocations over its current '
                'ones%s.', consumer, why,
                '' if now.get(consumers.GENERATION) is None else
                ' (with its generation %s)' % now[consumers.GENERATION])
        for line in problems:
            self.log.error('Placement would refuse: %s.', line)
        parts = []
        if refused and not parsed_args.force:
            parts.append('Refused %d of %s to restore, changed since the '
                         'save' % (len(refused), counted(len(records),
                                                         'consumer')))
        if problems:
            parts.append('Placement would refuse this restore (%s)'
                         % counted(len(problems), 'problem'))
        return '; '.join(parts) + '; nothing was written.' if parts else None

    def _left_alone(self, http, saved):
        """Say which consumers now on the providers saved it leaves alone.

        A save of providers (``--resource-provider``) names them: a
        consumer on them that the file does not hold (new since the save)
        is not restored, nor removed. A provider gone holds none.
        """
        def on(rp):
            try:
                return providers.provider_allocations(http, rp)
            except exceptions.NotFound:
                return {}
        now = set()
        for _rp, held in self.each(http, on, saved.providers,
                                   batch_names.PROVIDERS):
            now.update(held)
        self.require_complete(batch_names.ROWS, batch_names.PROVIDERS)
        others = sorted(now - set(saved.consumers))
        if others:
            self.log.warning(
                'Left alone: %s now on the resource providers saved, not in '
                'the file: %s.', counted(len(others), 'consumer'),
                ', '.join(others))

    def take_action(self, parsed_args):
        # save and restore only: the file format (see
        # osc_placement.resources).
        # Runs only: consumer reads, writes (see osc_placement.resources).
        from osc_placement.api import allocations as consumer_api
        from osc_placement.model import savefile
        path = parsers.file_of(parsed_args)
        http = self.prepare(parsed_args)
        saved = savefile.read_saved(path)
        self._saved_notes(saved)
        read = dict(self.each(
            http, lambda consumer: consumer_api.read_consumer(http, consumer),
            list(saved.consumers), batch_names.CONSUMERS))
        self.require_complete(batch_names.ROWS, batch_names.CONSUMERS)
        self._left_alone(http, saved)
        by_generation = all(
            version.compare(at, version.ge(microversions.CONSUMER_GENERATION),
                            exc=False)
            for at in (saved.microversion, version.get_version(self)))
        records, refused, before = consumers.restoring(
            saved.consumers, read, by_generation, self._types_written(),
            saved.written)
        rows = consumers.change_rows(before, records)
        if not saved.consumers:
            self.log.warning('Nothing to restore: the file has no consumer.')
            return consumers.CHANGE_FIELDS, []
        if not records:
            self.log.warning('Nothing to restore: every consumer of the '
                             'file (%d) holds what it says.',
                             len(saved.consumers))
            return consumers.CHANGE_FIELDS, []
        refusal = self._refuse(parsed_args, refused,
                               self._problems(http, records, read), records)
        if refusal and not parsed_args.dry_run:
            raise exceptions.CommandError(refusal)
        if parsed_args.dry_run:
            self._refusal = refusal
            if not refusal:
                self.log.warning(
                    'Dry run: %s would be written in one request; nothing '
                    'was sent.', counted(len(records), 'consumer'))
            return consumers.CHANGE_FIELDS, rows
        consumer_api.write_consumers(http, records,
                                     version.get_version(self), self.log,
                                     each=self.each_whole(http))
        return consumers.CHANGE_FIELDS, rows
