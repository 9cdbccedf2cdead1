"""Files users have, for the install round trip: each host's own files as the hosts and their users
write them (shapes taken from the hosts' defaults and their documentation), in the styles people
keep them (2 and 4 spaces, tabs, minified, CRLF, no final newline), plus the hard cases (comments,
escapes, number spellings, bytes that are not UTF-8, empty containers, existing hooks and trust,
dotted TOML keys, blank lines)."""

import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Case:
    name: str
    host: str
    path: str  # under HOME
    data: bytes


CLAUDE_STATE: dict[str, Any] = {
    "numStartups": 42,
    "installMethod": "native",
    "autoUpdates": False,
    "theme": "dark",
    "userID": "5e1f0d3c9a7b",
    "firstStartTime": "2026-03-01T09:12:44.120Z",
    "primaryApiKey": "sk-ant-secret-value",
    "projects": {
        "/home/me/work/app": {
            "allowedTools": [],
            "history": [{"display": "fix the tests", "pastedContents": {}}],
            "mcpContextUris": [],
            "mcpServers": {},
            "hasTrustDialogAccepted": True,
            "lastCost": 0.1234,
            "lastDuration": 61234,
        }
    },
    "tipsHistory": {"new-user-warmup": 1, "memory-command": 7},
    "cachedChangelog": '# Changelog\n\n## 2.1.0\n- \u00e9l\u00e8ve "quotes" and \\ backslashes',
}
CLAUDE_SETTINGS: dict[str, Any] = {
    "$schema": "https://json.schemastore.org/claude-code-settings.json",
    "model": "opus",
    "permissions": {"allow": ["Bash(npm run test:*)", "Read(~/.zshrc)"], "deny": ["Read(./.env)"]},
    "hooks": {
        "PostToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "npx prettier --write"}]}],
        "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hello"}]}],
    },
    "env": {"DISABLE_TELEMETRY": "1"},
}
GEMINI_SETTINGS: dict[str, Any] = {
    "general": {"vimMode": True, "preferredEditor": "code"},
    "ui": {"theme": "GitHub"},
    "mcpServers": {"github": {"httpUrl": "https://api.example.invalid/mcp", "timeout": 5000}},
    "security": {"folderTrust": {"enabled": True}, "auth": {"selectedType": "oauth-personal"}},
}
GEMINI_TRUST: dict[str, Any] = {"/home/me/work": "TRUST_FOLDER", "/home/me/tmp": "DO_NOT_TRUST"}
CODEX_HOOKS: dict[str, Any] = {
    "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "~/bin/log-session", "timeout": 5}]}]}
}
AGY_MCP: dict[str, Any] = {"mcpServers": {"filesystem": {"command": "npx", "args": ["-y", "mcp-fs", "/home/me"]}}}
AGY_HOOKS: dict[str, Any] = {"audit": {"PreInvocation": [{"type": "command", "command": "audit-log"}]}}
PI_MCP: dict[str, Any] = {"mcpServers": {"search": {"command": "search-mcp", "args": [], "exposure": "codemode"}}}

OTHER_SERVER: dict[str, Any] = {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
                                 "env": {"GITHUB_TOKEN": "ghp_example"}}  # fmt: skip
