"""The forms of the host table's records (``herdr_link_control.hosts``): what each field of a host
means, and the values a field that names a form may take.

A field that picks the code that writes or reads something (a hook's shape, a trust rule, a hint's
form, a file's format, a scope) is typed with the values that code handles (:data:`HookForm` and the
rest), so mypy checks every place that dispatches on one (``--strict`` includes strict equality).

Plain classes, not dataclasses, and the value types for type checkers only: ``hint`` reads the table
at the start of every session and imports neither ``re`` nor ``typing`` (``dataclasses`` imports both).
"""

from __future__ import annotations  # annotations stay unevaluated: typing is never imported

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Literal, TypeAlias

    from herdr_link_protocol import PresentationForm

    FileFormat: TypeAlias = Literal["json", "jsonc", "toml", "yaml"]
    """``json`` (strict), ``jsonc`` (comments allowed, then strict JSON), ``toml`` or ``yaml`` (YAML 1.1, as
    PyYAML's ``safe_load`` reads it: Hermes Agent)."""
    Scope: TypeAlias = Literal["user", "project"]
    HookForm: TypeAlias = Literal["group", "matcher", "named", "versioned"]
    """The shape of a hint hook's entry (:attr:`Hook.form`)."""
    TrustRule: TypeAlias = Literal[
        "projects", "trust_level", "folders", "trusted_list", "trusted_at", "folder_records", "record_files"
    ]
    """How a host records folder trust (:attr:`Trust.rule`)."""
    TrustFixAt: TypeAlias = Literal["folder", "root"]
    HintForm: TypeAlias = Literal["session-start", "additional-context", "context", "inject-steps", "plain"]
    """How ``hint --host`` answers for a host (:attr:`Host.hint`)."""
    HostField: TypeAlias = Literal[
        "servers", "hint", "hook", "allow", "trust", "migration", "setup", "shared", "extension"
    ]
    """The optional parts of a host a lookup can select hosts by (:func:`~herdr_link_control.hosts.hosts_with`)."""

__all__ = [
    "Allow",
    "Approval",
    "Extension",
    "Hook",
    "Host",
    "Migration",
    "Place",
    "Requirement",
    "Servers",
    "SetUp",
    "SharedOff",
    "SharedProcess",
    "ThreadOwner",
    "Trust",
]


class Place:
    """Where a host keeps one file, at user scope and (when it has one) project scope.

    ``user`` is written as the user reads it (``~/…``); a ``variable`` the host honours moves it to
    ``$variable/under_variable``. ``project`` is relative to the project's folder. Data only:
    ``herdr_link_control.hosts.place_path`` finds the file on disk.
    """

    __slots__ = ("format", "private", "project", "project_note", "under_variable", "user", "user_note", "variable")

    def __init__(
        self,
        user: str,
        project: str | None = None,
        *,
        variable: str | None = None,
        under_variable: str = "",
        format: FileFormat = "json",
        private: bool = False,
        user_note: str = "",
        project_note: str = "",
    ) -> None:
        self.user = user
        self.project = project
        self.variable = variable
        self.under_variable = under_variable
        self.format = format
        """``json`` (strict), ``jsonc`` (the host strips comments, then parses strict JSON: no trailing comma,
        no byte-order mark; Gemini CLI's ``JSON.parse(stripJsonComments(text))``), ``toml`` or ``yaml``."""
        self.private = private
        """At user scope, created readable by its owner only, as the host creates it (state and trust files)."""
        self.user_note = user_note
        self.project_note = project_note

    def note(self, scope: Scope) -> str:
        """What ``wiring`` says beside the file."""
        return self.project_note if scope == "project" and self.project is not None else self.user_note


