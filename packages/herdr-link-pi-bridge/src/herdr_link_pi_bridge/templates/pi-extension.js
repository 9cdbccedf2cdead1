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
// A command line is lexed the way a shell splits it: quotes are honoured (quoted text is never a
// command), and ; & | && || newlines, ( ) subshells and { } groups end a simple command. The
// bodies of $( ), backticks and `eval`, `sh -c`/`bash -c`/`su -c` and `env -S` scripts are command
// lines of their own, checked recursively. In each simple command, assignments, redirections,
// shell keywords and wrappers with their options (env, sudo, doas, timeout, nice, nohup, time,
// command, exec, xargs, stdbuf, setsid, ionice, chrt, taskset, watch, flock, builtin) are skipped;
// what remains is blocked when it is Herdr (any path, or $HERDR_BIN_PATH) running `agent wait`, or
// `agent prompt` with --wait anywhere but in the text's place.

const MAX_DEPTH = 8;

function closing(line, open) {
  // The index of the ")" that closes line[open] === "(", honouring quotes; line.length if none.
  let depth = 0;
  let quote = null;
  for (let i = open; i < line.length; i++) {
    const char = line[i];
    if (quote) {
      if (char === quote) quote = null;
      else if (char === "\\" && quote === '"') i++;
    } else if (char === "'" || char === '"') quote = char;
    else if (char === "\\") i++;
    else if (char === "(") depth++;
    else if (char === ")" && --depth === 0) return i;
  }
  return line.length;
}

function commands(line, depth = 0, out = []) {
  // Every simple command of a command line, as word lists (nested bodies included).
  if (depth > MAX_DEPTH) {
    out.push(["herdr", "agent", "wait"]); // too deep to read: fail closed
    return out;
  }
  let words = [];
  let current = "";
  let started = false;
  let quote = null;
  const endWord = () => {
    if (started) words.push(current);
    current = "";
    started = false;
  };
  const endCommand = () => {
    endWord();
    if (words.length) out.push(words);
    words = [];
  };
  const nested = (body) => {
    commands(body, depth + 1, out);
    current += "$(…)";
    started = true;
  };
  for (let i = 0; i < line.length; i++) {
    const char = line[i];
    const next = line[i + 1];
    if (quote === "'") {
      if (char === "'") quote = null;
      else current += char;
    } else if (quote === '"') {
      if (char === '"') quote = null;
      else if (char === "\\" && next !== undefined && '"\\$`\n'.includes(next)) current += line[++i];
      else if (char === "$" && next === "(") {
        const end = closing(line, i + 1);
        nested(line.slice(i + 2, end));
        i = end;
      } else if (char === "`") {
        const end = line.indexOf("`", i + 1) < 0 ? line.length : line.indexOf("`", i + 1);
        nested(line.slice(i + 1, end));
        i = end;
      } else current += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      started = true;
    } else if (char === "\\") {
      if (next !== undefined && next !== "\n") current += next;
      if (next !== "\n") started = true;
      i++;
    } else if (char === "$" && next === "(") {
      const end = closing(line, i + 1);
      nested(line.slice(i + 2, end));
      i = end;
    } else if (char === "$" && next === "{") {
      const end = line.indexOf("}", i) < 0 ? line.length - 1 : line.indexOf("}", i);
      current += line.slice(i, end + 1);
      started = true;
      i = end;
    } else if (char === "`") {
      const end = line.indexOf("`", i + 1) < 0 ? line.length : line.indexOf("`", i + 1);
      nested(line.slice(i + 1, end));
      i = end;
    } else if (char === "#" && !started) {
      const end = line.indexOf("\n", i);
      i = end < 0 ? line.length : end - 1;
    } else if (";&|()\n".includes(char)) {
      endCommand();
    } else if (/\s/.test(char)) {
      endWord();
    } else if ((char === "{" || char === "}") && !started && (next === undefined || /[\s;&|]/.test(next))) {
      endCommand(); // a group brace is a word of its own
    } else {
      current += char;
      started = true;
    }
  }
  endCommand();
  return out;
}

