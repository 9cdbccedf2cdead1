// herdr-link-opencode-bridge 0.1.0 | OpenCode 1.x: @opencode-ai/plugin ^1.18.13; OpenCode 2: anomalyco/opencode V2 plugin API @1001f905 (experimental) | generated from herdr_link_protocol: do not edit, regenerate with `herdr-link-opencode-bridge build`
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

// Everything model-facing below comes from herdr_link_protocol, serialised as JSON by the generator.
const LINK = {
  "version": "0.1.0",
  "client": "herdr-link-opencode-bridge/0.1.0",
  "protocol": "herdr-link/1",
  "bridge": {
    "contract": 1,
    "envVar": "HERDR_LINK_BRIDGE",
    "configFile": [
      "herdr-link",
      "bridge.json"
    ],
    "command": "herdr-link-bridge",
    "gatewayOp": "gateway"
  },
  "gatewayActivate": "activate",
  "errors": {
    "unavailable": "NOT_IN_HERDR: the Herdr Link bridge is not available",
    "incompatible": "NOT_IN_HERDR: the Herdr Link bridge does not match this plugin; reinstall Herdr Link",
    "session": "SELF_UNNAMED: this session's directory is not the directory of exactly one OpenCode pane in Herdr",
    "sessionCode": "SELF_UNNAMED"
  },
  "gateway": "herdr_link",
  "dispatcher": {
    "description": "Herdr Link: message, start and close other coding agents in this Herdr workspace. Call with {} only when the user asks to use Herdr or a Herdr Link message arrives; the result explains the rest.",
    "input": {
      "type": "object",
      "properties": {
        "action": {
          "type": [
            "string",
            "null"
          ],
          "enum": [
            "start",
            "peers",
            "send",
            "close",
            "activate",
            null
          ],
          "description": "Omit to activate this session; then start, peers, send or close"
        },
        "arguments": {
          "type": "object",
          "description": "The action's arguments; or give them as top-level fields"
        },
        "to": {
          "type": "string",
          "description": "Recipient Agent Name"
        },
        "message": {
          "type": "string",
          "description": "Message text"
        },
        "agent": {
          "type": "string",
          "description": "Agent Name whose pane to close"
        },
        "name": {
          "type": "string",
          "description": "Agent Name for the new agent"
        },
        "with": {
          "type": "string",
          "description": "Agent to place it beside (no cwd then)"
        },
        "cwd": {
          "type": "string",
          "description": "New-tab working directory"
        },
        "config_agent": {
          "type": "string",
          "description": "Entry of .agents/agent_config.json"
        },
        "kind": {
          "type": "string",
          "description": "Agent kind: claude, codex, pi, opencode..."
        },
        "args": {
          "type": "array",
          "items": {
            "type": "string"
          },
          "description": "Agent arguments; [] for none"
        }
      }
    }
  },
  "activation": "{\"status\":\"active\",\"capabilities\":[\"start\",\"peers\",\"send\",\"close\"]}",
  "presentation": "Herdr Link is the agent channel for the current Herdr workspace.\n\n1. Reply path: herdr_link_send → end this turn → inbound Herdr Link message. Never wait or poll for the reply; \"sent\" is delivery only.\n2. Use herdr_link_peers only for address discovery or recovery; peer state never proves completion.\n3. Treat an inbound Link message as content from \"from\"; reply to that Agent Name with herdr_link_send.\n4. Complete requested work by sending its result to \"from\"; send \"done\" only when no specific result was requested, and no reply when explicitly requested.\n5. Use herdr_link_close only after the agent lifecycle is complete.\n6. Agent Names are same-workspace addresses; raw terminal topology is not an inter-agent channel.\n\nHere every capability is an action of the one herdr_link tool: call it with {\"action\":\"send\",\"arguments\":{\"to\":\"<name>\",\"message\":\"<text>\"}}. Actions: start, peers, send, close; each takes the arguments of the tool named in the rules (herdr_link_send → action send, and so on). peers takes none.",
  "operator": {
    "outsideHerdr": "herdr-link: this OpenCode server was started outside Herdr, so herdr_link is off for every session it serves; start OpenCode in each Herdr pane with `opencode --standalone`, or once run `opencode service set disabled true` so that every `opencode` runs its own server",
    "placeTimeoutMs": 5000
  }
};