class Requirement:
    """A key our server's entry must hold for the host to offer the tools, and what the doctor says
    when it does not (``{path}``, ``{ns}`` and ``{missing}`` are filled in)."""

    __slots__ = ("aliases", "includes", "key", "problem", "fix", "value")

    def __init__(
        self,
        key: str,
        *,
        value: object = None,
        includes: tuple[str, ...] = (),
        aliases: tuple[str, ...] = (),
        problem: str,
        fix: str,
    ) -> None:
        self.key = key
        self.value = value
        """The value the key must have (when ``includes`` is empty)."""
        self.includes = includes
        """Items the key's list (or the keys its mapping) must include."""
        self.aliases = aliases
        """Other names the host reads the key by."""
        self.problem = problem
        self.fix = fix

    def missing(self, entry: Mapping[str, object]) -> tuple[str, ...] | None:
        """``None`` when ``entry`` meets it; else what is missing (the items, or ``()`` for a value)."""
        found = next((entry[k] for k in (self.key, *self.aliases) if k in entry), None)
        if self.includes:
            have = found if isinstance(found, list | dict) else []
            lacking = tuple(item for item in self.includes if item not in have)
            return lacking or None
        return None if found == self.value else ()


class Approval:
    """A host's record, beside the server entry, that its user approved every tool of a server (Factory
    Droid's ``persistentPermissions``): where it goes, the fixed fields, and the field that names the server
    by a digest of its launch, without which the host ignores the record."""

    __slots__ = ("fields", "identity", "identity_of", "table")

    def __init__(self, table: tuple[str, ...], fields: tuple[tuple[str, object], ...], *, identity: str,
                 identity_of: tuple[tuple[str, object], ...]) -> None:  # fmt: skip
        self.table = table
        """Where the approvals are, by server name (``persistentPermissions.servers``)."""
        self.fields = fields
        """The record's fixed fields, in the order written."""
        self.identity = identity
        """The field holding the digest (``serverIdentity``)."""
        self.identity_of = identity_of
        """What the digest is taken of, key by key, :data:`COMMAND` and :data:`ARGS` standing for the server:
        the first 32 hex digits of the SHA-256 of its compact JSON."""


class Servers:
    """How a host registers MCP servers: the file, the table in it, our entry, and what it needs."""

    __slots__ = (
        "approval",
        "entry",
        "lookup",
        "name",
        "place",
        "project_question",
        "registered",
        "repairs",
        "requirements",
        "required_entry",
        "required_notes",
        "scopes",
        "table",
    )

    def __init__(
        self,
        place: Place,
        table: str,
        entry: tuple[tuple[str, object], ...],
        *,
        scopes: tuple[Scope, ...] = ("user", "project"),
        lookup: tuple[Scope, ...] = ("project", "user"),
        requirements: tuple[Requirement, ...] = (),
        registered: str = "",
        project_question: str = "",
        required_entry: tuple[tuple[str, object], ...] = (),
        required_notes: tuple[str, str] = ("", ""),
        repairs: bool = False,
        approval: Approval | None = None,
        name: str = "herdr_link",
    ) -> None:
        self.place = place
        self.name = name
        """The key our entry is written under: the table's ``SERVER_NAMESPACE`` unless the host refuses it
        (then the server is started with ``--namespace NAME``, the name its tools are presented under)."""
        self.approval = approval
        """The host's record that its user approved our tools, written beside the entry (:class:`Approval`)."""
        self.table = table
        self.entry = entry
        """Our entry, key by key in the order written; :data:`COMMAND` and :data:`ARGS` stand for the server's
        command and arguments, :data:`ARGV` for both in one list, at any depth (Cline's ``transport``)."""
        self.scopes = scopes
        self.lookup = lookup
        """The scopes the doctor reads, in the order the host prefers them."""
        self.requirements = requirements
        self.registered = registered
        """What the doctor adds after "registers herdr_link" when the entry is right."""
        self.project_question = project_question
        """What the host asks before it uses a project's server (the doctor warns); empty: nothing."""
        self.required_entry = required_entry
        """Keys that make the host wait for the server (``--required``); empty: the host has no such option."""
        self.required_notes = required_notes
        """What ``wiring`` says when the entry is required, and when it is not."""
        self.repairs = repairs
        """Whether ``install`` and the doctor look for what Link 0.1.0 left wrong in this file."""

    def command_of(self, entry: Mapping[str, object]) -> tuple[object, list[object]]:
        """The command and arguments an entry of this host's form runs, read where :attr:`entry` puts them
        (``(None, [])`` for what is not there)."""
        command: object = None
        args: list[object] = []
        for path, stand_in in _stand_ins(self.entry):
            value: object = entry
            for key in path:
                value = value.get(key) if isinstance(value, dict) else None
            if stand_in == "$argv" and isinstance(value, list) and value:
                command, args = value[0], list(value[1:])
            elif stand_in == "$command":
                command = value
            elif stand_in == "$args" and isinstance(value, list):
                args = list(value)
        return command, args