// Each wrapper's options that take a value (as the next word), and its positional words before the command.
const WRAPPERS = {
  env: { values: ["-u", "--unset", "-C", "--chdir"], script: ["-S", "--split-string"] },
  sudo: { values: ["-u", "--user", "-g", "--group", "-h", "--host", "-p", "--prompt", "-C", "--close-from",
    "-D", "--chdir", "-r", "--role", "-t", "--type", "-U", "--other-user", "-T", "--command-timeout"] },
  doas: { values: ["-u", "-C"] },
  timeout: { values: ["-s", "--signal", "-k", "--kill-after"], positional: 1 },
  nice: { values: ["-n", "--adjustment"] },
  ionice: { values: ["-c", "--class", "-n", "--classdata", "-p", "--pid", "-P", "--pgid", "-u", "--uid"] },
  chrt: { values: [], positional: 1 },
  taskset: { values: [], positional: 1 },
  nohup: { values: [] },
  setsid: { values: [] },
  time: { values: ["-f", "--format", "-o", "--output"] },
  command: { values: [] },
  builtin: { values: [] },
  exec: { values: ["-a"] },
  stdbuf: { values: ["-i", "--input", "-o", "--output", "-e", "--error"] },
  xargs: { values: ["-a", "--arg-file", "-d", "--delimiter", "-E", "-e", "-I", "-i", "-L", "-l", "-n", "--max-args",
    "-P", "--max-procs", "-s", "--max-chars", "--process-slot-var"] },
  watch: { values: ["-n", "--interval", "-d", "--differences", "-q", "--equexit"] },
  flock: { values: ["-w", "--timeout", "-E", "--conflict-exit-code"], positional: 1, script: ["-c", "--command"] },
};
const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "ash", "busybox"]);
const KEYWORDS = new Set(["if", "then", "else", "elif", "do", "while", "until", "!", "coproc"]);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;
const REDIRECT = /^[0-9]*(>>?|<<?<?|&>>?|>&|<&|>\|)/;
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
  if (rest[1] !== "prompt") return false;
  // agent prompt <target> <text> [options]: the text (the second word) is taken literally.
  const words = rest.slice(2);
  const end = words.indexOf("--");
  return (end < 0 ? words : words.slice(0, end)).some(
    (word, index) => index !== 1 && (word === "--wait" || word.startsWith("--wait=")),
  );
}

function blocked(line, depth = 0) {
  if (typeof line !== "string") return false;
  for (const simple of commands(line, depth)) {
    let argv = simple;
    for (;;) {
      const head = argv[0];
      if (head === undefined) break;
      const name = basename(head);
      if (ASSIGNMENT.test(head) || KEYWORDS.has(head)) argv = argv.slice(1);
      else if (REDIRECT.test(head)) argv = argv.slice(REDIRECT.exec(head)[0] === head ? 2 : 1);
      else if (name === "eval") {
        if (blocked(argv.slice(1).join(" "), depth + 1)) return true;
        argv = [];
      }      else if (Object.hasOwn(WRAPPERS, name)) {
        const wrapper = WRAPPERS[name];
        let index = 1;
        while (index < argv.length && argv[index].startsWith("-") && argv[index] !== "-") {
          const word = argv[index];
          if (word === "--") {
            index++;
            break;
          }
          if (wrapper.script?.includes(word)) {
            if (blocked(argv[index + 1] ?? "", depth + 1)) return true;
            index += 2;
          } else index += wrapper.values.includes(word) ? 2 : 1;
        }
        if (name === "env") while (index < argv.length && ASSIGNMENT.test(argv[index])) index++;
        argv = argv.slice(index + (wrapper.positional ?? 0));
      } else break;
    }
    if (!argv.length) continue;
    if (isHerdr(argv[0]) && waits(argv.slice(1))) return true;
    const program = basename(argv[0]);
    if (SHELLS.has(program) || program === "su") {
      const flag = argv.findIndex((word, index) => index > 0 && /^-[A-Za-z]*c[A-Za-z]*$/.test(word));
      if (flag >= 0 && blocked(argv[flag + 1] ?? "", depth + 1)) return true;
    }
  }
  return false;
}

// ---- the Pi extension -------------------------------------------------------------------------
// True deferred tools: all five registered; the Tier 1 tools start inactive and the gateway makes
// them active (additively, without Herdr I/O). The presentation (contract and appendix) is the
// prompt guideline of a Tier 1 tool: Pi adds a tool's guidelines to the system prompt exactly while
// the tool is active, and applies setActiveTools before the very next model request, so the
// activating turn already sees the rules, once, and a compaction keeps them. The gateway also
// dispatches `{"action": …, "arguments": {…}}` (or flat keys) to the Tier 1 operation.

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
  const run = async (op, params, ctx) => {
    const value = await ensureBridge().request(op, params ?? {}, { session, directory: ctx?.cwd });
    return { ...text(JSON.stringify(value)), details: value };
  };

  for (const spec of LINK.tools) {
    pi.registerTool({
      name: spec.name,
      label: spec.label,
      description: spec.description,
      parameters: spec.parameters,
      defaultActive: !spec.op,
      ...(spec.sequential ? { executionMode: "sequential" } : {}),
      ...(spec.guidelines ? { promptGuidelines: spec.guidelines } : {}),
      async execute(toolCallId, params, signal, onUpdate, ctx) {
        if (spec.op) return run(spec.op, params, ctx);
        const call = gatewayCall(params ?? {});
        activate();
        if (call.activate) return { ...text(LINK.activation), details: JSON.parse(LINK.activation) };
        return run(call.op, call.args, ctx);
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

  pi.on("tool_call", async (event) => {
    if (!active || event.toolName !== "bash") return undefined;
    if (blocked(event.input?.command)) return { block: true, reason: LINK.guardReason };
    return undefined;
  });
}
