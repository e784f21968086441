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

"""The files of ``allocation save``/``restore`` and of ``reshape``.

A save file is JSON::

    {"format_version": 1,
     "microversion": "1.39",            # the version the consumers were
     "saved_at": "2026-12-01T15:00:00Z",  # read at, and when
     "providers": ["<rp>"],     # a save of providers: whose consumers
     "consumers": {"<uuid>": {"allocations": {"<rp>": {"resources":
                                              {"VCPU": 2}}},
                              "project_id": "...", "user_id": "...",
                              "consumer_generation": 3,     # from 1.28
                              "consumer_type": "INSTANCE"}}}  # from 1.38

Each consumer is the entry ``POST /allocations`` takes. An undo file of
``resource provider audit --fix`` adds ``written``: each consumer as the
fix leaves it (see :func:`dumps`). Both keys are optional: a file
without them is read as before. A reshape file is
the body of ``POST /reshaper`` itself: ``inventories`` by provider (with
``resource_provider_generation``) and ``allocations`` by consumer (each
with its ``consumer_generation``).

Everything is checked before any request: a value that does not fit is
one line naming the file, the path of the value inside it
(``consumers.<uuid>.allocations``) and what is expected there.
"""

import contextlib
import datetime
import errno
import json
import os
import stat
import sys
import tempfile
import time

from osc_lib import exceptions

from osc_placement import microversions
from osc_placement.model import scalars
from osc_placement.model.text import printable
from osc_placement import version

FORMAT_VERSION = 1
# The fields of an inventory record Placement accepts (its PUT schema).
INVENTORY_FIELDS = ('allocation_ratio', 'max_unit', 'min_unit', 'reserved',
                    'step_size', 'total')
# The largest file read: far above the save of a large cloud (some 400
# bytes a consumer), far below what exhausts memory (``restore /dev/zero``).
MAX_FILE_BYTES = 64 * 1024 * 1024
# The keys of a save file; ``written`` is an undo file's only,
# ``providers`` a save of providers' only (see dumps()).
SAVE_KEYS = ('consumers', 'format_version', 'microversion', 'providers',
             'saved_at', 'written')


class FileError(exceptions.CommandError):
    """A file whose content is not what the command expects."""


def _error(name, where, expected):
    """``<file>: <path inside it>: expected ...``, one line."""
    return FileError('%s: %s: expected %s.' % (
        printable(name), '.'.join(printable(str(part)) for part in where)
        or '(top)', expected))


def _duplicates_hook(found):
    """An ``object_pairs_hook`` that builds dicts, noting duplicate keys.

    ``found`` gets (the dict, the key, how many times) of each duplicate:
    Python's json keeps the last value silently.
    """
    def pairs(items):
        result = {}
        counts = {}
        for key, value in items:
            counts[key] = counts.get(key, 0) + 1
            result[key] = value
        found.extend((result, key, count) for key, count in counts.items()
                     if count > 1)
        return result
    return pairs


def _path_of(value, target, where=()):
    """The path (list of keys) of the dict ``target`` inside ``value``."""
    if value is target:
        return list(where)
    children = value.items() if isinstance(value, dict) else enumerate(
        value) if isinstance(value, list) else ()
    for key, child in children:
        found = _path_of(child, target, where + (key,))
        if found is not None:
            return found
    return None


# The name of standard input, for the commands that read a file.
STDIN = '-'


def _read_bytes(name):
    """The bytes of a file, at most ``MAX_FILE_BYTES``, or one line.

    ``-``: standard input.
    """
    try:
        if name == STDIN:
            data = sys.stdin.buffer.read(MAX_FILE_BYTES + 1)
        else:
            with open(name, 'rb') as f:
                data = f.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise FileError('%s: cannot read it: %s' % (
            printable(name), printable(exc.strerror or str(exc))))
    if len(data) > MAX_FILE_BYTES:
        raise FileError('%s: larger than %d bytes: not a file this command '
                        'writes.' % (printable(name), MAX_FILE_BYTES))
    return data


def load(name):
    """The JSON of a file, or one line saying why it cannot be read.

    At most ``MAX_FILE_BYTES``; JSON as Placement reads it (no NaN or
    Infinity) and each key of an object given once.
    """
    data = _read_bytes(name)

    def not_a_number(constant):
        # Python's json takes NaN and Infinity; JSON has no such number,
        # and Placement fails on them (HTTP 500).
        raise FileError('%s: not JSON: %s is not a number JSON allows.'
                        % (printable(name), constant))

    duplicates = []
    try:
        value = json.loads(data.decode('utf-8'), parse_constant=not_a_number,
                           object_pairs_hook=_duplicates_hook(duplicates))
    except UnicodeError as exc:
        raise FileError('%s: cannot read it: %s' % (
            printable(name), printable(exc)))
    except RecursionError:
        raise FileError('%s: not JSON this command reads: nested too '
                        'deeply.' % printable(name)) from None
    except ValueError as exc:
        raise FileError('%s: not JSON: %s' % (printable(name),
                                              printable(exc)))
    if duplicates:
        target, key, count = duplicates[0]
        raise _error(name, _path_of(value, target) + [key],
                     'the key once (it is given %d times)' % count)
    return value


