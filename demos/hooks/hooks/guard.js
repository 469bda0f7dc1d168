#!/usr/bin/env node
// preToolCall guard for bash, write_file and edit_file
// (matcher: ^(bash|write_file|edit_file)$).
//
// mm runs it before every matching tool call, before consent, so it holds
// even with yolo: true:
//   in  (stdin):  {"event":"preToolCall","cwd":"…","model":"…",
//                  "tool":{"id":"…","name":"bash","input":{"command":"…"}}}
//   out (stdout): nothing — the call runs as the model wrote it —,
//                 {"action":"deny","reason":"…"} — the call does not run;
//                   the model reads "[denied by a hook: <reason>]" and the
//                   user sees "🪝 bash [denied by a hook: <reason>]" —, or
//                 {"input":{…}} — the call runs with these arguments instead
//                   (the tool line shows them; the history keeps the model's).
//
// Configured with onError: fail: if this script crashes or times out, the
// call is denied ("hook failed: …"), never let through.
//
// Try it alone:
//   echo '{"cwd":"/tmp","tool":{"name":"bash","input":{"command":"git clean -fd"}}}' | node guard.js
'use strict';
const fs = require('fs');
const path = require('path');

const input = JSON.parse(fs.readFileSync(0, 'utf8'));
const tool = input.tool || {};
const cwd = input.cwd || process.cwd();

// A small model sometimes sends its arguments as a JSON string holding the
// JSON object; mm's tools accept that, so the guard must read it too, or it
// could be walked around.
let args = tool.input;
if (typeof args === 'string') {
  try { args = JSON.parse(args); } catch { args = {}; }
}
if (!args || typeof args !== 'object') args = {};

function reply(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
  process.exit(0);
}

if (tool.name === 'bash' && typeof args.command === 'string') {
  const why = destructive(args.command);
  if (why) reply({ action: 'deny', reason: why });
  const safer = rewrite(args.command);
  if (safer !== args.command) reply({ input: { ...args, command: safer } });
} else if ((tool.name === 'write_file' || tool.name === 'edit_file') && typeof args.path === 'string') {
  const why = badPath(args.path);
  if (why) reply({ action: 'deny', reason: why });
}
// Nothing printed: the call runs unchanged.

// ---------------------------------------------------------------------------
// Deny: commands that destroy what cannot be rebuilt. Adapt: add a rule per
// command your team never wants an agent to run (kubectl delete, terraform
// destroy, DROP TABLE through psql …). Each returns the reason the model and
// the user read, or "".

