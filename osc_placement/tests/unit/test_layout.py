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

"""The layout of the house: layers that import only downwards.

From the bottom: the model (pure rules and values), the transport (the
one session client), the API layer (what is sent and read), the command
framework (cliff and argparse) and the commands. ``LAYERS`` says which
modules are in which layer; a module may import its own layer and those
below, never one above, and no command module imports another.
``doc/source/contributor/house.rst`` draws the same table.
"""

import ast
import os
import re

from oslotest import base

import osc_placement
from osc_placement.tests.functional import test_plugin_import as start_up

PACKAGE = os.path.dirname(os.path.abspath(osc_placement.__file__))

# Bottom first: (layer, the module names or package prefixes it holds).
LAYERS = (
    ('model', ('osc_placement.version', 'osc_placement.microversions',
               'osc_placement.model')),
    ('transport', ('osc_placement.errors', 'osc_placement.http')),
    ('api', ('osc_placement.plugin', 'osc_placement.api')),
    ('framework', ('osc_placement.cli',)),
    ('commands', ('osc_placement.resources',)),
)
COMMANDS = 'osc_placement.resources'

# The one table of microversions, and the module that reads them.
VERSION_MODULES = ('osc_placement.microversions', 'osc_placement.version')
# Placement's (1.N) and the compute API's (2.N).
_MICROVERSION = re.compile(r'^[12]\.[0-9]+$')
# Strings that look like a microversion and are not one: (module, the
# module-level name assigned that string, why). Only that assignment is
# allowed: the same string anywhere else in the module is reported.
NOT_MICROVERSIONS = (
    ('osc_placement.model.flavors.specs', 'TPM_1_2',
     "a TPM version of Nova's hw:tpm_version extra spec"),
    ('osc_placement.model.flavors.specs', 'TPM_2_0',
     "a TPM version of Nova's hw:tpm_version extra spec"),
)

MAX_MODULE_LINES = 600
MAX_CLASS_LINES = 250
MAX_FUNCTION_LINES = 80


def layer_of(module):
    """The rank of a module's layer (0 the bottom), None outside them."""
    for rank, (_, members) in enumerate(LAYERS):
        for member in members:
            if module == member or module.startswith(member + '.'):
                return rank
    return None


def package_modules():
    """(dotted name, path) of every module of the package, tests apart."""
    for dirpath, dirnames, filenames in os.walk(PACKAGE):
        rel = os.path.relpath(dirpath, os.path.dirname(PACKAGE))
        if 'tests' in rel.split(os.sep):
            dirnames[:] = []
            continue
        dirnames.sort()
        for name in sorted(filenames):
            if name.endswith('.py'):
                dotted = rel.replace(os.sep, '.')
                if name != '__init__.py':
                    dotted += '.' + name[:-3]
                yield dotted, os.path.join(dirpath, name)


def parse(path):
    with open(path) as f:
        return ast.parse(f.read(), path)