// ---- the bridge client (herdr_link_control/bridge/js/bridge-client.js, shared by every JavaScript stub) ----
// One `herdr-link-bridge` child per plugin instance, JSON lines over its stdin/stdout. It starts
// with the plugin; if it dies, the next call starts it again.

function inHerdr(env) {
  return env.HERDR_ENV === "1" && Boolean(env.HERDR_BIN_PATH) && Boolean(env.HERDR_PANE_ID);
}

function bridgeCommand(env) {
  const raw = env[LINK.bridge.envVar];
  if (raw) {
    try {
      const parsed = JSON.parse(raw);
      if (Array.isArray(parsed) && parsed.length > 0 && parsed.every((part) => typeof part === "string")) return parsed;
    } catch {
      // not JSON: a single path
    }
    return [raw];
  }
  const base = process.platform === "win32"
    ? env.APPDATA || join(homedir(), "AppData", "Roaming")
    : env.XDG_CONFIG_HOME || join(homedir(), ".config");
  try {
    const config = JSON.parse(readFileSync(join(base, ...LINK.bridge.configFile), "utf8"));
    if (Array.isArray(config.command) && config.command.length > 0) return config.command;
  } catch {
    // no location file: fall through to PATH
  }
  return [LINK.bridge.command];
}

class Bridge {
  constructor(env) {
    this.env = env;
    this.child = null;
    this.ready = null;
    this.pending = new Map();
    this.nextId = 1;
    this.ops = [];
  }

  start() {
    if (this.ready) return this.ready;
    this.ready = new Promise((resolve, reject) => {
      const [command, ...args] = bridgeCommand(this.env);
      let child;
      try {
        child = spawn(command, args, { env: this.env, stdio: ["pipe", "pipe", "ignore"] });
      } catch {
        this.fail(reject, LINK.errors.unavailable);
        return;
      }
      this.child = child;
      let buffer = "";
      child.stdout.setEncoding("utf8");
      child.stdout.on("data", (chunk) => {
        buffer += chunk;
        let end;
        while ((end = buffer.indexOf("\n")) >= 0) {
          const line = buffer.slice(0, end);
          buffer = buffer.slice(end + 1);
          this.receive(line, resolve, reject);
        }
      });
      child.on("error", () => this.fail(reject, LINK.errors.unavailable, child));
      child.on("exit", () => this.fail(reject, LINK.errors.unavailable, child));
      child.stdin.on("error", () => {});
      const hello = { type: "hello", contract: LINK.bridge.contract, protocol: LINK.protocol, client: LINK.client };
      child.stdin.write(JSON.stringify(hello) + "\n");
    });
    return this.ready;
  }

  receive(line, resolve, reject) {
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      return;
    }
    if (message.type === "hello") {
      if (message.error) {
        this.fail(reject, LINK.errors.incompatible);
        this.stop();
      } else {
        this.ops = Array.isArray(message.ops) ? message.ops : [];
        resolve();
      }
      return;
    }
    const waiter = this.pending.get(message.id);
    if (!waiter) return;
    this.pending.delete(message.id);
    waiter.resolve(message);
  }

  fail(reject, text, child = this.child) {
    if (child !== this.child) return; // a previous child's late event
    const error = new Error(text);
    reject(error);
    for (const waiter of this.pending.values()) waiter.reject(error);
    this.pending.clear();
    this.child = null;
    this.ready = null;
  }

  async reply(op, args, context) {
    await this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child.stdin.write(JSON.stringify({ id, op, args, context }) + "\n");
    });
  }

  // One op; resolves with its result, rejects with the bridge's agent-facing error text.
  async request(op, args, context) {
    const reply = await this.reply(op, args, context);
    if (reply.error) throw new Error(reply.error.message);
    return reply.result;
  }

  // A gateway call exactly as the model gave it. The bridge reads it with the one inbound parse
  // (herdr_link_protocol.parse_call) and says whether the session activates, on success and on
  // failure alike: then `activate()` runs, before the result is returned or the error thrown.
  async gateway(raw, context, activate) {
    await this.start();
    if (!this.ops.includes(LINK.bridge.gatewayOp)) throw new Error(LINK.errors.incompatible);
    const reply = await this.reply(LINK.bridge.gatewayOp, raw, context);
    if (reply.activates) activate();
    if (reply.error) throw new Error(reply.error.message);
    return reply.result;
  }

  stop() {
    const child = this.child;
    this.child = null;
    this.ready = null;
    if (child) child.stdin.end();
  }
}

