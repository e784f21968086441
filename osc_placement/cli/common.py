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

"""What every placement command shares.

* ``PlacementCommand.add_option()`` declares an option together with its
  microversion range: the same declaration writes the help sentence and
  gates the option in ``take_action`` (``PlacementCommand.prepare()``).
* Options that the reference plugin does not have are declared
  ``extended``: they are listed in the help but left out of the usage
  synopsis, so that usage errors print exactly what scripts already parse.
"""

import argparse
import copy
import re
import textwrap

from autopage import argparse as autopage_argparse
from osc_lib.command import command
from osc_lib import exceptions

from osc_placement.api import paths
from osc_placement.api import providers
from osc_placement.api import runner as api_runner
from osc_placement.cli import parsers
from osc_placement import errors
from osc_placement.http import inflight
from osc_placement.model import text as text_lib
from osc_placement import version

DESCRIPTION_WIDTH = 76
# Exit codes after a signal: 128 + its number.
EXIT_SIGNAL = inflight.EXIT_SIGNAL

# The inline literals of reStructuredText: ``text``. (A pattern string:
# re compiles it the first time help is printed, not at every start-up.)
_LITERAL_RE = r'(?s)``(.+?)``'


def plain_text(text):
    """reStructuredText help as a terminal shows it: no markup.

    ````--long```` becomes ``--long``; a paragraph that introduces a
    literal block ends with one colon (``e.g.::`` becomes ``e.g.:``, a
    ``::`` after a blank or alone on its line disappears).
    """
    lines = []
    for line in re.sub(_LITERAL_RE, r'\1', text).split('\n'):
        stripped = line.rstrip()
        if stripped.endswith('::'):
            if not stripped.strip(': '):
                continue
            if stripped.endswith(' ::'):
                line = stripped[:-3]
            else:
                line = stripped[:-1]
        lines.append(line)
    return '\n'.join(lines)


class HelpFormatter(autopage_argparse.RawDescriptionHelpFormatter):
    """The formatter of the help, which prints it as plain text.

    cliff's colours (autopage), the description printed as
    get_description() filled it, and no markup: the description and the
    options' help are written in reStructuredText, which the CLI
    reference (cliff's ``autoprogram-cliff``, reading
    ``parser.description`` and each action's ``help``) renders; on a
    terminal, where this formatter writes them, the markup is taken out.
    """

    def format_help(self):
        return plain_text(super().format_help())


HELP_FORMATTER = HelpFormatter


def _not_utf8(value):
    """What is wrong with ``value`` if it holds bytes that are not UTF-8."""
    if isinstance(value, str) and text_lib.undecodable(value):
        return "'%s' is not valid UTF-8" % text_lib.shown_bytes(value)
    return None


def refuse_undecodable(value, what):
    """A CommandError if ``value`` holds bytes that are not UTF-8."""
    problem = _not_utf8(value)
    if problem:
        raise exceptions.CommandError('%s: %s.' % (what, problem))


def _utf8(convert):
    """An argparse type: ``convert`` once the value is known to be UTF-8.

    argparse names the argument in the error, as for any type.
    """
    def checked(value):
        problem = _not_utf8(value)
        if problem:
            raise argparse.ArgumentTypeError(problem)
        return convert(value)
    return checked


def printable_text(value):
    """argparse type of a name written to the server: no control character.

    C0 and C1 control characters and DEL are refused, so that no name
    written by this client can send escape sequences to a terminal or
    break a line of ``-f value``.
    """
    if text_lib.has_control(value):
        raise argparse.ArgumentTypeError(
            "'%s' contains control characters, which a name cannot have"
            % text_lib.printable(value))
    return value


def new_name(value):
    """argparse type of a name to create: not empty, no control char."""
    return printable_text(parsers.non_empty(value))


# The argparse types of the placement commands' arguments (None: the
# arguments given without a type), each checked for UTF-8 first.
TEXT_TYPES = (None, str, parsers.non_empty, parsers.name_list,
              parsers.integer, printable_text, new_name)


# The output formats that print text for a terminal; json and yaml keep
# every value exactly as the server returned it.
ESCAPED_FORMATS = ('table', 'value', 'csv')


def shown_value(value):
    """A value of an output row: text with its control characters escaped.

    Printable text is returned as it is (the same object).
    """
    if isinstance(value, str) and not value.isprintable():
        return text_lib.printable(value)
    return value


def columns(cmd, declared):
    """The columns shown at the command's live microversion.

    ``declared``: (name, microversion that added it or None) pairs, in the
    order of the output.
    """
    return tuple(name for name, since in declared
                 if since is None or cmd.compare_version(version.ge(since)))


def since_sentence(min_version):
    return ('This option requires at least '
            '``--os-placement-api-version %s``.' % min_version)


