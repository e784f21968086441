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

"""Hypothesis settings: the same examples on CI, new ones on a desk.

``ci``, when the environment variable ``CI`` is set (CI systems set
``CI=true``; tox passes it through): derandomized, so that each run tries
the examples of the run before and a failure can be run again, and no
example database. ``dev`` otherwise: new random examples at each run, and
the failures found are kept in ``.hypothesis/`` and tried first next time.

Both have no deadline (the time of one example on a loaded machine is
noise, not a property) and try 100 examples unless a test asks for more.
A test package loads the profile in its ``__init__``, before any test
module builds its ``hypothesis.settings``: a test's own settings, such as
a larger ``max_examples``, are made from the profile and keep the rest of
it.
"""

import os

import hypothesis

MAX_EXAMPLES = 100

# From hypothesis' defaults, not from the profile loaded when hypothesis was
# imported: recent versions load a "ci" profile of their own when they
# guess that they run on CI.
_DEFAULTS = hypothesis.settings.get_profile('default')
hypothesis.settings.register_profile(
    'ci', parent=_DEFAULTS, max_examples=MAX_EXAMPLES, deadline=None,
    derandomize=True, database=None)
hypothesis.settings.register_profile(
    'dev', parent=_DEFAULTS, max_examples=MAX_EXAMPLES, deadline=None)


def profile_name():
    """``ci`` when the environment variable CI is set, else ``dev``."""
    return 'ci' if os.environ.get('CI') else 'dev'


def load():
    """Make the profile of this environment the default; return its name."""
    name = profile_name()
    hypothesis.settings.load_profile(name)
    return name
