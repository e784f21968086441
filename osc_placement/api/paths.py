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

"""Request paths: ``url()`` joins segments, each one percent-encoded.

Every path the plugin requests is built here, so that no value a user
types can change which path is requested.
"""

from urllib import parse as urlparse

from osc_lib import exceptions


# Segments that percent-encoding keeps and that a URL resolves away, so
# that the request would go to another path.
DOT_SEGMENTS = ('', '.', '..')


def url(*segments):
    """'/' + segments joined, each one percent-encoded.

    >>> url('resource_classes', 'CUSTOM_X?y=1')
    '/resource_classes/CUSTOM_X%3Fy%3D1'

    An empty, ``.`` or ``..`` segment is refused: no value may change which
    path is requested.
    """
    segments = [str(s) for s in segments]
    for segment in segments:
        check_segment(segment, 'A segment of the request path')
    return '/' + '/'.join(urlparse.quote(s, safe='') for s in segments)


def check_segment(value, what):
    """Refuse a value that would not stay one segment of a request path."""
    if value in DOT_SEGMENTS:
        raise exceptions.CommandError(
            "%s cannot be %r: it would change the path of the request."
            % (what, value))