def _given(value):
    return value is not None and value is not False and value != [] \
        and value != ''


def _hyphenated_first(flags):
    """The flags of an option, the hyphenated spelling first.

    For an option spelt both ways (``--max_unit``, ``--max-unit``), as
    OpenStackClient spells its options.
    """
    return tuple(sorted(flags, key=lambda flag: '_' in flag))


def fill_paragraphs(text, width=DESCRIPTION_WIDTH):
    """``text`` with each plain paragraph wrapped to ``width`` columns.

    Paragraphs with indented lines (examples, literal blocks) are kept as
    they are, line for line.
    """
    paragraphs = []
    for paragraph in text.strip('\n').split('\n\n'):
        lines = paragraph.split('\n')
        if any(line[:1].isspace() for line in lines):
            paragraphs.append(paragraph)
        else:
            paragraphs.append(textwrap.fill(' '.join(
                line.strip() for line in lines), width))
    return '\n\n'.join(paragraphs)


def _gated_given(cmd, parsed_args, values):
    """(dest, since, value_gates, value) of each gated option given.

    In the order ``cmd`` checks their gates; ``values``: see
    ``PlacementCommand.check_option_gates()``.
    """
    for dest, since, value_gates in sorted(cmd._option_gates,
                                           key=cmd._gate_rank):
        if values is not None:
            value = values.get(dest)
        else:
            value = getattr(parsed_args, dest, None)
        if _given(value):
            yield dest, since, value_gates, value


def needed_version(cmd, parsed_args, values=None):
    """The microversion that what the reference never had needs.

    The highest that the gates of the options given to ``cmd`` ask for,
    among the options declared ``extended`` (all of them in a command that
    is not the reference's); None if they ask for none. The reference's
    own options never count: its commands keep its default.
    """
    needs = []
    for dest, since, value_gates, value in _gated_given(cmd, parsed_args,
                                                        values):
        if cmd.in_reference and dest not in cmd._extended:
            continue
        needs.extend([since] if since else [])
        needs.extend(gate.min_version for gate in value_gates
                     if gate.applies(value))
    return max(needs, key=version.parse, default=None)


# The exit codes of a command the upstream plugin does not have, unless
# it says others (``exit_codes``).
EXIT_CODES = ('Exit codes: 0 on success; 1 for an error (in a batch, when '
              'any item failed, each said on a line of its own); 2 for a '
              'usage error; 130 (143) after Ctrl-C (SIGTERM), with one line '
              'saying what was done.')


