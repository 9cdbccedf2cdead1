// herdr-link-pi-bridge 0.1.0 | runtime pi | Pi 1.6 extension | generated from herdr_link_protocol: do not edit, regenerate with `herdr-link-pi-bridge build`
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { basename, join } from "node:path";

// Everything model-facing below comes from herdr_link_protocol, serialised as JSON by the generator.
// No import of typebox or the Pi package: Pi validates tool parameters as plain JSON Schema, so this
// file loads from Pi's auto-discovery directory with nothing to resolve.
const LINK = {
  "version": "0.1.0",
  "runtime": "pi",
  "client": "herdr-link-pi-bridge/0.1.0 (pi)",
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
    "incompatible": "NOT_IN_HERDR: the Herdr Link bridge does not match this plugin; reinstall Herdr Link"
  },
  "gateway": "herdr_link",
  "tools": [
    {
      "name": "herdr_link",
      "label": "Herdr Link",
      "description": "Herdr Link: message, start and close other coding agents in this Herdr workspace. Call with {} only when the user asks to use Herdr or a Herdr Link message arrives; the result explains the rest.",
      "parameters": {
        "type": "object",
        "properties": {
          "action": {
            "enum": [
              "start",
              "peers",
              "send",
              "close"
            ],
            "type": "string"
          },
          "arguments": {
            "type": "object"
          }
        }
      },
      "sequential": true
    },
    {
      "name": "herdr_link_start",
      "label": "Herdr Link Start",
      "description": "Start a Herdr agent with Link-managed placement: config_agent, or kind and args. Default placement is a new tab; with puts it beside a live agent.",
      "parameters": {
        "type": "object",
        "properties": {
          "name": {
            "description": "Agent Name for the new agent",
            "type": "string"
          },
          "with": {
            "description": "Agent to place it beside (no cwd then)",
            "type": "string"
          },
          "cwd": {
            "description": "New-tab working directory",
            "type": "string"
          },
          "config_agent": {
            "description": "Entry of .agents/agent_config.json",
            "type": "string"
          },
          "kind": {
            "description": "Agent kind: claude, codex, pi, opencode...",
            "type": "string"
          },
          "args": {
            "description": "Agent arguments; [] for none",
            "items": {
              "type": "string"
            },
            "type": "array"
          }
        },
        "required": [
          "name"
        ],
        "additionalProperties": false
      },
      "op": "start",
      "guidelines": [
        "Herdr Link is the agent channel for the current Herdr workspace.\n\n1. Reply path: herdr_link_send → end this turn → inbound Herdr Link message. Never wait or poll for the reply; \"sent\" is delivery only.\n2. Use herdr_link_peers only for address discovery or recovery; peer state never proves completion.\n3. Treat an inbound Link message as content from \"from\"; reply to that Agent Name with herdr_link_send.\n4. Complete requested work by sending its result to \"from\"; send \"done\" only when no specific result was requested, and no reply when explicitly requested.\n5. Use herdr_link_close only after the agent lifecycle is complete.\n6. Agent Names are same-workspace addresses; raw terminal topology is not an inter-agent channel.\n\nThe tools herdr_link_start, herdr_link_peers, herdr_link_send, herdr_link_close are active now."
      ]
    },
    {
      "name": "herdr_link_peers",
      "label": "Herdr Link Peers",
      "description": "List live agents of this workspace and your own name. For finding or recovering an address only.",
      "parameters": {
        "type": "object",
        "properties": {}
      },
      "op": "peers"
    },
    {
      "name": "herdr_link_send",
      "label": "Herdr Link Send",
      "description": "Send a Herdr Link message or reply. \"sent\" is delivery only: then end your turn; the answer arrives as a new message.",
      "parameters": {
        "type": "object",
        "properties": {
          "to": {
            "description": "Recipient Agent Name",
            "type": "string"
          },
          "message": {
            "description": "Message text",
            "type": "string"
          }
        },
        "required": [
          "to",
          "message"
        ],
        "additionalProperties": false
      },
      "op": "send"
    },
    {
      "name": "herdr_link_close",
      "label": "Herdr Link Close",
      "description": "Close the named agent's pane once its lifecycle is complete, as its own step after earlier Herdr Link calls returned. Sends no message.",
      "parameters": {
        "type": "object",
        "properties": {
          "agent": {
            "description": "Agent Name whose pane to close",
            "type": "string"
          }
        },
        "required": [
          "agent"
        ],
        "additionalProperties": false
      },
      "op": "close",
      "sequential": true
    }
  ],
  "activation": "{\"status\":\"active\",\"capabilities\":[\"start\",\"peers\",\"send\",\"close\"]}",
  "guardReason": "Blocked by Herdr Link: never wait for another agent. herdr_link_send delivers; end this turn and the reply arrives as a new Herdr Link message.",
  "command": "Herdr Link status (dormant or active)"
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


