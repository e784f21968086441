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

"""Nova service records in the sandbox's cell database.

The Nova API of :class:`~.nova.Nova` runs no other Nova service, but what
it says of availability zones comes from the service records of its cells
(``GET /os-availability-zone/detail`` lists the enabled services of each
zone; a ``nova-compute`` host in no aggregate with a zone is in the
default zone, the other services in the internal one). :func:`create`
writes such records, as Nova's own functional tests do: with
``nova.objects.Service(...).create()``, in a Python of its own (Nova's
configuration and objects are process-wide) pointed at the sandbox's
``nova.conf``, in its cell ``cell1``.
"""

import subprocess
import sys

from osc_placement.tests.support import SandboxError

TOPICS = {'nova-compute': 'compute', 'nova-conductor': 'conductor',
          'nova-scheduler': 'scheduler'}


def create(nova, host, binary='nova-compute'):
    """Record a service ``binary`` on ``host`` in the cell of ``nova``.

    ``nova``: a running :class:`~.nova.Nova` (its ``nova.conf``). The
    service is enabled, as a service is when it starts.
    """
    proc = subprocess.run(
        [sys.executable, '-m', __name__, '%s/nova.conf' % nova.workdir,
         host, binary], stdin=subprocess.DEVNULL, capture_output=True,
        text=True, timeout=120)
    if proc.returncode:
        raise SandboxError('cannot record service %s on %s:\n%s'
                           % (binary, host, proc.stderr[-3000:]))


def _create(config, host, binary):
    """In this process: the record, through Nova's objects."""
    from nova import config as nova_config
    from nova import context
    from nova import objects
    # As a Nova service starts: the options, the message bus (the
    # service's creation is notified, on the fake:/ transport) and the
    # databases.
    nova_config.parse_args([sys.argv[0], '--config-file', config])
    objects.register_all()
    admin = context.get_admin_context()
    cell = objects.CellMapping.get_by_uuid(
        admin, next(mapping.uuid for mapping in
                    objects.CellMappingList.get_all(admin)
                    if mapping.name == 'cell1'))
    with context.target_cell(admin, cell) as cctxt:
        objects.Service(cctxt, host=host, binary=binary,
                        topic=TOPICS[binary]).create()


if __name__ == '__main__':
    _create(*sys.argv[1:])
