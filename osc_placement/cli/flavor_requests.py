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

"""The ``--flavor`` options of the commands that build a candidates request.

``add_options()`` declares them; ``given()`` says whether a run uses them
and ``check()`` refuses what cannot go with them (and PCI aliases Nova
refuses: ``pci_aliases()``, which reads ``--pci-alias`` or the
``--nova-config`` file); ``translated()`` returns
each flavor's request as ``osc_placement.model.flavors.translate()`` builds it,
checked against the session's Placement microversion. ``read()`` reads
the flavors and the zone's aggregates (or hosts and their compute nodes)
from Nova (``osc_placement.api.compute``, imported only when these
options are given). The commands import this module in the functions
that use it (their parsers and runs), never at their top: see
``osc_placement.resources``.
"""

import logging

from osc_lib import exceptions

from osc_placement.api import providers
from osc_placement.model import text
from osc_placement import version

LOG = logging.getLogger(__name__)


class Flavored(object):
    """A flavor's name and its ``flavors.Translation``.

    ``refused``: the ``flavors.Refused`` of a flavor that cannot be asked
    for (its translation is then None). ``hosts``: the compute nodes of
    the hosts of Nova's default zone, ``{root provider UUID:
    compute.Node}``, whose trees alone count (None: no such zone).
    """

    def __init__(self, name, translation, refused=None, hosts=None):
        self.name = name
        self.translation = translation
        self.refused = refused
        self.hosts = hosts

    @property
    def params(self):
        return self.translation.params


def add_options(cmd, parser, with_all=True):
    """Add --flavor (--all-flavors) and the options that go with it."""
    cmd.add_option(
        parser, '--flavor', metavar='<flavor>', action='append', default=[],
        extended=True,
        help='The request Nova\'s scheduler sends for this flavor (name or '
             'ID, read from the compute API) instead of ``--resource``'
             + ('. May be repeated.' if with_all else
                ' and ``--group``.'))
    if with_all:
        cmd.add_option(
            parser, '--all-flavors', action='store_true', extended=True,
            help='Every flavor of the compute API, public and private, as '
                 'an admin sees them, in the order of their names.')
    cmd.add_option(
        parser, '--boot-from-volume', action='store_true', extended=True,
        help='With ``--flavor``: the root disk is not asked for, as Nova '
             'does for a server booted from a volume.')
    cmd.add_option(
        parser, '--availability-zone', metavar='<zone>', extended=True,
        help='With ``--flavor``: the request lands in one of the host '
             'aggregates of this availability zone (``member_of=in:`` '
             'their UUIDs, as Nova\'s scheduler asks); in Nova\'s default '
             'zone, which no aggregate carries, only the trees of its '
             'hosts\' compute nodes count (the root providers of their '
             'hypervisors\' UUIDs). A zone whose aggregates hold no '
             'provider in Placement is one line on stderr naming them '
             '(no tree; exit 0, as for any selection of no tree).')
    cmd.add_option(
        parser, '--include-disabled', action='store_true', extended=True,
        help='With ``--flavor``: disabled computes count too (the request '
             'does not forbid ``COMPUTE_STATUS_DISABLED`` on the root).')
    _add_pci_options(cmd, parser)


def _add_pci_options(cmd, parser):
    """--pci-alias, --nova-config and --owner-nova."""
    cmd.add_option(
        parser, '--pci-alias', metavar='<json>', action='append',
        default=[], extended=True,
        help='With ``--flavor``: a PCI alias as Nova\'s ``[pci] alias`` '
             'option has it (JSON: ``{"name": "a100", "vendor_id": '
             '"10de", "product_id": "20b5"}``), so that a flavor\'s '
             '``pci_passthrough:alias`` is asked for as Nova asks '
             'Placement for PCI devices (``[filter_scheduler] '
             'pci_in_placement``): one request group per device. May be '
             'repeated, one alias each.')
    cmd.add_option(
        parser, '--nova-config', metavar='<nova.conf>', extended=True,
        help='With ``--flavor``: the PCI aliases of this Nova configuration '
             'file (``[pci] alias``), asked for as ``--pci-alias`` does '
             'where its ``[filter_scheduler] pci_in_placement`` is true.')
    cmd.add_option(
        parser, '--owner-nova', action='store_true', extended=True,
        help='With ``--flavor``: the root provider and those of the PCI '
             'devices must have ``OWNER_NOVA``, as Nova 34 requires once '
             'every nova-compute runs 34.')


def given(parsed_args):
    """True if the run asks for flavors."""
    return bool(parsed_args.flavor or getattr(parsed_args, 'all_flavors',
                                              False))


