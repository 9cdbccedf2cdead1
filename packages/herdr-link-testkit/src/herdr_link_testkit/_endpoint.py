"""What the simulated ``herdr`` CLI needs of the simulator's server, and nothing more: whether it
runs, the release it simulates, and one socket request line in, one reply line out. The server
implements it; the CLI side (:mod:`._cli_channel`, :mod:`._cli_invocation`) depends only on this,
so the imports run one way."""

from typing import Protocol

from ._releases import Release

__all__ = ["Endpoint"]


class Endpoint(Protocol):
    """The server as an invocation of the simulated CLI sees it."""

    socket_path: str
    """The socket's path; the launcher channel lives beside it."""

    @property
    def running(self) -> bool:
        """Whether the server still takes requests."""

    @property
    def release(self) -> str:
        """The simulated Herdr release (``0.8.2``, ``0.9.0``): the CLI's own release too."""

    @property
    def release_row(self) -> Release:
        """What that release does where the modelled releases differ."""

    def handle_line(self, line: bytes) -> bytes | None:
        """One request line, answered as the socket would answer it (``None``: closed without a reply)."""
