"""The host table: one record per host kind Link knows, and everything about that host in it.

``wiring``, ``install``, ``hint``, the MCP server's presentation, the control layer's predictions
(folder trust, model notices, shared processes) and the doctor's checks read a host's facts here and
nowhere else: which files it reads at which scope and in which format, the entry it needs for our
server, where its hint hook goes and in which form, how it records folder trust, its agent kind in
Herdr and the client name it sends. Adding a host of a form Link already writes is one record here
(and its fixtures and test); a new *form* is a new value of the field that names it
(``_host_forms.py``) and the code that writes it. A static table, not a registry: nothing is loaded
or plugged in (spec §6). The protocol package names no host: this table churns with host releases,
``herdr-link/1`` does not.

Every lookup takes the table to search (``hosts``); left out, it is :data:`HOSTS` as the package
``herdr_link_control.hosts`` holds it when the lookup runs. Standard library only, and neither ``re``
nor ``typing``: ``hint`` reads it at the start of every session.
"""

from __future__ import annotations  # annotations stay unevaluated: typing is never imported

import sys

from herdr_link_protocol import PresentationForm

from .._gate import GATE_VARIABLES
from ._host_forms import (
    Allow,
    Approval,
    Extension,
    Hook,
    Host,
    Migration,
    Place,
    Requirement,
    Servers,
    SetUp,
    SharedOff,
    SharedProcess,
    ThreadOwner,
    Trust,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Final

    from ._host_forms import (
        FileFormat as FileFormat,
        HintForm as HintForm,
        HookForm as HookForm,
        HostField as HostField,
        Scope as Scope,
        TrustFixAt as TrustFixAt,
        TrustRule as TrustRule,
    )

__all__ = [
    "ARGS",
    "ARGV",
    "COMMAND",
    "FORWARDED_VARIABLES",
    "HOSTS",
    "KIND_ALIASES",
    "SERVER_NAMESPACE",
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
    "find_host",
    "host_extension",
    "host_for_client",
    "host_for_kind",
    "hosts_with",
]

SERVER_NAMESPACE: Final = "herdr_link"
"""The name hosts register our server under (its tools are ``mcp__herdr_link__…`` and the like); a host that
refuses it has its own (:attr:`Servers.name`: maki's ``herdr-link``)."""
FORWARDED_VARIABLES: Final = (*GATE_VARIABLES, "HERDR_SOCKET_PATH")
"""What a host must pass to the server: the gate's three variables and the socket the CLI needs."""
COMMAND: Final = "$command"
"""In a server entry: the server's command."""
ARGS: Final = "$args"
"""In a server entry: the server's arguments."""
ARGV: Final = "$argv"
"""In a server entry: the server's command and arguments in one list (OpenCode's and Kilo Code's form)."""


_GROUP: Final = "group"
_CLAUDE_SETTINGS: Final = Place(
    "~/.claude/settings.json",
    ".claude/settings.json",
    variable="CLAUDE_CONFIG_DIR",
    under_variable="settings.json",
    user_note="your user settings: tools allowed, the hint hook",
    project_note="the project's settings: tools allowed, the hint hook",
)
_GROK_CONFIG: Final = Place(
    "~/.grok/config.toml",
    ".grok/config.toml",
    variable="GROK_HOME",
    under_variable="config.toml",
    format="toml",
    user_note="merge into your config: the server, and the rule that lets its tools run",
    project_note="merge into your config: the server, and the rule that lets its tools run",
)
_CODEX_CONFIG: Final = Place(
    "~/.codex/config.toml", variable="CODEX_HOME", under_variable="config.toml", format="toml",
    user_note="merge into your config",
)  # fmt: skip
_GEMINI_SETTINGS: Final = Place(
    "~/.gemini/settings.json", ".gemini/settings.json", format="jsonc", user_note="merge into your settings",
    project_note="merge into your settings",
)  # fmt: skip
_UNKNOWN: Final = (
    "{program} does not document where it keeps MCP servers in a form Link could write, and no build of it runs "
    "here to find out; it cannot be wired yet"
)


def _forwarded(form: str) -> dict[str, str]:
    """An ``env`` that passes the Herdr variables through, for a host that does not give MCP servers its own
    environment: each written as the host expands a variable (``form``, e.g. ``${{{}}}``)."""
    return {name: form.format(name) for name in FORWARDED_VARIABLES}


_DEVIN_CONFIG: Final = Place(
    "~/.config/devin/config.json", ".devin/config.json", format="jsonc",
    user_note="the user config `devin mcp add -s user` writes: the server, and the rule that lets its tools run",
    project_note="the project config: the server, and the rule that lets its tools run",
)  # fmt: skip
_QWEN_SETTINGS: Final = Place(
    "~/.qwen/settings.json", ".qwen/settings.json", variable="QWEN_HOME", under_variable="settings.json",
    format="jsonc", user_note="merge into your settings", project_note="merge into your settings",
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
            marker="app-server",
            daemon_pid_file=Place(
                "~/.codex/app-server-daemon/daemon.pid",
                variable="CODEX_HOME",
                under_variable="app-server-daemon/daemon.pid",
            ),
            # Codex 0.171.0, undocumented (docs/hosts.md): each call's _meta.threadId; the daemon's control
            # socket answers mcpServerStatus/list for the thread's `codex_tui` server, which the thread's own
            # TUI serves on a loopback port (codex-rs/tui/src/dynamic_tools_mcp.rs).
            thread_owner=ThreadOwner(
                thread_key="threadId",
                check_key=("x-codex-turn-metadata", "thread_id"),
                control_socket=Place(
                    "~/.codex/app-server-control/app-server-control.sock",
                    variable="CODEX_HOME",
                    under_variable="app-server-control/app-server-control.sock",
                ),
                endpoint="codex_tui",
                owner_program="codex",
                daemon_argument="app-server",
            ),
            off=SharedOff(
                key=("features", "daemon_auto_start"),
                value=False,
                stop=("app-server", "daemon", "stop"),
                costs="threads no longer outlive their TUI; `codex queue` needs a daemon; remote control and the "
                "desktop app start one again, and plain `codex` panes then join it",
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
        clients=("=pi", "herdr-link-pi-bridge"),  # Pi's built-in MCP client; our extension's bridge stub
        presentation=PresentationForm.MCP_PREFIXED,  # Pi's built-in MCP with exposure "direct"
        hint="plain",
        extension=Extension(  # herdr-link-pi-bridge's, the recommended way to wire Pi
            Place("~/.pi/agent", ".pi"), "extensions/herdr-link.js", settings="settings.json"
        ),
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
            "Pi has no hook for the Tier 0 hint: the native extension (uv tool install herdr-link-pi-bridge, "
            "from a clone with --find-links dist, then herdr-link-pi-bridge install) gives it, and is the "
            "recommended way to wire Pi.",
        ),
    ),
    Host(
        "opencode",
        "OpenCode",
        kind="opencode",
        clients=("herdr-link-opencode-bridge",),  # our plugin's bridge stub
        extension=Extension(  # herdr-link-opencode-install's: OpenCode reaches Link through its plugin, not MCP
            # OpenCode's config folder is xdg-basedir's on every platform, Windows included (no %APPDATA%);
            # the installer asks `opencode debug paths` first (docs/hosts.md, OpenCode).
            Place("~/.config/opencode", ".opencode", variable="XDG_CONFIG_HOME", under_variable="opencode"),
            "plugins/herdr-link.js",
            older_files=("plugin/herdr-link.js",),  # OpenCode still loads the folder's older name
            extra_folder="OPENCODE_CONFIG_DIR",  # one more config folder, loaded besides the global one
            shared_setup="start OpenCode in each Herdr pane with `opencode --standalone`, or once run "
            "`opencode service set disabled true` so that every `opencode` runs its own server",
        ),
    ),
    Host(
        "copilot",
        "GitHub Copilot CLI",
        kind="copilot",
        clients=("copilot-cli",),
        presentation=PresentationForm.SERVER_DASH,
        hint="context",
        # A file of its own in ~/.copilot/hooks (1.0.102 loads every *.json there, in any folder, trusted or
        # not): settings.json keeps Herdr's own SessionStart hook and must stay strict JSON (docs/hosts.md).
        hook=Hook(
            Place(
                "~/.copilot/hooks/herdr-link.json",
                variable="COPILOT_HOME",
                under_variable="hooks/herdr-link.json",
                user_note="Herdr Link's own hook file: the Tier 0 hint, and Link's tools allowed without a prompt",
            ),
            "versioned",
            "sessionStart",
            allows=f"{SERVER_NAMESPACE}/.*",  # the permissionRequest toolName is <server>/<tool>
        ),
        servers=Servers(
            Place(
                "~/.copilot/mcp-config.json",
                variable="COPILOT_HOME",
                under_variable="mcp-config.json",
                format="jsonc",
                user_note="user-scope server, as `copilot mcp add` records it",
            ),
            "mcpServers",
            (("type", "local"), ("command", COMMAND), ("args", ARGS), ("tools", ["*"])),
            scopes=("user",),
            lookup=("user",),
        ),
        worker_args=("--allow-tool", SERVER_NAMESPACE),
        trust=Trust(
            Place(
                "~/.copilot/config.json",
                variable="COPILOT_HOME",
                under_variable="config.json",
                format="jsonc",
                user_note="folder trust, as GitHub Copilot CLI records it",
            ),  # fmt: skip
            "trusted_list",
            'a GitHub Copilot CLI worker started in {folder} first asks "Do you trust the files in this folder?" '
            "(Link refuses to start a worker there, and to type into one waiting at it)",
        ),
        notes=(
            "GitHub Copilot CLI asks before every MCP tool call; the permissionRequest hook in herdr-link.json "
            "allows herdr_link's tools (and only them) in every session, interactive and -p alike. Link still "
            "starts its workers with --allow-tool herdr_link.",
            "The sessionStart hook adds the Tier 0 hint in Herdr panes only; elsewhere it adds nothing. In an "
            "interactive session it runs when the first prompt is sent.",
            "It asks once per folder whether you trust it: --trust DIR records the folder (and those below it).",
        ),
    ),
    Host(
        "qwen",
        "Qwen Code",
        kind="qwen",
        clients=("qwen-cli",),  # qwen-cli-mcp-client-<server name>
        presentation=PresentationForm.MCP_PREFIXED,
        relists=False,  # Qwen Code 0.24.4 asks for tools/list once (docs/hosts.md)
        tool_search=True,  # tool_search, then tool_call
        hint="session-start",
        hook=Hook(_QWEN_SETTINGS, _GROUP, "SessionStart"),
        servers=Servers(
            _QWEN_SETTINGS,
            "mcpServers",
            (("command", COMMAND), ("args", ARGS), ("trust", True)),
            registered=" as trusted",
            project_question="Qwen Code asks once per project to use its servers (qwen mcp approve)",
        ),
    ),
    Host(
        "cline",
        "Cline",
        kind="cline",
        clients=("@cline/core",),
        presentation=PresentationForm.SERVER_DOUBLE_UNDERSCORE,
        relists=False,  # Cline 3.0.65 lists once (docs/hosts.md)
        shared=SharedProcess(
            # Cline 3.0.65 (docs/hosts.md): the first `cline` starts a hub daemon in a session of its own, and
            # later panes' sessions run in it, their MCP servers spawned with the first pane's environment;
            # a data folder named on the command line keeps a session in its pane's own process.
            per_pane=("--data-dir", "~/.cline/data"),
            chosen_by=("--data-dir", "--config"),
            setup="start Cline in each Herdr pane with `cline --data-dir ~/.cline/data` written out as an absolute "
            "path (its default runs later panes' sessions in one hub daemon that has the first pane's environment)",
            program="cline",
            marker="--cline-hub-daemon",
        ),
        servers=Servers(
            Place(
                "~/.cline/data/settings/cline_mcp_settings.json",
                variable="CLINE_MCP_SETTINGS_PATH",
                user_note="user-scope server, as `cline mcp add` records it",
            ),
            "mcpServers",
            (("transport", {"type": "stdio", "command": COMMAND, "args": ARGS}),),
            scopes=("user",),
            lookup=("user",),
        ),
    ),
    Host(
        "kilo",
        "Kilo Code",
        kind="kilo",
        clients=("=kilo",),
        presentation=PresentationForm.SERVER_UNDERSCORE,
        shared=SharedProcess(
            # Kilo Code 7.7.7 (docs/hosts.md): each TUI runs its own server, unless `kilo daemon` (or `kilo
            # console`) started a background one, which later TUIs then join with its environment.
            per_pane=(),
            chosen_by=(),
            setup="do not leave a `kilo daemon` running while you use Kilo in Herdr panes, or set KILO_NO_DAEMON=1 "
            "in your shell's environment (with a daemon running, every pane's session runs in it, with the "
            "environment of the pane that started it)",
            program=".kilo",
            marker="serve",
        ),
        servers=Servers(
            Place(
                "~/.config/kilo/kilo.jsonc",
                ".kilo/kilo.json",
                variable="XDG_CONFIG_HOME",
                under_variable="kilo/kilo.jsonc",
                format="jsonc",
                user_note="the file `kilo mcp add` writes",
                project_note="the project's config",
            ),
            "mcp",
            (("type", "local"), ("command", ARGV), ("enabled", True)),
        ),
    ),
    Host(
        "grok",
        "Grok Build",
        kind="grok",
        clients=("grok-shell-",),  # grok-shell-<server name>
        presentation=PresentationForm.SERVER_DOUBLE_UNDERSCORE,
        relists=False,  # not seen to re-list in a run here (docs/hosts.md)
        tool_search=True,  # search_tool, then use_tool
        servers=Servers(
            _GROK_CONFIG,
            "mcp_servers",
            (("command", COMMAND), ("args", ARGS)),
            project_question="Grok Build uses a project's servers only once it trusts the folder",
        ),
        # Grok Build 1.0 asks before every MCP call without it (headless `grok -p` cancels the call); it also
        # accepts Claude Code's spellings of the rule (grok-build user-guide 22-permissions-and-safety.md)
        allow=Allow(
            _GROK_CONFIG,
            (f"MCPTool({SERVER_NAMESPACE}__*)", f"mcp__{SERVER_NAMESPACE}", f"mcp__{SERVER_NAMESPACE}__*"),
            key=("permission", "allow"),
        ),
        # Grok Build 1.0 asks only where its folder or repository holds configuration that runs commands
        # (xai-grok-workspace folder_trust.rs @ 19d42e35; docs/hosts.md), single keys a message would answer
        trust=Trust(
            Place(
                "~/.grok/trusted_folders.toml",
                variable="GROK_HOME",
                under_variable="trusted_folders.toml",
                format="toml",
                private=True,
                user_note="folder trust, as Grok Build records it",
            ),  # fmt: skip
            "folder_records",
            'a Grok Build worker started in {folder} first asks "Do you trust the contents of this directory?" (its '
            "repository holds configuration that runs commands, such as MCP servers; the answers are single keys, so "
            "a message typed there would answer it: Link refuses to start a worker there, and to type into one "
            "waiting at it)",
            fix_at="root",
            settings=_GROK_CONFIG,
            switch=("folder_trust", "enabled"),
            switched_by="GROK_FOLDER_TRUST",
        ),
        notes=(
            '[permission] allow "{allow}" lets every Herdr Link tool run without the question Grok Build asks '
            'before each MCP call otherwise ("Allow (Herdr Link) Herdr Link?"; headless grok -p cancels the call).',
            "Grok Build asks once per repository whether you trust it where the repository holds configuration that "
            "runs commands (a project .grok/config.toml with MCP servers or permission rules, .mcp.json, hooks, "
            "plugins, ...): --trust DIR records DIR's repository (Grok Build looks trust up by its root, for every "
            "folder in it), or DIR itself outside one.",
        ),
    ),
    Host(
        "droid",
        "Factory Droid",
        kind="droid",
        clients=("factory-cli",),
        presentation=PresentationForm.SERVER_TRIPLE_UNDERSCORE,
        tool_search=True,  # ToolSearch
        hint="session-start",
        # settings.json, not hooks.json: a SessionStart in hooks.json would replace the one Herdr's own
        # `herdr integration install droid` keeps in settings.json (docs/hosts.md)
        hook=Hook(
            Place("~/.factory/settings.json", user_note="the SessionStart hook adds the Tier 0 hint"),
            _GROUP,
            "SessionStart",
        ),  # fmt: skip
        servers=Servers(
            Place(
                "~/.factory/mcp.json",
                ".factory/mcp.json",
                user_note="user-scope server, as `droid mcp add` records it",
                project_note="project registration",
            ),  # fmt: skip
            "mcpServers",
            (("type", "stdio"), ("command", COMMAND), ("args", ARGS), ("disabled", False)),
            scopes=("user",),
            # What Droid 0.225 writes for "Always allow all herdr_link tools": at its default autonomy every
            # MCP call asks otherwise (docs/hosts.md); the identity is its digest of the server's launch.
            approval=Approval(
                ("persistentPermissions", "servers"),
                (("approvedAt", "2026-12-06T00:00:00.000Z"), ("impactLevel", "high")),
                identity="serverIdentity",
                identity_of=(("type", "stdio"), ("command", COMMAND), ("args", ARGS)),
            ),
        ),
        trust=Trust(
            Place("~/.factory/settings.json", user_note="folder trust, as Factory Droid records it"),
            "trusted_at",
            'a Factory Droid worker started in {folder} first asks "Trust this folder?" (Herdr reads it as idle; '
            "Link refuses to start a worker there, and to type into one waiting at it)",
        ),
        notes=(
            'The approval beside the server entry (persistentPermissions) is what Droid records for "Always '
            'allow all herdr_link tools": at its default autonomy every MCP call asks otherwise.',
            "Factory Droid asks once per folder whether you trust it: --trust DIR records that folder.",
        ),
    ),
    Host(
        "cursor",
        "Cursor Agent CLI",
        kind="cursor",
        clients=("cursor",),
        presentation=PresentationForm.MCP_PLAIN,
        servers=Servers(
            Place(
                "~/.cursor/mcp.json",
                ".cursor/mcp.json",
                user_note="the MCP file Cursor's editor and CLI share",
                project_note="the project's MCP file",
            ),  # fmt: skip
            "mcpServers",
            (("command", COMMAND), ("args", ARGS), ("env", _forwarded("${{env:{}}}"))),
        ),
        notes=(
            "Built from Cursor's documentation (cursor.com/docs/cli/mcp); no build of cursor-agent installs or "
            "runs here, so this wiring is not run.",
        ),  # fmt: skip
    ),
    Host(
        "kiro",
        "Kiro CLI",
        kind="kiro",
        clients=("kiro",),
        presentation=PresentationForm.MCP_PLAIN,
        servers=Servers(
            Place(
                "~/.kiro/settings/mcp.json",
                ".kiro/settings/mcp.json",
                user_note="user-scope servers",
                project_note="the workspace's servers",
            ),  # fmt: skip
            "mcpServers",
            (("command", COMMAND), ("args", ARGS), ("env", _forwarded("${{{}}}"))),
        ),
        notes=(
            "Built from Kiro's documentation (kiro.dev/docs/cli/mcp/configuration); no build of kiro-cli installs "
            "or runs here, so this wiring is not run.",
        ),  # fmt: skip
    ),
    Host(
        "mastracode",
        "MastraCode",
        kind="mastracode",
        clients=("=herdr_link",),  # @mastra/mcp names its client after the server's key (ours: herdr_link)
        presentation=PresentationForm.SERVER_UNDERSCORE,
        relists=False,  # MastraCode 0.32.1 lists once at start: nothing subscribes to tools/list_changed
        servers=Servers(
            Place(
                "~/.mastracode/mcp.json",
                ".mastracode/mcp.json",
                user_note="user-scope servers",
                project_note="the project's servers",
            ),  # fmt: skip
            "mcpServers",
            (("command", COMMAND), ("args", ARGS), ("env", _forwarded("${{{}}}"))),
        ),
        notes=(
            "MastraCode starts MCP servers with a minimal environment: the entry forwards the Herdr variables "
            "(${VAR}).",
            "MastraCode names its MCP client after the server's key: keep the key herdr_link, so that a run without "
            "a terminal (mastracode -p) is known to be its own pane's process.",
        ),  # fmt: skip
        # @mastra/code-sdk 1.0.1: getAppDataDir (utils/project.js), the wizard's record (onboarding/settings.js,
        # ONBOARDING_VERSION 1 in onboarding/packs.js) and shouldShowOnboarding (mastracode dist/chunk-EFW2IN6O.js).
        setup=SetUp(
            {
                "linux": Place(
                    "~/.local/share/mastracode/settings.json",
                    variable="XDG_DATA_HOME",
                    under_variable="mastracode/settings.json",
                ),
                "darwin": Place("~/Library/Application Support/mastracode/settings.json"),
                "win32": Place(
                    "~/AppData/Roaming/mastracode/settings.json",
                    variable="APPDATA",
                    under_variable="mastracode/settings.json",
                ),
            },
            ("onboarding",),
            ("completedAt", "skippedAt"),
            ("version", 1),
            folder="MASTRA_APP_DATA_DIR",
            program="mastracode",
            package="mastracode",
            versions=("0.32.",),
            seen_on="0.32.1",
            question='MastraCode would first show its set-up wizard ("Welcome to Mastra Code": Continue / Skip), '
            "which Herdr reads as idle: a message's Enter would answer it",
        ),  # fmt: skip
    ),
    Host(
        "devin",
        "Devin CLI",
        kind="devin",
        clients=("=devin",),  # not seen (no build runs here): a guess, so matched exactly
        presentation=PresentationForm.MCP_PREFIXED,  # mcp__<server>__<tool> (its MCP overview)
        relists=False,  # not known: dispatch-first works either way
        servers=Servers(
            _DEVIN_CONFIG,
            "mcpServers",
            (("command", COMMAND), ("args", ARGS)),
        ),
        # Normal mode (its default) asks before any tool no rule allows; `mcp__<server>__*` is its documented
        # pattern for all of a server's tools (docs.devin.ai/cli/reference/permissions, cli/extensibility/mcp)
        allow=Allow(_DEVIN_CONFIG, (f"mcp__{SERVER_NAMESPACE}__*",)),
        notes=(
            'permissions.allow "{allow}" lets every Herdr Link tool run without the approval Devin CLI asks for '
            "otherwise (Normal mode approves read-only tools only).",
            "Built from Devin CLI's documentation (docs.devin.ai/cli/extensibility/mcp/configuration); no build of "
            "devin installs or runs here, so this wiring is not run.",
        ),
    ),
    Host(
        "omp",
        "oh-my-pi",
        kind="omp",
        clients=("omp-coding-agent",),
        # oh-my-pi 18.2.3 mounts MCP tools as xd:// devices (its default tools.xdev), listed in the system prompt
        # and run through its write tool; no setting is needed (docs/hosts.md)
        presentation=PresentationForm.XD_DEVICE,
        servers=Servers(
            Place(
                "~/.omp/agent/mcp.json",
                ".omp/mcp.json",
                variable="PI_CODING_AGENT_DIR",
                under_variable="mcp.json",
                user_note="user-scope servers, the file its /mcp add writes",
                project_note="the project's servers",
            ),
            "mcpServers",
            (("command", COMMAND), ("args", ARGS)),
        ),
        # @oh-my-pi/pi-coding-agent 18.2.3: an interactive start loads the wizard while config.yml's setupVersion
        # (default 0) is below CURRENT_SETUP_VERSION 2 (src/main.ts, src/modes/setup-version.ts); OMP_SKIP_SETUP
        # skips it (selectSetupScenes, src/modes/setup-wizard/index.ts); finishing records 2
        # (markSetupWizardComplete); the folder is PI_CODING_AGENT_DIR's (pi-utils src/dirs.ts).
        setup=SetUp(
            dict.fromkeys(
                ("linux", "darwin", "win32"),
                Place(
                    "~/.omp/agent/config.yml",
                    variable="PI_CODING_AGENT_DIR",
                    under_variable="config.yml",
                    format="yaml",
                ),
            ),
            (),
            (),
            ("setupVersion", 2),
            folder="PI_CODING_AGENT_DIR",
            program="omp",
            package="@oh-my-pi/pi-coding-agent",
            versions=("18.2.",),
            seen_on="18.2.3",
            skip="OMP_SKIP_SETUP",
            older=("config.yaml",),  # read when config.yml is absent (MAIN_CONFIG_FILENAMES, pi-utils src/dirs.ts)
            off=("startup", "setupWizard"),  # its setting (default true): false shows no scene (selectSetupScenes)
            question="oh-my-pi would first show its five-step set-up wizard over its composer, which Herdr reads as "
            "idle: a message's Enter would answer it",
        ),
    ),
    Host(
        "kimi",
        "Kimi Code CLI",
        kind="kimi",
        clients=("=kimi-code",),  # its identity slug (KIMI_CODE_IDENTITY_SLUG), "kimi-code" by default
        presentation=PresentationForm.MCP_PREFIXED,
        relists=False,  # Kimi Code 2.1.0 lists once per session: nothing handles tools/list_changed
        servers=Servers(
            Place(
                "~/.kimi-code/mcp.json",
                ".kimi-code/mcp.json",
                variable="KIMI_CODE_HOME",
                under_variable="mcp.json",
                user_note="user-scope servers (the file /mcp-config edits)",
                project_note="the project's servers",
            ),
            "mcpServers",
            (("command", COMMAND), ("args", ARGS)),
            project_question="Kimi Code uses a project's servers only once you trust the folder",
        ),
        # Kimi Code 2.1.0 reads [[permission.rules]] (decision, pattern, scope, reason) from its config.toml
        # only, no project file (PermissionRuleSchema and permissionFromToml in dist/main.mjs)
        allow=Allow(
            Place(
                "~/.kimi-code/config.toml",
                variable="KIMI_CODE_HOME",
                under_variable="config.toml",
                format="toml",
                user_note="its settings (the permission rule)",
            ),
            (f"mcp__{SERVER_NAMESPACE}__*",),
            key=("permission", "rules"),
            rule_field="pattern",
            fields=(("decision", "allow"),),
        ),
        # Kimi Code 2.1.0's TUI asks in every folder without its record (maybeRunWorkspaceTrustPrompt): a file
        # $KIMI_CODE_HOME/workspace-trust/wd_<name>_<sha256 prefix> holding JSON (trustRecord.ts, workdir-slug.ts)
        trust=Trust(
            Place(
                "~/.kimi-code/workspace-trust",
                variable="KIMI_CODE_HOME",
                under_variable="workspace-trust",
                private=True,
                user_note="folder trust, as Kimi Code records it (one file per folder)",
            ),
            "record_files",
            'a Kimi Code worker started in {folder} first asks "Trust this folder?" (Kimi Code asks once in each '
            "folder, a folder above it does not count; its Enter answers it, so a message typed there would: Link "
            "refuses to start a worker there, and to type into one waiting at it)",
        ),
        notes=(
            '[[permission.rules]] decision = "allow", pattern = "{allow}" is the documented rule that lets every '
            "Herdr Link tool run without the approval Kimi Code's TUI asks for before each MCP call (kimi -p does "
            "not ask); Kimi Code 2.1.0 does not apply rules from config.toml yet, so its TUI still asks: "
            '"Approve for this session" allows the rest of the session (Link\'s calls all go through one tool).',
            'Its TUI asks "Trust this folder?" the first time it starts in a folder, each folder on its own (no '
            "folder above it counts): --trust DIR records DIR as Kimi Code does (a file named after DIR in "
            "~/.kimi-code/workspace-trust), so a worker started in DIR goes straight to its composer.",
        ),
    ),
    Host(
        "amp",
        "Amp",
        kind="amp",
        clients=("amp-mcp-client",),  # Amp 0.0.1790142911 (docs/hosts.md)
        presentation=PresentationForm.MCP_PREFIXED,  # `amp tools list`: mcp__herdr_link__<tool>
        relists=False,  # not known: dispatch-first works either way
        servers=Servers(
            Place(
                "~/.config/amp/settings.json",
                variable="XDG_CONFIG_HOME",
                under_variable="amp/settings.json",
                format="jsonc",
                user_note="the settings file `amp mcp add` writes",
            ),
            "amp.mcpServers",  # one key, dot and all
            (("command", COMMAND), ("args", ARGS)),
            # a workspace's .amp/settings.json servers run only once `amp mcp approve` (an online login) approved
            # them
            scopes=("user",),
            lookup=("user",),
        ),
        notes=(
            "Amp's built-in permission rules allow every mcp__* tool: no rule is needed.",
            "Amp's model runs only through an Amp account (ampcode.com): this wiring is not run here, though the "
            "npm build installs and starts our server (`amp tools list`).",
        ),
    ),
    Host(
        "hermes",
        "Hermes Agent",
        kind="hermes",
        clients=("=mcp",),  # Hermes 0.19.0 names no client: the MCP Python SDK's default clientInfo.name
        presentation=PresentationForm.MCP_PREFIXED,  # mcp__herdr_link__<tool> (tools/mcp_tool.py)
        # It re-lists on tools/list_changed, but its model is given the new tools only between turns
        # (refresh_agent_mcp_tools): within the turn that activates, the gateway's dispatch is what works.
        relists=False,
        servers=Servers(
            Place(
                "~/.hermes/config.yaml",
                variable="HERMES_HOME",
                under_variable="config.yaml",
                format="yaml",
                user_note="merge into your config: mcp_servers (your comments and layout stay as they are)",
            ),
            "mcp_servers",
            (("command", COMMAND), ("args", ARGS), ("env", _forwarded("${{{}}}"))),
            scopes=("user",),
            lookup=("user",),
            requirements=(
                Requirement(
                    "env",
                    includes=FORWARDED_VARIABLES,
                    problem="{path} does not forward {missing}: the server will see no Herdr",
                    fix="add NAME: ${{NAME}} under mcp_servers.{ns}.env for each of them",
                ),
            ),
            registered=" and forwards the Herdr variables",
        ),
        notes=(
            "Hermes Agent starts MCP servers with a filtered environment: the entry forwards the Herdr variables "
            "(${VAR}, which it expands from its own environment).",
            "A running Hermes Agent reloads its MCP servers when config.yaml's mcp_servers change (its CLI watches "
            "the file; /reload-mcp otherwise).",
        ),
        user_notes=(
            "Hermes Agent rewrites config.yaml whole when it saves a setting (hermes setup, hermes config set): "
            "comments in it are lost then; install kept them.",
        ),
    ),
    Host(
        "qodercli",
        "Qoder CLI",
        kind="qodercli",
        clients=("qodercli",),  # its MCP client is named qodercli (qoderclicn for the CN build)
        presentation=PresentationForm.MCP_PREFIXED,
        # From Qoder's documentation (docs.qoder.com/cli/mcp-servers, /cli/mcp-reference): `qodercli mcp add -s
        # user` keeps servers in ~/.qoder/settings.json (QODER_CONFIG_DIR); `trust` skips the confirmation
        # its default permission mode asks before each MCP call.
        servers=Servers(
            Place(
                "~/.qoder/settings.json",
                variable="QODER_CONFIG_DIR",
                under_variable="settings.json",
                user_note="your user settings, where `qodercli mcp add -s user` records servers",
            ),
            "mcpServers",
            (("command", COMMAND), ("args", ARGS), ("trust", True)),
            scopes=("user",),
            lookup=("user",),
            registered=" as trusted",
        ),
        notes=(
            "Built from Qoder's documentation (docs.qoder.com/cli/mcp-servers, /cli/mcp-reference); Qoder CLI needs "
            "an online Qoder sign-in, so no build of it runs here and this wiring is not run.",
        ),  # fmt: skip
    ),
    Host(
        "maki",
        "maki",
        kind="maki",
        clients=("=maki",),  # not seen (no build runs here): a guess, so matched exactly
        presentation=PresentationForm.SERVER_DOUBLE_UNDERSCORE,  # <server>__<tool> (its docs, "Naming")
        relists=False,  # not known: dispatch-first works either way
        servers=Servers(
            Place(
                "~/.config/maki/mcp.toml",
                ".maki/mcp.toml",
                format="toml",
                user_note="maki's MCP config",
                project_note="the project's MCP config (read once maki trusts the folder)",
            ),
            "mcp",
            # always_load: never behind its tool_search (it defers once more than 10 tools exist)
            (("command", ARGV), ("always_load", True)),
            project_question="maki reads a project's .maki/mcp.toml only once it trusts the folder",
            # maki refuses server names other than ASCII letters, digits and hyphens (maki-config
            # is_valid_server_name): herdr_link would be refused
            name="herdr-link",
        ),
        notes=(
            "maki accepts only letters, digits and hyphens in a server's name: Link's server is herdr-link there, "
            "and its tools herdr-link__<tool>.",
            "Built from maki's documentation and source (tontinton/maki site/docs/content/mcp/_index.md, "
            "maki-agent/src/mcp/config.rs); no build of maki installs or runs here, so this wiring is not run.",
        ),
    ),
)
"""Every host kind Link knows, in the order the tools list them."""


