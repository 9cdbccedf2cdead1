"""What the activation answers, per client: the receipt and the presentation of the active tools.

One source for both paths that answer ``herdr_link {}``: the SDK's (``_server``) and the front's,
before the SDK has loaded (``_early``). No SDK, pydantic or anyio here.
"""

from __future__ import annotations  # annotations stay unevaluated: typing is never imported

from herdr_link_protocol import ACTIVE_RECEIPT_JSON, active_presentation

from ._clients import presentation_form, relists_tools

__all__ = ["activation_texts"]


def activation_texts(client_name: str | None, namespace: str) -> tuple[str, str]:
    """The activation result's two texts for ``client_name``: the receipt, then the contract and the
    tools as that client presents them (dispatch first for a client known never to re-list)."""
    presentation = active_presentation(
        presentation_form(client_name), namespace, dispatch_first=not relists_tools(client_name)
    )
    return ACTIVE_RECEIPT_JSON, presentation
