"""A deliberately non-conforming stdio MCP server: it lists every tool while dormant, its gateway
returns the wrong receipt, and its send delivers nothing. The kit must fail it."""

import json
import sys

TOOLS = ["herdr_link", "herdr_link_start", "herdr_link_peers", "herdr_link_send", "herdr_link_close"]

for line in sys.stdin:
    message = json.loads(line)
    method, ident = message.get("method"), message.get("id")
    if ident is None:
        continue
    if method == "initialize":
        result = {
            "protocolVersion": message["params"]["protocolVersion"],
            "capabilities": {"tools": {"listChanged": True}},
            "serverInfo": {"name": "broken", "version": "0"},
        }
    elif method == "tools/list":
        result = {"tools": [{"name": n, "inputSchema": {"type": "object"}} for n in TOOLS]}
    elif method == "tools/call":
        result = {"content": [{"type": "text", "text": '{"status":"ok"}'}]}
    else:
        result = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}) + "\n")
    sys.stdout.flush()