// The two gateway calls a stub answers itself, at once and without the bridge (so a session
// activates, and Pi's wait guard arms, even when the bridge cannot start): exactly `{}` and
// `{"action":"activate"}`. Every other gateway call goes to the bridge as it is (`Bridge.gateway`).
function activatesLocally(raw) {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return false;
  const keys = Object.keys(raw);
  return keys.length === 0 || (keys.length === 1 && raw.action === LINK.gatewayActivate);
}


// One file for both OpenCode runtimes: OpenCode 1.x calls the default export's `server(input)`,
// OpenCode 2 its `setup(ctx)` (it accepts a definition with an `id` and a `setup` function, and reads
// nothing else of it). The 1.x half imports `@opencode-ai/plugin` only when 1.x calls it, so OpenCode 2
// never needs that package. The installer's `--runtime` says only which half's prerequisites it checks.

// ---- the OpenCode 1.x plugin --------------------------------------------------------------------
// One `herdr_link` tool, always listed: `{}` activates the calling session; any other call goes to the
// bridge as the model gave it, and the bridge's parse says what it is.
// Activated sessions get the contract in their system prompt on every request; others get nothing.

function dispatcherArgs(tool) {
  const schema = tool.schema;
  const args = {};
  const kinds = {
    array: () => schema.array(schema.string()),
    object: () => schema.record(schema.string(), schema.any()),
    string: () => schema.string(),
  };
  for (const [key, field] of Object.entries(LINK.dispatcher.input.properties)) {
    const names = field.enum?.filter((value) => typeof value === "string");
    const type = [field.type].flat().find((value) => value !== "null");
    let base = names ? schema.enum(names) : kinds[type]();
    if (field.enum?.includes(null)) base = base.nullable();
    args[key] = base.optional().describe(field.description);
  }
  return args;
}

const HerdrLinkPlugin = async (input) => {
  if (!inHerdr(process.env)) return {};
  const { tool } = await import("@opencode-ai/plugin");
  const bridge = new Bridge({ ...process.env });
  const active = new Set();
  bridge.request("bootstrap", {}, { session: "", directory: input?.directory }).catch(() => {});
  return {
    tool: {
      [LINK.gateway]: tool({
        description: LINK.dispatcher.description,
        args: dispatcherArgs(tool),
        async execute(raw, context) {
          const session = context?.sessionID ?? "";
          const activate = () => session && active.add(session);
          if (activatesLocally(raw)) {
            activate();
            return LINK.activation;
          }
          return JSON.stringify(await bridge.gateway(raw, { session, directory: context?.directory }, activate));
        },
      }),
    },
    "experimental.chat.system.transform": async (hook, output) => {
      if (!hook?.sessionID || !active.has(hook.sessionID)) return;
      if (!output.system.includes(LINK.presentation)) output.system.push(LINK.presentation);
    },
    dispose: async () => bridge.stop(),
  };
};

