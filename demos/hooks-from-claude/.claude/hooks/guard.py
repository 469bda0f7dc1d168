#!/usr/bin/env python3
"""PreToolUse guard for Claude Code: no recursive force deletes, no .env reads.

Reads the hook input on stdin; exits 2 with the reason on stderr to block
the tool call (Claude reads the reason), 0 to let it through.
"""
import json
import re
import sys

# rm with both -r (or -R, --recursive) and -f (or --force), in any order.
RM_RF = re.compile(
    r"\brm\s+(?=(?:\S+\s+)*?(?:-\w*[rR]|--recursive))(?=(?:\S+\s+)*?(?:-\w*f|--force))"
)
# A .env file, or .env.local, .env.production…, but not .env.example.
ENV_FILE = re.compile(r"(^|[\s/'\"=<])\.env(\.(?!example\b)\w+)?($|[\s'\";|&>])")
READERS = re.compile(r"\b(cat|less|more|head|tail|grep|awk|sed|source|cp|base64|xxd)\b|(^|[;&|]\s*)\.\s")


def block(reason):
    print(reason, file=sys.stderr)
    sys.exit(2)


try:
    data = json.load(sys.stdin)
except json.JSONDecodeError as err:
    print(f"guard.py: invalid hook input: {err}", file=sys.stderr)
    sys.exit(1)

tool = data.get("tool_name", "")
args = data.get("tool_input", {})

if tool == "Bash":
    command = args.get("command", "")
    if RM_RF.search(command):
        block("Blocked: rm -rf is not allowed here. Delete the files you mean by name.")
    if ENV_FILE.search(command) and READERS.search(command):
        block("Blocked: .env files hold secrets; read .env.example for the variable names.")
elif tool in ("Read", "Edit", "Write"):
    path = args.get("file_path", "")
    if ENV_FILE.search(path):
        block(f"Blocked: {path.rsplit('/', 1)[-1]} holds secrets; read .env.example for the variable names.")

sys.exit(0)
