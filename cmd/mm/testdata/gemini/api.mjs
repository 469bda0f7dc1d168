// A scripted Gemini API for mm's end-to-end tests: what Google's Gemini
// CLI (its A2A server, from npm) calls when GOOGLE_GEMINI_BASE_URL points
// here, answered without a model.
//
// Usage: node api.mjs PORT RECORD
//
// It listens on 127.0.0.1:PORT, writes "ready" to RECORD.ready once
// listening, and appends one JSON line per request to RECORD:
// {"url":"…","question":"<the text of the last user turn>"}.
//
// streamGenerateContent (alt=sse) answers the answer below in three
// chunks, the last with finishReason STOP; to a question that starts with
// "run ", a sentence and a call of the CLI's shell tool instead (a call
// that waits for approval). generateContent answers the answer whole,
// countTokens a count, anything else a Gemini-shaped 404, so that a call
// this script does not know shows in the server's errors. SIGINT or
// SIGTERM stops it (exit 0).
import { appendFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";

const [port, record] = process.argv.slice(2);
const pieces = ["Paris is", " the capital", " of France."];

const chunk = (text, last) => ({
  candidates: [{ content: { role: "model", parts: [{ text }] }, index: 0, ...(last ? { finishReason: "STOP" } : {}) }],
  ...(last ? { usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 7, totalTokenCount: 19 } } : {}),
  modelVersion: "scripted",
});

// The text of the last user turn of a generateContent body.
const question = (body) => {
  try {
    const user = (JSON.parse(body).contents ?? []).filter((c) => c.role === "user").pop();
    return (user?.parts ?? []).map((p) => p.text ?? "").join("");
  } catch {
    return null;
  }
};

const reply = (res, code, obj) => {
  res.writeHead(code, { "content-type": "application/json" });
  res.end(JSON.stringify(obj));
};

const server = createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    appendFileSync(record, JSON.stringify({ url: req.url, question: question(body) }) + "\n");
    if (req.url.includes(":streamGenerateContent")) {
      res.writeHead(200, { "content-type": "text/event-stream" });
      const send = (obj) => res.write(`data: ${JSON.stringify(obj)}\r\n\r\n`);
      if (/^run /.test(question(body) ?? "")) {
        send(chunk("I will run it.", false));
        const call = chunk("", true);
        call.candidates[0].content.parts = [{ functionCall: { name: "run_shell_command", args: { command: "ls", description: "list the files" } } }];
        send(call);
      } else {
        pieces.forEach((p, i) => send(chunk(p, i === pieces.length - 1)));
      }
      res.end();
    } else if (req.url.includes(":generateContent")) {
      reply(res, 200, chunk(pieces.join(""), true));
    } else if (req.url.includes(":countTokens")) {
      reply(res, 200, { totalTokens: 12 });
    } else {
      reply(res, 404, { error: { code: 404, message: `not scripted: ${req.method} ${req.url}`, status: "NOT_FOUND" } });
    }
  });
}).listen(Number(port), "127.0.0.1", () => writeFileSync(record + ".ready", "ready\n"));
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, () => {
    server.close();
    server.closeAllConnections();
    process.exit(0);
  });
}
