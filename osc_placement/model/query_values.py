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

"""The query values of traits and aggregates, as Placement reads them.

Pure: ``required_traits_params()`` writes the ``required`` values of
required and forbidden traits, ``member_of_param()`` the ``member_of``
value of one ``--member-of``. The provider list, the allocation
candidates and a flavor's translation (``osc_placement.model.flavors``)
send them the same way.
"""


def required_traits_params(required, forbidden):
    """The ``required`` query values for required and forbidden traits.

    A required value with a comma ("any of", 1.39+) is its own ``in:``
    parameter, in the order given; plain required traits and forbidden
    traits share one last parameter. A forbidden value may list several
    traits (``A,B``): each one is sent with its own ``!`` (``!A,!B``).
    """
    params = []
    all_of = []
    for trait in required:
        if ',' in trait:
            params.append('in:' + trait)
        else:
            all_of.append(trait)
    all_of.extend('!' + trait for value in forbidden
                  for trait in value.split(','))
    if all_of:
        params.append(','.join(all_of))
    return params


def member_of_param(value):
    """The ``member_of`` query value for one ``--member-of`` value.

    ``a,b`` is "in any of a, b": ``in:a,b``. From 1.32 a leading ``!``
    forbids the aggregates: ``!a`` or ``!in:a,b``.
    """
    if value.startswith('!'):
        aggregates = value[1:]
        return '!in:' + aggregates if ',' in aggregates else '!' + aggregates
    return 'in:' + value
