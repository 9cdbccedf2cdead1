// Loads a generated OpenCode 1.x bundle with a fake plugin context shaped on @opencode-ai/plugin
// 1.18 (PluginInput, ToolContext, the system-transform hook) and runs the steps given on stdin.
// Prints one JSON report.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { tool } from "@opencode-ai/plugin";

const scenario = JSON.parse(readFileSync(0, "utf8"));
const module = await import(pathToFileURL(process.argv[2]).href);
const report = { exports: Object.keys(module), results: [] };
const plugin = module.default;
report.id = plugin.id;
const input = { client: {}, project: { id: "p" }, directory: scenario.directory, worktree: scenario.directory,
  experimental_workspace: {}, serverUrl: new URL("http://127.0.0.1:4096"), $: () => { throw new Error("no shell"); } };
const hooks = await plugin.server(input);
report.hooks = Object.keys(hooks).sort();
const gateway = hooks.tool?.herdr_link;
report.tools = Object.keys(hooks.tool ?? {});
if (gateway) report.argKeys = Object.keys(gateway.args);
const context = (step) => ({ sessionID: step.session, messageID: "msg_1", agent: "build", directory: step.directory ?? scenario.directory,
  worktree: scenario.directory, abort: new AbortController().signal, metadata() {}, ask: async () => {} });
for (const step of scenario.steps) {
  if (step.kind === "call") {
    // OpenCode validates the model's arguments against the tool's zod shape before execute.
    const parsed = tool.schema.object(gateway.args).safeParse(step.args);
    if (!parsed.success) { report.results.push({ invalid: parsed.error.issues.map((i) => i.path.join(".")) }); continue; }
    try {
      report.results.push({ ok: await gateway.execute(parsed.data, context(step)) });
    } catch (error) {
      report.results.push({ error: error.message });
    }
  } else if (step.kind === "system") {
    const output = { system: ["You are OpenCode."] };
    await hooks["experimental.chat.system.transform"]({ sessionID: step.session, model: {} }, output);
    report.results.push({ system: output.system });
  } else if (step.kind === "kill-bridge") {
    process.kill(Number(readFileSync(step.pidFile, "utf8").trim()), "SIGKILL");
    await new Promise((resolve) => setTimeout(resolve, 300));
    report.results.push({ killed: true });
  }
}
await hooks.dispose?.();
process.stdout.write(JSON.stringify(report) + "\n");
process.exit(0);
