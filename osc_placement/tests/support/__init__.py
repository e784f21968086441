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

"""A real Placement on 127.0.0.1 for the end-to-end tests and the tools.

One concern per module; the ones with a lifetime are ``fixtures.Fixture``
classes (``useFixture`` them in a test, or use them as context managers):

``service``
    :class:`~service.Service`, the life cycle of every server here:
    gunicorn in a subprocess on a socket this process bound, started,
    awaited and stopped; what it received (``requests``,
    ``count_requests``).
``placement``
    :class:`~placement.Placement`, the Placement server: SQLite and one
    worker or PostgreSQL and several, optionally behind a latency relay,
    ``noauth2`` or behind a Keystone; the CPU time it used
    (``cpu_seconds``).
``keystone``, ``nova``, ``stack``
    :class:`~keystone.Keystone` and :class:`~nova.Nova` (the compute API),
    real servers on SQLite, and :class:`~stack.NovaCloud`, Placement and
    Nova in Keystone's catalog.
``server``
    What runs inside a server subprocess: gunicorn on the socket the
    fixture bound with the WSGI application it names, and the WSGI
    middleware that logs each request.
``postgres``
    :class:`~postgres.Postgres`, a throw-away PostgreSQL cluster.
``relay``
    :class:`~relay.Relay`, an HTTP relay in front of a server: a latency
    per request, and holds or actions before a chosen request (races).
``cloud``
    The sample cloud (fixed UUIDs) and :func:`~cloud.seed`; the scaled
    cloud of N providers (:func:`~cloud.populate`, what ``tox -e sandbox
    -- --providers N`` and the benchmark create); :func:`~cloud.api`, one
    request as the admin.
``client``
    The installed ``openstack`` executable pointed at a server: its
    argv and environment.
``processes``
    Child processes that die with their parent, are stopped in steps, and
    whose CPU time is read with psutil.

Nothing here is imported by the plugin itself, and nothing here installs
Placement, Keystone, Nova or gunicorn: the tox environments that need them
do.
"""

import fixtures


class SandboxError(Exception):
    """A server could not start or died, or a request to it failed."""


def first_error(exc):
    """The error that made a fixture's set-up fail.

    fixtures reports an error of ``_setUp`` in ``MultipleExceptions``,
    followed by the errors of the clean-up that ran then, and a fixture
    used by another one is wrapped once more: the first is the cause.
    """
    while isinstance(exc, fixtures.MultipleExceptions):
        exc = exc.args[0][1]
    return exc
