"""The checks: each an observable promise of ``PROTOCOL.md``, tied to its section.

Every check gets a fresh simulated Herdr with the same layout (workspace A: ``brain``, the pane
the adapter runs in, ``reviewer`` and a plain shell; workspace B: ``outsider``) and starts the
adapter itself, so checks cannot leak into each other. A check fails by raising :class:`Failed`
with what it saw. Checks of what ``PROTOCOL.md`` adds to seed 001 are marked ``addition``.
"""

from __future__ import annotations

import json
import re
import tempfile
import unicodedata
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import anyio

from herdr_link_control import surface_violation
from herdr_link_protocol import (
    CAPABILITIES,
    CLOSE_TOOL,
    COMMUNICATION_CONTRACT,
    GATEWAY_TOOL,
    PEERS_TOOL,
    SEND_TOOL,
    START_TOOL,
    TIER1_TOOLS,
    Cause,
    Envelope,
    LinkError,
    extract_envelope,
)
from herdr_link_testkit import DEFAULT_RELEASE, Fault, HerdrError, HerdrSim, StartScript

from ._adapters import Adapter, AdapterSpec, Outcome, open_adapter

__all__ = ["CHECKS", "CheckSpec", "Context", "Failed"]

ACTIVE_RECEIPT: Final = {"status": "active", "capabilities": list(CAPABILITIES)}
RAW_ID: Final = re.compile(r"\bw\d+:(?:p|t)\d+\b|\bw\d+\b|/[^\s\"']*herdr\.sock")
"""What a raw Herdr pane, tab or workspace id, or the socket path, looks like in text."""
FORMAT_CHARACTERS: Final = (
    "\u00ad\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2060\u2066\u2067\u2068\u2069\ufeff"
)
"""Soft hyphen, ZWSP, ZWNJ, ZWJ, the bidi marks, embeddings, overrides and isolates, word joiner, BOM."""
HOSTILE: Final = (
    "a\x1b[31mred\x1b[0m \x1b[201~paste-end \x1b]0;title\x07 "  # 7-bit terminal sequences
    "\x9b201~ \x9d0;title\x9c "  # the same in 8-bit form: CSI and OSC as one C1 character
    + "".join(chr(c) for c in range(0x20))  # every C0 control
    + "\x7f"  # DEL
    + "".join(chr(c) for c in range(0x80, 0xA0))  # every C1 control
    + FORMAT_CHARACTERS
    + " e\u2028f\u2029g \u00e9\u4e2d\U0001f600 end"  # the separators, and text that stays readable
)
"""Every character §2.5 escapes, and terminal sequences in 7- and 8-bit form, none of which may reach a
pane raw. Lone surrogates are sent too where the adapter's transport can carry them (a bridge's JSON
lines; an MCP client built on the SDK cannot write them): :data:`LONE_SURROGATES`."""
LONE_SURROGATES: Final = " \ud800 \udfff"
"""Lone surrogates (category Cs), for adapters whose transport carries them."""


def hostile_message(adapter: Adapter) -> str:
    """The §2.5 corpus this adapter's transport can carry."""
    return HOSTILE + (LONE_SURROGATES if adapter.carries_lone_surrogates else "")


def escaped_categories(text: str) -> list[str]:
    """Every character of ``text`` that §2.5 says must not reach a pane raw, as ``U+XXXX``."""
    return [f"U+{ord(c):04X}" for c in text if unicodedata.category(c) in ("Cc", "Cf", "Cs", "Zl", "Zp")]


class Failed(Exception):
    """A check's promise was not kept; the message says what was seen."""


def expect(condition: object, detail: str) -> None:
    """Fail the check with ``detail`` unless ``condition`` holds."""
    if not condition:
        raise Failed(detail)


@dataclass
class Context:
    """One check's world: a fresh simulated Herdr with the standard layout, and the adapter to test."""

    spec: AdapterSpec
    sim: HerdrSim
    root: Path
    brain: str
    reviewer: str
    shell: str
    outsider: str

    @asynccontextmanager
    async def adapter(
        self,
        pane: str | None = None,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
        *,
        client: str | None = None,
        detached: bool = False,
    ) -> AsyncIterator[Adapter]:
        """The adapter, started in ``pane`` (default ``brain``) with that pane's environment, in
        ``cwd`` (default the workspace's directory); ``client`` and ``detached`` as :func:`open_adapter`."""
        environment = dict(env) if env is not None else self.sim.env(pane or self.brain)
        opened = open_adapter(self.spec, environment, str(cwd or self.root), client=client, detached=detached)
        async with opened as adapter:
            yield adapter

    def commands(self) -> list[tuple[str, ...]]:
        return self.sim.log.commands()


CheckFunction = Callable[[Context], Awaitable[None]]


@dataclass(frozen=True)
class CheckSpec:
    """One check: an id, the ``PROTOCOL.md`` section, what it needs the adapter to claim, and its body."""

    id: str
    section: str
    title: str
    needs: frozenset[str]
    addition: bool
    run: CheckFunction


CHECKS: list[CheckSpec] = []
"""Every check, in the order they run."""


def check(
    id: str, section: str, title: str, *, needs: tuple[str, ...] = (), addition: bool = False
) -> Callable[[CheckFunction], CheckFunction]:
    def register(function: CheckFunction) -> CheckFunction:
        CHECKS.append(CheckSpec(id, section, title, frozenset(needs), addition, function))
        return function

    return register


@asynccontextmanager
async def world(spec: AdapterSpec, herdr_version: str = DEFAULT_RELEASE) -> AsyncIterator[Context]:
    """A fresh simulated Herdr with the standard layout."""
    with tempfile.TemporaryDirectory(prefix="hl-conformance-") as directory:
        root = Path(directory)
        with HerdrSim(herdr_version=herdr_version) as sim:
            brain = sim.create_workspace(str(root))
            sim.add_agent(brain, spec.caller_kind, name="brain")
            reviewer = sim.split(brain)
            sim.add_agent(reviewer, "codex", name="reviewer")
            shell = sim.split(reviewer)
            outsider = sim.create_workspace(str(root))
            sim.add_agent(outsider, "pi", name="outsider")
            sim.log.clear()
            yield Context(spec, sim, root, brain, reviewer, shell, outsider)


