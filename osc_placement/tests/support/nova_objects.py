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

"""Nova's records written with Nova's own object layer (a subprocess).

Run as ``python -m osc_placement.tests.support.nova_objects <nova.conf>
<spec.json>`` with the Python that has the ``nova`` package: it reads
the configuration of the sandbox's Nova (the API database, and through
its cell mappings the cell databases), then writes what the JSON
specification lists with ``nova.objects``, as Nova's functional tests
do: flavors, services and compute nodes with their host mappings,
servers (``Instance`` with its embedded flavor, an ``info_cache``, its
``compute_id``, states, owner) with their instance mappings, migrations
and host aggregates. It prints one JSON line: the database ids of the
compute nodes and of the migrations it made. Flavors and hosts a
server or migration names may be those of an earlier specification, and
``delete_servers`` deletes servers it made.

A subprocess because Nova's configuration and database engines are
global state that must not leak into the test process (which may run
several sandboxes). :mod:`.nova_seed` writes the specification and runs
this; the format of the specification is documented there.

What the API needs of these records, found here:

* a compute node without ``stats['uptime']`` makes ``GET
  /os-hypervisors/detail`` at 2.88+ ask the (absent) compute service for
  its uptime over RPC;
* an ``Instance`` with a ``node`` needs its ``compute_id``, a server
  without ``info_cache`` cannot be shown;
* a ``Migration`` with a ``dest_node`` needs its ``dest_compute_id``.
"""

import datetime
import json
import sys

# The flavor fields the specification gives (the rest take defaults).
FLAVOR_FIELDS = ('name', 'flavorid', 'vcpus', 'memory_mb', 'root_gb',
                 'ephemeral_gb', 'swap')


def _time(value):
    """An ISO 8601 UTC time of the specification, or None."""
    if not value:
        return None
    return datetime.datetime.strptime(
        value, '%Y-%m-%dT%H:%M:%S').replace(tzinfo=datetime.timezone.utc)


