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

"""``resource provider audit``: Nova's servers against Placement.

The steps are ``cli/audit.py``'s, the rules ``model/audit/``'s; this
module parses, calls them and returns the rows.
"""

import argparse
import os

from osc_lib import exceptions

from osc_placement.cli import batch
from osc_placement.cli import common
from osc_placement.cli import parsers
from osc_placement import errors
from osc_placement.http import inflight
from osc_placement import microversions
from osc_placement.model.text import printable

# nova-manage placement audit's exit codes.
FOUND = 3
FIXED = 4


# The longest --grace: a hundred years, in minutes.
MAX_GRACE = 100 * 365 * 24 * 60


def _grace(text):
    minutes = parsers.integer(text)
    if minutes < 0:
        raise argparse.ArgumentTypeError('%s is below 0' % text)
    if minutes > MAX_GRACE:
        raise argparse.ArgumentTypeError(
            '%s is above %d (a hundred years)' % (text, MAX_GRACE))
    return minutes


# argparse names the type in its error, as for every integer option.
_grace.__name__ = 'int'


class AuditResourceProvider(batch.Batched, common.Lister):
    """Find where Nova and Placement disagree, and fix what is safe to fix

    Reads the servers (deleted ones too), migrations, hypervisors and
    host aggregates of the compute API, and the allocations of every
    provider of a compute node's tree and every sharing provider (or of
    the providers given), then prints one row per finding:

    - ``migration``: a migration that has ended still holds allocations
      (fix: remove them);
    - ``evacuated``: a server holds allocations on a second compute node,
      with no migration in progress (fix: remove that part);
    - ``wrong-host``: a server's allocations are not on its hypervisor
      (no fix);
    - ``orphan``: a consumer that is no server nor migration, or whose
      server is deleted (fix: remove its allocations);
    - ``missing``: an active server without allocations (fix: allocate
      what its flavor asks, as ``nova-manage placement heal_allocations``;
      none for flavors that need nested providers);
    - ``owner``: allocations held in another project or user than the
      server's (fix: set them);
    - ``flavor``: allocations that differ from the server's flavor (no
      fix);
    - ``aggregate``: a compute provider missing from its host's Nova
      aggregate (fix: add it), or in a Nova aggregate without its host
      (fix: remove it);
    - ``provider``: a compute provider no hypervisor has, a hypervisor
      without a provider (no fix).

    One consumer is one finding, of the first kind of that list that
    fits. A server with a task state or building, and a migration that
    ended within ``--grace`` minutes, are shown with the fix ``none``.
    While a cell is down, a consumer no server lists is never called an
    orphan, and the kinds that need the hypervisors say they were not
    checked.

    ``--fix`` first writes every consumer it changes to ``--undo-file``
    (as ``resource provider allocation save`` does: ``allocation
    restore`` gives them back; the aggregates changed, with the commands
    that put them back, in ``<undo-file>.aggregates``), then every
    allocation change in one ``POST /allocations`` with the consumers'
    generations (all or nothing: a consumer changed meanwhile is named
    and nothing is written), then the aggregates, each with its
    provider's generation. ``--fix --dry-run`` prints the same rows and
    writes nothing.
    """

    min_version = microversions.CONSUMER_GENERATION
    in_reference = False
    exit_codes = (
        "Exit codes, as nova-manage's: 0 nothing found, 3 found, 4 found "
        'and fixed; 1 for an error, or when a kind could not be checked '
        '(its "Not checked:" line; the rows of the others are printed); 2 '
        'for a usage error; 130 (143) after Ctrl-C (SIGTERM), with one line '
        'saying what was written.')

    def get_parser(self, prog_name):
        # The audit's parser only: its kinds (see osc_placement.resources).
        from osc_placement.model import audit as audit_model
        kinds = audit_model.findings.KINDS
        parser = super().get_parser(prog_name)
        parser.add_argument(
            'providers', metavar='<resource_provider>', nargs='*',
            type=parsers.non_empty,
            help='Audit only the allocations on these providers (UUID or '
                 'name).')
        parser.add_argument(
            '--aggregate', metavar='<aggregate_uuid>', type=parsers.uuid,
            help='Audit only the providers in this Placement aggregate.')
        parser.add_argument(
            '--check', metavar='<kind>', action='append',
            choices=kinds, default=[],
            help='Look for this kind of finding only (%s). May be '
                 'repeated. Default: all.' % ', '.join(kinds))
        parser.add_argument(
            '--grace', metavar='<minutes>', type=_grace, default=10,
            help='A migration updated less than this many minutes ago is '
                 'not fixed (default: 10).')
        parser.add_argument(
            '--fix', action='store_true',
            help='Fix what can be fixed (see the fix column).')
        parser.add_argument(
            '--dry-run', action='store_true',
            help='With --fix: print what it would do and refuse what it '
                 'would refuse; write nothing (exit 3 when something is '
                 'found, 0 when nothing is).')
        parser.add_argument(
            '--undo-file', metavar='<path>',
            help='With --fix (required, with --dry-run too): where to '
                 'save, before any write, the consumers it changes, in the '
                 'format of "resource provider allocation save", which a '
                 'plain "allocation restore" takes back; the aggregates '
                 'changed go to <path>.aggregates. A new file, created '
                 '0600: an existing <path> or <path>.aggregates is '
                 'refused, never replaced; "-" is refused (standard output '
                 'carries the rows).')
        return parser

    def usage_errors(self, parsed_args):
        found = []
        if not parsed_args.fix:
            found.extend('%s goes with --fix' % option for option, given in (
                ('--dry-run', parsed_args.dry_run),
                ('--undo-file', parsed_args.undo_file is not None)) if given)
        elif not parsed_args.undo_file:
            found.append('--fix needs --undo-file <path>: nothing is written '
                         'before what it changes is saved')
        elif parsed_args.undo_file == '-':
            found.append('--undo-file needs a path: standard output carries '
                         'the rows')
        return found

    def run(self, parsed_args):
        self._exit = 0
        # A kind left unchecked because Nova could not list the
        # hypervisors: the rows are printed, the exit is an error's.
        self._unread = False
        result = super().run(parsed_args) or self._exit
        if self._unread and result in (0, FOUND, FIXED):
            return 1
        return result

    def take_action(self, parsed_args):
        if parsed_args.fix:
            self._no_undo_file_yet(parsed_args.undo_file)
        try:
            with inflight.sigterm_raises():
                return self._audit(parsed_args)
        except (KeyboardInterrupt, inflight.Terminated) as exc:
            # Ctrl-C or SIGTERM in a read of its own (the batches say
            # theirs; the fix notes signals and says what it wrote):
            # before any write.
            raise errors.Interrupted(
                'Interrupted: the audit was reading; nothing was written, '
                'no rows printed.', inflight.signal_of(exc)) from None

    def _audit(self, parsed_args):
        # Runs only: the audit's steps (see osc_placement.resources).
        from osc_placement.cli import audit
        findings = audit.findings
        kinds = [findings.Kind(kind) for kind in parsed_args.check] or \
            list(findings.Kind)
        http = self.prepare(parsed_args)
        cloud, nova = audit.read_cloud(self, http, parsed_args, kinds)
        if cloud.selected and not cloud.allocations:
            self.log.warning('The providers audited hold no allocations: no '
                             'consumer on them was checked.')
        result = audit.judge(cloud, kinds)
        self._unchecked(result.unchecked, nova, kinds, findings)
        found = result.findings
        done = False
        if found and parsed_args.fix:
            found, done = self._fix(audit, http, parsed_args, found, cloud,
                                    kinds, nova)
        if found:
            self._exit = FIXED if done else FOUND
        return findings.FIELDS, findings.rows(found, cloud.name, done=done)

    @staticmethod
    def _no_undo_file_yet(path):
        """Refuse, before any read, an undo file the fix could not write.

        One that would replace another one (its ``.aggregates`` too), or
        in a directory this process cannot write in: the dry run refuses
        it as the fix does.
        """
        # Runs only: the file format (see osc_placement.resources).
        from osc_placement.model import savefile
        for taken in (path, path + '.aggregates'):
            if os.path.lexists(taken):
                raise exceptions.CommandError(
                    '%s exists: an undo file is never replaced; give '
                    '--undo-file a new path (or move the earlier undo '
                    'away).' % printable(taken))
        try:
            savefile.check_writable(path, replace=False)
        except savefile.FileError as exc:
            raise exceptions.CommandError('--undo-file %s' % exc) from None

    def _unchecked(self, unchecked, nova, kinds, findings):
        for kind, (count, reason) in unchecked.items():
            if count is None:
                unread = bool(nova.hypervisors_error) and \
                    kind in findings.NEED_HYPERVISORS
                self._unread = self._unread or unread
                self.log.warning('Not checked: %s: %s%s.', kind.value,
                                 reason, ' (%s)' % nova.hypervisors_error
                                 if unread else '')
            else:
                self.log.warning('Not checked: %s, for %d consumer%s: %s.',
                                 kind.value, count,
                                 '' if count == 1 else 's', reason)
        if len(unchecked) == len(kinds) and all(
                kind in findings.NEED_HYPERVISORS
                for kind in unchecked) and all(
                count is None for count, _ in unchecked.values()):
            raise exceptions.CommandError(
                'Nothing could be checked: the compute API cannot list the '
                'hypervisors.')

    def _fix(self, audit, http, parsed_args, found, cloud, kinds, nova):
        """(the findings, their fixes updated; whether they were written)."""
        findings = audit.findings
        prepared = audit.prepare_fix(self, http, found, cloud, kinds, nova)
        writes, _before, stale, agg_writes = prepared
        stale_now = {id(f): why for f, why in stale}
        found = [f._replace(fix=findings.none(
            '%s (read again)' % stale_now[id(f)]))
            if id(f) in stale_now else f for f in found]
        if parsed_args.dry_run:
            self.log.warning(
                'Dry run: %d consumer%s would be written in one request, '
                'and the aggregates of %d provider%s; nothing was sent.',
                len(writes), '' if len(writes) == 1 else 's',
                len(agg_writes), '' if len(agg_writes) == 1 else 's')
            return found, False
        names = {rp: cloud.name(rp) for rp in agg_writes}
        audit.fix(self, http, prepared, parsed_args.undo_file, names)
        return found, bool(writes or agg_writes)