COPILOT_MCP: dict[str, Any] = {"mcpServers": {"github": {"type": "local", "tools": ["*"], **OTHER_SERVER}}}
COPILOT_CONFIG: dict[str, Any] = {"banner": "never", "trustedFolders": ["/home/me/work"], "model": "gpt-5.4"}
QWEN_SETTINGS: dict[str, Any] = {
    "security": {"auth": {"selectedType": "openai"}},
    "model": {"name": "qwen3-coder-plus"},
    "mcpServers": {"github": OTHER_SERVER},
    "hooks": {"SessionStart": [{"matcher": "*", "hooks": [{"type": "command", "command": "~/.qwen/hooks/x.sh"}]}]},
}
CLINE_MCP: dict[str, Any] = {"mcpServers": {"github": {"transport": {"type": "stdio", **OTHER_SERVER}}}}
KILO_CONFIG: dict[str, Any] = {
    "$schema": "https://app.kilo.ai/config.json",
    "model": "rig/scripted",
    "mcp": {"github": {"type": "local", "command": ["npx", "-y", "@modelcontextprotocol/server-github"]}},
}
DROID_MCP: dict[str, Any] = {"mcpServers": {"github": {"type": "stdio", "disabled": False, **OTHER_SERVER}}}
PLAIN_MCP: dict[str, Any] = {"mcpServers": {"github": OTHER_SERVER}}
OMP_MCP: dict[str, Any] = {  # as oh-my-pi 18.2.3's /mcp add writes it: its $schema first
    "$schema": "https://raw.githubusercontent.com/can1357/oh-my-pi/main/packages/coding-agent/src/config/mcp-schema.json",
    "mcpServers": {"github": {"type": "stdio", **OTHER_SERVER, "timeout": 30000}, "docs": {"type": "http",
                   "url": "https://docs.example.invalid/mcp", "enabled": False}},
    "disabledServers": ["legacy"],
}  # fmt: skip
KIMI_MCP: dict[str, Any] = {  # as Kimi Code 2.1.0's /mcp-config writes it: stdio, HTTP and legacy SSE entries
    "mcpServers": {
        "github": {**OTHER_SERVER, "toolTimeoutMs": 120000},
        "linear": {"url": "https://mcp.linear.app/mcp", "bearerTokenEnvVar": "LINEAR_TOKEN"},
        "legacy-events": {"transport": "sse", "url": "https://mcp.example.invalid/sse", "enabled": False},
    }
}
QODER_SETTINGS: dict[str, Any] = {  # as Qoder's documentation shows ~/.qoder/settings.json (settings, MCP reference)
    "general": {"defaultPermissionMode": "default", "enableAutoUpdate": False},
    "mcpServers": {"playwright": {"command": "npx", "args": ["-y", "@playwright/mcp@latest"]}},
    "permissions": {"allow": ["mcp__context7__*"], "deny": []},
}
DROID_SETTINGS: dict[str, Any] = {  # with the hook Herdr's own `herdr integration install droid` adds
    "model": "custom:scripted",
    "customModels": [{"id": "custom:scripted", "model": "scripted", "baseUrl": "http://127.0.0.1:8080/v1"}],
    "hooks": {
        "SessionStart": [{"matcher": "", "hooks": [{"type": "command", "command": "~/.factory/hooks/herdr.sh"}]}]
    },
}

AMP_SETTINGS: dict[str, Any] = {  # keys as `amp mcp add` and Amp's manual spell them: one key, dot and all
    "amp.notifications.enabled": False,
    "amp.permissions": [{"tool": "Bash", "matches": {"cmd": "*git push*"}, "action": "ask"}],
    "amp.mcpServers": {"playwright": {"command": "npx", "args": ["-y", "@playwright/mcp@latest", "--headless"]}},
}
DEVIN_CONFIG: dict[str, Any] = {  # docs.devin.ai/cli/reference/configuration/config-file, "User config"
    "agent": {"model": "swe-1-6-fast", "show_history_on_continue": True},
    "theme_mode": None,
    "permissions": {"allow": ["Read(**)", "Exec(git)"], "deny": [], "ask": []},
    "mcpServers": {"github": OTHER_SERVER},
    "read_config_from": {"cursor": True, "windsurf": True, "claude": True},
}
AMP_COMMENTED: str = (  # as `amp mcp add` leaves a settings file with comments (Amp 0.0.1790142911)
    '{\n  // Amp settings\n  "amp.notifications.enabled": false,\n  "amp.permissions": [\n'
    '    { "tool": "Bash", "matches": { "cmd": "*git push*" }, "action": "ask" }\n  ],\n  /* servers */\n'
    '  "amp.mcpServers": {\n    "playwright": { "command": "npx", "args": ["-y", "@playwright/mcp@latest"] }\n'
    "  }\n}\n"
)
DEVIN_COMMENTED: str = (  # "JSON files (with comment support)", as its documentation writes them
    '// ~/.config/devin/config.json\n{\n  // Agent behavior\n  "agent": {\n    "model": "swe-1-6-fast"\n  },\n'
    '  "permissions": {\n    "allow": ["Read(**)", "Exec(git)"],\n    "deny": [],\n    "ask": []\n  },\n'
    '  // MCP servers\n  "mcpServers": {\n'
    '    "github": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"] }\n  }\n}\n'
)