# ---- helpers -------------------------------------------------------------------------------------


async def activate(adapter: Adapter) -> None:
    """Activate through the gateway when the adapter has one (a bridge has none to activate). Only
    success is required here: the receipt's exact form is ``activation-receipt``'s promise alone."""
    if "gateway" in adapter.capabilities:
        result = await adapter.call(GATEWAY_TOOL, {})
        expect(result.ok, f"activation failed: {result.text!r}")


async def active_call(ctx: Context, tool: str, arguments: Mapping[str, Any]) -> Outcome:
    """One call on a fresh adapter, activated first: all that most checks do with it."""
    async with ctx.adapter() as adapter:
        await activate(adapter)
        return await adapter.call(tool, arguments)


def no_raw_ids(outcome: Outcome, where: str) -> None:
    text = " ".join(outcome.blocks or (outcome.text,))
    found = RAW_ID.search(text)
    expect(found is None, f"{where} carries a raw Herdr id or path: {found.group(0) if found else ''!r}")


def tool_error(outcome: Outcome, code: str, where: str) -> None:
    expect(not outcome.ok and not outcome.protocol_error, f"{where}: expected a tool error, got {outcome.text!r}")
    expect(re.fullmatch(r"[A-Z_]+: .+", outcome.text, flags=re.S), f"{where}: not 'CODE: reason': {outcome.text!r}")
    expect(outcome.code == code, f"{where}: expected {code}, got {outcome.text!r}")
    no_raw_ids(outcome, where)


def delivered(ctx: Context, pane: str) -> list[Any]:
    return ctx.sim.deliveries(pane)


def only_delivery(ctx: Context, pane: str) -> Any:
    """The one delivery to ``pane``; fails on none or several."""
    found = ctx.sim.deliveries(pane)
    expect(len(found) == 1, f"the pane received {len(found)} deliveries, not 1")
    return found[0]


def envelope_of(delivery: Any) -> Envelope:
    envelope = extract_envelope(delivery.text)
    expect(envelope is not None, "the delivery has no extractable envelope")
    assert envelope is not None
    return envelope


def names(tools: list[dict[str, Any]]) -> list[str]:
    return [str(tool.get("name")) for tool in tools]


def outside_env(ctx: Context) -> dict[str, str]:
    return {k: v for k, v in ctx.sim.env(ctx.brain).items() if not k.startswith("HERDR_")}


# ---- §6.1 the environment gate -------------------------------------------------------------------


@check("gate-lists-nothing", "6.1", "outside Herdr the adapter offers no tools", needs=("tools",))
async def _gate_lists(ctx: Context) -> None:
    async with ctx.adapter(env=outside_env(ctx)) as adapter:
        listed = names(await adapter.list_tools())
    expect(listed == [], f"outside Herdr it listed {listed}")


@check("gate-partial-env", "6.1", "HERDR_ENV without the pane id is not Herdr", needs=("tools",))
async def _gate_partial(ctx: Context) -> None:
    env = {k: v for k, v in ctx.sim.env(ctx.brain).items() if k != "HERDR_PANE_ID"}
    async with ctx.adapter(env=env) as adapter:
        listed = names(await adapter.list_tools())
    expect(listed == [], f"without HERDR_PANE_ID it listed {listed}")


@check(
    "gate-call-outside",
    "6.1",
    "a call outside Herdr fails with NOT_IN_HERDR and runs nothing",
    needs=("unlisted_calls",),
)
async def _gate_call(ctx: Context) -> None:
    async with ctx.adapter(env=outside_env(ctx)) as adapter:
        tool = GATEWAY_TOOL if "gateway" in adapter.capabilities else PEERS_TOOL
        result = await adapter.call(tool, {})
    tool_error(result, "NOT_IN_HERDR", f"{tool} outside Herdr")
    expect(ctx.commands() == [], f"it ran herdr outside Herdr: {ctx.commands()}")


# ---- §3, §4.1, §6.2 dormant surface and activation ------------------------------------------------


@check("dormant-gateway-only", "6.2", "a dormant session offers the gateway alone", needs=("tools",))
async def _dormant(ctx: Context) -> None:
    async with ctx.adapter() as adapter:
        listed = names(await adapter.list_tools())
    expect(listed == [GATEWAY_TOOL], f"dormant tools/list was {listed}")


@check("dormant-no-contract", "3", "nothing dormant carries the contract or Tier 1 names", needs=("tools",))
async def _dormant_text(ctx: Context) -> None:
    async with ctx.adapter() as adapter:  # its tools, and what else it puts in a dormant model's context
        text = json.dumps([await adapter.list_tools(), await adapter.context()], ensure_ascii=False)
    # The contract's own words, apart from the tool names (which the second half looks for): each of
    # its clauses of some length, so a quoted clause is found wherever it stands.
    # The activation trigger's own name ("inbound Herdr Link message", §6.2) is what a dormant gateway
    # may say of when to call it, so it is not counted.
    clauses = re.split("|".join([*TIER1_TOOLS, r"[\n;:.\u2192]"]), COMMUNICATION_CONTRACT)
    quoted = [c.strip() for c in clauses if len(c.strip()) >= 20 and c.strip() != "inbound Herdr Link message"]
    carried = [c for c in quoted if c in text]
    expect(carried == [], f"the dormant surface carries the contract: {carried[:1]}")
    expect(not any(tool in text for tool in TIER1_TOOLS), "the dormant surface names a Tier 1 tool")


