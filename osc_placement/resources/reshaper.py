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

"""The reshaper: inventories and allocations changed in one request.

``POST /reshaper`` (1.30) replaces the inventories of some providers and
the allocations of some consumers in one transaction, as a virt driver
does when it moves a resource class from a root provider to a new child.
``resource provider reshape`` sends a file in the reshaper's own shape
(``savefile.read_reshape``); its dry run reads what the reshape would
change and checks it as Placement would (``model.reshape.Plan``), and both
runs build the body with the same function (:func:`reshape_body`).
"""

import json

from osc_lib import exceptions

from osc_placement.api import paths
from osc_placement.api import providers
from osc_placement.cli import batch
from osc_placement.cli import common
from osc_placement.cli import parsers
from osc_placement import errors
from osc_placement import microversions
from osc_placement.model import batch_names
from osc_placement.model import consumers
from osc_placement import version

RESHAPER_URL = paths.url('reshaper')


def reshape_body(cmd, data, now):
    """(the body of ``POST /reshaper``, the microversion to send it at).

    The file's inventories as they are; its allocations as ``POST
    /allocations`` writes them at the live version (a consumer without a
    type in the file keeps the one it has now).
    """
    # Runs only: consumer reads, writes (see osc_placement.resources).
    from osc_placement.api import allocations as consumer_api
    records = {consumer: consumers.with_type_of(entry, now[consumer])
               for consumer, entry in data['allocations'].items()}
    if not cmd.compare_version(version.ge(microversions.CONSUMER_TYPES)) \
            and any(consumers.TYPE in entry
                    for entry in data['allocations'].values()):
        cmd.log.warning(
            'Consumer types are not written below '
            '--os-placement-api-version %s: the types in the file are left '
            'out.', microversions.CONSUMER_TYPES)
    entries, at = consumer_api.prepare_write(
        records, version.get_version(cmd), cmd.log)
    return {'inventories': data['inventories'], 'allocations': entries}, at


def refusal(problems):
    """The last line of a reshape refused before any write."""
    return 'Placement would refuse this reshape (%d problem%s); nothing ' \
        'was sent.' % (problems, '' if problems == 1 else 's')


class ReshapeResourceProvider(batch.Batched, common.Lister):
    """Change inventories and allocations together, in one request

    The file is the body of Placement's ``POST /reshaper``: the new
    inventories of some providers, each with the generation it was read
    at, and the new allocations of some consumers, each with its
    generation (``null`` for a new one), its project and user (and its
    type from ``--os-placement-api-version 1.38``)::

        {"inventories": {"<child rp>": {
             "resource_provider_generation": 0,
             "inventories": {"VGPU": {"total": 4}}}},
         "allocations": {"<server>": {
             "allocations": {"<child rp>": {"resources": {"VGPU": 1}}},
             "project_id": "<project>", "user_id": "<user>",
             "consumer_generation": 1}}}

    Each provider listed gets exactly the inventory given, each consumer
    exactly the allocations given; all of it is written, or none. This is
    what a virt driver does when a resource class moves from a root
    provider to a new child: the root's inventory without the class, the
    child's with it, and the consumers' allocations moved to the child.

    Prints, per provider and class, ``used/capacity`` before and after
    (rows without a consumer), then per consumer the amounts that change.
    ``--dry-run`` reads the same, prints the same and checks the reshape
    as Placement would (generations, the inventory rules of ``inventory
    set``, each allocation within the new inventory and capacity, no class
    removed that stays allocated): each refusal on a line of its own, then
    exit 1; nothing is written. Both runs refuse, before any write, a
    resource class that Placement does not have.

    Placement's policy ``placement:reshaper:reshape`` lets only the
    ``service`` role (the token of Nova's compute service) send it by
    default: an admin token is refused (HTTP 403), which the dry run, a
    read, cannot tell.
    """

    min_version = microversions.RESHAPER
    in_reference = False

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parsers.add_file(
            parser, 'A JSON file in the shape of the POST /reshaper body')
        parser.add_argument(
            '--dry-run', action='store_true',
            help='Check and print the change; write nothing.')
        return parser

    def run(self, parsed_args):
        self._refused = 0
        result = super().run(parsed_args)
        if self._refused:
            # The real run's last line, and its exit code.
            self.log.error('%s', refusal(self._refused))
            return 1
        return result

    def _read(self, http, data):
        """The Plan of the file, from one read of each provider, consumer."""
        # Runs only: consumer reads, writes (see osc_placement.resources).
        from osc_placement.api import allocations as consumer_api
        # Runs only: the reshape plan (see osc_placement.resources).
        from osc_placement.model import reshape
        rps = list(dict.fromkeys(list(data['inventories']) + sorted(
            set(rp for entry in data['allocations'].values()
                for rp in entry['allocations']))))

        states = dict(self.each(
            http, lambda rp: consumer_api.read_provider_state(http, rp), rps,
            batch_names.PROVIDERS))
        now = dict(self.each(
            http, lambda consumer: consumer_api.read_consumer(http, consumer),
            list(data['allocations']), batch_names.CONSUMERS))
        self.require_complete(batch_names.ROWS, batch_names.PROVIDERS,
                              batch_names.CONSUMERS)
        return reshape.Plan.of_states(data, states, now)

    def take_action(self, parsed_args):
        # The file format, loaded by this command's runs only (see
        # osc_placement.resources).
        # Runs only: consumer reads, writes (see osc_placement.resources).
        from osc_placement.api import allocations as consumer_api
        # Runs only: the reshape plan (see osc_placement.resources).
        from osc_placement.model import reshape
        from osc_placement.model import savefile
        path = parsers.file_of(parsed_args)
        http = self.prepare(parsed_args)
        data = savefile.read_reshape(path)
        plan = self._read(http, data)
        # Checked by both runs: an unknown class makes Placement refuse the
        # whole reshape, with words that do not say how to go on.
        unknown = reshape.unknown_classes(
            data, providers.class_names(http))
        for line in unknown:
            self.log.error('Placement would refuse: %s.', line)
        if unknown and not parsed_args.dry_run:
            raise exceptions.CommandError(refusal(len(unknown)))
        body, at = reshape_body(self, data, plan.now)
        self.log.debug('POST %s at %s: %s', RESHAPER_URL,
                       at or version.get_version(self),
                       json.dumps(body, sort_keys=True))
        for line in plan.warnings():
            self.log.warning('Warning: %s.', line)
        if parsed_args.dry_run:
            problems = plan.problems()
            for line in problems:
                self.log.error('Placement would refuse: %s.', line)
            self._refused = len(unknown) + len(problems)
            if not self._refused:
                self.log.warning('Dry run: no rule of Placement refuses '
                                 'this reshape; nothing was sent.')
            return reshape.FIELDS, plan.rows()
        try:
            consumer_api.post(
                http, RESHAPER_URL, body, at, body['allocations'],
                {rp: entry['resource_provider_generation']
                 for rp, entry in data['inventories'].items()},
                each=self.each_whole(http))
        except exceptions.Forbidden:
            raise errors.reshaper_refused() from None
        return reshape.FIELDS, plan.rows()
