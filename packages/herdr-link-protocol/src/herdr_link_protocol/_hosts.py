"""The host table: one record per host kind Link knows, and everything about that host in it.

``wiring``, ``install``, ``hint``, the MCP server's presentation and the doctor's checks read a host's
facts here and nowhere else: which files it reads at which scope and in which format, the entry it
needs for our server, where its hint hook goes and in which form, how it records folder trust, its
agent kind in Herdr and the client name it sends. Adding a host of a form Link already writes is one
record here (and its fixtures and test); a new *form* is a new value of the field that names it and
the code that writes it. A static table, not a registry: nothing is loaded or plugged in (spec §6).

Plain classes, not dataclasses: ``hint`` reads this table at the start of every session and imports
neither ``re`` nor ``typing`` (``dataclasses`` imports both).
"""

from __future__ import annotations  # annotations stay unevaluated: typing is never imported

import sys

from ._contract import PresentationForm

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Final

__all__ = [
    "COMMAND",
    "ARGS",
    "FORWARDED_VARIABLES",
    "HOSTS",
    "SERVER_NAMESPACE",
    "Allow",
    "Host",
    "Hook",
    "Migration",
    "Place",
    "Requirement",
    "Servers",
    "SharedProcess",
    "Trust",
    "find_host",
    "host_for_client",
    "host_for_kind",
    "hosts_with",
]

SERVER_NAMESPACE: Final = "herdr_link"
"""The name every host registers our server under (its tools are ``mcp__herdr_link__…`` and the like)."""
FORWARDED_VARIABLES: Final = ("HERDR_ENV", "HERDR_BIN_PATH", "HERDR_PANE_ID", "HERDR_SOCKET_PATH")
"""What a host must pass to the server: the gate's three variables and the socket the CLI needs."""
COMMAND: Final = "$command"
"""In a server entry: the server's command."""
ARGS: Final = "$args"
"""In a server entry: the server's arguments."""


