// A small A2A agent for mm's end-to-end tests, built on the official
// JavaScript SDK (@a2a-js/sdk, from $NODE_MODULES): a v1.0-native server
// with its v0.3 compatibility layer on (legacyCompat), as any 1.0 agent
// would be to serve a 0.3 client such as mm. It is a foreign peer: it knows
// nothing of mm beyond the wire.
//
// Usage: node agent.mjs PORT RECORD [TOKEN]
//
// It serves its card at /.well-known/agent-card.json and JSON-RPC at
// /a2a/jsonrpc on 127.0.0.1:PORT, writes "ready" to RECORD.ready once
// listening, and appends one JSON line to RECORD per thing it received:
//
//   {"rpc":"<JSON-RPC method>"}                      (every JSON-RPC request)
//   {"execute":{"text":"…","metadata":{…},"authorization":"Bearer …","taskId":"…"}}
//   {"cancel":"<taskId>"}
//   {"refused":"<authorization header or null>"}     (a request without TOKEN, when given)
//
// What it answers depends on the question:
//   - "slow …": it works until tasks/cancel, then ends the task canceled;
//   - "fail …": the task fails with "the JS agent failed on purpose";
//   - "ask …": the task waits for free-text input (input-required, "Which
//     branch should I deploy?", no mm metadata), and asks again whatever
//     the answer;
//   - "rewrite …": the answer comes as "Hel" (append), "Hello" (append
//     false: a replacement that only adds), " world" (append);
//   - "redo …": "Draft" (append), " answer" (append), "Final answer"
//     (append false: a replacement of text already sent), "." (append);
//   - "ctl …": the answer and progress message carry escape sequences and
//     control characters; "ctlfail …": so does the reason of a failure;
//   - anything else: "JS agent says: <question>", streamed in two pieces.
// The environment variable A2A_CARD changes the interfaces the card offers
// (A2A 0.3: preferredTransport and url, then additionalInterfaces):
//   - "rest-first": HTTP+JSON at /a2a/rest first, JSON-RPC second;
//   - "rest-only": HTTP+JSON and gRPC, no JSON-RPC.
// SIGINT or SIGTERM stops it (exit 0).

import { appendFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";

const require = createRequire(resolve(process.env.NODE_MODULES, "x.js"));
const express = require("express");
const sdk = require("@a2a-js/sdk");
const server = require("@a2a-js/sdk/server");
const serverExpress = require("@a2a-js/sdk/server/express");
const compat = require("@a2a-js/sdk/compat/v0_3");

const [port, record, token] = process.argv.slice(2);
const log = (o) => appendFileSync(record, JSON.stringify(o) + "\n");
const { TaskState, Role } = sdk;

const base = `http://127.0.0.1:${port}`;
const interfaces = {
  "": [["JSONRPC", `${base}/a2a/jsonrpc`]],
  "rest-first": [["HTTP+JSON", `${base}/a2a/rest`], ["JSONRPC", `${base}/a2a/jsonrpc`]],
  "rest-only": [["HTTP+JSON", `${base}/a2a/rest`], ["GRPC", `127.0.0.1:${port}`]],
}[process.env.A2A_CARD ?? ""];
const card = {
  name: "js-agent",
  description: "A test agent written with the A2A JavaScript SDK.",
  supportedInterfaces: compat.duplicateInterfacesForLegacy(
    interfaces.map(([protocolBinding, url]) => ({ url, protocolBinding, tenant: "", protocolVersion: sdk.A2A_PROTOCOL_VERSION })),
    interfaces.map(([binding]) => binding),
  ),
  provider: undefined,
  version: "1.0.0",
  capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ["text"],
  defaultOutputModes: ["text"],
  skills: [{ id: "echo", name: "echo", description: "says what it was asked", tags: ["test"], examples: [], inputModes: ["text"], outputModes: ["text"], securityRequirements: [] }],
  signatures: [],
};

const textPart = (value) => ({ content: { $case: "text", value }, metadata: undefined, filename: "", mediaType: "text/plain" });
const agentMessage = (taskId, contextId, text) => ({
  role: Role.ROLE_AGENT, messageId: crypto.randomUUID(), parts: [textPart(text)],
  taskId, contextId, extensions: [], metadata: {}, referenceTaskIds: [],
});
const status = (taskId, contextId, state, text) => server.AgentEvent.statusUpdate({
  taskId, contextId, metadata: {},
  status: { state, timestamp: new Date().toISOString(), message: text === undefined ? undefined : agentMessage(taskId, contextId, text) },
});

const cancelled = new Map(); // taskId → resolve of the wait
const asking = new Map(); // taskId → contextId of the tasks of "ask …", which ask on and on

class Agent {
  async execute(ctx, bus) {
    const msg = ctx.userMessage;
    const text = msg.parts.filter((p) => p.content?.$case === "text").map((p) => p.content.value).join("");
    const headers = ctx.context.state.get(server.STATE_HEADERS_KEY) ?? {};
    const { taskId, contextId } = ctx;
    log({ execute: { text, metadata: msg.metadata ?? null, authorization: headers.authorization ?? null, taskId } });
    bus.publish(server.AgentEvent.task(ctx.task ?? {
      id: taskId, contextId, artifacts: [], history: [msg], metadata: {},
      status: { state: TaskState.TASK_STATE_SUBMITTED, timestamp: new Date().toISOString(), message: undefined },
    }));
    bus.publish(status(taskId, contextId, TaskState.TASK_STATE_WORKING));
    if (text.startsWith("slow")) {
      await new Promise((done) => {
        cancelled.set(taskId, done);
        setTimeout(done, 60000);
      });
      cancelled.delete(taskId);
      bus.publish(status(taskId, contextId, TaskState.TASK_STATE_CANCELED));
      return;
    }
    if (text.startsWith("ask") || asking.has(taskId)) {
      asking.set(taskId, contextId);
      bus.publish(status(taskId, contextId, TaskState.TASK_STATE_INPUT_REQUIRED, "Which branch should I deploy?"));
      return;
    }
    if (text.startsWith("ctlfail")) {
      bus.publish(status(taskId, contextId, TaskState.TASK_STATE_FAILED, "the JS agent \x1b[31mfailed\x1b[0m\x07 on\r purpose\x1b]0;owned\x07"));
      return;
    }
    if (text.startsWith("fail")) {
      bus.publish(status(taskId, contextId, TaskState.TASK_STATE_FAILED, "the JS agent failed on purpose"));
      return;
    }
    const artifactId = crypto.randomUUID();
    const piece = (s, append, lastChunk) => server.AgentEvent.artifactUpdate({
      taskId, contextId, append, lastChunk, metadata: undefined,
      artifact: { artifactId, name: "answer", description: "", parts: [textPart(s)], metadata: undefined, extensions: [] },
    });
    const pieces = async (list) => {
      for (const [s, append, last] of list) {
        bus.publish(piece(s, append, last));
        await new Promise((r) => setTimeout(r, 20));
      }
      bus.publish(status(taskId, contextId, TaskState.TASK_STATE_COMPLETED));
    };
    if (text.startsWith("rewrite")) {
      await pieces([["Hel", true, false], ["Hello", false, false], [" world", true, true]]);
      return;
    }
    if (text.startsWith("redo")) {
      await pieces([["Draft", true, false], [" answer", true, false], ["Final answer", false, false], [".", true, true]]);
      return;
    }
    if (text.startsWith("ctl")) {
      bus.publish(status(taskId, contextId, TaskState.TASK_STATE_WORKING, "\x1b[2Jthinking\x07"));
      await pieces([["JS \x1b[31mred\x1b[0m agent\x07 says\r: ", false, false], ["ok\x1b]0;owned\x07\u009b!", true, true]]);
      return;
    }
    const answer = `JS agent says: ${text}`;
    const half = Math.floor(answer.length / 2);
    bus.publish(piece(answer.slice(0, half), false, false));
    await new Promise((r) => setTimeout(r, 20));
    bus.publish(piece(answer.slice(half), true, true));
    bus.publish(status(taskId, contextId, TaskState.TASK_STATE_COMPLETED));
  }

  async cancelTask(taskId, bus) {
    log({ cancel: taskId });
    cancelled.get(taskId)?.();
    if (asking.has(taskId)) {
      // No execution is running to end it: the task waits for input.
      bus.publish(status(taskId, asking.get(taskId), TaskState.TASK_STATE_CANCELED));
      asking.delete(taskId);
    }
  }
}

const handler = new server.DefaultRequestHandler(card, new server.InMemoryTaskStore(), new Agent());
const app = express();
app.use(`/${sdk.AGENT_CARD_PATH}`, serverExpress.agentCardHandler({ agentCardProvider: handler, legacyCompat: { enabled: true } }));
app.use("/a2a/jsonrpc", (req, res, next) => {
  if (token && req.headers.authorization !== `Bearer ${token}`) {
    log({ refused: req.headers.authorization ?? null });
    res.status(401).json({ error: "unauthorized" });
    return;
  }
  next();
});
app.use("/a2a/jsonrpc", express.json(), (req, res, next) => {
  log({ rpc: req.body?.method ?? null });
  next();
});
app.use("/a2a/rest", (req, res, next) => {
  log({ rest: `${req.method} ${req.path}` });
  next();
}, serverExpress.restHandler({ requestHandler: handler, userBuilder: serverExpress.UserBuilder.noAuthentication, legacyCompat: { enabled: true } }));
app.use("/a2a/jsonrpc", serverExpress.jsonRpcHandler({ requestHandler: handler, userBuilder: serverExpress.UserBuilder.noAuthentication, legacyCompat: { enabled: true } }));
const listener = app.listen(Number(port), "127.0.0.1", () => writeFileSync(record + ".ready", "ready\n"));
listener.on("error", (err) => {
  console.error("js agent:", err.message);
  process.exit(1);
});
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, () => {
    listener.close();
    listener.closeAllConnections?.();
    process.exit(0);
  });
}
