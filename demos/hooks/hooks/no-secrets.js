#!/usr/bin/env node
// preGeneration guard: stop a prompt that carries a secret before any model
// reads it.
//
// mm runs it before the first model call of every turn:
//   in  (stdin):  {"event":"preGeneration","cwd":"…","model":"…","prompt":"…"}
//   out (stdout): nothing — the prompt goes on unchanged — or
//                 {"action":"stop","reason":"…","response":"…"}
//
// On "stop" the model is not called at all; the user reads the response;
// the history keeps only the marker "[prompt blocked by a hook: <reason>]",
// and the postGeneration hooks read that marker instead of the prompt. The
// reason therefore names the KIND of secret, never the secret itself.
//
// Configured with onError: fail, so a crash of this script (or a timeout)
// stops the turn too: a guard that cannot run must not let the prompt out.
//
// Try it alone:
//   echo '{"prompt":"my key is sk-demo-0123456789abcdefghijklmn"}' | node no-secrets.js
'use strict';
const fs = require('fs');

// Adapt: one rule per kind of secret your team handles. `kind` is what the
// user and the audit log read; `re` finds it. The rules err on the side of
// stopping: a harmless prompt stopped costs a retype, a key sent costs a
// rotation.
const RULES = [
  { kind: 'an API key (sk-…)', re: /\bsk-[A-Za-z0-9][A-Za-z0-9_-]{19,}/ },
  { kind: 'an AWS access key (AKIA…)', re: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/ },
  { kind: 'a GitHub token (ghp_…)', re: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})/ },
  { kind: 'a Slack token (xox…)', re: /\bxox[abposr]-[A-Za-z0-9-]{10,}/ },
  { kind: 'a private key block', re: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/ },
  { kind: 'a password (password=…)', re: /\b(?:password|passwd|pwd)\s*[:=]\s*\S+/i },
];

const input = JSON.parse(fs.readFileSync(0, 'utf8'));
const prompt = typeof input.prompt === 'string' ? input.prompt : '';

const found = RULES.filter((r) => r.re.test(prompt)).map((r) => r.kind);
if (found.length > 0) {
  const kinds = found.join(' and ');
  process.stdout.write(JSON.stringify({
    action: 'stop',
    reason: `prompt contains ${kinds}`,
    response: `⛔ Not sent: your prompt contains ${kinds}. No model has read it. ` +
      'Keep secrets in environment variables or files and refer to them by name.',
  }) + '\n');
}
// Nothing printed: the turn goes on with the prompt as typed.
