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
change and checks it as Placement would (:func:`problems`), and both runs
build the body with the same function (:func:`reshape_body`).
"""

import json

from osc_placement.api import allocations as consumer_api
from osc_placement.api import paths
from osc_placement.cli import batch
from osc_placement.cli import common
from osc_placement import microversions
from osc_placement.model import amounts
from osc_placement.model import consumers
from osc_placement.model import inventories
from osc_placement.model.text import printable
from osc_placement import version

RESHAPER_URL = paths.url('reshaper')

FIELDS = ('resource_provider', 'resource_class', 'consumer_uuid', 'before',
          'after')


def full_record(record):
    """An inventory record with Placement's defaults for what it omits."""
    return {field.name: record.get(field.name, field.default)
            for field in inventories.FIELDS_SPEC}


def _capacity(record):
    return amounts.capacity(full_record(record))


def _used_of(used, record):
    """``used/capacity`` of a class (the one text form), '' if absent."""
    if record is None:
        return ''
    return amounts.used_of_capacity(
        {'': {'used': used, 'capacity': _capacity(record)}}, sep='')[0]


class Plan(object):
    """What a reshape file changes, from the state read before it.

    ``inventories``: {rp: {class: record}} now, of every provider
    concerned; ``generations``: {rp: generation now}; ``usages``: {rp:
    {class: used}} now; ``now``: {consumer: record} now.
    """

    def __init__(self, data, inventories, generations, usages, now):
        self.data = data
        self.file_inventories = {rp: entry['inventories'] for rp, entry
                                 in data['inventories'].items()}
        self.inventories = inventories
        self.generations = generations
        self.usages = usages
        self.now = now
        self.new_inventories = dict(inventories, **self.file_inventories)
        old = {}
        new = {}
        for consumer, entry in data['allocations'].items():
            old = consumers.added(old, consumers.held(now[consumer]))
            new = consumers.added(new, consumers.held(entry))
        self.old_amounts, self.new_amounts = old, new
        self.used_after = {}
        for rp in inventories:
            classes = set(usages[rp]) | set(old.get(rp, {})) | set(
                new.get(rp, {}))
            self.used_after[rp] = {
                rc: usages[rp].get(rc, 0) - old.get(rp, {}).get(rc, 0)
                + new.get(rp, {}).get(rc, 0) for rc in classes}

    def rows(self):
        """Inventory rows (used/capacity), then allocation rows."""
        rows = []
        for rp, records in self.file_inventories.items():
            before = self.inventories[rp]
            for rc in list(before) + [rc for rc in records
                                      if rc not in before]:
                old = _used_of(self.usages[rp].get(rc, 0), before.get(rc))
                new = _used_of(self.used_after[rp].get(rc, 0),
                               records.get(rc))
                if old != new or (rc in records and full_record(
                        records[rc]) != full_record(before.get(rc, {}))):
                    rows.append((rp, rc, '', old, new))
        for consumer, entry in self.data['allocations'].items():
            old, new = consumers.held(self.now[consumer]), \
                consumers.held(entry)
            for rp in list(old) + [rp for rp in new if rp not in old]:
                held_old, held_new = old.get(rp, {}), new.get(rp, {})
                for rc in list(held_old) + [rc for rc in held_new
                                            if rc not in held_old]:
                    if held_old.get(rc) != held_new.get(rc):
                        rows.append((rp, rc, consumer,
                                     held_old.get(rc, ''),
                                     held_new.get(rc, '')))
        return rows

    def problems(self):
        """Why Placement would refuse the reshape: one line each.

        Its rules, in the order it meets them: the providers' generations,
        the inventory records (the rules of ``inventory set``'s dry run),
        the consumers' generations, then each allocation against the new
        inventory (the class is there; min_unit, max_unit, step_size; the
        capacity, unless the provider was already over it and the reshape
        makes that no worse), and no class removed that stays allocated.
        """
        found = []
        for rp, entry in self.data['inventories'].items():
            if entry['resource_provider_generation'] != self.generations[rp]:
                found.append(
                    'resource provider %s: generation %s in the file, %s now'
                    % (rp, entry['resource_provider_generation'],
                       self.generations[rp]))
            for rc, record in entry['inventories'].items():
                rules = inventories.refusals(record, True)
                if rules:
                    found.append('resource provider %s: inventory of %s: %s'
                                 % (rp, printable(rc), '; '.join(rules)))
        for consumer, entry in self.data['allocations'].items():
            now = self.now[consumer].get(consumers.GENERATION)
            if entry['consumer_generation'] != now:
                found.append('consumer %s: generation %s in the file, %s now'
                             % (consumer, _shown(entry['consumer_generation']),
                                _shown(now)))
        for consumer, entry in self.data['allocations'].items():
            for rp, resources in consumers.held(entry).items():
                for rc, amount in resources.items():
                    record = self.new_inventories[rp].get(rc)
                    if record is None:
                        found.append(
                            'consumer %s: resource provider %s has no %s '
                            'inventory' % (consumer, rp, printable(rc)))
                        continue
                    full = full_record(record)
                    if not (full['min_unit'] <= amount <= full['max_unit']
                            and amount % full['step_size'] == 0):
                        found.append(
                            'consumer %s: %s=%d on resource provider %s is '
                            'outside min_unit %d, max_unit %d, step_size %d'
                            % (consumer, printable(rc), amount, rp,
                               full['min_unit'], full['max_unit'],
                               full['step_size']))
        for rp, resources in self.new_amounts.items():
            for rc in resources:
                record = self.new_inventories[rp].get(rc)
                if record is None:
                    continue
                used = self.used_after[rp][rc]
                if used > _capacity(record) and \
                        used > self.usages[rp].get(rc, 0):
                    found.append(
                        'resource provider %s: %s would be used %d of a '
                        'capacity of %d' % (rp, printable(rc), used,
                                            _capacity(record)))
        for rp, records in self.file_inventories.items():
            for rc in self.inventories[rp]:
                used = self.used_after[rp].get(rc, 0)
                if rc not in records and used > 0:
                    found.append(
                        'resource provider %s: %s leaves the inventory but '
                        '%d stay allocated (inventory in use)'
                        % (rp, printable(rc), used))
        return found

    def warnings(self):
        """Capacities lowered below what stays in use: Placement accepts.

        As ``inventory set`` warns (its rule D19): new allocations of
        that class then fail.
        """
        found = []
        for rp, records in self.file_inventories.items():
            for rc, record in records.items():
                used = self.used_after[rp].get(rc, 0)
                if rc not in self.new_amounts.get(rp, {}) and \
                        used > _capacity(record):
                    found.append(
                        'resource provider %s: %s stays used %d, above its '
                        'new capacity %d' % (rp, printable(rc), used,
                                             _capacity(record)))
        return found