def imported(tree):
    """Every osc_placement module a module's code imports."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module.startswith('osc_placement'):
                for alias in node.names:
                    full = '%s.%s' % (node.module, alias.name)
                    # "from package import module" names the module;
                    # "from module import name" the module itself.
                    yield full if layer_of(full) is not None and (
                        _is_module(full)) else node.module
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith('osc_placement'):
                    yield alias.name


def _is_module(dotted):
    path = os.path.join(os.path.dirname(PACKAGE), *dotted.split('.'))
    return os.path.exists(path + '.py') or os.path.isdir(path)


class TestLayers(base.BaseTestCase):

    def test_every_module_has_a_layer(self):
        outside = [name for name, _ in package_modules()
                   if layer_of(name) is None
                   and name not in ('osc_placement', )]
        self.assertEqual([], outside)

    def test_no_module_imports_upwards(self):
        offenders = {}
        for name, path in package_modules():
            rank = layer_of(name)
            if rank is None:
                continue
            above = sorted({m for m in imported(parse(path))
                            if (layer_of(m) or 0) > rank})
            if above:
                offenders[name] = above
        self.assertEqual({}, offenders)

    def test_no_command_module_imports_another(self):
        offenders = {}
        for name, path in package_modules():
            if not name.startswith(COMMANDS + '.'):
                continue
            others = sorted({m for m in imported(parse(path))
                             if m.startswith(COMMANDS + '.') and m != name})
            if others:
                offenders[name] = others
        self.assertEqual({}, offenders)

    def test_command_modules_declare_commands(self):
        for name, path in package_modules():
            if not name.startswith(COMMANDS + '.'):
                continue
            classes = [node for node in parse(path).body
                       if isinstance(node, ast.ClassDef)]
            self.assertTrue(classes, '%s declares no command' % name)


class TestApiTakesNoCommand(base.BaseTestCase):
    """The api layer knows no cliff command.

    What a read needs of the command that calls it is passed explicitly
    (``api.runner.Runner``, the client, a logger). A module of the layer
    is held to it by what its syntax tree shows: no import of cliff or of
    ``osc_lib.command``, no parameter named ``cmd`` or ``command``, and no
    use of what only a command has (its ``app`` and the ``client_manager``
    reached through it, its ``compare_version``/``check_version``): a
    command passed under another name is then caught where it is used.
    """

    API = 'osc_placement.api'
    PARAMETERS = ('cmd', 'command')
    ATTRIBUTES = ('app', 'client_manager', 'compare_version',
                  'check_version')
    # Modules still to convert, each one a helper of issue 49 section 6
    # is converting: remove an entry as its module lands (the test fails
    # on an entry that no longer takes a command).
    STILL_TO_CONVERT = {}

    @staticmethod
    def _from_cliff(module):
        return module == 'cliff' or module.startswith('cliff.') or \
            module == 'osc_lib.command' or \
            module.startswith('osc_lib.command.')

    def _command_uses(self, tree):
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if self._from_cliff(alias.name):
                        yield 'import %s' % alias.name
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + ['%s.%s' % (node.module, a.name)
                                         for a in node.names]
                if any(self._from_cliff(name) for name in names):
                    yield 'from %s import' % node.module
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                                   ast.Lambda)):
                args = node.args
                for arg in (args.posonlyargs + args.args + args.kwonlyargs
                            + [args.vararg, args.kwarg]):
                    if arg is not None and arg.arg in self.PARAMETERS:
                        yield 'parameter %s' % arg.arg
            elif isinstance(node, ast.Attribute) and \
                    node.attr in self.ATTRIBUTES:
                yield 'attribute %s' % node.attr

    def _offenders(self):
        found = {}
        for name, path in package_modules():
            if name == self.API or name.startswith(self.API + '.'):
                uses = sorted(set(self._command_uses(parse(path))))
                if uses:
                    found[name] = uses
        return found

    def test_no_api_module_takes_a_command(self):
        found = self._offenders()
        self.assertEqual({}, {name: uses for name, uses in found.items()
                              if name not in self.STILL_TO_CONVERT})
        self.assertEqual([], sorted(set(self.STILL_TO_CONVERT) - set(found)),
                         'converted: remove from STILL_TO_CONVERT')

    def test_the_check_sees_a_command(self):
        source = (
            'from osc_lib.command import command\n'
            'from osc_lib import command as c\n'
            'import cliff.lister\n'
            'def read(cmd, http): pass\n'
            'def named(x): return x.app.client_manager.placement\n'
            'def gate(x): return x.compare_version(None)\n')
        self.assertEqual(
            ['attribute app', 'attribute client_manager',
             'attribute compare_version', 'from osc_lib import',
             'from osc_lib.command import', 'import cliff.lister',
             'parameter cmd'],
            sorted(set(self._command_uses(ast.parse(source)))))


class TestMicroversionTable(base.BaseTestCase):

    @staticmethod
    def _literals(tree, allowed_names=()):
        """The microversion look-alikes of a module's syntax tree.

        Those assigned, alone, at module level to one of
        ``allowed_names`` apart.
        """
        allowed = {id(statement.value) for statement in tree.body
                   if isinstance(statement, ast.Assign)
                   and len(statement.targets) == 1
                   and isinstance(statement.targets[0], ast.Name)
                   and statement.targets[0].id in allowed_names}
        return sorted({
            node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and _MICROVERSION.match(node.value)
            and id(node) not in allowed})

    def test_no_microversion_literal_outside_the_table(self):
        found = {}
        for name, path in package_modules():
            if name in VERSION_MODULES:
                continue
            literals = self._literals(parse(path), [
                constant for module, constant, _ in NOT_MICROVERSIONS
                if module == name])
            if literals:
                found[name] = literals
        self.assertEqual({}, found)

    def test_only_the_named_assignment_is_allowed(self):
        tree = ast.parse("TPM_2_0 = '2.0'\n"
                         "OTHER = '2.0'\n"
                         "def f(v):\n"
                         "    return v == '1.38'\n")
        self.assertEqual(['1.38', '2.0'],
                         self._literals(tree, ['TPM_2_0']))
        self.assertEqual([], self._literals(ast.parse("TPM_2_0 = '2.0'"),
                                            ['TPM_2_0']))


class TestLazyImports(base.BaseTestCase):
    """Imports inside functions: only what the start-up test wants lazy.

    cliff imports every command module on every run, so the engines and
    parts that few runs use are imported by those runs
    (``tests/functional/test_plugin_import.py`` names them and checks
    it). Any other import belongs at the top of its module; each lazy one
    says why on the comment line above it (or above its group).
    """

    def _lazy_imports(self):
        for name, path in package_modules():
            with open(path) as f:
                lines = f.read().split('\n')
            tree = ast.parse('\n'.join(lines), path)
            for function in ast.walk(tree):
                if not isinstance(function, (ast.FunctionDef,
                                             ast.AsyncFunctionDef)):
                    continue
                for node in ast.walk(function):
                    if isinstance(node, (ast.Import, ast.ImportFrom)):
                        yield name, lines, node

    def test_only_engines_and_parts(self):
        lazy = start_up.ENGINES + start_up.PARTS
        found = {}
        for name, _lines, node in self._lazy_imports():
            for module in imported(ast.Module(body=[node],
                                              type_ignores=[])):
                if module not in lazy:
                    found.setdefault(name, []).append(module)
        self.assertEqual({}, found)

    def test_each_says_why(self):
        silent = []
        for name, lines, node in self._lazy_imports():
            above = node.lineno - 2
            while above >= 0 and lines[above].strip().startswith(
                    ('from ', 'import ')):
                above -= 1
            if above < 0 or not lines[above].strip().startswith('#'):
                silent.append('%s:%d' % (name, node.lineno))
        self.assertEqual([], silent)


class TestTestsMirrorThePackage(base.BaseTestCase):
    """The unit tests of ``x/y.py`` are in ``tests/unit/x/test_y.py``."""

    # Tests of the whole package, of no one module.
    WHOLE_PACKAGE = ('test_layout.py', 'test_contract.py')

    def test_every_test_module_mirrors_a_module(self):
        unit = os.path.join(PACKAGE, 'tests', 'unit')
        strays, no_init = [], []
        for dirpath, dirnames, filenames in os.walk(unit):
            dirnames[:] = [d for d in dirnames if d != '__pycache__']
            rel = os.path.relpath(dirpath, unit)
            if any(name.endswith('.py') for name in filenames) and \
                    '__init__.py' not in filenames:
                no_init.append(rel)
            for name in filenames:
                if not (name.startswith('test_') and name.endswith('.py')):
                    continue
                if rel == '.' and name in self.WHOLE_PACKAGE:
                    continue
                target = os.path.normpath(
                    os.path.join(PACKAGE, rel, name[len('test_'):-3]))
                if not (os.path.isfile(target + '.py')
                        or os.path.isdir(target)):
                    strays.append(os.path.join(rel, name))
        self.assertEqual(([], []), (sorted(strays), sorted(no_init)))

    # Modules whose tests are still to be moved or written (issue 49,
    # section 6): remove an entry as its tests/unit/x/test_y.py lands (the
    # test fails on an entry that has one).
    STILL_TO_MIRROR = ()

    @staticmethod
    def _has_code(tree):
        """Whether a module defines a function or a class.

        A package's ``__init__`` that only imports (re-exports) and names
        values has no code of its own to test: its names are tested in
        their modules.
        """
        return any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                                     ast.ClassDef)) for node in tree.body)

    @staticmethod
    def mirror_of(name, path):
        """The path of the unit test file of a module (or package)."""
        parts = name.split('.')[1:]
        if os.path.basename(path) == '__init__.py' and not parts:
            return None
        return os.path.join(PACKAGE, 'tests', 'unit', *parts[:-1],
                            'test_%s.py' % parts[-1])

    def test_every_module_has_its_mirrored_test_file(self):
        missing, mirrored = [], []
        for name, path in package_modules():
            test_file = self.mirror_of(name, path)
            if test_file is None or (
                    os.path.basename(path) == '__init__.py'
                    and not self._has_code(parse(path))):
                continue
            if not os.path.isfile(test_file):
                missing.append(name)
            elif name in self.STILL_TO_MIRROR:
                mirrored.append(name)
        self.assertEqual(
            (sorted(self.STILL_TO_MIRROR), []), (sorted(missing), mirrored),
            'a module without tests/unit/x/test_y.py, or one that has it '
            'now: remove it from STILL_TO_MIRROR')


class TestSizes(base.BaseTestCase):
    """Modules, classes and functions small enough to read at once."""

    def _sources(self):
        yield from package_modules()
        tools = os.path.join(os.path.dirname(PACKAGE), 'tools')
        if os.path.isdir(tools):
            for dirpath, _, filenames in os.walk(tools):
                for name in sorted(filenames):
                    if name.endswith('.py'):
                        path = os.path.join(dirpath, name)
                        yield os.path.relpath(path, tools), path

    def test_module_sizes(self):
        big = {}
        for name, path in self._sources():
            with open(path) as f:
                lines = len(f.readlines())
            if lines > MAX_MODULE_LINES:
                big[name] = lines
        self.assertEqual({}, big)

    def test_class_and_function_sizes(self):
        big = {}
        for name, path in self._sources():
            for node in ast.walk(parse(path)):
                if isinstance(node, ast.ClassDef):
                    limit = MAX_CLASS_LINES
                elif isinstance(node, (ast.FunctionDef,
                                       ast.AsyncFunctionDef)):
                    limit = MAX_FUNCTION_LINES
                else:
                    continue
                lines = node.end_lineno - node.lineno + 1
                if lines > limit:
                    big['%s:%s' % (name, node.name)] = lines
        self.assertEqual({}, big)

    def test_every_module_says_its_job(self):
        silent = [name for name, path in self._sources()
                  if not name.endswith('__init__') and name != 'osc_placement'
                  and not ast.get_docstring(parse(path))]
        self.assertEqual([], silent)