def check(parsed_args, replaced=('resource',)):
    """One line, before any request, for options that cannot go together.

    ``replaced``: the dests of the options ``--flavor`` replaces.
    """
    if given(parsed_args):
        for dest in replaced:
            if getattr(parsed_args, dest, None):
                raise exceptions.CommandError(
                    '--flavor and --all-flavors replace --%s: give one or '
                    'the other.' % dest.replace('_', '-'))
        pci_aliases(parsed_args)
        return
    # Only the commands that have --all-flavors name it.
    needs = '--flavor or --all-flavors' if hasattr(
        parsed_args, 'all_flavors') else '--flavor'
    for flag in ('boot_from_volume', 'availability_zone',
                 'include_disabled', 'pci_alias', 'nova_config',
                 'owner_nova'):
        if getattr(parsed_args, flag, None):
            raise exceptions.CommandError('--%s needs %s.' % (
                flag.replace('_', '-'), needs))


def pci_aliases(parsed_args):
    """The ``flavors.pci_aliases()`` of the run, None without them.

    Those of ``--pci-alias`` (PCI in Placement), or those of the
    ``--nova-config`` file and its ``pci_in_placement``. Aliases Nova
    refuses are one line naming the option and the alias.
    """
    # Only here: the translation's modules are loaded by the runs that
    # translate flavors (see osc_placement.resources).
    from osc_placement.model import flavors
    path = parsed_args.nova_config
    if path is not None and parsed_args.pci_alias:
        raise exceptions.CommandError(
            '--pci-alias and --nova-config: give one or the other.')
    if path is not None:
        source = '--nova-config %s' % text.printable(path)
        entries, in_placement = _read_nova_config(source, path)
    elif parsed_args.pci_alias:
        source = '--pci-alias'
        entries, in_placement = parsed_args.pci_alias, True
    else:
        return None
    try:
        return flavors.pci_aliases(entries, in_placement=in_placement)
    except flavors.InvalidAlias as exc:
        raise exceptions.CommandError('%s: %s' % (source, exc))


def _read_nova_config(source, path):
    """([pci] alias entries, [filter_scheduler] pci_in_placement).

    Read as Nova reads its configuration (oslo.config: values in quotes,
    lines that go on indented, ``alias`` given several times, and its
    old name ``[DEFAULT] pci_alias``); one line naming the file for one
    that cannot be read or parsed.
    """
    # Only here: oslo.config is loaded by the runs that read a nova.conf.
    from oslo_config import cfg
    conf = cfg.ConfigOpts()
    conf.register_opts([cfg.MultiStrOpt(
        'alias', default=[], deprecated_name='pci_alias',
        deprecated_group='DEFAULT')], group='pci')
    conf.register_opts([cfg.BoolOpt('pci_in_placement', default=False)],
                       group='filter_scheduler')
    try:
        conf(args=[], project='nova', default_config_files=[path],
             default_config_dirs=[], use_env=False)
        return (list(conf.pci.alias),
                conf.filter_scheduler.pci_in_placement)
    except (cfg.Error, OSError, ValueError) as exc:
        raise exceptions.CommandError('%s: %s' % (
            source, text.printable(str(exc).strip())))


def read(cmd, parsed_args, hosts_ok=True):
    """(flavors, zone) of the ``--flavor`` options, from Nova.

    The flavors in the order given (one named twice is read once), or
    every flavor sorted by name with ``--all-flavors``; the
    ``compute.Zone`` of ``--availability-zone`` (None without it): the
    UUIDs of its host aggregates, or, for Nova's default zone (that no
    aggregate carries), its hosts and their compute nodes, said in one
    line on stderr (and one more for the hosts without any); without
    ``hosts_ok`` (a command that cannot narrow its answer to the hosts'
    trees), that zone is one line and no answer, before the compute
    nodes are read.
    """
    # Only here: a command run without these options must not load the
    # compute helpers (nor openstacksdk's compute proxy through them).
    from osc_placement.api import compute
    clients = cmd.app.client_manager
    if getattr(parsed_args, 'all_flavors', False):
        found = sorted(compute.all_flavors(clients),
                       key=lambda flavor: (flavor['name'], flavor['id']))
    else:
        found = []
        for value in parsed_args.flavor:
            flavor = compute.find_flavor(clients, value)
            if flavor['id'] not in [f['id'] for f in found]:
                found.append(flavor)
    zone = None
    if parsed_args.availability_zone is not None:
        zone = compute.availability_zone(clients,
                                         parsed_args.availability_zone)
        if zone.hosts is not None and not hosts_ok:
            raise exceptions.CommandError(NOT_NARROWED % text.printable(
                repr(zone.name)))
        if zone.hosts is not None:
            zone = compute.with_nodes(clients, zone)
            _say_nodes(cmd, zone)
        else:
            _say_empty(cmd, zone)
    return found, zone


def _say_empty(cmd, zone):
    """One line when the zone's aggregates hold no provider in Placement.

    Then no tree is in the zone: Nova mirrors its host aggregates into
    Placement (``nova-manage placement sync_aggregates``); one GET.
    """
    http = cmd.app.client_manager.placement
    if not providers.members(http, 'in:' + ','.join(zone.aggregates)):
        cmd.log.warning(EMPTY_ZONE, text.printable(repr(zone.name)),
                        ', '.join(zone.aggregates))


