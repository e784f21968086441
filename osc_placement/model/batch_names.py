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

"""The names of the batches: what the items of each are.

A command that reads or writes many items of one kind names the batch by
one of these constants, never by free text: the batch report words its
lines with them (``Failed to read resource provider <uuid>``, ``3 of 24
resource providers``), and ``require_complete()`` finds the batches a
command's output is made of by them.
"""


class Things(object):
    """The items of a batch, as its messages name one and many.

    Each constant below is the one value of its kind: batches are matched
    by it, as the same object.
    """

    __slots__ = ('one', 'many')

    def __init__(self, one, many):
        self.one = one
        self.many = many

    def __repr__(self):
        return 'Things(%r, %r)' % (self.one, self.many)


PROVIDERS = Things('resource provider', 'resource providers')
CONSUMERS = Things('consumer', 'consumers')
ALLOCATIONS = Things('allocations of consumer', 'allocations')
RESOURCE_CLASSES = Things('resource class', 'resource classes')
TRAITS = Things('trait', 'traits')
FLAVORS = Things('flavor', 'flavors')
TREES = Things('tree', 'trees')
RELAXED_REQUESTS = Things('relaxed request', 'relaxed requests')
OWNERS = Things('usages of project/user', 'usages of projects and users')
AGGREGATE_MEMBERS = Things('members of aggregate', 'members of aggregates')

# What a command leaves out when a batch it needs whole was not read.
ROWS = 'rows'
TOTALS = 'totals'
SAVE_FILE = 'save file'
