import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

// Everything model-facing below comes from herdr_link_protocol, serialised as JSON by the generator.
const LINK = /*@HERDR_LINK_DATA@*/;

/*@BRIDGE_CLIENT@*/

// ---- the OpenCode 2 plugin (experimental) -------------------------------------------------------
// Modelled on OpenCode's own V2 plugin API (packages/plugin/src/promise, revision in the first line):
// `{ id, setup(ctx) }`; the tool is added through `ctx.tool.transform`, the contract through
// `ctx.session.hook("context")`. No SDK import: `Tool.ValueSchema` accepts plain JSON Schema, so the
// input goes to the bridge as the model gave it. Every call first checks the directory rule (so here,
// unlike OpenCode 1.x and Pi, even `{}` asks the bridge): the calling session's directory must be the
// live cwd of exactly one OpenCode pane in this workspace, or it fails closed.

async function sessionDirectory(session, sessionID) {
  const info = await session.get({ sessionID });
  const base = info?.location?.directory ?? info?.directory;
  if (typeof base !== "string" || base === "") return null;
  return typeof info.subpath === "string" && info.subpath !== "" ? join(base, info.subpath) : base;
}

async function HerdrLinkSetup(ctx) {
  if (!inHerdr(process.env)) return;
  const bridge = new Bridge({ ...process.env });
  const active = new Set();
  bridge.request("bootstrap", {}, { session: "" }).catch(() => {});

  async function execute(input, context) {
    const session = context?.sessionID ?? "";
    let directory = null;
    try {
      if (session) directory = await sessionDirectory(ctx.session, session);
    } catch {
      directory = null;
    }
    if (!directory) throw new Error(LINK.errors.session);
    await bridge.request("resolve_session_pane", {}, { session, directory });
    const activate = () => active.add(session);
    if (activatesLocally(input)) {
      activate();
      return { content: LINK.activation };
    }
    return { content: JSON.stringify(await bridge.gateway(input, { session, directory }, activate)) };
  }

  const registrations = [
    await ctx.tool.transform((editor) => {
      editor.add({ name: LINK.gateway, description: LINK.dispatcher.description, input: LINK.dispatcher.input, execute });
    }),
    await ctx.session.hook("context", (event) => {
      if (!event?.sessionID || !active.has(event.sessionID)) return;
      if (!event.system.some((part) => part?.text === LINK.presentation)) {
        event.system.push({ type: "text", text: LINK.presentation });
      }
    }),
  ];
  return async () => {
    for (const registration of registrations) await registration?.dispose?.();
    bridge.stop();
  };
}

export default { id: "herdr-link", setup: HerdrLinkSetup };
