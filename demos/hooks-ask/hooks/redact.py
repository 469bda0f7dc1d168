#!/usr/bin/env python3
"""preAsk hook: strip secrets and private paths from what leaves this agent.

The asked agent may run on another model, on another machine: before a
question (and, with withContext, the conversation) is sent to it, replace

  * secrets (API keys, AWS keys, GitHub and Slack tokens, private key blocks,
    password=… values) with "[redacted <kind>]",
  * paths into credential folders (~/.ssh, ~/.aws, ~/.gnupg, ~/.kube,
    ~/.docker, ~/.netrc, ~/.config/gh), under any home, with "[private path]",
  * the user's name in other home paths: /home/alice/src/app → ~/src/app,

and tell the asked agent what was removed (a context) so it does not ask.

  in  (stdin):  {"event":"preAsk",…,"ask":{"agent":"expert","prompt":"…",
                 "withContext":true,"transcript":"…"}}
  out (stdout): nothing when there was nothing to strip, else
                {"prompt":"…","transcript":"…","context":"…"} (only the
                fields that changed, and the context)

Try it alone:
  echo '{"ask":{"prompt":"why does /home/alice/.ssh/id_rsa fail?"}}' | python3 redact.py
"""
import json
import re
import sys
from collections import Counter

# Adapt: the same kinds of secret as your preGeneration guard, plus your own.
SECRETS = [
    ("API key", re.compile(r"\bsk-[A-Za-z0-9][A-Za-z0-9_-]{19,}")),
    ("AWS access key", re.compile(r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b")),
    ("GitHub token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})")),
    ("Slack token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    ("private key", re.compile(
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)",
        re.S)),
]
# password=…, password: … — the name stays, the value goes.
PASSWORD = re.compile(r"(?i)\b((?:password|passwd|pwd)\s*[:=]\s*)(?!\[redacted)\S+")

# Adapt: folders whose paths alone say too much.
PRIVATE = r"/(?:\.ssh|\.aws|\.gnupg|\.kube|\.docker|\.netrc|\.config/gh)(?=/|$)"
# A path: up to a space, a quote or a bracket, and not ending on punctuation.
REST = r"(/[^\s'\"`<>()\[\],;]*[^\s'\"`<>()\[\],;.?!:])?"
HOME_PATH = re.compile(r"(?:/home|/Users)/[^/\s'\"`<>()\[\],;]+" + REST)
TILDE_PATH = re.compile(r"~" + REST)


def clean(text, removed):
    for kind, pattern in SECRETS:
        text, n = pattern.subn("[redacted " + kind + "]", text)
        removed[kind] += n
    text, n = PASSWORD.subn(lambda m: m.group(1) + "[redacted password]", text)
    removed["password"] += n

    def home(m):
        rest = m.group(1) or ""
        if re.match(PRIVATE, rest):
            removed["private path"] += 1
            return "[private path]"
        removed["user name"] += 1
        return "~" + rest

    def tilde(m):
        if re.match(PRIVATE, m.group(1) or ""):
            removed["private path"] += 1
            return "[private path]"
        return m.group(0)

    text = HOME_PATH.sub(home, text)  # /home/alice/src → ~/src, /home/alice/.ssh/x → [private path]
    return TILDE_PATH.sub(tilde, text)  # ~/.ssh/x → [private path]


def main():
    ask = json.load(sys.stdin).get("ask", {})
    removed = Counter()
    reply = {}
    prompt = ask.get("prompt", "")
    cleaned = clean(prompt, removed)
    if cleaned != prompt:
        reply["prompt"] = cleaned
    if "transcript" in ask:
        transcript = ask["transcript"]
        cleaned = clean(transcript, removed)
        if cleaned != transcript:
            reply["transcript"] = cleaned
    if not reply:
        return  # nothing printed: the relay goes on unchanged
    order = [kind for kind, _ in SECRETS] + ["password", "private path", "user name"]
    what = ", ".join(f"{removed[k]} {k}{'s' if removed[k] > 1 else ''}" for k in order if removed[k])
    reply["context"] = (
        f"Before this reached you, a hook removed: {what}. They appear as [redacted …], "
        "[private path] or ~. Do not ask for them: answer with what is left."
    )
    json.dump(reply, sys.stdout)
    print()


main()