def _object(name, value, where, what='an object'):
    if not isinstance(value, dict):
        raise _error(name, where, what)
    return value


def _integer(value, lowest, highest=scalars.MAX_INT):
    return isinstance(value, int) and not isinstance(value, bool) \
        and lowest <= value <= highest


def _text(value):
    return isinstance(value, str) and 0 < len(value) <= 255


def check_consumer(name, entry, where, generation_required=False,
                   owner_required=True):
    """Check one consumer entry of a file; return it.

    ``allocations`` ({provider UUID: {"resources": {class: amount >= 1}}},
    empty for a consumer that holds nothing), ``project_id`` and
    ``user_id`` (unless ``owner_required`` is False and the consumer holds
    nothing: a save file's consumer that held nothing when read has no
    owner); ``consumer_generation`` (an integer or null, required when
    ``generation_required``) and ``consumer_type`` (text) when present. No
    other key.
    """
    _object(name, entry, where, 'an object with allocations, project_id '
            'and user_id')
    known = {'allocations', 'project_id', 'user_id', 'consumer_generation',
             'consumer_type'}
    for key in entry:
        if key not in known:
            raise _error(name, where + [key], 'no such key (known: %s)'
                         % ', '.join(sorted(known)))
    if 'allocations' not in entry:
        raise _error(name, where + ['allocations'],
                     'an object of resource providers (missing)')
    allocations = _object(name, entry['allocations'],
                          where + ['allocations'],
                          'an object of resource provider UUIDs')
    for rp, alloc in allocations.items():
        at = where + ['allocations', rp]
        if not scalars.is_uuid_like(rp):
            raise _error(name, at, 'a resource provider UUID as the key')
        _object(name, alloc, at, 'an object with "resources"')
        if set(alloc) != {'resources'}:
            raise _error(name, at, 'an object with only "resources"')
        resources = _object(name, alloc['resources'], at + ['resources'],
                            'an object of resource classes and amounts')
        if not resources:
            raise _error(name, at + ['resources'],
                         'at least one resource class')
        for rc, amount in resources.items():
            if not rc or not _integer(amount, 1):
                raise _error(name, at + ['resources', rc],
                             'an amount from 1 to %d' % scalars.MAX_INT)
    for key in ('project_id', 'user_id'):
        if not owner_required and not allocations and key not in entry:
            continue
        if key not in entry or not _text(entry[key]):
            raise _error(name, where + [key],
                         'text of 1 to 255 characters')
    if generation_required and 'consumer_generation' not in entry:
        raise _error(name, where + ['consumer_generation'],
                     'an integer, or null for a new consumer (missing)')
    if 'consumer_generation' in entry:
        value = entry['consumer_generation']
        if value is not None and not _integer(value, 0):
            raise _error(name, where + ['consumer_generation'],
                         'an integer, or null for a new consumer')
    if 'consumer_type' in entry and not _text(entry['consumer_type']):
        raise _error(name, where + ['consumer_type'],
                     'text such as INSTANCE or MIGRATION')
    return entry


def _consumers(name, value, where, generation_required=False,
               owner_required=True):
    _object(name, value, where, 'an object of consumer UUIDs')
    for consumer, entry in value.items():
        if not scalars.is_uuid_like(consumer):
            raise _error(name, where + [consumer],
                         'a consumer UUID as the key')
        check_consumer(name, entry, where + [consumer], generation_required,
                       owner_required)
    return value


def _microversion(name, value, where):
    if not isinstance(value, str) or not value.startswith('1.') or \
            not value[2:].isdigit():
        raise _error(name, where, 'a microversion such as "%s"'
                     % microversions.LATEST)
    if version.parse(value) > version.parse(microversions.LATEST):
        raise _error(name, where, 'a microversion this client knows, %s to '
                     '%s' % (microversions.BASE, microversions.LATEST))
    return value


class Saved(object):
    """A save file, checked: its microversion, time and consumers.

    ``written``: {consumer: record} of an undo file, what the command
    that wrote it was about to write (see :func:`dumps`); {} otherwise.
    ``providers``: [uuid] of a save of providers, those whose consumers
    were saved; [] otherwise.
    """

    def __init__(self, microversion, saved_at, consumers, written=None,
                 providers=None):
        self.microversion = microversion
        self.saved_at = saved_at
        self.consumers = consumers
        self.written = written or {}
        self.providers = providers or []


