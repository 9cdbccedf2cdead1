"""Deliberately broken adapters, each breaking one promise of ``PROTOCOL.md``, to show that
``herdr-link-conformance`` catches it (``tests/test_conformance_bites.py``; the whole matrix:
``nox -s conformance_matrix``).

Each one is our own MCP server behind a proxy that alters one thing, on the wire or where the server
meets Herdr:

    python tests/tools/broken_adapters.py mcp BREAK -- herdr-link-mcp    # the adapter the kit starts
    python tests/tools/broken_adapters.py bridge BREAK -- herdr-link-bridge    # BREAK in BRIDGE_BREAKS

* ``wire``: the proxy rewrites what passes between the kit and the server (a reply, a request, a
  notification) for that one promise;
* ``herdr``: the server's ``HERDR_BIN_PATH`` is pointed at a stand-in ``herdr`` that alters what the
  server asked for (this file again, in ``herdr`` mode) before the simulator's real one runs it;
* ``env``: the server starts with one variable changed.

A few breaks (:data:`BRIDGE_BREAKS`) also come as a broken bridge: our bridge behind a line proxy.

:data:`BREAKS` says, for each, the promise it breaks and the checks that must fail on it.
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REAL_HERDR = "HERDR_LINK_BROKEN_REAL_HERDR"
"""Where the stand-in ``herdr`` finds the simulator's real one."""


@dataclass(frozen=True)
class Break:
    """One broken adapter: the promise it breaks and the checks that must fail on it."""

    promise: str
    fails: tuple[str, ...]


