// A small A2A client for mm's end-to-end tests, built on the official
// JavaScript SDK (@a2a-js/sdk, from $NODE_MODULES) with its v0.3
// compatibility layer on (legacyCompat on the card resolver and the
// JSON-RPC transport), as any A2A 1.0 client would be to reach a 0.3 agent
// such as mm -a2a. It prints one JSON object per line for scripts to check
// with jq.
//
// Usage: node client.mjs BASE_URL SCENARIO.json, where the scenario is
//
//   {
//     "token": "…",                        sent as Authorization: Bearer … (default: none)
//     "steps": [
//       {"card": true}                     → {"card":{…}} the card as served (v0.3 JSON)
//       {"send": "TEXT"}                   message/send → {"send":"TEXT","state":"…","text":"…","taskId":"…"}
//                                          or {"send":"TEXT","error":"…"}
//       {"stream": "TEXT", "answers": ["y"]}
//                                          message/stream → {"event":"statusUpdate","state":"…","text":"…"} …
//                                          then {"stream":"TEXT","state":"…","text":"…"}; each
//                                          input-required question → {"question":"…","metadata":{…},"answer":"y"}
//                                          answered on the task with the next of "answers" ("n" once used up)
//       {"get": true}                      tasks/get of the last task → {"get":"…","state":"…","text":"…"}
//       {"load": N, "prefix": "P"}         N message/send at once, "P <i>" each; an answer is right when it
//                                          holds "P <i>" → {"load":N,"right":…,"wrong":…,"failed":…,"seconds":…,"perSecond":…}
//     ]
//   }
//
// "token": false on a step sends that step without the token.

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";

const require = createRequire(resolve(process.env.NODE_MODULES, "x.js"));
const sdk = require("@a2a-js/sdk");
const client = require("@a2a-js/sdk/client");

const [baseURL, scenarioFile] = process.argv.slice(2);
const scenario = JSON.parse(readFileSync(scenarioFile, "utf8"));
const print = (o) => process.stdout.write(JSON.stringify(o) + "\n");
const { TaskState, Role } = sdk;

const compat = { legacyCompat: { enabled: true } };
const factory = new client.ClientFactory(
  client.ClientFactoryOptions.createFrom(client.ClientFactoryOptions.default, {
    cardResolver: new client.DefaultAgentCardResolver(compat),
    transports: [new client.JsonRpcTransportFactory(compat)],
  }),
);
const a2a = await factory.createFromUrl(baseURL);

const options = (step) => {
  const withToken = scenario.token && step.token !== false;
  return { serviceParameters: withToken ? { Authorization: `Bearer ${scenario.token}` } : {} };
};
const textPart = (value) => ({ content: { $case: "text", value }, metadata: undefined, filename: "", mediaType: "text/plain" });
const message = (text, task) => ({
  messageId: crypto.randomUUID(), role: Role.ROLE_USER, parts: [textPart(text)],
  taskId: task?.taskId ?? "", contextId: task?.contextId ?? "", extensions: [], metadata: {}, referenceTaskIds: [],
});
const request = (msg) => ({ tenant: "", message: msg, configuration: undefined, metadata: {} });
const texts = (parts) => (parts ?? []).filter((p) => p.content?.$case === "text").map((p) => p.content.value).join("");
const stateName = (s) => sdk.taskStateToJSON(s);
const taskText = (task) => (task.artifacts ?? []).map((a) => texts(a.parts)).join("");
const errorText = (err) => String(err?.message ?? err);

let last; // {taskId, contextId} of the last task

async function send(step) {
  try {
    const res = await a2a.sendMessage(request(message(step.send)), options(step));
    const task = res?.id ? res : res?.task ?? res;
    last = { taskId: task.id, contextId: task.contextId };
    return { state: stateName(task.status?.state), text: taskText(task), taskId: task.id };
  } catch (err) {
    return { error: errorText(err) };
  }
}

async function stream(step) {
  const answers = [...(step.answers ?? [])];
  let msg = message(step.stream);
  let text = "", state;
  try {
    for (;;) {
      let question;
      for await (const ev of a2a.sendMessageStream(request(msg), options(step))) {
        const p = ev.payload;
        if (!p) continue;
        const v = p.value;
        if (p.$case === "task") {
          last = { taskId: v.id, contextId: v.contextId };
          state = stateName(v.status?.state);
        } else if (p.$case === "artifactUpdate") {
          last = { taskId: v.taskId, contextId: v.contextId };
          text += texts(v.artifact?.parts);
        } else if (p.$case === "statusUpdate") {
          last = { taskId: v.taskId, contextId: v.contextId };
          state = stateName(v.status?.state);
          const said = texts(v.status?.message?.parts);
          print({ event: "statusUpdate", state, text: said });
          if (v.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
            question = { text: said, metadata: v.status?.message?.metadata ?? v.metadata ?? {} };
          }
        } else if (p.$case === "message") {
          text += texts(v.parts);
          state = "message";
        }
      }
      if (!question) break;
      const answer = answers.length ? answers.shift() : "n";
      print({ question: question.text, metadata: question.metadata, answer });
      msg = message(answer, last);
    }
    return { state, text };
  } catch (err) {
    return { state, text, error: errorText(err) };
  }
}

for (const step of scenario.steps) {
  if (step.card) {
    const res = await fetch(new URL("/.well-known/agent-card.json", baseURL));
    print({ card: await res.json() });
  } else if (step.send !== undefined) {
    print({ send: step.send, ...(await send(step)) });
  } else if (step.stream !== undefined) {
    print({ stream: step.stream, ...(await stream(step)) });
  } else if (step.get) {
    try {
      const task = await a2a.getTask({ tenant: "", id: last.taskId, historyLength: 0 }, options(step));
      print({ get: task.id, state: stateName(task.status?.state), text: taskText(task) });
    } catch (err) {
      print({ get: last?.taskId, error: errorText(err) });
    }
  } else if (step.load) {
    const n = step.load, prefix = step.prefix ?? "task";
    const start = performance.now();
    const results = await Promise.all(
      Array.from({ length: n }, (_, i) => send({ ...step, send: `${prefix} ${i}` }).then((r) => ({ i, ...r }))),
    );
    const seconds = (performance.now() - start) / 1000;
    let right = 0, wrong = 0, failed = 0;
    for (const r of results) {
      if (r.error || r.state !== "TASK_STATE_COMPLETED") failed++;
      else if (new RegExp(`\\b${prefix} ${r.i}\\b`).test(r.text)) right++;
      else wrong++;
    }
    print({ load: n, right, wrong, failed, seconds: Number(seconds.toFixed(3)), perSecond: Number((n / seconds).toFixed(1)) });
  }
}
