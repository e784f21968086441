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

"""The drain plan's engine: where each consumer of drained hosts goes.

Pure, no request: ``cloud`` holds the inputs (the trees and the
consumers, typed), ``parts`` what of a consumer moves and where it fits
alone, ``search`` the plan (the most consumers moved at once),
``reasons`` why a consumer cannot move, in the cloud's terms.
"""

from osc_placement.model.drain import cloud
from osc_placement.model.drain import parts
from osc_placement.model.drain import reasons
from osc_placement.model.drain import search

__all__ = ['cloud', 'parts', 'reasons', 'search']