class PlacementCommand(version.CheckerMixin):
    """Mixin of every placement command.

    ``min_version``: the microversion the whole command needs (None: any).
    ``default_parallel``: how many requests of a batch the command has in
    flight at once when ``--os-placement-parallel`` is not given (1 for the
    commands of the original plugin, which keep its order of requests).
    """

    min_version = None
    default_parallel = 1
    # False for the commands that the upstream plugin does not have: their
    # usage synopsis shows every option, their help their exit codes.
    in_reference = True
    exit_codes = EXIT_CODES

    # True while the parser is built only for its usage synopsis (see
    # _reference_usage()).
    _usage_only = False

    def run(self, parsed_args):
        """The command; after a signal that stopped it, its one line.

        A write in flight at the signal says what became of it, and the
        reads again after a refused write that nothing was written
        (``errors.Interrupted``); the exit code is 128 + the signal's
        number, as after a batch's.
        """
        for message in self.usage_errors(parsed_args):
            # argparse's usage synopsis and its one line; exit code 2.
            self._parser.error(message)
        try:
            return super().run(parsed_args)
        except errors.Interrupted as exc:
            self.log.error('%s', exc)
            return EXIT_SIGNAL[exc.signum]

    def usage_errors(self, parsed_args):
        """[message] of the options wrong together (exit 2); none here."""
        return []

    def get_description(self):
        description = super().get_description().rstrip()
        if not self.in_reference:
            description += '\n\n' + self.exit_codes
        if self.min_version:
            description = '%s\n\nThis command requires at least ' \
                '``--os-placement-api-version %s``.' % (
                    description.rstrip(), self.min_version)
        return fill_paragraphs(description)

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        self._parser = parser
        # The description is filled paragraph by paragraph above; the
        # formatter prints it as it is (keeping the examples' lines).
        parser.formatter_class = HELP_FORMATTER
        if not self._usage_only and self.in_reference:
            parser.usage = self._reference_usage(prog_name)
        # Every value typed is checked for UTF-8 before it is converted.
        for kind in TEXT_TYPES:
            parser.register('type', kind, _utf8(kind or str))
        self._option_gates = []
        # The dests of the options declared extended: see needed_version().
        self._extended = set()
        self._required_since = []
        self._required_before = []
        self._missing_errors = {}
        self._path_values = []
        return parser

    def in_path(self, action):
        """Declare that the values of ``action`` become request paths.

        ``prepare()`` refuses ``.`` and ``..`` among them before the first
        request.
        """
        self._path_values.append(
            (action.dest, action.metavar or action.option_strings[0]))
        return action

    def check_path_values(self, parsed_args):
        for dest, what in self._path_values:
            values = getattr(parsed_args, dest, None)
            if isinstance(values, str):
                values = [values]
            for value in values or ():
                paths.check_segment(value, what)

    @staticmethod
    def check_utf8(parsed_args):
        """Refuse any value that holds bytes that are not UTF-8.

        The argparse types refuse them as they parse, naming the argument;
        this catches the values of other types and of custom actions.
        """
        for dest, value in sorted(vars(parsed_args).items()):
            values = value if isinstance(value, (list, tuple)) else [value]
            for item in values:
                refuse_undecodable(item, 'The value of %s' % dest)

    def _reference_usage(self, prog_name):
        """The usage synopsis of the reference plugin: no extended option.

        Built from a second parser of this command in which the extended
        options are hidden (argparse leaves hidden options out of the
        synopsis) and the reference's spelling of each option comes first,
        so that the usage errors print what scripts already parse.
        """
        shadow = copy.copy(self)
        shadow._usage_only = True
        usage = shadow.get_parser(prog_name).format_usage()
        # 'usage: <synopsis>\n'; argparse expands %(prog)s in a usage text.
        synopsis = usage.split(': ', 1)[1].rstrip('\n')
        return synopsis.replace('%', '%%')

    def parser_version(self):
        """The version to build the parser for, known without a request."""
        return version.requested_version(getattr(self, 'app', None))

    def _parser_at_least(self, min_version):
        return version.compare(self.parser_version(),
                               version.ge(min_version), exc=False)

    def add_option(self, parser, *flags, since=None, value_gates=(),
                   required_since=None, missing_error=None,
                   required_before=None, extended=False, help='', **kwargs):
        """Add an argument together with the microversions it depends on.

        ``since``: the option needs at least that version. ``value_gates``
        (:class:`version.ValueGate`): some of its values need a later one.
        ``required_since``: the option is required from that version; that
        is an argparse requirement at the version the parser is built for,
        checked again at the live version by ``prepare()``. With
        ``missing_error``, or with ``latest`` (whose version the server
        decides), only ``prepare()`` checks; it raises that message.
        ``required_before``: the option is required below that version
        (argparse at the parser's version; at the live version
        ``prepare()`` raises the version-gate error).

        Each declaration adds its sentence to the help. ``parser`` may be
        an argument group. Returns the argparse action.
        """
        sentences = [help] if help else []
        if since:
            sentences.append(since_sentence(since))
        if required_since:
            # With 'latest' the version is the server's, known only once
            # negotiated: prepare() checks the requirement then.
            if missing_error is None and not version.negotiates_latest(
                    getattr(self, 'app', None)):
                kwargs['required'] = self._parser_at_least(required_since)
            sentences.append(
                'It is required from that version on.'
                if required_since == since else
                'Required from ``--os-placement-api-version %s``.'
                % required_since)
        if required_before:
            kwargs['required'] = not self._parser_at_least(required_before)
            sentences.append('Required before ``--os-placement-api-version '
                             '%s``.' % required_before)
        for gate in value_gates:
            sentences.append('From ``--os-placement-api-version %s``, %s.'
                             % (gate.min_version, gate.meaning))
        text = argparse.SUPPRESS if help is argparse.SUPPRESS \
            else ' '.join(sentences)
        if self._usage_only and extended:
            text = argparse.SUPPRESS
        spelt = flags if self._usage_only else _hyphenated_first(flags)
        action = parser.add_argument(*spelt, help=text, **kwargs)
        action.extended = extended
        action.min_version = since
        if since or value_gates:
            self._option_gates.append((action.dest, since, value_gates))
        if extended:
            self._extended.add(action.dest)
        if required_since:
            self._required_since.append((flags[0], action.dest,
                                         required_since))
            if missing_error is not None:
                self._missing_errors[flags[0]] = missing_error
        if required_before:
            self._required_before.append((action.dest, required_before))
        return action

    # The dests of the options whose gates are checked first, in this
    # order; the gates of the others follow in the order of declaration.
    gates_first = ()

    def _gate_rank(self, gate):
        dest = gate[0]
        if dest in self.gates_first:
            return self.gates_first.index(dest)
        return len(self.gates_first)

    def check_option_gates(self, parsed_args, values=None):
        """Raise the error of the first option given at the wrong version.

        Given too early (``since``, ``value_gates``), or missing where it
        is required (``required_since``, ``required_before``). ``values``
        (dest -> value) replaces ``parsed_args`` for the ``since`` and
        ``value_gates`` of options that are collected elsewhere (the
        request groups of allocation candidates). Where the user did not
        pin a version, the options the reference never had first get the
        version they need (:func:`needed_version`).
        """
        needed = needed_version(self, parsed_args, values)
        if needed:
            self.app.client_manager.placement.raise_for(
                needed, 'an option given')
        for dest, since, value_gates, value in _gated_given(
                self, parsed_args, values):
            if since:
                self.check_version(version.ge(since))
            for gate in value_gates:
                if gate.applies(value):
                    self.check_version(version.ge(gate.min_version))
        # The live (negotiated) version may differ from the parser's.
        missing = [(since, flag) for flag, dest, since in self._required_since
                   if not _given(getattr(parsed_args, dest, None))
                   and self.compare_version(version.ge(since))]
        if missing:
            since, flag = missing[0]
            if flag in self._missing_errors:
                raise exceptions.CommandError(self._missing_errors[flag])
            flags = [flag for s, flag in missing if s == since]
            raise exceptions.CommandError(
                '%s %s required from --os-placement-api-version %s.' % (
                    ' and '.join(flags), 'are' if len(flags) > 1 else 'is',
                    since))
        for dest, before in self._required_before:
            if not _given(getattr(parsed_args, dest, None)):
                self.check_version(version.ge(before))

    def prepare(self, parsed_args):
        """First step of ``take_action``: the client, then the gates.

        Making the client negotiates the microversion when asked to; the
        command's and its options' gates are then checked against it
        before any other request is sent.
        """
        self.check_utf8(parsed_args)
        self.check_path_values(parsed_args)
        http = self.app.client_manager.placement
        if self.min_version and not self.in_reference:
            http.raise_for(self.min_version, 'this command')
        if self.min_version:
            self.check_version(version.ge(self.min_version))
        self.check_option_gates(parsed_args)
        return http


