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

"""Small clouds the unit tests of the drain plan are made of.

``host()`` a compute root with VCPU, MEMORY_MB and DISK_GB (and what is
used of them), ``child()`` a provider below a root (a GPU), ``pool()``
a sharing DISK_GB provider, ``server()`` a consumer, ``make()`` the
:class:`~cloud.Cloud` of them. UUIDs are the names: the rows read as
the tables of cases.
"""

from osc_placement.model.drain import cloud

COMPUTE = frozenset([cloud.COMPUTE_NODE])


def inv(total, **kwargs):
    return cloud.Inventory(total, **kwargs)


def host(name, vcpu=8, memory=8192, disk=100, used=None, traits=(),
         aggregates=(), inventories=None):
    """A compute root named (and identified by) ``name``."""
    found = {'VCPU': inv(vcpu), 'MEMORY_MB': inv(memory),
             'DISK_GB': inv(disk)}
    found = {rc: i for rc, i in found.items() if i.total}
    found.update(inventories or {})
    return cloud.Provider(name, name, name, None,
                          traits=COMPUTE | frozenset(traits),
                          aggregates=frozenset(aggregates),
                          inventories=found, used=dict(used or {}))


def child(name, parent, inventories, used=None, traits=()):
    """A provider below the root ``parent``."""
    return cloud.Provider(name, name, parent, parent,
                          traits=frozenset(traits), inventories=inventories,
                          used=dict(used or {}))


def pool(name, disk, aggregates, used=0):
    """A sharing provider of DISK_GB."""
    return cloud.Provider(name, name, name, None,
                          traits=frozenset([cloud.SHARING]),
                          aggregates=frozenset(aggregates),
                          inventories={'DISK_GB': inv(disk)},
                          used={'DISK_GB': used})


def server(name, allocations, **kwargs):
    """A consumer named (and identified by) ``name``."""
    return cloud.Consumer(name, allocations, generation=1,
                          project_id='p', user_id='u', **kwargs)


def make(providers, drained, targets, consumers):
    """The cloud; the used amounts of the drained hosts are the consumers'.

    Each drained provider's ``used`` is what the consumers hold on it,
    as Placement would say.
    """
    used = {}
    for consumer in consumers:
        for rp_uuid, allocation in consumer.allocations.items():
            bucket = used.setdefault(rp_uuid, {})
            for rc, amount in allocation.items():
                bucket[rc] = bucket.get(rc, 0) + amount
    found = {}
    for provider in providers:
        if provider.root in drained or provider.sharing:
            provider = cloud.Provider(
                provider.uuid, provider.name, provider.root, provider.parent,
                provider.traits, provider.aggregates, provider.inventories,
                used.get(provider.uuid, {}))
        found[provider.uuid] = provider
    return cloud.Cloud(found, list(drained), list(targets), list(consumers))