def _stand_ins(entry: Sequence[tuple[str, object]], path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], str]]:
    """Where an entry's form puts the stand-ins for the server (``$command``, ``$args``, ``$argv``)."""
    found: list[tuple[tuple[str, ...], str]] = []
    for key, value in entry:
        if isinstance(value, str) and value in ("$command", "$args", "$argv"):
            found.append(((*path, key), value))
        elif isinstance(value, dict):
            found += _stand_ins(tuple(value.items()), (*path, key))
    return found


class Hook:
    """Where a host runs the Tier 0 hint hook, and the shape of its entry (``form``)."""

    __slots__ = ("allows", "event", "form", "place", "project_reads", "trusted_by_hash")

    def __init__(
        self,
        place: Place,
        form: HookForm,
        event: str,
        *,
        project_reads: tuple[str, ...] = (),
        trusted_by_hash: Place | None = None,
        allows: str = "",
    ) -> None:
        self.place = place
        self.form = form
        """``group``: ``{"hooks": {event: [{"hooks": [handler]}]}}``; ``matcher``: the same with
        ``"matcher": "startup"`` and a named handler; ``named``: ``{"herdr-link": {event: [handler]}}``;
        ``versioned``: ``{"version": 1, "hooks": {event: [handler]}}``, the handler's command under ``bash``
        (GitHub Copilot CLI), in a file of its own that Herdr Link owns whole."""
        self.event = event
        self.project_reads = project_reads
        """Further project files the host reads hooks from, before the project's ``place``."""
        self.trusted_by_hash = trusted_by_hash
        """Where the host records a hash of each hook it runs, if it runs only hooks so recorded (Codex's
        ``[hooks.state]``); ``None``: it runs the hooks its files name."""
        self.allows = allows
        """A pattern of the host's tool names (``herdr_link/.*``, anchored by the host): the hook file also
        holds a ``permissionRequest`` handler that allows exactly the tools it matches, without a prompt (a
        host whose only lasting allow rule is a hook); empty: none."""


class Allow:
    """A host's permission rule that lets our tools run without a prompt, and the files it reads it from."""

    __slots__ = ("fields", "key", "place", "project_reads", "rule_field", "rules")

    def __init__(
        self, place: Place, rules: tuple[str, ...], *, key: tuple[str, ...] = ("permissions", "allow"),
        project_reads: tuple[str, ...] = (), rule_field: str = "", fields: tuple[tuple[str, object], ...] = (),
    ) -> None:  # fmt: skip
        self.place = place
        self.rules = rules
        """The rule ``wiring`` writes first, then others the doctor also accepts."""
        self.key = key
        """Where in the settings file the list of rules is (``permissions.allow``)."""
        self.project_reads = project_reads
        """Project files the host reads the rule from (first wins), before the user's."""
        self.rule_field = rule_field
        """Empty: each rule is an item of the list, a string. Else each is a table, the rule in this field
        beside :attr:`fields` (Kimi Code's ``[[permission.rules]]`` with ``pattern`` and ``decision``)."""
        self.fields = fields
        """The fixed fields of a rule written as a table, in the order written (before the rule)."""

    def item(self, rule: str) -> object:
        """``rule`` as an item of the list at :attr:`key`."""
        return dict((*self.fields, (self.rule_field, rule))) if self.rule_field else rule

    def found_in(self, items: Sequence[object]) -> bool:
        """Whether ``items`` (the list at :attr:`key`) holds one of :attr:`rules`, with the fixed fields."""
        if not self.rule_field:
            return any(rule in items for rule in self.rules)
        fixed = dict(self.fields)
        return any(
            isinstance(item, dict)
            and item.get(self.rule_field) in self.rules
            and all(item.get(k) == v for k, v in fixed.items())
            for item in items
        )


