#!/usr/bin/env node
// postToolCall hook: after a tool's output, tell the model how to read it.
//
// mm runs it after every tool call that ran (no matcher: all tools):
//   in  (stdin):  {"event":"postToolCall","cwd":"…","model":"…",
//                  "tool":{"id":"…","name":"bash","input":{…}},"output":"…"}
//   out (stdout): nothing, or {"context":"…"}
//
// The context is added after the output the model reads, introduced by the
// line "[context added by a hook]"; the user's display does not change.
//
// Try it alone:
//   echo '{"tool":{"name":"bash"},"output":"ls: cannot access x\n[exit status 2]"}' | node explain.js
'use strict';
const fs = require('fs');

// Adapt: the size from which an output is "large" (in characters). Small
// local models lose the thread in long outputs; asking for a summary keeps
// the answer useful.
const LARGE = 4000;

const input = JSON.parse(fs.readFileSync(0, 'utf8'));
const output = typeof input.output === 'string' ? input.output : '';
const notes = [];

// bash ends its output with "[exit status N]", or "[killed by signal S]".
const exit = /\[exit status (\d+)\]\s*$/.exec(output);
if (exit && exit[1] !== '0') {
  notes.push(`The command failed (exit status ${exit[1]}). Read the error message above and fix its cause ` +
    'before you retry; do not run the same command again unchanged.');
}
const killed = /\[killed by signal (\S+)\]\s*$/.exec(output);
if (killed) {
  notes.push(`The command was killed by ${killed[1]}, probably for taking too long or using too much memory. ` +
    'Try a smaller or bounded version of it.');
}

const chars = [...output].length;
if (chars > LARGE) {
  notes.push(`This output is long (${chars} characters). Do not repeat it: summarise what matters for the ` +
    "user's question in a few lines and quote only the lines you need.");
}

if (notes.length > 0) process.stdout.write(JSON.stringify({ context: notes.join('\n') }) + '\n');