def _shown(generation):
    return 'null' if generation is None else generation


def reshape_body(cmd, data, now):
    """(the body of ``POST /reshaper``, the microversion to send it at).

    The file's inventories as they are; its allocations as ``POST
    /allocations`` writes them at the live version (a consumer without a
    type in the file keeps the one it has now).
    """
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
    exit 1; nothing is written.
    """

    min_version = microversions.RESHAPER
    in_reference = False

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            'path', metavar='<path>',
            help='A JSON file in the shape of the POST /reshaper body')
        parser.add_argument(
            '--dry-run', action='store_true',
            help='Check and print the change; write nothing.')
        return parser

    def run(self, parsed_args):
        self._refused = 0
        result = super().run(parsed_args)
        if self._refused:
            self.log.error('Dry run: Placement would refuse this reshape '
                           '(%d problems); nothing was sent.', self._refused)
            return 1
        return result

    def _read(self, http, data):
        """The Plan of the file, from one read of each provider, consumer."""
        rps = list(dict.fromkeys(list(data['inventories']) + sorted(
            set(rp for entry in data['allocations'].values()
                for rp in entry['allocations']))))

        def read_provider(rp):
            response = http.request('GET', paths.url(
                'resource_providers', rp, 'inventories'))
            return (response.field('resource_provider_generation'),
                    response.field('inventories', dict),
                    http.request('GET', paths.url(
                        'resource_providers', rp, 'usages')).field(
                            'usages', dict))

        state = dict(self.each(http, read_provider, rps,
                               'resource provider'))
        now = dict(self.each(
            http, lambda consumer: consumer_api.read_consumer(http, consumer),
            list(data['allocations']), 'consumer'))
        self.require_complete('rows', 'resource provider', 'consumer')
        return Plan(data, {rp: state[rp][1] for rp in rps},
                    {rp: state[rp][0] for rp in rps},
                    {rp: state[rp][2] for rp in rps}, now)

    def take_action(self, parsed_args):
        # The file format, loaded by this command's runs only (see
        # osc_placement.resources).
        from osc_placement.model import savefile
        http = self.prepare(parsed_args)
        data = savefile.read_reshape(parsed_args.path)
        plan = self._read(http, data)
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
            self._refused = len(problems)
            if not problems:
                self.log.warning('Dry run: no rule of Placement refuses '
                                 'this reshape; nothing was sent.')
            return FIELDS, plan.rows()
        consumer_api.post(
            http, RESHAPER_URL, body, at, body['allocations'],
            {rp: entry['resource_provider_generation']
             for rp, entry in data['inventories'].items()})
        return FIELDS, plan.rows()
