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

"""What ``resource provider audit`` reads of Nova.

Nova, through the compute client OpenStackClient holds (as
``api/compute.py`` reads flavors), every read at the one compute
microversion ``model.audit.state.COMPUTE_VERSION``, each list paged
(``api.compute.paged()``: ``<key>_links``' next, with the last item as
the marker), never a request per server:

* ``GET /servers/detail?all_tenants=1`` (the first page with no other
  parameter: only then does Nova list a down cell's servers, as
  ``UNKNOWN``) and ``GET /servers/detail?all_tenants=1&deleted=true``
  (deleted and soft-deleted servers);
* ``GET /os-migrations``, ``GET /os-hypervisors/detail`` (an error 5xx,
  as while a cell is down, is None: "cannot list"), ``GET
  /os-aggregates``;

the five lists at once, up to the command's parallelism, each a page
after another.

Placement's side (the providers of a trait, the members of an
aggregate, the usages of a project and user, a provider's aggregates)
is ``api/providers.py``'s.
"""

import datetime
import functools
import urllib.parse

from openstack import exceptions as sdk_exceptions
from osc_lib import exceptions

from osc_placement.api import background
from osc_placement.api import compute
from osc_placement.model.audit import state


def _paged(proxy, path, key, params, marker_key='id'):
    """``api.compute.paged()`` at ``COMPUTE_VERSION``."""
    return compute.paged(proxy, path, key, params, state.COMPUTE_VERSION,
                         marker_key=marker_key)


class NovaState(object):
    """What was read of Nova: typed lists (``model.audit.state``).

    ``hypervisors``: None when the compute API could not list them
    (``hypervisors_error`` says why); ``started``: when the reads began
    (the client's clock).
    """

    def __init__(self, servers, migrations, hypervisors, aggregates,
                 hypervisors_error=None, started=None):
        self.started = started
        self.servers = servers
        self.migrations = migrations
        self.hypervisors = hypervisors
        self.aggregates = aggregates
        self.hypervisors_error = hypervisors_error


def _servers(live, gone):
    """The servers of the two lists, a soft-deleted one once."""
    found = {}
    # A soft-deleted server is listed with the deleted ones only.
    for body in gone + live:
        found[body['id']] = state.server(body)
    return list(found.values())


def _hypervisors(proxy):
    """(hypervisors, None), or (None, why) for an error 5xx."""
    try:
        return [state.hypervisor(body) for body in _paged(
            proxy, '/os-hypervisors/detail', 'hypervisors', {})], None
    except sdk_exceptions.HttpException as exc:
        if exc.status_code is None or exc.status_code < 500:
            raise
        return None, 'HTTP %s' % exc.status_code


def _lists(proxy):
    """The independent reads of :func:`read`, in the order of its errors."""
    return [
        lambda: _paged(proxy, '/servers/detail', 'servers',
                       {'all_tenants': '1'}),
        lambda: _paged(proxy, '/servers/detail', 'servers',
                       {'all_tenants': '1', 'deleted': 'true'}),
        lambda: [state.migration(body) for body in _paged(
            proxy, '/os-migrations', 'migrations', {}, marker_key='uuid')],
        lambda: _hypervisors(proxy),
        lambda: [state.aggregate(body) for body in compute.list_of(
            compute.get_body(proxy, '/os-aggregates', {},
                             state.COMPUTE_VERSION), '/os-aggregates',
            'aggregates')],
    ]


def read(proxy, workers=1):
    """The :class:`NovaState` of the cloud: a few paged reads.

    ``proxy``: the compute proxy. The five lists (servers, deleted
    servers, migrations, hypervisors, aggregates) are read up to
    ``workers`` at a time, each a page after another; all of them are
    read to the end, and the failure raised is that of the first list
    that failed in that order, whichever failed first in time. A
    failure is openstacksdk's or keystoneauth's exception (the caller
    makes it one line, as ``api.compute`` does), but a failure of the
    hypervisors' list answered 5xx, which is "cannot list".
    """
    started = datetime.datetime.now(datetime.timezone.utc)
    live, gone, migrations, (hypervisors, why), aggregates = results_of(
        _lists(proxy), workers)
    return NovaState(_servers(live, gone), migrations, hypervisors,
                     aggregates, hypervisors_error=why, started=started)


