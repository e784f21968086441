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

"""The plan's typed inputs (``cloud``) from Placement's records.

Pure. The command reads the records (``api/drain.py``); here they become
:class:`~cloud.Provider` and :class:`~cloud.Consumer` values, and the
drained and target roots are chosen from them.
"""

from osc_placement.model.drain import cloud


def inventory(record):
    """The :class:`~cloud.Inventory` of one inventory record."""
    return cloud.Inventory(
        total=record.get('total', 0), reserved=record.get('reserved', 0),
        min_unit=record.get('min_unit', 1),
        max_unit=record.get('max_unit', cloud.MAX_INT),
        step_size=record.get('step_size', 1),
        allocation_ratio=record.get('allocation_ratio', 1.0))


def root_of(record):
    """The UUID of the root of a provider record's tree."""
    return record.get('root_provider_uuid') or record['uuid']


def provider(record, traits=frozenset(), aggregates=frozenset(),
             state=None):
    """The :class:`~cloud.Provider` of a record of the provider list.

    ``state``: (inventories, usages) as Placement gives them, None for a
    provider whose capacity the plan does not read (a drained one).
    """
    inventories, usages = state or ({}, {})
    return cloud.Provider(
        uuid=record['uuid'], name=record.get('name') or record['uuid'],
        root=root_of(record), parent=record.get('parent_provider_uuid'),
        traits=frozenset(traits), aggregates=frozenset(aggregates),
        inventories={rc: inventory(inv) for rc, inv in inventories.items()},
        used=dict(usages))


def trees(records):
    """{root UUID: [provider UUID of its tree]}, in list order."""
    found = {}
    for record in records:
        found.setdefault(root_of(record), []).append(record['uuid'])
    return found


def roots(records, uuids):
    """The sorted roots of the trees of the providers given."""
    by_uuid = {record['uuid']: record for record in records}
    return sorted({root_of(by_uuid[uuid]) for uuid in uuids
                   if uuid in by_uuid})


def targets(records, compute, disabled, drained, narrowed=None):
    """The roots that may receive, by name: compute roots, not disabled.

    ``compute``, ``disabled``: the UUIDs with ``COMPUTE_NODE`` and with
    ``COMPUTE_STATUS_DISABLED``; ``drained``: the roots emptied;
    ``narrowed``: None, or the roots ``--target`` and
    ``--target-aggregate`` keep.
    """
    found = [record for record in records
             if record.get('parent_provider_uuid') is None
             and record['uuid'] in compute
             and record['uuid'] not in disabled
             and record['uuid'] not in drained
             and (narrowed is None or record['uuid'] in narrowed)]
    return [record['uuid'] for record in sorted(
        found, key=lambda r: (r.get('name') or '', r['uuid']))]


def consumer(uuid, record, **constraints):
    """The :class:`~cloud.Consumer` of a ``GET /allocations/{c}`` record.

    ``constraints``: the fields Nova's state gives (``server``,
    ``needs``, ``member_of``, ``stays``).
    """
    return cloud.Consumer(
        uuid=uuid,
        allocations={rp: dict(alloc['resources'])
                     for rp, alloc in record['allocations'].items()},
        generation=record.get('consumer_generation'),
        project_id=record.get('project_id'), user_id=record.get('user_id'),
        consumer_type=record.get('consumer_type'), **constraints)
