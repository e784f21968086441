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

"""What the api layer needs of the command that calls it: a ``Runner``.

The api layer knows no cliff command. A function that reads many items
at once, or says something on the command's error stream, takes a
``Runner``: the command's batch engine (``each``), its check that the
batches an output is made of were read whole (``require_complete``) and
its logger. The framework builds it (``osc_placement.cli.common.runner``);
the microversion is the Placement client's own (``http.api_version``).
"""

import dataclasses
import logging
import typing

from osc_placement.model import batch_names


@dataclasses.dataclass(frozen=True)
class Runner(object):
    """How the reads of a command run, and where they say what happened.

    ``each(http, work, items, things, key=None, lone_failure_raises=False,
    verb=None)``: [(item, result)] of the items ``work(item)`` succeeded
    for, the failures kept for the command's report (``things``: a
    constant of ``osc_placement.model.batch_names``).
    ``require_complete(what, things, *others)``: stop the command, printing
    no ``what``, unless every item of those batches was read.
    ``log``: where warnings go (the command's standard error).
    """

    each: typing.Callable[..., list]
    require_complete: typing.Callable[..., None]
    log: logging.Logger

    def each_provider(self, http, work, providers):
        """``each`` over provider records, ``work(uuid)`` for each."""
        return self.each(http, lambda p: work(p['uuid']), providers,
                         batch_names.PROVIDERS, key=lambda p: p['uuid'])