// ---- the Bash boundary: no waiting on agents in an active session (spec §8) ------------------
// A best-effort lexer for honest mistakes, not a sandbox: a model that means to wait can always find
// a way (a script file, another language). A command line is split the way a shell splits it:
// quotes are honoured (quoted text is never a command; $'…' is decoded), brace expansion is applied
// ({herdr,} is herdr), and ; & | && || newlines, ( ) subshells and { } groups end a simple command.
// Here-document bodies are data, except the $( ) and backticks an unquoted delimiter lets run. The
// bodies of $( ), backticks, `eval`, `sh -c`/`bash -c`/`su -c`/`script -c`, `env -S` and the
// commands of `find -exec` are command lines of their own, checked recursively. In each simple
// command, assignments, redirections, shell keywords and wrappers with their options (env, sudo,
// doas, timeout, nice, nohup, time, command, exec, xargs, stdbuf, setsid, ionice, chrt, taskset,
// watch, flock, builtin) are skipped; what remains is blocked when it is Herdr (any path, or
// $HERDR_BIN_PATH) running `agent wait`, or `agent prompt` with --wait anywhere but in the text's
// place. A command word the lexer cannot resolve (a variable, a substitution) fails closed when the
// words after it read as such a wait, and runs otherwise (`$EDITOR notes.md`).

const MAX_DEPTH = 8;
const MAX_BRACE_WORDS = 256;

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

const ANSI_C = { a: "\x07", b: "\b", e: "\x1b", E: "\x1b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v" };

function ansiC(line, start) {
  // Decode $'…' whose opening quote is at line[start]; returns [text, index of the closing quote].
  let text = "";
  let i = start + 1;
  for (; i < line.length && line[i] !== "'"; i++) {
    if (line[i] !== "\\" || i + 1 >= line.length) {
      text += line[i];
      continue;
    }
    const next = line[++i];
    const digits = (pattern, max) => {
      let value = "";
      while (value.length < max && i + 1 < line.length && pattern.test(line[i + 1])) value += line[++i];
      return value;
    };
    if (Object.hasOwn(ANSI_C, next)) text += ANSI_C[next];
    else if (/[0-7]/.test(next)) text += String.fromCodePoint(parseInt(next + digits(/[0-7]/, 2), 8));
    else if (next === "x" || next === "u" || next === "U") {
      const hex = digits(/[0-9A-Fa-f]/, { x: 2, u: 4, U: 8 }[next]);
      text += hex ? String.fromCodePoint(Math.min(parseInt(hex, 16), 0x10ffff)) : "\\" + next;
    } else if (next === "c" && i + 1 < line.length) text += String.fromCharCode(line[++i].charCodeAt(0) & 31);
    else text += next; // \\ \' \" \? and anything else: the character itself
  }
  return [text, i];
}

