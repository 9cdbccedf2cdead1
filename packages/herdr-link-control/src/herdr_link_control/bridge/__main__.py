"""``python -m herdr_link_control.bridge``: the same as ``herdr-link-bridge``."""

from . import main

raise SystemExit(main())