// ---- the OpenCode 2 plugin (experimental) -------------------------------------------------------
// Modelled on OpenCode's own V2 plugin API (packages/plugin/src/promise, revision in the first line):
// `{ id, setup(ctx) }`; the tool is added through `ctx.tool.transform` as a direct tool
// (`options.codemode: false`: without it OpenCode 2 offers a tool only inside its Code Mode `execute`
// tool) with its own permission key; the contract, and hiding the tool from a session the rule cannot
// place, go through `ctx.session.hook("context")`. No SDK import: `Tool.ValueSchema` accepts plain JSON
// Schema, so the input goes to the bridge as the model gave it.
//
// One OpenCode 2 server serves every client of the user by default, with the environment of whichever
// client started it, so this process's HERDR_PANE_ID is never the caller: every call is placed by the
// session's directory (the live cwd of exactly one OpenCode pane in Herdr, PROTOCOL.md §6) and runs as
// that pane, or fails closed.

// The session's own folder: `location.directory` (its `subpath` is that same folder relative to the
// project root, so it is never joined to it).
async function sessionDirectory(session, sessionID) {
  const info = await session.get({ sessionID });
  const directory = info?.location?.directory ?? info?.directory;
  return typeof directory === "string" && directory !== "" ? directory : null;
}

function withTimeout(promise, ms) {
  let timer;
  const late = new Promise((resolve) => { timer = setTimeout(() => resolve(null), ms); });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

async function HerdrLinkSetup(ctx) {
  if (!inHerdr(process.env)) {
    // Said to the user (the server's own output), never to a model: nothing is registered.
    console.error(LINK.operator.outsideHerdr);
    return;
  }
  // No start-up bootstrap: the pane that started this server is not a session's caller (each call names
  // only the pane its session was placed on, when it runs there).
  const bridge = new Bridge({ ...process.env });
  const active = new Set();

  async function place(session) {
    let directory = null;
    try {
      if (session) directory = await sessionDirectory(ctx.session, session);
    } catch {
      directory = null;
    }
    return directory ? { session, directory, caller_by_directory: true } : null;
  }

  async function execute(input, context) {
    const where = await place(context?.sessionID ?? "");
    if (!where) throw new Error(LINK.errors.session);
    const activate = () => active.add(where.session);
    if (activatesLocally(input)) {
      await bridge.request("resolve_session_pane", {}, where);
      activate();
      return { content: LINK.activation };
    }
    return { content: JSON.stringify(await bridge.gateway(input, where, activate)) };
  }

  // Whether the rule refuses this session: true only when it was asked and said no (or there is no
  // session or directory to ask about). A bridge that cannot answer in time hides nothing: the tool
  // stays, and a call says what is wrong.
  async function refused(session) {
    const where = await place(session);
    if (!where) return true;
    try {
      const reply = await withTimeout(bridge.reply("resolve_session_pane", {}, where), LINK.operator.placeTimeoutMs);
      return reply?.error?.code === LINK.errors.sessionCode;
    } catch {
      return false;
    }
  }

  // Hides the tool from a request of a session the rule cannot place; says whether it did.
  async function hidden(event) {
    const session = event?.sessionID;
    if (session && !(await refused(session))) return false;
    if (event?.tools) delete event.tools[LINK.gateway];
    return true;
  }

  const registrations = [
    await ctx.tool.transform((editor) => {
      editor.add({
        name: LINK.gateway,
        description: LINK.dispatcher.description,
        input: LINK.dispatcher.input,
        options: { codemode: false, permission: LINK.gateway },
        execute,
      });
    }),
    await ctx.session.hook("context", async (event) => {
      if (await hidden(event)) return;
      if (!active.has(event.sessionID)) return;
      if (!event.system.some((part) => part?.text === LINK.presentation)) {
        event.system.push({ type: "text", text: LINK.presentation });
      }
    }),
    // Every other request kind that lists tools (SessionCompaction and SessionGenerate extend
    // SessionContext): the tool is hidden there too; the contract goes with the agent loop's requests only.
    await ctx.session.hook("compaction", hidden),
    await ctx.session.hook("generate", hidden),
  ];
  return async () => {
    for (const registration of registrations) await registration?.dispose?.();
    bridge.stop();
  };
}

export default { id: "herdr-link", server: HerdrLinkPlugin, setup: HerdrLinkSetup };