# ---- §6 the OpenCode 2 session rule (an addition): one server, many panes ----------------------


SHARED_THREAD: Final = "01a249e3-7843-7481-bc55-77c7eaf8b788"
"""A thread id of the form Codex gives its calls' ``_meta`` (which no daemon here knows)."""
SHARED_PROCESS_CLIENT: Final = "codex-mcp-client"
"""The ``clientInfo.name`` of Codex 0.171, whose default runs every pane's session in one background
app-server that spawns MCP servers with the environment of the pane that started it."""
UNKNOWN_CLIENT: Final = "an-editor-no-host-table-knows"
"""A ``clientInfo.name`` no host table names: for all an adapter knows, a host's shared process."""


@check(
    "pane-shown-not-assumed",
    "6.1",
    "a server with one pane's environment, in another pane's folder and without a terminal, under a host "
    "that shares one process between panes or a client no host table knows, never answers or sends as the "
    "pane in its environment",
    needs=("gateway", "pane_proof"),
    addition=True,
)
async def _pane_shown(ctx: Context) -> None:
    there = ctx.root / "beta-home"
    there.mkdir()
    beta = ctx.sim.split(ctx.reviewer, cwd=str(there))
    ctx.sim.add_agent(beta, "codex", name="beta")
    # brain's environment (as the pane that started the host's shared process left it), beta's folder,
    # a session of its own with no controlling terminal: nothing here shows it runs in brain's pane
    # Its calls carry a thread, as Codex's do: the thread shows no pane here (no daemon knows it), so it
    # must not decide one either.
    thread = {"threadId": SHARED_THREAD, "x-codex-turn-metadata": {"thread_id": SHARED_THREAD}}
    async with ctx.adapter(cwd=there, client=SHARED_PROCESS_CLIENT, detached=True) as adapter:
        await adapter.call(GATEWAY_TOOL, {})
        peers = await adapter.call(GATEWAY_TOOL, {"action": "peers"})
        await adapter.call(GATEWAY_TOOL, {"action": "send", "to": "reviewer", "message": "who sends this?"})
        threaded = await adapter.call(GATEWAY_TOOL, {"action": "peers"}, meta=thread)
        await adapter.call(GATEWAY_TOOL, {"action": "send", "to": "reviewer", "message": "and this?"}, meta=thread)
    async with ctx.adapter(cwd=there, client=UNKNOWN_CLIENT, detached=True) as adapter:
        await adapter.call(GATEWAY_TOOL, {})
        unknown = await adapter.call(GATEWAY_TOOL, {"action": "peers"})
        await adapter.call(GATEWAY_TOOL, {"action": "send", "to": "reviewer", "message": "and who sends this?"})
    for answer in (peers, threaded, unknown):
        me = (answer.payload or {}).get("self", {}).get("name") if answer.ok else None
        expect(me in (None, "beta"), f"peers answered as {me!r}, the pane in its environment: {answer.text!r}")
    senders = [envelope_of(delivery).from_ for delivery in delivered(ctx, ctx.reviewer)]
    expect(all(sender == "beta" for sender in senders), f"a message went out as {senders}")
    if not peers.ok:
        tool_error(peers, "SELF_UNNAMED", "the refusal")


@check(
    "session-placed-by-directory",
    "6",
    "a server another pane started answers a session as the pane its directory names",
    needs=("gateway", "session_placement"),
    addition=True,
)
async def _session_placed(ctx: Context) -> None:
    elsewhere = ctx.root / "host-home"
    elsewhere.mkdir()
    host = ctx.sim.split(ctx.brain, cwd=str(elsewhere))
    ctx.sim.add_agent(host, ctx.spec.caller_kind, name="host")
    async with ctx.adapter(pane=host) as adapter:  # the server has host's environment; the session is brain's
        await activate(adapter)
        peers = await adapter.call(GATEWAY_TOOL, {"action": "peers"})
        sent = await adapter.call(GATEWAY_TOOL, {"action": "send", "to": "reviewer", "message": "placed"})
    me = (peers.payload or {}).get("self", {}) if peers.ok else {}
    expect(me.get("name") == "brain", f"peers answered as {me.get('name')!r}, not the session's pane: {peers.text!r}")
    expect(sent.ok, f"send failed: {sent.text!r}")
    envelope = envelope_of(only_delivery(ctx, ctx.reviewer))
    expect(envelope.from_ == "brain", f"the message went out as {envelope.from_!r}, not as the session's pane")


@check(
    "session-unplaced-hidden",
    "6",
    "a session whose directory is no single OpenCode pane's is not offered the gateway and sends nothing",
    needs=("tools", "session_placement"),
    addition=True,
)
async def _session_unplaced(ctx: Context) -> None:
    nowhere = ctx.root / "nowhere"
    nowhere.mkdir()
    async with ctx.adapter(cwd=nowhere) as adapter:  # brain's environment, a session elsewhere
        listed = names(await adapter.list_tools())
        await adapter.call(GATEWAY_TOOL, {"action": "send", "to": "reviewer", "message": "unplaced"})
    expect(GATEWAY_TOOL not in listed, f"a session no pane can be found for was offered {listed}")
    expect(delivered(ctx, ctx.reviewer) == [], "a session no pane can be found for delivered a message")


@check("activation-receipt", "4.1", "herdr_link {} returns exactly the active receipt", needs=("gateway",))
async def _activation(ctx: Context) -> None:
    async with ctx.adapter() as adapter:
        result = await adapter.call(GATEWAY_TOOL, {})
    expect(result.ok, f"activation failed: {result.text!r}")
    expect(json.loads(result.text) == ACTIVE_RECEIPT, f"the first block was {result.text!r}")


@check("activation-idempotent", "4.1", "activating twice is the same receipt", needs=("gateway",))
async def _idempotent(ctx: Context) -> None:
    async with ctx.adapter() as adapter:
        first, second = await adapter.call(GATEWAY_TOOL, {}), await adapter.call(GATEWAY_TOOL, {})
    expect(first.ok and second.ok and first.blocks == second.blocks, f"{first.text!r} then {second.text!r}")


