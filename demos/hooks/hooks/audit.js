#!/usr/bin/env node
// postGeneration audit log: one JSON line per turn in audit.jsonl, in the
// session's folder (the folder mm runs in, which is also this hook's cwd).
//
// mm runs it once every turn is over — answered, failed, cancelled (Ctrl-C)
// or stopped by a preGeneration hook:
//   in  (stdin):  {"event":"postGeneration","cwd":"…","model":"…",
//                  "prompt":"…","answer":"…","error":"…"}
//   out (stdout): nothing (postGeneration only observes)
//
// Secret-safe: it never writes the prompt or the answer, only their length.
// For a prompt a hook stopped, mm hands it the marker
// "[prompt blocked by a hook: <reason>]", never the prompt: the line says
// blocked, and the reason (which no-secrets.js keeps free of the secret).
//
// Configured with onError: ignore: a full disk must not break the session.
'use strict';
const fs = require('fs');
const path = require('path');

const input = JSON.parse(fs.readFileSync(0, 'utf8'));
const prompt = typeof input.prompt === 'string' ? input.prompt : '';
const answer = typeof input.answer === 'string' ? input.answer : '';
const blocked = /^\[prompt blocked by a hook(?:: ([\s\S]*))?\]$/.exec(prompt);

// Adapt: add what your team audits (input.model, the user from
// process.env.USER, a ticket id from the environment …) — never the text.
const line = {
  time: new Date().toISOString(),
  model: input.model,
  blocked: blocked !== null,
  reason: blocked ? blocked[1] || null : null,
  promptChars: blocked ? null : [...prompt].length,
  answerChars: [...answer].length,
  error: input.error || null,
};
fs.appendFileSync(path.join(input.cwd || process.cwd(), 'audit.jsonl'), JSON.stringify(line) + '\n');