BASES: list[tuple[str, str, dict[str, Any]]] = [
    ("copilot", ".copilot/mcp-config.json", COPILOT_MCP),
    ("copilot", ".copilot/config.json", COPILOT_CONFIG),
    ("qwen", ".qwen/settings.json", QWEN_SETTINGS),
    ("cline", ".cline/data/settings/cline_mcp_settings.json", CLINE_MCP),
    ("kilo", ".config/kilo/kilo.jsonc", KILO_CONFIG),
    ("droid", ".factory/mcp.json", DROID_MCP),
    ("droid", ".factory/settings.json", DROID_SETTINGS),
    ("cursor", ".cursor/mcp.json", PLAIN_MCP),
    ("kiro", ".kiro/settings/mcp.json", PLAIN_MCP),
    ("mastracode", ".mastracode/mcp.json", PLAIN_MCP),
    ("omp", ".omp/agent/mcp.json", OMP_MCP),
    ("amp", ".config/amp/settings.json", AMP_SETTINGS),
    ("devin", ".config/devin/config.json", DEVIN_CONFIG),
    ("kimi", ".kimi-code/mcp.json", KIMI_MCP),
    ("qodercli", ".qoder/settings.json", QODER_SETTINGS),
    ("claude", ".claude.json", CLAUDE_STATE),
    ("claude", ".claude/settings.json", CLAUDE_SETTINGS),
    ("gemini", ".gemini/settings.json", GEMINI_SETTINGS),
    ("gemini", ".gemini/trustedFolders.json", GEMINI_TRUST),
    ("codex", ".codex/hooks.json", CODEX_HOOKS),
    ("agy", ".gemini/config/mcp_config.json", AGY_MCP),
    ("agy", ".gemini/antigravity-cli/hooks.json", AGY_HOOKS),
    ("pi", ".pi/agent/mcp.json", PI_MCP),
]


def _styles(value: Any) -> dict[str, str]:
    two = json.dumps(value, indent=2, ensure_ascii=False)
    return {
        "2-space": two + "\n",
        "4-space": json.dumps(value, indent=4) + "\n",  # escapes non-ASCII as \\uXXXX
        "tabs": json.dumps(value, indent="\t", ensure_ascii=False) + "\n",
        "minified": json.dumps(value, separators=(",", ":"), ensure_ascii=False),
        "crlf": two.replace("\n", "\r\n") + "\r\n",
        "no-final-newline": two,
    }


