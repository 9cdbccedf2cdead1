// A minimal bridge client in Node, as a stub would be: spawn the bridge named by HERDR_LINK_BRIDGE
// (a JSON array), say hello, write the scenario's requests at once, collect one reply per request,
// close stdin and report everything as one JSON object on stdout.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const scenario = JSON.parse(await new Promise((resolve) => {
  let text = "";
  process.stdin.on("data", (chunk) => (text += chunk));
  process.stdin.on("end", () => resolve(text));
}));
const [command, ...args] = JSON.parse(process.env.HERDR_LINK_BRIDGE);
const bridge = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"] });
let stderr = "";
bridge.stderr.on("data", (chunk) => (stderr += chunk));
const lines = createInterface({ input: bridge.stdout });
const received = [];
const waiters = [];
lines.on("line", (line) => {
  received.push(JSON.parse(line));
  waiters.splice(0).forEach((wake) => wake());
});
const until = (count) => new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error(`timed out with ${received.length} replies`)), 15000);
  const check = () => (received.length >= count ? (clearTimeout(timer), resolve()) : waiters.push(check));
  check();
});

bridge.stdin.write(JSON.stringify(scenario.hello) + "\n");
await until(1);
for (const request of scenario.requests) bridge.stdin.write(JSON.stringify(request) + "\n");
await until(1 + scenario.requests.length);
bridge.stdin.end();
const exit = await new Promise((resolve) => bridge.on("exit", (code) => resolve(code)));
process.stdout.write(JSON.stringify({ hello: received[0], replies: received.slice(1), exit, stderr }) + "\n");