def _providers(name, value):
    where = ['providers']
    if not isinstance(value, list):
        raise _error(name, where, 'a list of resource provider UUIDs')
    for index, rp in enumerate(value):
        if not scalars.is_uuid_like(rp):
            raise _error(name, where + [index], 'a resource provider UUID')
        if rp in value[:index]:
            raise _error(name, where + [index], 'each resource provider '
                         'once (%s is given twice)' % printable(rp))
    return value


def read_saved(name):
    """The :class:`Saved` of a file written by ``allocation save``."""
    data = _object(name, load(name), [], 'an object with format_version, '
                   'microversion, saved_at and consumers')
    for key in ('format_version', 'microversion', 'saved_at', 'consumers'):
        if key not in data:
            raise _error(name, [key], 'a value (missing: is it a file of '
                         '"resource provider allocation save"?)')
    for key in data:
        if key not in SAVE_KEYS:
            raise _error(name, [key], 'no such key (known: %s)'
                         % ', '.join(SAVE_KEYS))
    if data['format_version'] != FORMAT_VERSION:
        raise _error(name, ['format_version'], str(FORMAT_VERSION))
    if not isinstance(data['saved_at'], str):
        raise _error(name, ['saved_at'], 'a time as text')
    # A save of a cloud without allocations has no consumer; one that held
    # nothing when read is saved as {"allocations": {}}.
    consumers = _consumers(name, data['consumers'], ['consumers'],
                           owner_required=False)
    written = _consumers(name, data.get('written', {}), ['written'],
                         owner_required=False)
    for consumer in written:
        if consumer not in consumers:
            raise _error(name, ['written', consumer],
                         'a consumer of "consumers" too')
    return Saved(_microversion(name, data['microversion'], ['microversion']),
                 data['saved_at'], consumers, written,
                 _providers(name, data.get('providers', [])))


def read_reshape(name):
    """The checked body of ``POST /reshaper`` in a file.

    The shape only; whether Placement would accept the inventory records
    (ranges, capacity) is the inventory rules' to say.
    """
    data = _object(name, load(name), [], 'an object with inventories and '
                   'allocations')
    for key in data:
        if key not in ('inventories', 'allocations'):
            raise _error(name, [key], 'no such key (known: allocations, '
                         'inventories)')
    for key in ('inventories', 'allocations'):
        if key not in data:
            raise _error(name, [key], 'an object (missing)')
    inventories = _object(name, data['inventories'], ['inventories'],
                          'an object of resource provider UUIDs')
    if not inventories:
        raise _error(name, ['inventories'], 'at least one resource provider')
    for rp, entry in inventories.items():
        at = ['inventories', rp]
        if not scalars.is_uuid_like(rp):
            raise _error(name, at, 'a resource provider UUID as the key')
        _object(name, entry, at, 'an object with '
                'resource_provider_generation and inventories')
        if set(entry) != {'resource_provider_generation', 'inventories'}:
            raise _error(name, at, 'an object with only '
                         'resource_provider_generation and inventories')
        if not _integer(entry['resource_provider_generation'], 0):
            raise _error(name, at + ['resource_provider_generation'],
                         'an integer')
        records = _object(name, entry['inventories'], at + ['inventories'],
                          'an object of resource classes')
        for rc, inv in records.items():
            where = at + ['inventories', rc]
            _object(name, inv, where, 'an inventory record (an object '
                    'with a total)')
            if 'total' not in inv:
                raise _error(name, where + ['total'], 'an integer (missing)')
            for field, value in inv.items():
                if field not in INVENTORY_FIELDS:
                    raise _error(name, where + [field], 'no such field '
                                 '(known: %s)' % ', '.join(INVENTORY_FIELDS))
                number = isinstance(value, (int, float)) and \
                    not isinstance(value, bool)
                if not number or (field != 'allocation_ratio'
                                  and not isinstance(value, int)):
                    raise _error(name, where + [field], 'a number' if
                                 field == 'allocation_ratio' else
                                 'an integer')
    _consumers(name, data['allocations'], ['allocations'],
               generation_required=True)
    return data


