#!/usr/bin/env node
// postAsk hook: check what the asked agent answered before the asking agent
// reads it.
//
//   * An empty answer (a small model that said nothing, a relay that failed
//     before answering) is replaced with a clear note, so the asking model
//     does not invent what the other agent "meant". The user sees
//     "🪝 postAsk: <agent>'s answer was replaced by a hook — the asking agent reads the new one".
//   * An answer that disagrees with a fact of facts.json gets a context after
//     it, naming the fact: the asking model reads both and can correct.
//
//   in  (stdin):  {"event":"postAsk",…,"ask":{"agent":"expert","prompt":"…",…},
//                  "answer":"…","durationMs":1234,"error":"…"}
//   out (stdout): nothing, {"answer":"…"} or {"context":"…"}
//
// Try it alone:
//   echo '{"ask":{"agent":"expert","prompt":"default hook timeout?"},"answer":"30s"}' | node check-answer.js
'use strict';
const fs = require('fs');
const path = require('path');

const input = JSON.parse(fs.readFileSync(0, 'utf8'));
const ask = input.ask || {};
const agent = ask.agent || 'the other agent';
const answer = typeof input.answer === 'string' ? input.answer : '';

function reply(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
  process.exit(0);
}

if (answer.trim() === '') {
  const why = input.error ? ` (${input.error})` : '';
  reply({
    answer: `[Note from a hook: ${agent}, the agent you asked, gave no answer${why}. Do not guess what ` +
      'it would have said: answer from what you know, or tell the user it had nothing to say.]',
  });
}

// facts.json sits next to the config that declared this hook. Adapt: each
// fact says when it applies ("about", a regexp tried on the question and the
// answer), what a right answer says ("says", a regexp tried on the answer)
// and the fact itself, in words the model reads.
const dir = process.env.MM_CONFIG_DIR || path.join(__dirname, '..');
const { facts } = JSON.parse(fs.readFileSync(path.join(dir, 'facts.json'), 'utf8'));
const question = ask.prompt || '';
const disagree = facts.filter((f) =>
  new RegExp(f.about, 'i').test(question + '\n' + answer) && !new RegExp(f.says, 'i').test(answer));

if (disagree.length > 0) {
  reply({
    context: `Fact check (facts.json): this answer disagrees with what the team knows:\n` +
      disagree.map((f) => `- ${f.fact}`).join('\n') +
      '\nTrust the facts over this answer, and tell the user about the disagreement.',
  });
}
// Nothing printed: the answer goes through as it is.