def _say_nodes(cmd, zone):
    """The lines on stderr of the hosts of Nova's default zone."""
    shown = text.printable(repr(zone.name))
    cmd.log.warning(DEFAULT_ZONE, shown, len(zone.hosts), ', '.join(
        text.printable(host) for host in zone.hosts), len(zone.roots))
    without = [host for host in zone.hosts if not zone.nodes[host]]
    if without:
        cmd.log.warning(NO_NODE, ', '.join(
            text.printable(host) for host in without), shown)


# ... of a zone whose aggregates Placement has no provider in.
EMPTY_ZONE = (
    'Availability zone %s: its host aggregates (%s) hold no resource '
    'provider in Placement, so no tree is in the zone (nova-manage '
    'placement sync_aggregates mirrors them).')
# What --availability-zone says of Nova's default zone.
DEFAULT_ZONE = (
    'Availability zone %s is Nova\'s default one (its hosts are in no '
    'aggregate with a zone): the request names no aggregate, and only the '
    'trees of its %d nova-compute hosts count (%s), by the UUIDs of their '
    'compute nodes in GET /os-hypervisors/detail (%d found).')
# ... and of its hosts without a compute node.
NO_NODE = (
    'No hypervisor of the compute API is on host(s) %s of availability '
    'zone %s: no tree of theirs counts.')


NOT_NARROWED = (
    'Availability zone %s is Nova\'s default one (its hosts are in no '
    'aggregate with a zone): Nova\'s request names no aggregate and its '
    'scheduler keeps the zone\'s hosts afterwards, which this command does '
    'not do; capacity fit and allocation candidate explain count only '
    'their trees.')


def zone_hosts(flavored):
    """The ``hosts`` of [Flavored]: {root UUID: Node} (None: any tree)."""
    return next((one.hosts for one in flavored), None)


def translated(cmd, http, parsed_args, found, zone, required=(),
               forbidden=(), member_of=(), in_tree=None, root_required=(),
               keep_going=False):
    """[Flavored]: each flavor's request, in the order given.

    found: the flavors as ``compute.find_flavor()`` returns them;
    zone: the ``compute.Zone`` of ``read()`` (None: no zone).
    required, forbidden, member_of, in_tree, root_required: the options
    that add to the request, as ``flavors.translate()`` takes them.
    Checks each part's microversion against the session (one line naming
    the part and the version) and logs the warnings. A flavor that cannot
    be asked for raises its ``flavors.Refused``; with ``keep_going``, it is
    a ``Flavored`` with that error instead, and the others go on. With
    ``--all-flavors``, a flavor Nova's scheduler refuses is one warning
    line and no request, row nor series.
    """
    # Only here: the translation's tables and patterns are loaded by the
    # runs that translate flavors (see osc_placement.resources).
    from osc_placement.model import flavors
    hosts = zone.roots if zone is not None else None
    options = dict(boot_from_volume=parsed_args.boot_from_volume,
                   include_disabled=parsed_args.include_disabled,
                   aggregates=zone.aggregates if zone is not None else None,
                   required=required,
                   forbidden=forbidden, member_of=member_of, in_tree=in_tree,
                   root_required=root_required)
    options.update(owner_nova=parsed_args.owner_nova,
                   pci_aliases=pci_aliases(parsed_args))
    translations = []
    every = getattr(parsed_args, 'all_flavors', False)
    for flavor in list(found):
        try:
            translations.append(flavors.translate(flavor, **options))
        except flavors.Refused as refused:
            if every:
                # One flavor Nova's scheduler refuses is no failure of
                # the cloud's count (an exporter keeps every other).
                cmd.log.warning('Flavor %s is not counted: %s',
                                refused.flavor, refused.reason)
                found.remove(flavor)
                continue
            translations.append(refused)
    # The flavor options are the reference's none: where the user did not
    # pin a version, the session gets what the flavors' requests need.
    needs = [needed for one in translations
             if not isinstance(one, flavors.Refused)
             for _part, needed in one.needs]
    if needs:
        http.raise_for(max(needs, key=version.parse), 'the flavors')
    result = []
    for flavor, translation in zip(found, translations):
        try:
            if isinstance(translation, flavors.Refused):
                raise translation
            name = text.printable(flavor['name'])
            too_new = _too_new(http, translation)
            if too_new:
                raise flavors.Refused(name, too_new)
        except flavors.Refused as refused:
            if not keep_going:
                raise
            result.append(Flavored(refused.flavor, None, refused=refused,
                                   hosts=hosts))
            continue
        for warning in translation.warnings:
            cmd.log.warning('%s', warning)
        LOG.debug('Flavor %s: GET /allocation_candidates?%s', name,
                  '&'.join('%s=%s' % pair for pair in translation.params))
        result.append(Flavored(name, translation, hosts=hosts))
    return result


def _too_new(http, translation):
    """Why the session cannot ask for a translation, or None.

    The first part of the request that needs a later microversion than
    the session's, naming the version.
    """
    for part, needed in translation.needs:
        if not version.compare(http.api_version, version.ge(needed),
                               exc=False):
            return ('%s needs --os-placement-api-version %s or later (this '
                    'session uses %s).' % (part, needed, http.api_version))
    return None
