import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { basename, join } from "node:path";

// Everything model-facing below comes from herdr_link_protocol, serialised as JSON by the generator.
// No import of typebox or the Pi package: Pi validates tool parameters as plain JSON Schema, so this
// file loads from Pi's auto-discovery directory with nothing to resolve.
const LINK = /*@HERDR_LINK_DATA@*/;

/*@BRIDGE_CLIENT@*/

// ---- the Bash boundary: no waiting on agents in an active session (spec §8) ------------------
// A command line is split into simple commands (; & | && || newlines, $( ) and backticks); each is
// split into words with shell quoting; environment assignments and wrappers (env, command, exec,
// sudo, nohup, time, timeout N) are skipped; `sh -c`/`bash -c` scripts are checked recursively.

function words(command) {
  const result = [];
  let current = "";
  let quote = null;
  let started = false;
  for (let i = 0; i < command.length; i++) {
    const char = command[i];
    if (quote) {
      if (char === quote) quote = null;
      else if (char === "\\" && quote === '"' && i + 1 < command.length) current += command[++i];
      else current += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      started = true;
    } else if (char === "\\" && i + 1 < command.length) {
      current += command[++i];
      started = true;
    } else if (/\s/.test(char)) {
      if (started || current) result.push(current);
      current = "";
      started = false;
    } else {
      current += char;
      started = true;
    }
  }
  if (started || current) result.push(current);
  return result;
}

function simpleCommands(line) {
  return line.split(/\|\||&&|[;&|\n]|\$\(|`|\)/).map((part) => part.trim()).filter(Boolean);
}

const WRAPPERS = new Set(["env", "command", "exec", "sudo", "nohup", "time", "nice", "xargs"]);
const HERDR_VARIABLE = /^\$\{?HERDR_BIN_PATH\}?$/;

function isHerdr(word) {
  return HERDR_VARIABLE.test(word) || basename(word) === "herdr" || basename(word) === "herdr.exe";
}

function waits(args) {
  let rest = args;
  while (rest.length && rest[0].startsWith("-")) {
    // Herdr's global flags come before the command; --session and --remote take a value.
    rest = rest.slice(["--session", "--remote", "--remote-keybindings"].includes(rest[0]) ? 2 : 1);
  }
  if (rest[0] !== "agent") return false;
  if (rest[1] === "wait") return true;
  // agent prompt <target> <text> [options]: the text is literal, so only options after it count.
  return rest[1] === "prompt" && rest.slice(4).some((word) => word === "--wait" || word.startsWith("--wait="));
}

function blocked(line, depth = 0) {
  if (typeof line !== "string" || depth > 3) return false;
  for (const part of simpleCommands(line)) {
    let argv = words(part);
    while (argv.length) {
      const head = argv[0];
      if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(head) || head.startsWith("-")) argv = argv.slice(1);
      else if (WRAPPERS.has(basename(head))) argv = argv.slice(1);
      else if (basename(head) === "timeout") argv = argv.slice(2);
      else break;
    }
    if (!argv.length) continue;
    if (isHerdr(argv[0]) && waits(argv.slice(1))) return true;
    const shell = basename(argv[0]);
    if (["sh", "bash", "dash", "zsh"].includes(shell)) {
      const flag = argv.findIndex((word) => /^-[a-z]*c[a-z]*$/.test(word));
      if (flag >= 0 && blocked(argv[flag + 1], depth + 1)) return true;
    }
  }
  return false;
}

// ---- the Pi extension -------------------------------------------------------------------------
// True deferred tools: all five registered; the Tier 1 tools start inactive and the gateway makes
// them active (additively, without Herdr I/O). The contract joins the system prompt once active.

export default function herdrLink(pi) {
  if (!inHerdr(process.env)) return;
  let bridge = null;
  let active = false;
  let session = "";
  const tier1 = LINK.tools.filter((tool) => tool.op).map((tool) => tool.name);
  const ensureBridge = () => (bridge ??= new Bridge({ ...process.env }));
  const activate = () => {
    if (active) return;
    active = true;
    pi.setActiveTools([...new Set([...pi.getActiveTools(), ...tier1])]);
  };
  const text = (value) => ({ content: [{ type: "text", text: value }] });

  for (const spec of LINK.tools) {
    pi.registerTool({
      name: spec.name,
      label: spec.label,
      description: spec.description,
      parameters: spec.parameters,
      defaultActive: !spec.op,
      ...(spec.sequential ? { executionMode: "sequential" } : {}),
      async execute(toolCallId, params, signal, onUpdate, ctx) {
        if (!spec.op) {
          activate();
          return { ...text(LINK.activation), details: JSON.parse(LINK.activation) };
        }
        const value = await ensureBridge().request(spec.op, params ?? {}, { session, directory: ctx?.cwd });
        return { ...text(JSON.stringify(value)), details: value };
      },
    });
  }

  pi.registerCommand?.("herdr-link", {
    description: LINK.command,
    handler: async (args, ctx) => ctx?.ui?.notify?.(`Herdr Link ${active ? "active" : "dormant"} (${LINK.version})`, "info"),
  });

  pi.on("session_start", async (event, ctx) => {
    active = false;
    session = ctx?.sessionManager?.getSessionFile?.() ?? "";
    pi.setActiveTools(pi.getActiveTools().filter((name) => !tier1.includes(name)));
    ensureBridge().request("bootstrap", {}, { session, directory: ctx?.cwd }).catch(() => {});
  });

  pi.on("session_shutdown", async () => {
    bridge?.stop();
    bridge = null;
  });

  pi.on("before_agent_start", async (event) =>
    active ? { systemPrompt: `${event.systemPrompt}\n\n${LINK.presentation}` } : undefined,
  );

  pi.on("tool_call", async (event) => {
    if (!active || event.toolName !== "bash") return undefined;
    if (blocked(event.input?.command)) return { block: true, reason: LINK.guardReason };
    return undefined;
  });
}
