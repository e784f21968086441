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

"""Sphinx configuration of the osc-placement documentation.

The build is meant to run offline (no intersphinx, nothing fetched) with
warnings as errors. Besides the usual settings, this file guards the CLI
reference: cliff's ``autoprogram-cliff`` directive documents whatever it
can load, so a command whose module is missing or broken must stop the
build here instead of quietly disappearing from the reference.

The reference is built at the microversion a user gets by default
(``--os-placement-api-version 1``, negotiated up to 1.29), so that its
synopses say which options are required exactly as ``--help`` does without
a version option.
"""

import argparse
import ast
import configparser
import importlib.metadata
import os
import re
import types

from cliff import sphinxext as cliff_sphinxext
from docutils import statemachine
from sphinx.errors import ExtensionError
from sphinx.util.docutils import SphinxDirective

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, '..', '..'))
COMMAND_GROUP = 'openstack.placement.v1'

# -- General -----------------------------------------------------------------

extensions = [
    'openstackdocstheme',
    'cliff.sphinxext',
]

project = 'osc-placement'
copyright = 'osc-placement developers'
master_doc = 'index'
source_suffix = {'.rst': 'restructuredtext'}
exclude_patterns = ['user/examples/*']
pygments_style = 'native'
language = 'en'
# Option names such as --group must be printed as typed, not with an en dash.
smartquotes = False

# -- cliff: the CLI reference ------------------------------------------------

autoprogram_cliff_application = 'openstack'

# -- openstackdocstheme ------------------------------------------------------

html_theme = 'openstackdocs'
# The project has no public repository or bug tracker yet, so neither
# openstackdocs_repo_name nor openstackdocs_bug_project is set: the pages
# get no "report a bug" or source links (which would lead upstream).
openstackdocs_auto_name = False
openstackdocs_use_storyboard = False
html_last_updated_fmt = '%Y-%m-%d'

# -- Command completeness ----------------------------------------------------


def declared_commands():
    """The command entry points of setup.cfg: {name: 'module:Class'}."""
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(os.path.join(TOP, 'setup.cfg'))
    commands = {}
    for line in parser['entry_points'][COMMAND_GROUP].splitlines():
        if line.strip():
            name, target = (part.strip() for part in line.split('=', 1))
            commands[name] = target
    return commands


def check_commands(app):
    """Stop the build unless every declared command can be documented.

    The installed entry points must be those of setup.cfg (a stale
    install would document yesterday's commands) and each one must load.
    """
    declared = declared_commands()
    installed = {ep.name: ep for ep in
                 importlib.metadata.entry_points(group=COMMAND_GROUP)}
    problems = []
    for name in sorted(set(declared) - set(installed)):
        problems.append('%s is in setup.cfg but not installed (reinstall '
                        'the package)' % name)
    for name in sorted(set(installed) - set(declared)):
        problems.append('%s is installed but no longer in setup.cfg '
                        '(reinstall the package)' % name)
    for name in sorted(set(declared) & set(installed)):
        entry_point = installed[name]
        if entry_point.value.replace(' ', '') != declared[name]:
            problems.append('%s points to %s, setup.cfg says %s' % (
                name, entry_point.value, declared[name]))
            continue
        try:
            entry_point.load()
        except Exception as exc:
            problems.append('%s (%s) cannot be loaded: %s: %s' % (
                name, declared[name], type(exc).__name__, exc))
    if problems:
        raise ExtensionError(
            'the CLI reference would be incomplete:\n  '
            + '\n  '.join(problems))


def check_reference(app, exception):
    """After an HTML build: each declared command has its own section."""
    if exception is not None or app.builder.format != 'html':
        return
    path = os.path.join(app.outdir, 'cli', 'index.html')
    with open(path, encoding='utf-8') as f:
        page = f.read()
    titles = set(re.findall(r'<h[1-6]>(.*?)<a class="headerlink"', page))
    missing = [name.replace('_', ' ') for name in sorted(declared_commands())
               if name.replace('_', ' ') not in titles]
    if missing:
        raise ExtensionError(
            'cli/index.html lacks the commands: %s' % ', '.join(missing))


def reference_app():
    """What a command's parser reads from OpenStackClient: the version.

    A parser is built for the microversion the user asked for
    (``app.client_manager._api_version['placement']``); the reference asks
    for the default, ``1``.
    """
    from osc_placement import version

    manager = types.SimpleNamespace(
        _api_version={'placement': version.NEGOTIATE_VERSION})
    return types.SimpleNamespace(client_manager=manager)


class ReferenceCommands(cliff_sphinxext.AutoprogramCliffDirective):
    """cliff's ``autoprogram-cliff``, building commands at the default version.

    cliff makes each command without an application, which the plugin's
    parsers read as microversion 1.0.
    """

    def _generate_nodes_per_command(self, title, command_name,
                                    command_class, ignored_opts):
        app = reference_app()

        def make(_app, app_args):
            return command_class(app, app_args)

        return super()._generate_nodes_per_command(
            title, command_name, make, ignored_opts)


class PlacementGlobalOption(SphinxDirective):
    """The plugin's global option, documented from its own parser."""

    def run(self):
        from osc_placement import plugin

        parser = argparse.ArgumentParser(prog='openstack', add_help=False)
        plugin.build_option_parser(parser)
        lines = ['.. program:: openstack', '']
        for action in parser._actions:
            if not action.option_strings or action.help is argparse.SUPPRESS:
                continue
            lines.append('.. option:: ' + ', '.join(
                '%s %s' % (flag, action.metavar)
                for flag in action.option_strings))
            lines.append('')
            lines.extend('    ' + line for line in statemachine.string2lines(
                action.help, convert_whitespace=True))
            lines.append('')
        content = statemachine.StringList(lines, source='<plugin>')
        return self.parse_text_to_nodes(content)


