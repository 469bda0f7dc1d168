#!/bin/sh
# preAsk hook (sh + jq): only the agents named on the command line may be
# asked; any other relay is denied before the agent is started.
#
#   command: sh "$MM_CONFIG_DIR/hooks/allow-list.sh" expert reviewer
#
#   in  (stdin):  {"event":"preAsk",…,"ask":{"agent":"intern","via":"tool",…}}
#   out (stdout): nothing (allowed), or {"action":"deny","reason":"…"}
#
# A denied ask_agent call shows "🪝 ask_agent [ask denied by a hook: <reason>]"
# and the model reads "[ask denied by a hook: <reason>]"; /ask fails with
# "ask denied by a hook: <reason>"; mm --ask exits 1.
#
# Try it alone:
#   echo '{"ask":{"agent":"intern","via":"cli"}}' | sh allow-list.sh expert
set -eu
input=$(cat)
agent=$(printf '%s' "$input" | jq -r '.ask.agent')
for allowed in "$@"; do
  if [ "$agent" = "$allowed" ]; then
    exit 0
  fi
done
reason="$agent is not on this agent's allow-list ($*)"
# postAsk does not run for a denied relay, so the relay log gets its line
# from here.
printf '%s' "$input" | jq -c --arg reason "$reason" \
  '{time: (now | todate), agent: .ask.agent, via: .ask.via, withContext: .ask.withContext, denied: $reason}' >> relays.jsonl
jq -nc --arg reason "$reason" '{action: "deny", reason: $reason}'