@check(
    "activation-no-herdr-action",
    "4.1",
    "activation discovers, sends and closes nothing",
    needs=("gateway", "quiet_activation"),
)
async def _activation_quiet(ctx: Context) -> None:
    async with ctx.adapter() as adapter:
        with anyio.fail_after(30):  # let a start-up bootstrap finish first
            while True:
                before = ctx.commands()
                await anyio.sleep(1)
                if ctx.commands() == before:
                    break
        await adapter.call(GATEWAY_TOOL, {})
        during = ctx.commands()[len(before) :]
    # The self identity bootstrap (§6.3, adapter-internal) may still be asking about the caller's own
    # pane; anything else, a look at another agent included, is the activation's doing.
    own = {("agent", "get", ctx.brain), ("agent", "rename", ctx.brain)}
    acting = [c for c in during if c[:3] not in own]
    expect(acting == [], f"activation ran herdr (it discovers, sends and closes nothing): {acting}")


@check("activate-action", "4.1", '{"action":"activate"} is the same as {}', needs=("gateway",))
async def _activate_action(ctx: Context) -> None:
    async with ctx.adapter() as adapter:
        result = await adapter.call(GATEWAY_TOOL, {"action": "activate"})
        plain = await adapter.call(GATEWAY_TOOL, {})
    expect(result.ok and result.payload == plain.payload, f"it returned {result.text!r}, and {{}} {plain.text!r}")


@check(
    "active-surface",
    "6.2",
    "once active, the gateway and the four Tier 1 tools, in order",
    needs=("tools", "tier1_tools"),
)
async def _active(ctx: Context) -> None:
    async with ctx.adapter() as adapter:
        await activate(adapter)
        listed = names(await adapter.list_tools())
    expect(listed == [GATEWAY_TOOL, *TIER1_TOOLS], f"active tools/list was {listed}")


@check("contract-visible", "3", "the activation result carries the six rules", needs=("gateway",))
async def _contract(ctx: Context) -> None:
    async with ctx.adapter() as adapter:
        result = await adapter.call(GATEWAY_TOOL, {})
    body = "\n".join(result.blocks)
    missing = [line for line in COMMUNICATION_CONTRACT.splitlines() if line and line not in body]
    expect(missing == [], f"the activation result lacks {missing[:1]}")


# ---- §6 list_changed and gateway dispatch ---------------------------------------------------------


@check("list-changed-once", "6", "activation signals tools/list_changed once", needs=("list_changed",))
async def _list_changed(ctx: Context) -> None:
    async with ctx.adapter() as adapter:
        await adapter.call(GATEWAY_TOOL, {})
        await adapter.call(GATEWAY_TOOL, {})
        await anyio.sleep(0.5)
        signals = [n for n in adapter.notices if "ToolListChanged" in n]
    expect(len(signals) == 1, f"it sent {len(signals)} list_changed notifications")


@check("dispatch-peers", "4.1", "the gateway dispatches an action with nested arguments", needs=("gateway",))
async def _dispatch_peers(ctx: Context) -> None:
    async with ctx.adapter() as adapter:
        result = await adapter.call(GATEWAY_TOOL, {"action": "peers", "arguments": {}})
    expect(result.ok and isinstance(result.payload, dict) and "peers" in result.payload, f"got {result.text!r}")


@check("dispatch-flat-send", "4.1", "the gateway dispatches flat keys", needs=("gateway",))
async def _dispatch_flat(ctx: Context) -> None:
    async with ctx.adapter() as adapter:
        result = await adapter.call(GATEWAY_TOOL, {"action": "send", "to": "reviewer", "message": "flat"})
    expect(result.ok, f"flat dispatch failed: {result.text!r}")
    expect(envelope_of(only_delivery(ctx, ctx.reviewer)).message == "flat", "the message arrived changed")


@check("dispatch-unknown-action", "7.2", "an unknown action is a protocol-level error", needs=("gateway",))
async def _unknown_action(ctx: Context) -> None:
    async with ctx.adapter() as adapter:
        result = await adapter.call(GATEWAY_TOOL, {"action": "teleport"})
    expect(result.protocol_error, f"expected a protocol-level error, got {result.text!r}")


@check("host-keys-ignored", "7.2", "keys a host adds (wait_for_previous) never break a call")
async def _host_keys(ctx: Context) -> None:
    result = await active_call(ctx, SEND_TOOL, {"to": "reviewer", "message": "hi", "wait_for_previous": True})
    expect(result.ok, f"an added key broke send: {result.text!r}")


# ---- §4.3–§5 peers, send, close, the same-workspace guard -----------------------------------------


@check("peers-self-and-peers", "4.3", "peers names the caller and its same-workspace peers")
async def _peers(ctx: Context) -> None:
    result = await active_call(ctx, PEERS_TOOL, {})
    payload = result.payload or {}
    expect(payload.get("self", {}).get("name") == "brain", f"self was {payload.get('self')}")
    listed = [peer.get("name") for peer in payload.get("peers", [])]
    expect(listed == ["reviewer"], f"peers were {listed}")


@check("peers-privacy", "5", "peers never lists another workspace's agents or raw ids")
async def _peers_private(ctx: Context) -> None:
    result = await active_call(ctx, PEERS_TOOL, {})
    listed = [peer.get("name") for peer in (result.payload or {}).get("peers", [])] if result.ok else None
    expect(listed is not None and "reviewer" in listed, f"peers must succeed to be judged: {result.text!r}")
    expect("outsider" not in result.text, "an agent of another workspace was listed")
    no_raw_ids(result, "the peers receipt")


