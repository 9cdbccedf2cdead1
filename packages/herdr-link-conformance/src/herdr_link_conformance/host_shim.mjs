// The host shim of herdr-link-conformance: loads one JavaScript stub (an OpenCode 1.x or 2 plugin, or a
// Pi extension) the way its host does and offers the kit what that host's model would get, as JSON
// lines on stdin/stdout:
//
//   → {"type":"ready","runtime":R}                    (or {"type":"ready","error":"…"}: it did not load)
//   ← {"id":N,"op":"list"}                             → {"id":N,"tools":[{name,description,inputSchema}],"notices":[…]}
//   ← {"id":N,"op":"call","tool":T,"arguments":{…}}    → {"id":N,"ok":B,"text":"…","system":[…],"notices":[…]}
//   ← {"id":N,"op":"system"}                           → {"id":N,"system":[…],"notices":[…]}
//
// `tools` are the tools the host would offer the model now; `text` is the tool's result, or the thrown
// error's message (what the host shows the model for a failed tool); `system` is what the stub puts in
// the session's system prompt for the model's next request; `notices` are "ToolListChanged" each time
// the offered tool set changed. One process is one host session (dormant at start); calls run
// concurrently, as a model's parallel tool calls do, except that a Pi tool with
// `executionMode: "sequential"` waits for every call before it and holds back every call after it.
//
// What it is not: the host. Arguments reach the stub as the kit gives them (no host-side schema
// validation, no keys dropped), and nothing of the host's UI, permissions or model runs. What only the
// real host shows is the real-host rig's to prove (tests/real_hosts).
//
//   node host_shim.mjs <opencode-v1 | opencode-v2 | pi> <stub.js>
import { createRequire } from "node:module";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const [runtime, file] = process.argv.slice(2);
const directory = process.cwd();
const sessionID = "ses_conformance";
const write = (message) => process.stdout.write(JSON.stringify(message) + "\n");

function textOf(value) {
  if (typeof value === "string") return value;
  if (Array.isArray(value?.content)) return value.content.map((part) => part?.text ?? "").join("\n");
  if (typeof value?.content === "string") return value.content;
  return JSON.stringify(value);
}

// ---- OpenCode 1.x: `{ server(input) }` returns hooks; `tool` maps names to `tool({description, args, execute})`.

async function zodToJson(args) {
  try {
    const require = createRequire(pathToFileURL(file));
    const { tool } = await import(pathToFileURL(require.resolve("@opencode-ai/plugin")).href);
    return tool.schema.toJSONSchema(tool.schema.object(args));
  } catch {
    const properties = Object.fromEntries(Object.entries(args).map(([key, value]) => [key, { description: value?.description }]));
    return { type: "object", properties };
  }
}

async function opencodeV1(plugin) {
  const hooks = (await plugin.server({ directory, worktree: directory })) ?? {};
  const tools = hooks.tool ?? {};
  return {
    async list() {
      return Promise.all(
        Object.entries(tools).map(async ([name, spec]) => ({
          name,
          description: spec.description,
          inputSchema: await zodToJson(spec.args ?? {}),
        })),
      );
    },
    has: (name) => Object.hasOwn(tools, name),
    call: (name, args) => tools[name].execute(args, { sessionID, messageID: "msg_conformance", agent: "build", directory, worktree: directory }),
    async system() {
      const output = { system: [] };
      await hooks["experimental.chat.system.transform"]?.({ sessionID, model: {} }, output);
      return output.system;
    },
    close: async () => hooks.dispose?.(),
  };
}

// ---- OpenCode 2 as released (2.0.x): `{ setup(ctx) }`; tools come through ctx.tool.transform, and only
// a tool added with `options.codemode === false` is offered to the model by name: every other one is
// reachable only inside OpenCode's Code Mode tool, `execute` (packages/core/src/tool.ts). Before each
// request the session's "context" hook runs with the request's system prompt and its direct tools
// (`tools`, which a hook may delete from to hide one); a call to a tool the request does not offer is
// refused. The session's directory comes from ctx.session.get. The plugin runs in OpenCode's server,
// which by default is shared by every client of the user and keeps the environment of the client that
// started it: the kit gives this process that environment (another pane's, or none of Herdr's), while
// the session's directory is this process's cwd.

