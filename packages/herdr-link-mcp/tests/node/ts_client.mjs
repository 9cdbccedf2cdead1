// An MCP host built on the TypeScript SDK: it re-lists tools when told they changed, as Claude
// Code does. Spawns the server named by argv (a JSON array), runs the Herdr Link flow, and prints
// one JSON report on stdout.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const [command, ...args] = JSON.parse(process.argv[2]);
const transport = new StdioClientTransport({ command, args, env: process.env, stderr: "inherit" });
const client = new Client({ name: "ts-sdk-check", version: "1.0.0" });
const report = { lists: [], changes: 0, calls: {} };
client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
  report.changes += 1;
  report.lists.push((await client.listTools()).tools.map((tool) => tool.name));
});
await client.connect(transport);
report.server = client.getServerVersion();
report.capabilities = client.getServerCapabilities();
report.lists.push((await client.listTools()).tools.map((tool) => tool.name));
const call = async (key, name, args) => {
  const result = await client.callTool({ name, arguments: args });
  report.calls[key] = { isError: result.isError ?? false, texts: result.content.map((c) => c.text) };
};
await call("activate", "herdr_link", {});
await call("peers", "herdr_link_peers", {});
await call("send", "herdr_link_send", { to: "reviewer", message: "from the TypeScript SDK" });
await call("ghost", "herdr_link_send", { to: "ghost", message: "x" });
await call("close", "herdr_link", { action: "close", arguments: { agent: "reviewer" } });
try {
  await client.callTool({ name: "herdr_link", arguments: { action: "fly" } });
} catch (error) {
  report.unknownAction = { code: error.code, message: error.message };
}
await client.close();
process.stdout.write(JSON.stringify(report) + "\n");
