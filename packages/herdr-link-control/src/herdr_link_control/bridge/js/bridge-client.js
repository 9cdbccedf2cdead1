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
