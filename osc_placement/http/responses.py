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

"""The answer to one request, and its body read as it arrives.

:class:`Response` wraps what requests returns: status, headers, and the
body parsed as JSON where it is read, checked for the shape Placement
sends. :func:`read_streamed` hands the body of a successful answer to a
reader as its chunks arrive (``SessionClient.request(read=...)``), for
answers too big to hold whole (``model.json_members``);
:func:`shut_if_abandoned` ends the reading of an answer whose caller
stopped waiting.
"""

import contextlib
import json

from osc_placement import errors
from osc_placement.http import inflight
from osc_placement.model import json_members

# How an error names the type a member should have.
_KINDS = {list: 'a list', dict: 'an object'}
_UNSET = object()
# The size of the pieces a streamed body is read in.
CHUNK_BYTES = 65536


class Unusable(ValueError):
    """A streamed body this client cannot use: what is wrong with it.

    Raised by a reader of :func:`read_streamed`, which makes it the
    :meth:`Response.invalid` line of the answer.
    """


class Response(object):
    """The answer to one request: status, headers, and the body as JSON.

    Wraps the ``requests.Response`` without changing it; ``streamed``
    holds what the reader of ``read=`` made of the body. ``json()``,
    ``json_object()`` and ``field()`` read the body and raise
    :class:`InvalidResponse`, one line naming the request and what was
    wrong, when it is not what Placement sends.
    """

    def __init__(self, method, response, streamed=None):
        """``streamed``: what a reader made of the body as it arrived."""
        self.method = method
        self.streamed = streamed
        self.status_code = response.status_code
        self.url = response.url
        self.reason = response.reason
        self.headers = response.headers
        self._response = response
        self._body = _UNSET

    @property
    def content(self):
        return self._response.content

    @property
    def text(self):
        return self._response.text

    def json(self):
        """The body parsed as JSON (once).

        As UTF-8, which JSON between systems is (RFC 8259), a BOM at the
        start dropped as the streaming reader drops it, bytes that are no
        UTF-8 replaced as ``requests`` replaces them in ``text``.
        """
        if self._body is _UNSET:
            try:
                self._body = json.loads(self._response.content.decode(
                    'utf-8-sig', 'replace'))
            except ValueError:
                raise self.not_json(self.text or '')
            except RecursionError:
                raise self.invalid('JSON nested too deeply') from None
        return self._body

    def json_object(self):
        """The body, which must be a JSON object: a dict."""
        body = self.json()
        if not isinstance(body, dict):
            raise self.invalid('JSON that is not an object')
        return body

    def field(self, key, kind=None, default=_UNSET):
        """``body[key]``, checked to be of type ``kind`` if given.

        Without ``default`` a missing key is an invalid response; with it,
        only a body that is not an object is.
        """
        body = self.json()
        if not isinstance(body, dict) or key not in body:
            if default is not _UNSET and isinstance(body, dict):
                return default
            raise self.invalid(without(key))
        value = body[key]
        if kind is not None and not isinstance(value, kind):
            raise self.invalid(not_a(key, kind))
        return value

    def header(self, name):
        """The value of a header that the answer must carry."""
        value = self.headers.get(name)
        if not value:
            raise self.invalid('no %s header' % name)
        return value

    def not_json(self, text):
        """The error for a body that is not JSON, its start quoted."""
        return self.invalid('a body that is not JSON: %r'
                            % errors.text_of(text)[:80])

    def invalid(self, what):
        """The error for a body this client cannot use."""
        return errors.InvalidResponse(
            'Invalid response from the Placement API: %s %s answered HTTP '
            '%s with %s' % (self.method, self.url, self.status_code, what))


def without(key):
    """What is wrong with an object that lacks ``key``."""
    return 'JSON without the %r key' % key


def not_a(key, kind):
    """What is wrong with an object whose ``key`` is not of ``kind``."""
    return 'JSON whose %r is not %s' % (key, _KINDS.get(kind, kind.__name__))


def shut_if_abandoned(answer, **kwargs):
    """requests' response hook: shut ``answer``'s socket if abandoned.

    Run once the status and headers are in, before the body is read. When
    the caller stops waiting at the deadline (``inflight.wait_for``) while
    the body is still coming, the socket it is read from is shut for
    reading (urllib3's ``HTTPResponse.shutdown()``, made to stop a read
    blocked in another thread), so that the read ends at once and with it
    the request's thread, instead of reading on for as long as the server
    trickles. An answer read whole by then is left as it is.
    """
    def shut():
        # Released to the pool (read whole), closed already, or a
        # response of no socket (urllib3 before 2.3 has no shutdown():
        # it then ends with the socket's own timeout).
        with contextlib.suppress(AttributeError, OSError, RuntimeError,
                                 ValueError):
            answer.raw.shutdown()
    inflight.on_abandon(shut)


def read_streamed(method, raw, read):
    """``read(chunks)`` of a successful answer's body as it arrives.

    raw: the ``requests.Response`` of a ``method`` request sent with
    ``stream=True``. An error status, or no reader: the body is read
    whole (errors quote it), and the result is None. A body the reader
    cannot use (:class:`Unusable`, or not JSON: its start quoted as
    :meth:`Response.json` quotes a body; or JSON it does not take,
    ``json_members.Unreadable``) raises the answer's
    :meth:`Response.invalid` line. The connection is released in every
    case.
    """
    if read is None or raw.status_code >= 400:
        raw.content
        return None
    with contextlib.closing(raw):
        try:
            return read(raw.iter_content(CHUNK_BYTES))
        except json_members.NotJSON as exc:
            raise Response(method, raw).not_json(exc.head) from None
        except (Unusable, json_members.Unreadable) as exc:
            raise Response(method, raw).invalid(str(exc)) from None