class Trust:
    """How a host records and looks up folder trust, and the question it asks without it."""

    __slots__ = ("distrusted", "fix_at", "granted_by", "place", "question", "rule", "settings", "switch", "switched_by")

    def __init__(
        self, place: Place, rule: TrustRule, question: str, *, distrusted: str = "", fix_at: TrustFixAt = "folder",
        settings: Place | None = None, granted_by: str = "",
        switch: tuple[str, ...] = ("security", "folderTrust", "enabled"), switched_by: str = "",
    ) -> None:  # fmt: skip
        self.place = place
        self.rule = rule
        """``projects``: ``projects.<folder>.hasTrustDialogAccepted`` up to the repository's root;
        ``trust_level``: ``[projects."<folder>"] trust_level`` at the folder or its repository's root;
        ``folders``: ``{"<folder>": "TRUST_FOLDER" | "TRUST_PARENT" | "DO_NOT_TRUST"}``, the longest wins;
        ``trusted_list``: ``{"trustedFolders": ["<folder>", …]}``, each covering the folders below it;
        ``trusted_at``: ``{"trustedFolders": {"<folder>": {"trustedAt": "<time>"}}}``, the folder itself only;
        ``folder_records``: ``[folders."<folder>"] trusted = true`` at the repository's root (or the folder
        outside one), and the question is asked only where the repository holds configuration that runs
        commands (Grok Build);
        ``record_files``: one file per trusted folder in the folder :attr:`place` names, named after the
        folder's name and a digest of its path, the folder itself only (Kimi Code's ``workspace-trust``)."""
        self.question = question
        """What the doctor says a worker started in an untrusted ``{folder}`` does (``{root}``: its repository)."""
        self.distrusted = distrusted
        """What it says when the file marks the folder not trusted (``folders`` only)."""
        self.fix_at = fix_at
        """``folder`` or ``root``: which folder ``--trust`` should name in the doctor's fix."""
        self.settings = settings
        """A settings file that can switch folder trust off (at :attr:`switch`)."""
        self.switch = switch
        """The key in :attr:`settings` that, ``false``, switches folder trust off."""
        self.switched_by = switched_by
        """An environment variable that switches folder trust on or off, ahead of :attr:`settings` (the host's
        own: ``1``/``true``/``yes``/``on`` or ``0``/``false``/``no``/``off``)."""
        self.granted_by = granted_by
        """An environment variable that, set to ``true``, trusts every folder (the host's own)."""


class Extension:
    """Where a host loads a native extension of ours (a file Herdr Link owns whole): the host's own
    folder at each scope and the paths inside it, as the host reads them."""

    __slots__ = ("extra_folder", "file", "folder", "older_files", "settings", "shared_setup")

    def __init__(
        self,
        folder: Place,
        file: str,
        *,
        settings: str | None = None,
        older_files: tuple[str, ...] = (),
        extra_folder: str | None = None,
        shared_setup: str = "",
    ) -> None:
        self.folder = folder
        """The host's folder at each scope (``~/.pi/agent``, ``.pi``): ``file`` and ``settings`` are inside it."""
        self.file = file
        """The extension's path inside :attr:`folder` (``extensions/herdr-link.js``)."""
        self.settings = settings
        """The scope's settings file inside :attr:`folder`, whose package list can wire another Herdr Link."""
        self.older_files = older_files
        """Older places inside :attr:`folder` the host still loads extensions from (``plugin/herdr-link.js``)."""
        self.extra_folder = extra_folder
        """A variable naming one more folder of the same layout the host loads from (``OPENCODE_CONFIG_DIR``)."""
        self.shared_setup = shared_setup
        """The set-up that serves Herdr Link where the host runs extensions in one server shared by its panes,
        as told to the user (never to a model); empty: the host runs them per pane."""

    def folders(self) -> tuple[str, ...]:
        """The folders inside :attr:`folder` the host loads extensions from: the current, then the older."""
        found: list[str] = []
        for path in (self.file, *self.older_files):
            parent = path.rsplit("/", 1)[0] if "/" in path else ""
            if parent not in found:
                found.append(parent)
        return tuple(found)

    @property
    def file_name(self) -> str:
        """The extension's own name (``herdr-link.js``)."""
        return self.file.rsplit("/", 1)[-1]