BREAKS: dict[str, Break] = {
    "lists-outside-herdr": Break("outside Herdr it lists the gateway", ("gate-lists-nothing",)),
    "partial-env-is-herdr": Break("HERDR_ENV without a pane id counts as Herdr", ("gate-partial-env",)),
    "outside-relabelled": Break("outside Herdr a call fails SEND_FAILED, not NOT_IN_HERDR", ("gate-call-outside",)),
    "dormant-extra-tool": Break("a dormant list holds a second tool", ("dormant-gateway-only",)),
    "dormant-carries-contract": Break(
        "the dormant gateway's description quotes the contract", ("dormant-no-contract",)
    ),
    "receipt-extra-key": Break("the activation receipt carries another key", ("activation-receipt",)),
    "second-activation-differs": Break("a second activation answers otherwise", ("activation-idempotent",)),
    "activation-looks-around": Break("activation lists the workspace's agents", ("activation-no-herdr-action",)),
    "activate-action-refused": Break('{"action":"activate"} is refused', ("activate-action",)),
    "active-tools-reordered": Break("the active list puts the Tier 1 tools out of order", ("active-surface",)),
    "contract-rule-dropped": Break("the activation result leaves out rule 3", ("contract-visible",)),
    "list-changed-twice": Break("activation signals tools/list_changed twice", ("list-changed-once",)),
    "nested-arguments-ignored": Break("a dispatch's nested arguments fail", ("dispatch-peers",)),
    "flat-keys-dropped": Break("a dispatch's flat keys are dropped", ("dispatch-flat-send",)),
    "unknown-action-tool-error": Break("an unknown action is a tool error", ("dispatch-unknown-action",)),
    "host-keys-refused": Break("wait_for_previous breaks the call", ("host-keys-ignored",)),
    "peers-without-self": Break("peers names someone else as the caller", ("peers-self-and-peers",)),
    "peers-leak-pane-ids": Break("peers shows each peer's pane id", ("peers-privacy",)),
    "receipt-wrong-id": Break("the send receipt's id is not the envelope's", ("send-receipt",)),
    "prompt-the-sender-too": Break("a send is typed into the sender's own pane as well", ("send-exactly-once",)),
    "other-workspace-told": Break(
        "another workspace's agent is told apart from a missing one", ("send-other-workspace",)
    ),
    "empty-message-sent": Break("an empty message is delivered", ("send-empty",)),
    "bad-name-send-failed": Break("a raw pane id as recipient is SEND_FAILED", ("send-bad-name",)),
    "close-receipt-wrong": Break("the close receipt names another agent", ("close-peer",)),
    "close-other-workspace-failed": Break("another workspace's close is CLOSE_FAILED", ("close-other-workspace",)),
    "close-overtakes-send": Break("a close issued after a send runs first", ("close-after-send",)),
    "wrapper-line-after-envelope": Break("a line follows the envelope", ("wrapper-shape",)),
    "wrapper-in-two-prompts": Break("the wrapper is typed as two prompts", ("wrapper-one-submission",)),
    # (two prompts are two deliveries: every check that expects one delivery fails with it; see the matrix)
    "controls-typed-raw": Break("escaped controls are typed raw", ("escaping-controls",)),
    "shell-escapes-undone": Break("$, backquote and ! are typed raw in the envelope", ("wrapper-shell-inert",)),
    "message-altered": Break("the message's non-ASCII text is altered", ("escaping-roundtrip",)),
    "start-no-new-tab": Break("a start into a new tab splits the caller's pane", ("start-new-tab",)),
    "with-ignored": Break("with: makes a new tab instead", ("start-with",)),
    "round-robin-stuck": Break("round-robin always starts the first variant", ("start-round-robin",)),
    "start-leaves-panes": Break("a failed start leaves its tab", ("start-rollback",)),
    "blocked-start-closed": Break("an agent blocked during start-up loses its pane", ("start-blocked-kept",)),
    "raw-pane-id-started": Break("a raw pane id in start input is used", ("start-raw-id-refused",)),
    "bootstrap-never-renames": Break("an unnamed caller is never named", ("bootstrap-names-the-caller",)),
    "herdr-down-crashes": Break("with Herdr gone, a call is a protocol error", ("error-herdr-down",)),
    "diagnostics-passed-on": Break("Herdr's error text reaches the model", ("error-no-diagnostics",)),
    "hangs-with-herdr": Break("a call never answers while Herdr hangs", ("bounded-when-herdr-hangs",)),
    "prompt-waits": Break("send runs agent prompt --wait", ("argv-surface",)),
    "host-files-ignored": Break(
        "the host's own files are not read (started with an empty HOME)",
        ("start-would-ask-refused", "send-at-a-question-refused"),
    ),
    "identity-from-the-environment": Break(
        "the pane in its environment is taken as the caller whatever the host (its client is told to the "
        "server as a host that spawns per pane)",
        ("pane-shown-not-assumed",),
    ),
    "thread-taken-as-proof": Break(
        "a call that carries a thread is served as the pane in the environment (by a second server whose client "
        "spawns per pane)",
        ("pane-shown-not-assumed",),
    ),
    "settings-ignored": Break(
        "the user's Herdr Link settings are not read (the loop guard's limit)", ("send-loop-guard",)
    ),
}
"""Every broken adapter, by name."""

BRIDGE_BREAKS = {"close-overtakes-send"}
"""The breaks that also come as a broken bridge (``bridge`` mode): the bridge's own promises, which
the kit can see only when it has several requests in flight."""

HERDR_LEVEL = {
    "prompt-the-sender-too",
    "wrapper-line-after-envelope",
    "wrapper-in-two-prompts",
    "controls-typed-raw",
    "shell-escapes-undone",
    "message-altered",
    "start-no-new-tab",
    "with-ignored",
    "start-leaves-panes",
    "blocked-start-closed",
    "bootstrap-never-renames",
    "diagnostics-passed-on",
    "prompt-waits",
}
"""The breaks done by the stand-in ``herdr``; every other one is on the wire (or the environment)."""
SCRATCH = "HERDR_LINK_BROKEN_SCRATCH"
"""The broken adapter's own folder, shared by its proxy and its stand-in ``herdr`` (each call of which is
a process of its own): :func:`_last_failure` and :func:`_split_pane` are kept there."""


# ---- the stand-in herdr ---------------------------------------------------------------------------