def _special() -> list[Case]:
    cases = [
        ("claude", ".claude.json", '{\n  "n": 1e2,\n  "big": 1e400,\n  "tiny": -0.0,\n  "e": "\\u00e9\\/"\n}\n'),
        ("claude", ".claude.json", '{\n  "mcpServers": {},\n  "projects": {}\n}\n'),
        ("claude", ".claude.json", '{ "mcpServers": { }, "numStartups": 3 }\n'),
        ("claude", ".claude.json", ""),
        ("claude", ".claude.json", "{}"),
        ("claude", ".claude.json", "  \n"),
        ("claude", ".claude/settings.json", '{\n  "permissions": {\n    "allow": []\n  }\n}\n'),
        ("claude", ".claude/settings.json", '{"permissions":{"allow":["mcp__herdr_link"]},"hooks":{}}'),
        (
            "claude",
            ".claude/settings.json",
            '{\n  "hooks": {\n    "SessionStart": [\n      {\n        "hooks": []\n      }\n    ]\n  }\n}\n',
        ),
        (
            "gemini",
            ".gemini/settings.json",
            '// my Gemini settings\n{\n  "ui": {"theme": "GitHub"}, // dark later\n  /* servers */\n'
            '  "mcpServers": {\n    "other": {"command": "x"}\n  }\n}\n',  # comments, as Gemini CLI reads them
        ),
        ("gemini", ".gemini/settings.json", '{\n  "hooks": {\n    "SessionStart": []\n  }\n}\n'),
        ("gemini", ".gemini/trustedFolders.json", '{\n  // mine\n  "/home/me": "TRUST_PARENT"\n}\n'),
        ("codex", ".codex/hooks.json", '{\n  "hooks": {}\n}\n'),
        ("pi", ".pi/agent/mcp.json", '{\n    "mcpServers": {\n    }\n}\n'),
        (
            "kilo",
            ".config/kilo/kilo.jsonc",
            '{\n  "$schema": "https://app.kilo.ai/config.json",\n  // my provider\n  "model": "rig/scripted",\n'
            '  /* servers */\n  "mcp": {}\n}\n',  # comments, as `kilo mcp add` leaves kilo.jsonc
        ),
        ("qwen", ".qwen/settings.json", '{\n  // Qwen Code\n  "model": {"name": "qwen3-coder-plus"}\n}\n'),
        ("copilot", ".copilot/mcp-config.json", '{\n  "mcpServers": {}\n}\n'),
        # oh-my-pi reads strict JSON (no comments): an empty file, and a server table still empty
        ("omp", ".omp/agent/mcp.json", json.dumps({"$schema": OMP_MCP["$schema"], "mcpServers": {}}, indent=2)),
        ("omp", ".omp/agent/mcp.json", '{"mcpServers":{"herdr":{"command":"herdr-mcp"}},"enabledServers":["x"]}\n'),
        ("amp", ".config/amp/settings.json", AMP_COMMENTED),
        ("amp", ".config/amp/settings.json", '{\n  "amp.mcpServers": {}\n}\n'),
        ("devin", ".config/devin/config.json", DEVIN_COMMENTED),
        ("devin", ".config/devin/config.json", '{\n  "permissions": {\n    "allow": []\n  }\n}\n'),
        ("kimi", ".kimi-code/mcp.json", '{\n  "mcpServers": {}\n}\n'),  # Kimi Code, its last server removed
        ("kimi", ".kimi-code/mcp.json", '{\n  "note": "mine",\n  "mcpServers": {\n    "x": {"command": "x"}\n  }\n}'),
    ]
    out = [Case(f"special-{i}-{host}", host, path, text.encode()) for i, (host, path, text) in enumerate(cases)]
    out.append(Case("non-utf8", "claude", ".claude/settings.json", b'{\n  "model": "caf\xe9 \xff"\n}\n'))
    return out


TOML: list[str] = [
    "",
    'model = "gpt-5"',
    'model = "gpt-5"\n',
    'mcp_servers.other.command = "x"\nmodel = "gpt-5"\n',
    'hooks.something = true\nmodel = "o3"\n',
    '# Codex config\r\nmodel = "o3"\r\n\r\n[mcp_servers.other]\r\ncommand = "x"\r\n',
    'model = "o3"\n\n[profiles.fast]\nmodel = "o4-mini"\n\n\n',
    'approval_policy = "on-request"\nsandbox_mode = "workspace-write"\n\n[sandbox_workspace_write]\n'
    'network_access = true\n\n[projects."/home/me/work"]\ntrust_level = "trusted"\n',
    'notify = ["notify-send", "Codex"]\n\n[tui]\nnotifications = [\n  "agent-turn-complete", # done\n]\n',
    'instructions = """\nUse [brackets] freely.\n[not.a.table]\n"""\n[history]\npersistence = "save-all"\n',
    '[mcp_servers]\nother = { command = "x", args = ["y"] }\n',
    "[features]\nweb_search_request = true\n# trailing comment\n",
    'mcp_servers = { other = { command = "x" } }\nmodel = "o3"\n',
    "mcp_servers = {}\nhooks = { state = {} }\n",
    'projects."/home/me/work".trust_level = "trusted"\nmodel = "o3"\n',
]


