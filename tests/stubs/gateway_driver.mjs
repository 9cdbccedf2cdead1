// Runs one JavaScript stub we ship (OpenCode 1.x, OpenCode 2 or the Pi extension) under Node with
// the smallest fake host that loads it, and hands its gateway each raw input of the scenario on
// stdin exactly as given: whatever a host checks or drops before it calls a tool is left out, so
// what is measured is the stub's handling alone.
//
// Each input runs in a fresh session (OpenCode: a new session id; Pi: a new session_start), so it
// starts dormant. Prints one JSON report: per input, `ok` (the text the model would see) or `error`
// (the thrown text), and `active` (whether the session is active afterwards).
//
//   node gateway_driver.mjs <runtime: opencode-v1 | opencode-v2 | pi> <bundle> < scenario.json
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [runtime, bundle] = process.argv.slice(2);
const scenario = JSON.parse(readFileSync(0, "utf8"));
const module = await import(pathToFileURL(bundle).href);
const plugin = module.default;
const outcomes = [];

async function outcome(run) {
  try {
    return { ok: await run() };
  } catch (error) {
    return { error: error.message };
  }
}

if (runtime === "opencode-v1") {
  const hooks = await plugin.server({ directory: scenario.directory, worktree: scenario.directory });
  const gateway = hooks.tool.herdr_link;
  for (const [index, raw] of scenario.inputs.entries()) {
    const sessionID = `ses_${index}`;
    const context = { sessionID, messageID: "msg_1", agent: "build", directory: scenario.directory };
    const result = await outcome(() => gateway.execute(raw, context));
    const output = { system: [] };
    await hooks["experimental.chat.system.transform"]({ sessionID, model: {} }, output);
    outcomes.push({ ...result, active: output.system.length > 0 });
  }
  await hooks.dispose?.();
} else if (runtime === "opencode-v2") {
  const tools = new Map();
  const contextHooks = [];
  const registration = () => ({ dispose: async () => {} });
  const ctx = {
    tool: { transform: async (edit) => { edit({ add: (tool) => tools.set(tool.name, tool) }); return registration(); } },
    session: {
      hook: async (name, callback) => { if (name === "context") contextHooks.push(callback); return registration(); },
      get: async ({ sessionID }) => ({ id: sessionID, location: { directory: scenario.directory } }),
    },
  };
  const cleanup = await plugin.setup(ctx);
  const gateway = tools.get("herdr_link");
  for (const [index, raw] of scenario.inputs.entries()) {
    const sessionID = `ses_${index}`;
    const result = await outcome(async () => (await gateway.execute(raw, { sessionID })).content);
    const event = { sessionID, system: [] };
    for (const hook of contextHooks) await hook(event, {});
    outcomes.push({ ...result, active: event.system.length > 0 });
  }
  await cleanup?.();
} else if (runtime === "pi") {
  const tools = new Map();
  const handlers = {};
  let active = [];
  const pi = {
    registerTool(tool) {
      tools.set(tool.name, tool);
      if (tool.defaultActive !== false) active.push(tool.name);
    },
    getActiveTools: () => [...active],
    setActiveTools: (names) => { active = [...names]; },
    on: (event, handler) => (handlers[event] ??= []).push(handler),
    registerCommand() {},
  };
  plugin(pi);
  const tier1 = [...tools.values()].filter((tool) => tool.defaultActive === false).map((tool) => tool.name);
  for (const [index, raw] of scenario.inputs.entries()) {
    const ctx = { cwd: scenario.directory, sessionManager: { getSessionFile: () => `s${index}.jsonl` } };
    for (const handler of handlers.session_start ?? []) await handler({ reason: "startup" }, ctx);
    const result = await outcome(async () => {
      const value = await tools.get("herdr_link").execute(`call_${index}`, raw, undefined, undefined, ctx);
      return value.content.map((part) => part.text).join("\n");
    });
    outcomes.push({ ...result, active: tier1.every((name) => active.includes(name)) });
  }
  for (const handler of handlers.session_shutdown ?? []) await handler({ reason: "quit" }, {});
} else {
  throw new Error(`unknown runtime ${runtime}`);
}
process.stdout.write(JSON.stringify({ outcomes }) + "\n");
process.exit(0);