def _run_real(args: list[str]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([os.environ[REAL_HERDR], *args], capture_output=True)


def _pass(done: subprocess.CompletedProcess[bytes]) -> int:
    sys.stdout.buffer.write(done.stdout)
    sys.stderr.buffer.write(done.stderr)
    return done.returncode


RAW_ALLOWED_IN_JSON = re.compile(r"\\u(00[89][0-9a-f]|00ad|200[b-f]|202[89a-e]|206[0-9]|feff)")
"""Escapes of characters JSON may carry raw (C1 controls, format characters, U+2028/9): typed raw, the
envelope still parses, so only the escaping promise breaks."""


def _unescape_controls(text: str) -> str:
    return RAW_ALLOWED_IN_JSON.sub(lambda m: chr(int(m.group(1), 16)), text)


def fake_herdr(name: str, args: list[str]) -> int:
    """The stand-in ``herdr``: alter ``args`` (or what it answers) for the break ``name``."""
    head = tuple(args[:2])
    if head == ("agent", "prompt") and len(args) >= 4:
        target, text = args[2], args[3]
        if name == "prompt-the-sender-too":
            done = _run_real(args)
            if done.returncode == 0:  # only a send that happened is typed twice (a fault stays Herdr's)
                _run_real(["agent", "prompt", "brain", text])
            return _pass(done)
        if name == "wrapper-line-after-envelope":
            args = [*args[:3], text + "\n(delivered by Herdr Link)", *args[4:]]
        elif name == "wrapper-in-two-prompts":
            first, _, rest = text.partition("\n")
            done = _run_real(["agent", "prompt", target, first])
            if done.returncode != 0:  # a prompt Herdr refused is not typed on (a fault stays Herdr's)
                return _pass(done)
            args = [*args[:3], rest, *args[4:]]
        elif name == "controls-typed-raw":
            args = [*args[:3], _unescape_controls(text), *args[4:]]
        elif name == "shell-escapes-undone":  # still valid JSON, the same message: only the shell sees it
            raw = text.replace("\\u0024", "$").replace("\\u0060", "`").replace("\\u0021", "!")
            args = [*args[:3], raw, *args[4:]]
        elif name == "message-altered":
            args = [*args[:3], text.replace("\\u00e9", "e").replace("é", "e"), *args[4:]]
        elif name == "prompt-waits":
            _run_real(["agent", "wait", target, "--until", "idle", "--timeout", "100"])
    if name == "start-no-new-tab" and head == ("tab", "create"):
        return _split_as_tab()
    if name == "start-no-new-tab" and head == ("tab", "close") and _split_pane().exists():
        # the "tab" made is the split pane: its rollback closes that pane, and nothing of the caller's
        return _pass(_run_real(["pane", "close", _split_pane().read_text()]))
    if name == "with-ignored" and head == ("pane", "split"):
        return _tab_as_split(args)
    if name == "start-leaves-panes" and head == ("tab", "close"):
        sys.stdout.write(json.dumps({"id": "cli:tab:close", "result": {"type": "ok"}}) + "\n")
        return 0  # the rollback "succeeds" and closes nothing
    if name == "blocked-start-closed" and head == ("agent", "start"):
        done = _run_real(args)
        if done.returncode != 0 and b"agent_not_ready" in done.stdout + done.stderr:
            pane = args[args.index("--pane") + 1]
            _run_real(["pane", "close", pane])
        return _pass(done)
    if name == "bootstrap-never-renames" and head == ("agent", "rename"):
        sys.stdout.write(json.dumps({"id": "cli:agent:rename", "result": {"type": "ok"}}) + "\n")
        return 0
    done = _run_real(args)
    if name == "diagnostics-passed-on" and done.returncode != 0 and head == ("agent", "prompt"):
        # only the prompt's failure: a lookup's would also tell another workspace's agent from a missing one
        _last_failure(Path(os.environ[SCRATCH])).write_bytes(done.stdout + done.stderr)
    return _pass(done)


def _self_pane() -> str:
    return os.environ.get("HERDR_PANE_ID", "")


def _last_failure(scratch: Path) -> Path:
    """Where ``diagnostics-passed-on``'s stand-in keeps what Herdr said when the prompt failed."""
    return scratch / "last-failure"


def _split_pane() -> Path:
    """Where ``start-no-new-tab`` keeps the pane it split in place of a new tab."""
    return Path(os.environ[SCRATCH]) / "split-pane"


def _tab_as_split(args: list[str]) -> int:
    """Make a new tab as a start would (spec §8), and answer as ``pane split`` would, with its root pane."""
    workspace, cwd = args[2].split(":", 1)[0], args[args.index("--cwd") + 1]
    done = _run_real(["tab", "create", "--workspace", workspace, "--cwd", cwd, "--no-focus"])
    if done.returncode != 0:
        return _pass(done)
    pane = json.loads(done.stdout)["result"]["root_pane"]
    sys.stdout.write(json.dumps({"id": "cli:pane:split", "result": {"pane": pane, "type": "pane_info"}}) + "\n")
    return 0


def _split_as_tab() -> int:
    """Split the caller's pane, and answer as ``tab create`` would, the split pane as the new tab's root."""
    done = _run_real(["pane", "split", _self_pane(), "--direction", "down", "--no-focus"])
    if done.returncode != 0:
        return _pass(done)
    pane = json.loads(done.stdout)["result"]["pane"]
    _split_pane().write_text(pane["pane_id"])
    tab = {"tab_id": pane["tab_id"], "workspace_id": pane["workspace_id"], "pane_count": 2}
    reply = {"id": "cli:tab:create", "result": {"root_pane": pane, "tab": tab, "type": "tab_created"}}
    sys.stdout.write(json.dumps(reply) + "\n")
    return 0


# ---- the wire proxy ---------------------------------------------------------------------------------


@dataclass
class Proxy:
    """Between the kit (stdin/stdout) and the real server (a child process), altering one thing."""

    name: str
    server: subprocess.Popen[bytes]
    outside: bool
    last_failure: Path
    """What the stand-in ``herdr`` kept of a prompt Herdr refused (``diagnostics-passed-on``)."""
    calls: dict[Any, dict[str, Any]] = field(default_factory=dict)
    started: dict[Any, float] = field(default_factory=dict)
    peeked: threading.Event = field(default_factory=threading.Event)
    activations: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    command: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    twin: subprocess.Popen[bytes] | None = None
    """``thread-taken-as-proof``: a second server, told its client is Claude Code, for calls with a thread."""
    held: list[dict[str, Any]] = field(default_factory=list)
    """``close-overtakes-send``: sends held until a later close has been answered (or the input ends)."""
    overtaking: set[Any] = field(default_factory=set)
    """The ids of the closes the held sends wait for."""

    def release(self) -> None:
        """Forward the held sends (once each)."""
        with self.lock:
            held, self.held = self.held, []
        for message in held:
            self.to_server(message)

    def twin_call(self, message: dict[str, Any]) -> dict[str, Any]:
        """``message`` (without its ``_meta``) answered by the twin server."""
        if self.twin is None:
            self.twin = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=self.env)
            hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "claude-code",
                                                                                         "version": "1"}}  # fmt: skip
            self._twin_ask({"jsonrpc": "2.0", "id": "twin-hello", "method": "initialize", "params": hello})
            self._twin_send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        params = {k: v for k, v in message["params"].items() if k != "_meta"}
        return self._twin_ask({**message, "params": params})

    def _twin_send(self, message: dict[str, Any]) -> None:
        assert self.twin is not None and self.twin.stdin is not None
        self.twin.stdin.write(json.dumps(message).encode() + b"\n")
        self.twin.stdin.flush()

    def _twin_ask(self, message: dict[str, Any]) -> dict[str, Any]:
        self._twin_send(message)
        assert self.twin is not None and self.twin.stdout is not None
        while True:
            answer: dict[str, Any] = json.loads(self.twin.stdout.readline())
            if answer.get("id") == message["id"]:
                return answer

    def to_kit(self, message: dict[str, Any]) -> None:
        with self.lock:
            sys.stdout.write(json.dumps(message, ensure_ascii=False) + "\n")
            sys.stdout.flush()

    def to_server(self, message: dict[str, Any]) -> None:
        assert self.server.stdin is not None
        with self.lock:
            self.server.stdin.write(json.dumps(message).encode() + b"\n")
            self.server.stdin.flush()

    # -- the kit's requests

    def from_kit(self, message: dict[str, Any]) -> None:
        if message.get("method") == "initialize" and self.name == "identity-from-the-environment":
            (message.get("params") or {}).get("clientInfo", {})["name"] = "claude-code"
        if message.get("method") == "tools/call":
            params = message.get("params") or {}
            self.calls[message.get("id")] = params
            self.started[message.get("id")] = time.monotonic()
            arguments = params.get("arguments") or {}
            tool = params.get("name")
            if tool == "herdr_link" and arguments == {}:
                self.activations += 1
                if self.name == "activation-looks-around":  # peers first, then the activation
                    self.peeked.clear()
                    self.to_server({"jsonrpc": "2.0", "id": "peek", "method": "tools/call",
                                    "params": {"name": "herdr_link_peers", "arguments": {}}})  # fmt: skip
                    self.peeked.wait(60)
            if self.name == "activate-action-refused" and arguments == {"action": "activate"}:
                return self.to_kit(_error(message, "unknown action"))
            if self.name == "flat-keys-dropped" and arguments.get("action") == "send" and "arguments" not in arguments:
                params["arguments"] = {"action": "send"}
            if self.name == "host-keys-refused" and "wait_for_previous" in arguments:
                return self.to_kit(_tool_error(message, "SEND_FAILED: wait_for_previous is not allowed"))
            if self.name == "empty-message-sent" and tool == "herdr_link_send" and arguments.get("message") == "":
                arguments["message"] = "(empty)"
            if self.name == "raw-pane-id-started" and tool == "herdr_link_start" and "pane" in arguments:
                del arguments["pane"]
            if self.name == "round-robin-stuck" and tool == "herdr_link_start" and "config_agent" in arguments:
                arguments.pop("config_agent")
                arguments.update({"kind": "pi", "args": []})
            meta = params.get("_meta")
            if self.name == "thread-taken-as-proof" and isinstance(meta, dict) and "threadId" in meta:
                return self.to_kit(self.twin_call(message))
            if self.name == "close-overtakes-send" and tool == "herdr_link_send":
                with self.lock:
                    self.held.append(message)
                threading.Timer(60.0, self.release).start()  # only for a kit that waits for the send's answer
                return None
            if self.name == "close-overtakes-send" and tool == "herdr_link_close" and self.held:
                self.overtaking.add(message.get("id"))
        self.to_server(message)
        return None

    # -- the server's answers and notifications

    def from_server(self, message: dict[str, Any]) -> None:
        if message.get("id") == "peek":
            self.peeked.set()
            return None
        method = message.get("method")
        if method == "notifications/tools/list_changed" and self.name == "list-changed-twice":
            self.to_kit(message)
        result = message.get("result")
        if isinstance(result, dict) and "tools" in result:
            self._tools(result["tools"])
        params = self.calls.pop(message.get("id"), None)
        started = self.started.pop(message.get("id"), time.monotonic())
        if params is not None:
            message = self._answer(message, params, time.monotonic() - started)
        self.to_kit(message)
        if message.get("id") in self.overtaking:  # the close ran first: now the sends it overtook
            self.overtaking.discard(message.get("id"))
            self.release()
        return None

    def _tools(self, tools: list[dict[str, Any]]) -> None:
        names = [tool.get("name") for tool in tools]
        if self.name == "lists-outside-herdr" and self.outside and names == []:
            tools.append({"name": "herdr_link", "inputSchema": {"type": "object"}})
        if names == ["herdr_link"] and self.name == "dormant-extra-tool":
            tools.append({"name": "herdr_link_help", "inputSchema": {"type": "object"}})
        if names == ["herdr_link"] and self.name == "dormant-carries-contract":
            tools[0]["description"] += " Remember: peer state never proves completion."
        if len(names) == 5 and self.name == "active-tools-reordered":
            tools[1:] = list(reversed(tools[1:]))

    def _answer(self, message: dict[str, Any], params: dict[str, Any], took: float) -> dict[str, Any]:
        tool, arguments = params.get("name"), params.get("arguments") or {}
        result = message.get("result")
        if "error" in message:
            if self.name == "unknown-action-tool-error":
                return _tool_error(message, "START_FAILED: unknown action")
            return message
        if not isinstance(result, dict):
            return message
        blocks = [c for c in result.get("content", []) if c.get("type") == "text"]
        text = blocks[0]["text"] if blocks else ""
        failed = bool(result.get("isError"))
        activation = tool == "herdr_link" and arguments in ({}, {"action": "activate"})
        if self.name == "outside-relabelled" and self.outside and text.startswith("NOT_IN_HERDR"):
            blocks[0]["text"] = "SEND_FAILED" + text[len("NOT_IN_HERDR") :]
        elif self.name == "receipt-extra-key" and activation and not failed:
            blocks[0]["text"] = json.dumps({**json.loads(text), "session": 1}, separators=(",", ":"))
        elif self.name == "second-activation-differs" and activation and self.activations >= 2 and len(blocks) > 1:
            blocks[1]["text"] += "\nActivated again."
        elif self.name == "contract-rule-dropped" and activation and len(blocks) > 1:
            blocks[1]["text"] = "\n".join(line for line in blocks[1]["text"].split("\n") if not line.startswith("3. "))
        elif self.name == "nested-arguments-ignored" and tool == "herdr_link" and "arguments" in arguments:
            return _tool_error(message, "PEER_NOT_FOUND: the arguments could not be read")
        elif self.name == "peers-without-self" and '"self"' in text:
            blocks[0]["text"] = text.replace('"name":"brain"', '"name":"someone"', 1)
        elif self.name == "peers-leak-pane-ids" and '"peers"' in text:
            blocks[0]["text"] = text.replace('"name":"reviewer"', '"name":"reviewer","pane":"w1:p2"')
        elif self.name == "receipt-wrong-id" and '"status":"sent"' in text:
            blocks[0]["text"] = re.sub(r'"id":"[^"]+"', '"id":"hl_forged"', text)
        elif self.name == "other-workspace-told" and arguments.get("to") == "outsider" and failed:
            blocks[0]["text"] = text + " (it is in another workspace)"
        elif self.name == "bad-name-send-failed" and arguments.get("to") == "w1:p2" and failed:
            blocks[0]["text"] = "SEND_FAILED" + text[text.index(":") :]
        elif self.name == "close-receipt-wrong" and '"status":"closed"' in text:
            blocks[0]["text"] = text.replace('"agent":"reviewer"', '"agent":"someone"')
        elif self.name == "close-other-workspace-failed" and arguments.get("agent") == "outsider" and failed:
            blocks[0]["text"] = "CLOSE_FAILED" + text[text.index(":") :]
        elif self.name == "herdr-down-crashes" and failed and tool == "herdr_link_peers":
            return _error(message, "internal error")
        elif self.name == "hangs-with-herdr" and failed and tool == "herdr_link_peers" and took > 5:
            time.sleep(3600)  # Herdr hung and the server timed out: this adapter never answers
        elif (
            self.name == "diagnostics-passed-on" and failed and tool == "herdr_link_send"
            and self.last_failure.exists()
        ):  # fmt: skip
            blocks[0]["text"] = text + " (herdr said: " + self.last_failure.read_text(errors="replace").strip() + ")"
        return message