def _rows(hosts: Sequence[Host] | None) -> Sequence[Host]:
    """``hosts``, or the table as the package ``herdr_link_control.hosts`` holds it now (its face's
    ``HOSTS``, where a test may have put a made-up row)."""
    if hosts is not None:
        return hosts
    rows: Sequence[Host] = getattr(sys.modules.get(__package__ or "", None), "HOSTS", HOSTS)
    return rows


def find_host(name: str, hosts: Sequence[Host] | None = None) -> Host | None:
    """The record for ``--host NAME``; ``None`` for a name Link does not know."""
    return next((host for host in _rows(hosts) if host.name == name), None)


def host_extension(name: str, hosts: Sequence[Host] | None = None) -> Extension:
    """Where host ``name`` loads our native extension (its row's :attr:`Host.extension`).

    Raises:
        LookupError: the table has no such host, or it loads no extension of ours.
    """
    host = find_host(name, hosts)
    if host is None or host.extension is None:
        raise LookupError(f"the host table has no extension for {name!r}")
    return host.extension


def hosts_with(field: HostField, hosts: Sequence[Host] | None = None) -> tuple[Host, ...]:
    """The hosts whose ``field`` (``servers``, ``hint``, ``hook``, ``trust``, …) is set, in table order."""
    return tuple(host for host in _rows(hosts) if getattr(host, field) is not None)