function braceExpand(chars) {
  // Bash's brace expansion of one word, given as [character, unquoted] pairs: {a,b} and {x..y}.
  for (let open = 0; open < chars.length; open++) {
    if (chars[open][0] !== "{" || !chars[open][1]) continue;
    let depth = 0;
    const commas = [];
    let close = -1;
    for (let i = open; i < chars.length; i++) {
      const [char, unquoted] = chars[i];
      if (!unquoted) continue;
      if (char === "{") depth++;
      else if (char === "}" && --depth === 0) {
        close = i;
        break;
      } else if (char === "," && depth === 1) commas.push(i);
    }
    if (close < 0) return [chars];
    const prefix = chars.slice(0, open);
    const suffix = chars.slice(close + 1);
    let parts = [];
    if (commas.length) {
      let from = open + 1;
      for (const comma of [...commas, close]) {
        parts.push(chars.slice(from, comma));
        from = comma + 1;
      }
    } else {
      const body = chars.slice(open + 1, close).map(([c]) => c).join("");
      const range = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$/.exec(body);
      if (!range) continue; // not an expansion: look further along the word
      const numeric = /\d/.test(range[1]);
      if (numeric !== /\d/.test(range[2])) continue;
      const [from, to] = numeric ? [Number(range[1]), Number(range[2])] : [range[1].charCodeAt(0), range[2].charCodeAt(0)];
      const step = Math.max(1, Math.abs(Number(range[3] ?? 1))) * (to >= from ? 1 : -1);
      for (let value = from; step > 0 ? value <= to : value >= to; value += step) {
        parts.push([...(numeric ? String(value) : String.fromCharCode(value))].map((c) => [c, false]));
        if (parts.length > MAX_BRACE_WORDS) break;
      }
    }
    const words = [];
    for (const part of parts) {
      for (const word of braceExpand([...prefix, ...part, ...suffix])) {
        words.push(word);
        if (words.length > MAX_BRACE_WORDS) return words;
      }
    }
    return words;
  }
  return [chars];
}

function substitutions(body) {
  // The command lines of the $( ) and backticks in an unquoted here-document's body.
  const found = [];
  for (let i = 0; i < body.length; i++) {
    if (body[i] === "\\") i++;
    else if (body[i] === "$" && body[i + 1] === "(") {
      const end = closing(body, i + 1);
      found.push(body.slice(i + 2, end));
      i = end;
    } else if (body[i] === "`") {
      const end = body.indexOf("`", i + 1) < 0 ? body.length : body.indexOf("`", i + 1);
      found.push(body.slice(i + 1, end));
      i = end;
    }
  }
  return found;
}

