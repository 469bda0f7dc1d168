// A small ACP client for mm's end-to-end tests, built on the official
// TypeScript library (@agentclientprotocol/sdk, from $NODE_MODULES) so that
// mm -acp is checked against what editors use, not against our own reading
// of the protocol. It starts `mm -acp` with its own environment, runs a
// scenario, and prints one JSON object per line for scripts to check with
// jq:
//
//   {"sent":"initialize","result":{…}}
//   {"sent":"session/new","cwd":"…","result":{"sessionId":"…"}}         (or "error":{…})
//   {"recv":"session/update","sessionId":"…","update":{…}}
//   {"recv":"session/request_permission","params":{…},"answer":"allow"}
//   {"sent":"session/cancel","sessionId":"…"}
//   {"sent":"session/prompt","prompt":"…","result":{"stopReason":"…"}}   (or "error":{…})
//   {"sent":"session/load","sessionId":"…","result":{…}}                 (or "error":{…})
//   {"toolCall":{"id":…,"title":…,"kind":…,"status":…,"content":[…],"updates":n}}
//                                          after a prompt or a load: each tool call it showed, as
//                                          its tool_call and tool_call_updates left it (content: the
//                                          texts; updates: how many tool_call_updates it got)
//   {"exit":0}                                                             mm's exit status
//   {"bad":"…"}                                                            a line of mm's stdout that is not JSON-RPC
//
// Usage: node client.mjs SCENARIO.json, where the scenario is
//
//   {
//     "args": ["-acp"],                    mm's arguments (default: ["-acp"])
//     "permissions": ["allow_once", …],    answers to session/request_permission, in order, by option
//                                          kind: allow_once, allow_always, reject_once, or cancelled;
//                                          reject_once once the list is used up
//     "steps": [
//       {"new": "DIR"},                    session/new, cwd DIR (relative to the client's directory)
//       {"new": "DIR", "mcpServers": […]}  … giving these MCP servers (ACP's McpServer objects;
//                                          "$VAR" in a string is the client's environment variable)
//       {"prompt": "TEXT"},                session/prompt in the last session
//       {"prompt": "TEXT", "cancelOn": "MARKER"}
//                                          … and session/cancel once what streamed in this prompt
//                                          (answer and tool call content) contains MARKER
//       {"restart": true},                 end mm (close its stdin, wait) and start a new one
//       {"load": "DIR"}                    session/load of the last session, cwd DIR (mcpServers too)
//       {"sh": "COMMAND"}                  run sh -c COMMAND in the client's directory, with
//                                          SESSION_ID set to the last session's id; prints
//                                          {"sh":"COMMAND","exit":n}
//     ]
//   }
//
// mm's stderr is the client's stderr, for scripts to check too.

import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";

const require = createRequire(resolve(process.env.NODE_MODULES, "x.js"));
const acp = await import(pathToFileURL(require.resolve("@agentclientprotocol/sdk")).href);

const scenario = JSON.parse(readFileSync(process.argv[2], "utf8"));
const permissions = [...(scenario.permissions ?? [])];
const print = (o) => process.stdout.write(JSON.stringify(o) + "\n");
// Let the library finish dispatching what arrived before a response, so
// lines print in the order mm sent them.
const settle = () => new Promise((r) => setImmediate(r));

let sessionId = null;
// The prompt running: the text it streamed so far and when to cancel it.
let running = null;
// The tool calls shown since the last prompt or load began, by id.
let calls = new Map();

const client = acp
  .client({ name: "mm-test-client" })
  .onNotification("session/update", ({ params, agent }) => {
    print({ recv: "session/update", sessionId: params.sessionId, update: params.update });
    fold(params.update);
    if (running && !running.cancelled && running.cancelOn) {
      running.seen += streamedText(params.update);
      if (running.seen.includes(running.cancelOn)) {
        running.cancelled = true;
        print({ sent: "session/cancel", sessionId: params.sessionId });
        agent.notify("session/cancel", { sessionId: params.sessionId });
      }
    }
  })
  .onRequest("session/request_permission", ({ params }) => {
    const want = permissions.shift() ?? "reject_once";
    if (want === "cancelled") {
      print({ recv: "session/request_permission", params, answer: "cancelled" });
      return { outcome: { outcome: "cancelled" } };
    }
    const option = params.options.find((o) => o.kind === want);
    print({ recv: "session/request_permission", params, answer: option?.optionId ?? null });
    if (!option) return { outcome: { outcome: "cancelled" } };
    return { outcome: { outcome: "selected", optionId: option.optionId } };
  });