def corpus() -> list[Case]:
    """Every case, named."""
    cases = [
        Case(f"{host}-{path.replace('/', '_')}-{style}", host, path, text.encode())
        for host, path, value in BASES
        for style, text in _styles(value).items()
    ]
    cases += _special()
    cases += [Case(f"codex-config-{i}", "codex", ".codex/config.toml", text.encode()) for i, text in enumerate(TOML)]
    cases += [Case(f"grok-config-{i}", "grok", ".grok/config.toml", text.encode()) for i, text in enumerate(GROK)]
    trust = ".grok/trusted_folders.toml"
    cases += [Case(f"grok-trust-{i}", "grok", trust, text.encode()) for i, text in enumerate(GROK_TRUST)]
    kimi = ".kimi-code/config.toml"
    cases += [Case(f"kimi-config-{i}", "kimi", kimi, text.encode()) for i, text in enumerate(KIMI[:-1])]
    cases += [Case(f"maki-mcp-{i}", "maki", ".config/maki/mcp.toml", text.encode()) for i, text in enumerate(MAKI)]
    cases += [
        Case(f"hermes-config-{name}", "hermes", ".hermes/config.yaml", text.encode()) for name, text in HERMES.items()
    ]
    return cases


GROK: list[str] = [
    "",
    '[models]\ndefault = "stub"\n\n[model.stub]\nmodel = "scripted"\nbase_url = "http://127.0.0.1:8080/v1"\n'
    'api_key = "sk-local"\napi_backend = "chat_completions"\n\n[features]\ntelemetry = false\n',
    '# Grok Build\n[mcp_servers.github]\ncommand = "npx"\nargs = ["-y", "@modelcontextprotocol/server-github"]\n'
    "enabled = true\n",
    '[permission]\nallow = ["Bash(git *)", "Bash(gh *)"]\n',
    '# rules\n[permission]\nallow = [\n  "Bash(git *)",  # git is fine\n  "Read(src/**)",\n]\n'
    'deny = [\n  "Bash(rm -rf *)",\n]\n\n[ui]\npermission_mode = "default"\n',
    '[permission]\r\ndeny = ["Bash(rm -rf *)"]\r\nallow = [\r\n    # mine\r\n    "Read" # reading\r\n]\r\n',
    '[permission]\nallow = []\n\n[mcp_servers.github]\ncommand = "npx"\n',
    'permission = { allow = ["Grep"], deny = [] }\n',
    '[permission]\nask = ["Edit"]',
    '[permission]\nallow = ["MCPTool(herdr_link__*)", "Read"]  # written by hand\n',
]
"""Grok Build's ``~/.grok/config.toml`` as its documentation shows it: a custom model, another server, and
permission rules of the user's (one line, one a line with comments, CRLF, empty, an inline table, no
``allow`` yet, ours written by hand)."""


KIMI: list[str] = [
    "",
    "# ~/.kimi-code/config.toml\n# Runtime settings for Kimi Code.\n# This file starts empty so built-in defaults can "
    "apply.\n# Login will populate managed Kimi provider and model entries.\n",
    '[providers.stub]\ntype = "openai"\nbase_url = "http://127.0.0.1:8080/v1"\napi_key = "sk-local"\n\n'
    '[models.stub]\nprovider = "stub"\nmodel = "scripted"\nmax_context_size = 128000\n',
    '# mine\n[permission]\ndangerous_command_guard = true\n\n[[permission.rules]]\ndecision = "deny"\n'
    'pattern = "Bash(rm *)"\nreason = "never"\n# the next one is the team\'s\n\n[[permission.rules]]\n'
    'decision = "ask"\npattern = "Write"\n\n[services.moonshot_search]\nenabled = false\n',
    '[permission]\r\n[[permission.rules]]\r\ndecision = "allow"\r\npattern = "Read"\r\n',
    'permission.dangerous_command_guard = false\ndefault_model = "stub"',
    '[permission]\nrules = [{ decision = "deny", pattern = "Bash" }]\n',
    '[[permission.rules]]\ndecision = "allow"\npattern = "mcp__herdr_link__*"  # by hand\n',
]
"""Kimi Code's ``~/.kimi-code/config.toml``: as it writes it first, with a provider and model, and with the
user's ``[[permission.rules]]`` (with comments and other tables, CRLF, dotted keys and no final newline, an
inline array, ours written by hand: not in the corpus, as install leaves that file as it is)."""