function commands(line, depth = 0, out = []) {
  // Every simple command of a command line (nested bodies included), each a list of words; the
  // indexes of the words whose text an expansion decides are in the list's `unresolved` set.
  if (depth > MAX_DEPTH) {
    out.push(Object.assign(["herdr", "agent", "wait"], { unresolved: new Set() })); // too deep to read: fail closed
    return out;
  }
  let words = [];
  let unresolved = new Set();
  let chars = [];
  let started = false;
  let expands = false;
  let quote = null;
  const heredocs = [];
  const add = (text, unquoted) => {
    for (const char of text) chars.push([char, unquoted]);
    started = true;
  };
  const endWord = () => {
    if (started) {
      const expanded = chars.some(([c, unquoted]) => unquoted && c === "{") ? braceExpand(chars) : [chars];
      const quoted = chars.some(([, unquoted]) => !unquoted);
      for (const word of expanded) {
        if (!word.length && !quoted && expanded.length > 1) continue; // a null word of an expansion is dropped
        if (expands) unresolved.add(words.length);
        words.push(word.map(([c]) => c).join(""));
      }
    }
    chars = [];
    started = false;
    expands = false;
  };
  const endCommand = () => {
    endWord();
    if (words.length) out.push(Object.assign(words, { unresolved }));
    words = [];
    unresolved = new Set();
  };
  const nested = (body) => {
    commands(body, depth + 1, out);
    add("$(…)", false);
    expands = true;
  };
  const heredoc = (from) => {
    // `<<` or `<<-` at line[from]: read its delimiter word; returns the index of its last character.
    let i = from + 2;
    const strip = line[i] === "-";
    if (strip) i++;
    while (line[i] === " " || line[i] === "\t") i++;
    let delimiter = "";
    let quoted = false;
    let inside = null;
    for (; i < line.length; i++) {
      const char = line[i];
      if (inside) {
        if (char === inside) inside = null;
        else delimiter += char;
      } else if (char === "'" || char === '"') {
        inside = char;
        quoted = true;
      } else if (char === "\\" && i + 1 < line.length) {
        delimiter += line[++i];
        quoted = true;
      } else if (/[\s;&|()<>]/.test(char)) break;
      else delimiter += char;
    }
    heredocs.push({ delimiter, strip, quoted });
    add("<<" + delimiter, false);
    return i - 1;
  };
  const bodies = (newline) => {
    // Skip the bodies of the here-documents begun on the line that ends at `newline`.
    let i = newline;
    for (const { delimiter, strip, quoted } of heredocs.splice(0)) {
      let body = "";
      while (i < line.length) {
        const end = line.indexOf("\n", i + 1) < 0 ? line.length : line.indexOf("\n", i + 1);
        const text = line.slice(i + 1, end);
        i = end;
        if ((strip ? text.replace(/^\t+/, "") : text) === delimiter) break;
        body += text + "\n";
      }
      if (!quoted) for (const inner of substitutions(body)) commands(inner, depth + 1, out);
    }
    return i;
  };
  for (let i = 0; i < line.length; i++) {
    const char = line[i];
    const next = line[i + 1];
    if (quote === "'") {
      if (char === "'") quote = null;
      else add(char, false);
    } else if (quote === '"') {
      if (char === '"') quote = null;
      else if (char === "\\" && next !== undefined && '"\\$`\n'.includes(next)) add(line[++i], false);
      else if (char === "$" && next === "(") {
        const end = closing(line, i + 1);
        nested(line.slice(i + 2, end));
        i = end;
      } else if (char === "`") {
        const end = line.indexOf("`", i + 1) < 0 ? line.length : line.indexOf("`", i + 1);
        nested(line.slice(i + 1, end));
        i = end;
      } else {
        if (char === "$" && next !== undefined && /[A-Za-z_0-9@*#?$!{-]/.test(next)) expands = true;
        add(char, false);
      }
    } else if (char === "'" || char === '"') {
      quote = char;
      started = true;
    } else if (char === "$" && next === "'") {
      const [text, end] = ansiC(line, i + 1);
      add(text, false);
      i = end;
    } else if (char === "$" && next === '"') {
      quote = '"'; // $"…", a translated string: a double-quoted one here
      started = true;
      i++;
    } else if (char === "\\") {
      if (next !== undefined && next !== "\n") add(next, false);
      i++;
    } else if (char === "$" && next === "(") {
      const end = closing(line, i + 1);
      nested(line.slice(i + 2, end));
      i = end;
    } else if (char === "$" && next === "{") {
      const end = line.indexOf("}", i) < 0 ? line.length - 1 : line.indexOf("}", i);
      add(line.slice(i, end + 1), false);
      expands = true;
      i = end;
    } else if (char === "$" && next !== undefined && /[A-Za-z_0-9@*#?$!-]/.test(next)) {
      add(char, false);
      expands = true;
    } else if (char === "`") {
      const end = line.indexOf("`", i + 1) < 0 ? line.length : line.indexOf("`", i + 1);
      nested(line.slice(i + 1, end));
      i = end;
    } else if (char === "#" && !started) {
      const end = line.indexOf("\n", i);
      i = end < 0 ? line.length : end - 1;
    } else if (char === "<" && next === "<" && line[i + 2] !== "<") {
      endWord();
      i = heredoc(i);
      endWord();
    } else if (char === "\n") {
      endCommand();
      if (heredocs.length) i = bodies(i) - 1;
    } else if (";&|()".includes(char)) {
      endCommand();
    } else if (/\s/.test(char)) {
      endWord();
    } else if ((char === "{" || char === "}") && !started && (next === undefined || /[\s;&|]/.test(next))) {
      endCommand(); // a group brace is a word of its own
    } else {
      add(char, true);
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
const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "ash", "busybox", "su"]);
const FIND_EXEC = new Set(["-exec", "-execdir", "-ok", "-okdir"]);
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

function scriptOf(argv, program) {
  // The command line a shell, `su` or `script` runs with -c (combined short flags too), or null.
  for (let index = 1; index < argv.length; index++) {
    const word = argv[index];
    if (program === "script" && word.startsWith("--command=")) return word.slice("--command=".length);
    if (program === "script" && word === "--command") return argv[index + 1] ?? "";
    if (/^-[A-Za-z]*c[A-Za-z]*$/.test(word)) return argv[index + 1] ?? "";
  }
  return null;
}

function simpleBlocked(simple, start, depth) {
  // Whether the simple command simple[start…] waits; `simple.unresolved` marks expanded words.
  let index = start;
  for (;;) {
    const head = simple[index];
    if (head === undefined) return false;
    const name = basename(head);
    if (ASSIGNMENT.test(head) || KEYWORDS.has(head)) index++;
    else if (REDIRECT.test(head)) index += REDIRECT.exec(head)[0] === head ? 2 : 1;
    else if (name === "eval") return blocked(simple.slice(index + 1).join(" "), depth + 1);
    else if (Object.hasOwn(WRAPPERS, name) && !simple.unresolved.has(index)) {
      const wrapper = WRAPPERS[name];
      index++;
      while (index < simple.length && simple[index].startsWith("-") && simple[index] !== "-") {
        const word = simple[index];
        if (word === "--") {
          index++;
          break;
        }
        if (wrapper.script?.includes(word)) {
          if (blocked(simple[index + 1] ?? "", depth + 1)) return true;
          index += 2;
        } else index += wrapper.values.includes(word) ? 2 : 1;
      }
      if (name === "env") while (index < simple.length && ASSIGNMENT.test(simple[index])) index++;
      index += wrapper.positional ?? 0;
    } else break;
  }
  const argv = simple.slice(index);
  if (waits(argv.slice(1)) && (isHerdr(argv[0]) || simple.unresolved.has(index))) return true;
  const program = basename(argv[0]);
  if (SHELLS.has(program) || program === "script") {
    const script = scriptOf(argv, program);
    if (script !== null && blocked(script, depth + 1)) return true;
  }
  if (program === "find") {
    for (let at = 1; at < argv.length; at++) {
      if (!FIND_EXEC.has(argv[at])) continue;
      let end = at + 1;
      while (end < argv.length && argv[end] !== ";" && argv[end] !== "+") end++;
      const inner = Object.assign(argv.slice(at + 1, end), {
        unresolved: new Set([...simple.unresolved].map((i) => i - index - at - 1).filter((i) => i >= 0)),
      });
      if (simpleBlocked(inner, 0, depth + 1)) return true;
      at = end;
    }
  }
  return false;
}

function blocked(line, depth = 0) {
  if (typeof line !== "string") return false;
  if (depth > MAX_DEPTH) return true; // too deep to read: fail closed
  return commands(line, depth).some((simple) => simpleBlocked(simple, 0, depth));
}

// ---- the Pi extension -------------------------------------------------------------------------
// True deferred tools: all five registered; the Tier 1 tools start inactive and the gateway makes
// them active (additively, without Herdr I/O). The presentation (contract and appendix) is the
// prompt guideline of a Tier 1 tool: Pi adds a tool's guidelines to the system prompt exactly while
// the tool is active, and applies setActiveTools before the very next model request, so the
// activating turn already sees the rules, once, and a compaction keeps them. `{}` activates here and
// at once; any other gateway call (a dispatch, in either form) goes to the bridge as it is, and the
// bridge's parse says what it is and whether it activates.

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
  const shown = (value) => ({ ...text(JSON.stringify(value)), details: value });
  const where = (ctx) => ({ session, directory: ctx?.cwd });

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
        if (spec.op) return shown(await ensureBridge().request(spec.op, params ?? {}, where(ctx)));
        if (activatesLocally(params ?? {})) {
          activate();
          return { ...text(LINK.activation), details: JSON.parse(LINK.activation) };
        }
        return shown(await ensureBridge().gateway(params, where(ctx), activate));
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
    ensureBridge().request("bootstrap", {}, where(ctx)).catch(() => {});
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
