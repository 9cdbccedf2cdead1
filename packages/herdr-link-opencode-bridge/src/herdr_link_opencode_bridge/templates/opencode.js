import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

// Everything model-facing below comes from herdr_link_protocol, serialised as JSON by the generator.
const LINK = /*@HERDR_LINK_DATA@*/;

/*@BRIDGE_CLIENT@*/

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