def _version_key(text):
    major, minor = text.split('.')
    return int(major), int(minor)


def microversion_rows():
    """(version, command, option, what) for every declared gate.

    Gates of whole commands (``min_version``), of options (``since=``), of
    some option values (``value_gates=``), and options that become
    required (``required_since=``).
    """
    rows = []
    for entry_point in importlib.metadata.entry_points(group=COMMAND_GROUP):
        name = entry_point.name.replace('_', ' ')
        command_class = entry_point.load()
        command = command_class(None, None)
        parser = command.get_parser('openstack ' + name)
        if getattr(command_class, 'min_version', None):
            rows.append((command_class.min_version, name, '', 'the command'))
        by_dest = {}
        for action in parser._actions:
            if action.help is argparse.SUPPRESS:
                continue
            label = (action.option_strings[0] if action.option_strings
                     else action.metavar or action.dest)
            by_dest[action.dest] = label
            since = getattr(action, 'min_version', None)
            if since:
                rows.append((since, name, label, ''))
        for dest, _since, gates in getattr(command, '_option_gates', ()):
            if dest not in by_dest:
                continue
            for gate in gates:
                rows.append((gate.min_version, name, by_dest[dest],
                             gate.meaning))
        for flag, _dest, since in getattr(command, '_required_since', ()):
            rows.append((since, name, flag, 'becomes required'))
    rows.sort(key=lambda row: (_version_key(row[0]),) + row[1:])
    return rows


class PlacementMicroversionTable(SphinxDirective):
    """Every command and option gate, by microversion, from the code."""

    def run(self):
        lines = ['.. list-table::', '   :header-rows: 1',
                 '   :widths: 10 35 55', '',
                 '   * - Version', '     - Command', '     - Option']
        for since, name, label, meaning in microversion_rows():
            if not label:
                option = '(the whole command)'
            else:
                option = '``%s``' % label
                if meaning:
                    option += ': ' + meaning
            lines.extend(['   * - %s' % since, '     - %s' % name,
                          '     - %s' % option])
        content = statemachine.StringList(lines, source='<placement>')
        return self.parse_text_to_nodes(content)


# -- The house page: its layers and imports, read from the code -------------

LAYOUT_TEST = os.path.join(TOP, 'osc_placement', 'tests', 'unit',
                           'test_layout.py')


def _layers():
    """The LAYERS table of the layout test: (layer, members), bottom first.

    Read, not imported: the test module needs the test requirements.
    """
    with open(LAYOUT_TEST) as f:
        tree = ast.parse(f.read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                getattr(target, 'id', None) == 'LAYERS'
                for target in node.targets):
            return ast.literal_eval(node.value)
    raise ExtensionError('no LAYERS table in %s' % LAYOUT_TEST)


def _package_modules():
    """(dotted name, path relative to TOP) of the package's modules."""
    package = os.path.join(TOP, 'osc_placement')
    for dirpath, dirnames, filenames in os.walk(package):
        rel = os.path.relpath(dirpath, TOP)
        if 'tests' in rel.split(os.sep):
            dirnames[:] = []
            continue
        dirnames.sort()
        for name in sorted(filenames):
            if name.endswith('.py') and name != '__init__.py':
                yield (rel.replace(os.sep, '.') + '.' + name[:-3],
                       os.path.join(rel, name))
            elif name == '__init__.py' and rel != 'osc_placement':
                yield rel.replace(os.sep, '.'), os.path.join(rel, name)


def _module_facts(path, known):
    """The first line of a module's docstring and the modules it imports."""
    with open(os.path.join(TOP, path)) as f:
        tree = ast.parse(f.read())
    summary = (ast.get_docstring(tree) or '').split('\n')[0]
    imports = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and \
                node.module.startswith('osc_placement'):
            for alias in node.names:
                full = '%s.%s' % (node.module, alias.name)
                imports.add(full if full in known else node.module)
        elif isinstance(node, ast.Import):
            imports.update(alias.name for alias in node.names
                           if alias.name.startswith('osc_placement'))
    return summary, sorted(imports)


def _rank(module, layers):
    for rank, (_layer, members) in enumerate(layers):
        if any(module == m or module.startswith(m + '.') for m in members):
            return rank
    return None


class PlacementLayers(SphinxDirective):
    """Each layer's modules, their job and what they import, top first."""

    def run(self):
        layers = _layers()
        modules = list(_package_modules())
        known = {name for name, _path in modules}
        lines = []
        for rank in reversed(range(len(layers))):
            layer = layers[rank][0]
            lines.extend(['', '**The %s**' % layer, ''])
            for name, path in modules:
                if _rank(name, layers) != rank:
                    continue
                summary, imports = _module_facts(path, known)
                lines.append('``%s``' % path)
                lines.append('    %s' % (summary or '(no docstring)'))
                if imports:
                    lines.append('    Imports: %s.' % ', '.join(
                        '``%s``' % m[len('osc_placement.'):]
                        for m in imports))
                lines.append('')
        content = statemachine.StringList(lines, source='<placement>')
        return self.parse_text_to_nodes(content)


def setup(app):
    app.add_directive('autoprogram-cliff', ReferenceCommands, override=True)
    app.add_directive('placement-global-option', PlacementGlobalOption)
    app.add_directive('placement-microversion-table',
                      PlacementMicroversionTable)
    app.add_directive('placement-layers', PlacementLayers)
    app.connect('builder-inited', check_commands)
    app.connect('build-finished', check_reference)