@check("send-receipt", "4.4", "send returns sent with the envelope's id and the recipient")
async def _send_receipt(ctx: Context) -> None:
    result = await active_call(ctx, SEND_TOOL, {"to": "reviewer", "message": "please review"})
    envelope = envelope_of(only_delivery(ctx, ctx.reviewer))
    expect(result.payload == {"status": "sent", "id": envelope.id, "to": "reviewer"}, f"receipt {result.text!r}")


@check("send-exactly-once", "4.4", "one send is one delivery, to the addressed pane only")
async def _send_once(ctx: Context) -> None:
    async with ctx.adapter() as adapter:
        await activate(adapter)
        await adapter.call(SEND_TOOL, {"to": "reviewer", "message": "once"})
    counts = {pane: len(delivered(ctx, pane)) for pane in (ctx.brain, ctx.reviewer, ctx.shell, ctx.outsider)}
    expect(counts == {ctx.brain: 0, ctx.reviewer: 1, ctx.shell: 0, ctx.outsider: 0}, f"deliveries {counts}")


@check("send-other-workspace", "5", "another workspace's agent is PEER_NOT_FOUND, like a missing one")
async def _send_outside(ctx: Context) -> None:
    async with ctx.adapter() as adapter:
        await activate(adapter)
        outside = await adapter.call(SEND_TOOL, {"to": "outsider", "message": "x"})
        missing = await adapter.call(SEND_TOOL, {"to": "ghost", "message": "x"})
    tool_error(outside, "PEER_NOT_FOUND", "send to another workspace")
    expect(outside.text == missing.text, f"distinguishable: {outside.text!r} vs {missing.text!r}")
    expect(delivered(ctx, ctx.outsider) == [], "the other workspace's pane received something")


@check("send-empty", "4.4", "an empty message is SEND_FAILED and nothing is delivered")
async def _send_empty(ctx: Context) -> None:
    result = await active_call(ctx, SEND_TOOL, {"to": "reviewer", "message": ""})
    tool_error(result, "SEND_FAILED", "send of an empty message")
    expect(delivered(ctx, ctx.reviewer) == [], "an empty message was delivered")


GEMINI_TRUST_VARIABLE: Final = "GEMINI_CLI_TRUST_WORKSPACE"
"""Gemini CLI's own switch that trusts every folder: kept out of these checks' environment."""


def gemini_has_run(ctx: Context, trusted: Path | None = None) -> dict[str, str]:
    """Make the simulated user one who has run Gemini CLI (its ``settings.json``) and trusts no folder but
    ``trusted``; returns the caller's environment without :data:`GEMINI_TRUST_VARIABLE`."""
    gemini = Path(ctx.sim.home) / ".gemini"
    gemini.mkdir(parents=True, exist_ok=True)
    (gemini / "settings.json").write_text("{}\n", encoding="utf-8")
    rules = {str(trusted.resolve()): "TRUST_FOLDER"} if trusted is not None else {}
    (gemini / "trustedFolders.json").write_text(json.dumps(rules), encoding="utf-8")
    return {k: v for k, v in ctx.sim.env(ctx.brain).items() if k != GEMINI_TRUST_VARIABLE}


@check(
    "send-at-a-question-refused",
    "4.4",
    "a send to an agent its host's files say sits at a question only its user may answer types nothing",
    addition=True,
)
async def _send_at_question(ctx: Context) -> None:
    folder = Path(ctx.root) / "untrusted"
    folder.mkdir(exist_ok=True)
    pane = ctx.sim.split(ctx.reviewer, cwd=str(folder))
    ctx.sim.add_agent(pane, "gemini", name="asker")  # Gemini CLI, at "Do you trust the files in this folder?"
    env = gemini_has_run(ctx)
    async with ctx.adapter(env=env) as adapter:
        await activate(adapter)
        result = await adapter.call(SEND_TOOL, {"to": "asker", "message": "hello"})
    tool_error(result, "SEND_FAILED", "a send to Gemini CLI in a folder it does not trust")
    expect(delivered(ctx, pane) == [], "the message was typed into the question")
    env = gemini_has_run(ctx, trusted=folder)  # the user answered: no false refusal
    async with ctx.adapter(env=env) as adapter:
        await activate(adapter)
        result = await adapter.call(SEND_TOOL, {"to": "asker", "message": "hello"})
    expect(result.ok, f"once the folder is trusted the send still failed: {result.text!r}")
    expect(len(delivered(ctx, pane)) == 1, "once the folder is trusted the message was not delivered")


@check(
    "send-loop-guard",
    "4.4",
    "a session's sends to one agent past the user's limit type nothing and answer SEND_FAILED",
    addition=True,
    needs=("loop_guard",),
)
async def _send_loop_guard(ctx: Context) -> None:
    settings = Path(ctx.root) / "herdr-link-settings.toml"
    settings.write_text("[loop_guard]\nmessages = 2\nseconds = 3600\n", encoding="utf-8")
    env = {**ctx.sim.env(ctx.brain), "HERDR_LINK_CONFIG": str(settings)}
    async with ctx.adapter(env=env) as adapter:
        await activate(adapter)
        for index in range(2):
            result = await adapter.call(SEND_TOOL, {"to": "reviewer", "message": f"ack {index}"})
            expect(result.ok, f"a send within the user's limit of two failed: {result.text!r}")
        result = await adapter.call(SEND_TOOL, {"to": "reviewer", "message": "ack again"})
    tool_error(result, "SEND_FAILED", "a third send within an hour where the user allows two")
    expect(len(delivered(ctx, ctx.reviewer)) == 2, "the refused message was typed")
    expect("loop_guard" not in result.text and str(settings) not in result.text, "the model is told how to raise it")


@check("send-bad-name", "4.4", "a recipient that is not an Agent Name is PEER_NOT_FOUND")
async def _send_bad_name(ctx: Context) -> None:
    result = await active_call(ctx, SEND_TOOL, {"to": "w1:p2", "message": "x"})
    tool_error(result, "PEER_NOT_FOUND", "send to a raw pane id")
    expect(delivered(ctx, ctx.reviewer) == [], "something was delivered")


