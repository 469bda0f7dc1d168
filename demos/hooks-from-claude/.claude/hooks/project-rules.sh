#!/bin/sh
# UserPromptSubmit: whatever this prints is added to the prompt as context.
cat <<'RULES'
Project rules: build output lives in build/ and is recreated by `make`;
secrets live in .env, which is never read or printed.
RULES