async function opencodeV2(plugin) {
  const tools = new Map();
  const contextHooks = [];
  const registration = () => ({ dispose: async () => {} });
  const ctx = {
    tool: { transform: async (edit) => { edit({ add: (tool) => tools.set(tool.name, tool) }); return registration(); } },
    session: {
      hook: async (name, callback) => { if (name === "context") contextHooks.push(callback); return registration(); },
      get: async ({ sessionID: id }) => ({ id, location: { directory } }),
    },
  };
  const cleanup = await plugin.setup(ctx);
  const direct = () => [...tools.values()].filter((tool) => tool.options?.codemode === false);
  const codeMode = () => [...tools.values()].filter((tool) => tool.options?.codemode !== false);
  async function request() {
    const offered = Object.fromEntries(direct().map((tool) => [tool.name, { description: tool.description, input: tool.input }]));
    const event = { sessionID, agent: "build", kind: "primary", system: [], messages: [], options: {}, tools: offered };
    for (const hook of contextHooks) await hook(event, {});
    return event;
  }
  return {
    async list() {
      const { tools: offered } = await request();
      const listed = Object.entries(offered).map(([name, tool]) => ({ name, description: tool.description, inputSchema: tool.input }));
      const hidden = codeMode().map((tool) => tool.name);
      if (hidden.length > 0) {
        listed.push({ name: "execute", description: `Code Mode: runs code that may call ${hidden.join(", ")}`, inputSchema: { type: "object" } });
      }
      return listed;
    },
    has: async (name) => Object.hasOwn((await request()).tools, name),
    call: (name, args) => tools.get(name).execute(args, { sessionID }),
    system: async () => (await request()).system.map((part) => part?.text ?? ""),
    close: async () => cleanup?.(),
  };
}

// ---- Pi: `export default function (pi)`; registered tools, the active set (what the model is
// offered), prompt guidelines of active tools in the system prompt, and session_start/shutdown.

async function pi(extension) {
  const tools = new Map();
  const handlers = {};
  let active = [];
  const api = {
    registerTool(tool) {
      tools.set(tool.name, tool);
      if (tool.defaultActive !== false) active.push(tool.name);
    },
    getActiveTools: () => [...active],
    setActiveTools(names) {
      const before = JSON.stringify([...active].sort());
      active = [...new Set(names)].filter((name) => tools.has(name));
      if (JSON.stringify([...active].sort()) !== before) notices.push("ToolListChanged");
    },
    on: (event, handler) => (handlers[event] ??= []).push(handler),
    registerCommand() {},
  };
  await extension(api);
  const ctx = { cwd: directory, sessionManager: { getSessionFile: () => `${sessionID}.jsonl` } };
  for (const handler of handlers.session_start ?? []) await handler({ reason: "startup" }, ctx);
  notices.length = 0; // the session's start is not a change the model sees
  const offered = () => [...tools.values()].filter((tool) => active.includes(tool.name));
  let toolCallId = 0;
  return {
    list: async () => offered().map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.parameters })),
    has: (name) => active.includes(name),
    sequential: (name) => tools.get(name)?.executionMode === "sequential",
    call: (name, args) => tools.get(name).execute(`call_${++toolCallId}`, args, undefined, undefined, ctx),
    system: async () => [...new Set(offered().flatMap((tool) => tool.promptGuidelines ?? []))],
    async close() {
      for (const handler of handlers.session_shutdown ?? []) await handler({ reason: "quit" }, ctx);
    },
  };
}

// ---- serving the kit

const notices = [];
const HOSTS = { "opencode-v1": (m) => opencodeV1(m.default), "opencode-v2": (m) => opencodeV2(m.default), pi: (m) => pi(m.default) };
let host;
try {
  if (!Object.hasOwn(HOSTS, runtime)) throw new Error(`unknown runtime ${runtime}; use one of ${Object.keys(HOSTS).join(", ")}`);
  host = await HOSTS[runtime](await import(pathToFileURL(file).href));
} catch (error) {
  write({ type: "ready", error: `${runtime} stub ${file} did not load: ${error?.message ?? error}` });
  process.exit(1);
}
write({ type: "ready", runtime });

let running = new Set();
let barrier = Promise.resolve();

async function call(name, args) {
  if (!(await host.has(name))) return { ok: false, unknown: true, text: `the host offers no tool ${name}` };
  const run = async () => {
    try {
      return { ok: true, text: textOf(await host.call(name, args)) };
    } catch (error) {
      return { ok: false, text: String(error?.message ?? error) };
    }
  };
  let outcome;
  if (host.sequential?.(name)) {
    const earlier = [...running];
    const turn = barrier.then(() => Promise.allSettled(earlier)).then(run);
    barrier = turn.catch(() => {});
    outcome = await turn;
  } else {
    const turn = barrier.then(run);
    running.add(turn);
    try {
      outcome = await turn;
    } finally {
      running.delete(turn);
    }
  }
  return { ...outcome, system: await host.system() };
}

async function answer(message) {
  const id = message?.id;
  try {
    if (message?.op === "list") return write({ id, tools: await host.list(), notices: notices.splice(0) });
    if (message?.op === "system") return write({ id, system: await host.system(), notices: notices.splice(0) });
    if (message?.op === "call") {
      const outcome = await call(message.tool, message.arguments ?? {});
      return write({ id, ...outcome, notices: notices.splice(0) });
    }
    return write({ id, error: `unknown op ${message?.op}` });
  } catch (error) {
    return write({ id, error: `the shim failed: ${error?.stack ?? error}` });
  }
}

const pending = [];
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (!line.trim()) continue;
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    write({ id: null, error: "a line that is not JSON" });
    continue;
  }
  pending.push(answer(message));
}
await Promise.allSettled(pending);
await host.close?.();
process.exit(0);
