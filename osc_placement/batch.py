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

"""Batches: one request per item, several in flight, reported in order.

``each()`` runs ``work(item)`` for every item through a bounded thread
pool over the one HTTP client (``--os-placement-parallel`` at a time, or
the command's default), and returns the outcomes in item order whatever
order they finished in. ``delete_each()`` is the multi-delete of
python-openstackclient's idiom. ``Batched`` is the mixin of the commands
that read many items and print what they could read before reporting the
failures.
"""

from concurrent import futures

from osc_lib import exceptions

from osc_placement import plugin


def each(http, work, items, default=1):
    """``work(item)`` for every item, up to N at a time, in item order.

    N is the ``--os-placement-parallel`` value, else ``default``. With
    N = 1 the items are done one after another, in order. Returns a list
    with one ``(result, error)`` pair per item, in the order of ``items``
    whatever order they finished in: ``error`` is the osc-lib exception
    an item failed with (an HTTP error, a network failure, an invalid
    answer), else None. Any other exception is a bug and propagates.
    """
    items = list(items)

    def one(item):
        try:
            return work(item), None
        except (exceptions.ClientException,
                exceptions.CommandError) as exc:
            return None, exc

    workers = min(http.parallel or default, len(items))
    if workers <= 1:
        return [one(item) for item in items]
    http.allow_parallel(workers)
    with futures.ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(one, items))


def delete_each(cmd, http, values, delete, thing, things):
    """Call ``delete(value)`` for each value; report failures at the end.

    One value behaves as a single delete: its error is the command's error.
    With several, the deletes go through :func:`each` (in parallel with
    ``--os-placement-parallel``); each failure is logged on its own line,
    in the order of the values, and the command fails with ``Failed to
    delete N of M <things>.``
    """
    if len(values) == 1:
        delete(values[0])
        return
    outcomes = each(http, delete, values, default=cmd.default_parallel)
    failed = 0
    for value, (_, exc) in zip(values, outcomes):
        if exc is not None:
            failed += 1
            cmd.log.error('Failed to delete %s %s: %s', thing, value, exc)
    if failed:
        raise exceptions.CommandError(
            'Failed to delete %d of %d %s.' % (failed, len(values), things))


class Batched(object):
    """Mixin of the commands that read many items (providers, consumers).

    Their requests go through :func:`each`, by default
    ``PARALLEL_NEW_COMMANDS`` at a time. An item that cannot be read does
    not stop the others: what was read is printed, then each failure on a
    line of its own and a count, and the command exits with 1.
    """

    default_parallel = plugin.PARALLEL_NEW_COMMANDS

    def run(self, parsed_args):
        self._failures = {}    # (thing, key) -> the first error, in order
        self._read = {}        # thing -> the keys of all items tried
        result = super().run(parsed_args)
        if self._failures:
            counts = []
            for (thing, key), exc in self._failures.items():
                self.log.error('Failed to read %s %s: %s', thing, key, exc)
            for thing, keys in self._read.items():
                failed = sum(1 for t, _key in self._failures if t == thing)
                if failed:
                    counts.append('%d of %d %ss' % (failed, len(keys), thing))
            raise exceptions.CommandError(
                'Failed to read %s.' % ', '.join(counts))
        return result

    def each(self, http, work, items, thing, key=None):
        """[(item, result)] of the items ``work`` succeeded for.

        The failures are kept, in item order, for the report at the end;
        ``key(item)`` names an item in it (default: the item itself). An
        item read twice (two passes over the same providers) counts once.
        """
        items = list(items)
        key = key or (lambda item: item)
        done = []
        outcomes = each(http, work, items, default=self.default_parallel)
        for item, (result, exc) in zip(items, outcomes):
            self._read.setdefault(thing, set()).add(key(item))
            if exc is None:
                done.append((item, result))
            else:
                self._failures.setdefault((thing, key(item)), exc)
        return done

    def each_provider(self, http, work, providers):
        """``each`` over provider records, ``work(uuid)`` for each."""
        return self.each(http, lambda p: work(p['uuid']), providers,
                         'resource provider', key=lambda p: p['uuid'])