class Writer(object):
    """Writes one specification into the databases of the configuration."""

    def __init__(self, context, objects):
        self.context = context
        self.objects = objects
        self.admin = context.get_admin_context()
        self.cell = self._cell()
        self.flavors = {}
        self.nodes = {}

    def _cell(self):
        cells = [c for c in self.objects.CellMappingList.get_all(self.admin)
                 if c.uuid != self.objects.CellMapping.CELL0_UUID]
        if len(cells) != 1:
            raise SystemExit('expected one cell besides cell0, found %s'
                             % [c.name for c in cells])
        return cells[0]

    def target(self):
        return self.context.target_cell(self.admin, self.cell)

    def flavor(self, spec):
        flavor = self.objects.Flavor(
            context=self.admin, extra_specs=spec.get('extra_specs', {}),
            is_public=True, disabled=False, rxtx_factor=1.0,
            vcpu_weight=0, **{k: spec[k] for k in FLAVOR_FIELDS})
        flavor.create()
        self.flavors[spec['name']] = flavor

    def host(self, spec):
        """A nova-compute service, its compute node and host mapping."""
        with self.target() as cctxt:
            svc = self.objects.Service(
                context=cctxt, host=spec['host'], binary='nova-compute',
                topic='compute', report_count=1,
                disabled=bool(spec.get('disabled')))
            svc.create()
            node = self.objects.ComputeNode(
                context=cctxt, uuid=spec['uuid'], service_id=svc.id,
                host=spec['host'],
                hypervisor_hostname=spec.get('node') or spec['host'],
                hypervisor_type='fake', hypervisor_version=1000,
                vcpus=spec['vcpus'], memory_mb=spec['memory_mb'],
                local_gb=spec['local_gb'], vcpus_used=0, memory_mb_used=0,
                local_gb_used=0, free_ram_mb=spec['memory_mb'],
                free_disk_gb=spec['local_gb'], current_workload=0,
                running_vms=0, cpu_info='{}', disk_available_least=0,
                host_ip='127.0.0.1', cpu_allocation_ratio=1.0,
                ram_allocation_ratio=1.0, disk_allocation_ratio=1.0,
                stats={'uptime': spec.get('uptime', 'up 1 day')})
            node.create()
        self.objects.HostMapping(context=self.admin, host=spec['host'],
                                 cell_mapping=self.cell).create()
        self.nodes[spec['host']] = node

    def _flavor(self, name):
        """A flavor of this specification, or one already there."""
        if name not in self.flavors:
            self.flavors[name] = self.objects.Flavor.get_by_name(
                self.admin, name)
        return self.flavors[name]

    def _node(self, host):
        """The compute node of a host of this specification or there."""
        if host not in self.nodes:
            with self.target() as cctxt:
                nodes = self.objects.ComputeNodeList.get_all_by_host(
                    cctxt, host)
            self.nodes[host] = nodes[0]
        return self.nodes[host]

    def server(self, spec):
        """An Instance (deleted afterwards if asked) and its mapping."""
        flavor = self._flavor(spec['flavor'])
        host = spec.get('host')
        fields = dict(
            uuid=spec['uuid'], display_name=spec['name'],
            hostname=spec['name'], project_id=spec['project'],
            user_id=spec['user'], flavor=flavor,
            instance_type_id=flavor.id, vcpus=flavor.vcpus,
            memory_mb=flavor.memory_mb, root_gb=flavor.root_gb,
            ephemeral_gb=flavor.ephemeral_gb,
            image_ref=spec.get('image', ''),
            vm_state=spec.get('vm_state', 'active'),
            task_state=spec.get('task_state'),
            power_state=1 if spec.get('vm_state', 'active') == 'active'
            else 0,
            availability_zone='nova', launched_at=_time(spec.get('launched')),
            metadata={}, system_metadata={},
            info_cache=self.objects.InstanceInfoCache(
                network_info=self._network_info([])))
        if host:
            node = self._node(host)
            fields.update(host=host, node=node.hypervisor_hostname,
                          compute_id=node.id)
        if spec.get('pinned_zone'):
            fields['availability_zone'] = spec['pinned_zone']
        with self.target() as cctxt:
            inst = self.objects.Instance(context=cctxt, **fields)
            inst.create()
            if spec.get('deleted'):
                inst.destroy()
        if spec.get('pinned_zone'):
            self._request_spec(spec, flavor)
        self.objects.InstanceMapping(
            context=self.admin, instance_uuid=spec['uuid'],
            cell_mapping=self.cell, project_id=spec['project'],
            user_id=spec['user'],
            queued_for_delete=bool(spec.get('deleted'))).create()

    def _request_spec(self, spec, flavor):
        """The RequestSpec of a server booted into a zone (it pins it).

        Compute 2.96 shows its ``availability_zone`` as the server's
        ``pinned_availability_zone``.
        """
        self.objects.RequestSpec(
            context=self.admin, instance_uuid=spec['uuid'],
            project_id=spec['project'], user_id=spec['user'],
            flavor=flavor, num_instances=1,
            availability_zone=spec['pinned_zone']).create()

    def delete_server(self, uuid):
        """Delete a server as Nova does (soft), its mapping queued."""
        with self.target() as cctxt:
            self.objects.Instance.get_by_uuid(cctxt, uuid).destroy()
        mapping = self.objects.InstanceMapping.get_by_instance_uuid(
            self.admin, uuid)
        mapping.queued_for_delete = True
        mapping.save()

    def _network_info(self, vifs):
        from nova.network import model
        return model.NetworkInfo(vifs)

    def migration(self, spec):
        source = self._node(spec['source'])
        dest = self._node(spec['dest'])
        flavor = self._flavor(spec['flavor'])
        with self.target() as cctxt:
            mig = self.objects.Migration(
                context=cctxt, uuid=spec['uuid'],
                instance_uuid=spec['server'],
                migration_type=spec['type'], status=spec['status'],
                source_compute=source.host,
                source_node=source.hypervisor_hostname,
                dest_compute=dest.host, dest_node=dest.hypervisor_hostname,
                dest_compute_id=dest.id, dest_host='127.0.0.1',
                old_instance_type_id=flavor.id,
                new_instance_type_id=flavor.id, hidden=False,
                cross_cell_move=False, project_id=spec['project'],
                user_id=spec['user'],
                created_at=_time(spec.get('updated_at')),
                updated_at=_time(spec.get('updated_at')))
            mig.create()
        return mig.id

    def aggregate(self, spec):
        """A host aggregate in the API database, no Placement call.

        ``Aggregate.add_host`` of the object layer writes the membership
        only: mirroring it in Placement is the compute API's job, which
        :mod:`.nova_seed` does (or leaves undone) on its own.
        """
        metadata = {}
        if spec.get('zone'):
            metadata['availability_zone'] = spec['zone']
        agg = self.objects.Aggregate(context=self.admin, name=spec['name'],
                                     uuid=spec['uuid'], metadata=metadata)
        agg.create()
        for host in spec.get('hosts', ()):
            agg.add_host(host)
        return agg.id


def write(spec):
    """Write ``spec``; returns the ids the caller may need."""
    from nova import context
    from nova import objects
    writer = Writer(context, objects)
    for flavor in spec.get('flavors', ()):
        writer.flavor(flavor)
    for host in spec.get('hosts', ()):
        writer.host(host)
    for server in spec.get('servers', ()):
        writer.server(server)
    for uuid in spec.get('delete_servers', ()):
        writer.delete_server(uuid)
    made = {'compute_nodes': {h: n.id for h, n in writer.nodes.items()},
            'migrations': {}, 'aggregates': {}}
    for mig in spec.get('migrations', ()):
        made['migrations'][mig['uuid']] = writer.migration(mig)
    for agg in spec.get('aggregates', ()):
        made['aggregates'][agg['uuid']] = writer.aggregate(agg)
    return made


def main(argv):
    config_file, spec_file = argv
    from nova import config
    from nova import objects
    config.parse_args(['nova-objects', '--config-file', config_file])
    objects.register_all()
    with open(spec_file) as f:
        spec = json.load(f)
    print(json.dumps(write(spec)))


if __name__ == '__main__':
    main(sys.argv[1:])
