"""``herdr-link-bridge`` and ``python -m herdr_link_control.bridge``."""

from ._bridge import BridgeServer, main

__all__ = ["BridgeServer", "main"]

if __name__ == "__main__":
    raise SystemExit(main())
