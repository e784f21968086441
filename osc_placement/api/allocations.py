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

"""The allocations of consumers: one consumer's read, several in one write.

* :func:`consumer_url`, :func:`read_allocations` (the body of ``GET
  /allocations/<c>``, its allocations checked) and :func:`read_consumer`
  (its record, ``model.consumers.record``); :func:`read_provider_state`
  (what a write on a provider is checked against);
* the write service of the commands that write several consumers at once
  (``allocation move``, ``restore``, ``resource provider reshape``):
  :func:`prepare_write` (the entries and the microversion of the write),
  :func:`post` (the one request, all or nothing) and
  :func:`write_consumers` (``POST /allocations``);
* a write that Placement refuses (HTTP 409) is a :class:`Conflict`: a
  generation conflict or not, and what changed since the command read it
  (:class:`Change`: a consumer or a provider, by :class:`Kind`), read
  again; the command's error (:class:`WriteConflict`) is its text.
"""

import collections
import enum

from osc_lib import exceptions

from osc_placement.api import paths
from osc_placement.api import providers
from osc_placement import errors
from osc_placement import microversions
from osc_placement.model import batch_names
from osc_placement.model import consumers
from osc_placement import version

MULTIPLE_URL = paths.url('allocations')


def consumer_url(consumer):
    """The path of a consumer's allocations: ``/allocations/<consumer>``."""
    return paths.url('allocations', consumer)


def read_allocations(http, consumer):
    """The body of ``GET /allocations/<consumer>``: its allocations an object.

    What ``allocation show`` prints (``model.consumers.shown``).
    """
    response = http.request('GET', consumer_url(consumer))
    payload = response.json_object()
    response.field('allocations', dict)
    return payload


def read_consumer(http, consumer):
    """The record (``model.consumers.record``) of a consumer: one GET."""
    return consumers.record(http.request(
        'GET', consumer_url(consumer)).json_object())


def read_provider_state(http, rp):
    """(generation, inventories, usages) of a provider; None: no such one.

    What a write of allocations on it is checked against
    (``model.reshape.Plan.of_states``). Two GETs.
    """
    try:
        response = http.request('GET', paths.url(
            'resource_providers', rp, 'inventories'))
    except exceptions.NotFound:
        return None
    return (response.field('resource_provider_generation'),
            response.field('inventories', dict),
            providers.provider_usages(http, rp))


def _at_least(live, microversion):
    return version.compare(live, version.ge(microversion), exc=False)


def prepare_write(records, live, log):
    """(the entries of a write of several consumers, its microversion).

    ``records``: {consumer: record with the generation to send}; ``live``:
    the command's microversion. The entries are ``consumers.body()`` at
    ``live``; the microversion is None (``live``) unless ``live`` needs a
    type for every consumer and one has none that can be written: then it
    is ``consumers.WITHOUT_TYPES``, which leaves every consumer's type as
    it is, and a warning on ``log`` says so.
    """
    with_type = _at_least(live, microversions.CONSUMER_TYPES)
    entries, types_sent = consumers.body(
        records, _at_least(live, microversions.CONSUMER_GENERATION),
        with_type)
    if types_sent or not with_type:
        return entries, None
    untyped = consumers.untyped(records)
    log.warning(
        '%s %s %s no type that can be written (none, or %s): the request is '
        'sent at --os-placement-api-version %s, which keeps the type of '
        'every consumer in it as it is (a new consumer gets none).',
        'Consumer' if len(untyped) == 1 else 'Consumers', ', '.join(untyped),
        'has' if len(untyped) == 1 else 'have', consumers.UNKNOWN_TYPE,
        consumers.WITHOUT_TYPES)
    return entries, consumers.WITHOUT_TYPES


class Kind(enum.Enum):
    """What a write of several things found changed since it was read."""

    CONSUMER = 'consumer'
    PROVIDER = 'provider'


def _shown(generation):
    return 'none: no such consumer' if generation is None else generation


class Change(collections.namedtuple('Change', 'kind name read now')):
    """A consumer or a provider whose generation is not the one read.

    ``kind``: a :class:`Kind`; ``read``: the generation the write sent
    (None for a consumer that did not exist); ``now``: the one read again.
    """

    __slots__ = ()

    def text(self):
        """'consumer <c> (generation 1 when read, 2 now)', one line."""
        if self.kind is Kind.CONSUMER:
            return 'consumer %s (generation %s when read, %s now)' % (
                self.name, _shown(self.read), _shown(self.now))
        return 'resource provider %s (generation %s when read, %s now)' % (
            self.name, self.read, self.now)