@check("close-peer", "4.5", "close closes the named peer's pane and nothing else")
async def _close(ctx: Context) -> None:
    result = await active_call(ctx, CLOSE_TOOL, {"agent": "reviewer"})
    expect(result.payload == {"status": "closed", "agent": "reviewer"}, f"receipt {result.text!r}")
    try:
        ctx.sim.agent("reviewer")
        raise Failed("the reviewer is still there")
    except HerdrError:
        pass
    expect(ctx.sim.agent("brain")["pane_id"] == ctx.brain, "the caller's own pane was touched")


@check("close-other-workspace", "5", "close of another workspace's agent is PEER_NOT_FOUND and closes nothing")
async def _close_outside(ctx: Context) -> None:
    result = await active_call(ctx, CLOSE_TOOL, {"agent": "outsider"})
    tool_error(result, "PEER_NOT_FOUND", "close in another workspace")
    expect(ctx.sim.agent("outsider")["pane_id"] == ctx.outsider, "the other workspace's pane was closed")


@check("close-after-send", "4.5", "a close after a send leaves the send delivered first")
async def _close_after_send(ctx: Context) -> None:
    outcomes: dict[str, Outcome] = {}
    async with ctx.adapter() as adapter:
        await activate(adapter)

        async def call(tool: str, arguments: dict[str, str]) -> None:
            outcomes[tool] = await adapter.call(tool, arguments)

        async with anyio.create_task_group() as group:  # as a model issues them: the close without waiting
            group.start_soon(call, SEND_TOOL, {"to": "reviewer", "message": "last words"})
            await anyio.sleep(0.05)  # sent first
            group.start_soon(call, CLOSE_TOOL, {"agent": "reviewer"})
    sent, closed = outcomes[SEND_TOOL], outcomes[CLOSE_TOOL]
    expect(sent.ok and closed.ok, f"{sent.text!r}, {closed.text!r}")
    prompts = [i for i, c in enumerate(ctx.commands()) if c[:2] == ("agent", "prompt")]
    closes = [i for i, c in enumerate(ctx.commands()) if c[:2] == ("pane", "close")]
    expect(prompts and closes and prompts[-1] < closes[0], "the close ran before the send's prompt")


# ---- §2 envelope and wrapper, §2.5 escaping -------------------------------------------------------


@check("wrapper-shape", "2.6", "the delivery is a wrapper whose last line is the envelope")
async def _wrapper(ctx: Context) -> None:
    async with ctx.adapter() as adapter:
        await activate(adapter)
        await adapter.call(SEND_TOOL, {"to": "reviewer", "message": "shape"})
    delivery = only_delivery(ctx, ctx.reviewer)
    line = delivery.text.rsplit("\n", 1)[-1]
    try:
        last = json.loads(line)
    except ValueError:
        last = None
    expect(isinstance(last, dict), f"the wrapper's last line is not the envelope: {line[:80]!r}")
    expect(list(last) == ["protocol", "id", "from", "to", "message"], f"envelope keys {list(last)}")
    expect(last["protocol"] == "herdr-link/1" and last["from"] == "brain" and last["to"] == "reviewer", str(last))
    expect(extract_envelope(delivery.text) is not None, "the envelope cannot be extracted from the wrapper")


PASTE_START: Final = b"\x1b[200~"
PASTE_END: Final = b"\x1b[201~"


def submissions(received: bytes) -> int:
    """How many inputs a terminal program submits from these bytes: each Enter (CR or LF) outside a
    bracketed paste (a paste's own line breaks are text)."""
    count, pasting, index = 0, False, 0
    while index < len(received):
        if received.startswith(PASTE_START, index) or received.startswith(PASTE_END, index):
            pasting = received.startswith(PASTE_START, index)
            index += len(PASTE_START)
            continue
        if not pasting and received[index] in b"\r\n":
            count += 1
        index += 1
    return count


@check("wrapper-one-submission", "2.6", "the wrapper reaches the peer as one submitted input")
async def _one_submission(ctx: Context) -> None:
    async with ctx.adapter() as adapter:
        await activate(adapter)
        result = await adapter.call(SEND_TOOL, {"to": "reviewer", "message": "line one\nline two"})
    expect(result.ok, f"send failed: {result.text!r}")
    received = ctx.sim.received(ctx.reviewer)  # what the pane's program read, paste brackets and Enters
    count = submissions(received)
    expect(count == 1, f"the pane received {count} submitted inputs ({received.count(PASTE_START)} pastes)")


SHELL_MESSAGE: Final = "don't; touch /tmp/x; $(id) `id` !! ${HOME} # \\"
"""A message that runs or expands something if its wrapper lands in a shell as it is typed."""
SHELL_SPECIAL_IN_FIXED_TEXT: Final = "'`$!();&|<>\\*?#~%"
"""What no line of the wrapper's fixed text may hold (PROTOCOL.md §2.6), besides an odd number of ``"``."""
SHELL_ACTIVE_IN_QUOTES: Final = "$`!"
"""What a shell still acts on inside double quotes, which the envelope line escapes (§2.5)."""


@check("wrapper-shell-inert", "2.6", "the wrapper runs or expands nothing if it lands in a shell", addition=True)
async def _shell_inert(ctx: Context) -> None:
    async with ctx.adapter() as adapter:
        await activate(adapter)
        result = await adapter.call(SEND_TOOL, {"to": "reviewer", "message": SHELL_MESSAGE})
    expect(result.ok, f"send failed: {result.text!r}")
    *fixed, envelope_line = only_delivery(ctx, ctx.reviewer).text.split("\n")
    special = sorted({c for line in fixed for c in line if c in SHELL_SPECIAL_IN_FIXED_TEXT})
    expect(special == [], f"the fixed text holds {''.join(special)!r}, which a shell acts on")
    open_quotes = [number for number, line in enumerate(fixed, 1) if line.count('"') % 2]
    expect(open_quotes == [], f"line {open_quotes[:1]} of the fixed text leaves a double quote open")
    raw = sorted({c for c in envelope_line if c in SHELL_ACTIVE_IN_QUOTES})
    expect(raw == [], f"the envelope line carries {''.join(raw)!r} raw, which a shell expands inside its quotes")


