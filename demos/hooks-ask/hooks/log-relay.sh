#!/bin/sh
# postAsk hook (sh + jq): one JSON line per relay in relays.jsonl, in the
# session's folder (this hook's cwd): which agent, which way (via: tool,
# command or cli), with the conversation or not, how long it took, how long
# the answer was, and the error if it failed. Never the question or the
# answer themselves.
#
#   in  (stdin):  {"event":"postAsk",…,"ask":{"agent":"expert","via":"tool",…},
#                  "answer":"…","durationMs":1234,"error":"…"}
#   out (stdout): nothing — it only observes.
#
# It runs first among the postAsk hooks, so it logs the answer as the asked
# agent gave it (a later hook may replace it). Denied relays never reach
# postAsk: allow-list.sh logs those.
jq -c '{time: (now | todate), agent: .ask.agent, via: .ask.via, withContext: .ask.withContext,
        durationMs, answerChars: ((.answer // "") | length), error: (.error // null)}' >> relays.jsonl
