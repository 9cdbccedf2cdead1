"""The success results of the five tools (spec §4). None carries topology ids."""

from typing import Literal

from pydantic import Field

from ._constants import CAPABILITIES, AgentState
from ._models import LinkModel

__all__ = ["ActiveReceipt", "ClosedReceipt", "PeerEntry", "PeersReceipt", "SentReceipt", "StartedReceipt"]


class ActiveReceipt(LinkModel):
    """``herdr_link {}``: the session is active."""

    status: Literal["active"] = "active"
    capabilities: tuple[str, ...] = CAPABILITIES


class StartedReceipt(LinkModel):
    """``herdr_link_start``: Herdr accepted the start."""

    status: Literal["started"] = "started"
    agent: str
    kind: str


class PeerEntry(LinkModel):
    """One agent as ``herdr_link_peers`` reports it: a name and an observed state, nothing else."""

    name: str
    state: AgentState


class PeersReceipt(LinkModel):
    """``herdr_link_peers``: the caller and the other live named agents of its workspace."""

    self_: PeerEntry = Field(alias="self")
    peers: tuple[PeerEntry, ...]


class SentReceipt(LinkModel):
    """``herdr_link_send``: Herdr accepted delivery (not that the peer acted on it)."""

    status: Literal["sent"] = "sent"
    id: str
    to: str


class ClosedReceipt(LinkModel):
    """``herdr_link_close``: Herdr closed the agent's pane."""

    status: Literal["closed"] = "closed"
    agent: str