def runner(cmd):
    """The ``api.runner.Runner`` of a batched command (``batch.Batched``).

    What the api layer's reads need of the command, passed to them
    instead of the command: its batch engine, its check that a batch was
    read whole, and its logger.
    """
    return api_runner.Runner(each=cmd.each,
                             require_complete=cmd.require_complete,
                             log=cmd.log)


class Command(PlacementCommand, command.Command):
    """A placement command that prints nothing on success."""


class Lister(PlacementCommand, command.Lister):
    """A placement command that prints rows."""

    def produce_output(self, parsed_args, column_names, data):
        if parsed_args.formatter in ESCAPED_FORMATS:
            data = ([shown_value(value) for value in row] for row in data)
        return super().produce_output(parsed_args, column_names, data)


class ShowOne(PlacementCommand, command.ShowOne):
    """A placement command that prints one record."""

    def produce_output(self, parsed_args, column_names, data):
        if parsed_args.formatter in ESCAPED_FORMATS:
            data = tuple(shown_value(value) for value in data)
        return super().produce_output(parsed_args, column_names, data)


class NamedCommand(object):
    """Mixin of the commands about one named thing: its positional first.

    ``positional``: (dest, metavar, help) of that positional; an empty value
    is a usage error. ``more_help``: if set, more values of the same kind
    may follow (an extended option), and ``named()`` returns them all.
    """

    positional = None
    more_help = None
    # True for the commands that write the name to the server (create):
    # a name with control characters is refused.
    writes_name = False
    # The positional's values become a segment of the request paths;
    # False for a value that is looked up or sent in a query.
    positional_in_path = True

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        dest, metavar, help = self.positional
        if self.more_help:
            # One entry in the help for both: the metavar once.
            help = '%s. %s' % (help.rstrip('.'), self.more_help)
        actions = [parser.add_argument(
            dest, metavar=metavar,
            type=new_name if self.writes_name else parsers.non_empty,
            help=help)]
        if self.more_help:
            actions.append(self.add_option(
                parser, 'more', metavar=metavar, nargs='*', default=[],
                type=parsers.non_empty, extended=True, help=argparse.SUPPRESS))
        if self.positional_in_path:
            for action in actions:
                self.in_path(action)
        return parser

    def named(self, parsed_args):
        """The positional's value, then the others given after it."""
        return [getattr(parsed_args, self.positional[0])] + parsed_args.more


class ProviderCommand(NamedCommand):
    """Mixin of the commands about one resource provider.

    Adds the ``<uuid>`` positional (a UUID or a name) first, and
    ``prepare_provider()``: ``prepare()`` then the provider's UUID.
    """

    positional = ('uuid', '<uuid>', 'UUID or name of the resource provider')
    # A value that is not a UUID is looked up by name.
    positional_in_path = False

    def prepare_provider(self, parsed_args):
        http = self.prepare(parsed_args)
        return http, providers.find_provider(http, parsed_args.uuid)