def now_text():
    """The time of a save, in UTC, to the second.

    ``SOURCE_DATE_EPOCH`` (the reproducible-builds convention), when set,
    gives the time instead of the clock: generated examples stay the same.
    """
    epoch = os.environ.get('SOURCE_DATE_EPOCH')
    seconds = int(epoch) if epoch and epoch.isdigit() else int(time.time())
    return datetime.datetime.fromtimestamp(
        seconds, datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')


def dumps(consumers, microversion, saved_at, written=None,
          providers=None):
    """The text of a save file: its fields, then the consumers as given.

    The resources keep the server's order, so that a restore's diff shows
    them as ``allocation show`` does. ``written``, for an undo file:
    {consumer: the record about to be written over the one saved, with
    the generation it will have, or ``{"allocations": {}}`` for one it
    removes}; ``allocation restore`` takes a consumer that holds just
    that as changed by that write alone. ``providers``, for a save of
    providers: [uuid] of those whose consumers were saved; ``allocation
    restore`` says which consumers now on them it leaves alone.
    """
    data = {'format_version': FORMAT_VERSION, 'microversion': microversion,
            'saved_at': saved_at}
    if providers:
        data['providers'] = sorted(providers)
    data['consumers'] = consumers
    if written:
        data['written'] = written
    return json.dumps(data, indent=2) + '\n'


# What a path that is not a regular file is, said when save refuses it.
_NODE_KINDS = ((stat.S_ISLNK, 'a symbolic link'),
               (stat.S_ISDIR, 'a directory'),
               (stat.S_ISCHR, 'a character device'),
               (stat.S_ISBLK, 'a block device'), (stat.S_ISFIFO, 'a FIFO'),
               (stat.S_ISSOCK, 'a socket'))


def _refuse_node(name, replace, standard_output):
    """Refuse a path that exists and is not a regular file.

    Renaming over it would replace a symlink (not its target) or a device
    node such as /dev/null with a regular file: refused instead. Without
    ``replace``, anything there is refused.
    """
    try:
        mode = os.lstat(name).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise _unwritable(name, exc)
    if not replace:
        raise _exists(name)
    if stat.S_ISREG(mode):
        return
    kind = next((text for test, text in _NODE_KINDS if test(mode)),
                'not a file')
    raise FileError('%s: not a regular file (%s): a new file is written '
                    'here, or a regular one replaced; give another path%s.'
                    % (printable(name), kind, ', or - for standard output'
                       if standard_output else ''))


def _exists(name):
    return FileError('%s: exists: only a new file is written here, never '
                     'one replaced; give another path.' % printable(name))


def check_writable(name, replace=True):
    """Refuse, before anything else is done, a file :func:`write` refuses.

    Its directory must be one this process can write in; what is at
    ``name`` must be what :func:`write` takes.
    """
    _refuse_node(name, replace, False)
    directory = os.path.dirname(os.path.abspath(name))
    try:
        if not stat.S_ISDIR(os.stat(directory).st_mode):
            raise NotADirectoryError(errno.ENOTDIR,
                                     os.strerror(errno.ENOTDIR))
    except OSError as exc:
        raise _unwritable(name, exc)
    if not os.access(directory, os.W_OK | os.X_OK):
        raise _unwritable(name, PermissionError(
            errno.EACCES, os.strerror(errno.EACCES)))


def _put(temporary, name, replace):
    """The temporary file in place: renamed over ``name``, or linked."""
    if replace:
        os.replace(temporary, name)
        return
    try:
        # A link is made only where nothing is: no file replaced, even
        # one made since it was checked.
        os.link(temporary, name)
    except FileExistsError:
        raise _exists(name) from None
    except OSError:
        # A file system without hard links: checked, then renamed.
        if os.path.lexists(name):
            raise _exists(name) from None
        os.replace(temporary, name)
        return
    remove(temporary)


def write(name, text, replace=True, standard_output=False):
    """Write ``text`` to the file ``name`` whole, or not at all.

    A new regular file, or (``replace``) one that replaces a regular
    file: anything else at ``name`` is refused (``standard_output``: the
    command takes ``-`` for it, and the refusal says so). Through a
    temporary file in the same directory (created 0600: the file holds
    project and user IDs), synced to disk, then renamed over ``name``
    (linked as ``name`` when nothing may be replaced): an interrupted
    write, or a crash after it, never leaves half a file, nor the
    temporary one.
    """
    _refuse_node(name, replace, standard_output)
    directory = os.path.dirname(os.path.abspath(name))
    try:
        fd, temporary = tempfile.mkstemp(dir=directory, prefix='.save-')
    except OSError as exc:
        raise _unwritable(name, exc)
    try:
        with os.fdopen(fd, 'w', encoding='utf-8') as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        _put(temporary, name, replace)
    except OSError as exc:
        remove(temporary)
        raise _unwritable(name, exc)
    except BaseException:
        # A FileError of _put's, or Ctrl-C: no temporary file left.
        remove(temporary)
        raise


def remove(name):
    """Remove a file this module wrote, if it is still there (and can be)."""
    with contextlib.suppress(OSError):
        os.unlink(name)


def _unwritable(name, exc):
    """One line for a file not written: its name and the system's reason.

    The reason alone (``No space left on device``), never the errno nor
    the temporary file's name it was written through.
    """
    return FileError('%s: cannot write it: %s.' % (
        printable(name), printable(exc.strerror or 'the system refused it')))
