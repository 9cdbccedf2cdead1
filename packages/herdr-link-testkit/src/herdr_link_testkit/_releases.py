"""The Herdr releases the simulator models: one row of behaviours per release, so that a later release
is one more row and the code asks a row, never a version string (``docs/herdr-versions.md``).

A plain class, not a dataclass: the simulated ``herdr`` launcher reads this on every call and stays on
the cheapest imports.
"""

from __future__ import annotations  # annotations stay unevaluated, so typing is never imported

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Final

__all__ = ["DEFAULT_RELEASE", "HERDR_VERSIONS", "RELEASES", "Release"]


class Release:
    """What one Herdr release does, where the releases the simulator models differ."""

    __slots__ = (
        "agent_fields",
        "equals_options",
        "ping_capabilities",
        "prompt_observed",
        "prompt_reply_after_enter",
        "protocol",
        "read_errors_are_usage",
        "read_usage",
        "report_agent_options_anywhere",
        "sources",
        "stall_message",
        "version",
    )

    def __init__(
        self,
        version: str,
        protocol: int,
        *,
        equals_options: bool,
        report_agent_options_anywhere: bool,
        read_usage: str,
        read_errors_are_usage: bool,
        ping_capabilities: Mapping[str, object],
        prompt_reply_after_enter: bool,
        prompt_observed: str,
        stall_message: str,
        agent_fields: tuple[str, ...] = (),
        sources: str,
    ) -> None:
        self.version = version
        self.protocol = protocol
        """The socket protocol its ``ping`` reports and its CLI requires."""
        self.equals_options = equals_options
        """The CLI takes ``--option=value``: ``agent start`` before ``--``, ``agent prompt``/``wait`` over
        every argument (the text too), ``agent read``."""
        self.report_agent_options_anywhere = report_agent_options_anywhere
        """``pane report-agent`` takes its options before the pane id, and as ``--option=value``."""
        self.read_usage = read_usage
        """``agent read``'s usage line."""
        self.read_errors_are_usage = read_errors_are_usage
        """A bad ``agent read`` option prints the error and the usage line, exit 2 (else: from ``main``, exit 1)."""
        self.ping_capabilities = dict(ping_capabilities)
        """``ping``'s ``capabilities``."""
        self.prompt_reply_after_enter = prompt_reply_after_enter
        """``agent prompt`` answers after its Enter is typed (else as soon as the text is)."""
        self.prompt_observed = prompt_observed
        """What ``agent prompt --wait`` takes as the agent reacting: ``state_change`` or ``activity``
        (working or blocked)."""
        self.stall_message = stall_message
        """``agent_prompt_stalled``'s message (``{limit}``, ``{status}``, ``{seq}`` filled in)."""
        self.agent_fields = agent_fields
        """Optional ``AgentInfo`` fields this release adds to what 0.8.2 prints."""
        self.sources = sources
        """Where each of the above comes from."""

    def __repr__(self) -> str:
        return f"Release({self.version!r})"


_READ_USAGE: Final = (
    "usage: herdr agent read <target> [--source visible|recent|recent-unwrapped{detection}] [--lines N] "
    "[--format text|ansi] [--ansi]"
)

RELEASES: Final[dict[str, Release]] = {
    "0.8.2": Release(
        "0.8.2",
        20,
        equals_options=False,
        report_agent_options_anywhere=False,
        read_usage=_READ_USAGE.format(detection=""),
        read_errors_are_usage=False,
        ping_capabilities={"live_handoff": True, "detached_server_daemon": False},
        prompt_reply_after_enter=False,
        prompt_observed="state_change",
        stall_message="agent prompt produced no observed state change within 5000 ms; status is {status} and "
        "state_change_seq remained {seq}",
        sources="herdrdev/herdr at 1c76079f8b94: src/cli.rs, src/cli/agent.rs, src/api/wait.rs, "
        "src/api/schema/agents.rs, tests/cli/*.rs (docs/herdr.md)",
    ),
    "0.9.0": Release(
        "0.9.0",
        22,
        equals_options=True,
        report_agent_options_anywhere=True,
        read_usage=_READ_USAGE.format(detection="|detection"),
        read_errors_are_usage=True,
        ping_capabilities={
            "live_handoff": True,
            "detached_server_daemon": False,
            "endpoint_protocol_generation": 1,
            "surface_interest": True,
            "health_check": True,
        },
        prompt_reply_after_enter=True,
        prompt_observed="activity",
        stall_message="agent prompt produced no observed working or blocked state within {limit} ms; current "
        "status is {status}",
        sources="the 0.9 line's src/cli/agent.rs@9bc1ee28 and src/cli.rs (expand_equals_args); the 0.9.0 "
        "changelog (#2926 report-agent options, #3506/#3685 the reply after the Enter, the stall wording); a "
        "captured 0.9.0 ping (capabilities); its AgentInfo as the API schema generated at 0.9.0 declares it "
        "(herdr-python-sdk 0.1.0, generated from src/api/schema.rs at b99002ac99b0): no field beyond 0.8.2's",
    ),
}
"""Every modelled release, oldest first; a later release is one more row."""

DEFAULT_RELEASE: Final = "0.8.2"
"""The release a simulator models unless told otherwise."""

HERDR_VERSIONS: Final = {version: release.protocol for version, release in RELEASES.items()}
"""The Herdr releases the simulator models, with the socket protocol each speaks."""