class Migration:
    """A host's notice that offers a newer model than the one its user set, shown once per model until
    answered, which Herdr reads as idle: a message's Enter would pick the new model for the user.

    Release-specific: ``upgrades`` is the catalogue the releases in ``versions`` ship, and the rule
    applies to them only (the version is what ``program --version`` prints).
    """

    __slots__ = (
        "catalogue", "default", "overrides", "place", "program", "question", "record", "seen_on", "upgrades",
        "versions",
    )  # fmt: skip

    def __init__(
        self, place: Place, record: tuple[str, ...], upgrades: Mapping[str, str], *, default: str, catalogue: Place,
        program: str, versions: tuple[str, ...], overrides: tuple[str, ...], seen_on: str, question: str,
    ) -> None:  # fmt: skip
        self.place = place
        """The settings file that names the model (``model``, or the ``profile``'s) and records answers."""
        self.record = record
        """Where in it the answers are: a table of ``"<model>" = "<model offered>"``."""
        self.upgrades = dict(upgrades)
        """Each model the releases' bundled catalogue offers an upgrade for, and the model offered."""
        self.default = default
        """The model the releases use when the file names none."""
        self.catalogue = catalogue
        """The catalogue the host refreshes for its user, read instead of ``upgrades`` when present."""
        self.program = program
        self.versions = versions
        """Version prefixes the rule was read from (``0.171.``); another version is not predicted."""
        self.overrides = overrides
        """Launch options that choose the model or the configuration: a start passing one is not predicted."""
        self.seen_on = seen_on
        """The release whose screen the rule was seen on (its capture is in the testkit's screens)."""
        self.question = question
        """What the operator log and the doctor say (``{model}``, ``{target}``)."""


class SetUp:
    """A host's set-up wizard, drawn over its composer at every start until its user finishes or skips it
    once, which Herdr reads as idle: a message's Enter would answer it for the user.

    Release-specific: the rule applies to the releases in ``versions`` only (the version of the npm
    ``package`` that ``program`` runs). A missing file is a new install, which the wizard greets. The file
    is JSON or YAML (its place's ``format``).
    """

    __slots__ = (
        "done", "folder", "off", "older", "package", "places", "program", "question", "record", "seen_on",
        "skip", "version", "versions",
    )  # fmt: skip

    def __init__(
        self, places: Mapping[str, Place], record: tuple[str, ...], done: tuple[str, ...], version: tuple[str, int],
        *, folder: str, program: str, package: str, versions: tuple[str, ...], seen_on: str, question: str,
        skip: str = "", off: tuple[str, ...] = (), older: tuple[str, ...] = (),
    ) -> None:  # fmt: skip
        self.places = dict(places)
        """The settings file that records the answer, per ``sys.platform`` (a platform not named: not predicted)."""
        self.folder = folder
        """The variable that, when set, names the file's folder on every platform."""
        self.record = record
        """Where in it the answer is: an object."""
        self.done = done
        """Its keys that, when set (a non-empty string), say the wizard was finished or skipped; none: only
        ``version`` says (a missing one counts as 0)."""
        self.version = version
        """Its key holding the wizard's version answered, and the releases' version: below it, asked again."""
        self.program = program
        self.package = package
        """The npm package whose ``package.json`` says the version ``program`` runs (it has no ``--version``)."""
        self.versions = versions
        """Version prefixes the rule was read from (``0.32.``); another version is not predicted."""
        self.seen_on = seen_on
        """The release whose screen the wizard was seen on."""
        self.question = question
        """What the operator log and the doctor say."""
        self.skip = skip
        """A variable that, set to anything but empty, ``0``, ``false`` or ``no`` (any case), skips the wizard."""
        self.off = off
        """Where in the file a setting, when ``false``, turns the wizard off (none: it has no such setting)."""
        self.older = older
        """Other names of the file in its folder, read in this order when the file itself is absent."""


