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

"""A column that is data in json and yaml, and text in the other formats.

A subclass says how its value reads (``human_readable``) and what it is
as data (``machine_readable``); :meth:`Column.column` gives the cell of
a row for the output format.
"""

from cliff import columns


class Column(columns.FormattableColumn):
    """A cell kept as data where the format keeps data."""

    # The formats that keep a list or an object as such; the others
    # (table, value, csv, shell) print the text.
    STRUCTURED = ('json', 'yaml')

    @classmethod
    def column(cls, value, formatter):
        """The cell for the output format: the column, or its text."""
        found = cls(value)
        return found if formatter in cls.STRUCTURED \
            else found.human_readable()