@check("escaping-controls", "2.5", "no raw control, format or separator character reaches a pane", addition=True)
async def _escaping(ctx: Context) -> None:
    async with ctx.adapter() as adapter:
        await activate(adapter)
        result = await adapter.call(SEND_TOOL, {"to": "reviewer", "message": hostile_message(adapter)})
    expect(result.ok, f"send failed: {result.text!r}")
    text = only_delivery(ctx, ctx.reviewer).text
    raw = [c for c in escaped_categories(text) if c != "U+000A"]  # the wrapper's own line breaks
    expect(raw == [], f"{len(raw)} characters reached the pane raw: {', '.join(raw[:12])}")
    received = ctx.sim.received(ctx.reviewer).replace(PASTE_START, b"").replace(PASTE_END, b"")
    expect(b"\x1b" not in received, "an ESC reached the pane inside the pasted text")


@check("escaping-roundtrip", "2.5", "the message survives escaping intact", addition=True)
async def _roundtrip(ctx: Context) -> None:
    async with ctx.adapter() as adapter:
        await activate(adapter)
        sent = hostile_message(adapter)
        await adapter.call(SEND_TOOL, {"to": "reviewer", "message": sent})
    envelope = envelope_of(only_delivery(ctx, ctx.reviewer))
    differ = [i for i, (a, b) in enumerate(zip(envelope.message, sent, strict=False)) if a != b]
    expect(envelope.message == sent, f"the extracted message differs from the sent one (first at {differ[:1]})")


# ---- §4.2 start: modes, placement, rollback -------------------------------------------------------


@check("start-new-tab", "4.2", "an explicit start opens a new tab and starts the agent", needs=("start",))
async def _start_tab(ctx: Context) -> None:
    tabs = len(ctx.sim.request("tab.list")["tabs"])
    result = await active_call(ctx, START_TOOL, {"name": "worker", "kind": "pi", "args": []})
    expect(result.payload == {"status": "started", "agent": "worker", "kind": "pi"}, f"receipt {result.text!r}")
    expect(len(ctx.sim.request("tab.list")["tabs"]) == tabs + 1, "no new tab")
    no_raw_ids(result, "the start receipt")


@check("start-with", "4.2", "with: places the agent beside a live peer", needs=("start",))
async def _start_with(ctx: Context) -> None:
    result = await active_call(ctx, START_TOOL, {"name": "aide", "kind": "claude", "args": [], "with": "reviewer"})
    expect(result.ok, f"start failed: {result.text!r}")
    info = ctx.sim.agent("aide")
    expect(info["tab_id"] == ctx.sim.agent("reviewer")["tab_id"], "the agent is not in its peer's tab")


@check("start-round-robin", "4.2", "a round-robin config entry alternates its variants", needs=("start",))
async def _round_robin(ctx: Context) -> None:
    variants = [{"kind": "pi", "args": []}, {"kind": "claude", "args": []}]
    config = {"agents": {"pool": {"placement": {"mode": "new_tab"}, "strategy": "round-robin", "variants": variants}}}
    (ctx.root / ".agents").mkdir(exist_ok=True)
    (ctx.root / ".agents" / "agent_config.json").write_text(json.dumps(config))
    async with ctx.adapter() as adapter:
        await activate(adapter)
        first = await adapter.call(START_TOOL, {"name": "one", "config_agent": "pool"})
        second = await adapter.call(START_TOOL, {"name": "two", "config_agent": "pool"})
    kinds = [(first.payload or {}).get("kind"), (second.payload or {}).get("kind")]
    expect(kinds == ["pi", "claude"], f"variants started: {kinds} ({first.text!r}, {second.text!r})")


@check(
    "start-rollback",
    "4.2",
    "a start that fails leaves no tab or pane behind (except an agent blocked at a prompt: start-blocked-kept)",
    needs=("start",),
)
async def _rollback(ctx: Context) -> None:
    ctx.sim.script_start("pi", StartScript(outcome="exit"))
    panes = set(ctx.sim.pane_ids())
    result = await active_call(ctx, START_TOOL, {"name": "doomed", "kind": "pi", "args": []})
    tool_error(result, "START_FAILED", "a start whose agent exits")
    after = set(ctx.sim.pane_ids())
    expect(after == panes, f"left behind: {sorted(after - panes)}")


@check(
    "start-blocked-kept",
    "4.2",
    "an agent blocked at a prompt during start-up is START_FAILED with its reason, and its pane is kept",
    needs=("start",),
)
async def _blocked_kept(ctx: Context) -> None:
    ctx.sim.script_start("pi", StartScript(outcome="blocked"))
    panes = set(ctx.sim.pane_ids())
    result = await active_call(ctx, START_TOOL, {"name": "waiting", "kind": "pi", "args": []})
    tool_error(result, "START_FAILED", "a start whose agent is blocked at a prompt")
    expected = str(LinkError(Cause.START_AGENT_WAITING))
    expect(expected in result.text, f"reason: {result.text!r}, expected {expected!r}")
    kept = set(ctx.sim.pane_ids()) - panes
    expect(len(kept) == 1, f"new panes left for the user: {len(kept)}, expected the agent's one")
    for pane in kept:  # the user answers, or gives up: close it so later checks start clean
        ctx.sim.request("pane.close", pane_id=pane)