class ThreadOwner:
    """How a call a shared process makes can be traced to the pane whose program owns its thread
    (PROTOCOL.md §6.1, issue 70): every call carries its thread in ``_meta``; the shared process answers,
    on its control socket, which loopback endpoint that thread's own client serves; the one process
    listening there is that client, whose terminal shows its pane. Every step is required; any miss
    refuses (a release whose internals moved degrades to the refusal)."""

    __slots__ = ("check_key", "control_socket", "daemon_argument", "endpoint", "owner_program", "thread_key")

    def __init__(
        self,
        *,
        thread_key: str,
        check_key: tuple[str, str],
        control_socket: Place,
        endpoint: str,
        owner_program: str,
        daemon_argument: str,
    ) -> None:
        self.thread_key = thread_key
        """The call's ``_meta`` key that holds its thread."""
        self.check_key = check_key
        """A second ``_meta`` place that must hold the same thread (an object's key, then its member)."""
        self.control_socket = control_socket
        """The shared process's control socket (WebSocket over a Unix socket, JSON-RPC in text frames)."""
        self.endpoint = endpoint
        """The MCP server name under which the thread's own client serves its loopback endpoint."""
        self.owner_program = owner_program
        """The executable name (``/proc/<pid>/comm``) of the client that owns a thread."""
        self.daemon_argument = daemon_argument
        """An argument of the shared process's command line that tells it from the client (``app-server``)."""


class SharedOff:
    """The host's own setting that keeps its panes' sessions out of the shared process, which an install
    may set only when the user asks for it by its own flag (never part of what ``--yes`` confirms), with
    what it costs; and the command that stops a running shared process once."""

    __slots__ = ("costs", "key", "stop", "value")

    def __init__(self, *, key: tuple[str, ...], value: bool, stop: tuple[str, ...], costs: str) -> None:
        self.key = key
        """The setting's path in the host's server file (``features.daemon_auto_start``)."""
        self.value = value
        """The value that keeps sessions in their panes."""
        self.stop = stop
        """The host program's arguments that stop a running shared process (after the setting is written)."""
        self.costs = costs
        """What the user gives up, said in the plan before they confirm."""


class SharedProcess:
    """A host whose default set-up runs the sessions of several panes in one background process, which
    spawns our adapter with the environment of whichever pane started it (PROTOCOL.md §6.1).

    An adapter such a host spawns acts as the pane in its environment only where its controlling
    terminal shows it runs in that pane; a worker Link starts gets the per-pane mode (:attr:`per_pane`).
    """

    __slots__ = ("chosen_by", "daemon_pid_file", "marker", "off", "per_pane", "program", "setup", "thread_owner")

    def __init__(
        self,
        *,
        per_pane: tuple[str, ...],
        chosen_by: tuple[str, ...],
        setup: str,
        program: str,
        marker: str,
        daemon_pid_file: Place | None = None,
        thread_owner: ThreadOwner | None = None,
        off: SharedOff | None = None,
    ) -> None:
        self.per_pane = per_pane
        """Arguments put before a started worker's own, so that its session runs in its pane's process
        (``~/`` stands for the user's home folder)."""
        self.chosen_by = chosen_by
        """Arguments by which the given ones already choose (with or without ``=value``): nothing is added."""
        self.setup = setup
        """The set-up that works, for the operator log and the doctor."""
        self.program = program
        """The executable name of the shared process (``/proc/<pid>/comm`` or its argv[0]'s basename)."""
        self.marker = marker
        """An argument of the shared process's command line that tells it from the host's own client
        (``app-server``, ``--cline-hub-daemon``), for the doctor."""
        self.daemon_pid_file = daemon_pid_file
        """Where the host records its running shared process (a JSON object with ``pid``), for the doctor;
        ``None``: the doctor looks for a process of :attr:`program` with :attr:`marker` among this user's."""
        self.thread_owner = thread_owner
        """How a call's own thread shows its pane, where the host offers a way (:class:`ThreadOwner`)."""
        self.off = off
        """The setting that keeps sessions out of the shared process, offered by ``install`` (:class:`SharedOff`)."""

    def worker_args(self, args: Sequence[str], home: str = "") -> tuple[str, ...]:
        """``args`` with :attr:`per_pane` before them, unless they already choose a mode; a ``~/`` in
        :attr:`per_pane` is written out under ``home`` (Herdr quotes arguments: no shell expands it)."""
        for arg in args:
            if arg == "--":
                break
            if arg.split("=", 1)[0] in self.chosen_by:
                return tuple(args)
        given = tuple(home.rstrip("/") + arg[1:] if home and arg.startswith("~/") else arg for arg in self.per_pane)
        return (*given, *args)


