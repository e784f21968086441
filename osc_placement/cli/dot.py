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

"""Provider trees as Graphviz DOT text: pure functions, no request.

``dot_graph()`` writes one ``digraph`` of providers (depth first, an edge
from each child to its parent) and, optionally, of the consumers that hold
resources on them; ``dot_string()`` quotes any text as a DOT string that
shows as typed, its control characters escaped as the tables show them.
"""

from osc_placement.model import amounts
from osc_placement.model.text import printable


def _escaped(text):
    """``text`` for the inside of a DOT string, shown as typed.

    Control characters and line breaks escaped as the tables show them
    (``text.printable()``: ``\\x1b``, ``\\n``), then backslashes doubled
    (so no ``\\N``, ``\\l``... escape of Graphviz applies) and quotes
    escaped: a hostile provider name cannot reach the terminal of whoever
    prints the graph, nor break a label onto a second line.
    """
    return printable(text).replace('\\', '\\\\').replace('"', '\\"')


def dot_string(text):
    """``text`` as a double-quoted DOT string, shown as typed in a label."""
    return '"%s"' % _escaped(text)


def label(*lines):
    """The ``label`` attribute of a node or edge: one line per argument."""
    return 'label="%s"' % '\\n'.join(_escaped(line) for line in lines)


def dot_graph(ordered, details, consumers):
    """The DOT text of providers, depth first, and of their consumers.

    ``ordered``: (depth, provider) pairs. ``details``: uuid -> what
    ``providers.provider_details`` read (``--long``). ``consumers``:
    uuid -> the provider's allocations (``--consumers``).
    """
    lines = ['digraph "resource providers" {',
             '    rankdir=BT;',
             '    node [shape=box];']
    shown = set(p['uuid'] for _depth, p in ordered)
    for _depth, provider in ordered:
        uuid = provider['uuid']
        text = [provider['name'], uuid]
        if uuid in details:
            found = details[uuid]
            text += amounts.used_of_capacity(found['capacity'], sep=': ')
            if found['traits']:
                text.append('traits: ' + ', '.join(found['traits']))
            if found['aggregates']:
                text.append('aggregates: ' + ', '.join(found['aggregates']))
        lines.append('    %s [%s];' % (dot_string(uuid), label(*text)))
        parent = provider.get('parent_provider_uuid')
        if parent in shown:
            lines.append('    %s -> %s;' % (dot_string(uuid),
                                            dot_string(parent)))
    seen = set()
    for _depth, provider in ordered:
        for consumer, held in consumers.get(provider['uuid'], {}).items():
            node = dot_string('consumer ' + consumer)
            if consumer not in seen:
                seen.add(consumer)
                lines.append('    %s [shape=ellipse, %s];'
                             % (node, label('consumer', consumer)))
            lines.append('    %s -> %s [%s];' % (
                node, dot_string(provider['uuid']), label(', '.join(
                    '%s=%s' % item
                    for item in held['resources'].items()))))
    lines.append('}')
    return '\n'.join(lines) + '\n'