@check(
    "start-would-ask-refused",
    "4.2",
    "a start whose host's files say it would first ask its user a question makes nothing",
    needs=("start",),
    addition=True,
)
async def _start_would_ask(ctx: Context) -> None:
    env = gemini_has_run(ctx)  # and trusts no folder: Gemini CLI would first ask about this one
    panes = set(ctx.sim.pane_ids())
    async with ctx.adapter(env=env) as adapter:
        await activate(adapter)
        result = await adapter.call(START_TOOL, {"name": "asker", "kind": "gemini", "args": []})
    tool_error(result, "START_FAILED", "a start of Gemini CLI in a folder it does not trust")
    made = set(ctx.sim.pane_ids()) - panes
    expect(made == set(), f"the start made {len(made)} pane(s)")
    started = [c for c in ctx.sim.log.commands() if tuple(c[:2]) == ("agent", "start")]
    expect(started == [], "agent start ran")


@check("start-raw-id-refused", "4.2", "a raw pane id in start input is START_INPUT_INVALID", needs=("start",))
async def _start_raw(ctx: Context) -> None:
    result = await active_call(ctx, START_TOOL, {"name": "x", "kind": "pi", "args": [], "pane": ctx.reviewer})
    tool_error(result, "START_INPUT_INVALID", "start with a raw pane id")


# ---- §6.3 bootstrap ---------------------------------------------------------------------------------


@check("bootstrap-names-the-caller", "6.3", "an unnamed caller gets an Agent Name of its own", needs=("bootstrap",))
async def _bootstrap(ctx: Context) -> None:
    # An unnamed agent of the adapter's host in a pane (and directory) of its own, as OpenCode 2's
    # session rule wants it (PROTOCOL.md §6: one OpenCode pane per directory).
    own = ctx.root / "unnamed"
    own.mkdir()
    caller = ctx.sim.split(ctx.shell, cwd=str(own))
    ctx.sim.add_agent(caller, ctx.spec.caller_kind)
    async with ctx.adapter(caller, cwd=own) as adapter:
        await activate(adapter)
        await adapter.call(PEERS_TOOL, {})
        with anyio.move_on_after(30):  # the simulator's state lives in its own thread: poll it
            while ctx.sim.name_of(caller) is None:  # noqa: ASYNC110
                await anyio.sleep(0.1)
    name = ctx.sim.name_of(caller)
    expect(name is not None and re.fullmatch(r"[a-z][a-z0-9_-]{0,31}", name), f"the caller's name is {name!r}")
    renames = [c for c in ctx.commands() if c[:2] == ("agent", "rename")]
    expect(renames != [], "no agent rename ran: the name did not come from the adapter")
    expect(all(caller in c for c in renames), f"a rename aimed elsewhere: {renames}")


# ---- §7 errors and passthrough ----------------------------------------------------------------------


@check("error-herdr-down", "7.4", "with Herdr's server gone, calls fail with a code, not a crash")
async def _herdr_down(ctx: Context) -> None:
    async with ctx.adapter() as adapter:
        await activate(adapter)
        ctx.sim.fault_cli(
            ("agent",), Fault("exit", exit_code=1, stderr="error: herdr server is not running\n", times=None)
        )
        result = await adapter.call(PEERS_TOOL, {})
    expect(not result.ok and not result.protocol_error, f"expected a tool error, got {result.text!r}")
    expect("herdr server is not running" not in result.text, "a CLI diagnostic reached the model")
    no_raw_ids(result, "the error")


@check("error-no-diagnostics", "7.3", "Herdr's own error text never reaches the model")
async def _no_diagnostics(ctx: Context) -> None:
    async with ctx.adapter() as adapter:
        await activate(adapter)
        ctx.sim.fault_cli(
            ("agent", "prompt"), Fault("error", code="agent_not_found", message="SECRET-DIAGNOSTIC w1:p2")
        )
        result = await adapter.call(SEND_TOOL, {"to": "reviewer", "message": "x"})
    expect(not result.ok and "SECRET-DIAGNOSTIC" not in result.text, f"got {result.text!r}")
    no_raw_ids(result, "the error")


@check("bounded-when-herdr-hangs", "6.1", "a call answers in bounded time when Herdr hangs", addition=True)
async def _hang(ctx: Context) -> None:
    async with ctx.adapter() as adapter:
        await activate(adapter)
        ctx.sim.fault_cli(("agent",), Fault("hang", times=None))
        with anyio.move_on_after(55) as scope:  # below the kit's own 60 s bound per call
            result = await adapter.call(PEERS_TOOL, {})
    expect(not scope.cancelled_caught, "no answer within 55 s while Herdr hung")
    expect(not result.ok, f"it reported success while Herdr hung: {result.text!r}")


# ---- §8 the argv surface ----------------------------------------------------------------------------


@check("argv-surface", "8", "every herdr argv is on the allowed surface, with no wait of any kind")
async def _surface(ctx: Context) -> None:
    async with ctx.adapter() as adapter:
        await activate(adapter)
        calls: list[tuple[str, dict[str, Any]]] = [(PEERS_TOOL, {}), (SEND_TOOL, {"to": "reviewer", "message": "x"})]
        if "start" in adapter.capabilities:
            calls += [(START_TOOL, {"name": "probe", "kind": "pi", "args": [], "with": "reviewer"})]
            calls += [(CLOSE_TOOL, {"agent": "probe"})]
        for tool, arguments in calls:  # each must succeed, or the surface it used says little
            result = await adapter.call(tool, arguments)
            expect(result.ok, f"{tool} failed, so its argv was not seen: {result.text!r}")
    outside = [(c, surface_violation(c)) for c in ctx.commands() if surface_violation(c)]
    expect(outside == [], f"outside the surface: {outside[:3]}")
    waits = [c for c in ctx.commands() if "--wait" in c or c[:2] == ("agent", "wait")]
    expect(waits == [], f"waiting commands: {waits}")
