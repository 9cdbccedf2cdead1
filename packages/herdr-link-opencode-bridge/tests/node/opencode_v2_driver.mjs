// Loads a generated OpenCode 2 bundle with a fake plugin context shaped on OpenCode's V2 plugin API
// (packages/plugin/src/promise: Plugin {id, setup(ctx)}, ToolDomain.transform(ToolEditor),
// SessionDomain.hook("context" | "compaction" | "generate", …) with the request's mutable `tools` of direct tools
// (`options.codemode === false`, packages/core/src/tool.ts) and SessionApi.get -> Session.Info with
// location.directory), runs the steps given on stdin and prints one JSON report. The plugin runs with
// the environment the test gives it: another pane's, for a server shared by several panes.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const scenario = JSON.parse(readFileSync(0, "utf8"));
const module = await import(pathToFileURL(process.argv[2]).href);
const report = { exports: Object.keys(module), results: [], transforms: 0, hooks: [], gets: [], disposed: 0 };
const plugin = module.default;
report.id = plugin.id;

const tools = new Map();
const sessionHooks = { context: [], compaction: [], generate: [] };
const registration = () => ({ dispose: async () => { report.disposed += 1; } });
const editor = {
  list: () => [...tools.values()],
  get: (id) => tools.get(id),
  namespace: () => {},
  add: (tool) => tools.set(tool.name, { ...tool, id: tool.name }),
  update: () => {},
  remove: (id) => tools.delete(id),
};
const ctx = {
  app: {}, options: {}, agent: {}, aisdk: {}, catalog: {}, command: {}, event: {}, integration: {}, mcp: {},
  generate: {}, permission: {}, plugin: { list: async () => [] }, reference: {}, shell: {}, skill: {},
  storage: {}, vcs: {}, websearch: {},
  tool: {
    transform: async (callback) => { report.transforms += 1; callback(editor); return registration(); },
    reload: async () => {},
    list: async () => editor.list(),
    hook: async () => registration(),
  },
  session: {
    hook: async (name, callback) => {
      report.hooks.push(name);
      sessionHooks[name]?.push(callback);
      return registration();
    },
    get: async ({ sessionID }) => {
      report.gets.push(sessionID);
      const info = scenario.sessions[sessionID];
      if (!info) throw new Error(`session ${sessionID} not found`);
      return { id: sessionID, projectID: "prj", cost: 0, title: "t", tokens: {}, time: {}, ...info };
    },
  },
};

const cleanup = await plugin.setup(ctx);
report.cleanup = typeof cleanup;
const gateway = tools.get("herdr_link");
report.tools = [...tools.keys()];
if (gateway) {
  report.description = gateway.description;
  report.input = gateway.input;
  report.options = gateway.options;
}
const toolContext = (step) => ({
  sessionID: step.session, agent: "build", messageID: "msg_1", id: "call_1",
  signal: new AbortController().signal, progress: async () => {}, checkpoint: async () => {},
});
for (const step of scenario.steps) {
  if (step.kind === "call") {
    try {
      const result = await gateway.execute(step.args, toolContext(step));
      report.results.push({ ok: result.content });
    } catch (error) {
      report.results.push({ error: error.message });
    }
  } else if (step.kind in sessionHooks) {
    // A request of that kind (SessionContext, or SessionCompaction / SessionGenerate, which extend it):
    // the request's direct tools, keyed by name; a hook may delete one to hide it.
    const offered = Object.fromEntries(
      [...tools.values()].filter((tool) => tool.options?.codemode === false)
        .map((tool) => [tool.name, { description: tool.description, input: tool.input }]),
    );
    const event = {
      sessionID: step.session, agent: "build", model: { providerID: "p", modelID: "m" },
      kind: step.kind === "context" ? "primary" : step.kind,
      system: [{ type: "text", text: "You are OpenCode." }], messages: [], options: {}, tools: offered,
    };
    for (const hook of sessionHooks[step.kind]) await hook(event, { signal: new AbortController().signal });
    const result = { system: event.system.map((part) => part.text) };
    if (!Object.hasOwn(event.tools, "herdr_link")) result.hidden = true;
    report.results.push(result);
  } else if (step.kind === "herdr") {
    // The user acts in Herdr between two requests (closes a pane, starts an agent): its own CLI.
    const done = spawnSync(process.env.HERDR_BIN_PATH, step.argv, { encoding: "utf8" });
    report.results.push({ herdr: done.status });
  } else if (step.kind === "kill-bridge") {
    process.kill(Number(readFileSync(step.pidFile, "utf8").trim()), "SIGKILL");
    await new Promise((resolve) => setTimeout(resolve, 300));
    report.results.push({ killed: true });
  }
}
if (typeof cleanup === "function") await cleanup();
process.stdout.write(JSON.stringify(report) + "\n");
process.exit(0);