class Place:
    """Where a host keeps one file, at user scope and (when it has one) project scope.

    ``user`` is written as the user reads it (``~/…``); a ``variable`` the host honours moves it to
    ``$variable/under_variable``. ``project`` is relative to the project's folder. Data only:
    ``herdr_link_control.userfiles.place_path`` finds the file on disk.
    """

    __slots__ = ("format", "private", "project", "project_note", "under_variable", "user", "user_note", "variable")

    def __init__(
        self,
        user: str,
        project: str | None = None,
        *,
        variable: str | None = None,
        under_variable: str = "",
        format: str = "json",
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
        no byte-order mark; Gemini CLI's ``JSON.parse(stripJsonComments(text))``) or ``toml``."""
        self.private = private
        """At user scope, created readable by its owner only, as the host creates it (state and trust files)."""
        self.user_note = user_note
        self.project_note = project_note

    def note(self, scope: str) -> str:
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
        """Items the key's list must include."""
        self.aliases = aliases
        """Other names the host reads the key by."""
        self.problem = problem
        self.fix = fix

    def missing(self, entry: Mapping[str, object]) -> tuple[str, ...] | None:
        """``None`` when ``entry`` meets it; else what is missing (the items, or ``()`` for a value)."""
        found = next((entry[k] for k in (self.key, *self.aliases) if k in entry), None)
        if self.includes:
            have = found if isinstance(found, list) else []
            lacking = tuple(item for item in self.includes if item not in have)
            return lacking or None
        return None if found == self.value else ()


class Servers:
    """How a host registers MCP servers: the file, the table in it, our entry, and what it needs."""

    __slots__ = (
        "entry",
        "lookup",
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
        scopes: tuple[str, ...] = ("user", "project"),
        lookup: tuple[str, ...] = ("project", "user"),
        requirements: tuple[Requirement, ...] = (),
        registered: str = "",
        project_question: str = "",
        required_entry: tuple[tuple[str, object], ...] = (),
        required_notes: tuple[str, str] = ("", ""),
        repairs: bool = False,
    ) -> None:
        self.place = place
        self.table = table
        self.entry = entry
        """Our entry, key by key in the order written; :data:`COMMAND` and :data:`ARGS` stand for the server."""
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


class Hook:
    """Where a host runs the Tier 0 hint hook, and the shape of its entry (``form``)."""

    __slots__ = ("event", "form", "place", "project_reads", "trusted_by_hash")

    def __init__(
        self,
        place: Place,
        form: str,
        event: str,
        *,
        project_reads: tuple[str, ...] = (),
        trusted_by_hash: Place | None = None,
    ) -> None:
        self.place = place
        self.form = form
        """``group``: ``{"hooks": {event: [{"hooks": [handler]}]}}``; ``matcher``: the same with
        ``"matcher": "startup"`` and a named handler; ``named``: ``{"herdr-link": {event: [handler]}}``."""
        self.event = event
        self.project_reads = project_reads
        """Further project files the host reads hooks from, before the project's ``place``."""
        self.trusted_by_hash = trusted_by_hash
        """Where the host records a hash of each hook it runs, if it runs only hooks so recorded (Codex's
        ``[hooks.state]``); ``None``: it runs the hooks its files name."""


class Allow:
    """A host's permission rule that lets our tools run without a prompt, and the files it reads it from."""

    __slots__ = ("key", "place", "project_reads", "rules")

    def __init__(
        self, place: Place, rules: tuple[str, ...], *, key: tuple[str, ...] = ("permissions", "allow"),
        project_reads: tuple[str, ...] = (),
    ) -> None:  # fmt: skip
        self.place = place
        self.rules = rules
        """The rule ``wiring`` writes first, then others the doctor also accepts."""
        self.key = key
        """Where in the settings file the list of rules is (``permissions.allow``)."""
        self.project_reads = project_reads
        """Project files the host reads the rule from (first wins), before the user's."""


class Trust:
    """How a host records and looks up folder trust, and the question it asks without it."""

    __slots__ = ("distrusted", "fix_at", "granted_by", "place", "question", "rule", "settings")

    def __init__(
        self, place: Place, rule: str, question: str, *, distrusted: str = "", fix_at: str = "folder",
        settings: Place | None = None, granted_by: str = "",
    ) -> None:  # fmt: skip
        self.place = place
        self.rule = rule
        """``projects``: ``projects.<folder>.hasTrustDialogAccepted`` up to the repository's root;
        ``trust_level``: ``[projects."<folder>"] trust_level`` at the folder or its repository's root;
        ``folders``: ``{"<folder>": "TRUST_FOLDER" | "TRUST_PARENT" | "DO_NOT_TRUST"}``, the longest wins."""
        self.question = question
        """What the doctor says a worker started in an untrusted ``{folder}`` does (``{root}``: its repository)."""
        self.distrusted = distrusted
        """What it says when the file marks the folder not trusted (``folders`` only)."""
        self.fix_at = fix_at
        """``folder`` or ``root``: which folder ``--trust`` should name in the doctor's fix."""
        self.settings = settings
        """A settings file that can switch folder trust off (``security.folderTrust.enabled``)."""
        self.granted_by = granted_by
        """An environment variable that, set to ``true``, trusts every folder (the host's own)."""


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


class SharedProcess:
    """A host whose default set-up runs the sessions of several panes in one background process, which
    spawns our adapter with the environment of whichever pane started it (PROTOCOL.md §6.1).

    An adapter such a host spawns acts as the pane in its environment only where its controlling
    terminal shows it runs in that pane; a worker Link starts gets the per-pane mode (:attr:`per_pane`).
    """

    __slots__ = ("chosen_by", "daemon_pid_file", "per_pane", "program", "setup")

    def __init__(
        self,
        *,
        per_pane: tuple[str, ...],
        chosen_by: tuple[str, ...],
        setup: str,
        program: str,
        daemon_pid_file: Place | None = None,
    ) -> None:
        self.per_pane = per_pane
        """Arguments put before a started worker's own, so that its session runs in its pane's process."""
        self.chosen_by = chosen_by
        """Arguments by which the given ones already choose (with or without ``=value``): nothing is added."""
        self.setup = setup
        """The set-up that works, for the operator log and the doctor."""
        self.program = program
        """The executable name of the shared process (``/proc/<pid>/comm`` or its argv[0]'s basename)."""
        self.daemon_pid_file = daemon_pid_file
        """Where the host records its running shared process (a JSON object with ``pid``), for the doctor."""

    def worker_args(self, args: Sequence[str]) -> tuple[str, ...]:
        """``args`` with :attr:`per_pane` before them, unless they already choose a mode."""
        for arg in args:
            if arg == "--":
                break
            if arg.split("=", 1)[0] in self.chosen_by:
                return tuple(args)
        return (*self.per_pane, *args)


class Host:
    """One host kind: its names, how it presents tools, its files, its hint and its trust."""

    __slots__ = (
        "allow",
        "clients",
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
        "shared",
        "title",
        "tool_search",
        "trust",
        "user_notes",
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
        hint: str | None = None,
        servers: Servers | None = None,
        hook: Hook | None = None,
        allow: Allow | None = None,
        trust: Trust | None = None,
        migration: Migration | None = None,
        shared: SharedProcess | None = None,
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
        self.tool_search = tool_search
        """Whether it defers MCP tools behind a tool search of its own (its hint then says how to find ours)."""
        """Whether it re-lists tools after ``tools/list_changed`` (if not: dispatch-first, no re-list wait)."""
        self.hint = hint
        """How ``hint --host`` answers for it: ``session-start`` (``hookSpecificOutput`` with the event name,
        nothing outside Herdr), ``additional-context`` (without it, ``{}`` outside), ``inject-steps`` (an
        ``ephemeralMessage`` step, ``{}`` outside), ``plain`` (the text, for a launcher flag); ``None``: no hint."""
        self.servers = servers
        self.hook = hook
        self.allow = allow
        self.trust = trust
        self.migration = migration
        self.shared = shared
        """Set when its default set-up shares one process between panes (see :class:`SharedProcess`)."""
        self.notes = notes
        """What ``wiring`` says under the files (``{allow}`` is the allow rule), then at one scope only:"""
        self.user_notes = user_notes
        self.project_notes = project_notes

    def __repr__(self) -> str:
        return f"Host({self.name!r})"


_GROUP: Final = "group"
_CLAUDE_SETTINGS: Final = Place(
    "~/.claude/settings.json",
    ".claude/settings.json",
    variable="CLAUDE_CONFIG_DIR",
    under_variable="settings.json",
    user_note="your user settings: tools allowed, the hint hook",
    project_note="the project's settings: tools allowed, the hint hook",
)
_CODEX_CONFIG: Final = Place(
    "~/.codex/config.toml", variable="CODEX_HOME", under_variable="config.toml", format="toml",
    user_note="merge into your config",
)  # fmt: skip
_GEMINI_SETTINGS: Final = Place(
    "~/.gemini/settings.json", ".gemini/settings.json", format="jsonc", user_note="merge into your settings",
    project_note="merge into your settings",
)  # fmt: skip

HOSTS: Final[tuple[Host, ...]] = (
    Host(
        "claude",
        "Claude Code",
        kind="claude",
        clients=("claude",),
        presentation=PresentationForm.MCP_PREFIXED,
        tool_search=True,  # ToolSearch
        hint="session-start",
        servers=Servers(
            Place(
                "~/.claude.json",
                ".mcp.json",
                variable="CLAUDE_CONFIG_DIR",
                under_variable=".claude.json",
                private=True,
                user_note="user-scope server, as `claude mcp add --scope user` records it",
                project_note="project registration",
            ),
            "mcpServers",
            (("type", "stdio"), ("command", COMMAND), ("args", ARGS), ("env", {})),
            lookup=("user", "project"),
            registered=" for every folder",
            project_question="Claude Code asks once per project to use it",
        ),
        hook=Hook(_CLAUDE_SETTINGS, _GROUP, "SessionStart", project_reads=(".claude/settings.local.json",)),
        allow=Allow(
            _CLAUDE_SETTINGS,
            (f"mcp__{SERVER_NAMESPACE}", f"mcp__{SERVER_NAMESPACE}__*"),
            project_reads=(".claude/settings.local.json", ".claude/settings.json"),
        ),
        trust=Trust(
            Place(
                "~/.claude.json",
                variable="CLAUDE_CONFIG_DIR",
                under_variable=".claude.json",
                private=True,
                user_note="folder trust, as Claude Code records it",
            ),  # fmt: skip
            "projects",
            'a Claude Code worker started in {folder} first asks "Is this a project you created or one you trust?" '
            "(Link refuses to start a worker there, and to type into one waiting at it)",
        ),
        notes=(
            'permissions.allow "{allow}" lets every Herdr Link tool run without a permission prompt, in every '
            "permission mode (auto mode included).",
            "The SessionStart hook adds the Tier 0 hint in Herdr panes only (interactive and -p sessions alike); "
            "elsewhere it adds nothing.",
            "Claude Code defers MCP tools behind its tool search; the hint says how to load the gateway.",
            "Claude Code asks once per folder whether you trust it, before it reads anything there. A worker "
            "started in a folder you have not trusted waits at that question: answer it in the worker's pane, or "
            "trust the folders you start workers in ahead of time with --trust DIR (it covers the folders below "
            "DIR, except inside a git repository, which Claude Code trusts by its root).",
        ),
        user_notes=("Claude Code rewrites ~/.claude.json while it runs; install merges into it as its own CLI does.",),
        project_notes=("Claude Code asks once per project whether to use a server from .mcp.json.",),
    ),
    Host(
        "codex",
        "Codex",
        kind="codex",
        clients=("codex",),
        presentation=PresentationForm.MCP_NAMESPACED,
        relists=False,  # Codex 0.171 ignores tools/list_changed unless started with --enable mcp_tool_list_changed
        tool_search=True,  # tool_search
        hint="session-start",
        servers=Servers(
            _CODEX_CONFIG,
            "mcp_servers",
            (
                ("command", COMMAND),
                ("args", ARGS),
                ("env_vars", list(FORWARDED_VARIABLES)),
                ("default_tools_approval_mode", "approve"),
            ),
            scopes=("user",),
            lookup=("user",),
            requirements=(
                Requirement(
                    "env_vars",
                    includes=FORWARDED_VARIABLES,
                    problem="{path} does not forward {missing}: the server will see no Herdr",
                    fix="add env_vars = " + str(list(FORWARDED_VARIABLES)).replace("'", '"') + " to [mcp_servers.{ns}]",
                ),
                Requirement(
                    "default_tools_approval_mode",
                    value="approve",
                    problem='tools other than peers are refused under approval_policy = "never"',
                    fix='add default_tools_approval_mode = "approve" to [mcp_servers.{ns}]',
                ),
            ),
            registered=" and forwards the Herdr variables",
            required_entry=(("required", True), ("startup_timeout_sec", 30)),
            required_notes=(
                "required = true (--required, and always with --launcher uvx, whose start takes longer than Codex "
                "waits otherwise) makes Codex wait for the server before its first model request. The cost: if "
                "herdr-link-mcp cannot start (uninstalled, broken environment, no uv), Codex refuses to start any "
                "session until it can or the entry is removed.",
                "Not required: Codex sends its first model request without waiting for the server, and the "
                "server answers Codex's first requests before its MCP SDK has loaded (about 0.1 s), well inside "
                "the time Codex takes to send it; --required makes Codex wait (and refuse to start without it).",
            ),
            repairs=True,
        ),
        hook=Hook(
            Place(
                "~/.codex/hooks.json",
                variable="CODEX_HOME",
                under_variable="hooks.json",
                user_note="the SessionStart hook adds the Tier 0 hint",
            ),  # fmt: skip
            _GROUP,
            "SessionStart",
            trusted_by_hash=_CODEX_CONFIG,
        ),
        trust=Trust(
            _CODEX_CONFIG,
            "trust_level",
            'in the git repository {root}, Codex may first ask "Trust this folder?"',
            fix_at="root",
        ),
        migration=Migration(
            _CODEX_CONFIG,
            ("notice", "model_migrations"),
            # Codex 0.171.0's bundled models.json (the models with an "upgrade"); its default is gpt-6.2-sol.
            {
                "gpt-5.5": "gpt-6-sol",
                "gpt-5.6-sol": "gpt-6-sol",
                "gpt-5.6-terra": "gpt-6-sol",
                "gpt-5.6-luna": "gpt-6-luna",
            },
            default="gpt-6.2-sol",
            catalogue=Place("~/.codex/models_cache.json", variable="CODEX_HOME", under_variable="models_cache.json"),
            program="codex",
            versions=("0.171.",),
            overrides=("-m", "--model", "-p", "--profile", "-c", "--config", "--oss"),
            seen_on="0.171.0",
            question='a Codex worker whose model is {model} first shows a notice offering {target} ("Try new model / '
            "Use existing model\"; Herdr reads it as idle, so a message's Enter would switch the model for the user)",
        ),  # fmt: skip
        shared=SharedProcess(
            per_pane=("--no-daemon",),
            chosen_by=("--no-daemon", "--remote"),
            setup="start Codex with `codex --no-daemon` in each Herdr pane (its default runs every pane's session "
            "in one background app-server that has the environment of the pane that started it)",
            program="codex",
            daemon_pid_file=Place(
                "~/.codex/app-server-daemon/daemon.pid",
                variable="CODEX_HOME",
                under_variable="app-server-daemon/daemon.pid",
            ),
        ),
        notes=(
            "Codex passes no HERDR_* variables to MCP servers unless env_vars lists them; without them the "
            "server sees no Herdr and lists no tools.",
            'default_tools_approval_mode = "approve" lets the tools run under approval_policy = "never".',
            "The [hooks.state] entry trusts exactly this hint hook (Codex skips untrusted hooks silently); it is "
            "the hash Codex's /hooks review would record. Edit the hook and Codex treats it as modified and skips "
            "it until you review it there. The entry names the hook by its place in hooks.json (group and handler, "
            "as install leaves it): if you move it, trust it again in /hooks. Outside Herdr the hook writes "
            "nothing to stdout (no hint is added) and one line to stderr that says why.",
            "Codex never re-lists tools after activation: the model keeps using the gateway's action dispatch.",
            "Codex reads both files in every folder. In a git repository it has not been told to trust it asks "
            "first; --trust DIR records that trust ([projects]) for the folders you name.",
            "Restart Codex completely after changing either file.",
        ),
    ),
    Host(
        "agy",
        "AGY",
        kind="agy",
        clients=("antigravity", "agy"),
        presentation=PresentationForm.MCP_WRAPPER,
        hint="inject-steps",
        servers=Servers(
            Place("~/.gemini/config/mcp_config.json"),
            "mcpServers",
            (("command", COMMAND), ("args", ARGS)),
            lookup=("user",),
        ),  # fmt: skip
        hook=Hook(
            Place(
                "~/.gemini/antigravity-cli/hooks.json",
                ".agents/hooks.json",
                user_note="a group of its own, PreInvocation handlers directly in the event list",
                project_note="a group of its own, PreInvocation handlers directly in the event list",
            ),
            "named",
            "PreInvocation",
        ),
        notes=(
            "AGY calls MCP tools through call_mcp_tool with ServerName and ToolName.",
            "agy reads hooks.json from its user directory (~/.gemini/antigravity-cli/) and from a project's "
            "customization root (.agents/), as its documentation describes; its debug log says how many hooks "
            "it loaded. Not run against a real agy here.",
        ),
    ),
    Host(
        "gemini",
        "Gemini CLI",
        kind="gemini",
        clients=("gemini",),
        presentation=PresentationForm.MCP_SINGLE_PREFIX,
        hint="additional-context",
        servers=Servers(
            _GEMINI_SETTINGS,
            "mcpServers",
            (("command", COMMAND), ("args", ARGS), ("trust", True)),
            requirements=(
                Requirement(
                    "trust",
                    value=True,
                    problem="{path}: {ns} is not trusted, so its tools are never offered",
                    fix='add "trust": true to mcpServers.{ns}',
                ),
            ),
            registered=" as trusted",
        ),
        hook=Hook(_GEMINI_SETTINGS, "matcher", "SessionStart"),
        trust=Trust(
            Place(
                "~/.gemini/trustedFolders.json",
                format="jsonc",
                private=True,
                user_note="folder trust, as Gemini CLI records it",
            ),  # fmt: skip
            "folders",
            'a Gemini CLI worker started in {folder} first asks "Do you trust the files in this folder?" (Herdr '
            "reads it as idle; Link refuses to start a worker there, and to type into one waiting at it)",
            distrusted="~/.gemini/trustedFolders.json marks {folder} not trusted: a worker here runs without the "
            "wiring",
            settings=Place("~/.gemini/settings.json", format="jsonc"),
            granted_by="GEMINI_CLI_TRUST_WORKSPACE",
        ),
        notes=(
            'Gemini CLI offers an MCP server\'s tools only when it has "trust": true.',
            "Gemini CLI asks once per folder whether you trust it (and, headless, refuses to run in a folder it does "
            "not trust). A worker started in such a folder sits at that question: --trust DIR records TRUST_FOLDER "
            "for the folders you name (and the folders below them).",
        ),
        project_notes=("A project's settings apply only once Gemini CLI trusts the project's folder.",),
    ),
    Host(
        "pi",
        "Pi (built-in MCP)",
        kind="pi",
        clients=("=pi",),
        presentation=PresentationForm.MCP_PREFIXED,  # Pi's built-in MCP with exposure "direct"
        hint="plain",
        servers=Servers(
            Place("~/.pi/agent/mcp.json", ".pi/mcp.json"),
            "mcpServers",
            (("command", COMMAND), ("args", ARGS), ("exposure", "direct")),
            requirements=(
                Requirement(
                    "exposure",
                    value="direct",
                    aliases=("toolExposure",),
                    problem='{path}: the tools stay hidden from the model (exposure is not "direct")',
                    fix='add "exposure": "direct" to mcpServers.{ns}',
                ),
            ),
            registered=" with direct exposure",
        ),
        notes=(
            'Pi\'s default exposure ("codemode") hides MCP tools from the model: keep "exposure": "direct".',
            "Pi has no hook for the Tier 0 hint: the native extension (pip install herdr-link-pi-bridge, then "
            "herdr-link-pi-bridge install) gives it, and is the recommended way to wire Pi.",
        ),
    ),
    Host("opencode", "OpenCode", kind="opencode"),  # reaches Link through its plugin, not MCP
)
"""Every host kind Link knows, in the order the tools list them."""


def _table() -> tuple[Host, ...]:
    """The table as the package exports it (``herdr_link_protocol.HOSTS``), so that every reader sees the
    same rows, a test's added one included."""
    face = sys.modules.get(__package__ or "")
    table = getattr(face, "HOSTS", HOSTS) if face is not None else HOSTS
    return table


def find_host(name: str) -> Host | None:
    """The record for ``--host NAME``; ``None`` for a name Link does not know."""
    return next((host for host in _table() if host.name == name), None)


def hosts_with(field: str) -> tuple[Host, ...]:
    """The hosts whose ``field`` (``servers``, ``hint``, ``hook``, ``trust``, …) is set, in table order."""
    return tuple(host for host in _table() if getattr(host, field))


def host_for_client(client_name: str | None) -> Host | None:
    """The host a ``clientInfo.name`` belongs to (first match in table order), or ``None``."""
    name = (client_name or "").lower()
    for host in _table():
        for needle in host.clients:
            if (name == needle[1:]) if needle.startswith("=") else (needle in name):
                return host
    return None


KIND_ALIASES: Final = {"claude-code": "claude", "antigravity": "agy"}
"""The aliases Herdr's ``parse_agent_label`` accepts for the kinds in this table (docs/herdr.md §7)."""


def host_for_kind(kind: str) -> Host | None:
    """The host whose Herdr agent kind ``kind`` is, read as Herdr reads it (any case, its aliases)."""
    label = kind.strip().lower()
    for suffix in (".exe", ".cmd", ".bat", ".ps1", ".js"):
        label = label.removesuffix(suffix)
    label = KIND_ALIASES.get(label, label)
    return next((host for host in _table() if host.kind == label), None)
