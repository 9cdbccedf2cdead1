"""Type information for the lazily loaded names (``lazy_loader.attach_stub`` reads the same list)."""

from ._codex import (
    SESSION_START as SESSION_START,
    codex_home as codex_home,
    command_hook_hash as command_hook_hash,
    hook_trust_key as hook_trust_key,
)
from ._hint import HINT_HOSTS as HINT_HOSTS, hint_output as hint_output
from ._hosts import (
    DEFAULT_NAMESPACE as DEFAULT_NAMESPACE,
    HOST_FORMS as HOST_FORMS,
    NON_RELISTING_CLIENTS as NON_RELISTING_CLIENTS,
    SERVER_NAME as SERVER_NAME,
    WIRING_FORMS as WIRING_FORMS,
    WIRING_HOSTS as WIRING_HOSTS,
    presentation_form as presentation_form,
    relists_tools as relists_tools,
)
from ._server import (
    RELIST_WAIT as RELIST_WAIT,
    ConnectionState as ConnectionState,
    create_server as create_server,
    initialization_options as initialization_options,
)
from ._version import __version__ as __version__
from ._wiring import (
    FORWARDED_VARIABLES as FORWARDED_VARIABLES,
    Wiring as Wiring,
    WiringFile as WiringFile,
    server_command as server_command,
    wiring as wiring,
)
