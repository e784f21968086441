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

"""The transport: the only package that talks HTTP.

``client``: the session client (``SessionClient``: headers, microversion
negotiation, timeouts, one-line errors); ``responses``: an answer as the
layers above read it, whole or as it arrives; ``inflight``: one request
in flight, its wait bounded and its signals noted.

Importing the package loads none of them: cliff imports every command
module on every run, and those import ``inflight`` only. The client
class keeps the path OpenStackClient is given for it
(``osc_placement.http.SessionClient``, as in the upstream plugin), read
from ``client`` when first asked for.
"""

import importlib


def __getattr__(name):
    if name == 'SessionClient':
        return importlib.import_module(__name__ + '.client').SessionClient
    raise AttributeError('module %r has no attribute %r' % (__name__, name))
