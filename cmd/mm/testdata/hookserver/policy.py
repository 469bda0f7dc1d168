# A policy server for the URL hook scripts (hooks_url_*.txtar): it answers
# mm's POSTed hook inputs on 127.0.0.1:<port> over HTTP/1.1 keep-alive and
# appends one JSON line per request to <log> (the path, the client's port —
# one per TCP connection —, the event and the headers the scripts check).
#
#   python3 policy.py <port> <log>
#
# /policy decides like a team's guard: preToolCall denies `rm -rf`, turns
# `git clean -f…` into a dry run and allows the rest; postToolCall adds a
# context; other events get an empty body. The other paths misbehave on
# purpose: /empty, /status/<n>, /slow, /invalid, /redirect, /big.
import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port, log_path = int(sys.argv[1]), sys.argv[2]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: the connection serves many requests
    disable_nagle_algorithm = True  # headers and body are two writes: no 40 ms wait between them

    def log_message(self, *args):
        pass

    def send(self, status, body=b"", headers=()):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # mm gave up on the reply (a timeout, a body too large): expected

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(n)
        try:
            hook = json.loads(raw)
        except ValueError:
            hook = {"unparsed": raw.decode(errors="replace")}
        with open(log_path, "a") as f:
            f.write(json.dumps({
                "path": self.path, "port": self.client_address[1],
                "event": hook.get("event"), "tool": (hook.get("tool") or {}).get("name"),
                "contentType": self.headers.get("Content-Type"),
                "auth": self.headers.get("Authorization"), "team": self.headers.get("X-Team"),
            }) + "\n")
        p = self.path
        if p == "/policy":
            self.send(200, json.dumps(decide(hook)).encode() if decide(hook) else b"")
        elif p == "/empty":
            self.send(200)
        elif p.startswith("/status/"):
            self.send(int(p.split("/")[2]), b"policy store unavailable\n")
        elif p == "/slow":
            time.sleep(5)
            self.send(200)
        elif p == "/invalid":
            self.send(200, b"<html>allowed</html>")
        elif p == "/redirect":
            self.send(307, headers=[("Location", "/policy")])
        elif p == "/big":
            self.send(200, b'{"context":"' + b"x" * (2 << 20) + b'"}')
        else:
            self.send(404, b"no such hook\n")


def decide(hook):
    event = hook.get("event")
    if event == "preToolCall":
        cmd = (hook.get("tool", {}).get("input") or {}).get("command", "")
        if "rm -rf" in cmd:
            return {"action": "deny", "reason": "rm -rf is not allowed by the team policy"}
        if cmd.startswith("git clean -f"):
            return {"input": {"command": "git clean -n" + cmd[len("git clean -f"):]}}
        return {"action": "continue"}
    if event == "postToolCall":
        return {"context": "checked by the team policy"}
    return None


ThreadingHTTPServer.daemon_threads = True
try:
    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
except KeyboardInterrupt:  # the script's end
    pass