GROK_TRUST: list[str] = [
    "",
    '[folders."/home/me/code/app"]\ntrusted = true\ndecided_at = 1780000000\n',
    '[folders."/home/me/code/app"]\ntrusted = true\ndecided_at = 1780000000\n\n'
    '[folders."/home/me/code/app/vendor"]\ntrusted = false\ndecided_at = 1780000100\n',
    '# trusted by hand\r\n[folders."/srv/site"]\r\ntrusted = true # the team\'s\r\n',
    "[folders]\n",
    'folders."/srv/site".trusted = true\n',
]
"""Grok Build's ``~/.grok/trusted_folders.toml`` as it writes it (``[folders."<root>"] trusted, decided_at``,
one folder or a trusted one and a distrusted one below it), and as a user may edit it (comments, CRLF, no
``decided_at``, an empty table, dotted keys)."""


MAKI: list[str] = [  # maki's mcp.toml as its documentation writes it (tontinton/maki site/docs/content/mcp)
    "",
    '[mcp.filesystem]\ncommand = ["npx", "-y", "@modelcontextprotocol/server-filesystem", "/tmp"]\n',
    "# my servers\ndefer_tools = 20\n\n[mcp.filesystem]\n"
    'command = ["npx", "-y", "@modelcontextprotocol/server-filesystem", "/tmp"]\n\n'
    '[mcp.github]\ncommand = ["gh", "mcp-server"]\nenvironment = { GITHUB_TOKEN = "ghp_xxxx" }\n'
    "timeout = 10000\nenabled = false\n",
    '[mcp.analytics]\nurl = "https://mcp.example.com/mcp"\nheaders = { Authorization = "Bearer tok123" }\n\n'
    '[mcp.linear]\ncommand = ["linear-mcp-server"]\nalways_load = true  # small, every turn\n',
    'mcp = { ast-grep = { command = ["ast-grep-mcp"] } }\n',
]


HERMES_SAVED = """\
model:
  default: anthropic/claude-opus-4.6
  provider: openrouter
  base_url: https://openrouter.ai/api/v1
toolsets:
  - hermes-cli
agent:
  max_turns: 90
  reasoning_effort: medium
terminal:
  backend: local
  cwd: .
  timeout: 180
mcp_servers:
  github:
    command: npx
    args:
      - -y
      - '@modelcontextprotocol/server-github'
    env:
      GITHUB_PERSONAL_ACCESS_TOKEN: ${GITHUB_TOKEN}
display:
  skin: default
  personality: kawaii
"""
"""~/.hermes/config.yaml as Hermes Agent 0.19.0 saves it (``utils.atomic_yaml_write``: PyYAML, block style,
sequences indented, keys in its order)."""

HERMES: dict[str, str] = {
    "saved": HERMES_SAVED,
    "4-space": HERMES_SAVED.replace("  ", "    "),
    "crlf": HERMES_SAVED.replace("\n", "\r\n"),
    "no-final-newline": HERMES_SAVED.rstrip("\n"),
    "hand-edited": "# ~/.hermes/config.yaml\n"
    + HERMES_SAVED.replace(
        "mcp_servers:\n", "mcp_servers:   # my servers\n  # files, off for now\n  # filesystem:\n  #   command: npx\n\n"
    )
    .replace("display:", "\n# looks\ndisplay:")
    .replace("default: anthropic/claude-opus-4.6", 'default: "anthropic/claude-opus-4.6"  # the big one'),
    "last-section": HERMES_SAVED.split("display:")[0],
    "servers-flow-empty": "model:\n  default: x\nmcp_servers: {}\n",
    "servers-flow": 'mcp_servers: {github: {command: npx, args: ["-y", "@modelcontextprotocol/server-github"]}}\n',
    "no-servers": HERMES_SAVED.split("mcp_servers:")[0],
    "comments-only": "# Hermes Agent configuration\n# (see hermes config)\n",
    "empty": "",
    "blank": "\n\n",
    "document-marker": "---\nmodel:\n  default: x\n",
}
"""Hermes Agent's config.yaml in the layouts its users keep."""