function fold(u) {
  if (u.sessionUpdate !== "tool_call" && u.sessionUpdate !== "tool_call_update") return;
  let c = calls.get(u.toolCallId);
  if (!c) {
    c = { id: u.toolCallId, title: null, kind: null, status: null, content: [], updates: 0 };
    calls.set(u.toolCallId, c);
  }
  if (u.sessionUpdate === "tool_call_update") c.updates++;
  for (const k of ["title", "kind", "status"]) if (u[k] != null) c[k] = u[k];
  if (u.content != null) c.content = u.content.map((x) => x.content?.text ?? JSON.stringify(x));
}

function printCalls() {
  for (const c of calls.values()) print({ toolCall: c });
  calls = new Map();
}

function streamedText(update) {
  const texts = [];
  if (update.content?.type === "text") texts.push(update.content.text);
  for (const c of Array.isArray(update.content) ? update.content : []) {
    if (c.type === "content" && c.content?.type === "text") texts.push(c.content.text);
  }
  return texts.join("");
}

// Steps between restarts run against one mm process.
const segments = [[]];
for (const step of scenario.steps) {
  if (step.restart) segments.push([]);
  else segments.at(-1).push(step);
}

for (const steps of segments) {
  await runMM(steps);
}

async function runMM(steps) {
  const mm = spawn("mm", scenario.args ?? ["-acp"], { stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise((r) => mm.on("exit", (code, signal) => r(code ?? signal)));
  const [wire, check] = Readable.toWeb(mm.stdout).tee();
  const checked = checkLines(check);
  const stream = acp.ndJsonStream(Writable.toWeb(mm.stdin), wire);
  try {
    await client.connectWith(stream, async (ctx) => {
      const init = await ctx.request("initialize", {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      });
      print({ sent: "initialize", result: init });
      for (const step of steps) await runStep(ctx, step);
    });
  } catch (err) {
    print({ clientError: String(err?.message ?? err) });
  }
  mm.stdin.end();
  print({ exit: await exited });
  await checked;
}

async function runStep(ctx, step) {
  if (step.new !== undefined) {
    const cwd = resolve(step.new);
    try {
      const result = await ctx.request("session/new", { cwd, mcpServers: servers(step) });
      sessionId = result.sessionId;
      print({ sent: "session/new", cwd, result });
    } catch (err) {
      print({ sent: "session/new", cwd, error: errorOf(err) });
    }
  } else if (step.prompt !== undefined) {
    running = { cancelOn: step.cancelOn, seen: "", cancelled: false };
    calls = new Map();
    try {
      const result = await ctx.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: step.prompt }],
      });
      await settle();
      print({ sent: "session/prompt", prompt: step.prompt, result });
    } catch (err) {
      await settle();
      print({ sent: "session/prompt", prompt: step.prompt, error: errorOf(err) });
    }
    printCalls();
    running = null;
  } else if (step.load !== undefined) {
    const cwd = resolve(step.load);
    calls = new Map();
    try {
      const result = await ctx.request("session/load", { sessionId, cwd, mcpServers: servers(step) });
      await settle();
      print({ sent: "session/load", sessionId, result: result ?? null });
    } catch (err) {
      print({ sent: "session/load", sessionId, error: errorOf(err) });
    }
    printCalls();
  } else if (step.sh !== undefined) {
    const r = spawnSync("sh", ["-c", step.sh], { stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, SESSION_ID: sessionId ?? "" } });
    print({ sh: step.sh, exit: r.status ?? r.signal });
  } else {
    throw new Error("unknown step " + JSON.stringify(step));
  }
}

// servers is a step's mcpServers, with "$VAR" in its strings replaced by
// the environment's (paths a script knows only when it runs).
function servers(step) {
  const expand = (v) =>
    typeof v === "string"
      ? v.replace(/\$([A-Z_][A-Z0-9_]*)/g, (_, name) => process.env[name] ?? "")
      : Array.isArray(v)
        ? v.map(expand)
        : v && typeof v === "object"
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, expand(x)]))
          : v;
  return expand(step.mcpServers ?? []);
}

function errorOf(err) {
  return { code: err?.code ?? null, message: String(err?.message ?? err) };
}

// checkLines reports every line of mm's stdout that is not a JSON-RPC 2.0
// message: stdout belongs to the protocol.
async function checkLines(readable) {
  const decoder = new TextDecoder();
  let rest = "";
  const check = (line) => {
    if (line.trim() === "") return;
    try {
      if (JSON.parse(line).jsonrpc === "2.0") return;
    } catch {}
    print({ bad: line });
  };
  for await (const chunk of readable) {
    rest += decoder.decode(chunk, { stream: true });
    const lines = rest.split("\n");
    rest = lines.pop();
    lines.forEach(check);
  }
  check(rest);
}