def host_for_client(client_name: str | None, hosts: Sequence[Host] | None = None) -> Host | None:
    """The host a ``clientInfo.name`` belongs to (first match in table order), or ``None``."""
    name = (client_name or "").lower()
    for host in _rows(hosts):
        for needle in host.clients:
            if (name == needle[1:]) if needle.startswith("=") else (needle in name):
                return host
    return None


KIND_ALIASES: Final = {
    "claude-code": "claude",
    "cursor-agent": "cursor",
    "devin-cli": "devin",
    "antigravity": "agy",
    "antigravity-cli": "agy",
    "mastra-code": "mastracode",
    "opencode2": "opencode",
    "open-code": "opencode",
    "github-copilot": "copilot",
    "ghcs": "copilot",
    "kimi-code": "kimi",
    "kiro-cli": "kiro",
    "amp-local": "amp",
    "grok-build": "grok",
    "hermes-agent": "hermes",
    "kilo-code": "kilo",
    "qoder": "qodercli",
    "qoderclicn": "qodercli",
    "qodercn": "qodercli",
    "qwen-code": "qwen",
}
"""The aliases Herdr's ``parse_agent_label`` accepts for its kinds (herdrdev/herdr ``src/detect/mod.rs``,
docs/herdr.md §7)."""


def host_for_kind(kind: str, hosts: Sequence[Host] | None = None) -> Host | None:
    """The host whose Herdr agent kind ``kind`` is, read as Herdr reads it (any case, its aliases)."""
    label = kind.strip().lower()
    for suffix in (".exe", ".cmd", ".bat", ".ps1", ".js"):
        label = label.removesuffix(suffix)
    label = KIND_ALIASES.get(label, label)
    return next((host for host in _rows(hosts) if host.kind == label), None)
