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

"""Amounts of an inventory: the capacity formula and its one text form.

Placement lets consumers allocate ``(total - reserved) *
allocation_ratio`` of a resource class, rounded down; every figure this
plugin computes from an inventory starts from :func:`capacity` (or, for a
check before a write, its unrounded product :func:`unrounded`), and every
``used/capacity`` it prints is written by :func:`used_of_capacity`.
"""

import math


def unrounded(inventory):
    """``(total - reserved) * allocation_ratio``, not rounded.

    What a check of an inventory record before it is written compares
    (Placement truncates it towards zero where :func:`capacity` floors:
    they differ only below 0).
    """
    return ((inventory['total'] - inventory['reserved'])
            * inventory['allocation_ratio'])


def capacity(inventory):
    """What consumers may allocate: floor((total - reserved) * ratio)."""
    return int(math.floor(unrounded(inventory)))


def used_of_capacity(records, sep='='):
    """['VCPU=2/16', ...]: ``used/capacity`` per resource class.

    ``records``: {class: a mapping with ``used`` and ``capacity``}, in
    the order to show; ``sep`` goes between the class and the figures.
    """
    return ['%s%s%s/%s' % (rc, sep, record['used'], record['capacity'])
            for rc, record in records.items()]


def text(amounts):
    """'MEMORY_MB=512, VCPU=2' of {class: amount}, classes sorted."""
    return ', '.join('%s=%s' % (rc, amounts[rc]) for rc in sorted(amounts))
