// Loads the generated Pi extension with a fake ExtensionAPI shaped on Pi 1.6's
// (registerTool with defaultActive, getActiveTools/setActiveTools, on(event), registerCommand) and
// runs the steps given on stdin. Prints one JSON report.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const scenario = JSON.parse(readFileSync(0, "utf8"));
const tools = new Map();
let active = ["read", "bash", "edit", "write"];
const handlers = {};
const report = { setActiveCalls: 0, results: [] };
const pi = {
  registerTool(tool) {
    tools.set(tool.name, tool);
    if (tool.defaultActive !== false) active = [...active, tool.name];
  },
  getActiveTools: () => [...active],
  setActiveTools(names) {
    report.setActiveCalls += 1;
    active = names.filter((name) => tools.has(name) || ["read", "bash", "edit", "write"].includes(name));
  },
  on(event, handler) {
    (handlers[event] ??= []).push(handler);
  },
  registerCommand(name, command) {
    report.command = name;
  },
};
const module = await import(pathToFileURL(process.argv[2]).href);
report.exports = Object.keys(module);
module.default(pi);
report.registered = [...tools.values()].map((tool) => ({
  name: tool.name, label: tool.label, description: tool.description, parameters: tool.parameters,
  defaultActive: tool.defaultActive, executionMode: tool.executionMode ?? null, promptSnippet: tool.promptSnippet ?? null,
  promptGuidelines: tool.promptGuidelines ?? null,
}));
report.handlers = Object.keys(handlers).sort();
const ctx = (step) => ({ cwd: step.cwd ?? scenario.cwd, sessionManager: { getSessionFile: () => step.session ?? "s1.jsonl" } });
const emit = async (event, payload, step) => {
  let result;
  for (const handler of handlers[event] ?? []) result = (await handler(payload, ctx(step))) ?? result;
  return result;
};
for (const step of scenario.steps) {
  if (step.kind === "session_start") {
    await emit("session_start", { reason: "startup" }, step);
    report.results.push({ active: [...active] });
  } else if (step.kind === "tool") {
    try {
      const result = await tools.get(step.name).execute("call_1", step.args ?? {}, undefined, undefined, ctx(step));
      report.results.push({ ok: result.content.map((c) => c.text), details: result.details, active: [...active] });
    } catch (error) {
      report.results.push({ error: error.message });
    }
  } else if (step.kind === "before") {
    report.results.push({ before: (await emit("before_agent_start", { systemPrompt: "BASE", messageType: "user" }, step)) ?? null });
  } else if (step.kind === "bash") {
    report.results.push({ bash: (await emit("tool_call", { toolName: "bash", toolCallId: "t", input: { command: step.command } }, step)) ?? null });
  } else if (step.kind === "shutdown") {
    await emit("session_shutdown", { reason: "quit" }, step);
    report.results.push({ shutdown: true });
  } else if (step.kind === "kill-bridge") {
    process.kill(Number(readFileSync(step.pidFile, "utf8").trim()), "SIGKILL");
    await new Promise((resolve) => setTimeout(resolve, 300));
    report.results.push({ killed: true });
  }
}
await emit("session_shutdown", { reason: "quit" }, {});
process.stdout.write(JSON.stringify(report) + "\n");
process.exit(0);