def serially(work, items, things):
    """[(item, work(item))] of every item, one at a time, in item order.

    The reads again of a command that has no batch engine (``allocation
    move``: two consumers); ``things`` (``model.batch_names``) is unused.
    """
    return [(item, work(item)) for item in items]


def changes(http, sent, provider_generations, each=serially):
    """What differs now from the generations a write sent: [Change].

    ``sent``: {consumer: generation sent}; ``provider_generations``:
    {provider: generation sent} (reshape). Read again, one GET each,
    through ``each(work, items, things)`` (:func:`serially`, or the
    command's batch engine: [(item, result)] in item order, the first
    failure raised); the consumers first.
    """
    found = []
    for consumer, now in each(
            lambda c: read_consumer(http, c).get(consumers.GENERATION),
            list(sent), batch_names.CONSUMERS):
        if now != sent[consumer]:
            found.append(Change(Kind.CONSUMER, consumer, sent[consumer], now))
    for rp, now in each(
            lambda rp: http.request('GET', paths.url(
                'resource_providers', rp)).field('generation'),
            list(provider_generations), batch_names.PROVIDERS):
        if now != provider_generations[rp]:
            found.append(Change(Kind.PROVIDER, rp, provider_generations[rp],
                                now))
    return found


class Conflict(object):
    """A write of several things that Placement refused (HTTP 409).

    ``message`` and ``status``: Placement's words and the HTTP status;
    ``concurrent``: a generation conflict (``placement.concurrent_update``),
    whose ``changes`` (:class:`Change`) say what differs from what the
    write sent. :meth:`text` is derived from them.
    """

    def __init__(self, message, status, concurrent, changes=()):
        self.message = message
        self.status = status
        self.concurrent = concurrent
        self.changes = list(changes)

    @classmethod
    def read(cls, http, exc, sent, provider_generations=None,
             each=serially):
        """The conflict of the refusal ``exc``; what changed read again.

        ``each``: how the reads again are made, as :func:`changes`.
        """
        concurrent = getattr(exc, 'error_code', None) == \
            errors.CONCURRENT_UPDATE
        found = changes(http, sent, provider_generations or {}, each) \
            if concurrent else ()
        return cls(exc.message, exc.code, concurrent, found)

    def text(self):
        """Placement's words, that nothing was written, and what changed.

        For a generation conflict: what changed since the command read it
        and how to go on (for the first thing changed), or that the
        generations are current again.
        """
        text = '%s (HTTP %s). Nothing was written' % (
            str(self.message).rstrip('.'), self.status)
        if not self.concurrent:
            return text + '.'
        if not self.changes:
            return text + ('; the generations read are current again: run '
                           'the command again.')
        first = self.changes[0]
        return '%s. Changed since it was read: %s. %s.' % (
            text, '; '.join(change.text() for change in self.changes),
            errors.changed_advice(first.kind.value, first.name))


class WriteConflict(exceptions.CommandError):
    """The command's error for a :class:`Conflict`: its text, one line."""

    def __init__(self, conflict):
        super().__init__(conflict.text())
        self.conflict = conflict


def post(http, url, payload, at, entries, provider_generations=None,
         each=serially):
    """The one POST of a write, all or nothing; a 409 explained.

    ``at``: the microversion (None: the live one); ``entries``: the
    consumers' part of ``payload`` (their generations, when the write
    carries them, say after a 409 which consumer changed);
    ``provider_generations`` the providers' (reshape); ``each``: how
    they are read again after a 409 (:func:`changes`). Raises
    :class:`WriteConflict`.
    """
    try:
        http.request('POST', url, json=payload, version=at)
    except exceptions.Conflict as exc:
        sent = {consumer: entry[consumers.GENERATION]
                for consumer, entry in entries.items()
                if consumers.GENERATION in entry}
        raise WriteConflict(Conflict.read(
            http, exc, sent, provider_generations, each)) from None


def write_consumers(http, records, live, log, each=serially):
    """One ``POST /allocations`` of several consumers; the entries sent.

    ``records``, ``live``, ``log``: as :func:`prepare_write`; ``each``:
    as :func:`post`.
    """
    entries, at = prepare_write(records, live, log)
    post(http, MULTIPLE_URL, entries, at, entries, each=each)
    return entries
