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

"""The scalar values Placement takes: its largest integer, a UUID.

Pure facts and checks, shared by the parsers of user values, the lookups
of providers and the checks of a save file.
"""

import uuid as uuid_lib

# The largest integer Placement stores (its database columns are 32-bit):
# the maximum of every amount and integer inventory field it accepts.
MAX_INT = 2147483647


def is_uuid_like(value):
    """Whether ``value`` is text Python's ``uuid.UUID`` reads as a UUID.

    Hyphens, braces, a ``urn:uuid:`` prefix and upper case are accepted,
    as ``uuid.UUID`` accepts them (not oslo.utils' ``is_uuid_like``, which
    refuses a few values ``uuid.UUID`` reads, e.g. with a ``+`` or an
    ``_`` among the digits).
    """
    try:
        uuid_lib.UUID(value)
    except (TypeError, ValueError, AttributeError):
        return False
    return True


def canonical_uuid(value):
    """``value`` as Placement writes a UUID (lower case, hyphens), or None.

    None when ``value`` is not a UUID (:func:`is_uuid_like`).
    """
    if not is_uuid_like(value):
        return None
    return str(uuid_lib.UUID(value))
