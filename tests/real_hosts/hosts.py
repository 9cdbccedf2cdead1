"""Host adapters: how to install each real host from npm and run it headless against the fake model.

Adding a host (Codex 0.171.0, OpenCode 1.18.33, Pi 1.6.0, Gemini CLI 0.61.0) means adding an entry
to ``HOSTS`` and an adapter with ``run``; the rig, the isolation and the DNS check stay as they are.
"""

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("HERDR_LINK_HOSTS_CACHE", ROOT / ".cache" / "real-hosts"))


@dataclass(frozen=True)
class HostPackage:
    """A host pinned to one npm version, installed under ``CACHE/<name>-<version>``."""

    name: str
    package: str
    version: str
    bin: str

    @property
    def prefix(self) -> Path:
        return CACHE / f"{self.name}-{self.version}"

    @property
    def executable(self) -> Path:
        return self.prefix / "node_modules" / ".bin" / self.bin

    def install(self) -> None:
        """``npm install`` the pinned version (needs the network: run before isolating)."""
        if self.executable.exists():
            return
        self.prefix.mkdir(parents=True, exist_ok=True)
        print(f"installing {self.package}@{self.version} from npm into {self.prefix} (once; then cached)…", flush=True)
        subprocess.run(
            ["npm", "install", "--no-save", "--no-audit", "--no-fund", "--prefix", str(self.prefix),
             f"{self.package}@{self.version}"],
            check=True, timeout=900,
        )  # fmt: skip


HOSTS = {"claude": HostPackage("claude", "@anthropic-ai/claude-code", "2.1.332", "claude")}


def wiring(host: str) -> dict[str, Any]:
    """``herdr-link-mcp wiring --host <host> --json``: the registration exactly as we tell users."""
    command = shutil.which("herdr-link-mcp") or str(Path(sys.executable).parent / "herdr-link-mcp")
    done = subprocess.run([command, "wiring", "--host", host, "--json"], check=True, capture_output=True, text=True)
    value: dict[str, Any] = json.loads(done.stdout)
    return value


@dataclass
class ClaudeRun:
    """One finished ``claude -p`` run, with Claude Code's own MCP log for our server."""

    returncode: int
    stdout: str
    stderr: str
    mcp_log: list[dict[str, Any]]

    def era(self) -> str:
        """The MCP protocol version Claude Code negotiated with our server."""
        for entry in self.mcp_log:
            text = str(entry.get("debug", ""))
            if "negotiatedProtocolVersion" in text:
                return str(json.loads(text.split("capabilities: ", 1)[1])["negotiatedProtocolVersion"])
        return "unknown"

    def stopped_on_sigint(self) -> bool:
        """Whether our server ended on Claude Code's SIGINT, without needing its SIGTERM."""
        texts = [str(e.get("debug", "")) for e in self.mcp_log]
        return any("Sending SIGINT" in t for t in texts) and not any("SIGINT failed" in t for t in texts)

    def refreshed(self) -> bool:
        """Whether Claude Code re-listed our tools after a change signal."""
        return any("list_changed notification, refreshing" in str(e.get("debug", "")) for e in self.mcp_log)

    @property
    def result(self) -> dict[str, Any]:
        value: dict[str, Any] = json.loads(self.stdout.strip().splitlines()[-1])
        return value


class ClaudeCode:
    """Claude Code 2.1.332, headless (``-p``), registered from our ``wiring`` output."""

    package = HOSTS["claude"]

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.home = workdir / "home"
        self.home.mkdir(parents=True, exist_ok=True)
        files = {f["path"]: f["content"] for f in wiring("claude")["files"]}
        self.mcp_config = workdir / ".mcp.json"
        self.mcp_config.write_text(files[".mcp.json"])
        self.hint = workdir / "herdr-link-claude-hint.txt"
        self.hint.write_text(next(content for path, content in files.items() if path.endswith("hint.txt")))

    def run(self, prompt: str, env: dict[str, str], model_url: str, *, legacy: bool = False) -> ClaudeRun:
        """Run one headless turn in the pane whose Herdr environment is ``env``."""
        full = {
            **env,
            "HOME": str(self.home),
            "ANTHROPIC_BASE_URL": model_url,
            "ANTHROPIC_API_KEY": "dummy",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
        }
        if legacy:
            full["MCP_PROTOCOL_NEGOTIATION"] = "legacy"
        argv = [
            str(self.package.executable), "-p", prompt,
            "--mcp-config", str(self.mcp_config), "--strict-mcp-config",
            "--allowedTools", "mcp__herdr_link__*",
            "--append-system-prompt-file", str(self.hint),
            "--output-format", "json",
        ]  # fmt: skip
        done = subprocess.run(argv, env=full, cwd=self.workdir, capture_output=True, text=True, timeout=180)
        logs = sorted(self.home.glob(".cache/claude-cli-nodejs/*/mcp-logs-herdr-link/*.jsonl"))
        log = [json.loads(line) for path in logs for line in path.read_text().splitlines() if line.strip()]
        for path in logs:
            path.unlink()  # the next run's log starts empty
        return ClaudeRun(done.returncode, done.stdout, done.stderr, log)


if __name__ == "__main__":
    for host in HOSTS.values():
        host.install()
        print(f"{host.name} {host.version}: {host.executable}")