def server_now(proxy, uuid, microversion=state.COMPUTE_VERSION):
    """The :class:`state.Server` Nova has of ``uuid`` now, None if none.

    ``GET /servers/{uuid}`` (404: Nova has no such server, or it is
    deleted), at ``microversion``.
    """
    path = '/servers/%s' % urllib.parse.quote(uuid, safe='')
    try:
        body = compute.get_body(proxy, path, {}, microversion)
    except sdk_exceptions.NotFoundException:
        return None
    found = body.get('server')
    if not isinstance(found, dict) or not found.get('id'):
        raise exceptions.CommandError(
            'Invalid response from the compute API to GET %s: no server '
            'object.' % path)
    return state.server(found)


def migrations_of(proxy, server):
    """The :class:`state.Migration` list of one server: a paged list."""
    return [state.migration(body) for body in _paged(
        proxy, '/os-migrations', 'migrations', {'instance_uuid': server},
        marker_key='uuid')]


def migrations_on(proxy, host):
    """The :class:`state.Migration` list of a compute host: a paged list.

    ``host=``: those whose source or destination it is.
    """
    return [state.migration(body) for body in _paged(
        proxy, '/os-migrations', 'migrations', {'host': host},
        marker_key='uuid')]


def migrations_since(proxy, moment):
    """The migrations changed since ``moment`` (aware): a paged list."""
    since = moment.astimezone(datetime.timezone.utc).replace(
        tzinfo=None).isoformat(timespec='seconds')
    return [state.migration(body) for body in _paged(
        proxy, '/os-migrations', 'migrations', {'changes-since': since},
        marker_key='uuid')]


def read_again(proxy, servers, since, workers=1):
    """(servers, migrations) of Nova now, for the write of a fix.

    ``servers``: the UUIDs to read again, each by itself with its
    migrations; ``since``: the migrations changed since then are read
    too (a consumer that was no migration may be one now). Returns
    ({uuid: Server or None}, [Migration]); the first failure in that
    order is raised.
    """
    servers = sorted(set(servers))
    calls = [functools.partial(migrations_since, proxy, since)]
    for uuid in servers:
        calls.append(functools.partial(server_now, proxy, uuid))
        calls.append(functools.partial(migrations_of, proxy, uuid))
    results = results_of(calls, workers)
    moves = list(results[0])
    found = {}
    for n, uuid in enumerate(servers):
        found[uuid] = results[1 + 2 * n]
        moves.extend(results[2 + 2 * n])
    return found, moves


def results_of(calls, workers):
    """[result] of each call (:func:`outcomes_of`), or the first failure.

    Every one or none: the failure raised is that of the first call that
    failed in call order, whichever failed first in time, as a loop of
    them would.
    """
    outcomes = outcomes_of(calls, workers)
    for _result, failure in outcomes:
        if failure is not None:
            raise failure
    return [result for result, _failure in outcomes]


def outcomes_of(calls, workers):
    """[(result, None) or (None, exception)] of each call, in call order.

    Up to ``workers`` calls at a time, in a ``concurrent.futures``
    executor of daemon threads (``api.background``); returns when all
    ended. Interrupted, it does not wait: the calls not started are
    cancelled, and those in flight hold up neither it nor the exit.
    """
    if not calls:
        return []
    pool = background.Executor(max_workers=min(workers, len(calls)))
    try:
        submitted = [pool.submit(call) for call in calls]
        outcomes = []
        for future in submitted:
            failure = future.exception()
            outcomes.append((None, failure) if failure is not None
                            else (future.result(), None))
        return outcomes
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
