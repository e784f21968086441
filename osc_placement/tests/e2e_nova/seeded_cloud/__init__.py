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

"""The tests on the Nova seeded with the audit's scenario.

Their classes share one seeded cloud (see :mod:`..base` and
:mod:`..seeded`), in the order of their ``cloud_turn``: the read-only
tests of the seeding, then resource provider audit against nova-manage
(each test puts the cloud back, but a deleted vGPU server stays), then
the audit's own tests (its fix and its later cases stay).
"""

from osc_placement.tests.e2e_nova import base


def load_tests(loader, tests, pattern):
    return base.package_tests(loader, __name__, pattern)
