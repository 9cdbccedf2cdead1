import { tool } from "@opencode-ai/plugin";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

// Everything model-facing below comes from herdr_link_protocol, serialised as JSON by the generator.
const LINK = /*@HERDR_LINK_DATA@*/;

/*@BRIDGE_CLIENT@*/

// ---- the OpenCode 1.x plugin --------------------------------------------------------------------
// One `herdr_link` tool, always listed: `{}` activates the calling session; any other call goes to the
// bridge as the model gave it, and the bridge's parse says what it is.
// Activated sessions get the contract in their system prompt on every request; others get nothing.

function dispatcherArgs() {
  const schema = tool.schema;
  const args = {};
  const kinds = {
    array: () => schema.array(schema.string()),
    object: () => schema.record(schema.string(), schema.any()),
    string: () => schema.string(),
  };
  for (const [key, field] of Object.entries(LINK.dispatcher.fields)) {
    const base = field.enum ? schema.enum(field.enum) : kinds[field.type]();
    args[key] = base.optional().describe(field.description);
  }
  return args;
}

const HerdrLinkPlugin = async (input) => {
  if (!inHerdr(process.env)) return {};
  const bridge = new Bridge({ ...process.env });
  const active = new Set();
  bridge.request("bootstrap", {}, { session: "", directory: input?.directory }).catch(() => {});
  return {
    tool: {
      [LINK.gateway]: tool({
        description: LINK.dispatcher.description,
        args: dispatcherArgs(),
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

export default { id: "herdr-link", server: HerdrLinkPlugin };