class Host:
    """One host kind: its names, how it presents tools, its files, its hint and its trust."""

    __slots__ = (
        "allow",
        "clients",
        "extension",
        "hint",
        "hook",
        "kind",
        "migration",
        "name",
        "notes",
        "presentation",
        "project_notes",
        "relists",
        "servers",
        "setup",
        "shared",
        "title",
        "tool_search",
        "trust",
        "unwired",
        "user_notes",
        "worker_args",
    )

    def __init__(
        self,
        name: str,
        title: str,
        *,
        kind: str,
        clients: tuple[str, ...] = (),
        presentation: PresentationForm | None = None,
        relists: bool = True,
        tool_search: bool = False,
        hint: HintForm | None = None,
        servers: Servers | None = None,
        hook: Hook | None = None,
        allow: Allow | None = None,
        trust: Trust | None = None,
        migration: Migration | None = None,
        setup: SetUp | None = None,
        shared: SharedProcess | None = None,
        extension: Extension | None = None,
        unwired: str = "",
        worker_args: tuple[str, ...] = (),
        notes: tuple[str, ...] = (),
        user_notes: tuple[str, ...] = (),
        project_notes: tuple[str, ...] = (),
    ) -> None:
        self.name = name
        """The name ``wiring``/``install``/``hint`` take (``--host``)."""
        self.title = title
        self.kind = kind
        """Its agent kind in Herdr (``herdr agent start --kind``, ``agent list``)."""
        self.clients = clients
        """``clientInfo.name`` it sends, lower-cased: a substring, or ``=name`` for the exact name."""
        self.presentation = presentation
        """How it shows our MCP tools to its model; ``None``: it does not reach us over MCP."""
        self.relists = relists
        """Whether it re-lists tools after ``tools/list_changed`` (if not: dispatch-first, no re-list wait)."""
        self.tool_search = tool_search
        """Whether it defers MCP tools behind a tool search of its own (its hint then says how to find ours)."""
        self.hint = hint
        """How ``hint --host`` answers for it: ``session-start`` (``hookSpecificOutput`` with the event name,
        nothing outside Herdr), ``additional-context`` (without it, ``{}`` outside), ``context`` (a top-level
        ``additionalContext``, nothing outside Herdr: GitHub Copilot CLI), ``inject-steps`` (an
        ``ephemeralMessage`` step, ``{}`` outside), ``plain`` (the text, for a launcher flag); ``None``: no hint."""
        self.servers = servers
        self.hook = hook
        self.allow = allow
        self.trust = trust
        self.migration = migration
        self.setup = setup
        self.shared = shared
        """Set when its default set-up shares one process between panes (see :class:`SharedProcess`)."""
        self.extension = extension
        """Where it loads Herdr Link's native extension, for a host that has one (Pi)."""
        self.worker_args = worker_args
        """Arguments put before a worker's own when Link starts one, so that Link's tools run without a prompt
        (a host with no file-based allow rule: GitHub Copilot CLI's ``--allow-tool``)."""
        self.unwired = unwired
        """Why Link cannot wire this agent kind (for a row with neither :attr:`servers` nor :attr:`extension`):
        said by the doctor for such an agent in the workspace and in the operator log when one is started."""
        self.notes = notes
        """What ``wiring`` says under the files (``{allow}`` is the allow rule), then at one scope only:"""
        self.user_notes = user_notes
        self.project_notes = project_notes

    def __repr__(self) -> str:
        return f"Host({self.name!r})"