function destructive(command) {
  for (const words of simpleCommands(command)) {
    const [name, ...rest] = words;
    if (name === 'rm' && isRecursive(rest)) {
      const target = rest.find((w) => !w.startsWith('-') && isPrecious(w));
      if (target) return `rm -r on ${target} would delete ${describe(target)}`;
      if (rest.includes('--no-preserve-root')) return 'rm --no-preserve-root is never needed';
    }
    if (name === 'mkfs' || name.startsWith('mkfs.')) return `${name} formats a disk`;
    if (name === 'dd' && rest.some((w) => /^of=\/dev\//.test(w))) return 'dd of=/dev/… overwrites a disk';
    if (name === 'git' && rest.includes('push')) {
      const flags = rest.slice(rest.indexOf('push') + 1);
      if (flags.some((w) => w === '--force' || /^-[a-zA-Z]*f[a-zA-Z]*$/.test(w) || /^\+/.test(w))) {
        return 'git push --force rewrites shared history; push a new commit (or use --force-with-lease on your own branch)';
      }
    }
  }
  if (/>\s*\/dev\/(?:sd|hd|vd|xvd|nvme|mmcblk|disk)/.test(command)) return 'writing to a disk device destroys its data';
  return '';
}

// The system's root, a top-level system directory, or a home directory.
function isPrecious(word) {
  const w = word.replace(/\/+$/, '') || '/';
  return /^(?:\/|\/\*|~|~\/\*|\$HOME|\$\{HOME\}|\$HOME\/\*|\$\{HOME\}\/\*)$/.test(w) ||
    /^\/(?:bin|boot|dev|etc|home|lib|lib64|opt|proc|root|sbin|srv|sys|usr|var)(?:\/\*)?$/.test(w) ||
    /^\/home\/[^/]+$/.test(w);
}

function describe(target) {
  if (/^\/\*?$/.test(target)) return 'the whole machine';
  if (/^(?:~|\$\{?HOME\}?)/.test(target)) return 'your home directory';
  if (/^\/home\/?(?:\*)?$/.test(target)) return 'every home directory';
  if (target.startsWith('/home/')) return 'a home directory';
  return 'a system directory';
}

function isRecursive(words) {
  return words.some((w) => w === '--recursive' || /^-[a-zA-Z]*[rR][a-zA-Z]*$/.test(w));
}

// The simple commands of a command line, each as its words (quotes
// removed), with sudo, env assignments and the like skipped. Not a shell
// parser: enough to see the command a word like "rm" starts.
function simpleCommands(command) {
  return command
    .split(/&&|\|\||[;|&\n()`]|\$\(/)
    .map((part) => part.trim().split(/\s+/).map((w) => w.replace(/^["']|["']$/g, '')).filter(Boolean))
    .map((words) => {
      while (words.length > 0 && (/^(?:sudo|env|command|exec|nohup|time|nice|xargs)$/.test(words[0]) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]) || (words[0].startsWith('-') && words.length > 1))) {
        words = words.slice(1);
      }
      return words;
    })
    .filter((words) => words.length > 0);
}

// ---------------------------------------------------------------------------
// Rewrite: commands worth running, but as a dry run first. The model reads
// the dry run's own words ("Would remove …", "(DRY RUN)") and can tell the
// user what would happen; the user runs the real thing. Adapt: add a
// rewrite per command with a preview mode (terraform apply → plan,
// kubectl apply → --dry-run=server …).

function rewrite(command) {
  return command
    // git clean -fd → git clean -nd: list what would be removed.
    .replace(/\bgit((?:\s+-C\s+\S+)?\s+clean)\b([^;&|\n]*)/g, (all, verb, rest) => {
      if (/(?:^|\s)(?:--dry-run|-[a-zA-Z]*n[a-zA-Z]*)(?=\s|$)/.test(rest)) return all;
      const dry = rest
        .replace(/(^|\s)--force(?=\s|$)/g, '$1--dry-run')
        .replace(/(^|\s)-([a-zA-Z]*f[a-zA-Z]*)(?=\s|$)/g, (m, sp, cluster) => sp + '-' + unique(cluster.replace(/f/g, 'n')));
      return 'git' + verb + dry;
    })
    // rsync --delete … → rsync --dry-run --delete …: list what would go.
    .replace(/\brsync\b([^;&|\n]*)/g, (all, rest) => {
      if (!/(?:^|\s)--del(?:ete[a-z-]*)?(?=[\s=]|$)/.test(rest)) return all;
      if (/(?:^|\s)(?:--dry-run|-[a-zA-Z]*n[a-zA-Z]*)(?=\s|$)/.test(rest)) return all;
      return 'rsync --dry-run' + rest;
    });
}

function unique(chars) {
  return [...new Set(chars)].join('');
}

// ---------------------------------------------------------------------------
// Paths: write_file and edit_file stay inside the session's folder (the
// folder mm runs in), and out of .git/, where a written file can become a
// git hook that runs on the next commit. Adapt: add folders the agent must
// not touch (vendor/, migrations/ already applied, .github/workflows/ …).

function badPath(p) {
  const abs = path.resolve(cwd, p);
  const root = real(cwd);
  const rel = path.relative(root, real(abs));
  if (rel === '..' || rel.startsWith('..' + path.sep) || path.isAbsolute(rel)) {
    return `${p} is outside the session folder`;
  }
  if (rel.split(path.sep).includes('.git')) {
    return `${p} is inside .git/, where a written file can run on the next git command`;
  }
  return '';
}

// The real path of p, following symbolic links through its longest existing
// prefix, so a link in the project cannot lead a write out of it.
function real(p) {
  const rest = [];
  for (;;) {
    try {
      return path.join(fs.realpathSync(p), ...rest);
    } catch {
      const parent = path.dirname(p);
      if (parent === p) return path.join(p, ...rest);
      rest.unshift(path.basename(p));
      p = parent;
    }
  }
}