def _tool_error(message: dict[str, Any], text: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": message.get("id"),
            "result": {"content": [{"type": "text", "text": text}], "isError": True}}  # fmt: skip


def _error(message: dict[str, Any], text: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": message.get("id"), "error": {"code": -32602, "message": text}}


def _pump(read: Callable[[], bytes], handle: Callable[[dict[str, Any]], None]) -> None:
    while line := read():
        try:
            message = json.loads(line)
        except ValueError:
            continue
        threading.Thread(target=handle, args=(message,), daemon=True).start()


def _stand_in(name: str, directory: Path) -> Path:
    script = directory / "herdr"
    script.write_text(f'#!/bin/sh\nexec {sys.executable!s} {Path(__file__).resolve()!s} herdr {name} "$@"\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def serve_broken(name: str, command: list[str]) -> int:
    """Run the server ``command`` behind the break ``name``; returns when the kit closes stdin."""
    env = dict(os.environ)
    outside = "HERDR_ENV" not in env
    if name == "partial-env-is-herdr" and "HERDR_ENV" in env and "HERDR_PANE_ID" not in env:
        env["HERDR_PANE_ID"] = "w1:p1"
    with tempfile.TemporaryDirectory(prefix="hl-broken-") as directory:
        if name == "host-files-ignored":  # a home where no host ever ran: nothing predicts a question
            env["HOME"] = directory
        if name == "settings-ignored":  # the default limit, whatever the user set
            env.pop("HERDR_LINK_CONFIG", None)
        if name in HERDR_LEVEL and "HERDR_BIN_PATH" in env:
            env[REAL_HERDR] = env["HERDR_BIN_PATH"]
            env["HERDR_BIN_PATH"] = str(_stand_in(name, Path(directory)))
            env[SCRATCH] = directory
        server = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        proxy = Proxy(name, server, outside, _last_failure(Path(directory)), command=command, env=env)
        assert server.stdout is not None
        answers = threading.Thread(target=_pump, args=(server.stdout.readline, proxy.from_server), daemon=True)
        answers.start()
        _pump(sys.stdin.buffer.readline, proxy.from_kit)
        proxy.release()  # a send still held (close-overtakes-send) reaches the server, which answers it
        assert server.stdin is not None
        server.stdin.close()
        server.wait(timeout=60)
        answers.join(timeout=10)
        if proxy.twin is not None and proxy.twin.stdin is not None:
            proxy.twin.stdin.close()
            proxy.twin.wait(timeout=60)
    return 0


def serve_broken_bridge(name: str, command: list[str]) -> int:
    """Run the bridge ``command`` behind a line proxy that holds each ``send`` request until the kit writes a
    ``close``, which then reaches the bridge first (the sends right after it); the bridge's answers pass
    unchanged."""
    bridge = subprocess.Popen(command, stdin=subprocess.PIPE)
    assert bridge.stdin is not None
    writing = threading.Lock()

    def forward(line: bytes) -> None:
        with writing:
            bridge.stdin.write(line)  # type: ignore[union-attr]
            bridge.stdin.flush()  # type: ignore[union-attr]

    held: list[bytes] = []
    while line := sys.stdin.buffer.readline():
        try:
            op = json.loads(line).get("op")
        except (ValueError, AttributeError):
            op = None
        if name == "close-overtakes-send" and op == "send":
            held.append(line)
            continue
        forward(line)
        if op == "close":
            while held:
                forward(held.pop(0))
    for line in held:  # a send no close overtook still reaches the bridge
        forward(line)
    with writing:
        bridge.stdin.close()
    return bridge.wait(timeout=60)


def main(argv: list[str]) -> int:
    mode, name, *rest = argv
    if name not in BREAKS:
        raise SystemExit(f"unknown break {name!r}")
    if mode == "herdr":
        return fake_herdr(name, rest)
    command = rest[1:] if rest[:1] == ["--"] else rest
    if mode == "bridge":
        if name not in BRIDGE_BREAKS:
            raise SystemExit(f"{name!r} is not a bridge break")
        return serve_broken_bridge(name, command)
    return serve_broken(name, command)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
