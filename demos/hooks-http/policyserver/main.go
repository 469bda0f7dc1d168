// Command policyserver is the hooks-http demo's policy server: one place
// that guards every agent of a team. Each agent's config names it as a
// URL hook; mm POSTs the hook's input as JSON, and the server answers
// with the reply a command hook would print.
//
// It denies a bash command that runs `rm -rf` (or `rm -fr`, `rm -r -f`)
// and lets everything else through; it logs every call, one JSON line on
// stdout: the time, the event, the tool and the command, the decision.
// With POLICY_TOKEN set, a request without `Authorization: Bearer
// <token>` gets 401 (and a hook with onError: fail blocks its call).
//
//	go run ./demos/hooks-http/policyserver [-addr 127.0.0.1:7700]
package main

import (
	"crypto/subtle"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"regexp"
	"sync"
	"time"
)

// input is the part of mm's hook input the policy reads.
type input struct {
	Event string `json:"event"`
	Cwd   string `json:"cwd"`
	Tool  *struct {
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	} `json:"tool"`
}

// reply is mm's hook reply: empty means no decision.
type reply struct {
	Action string `json:"action,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// logEntry is one line of the server's log.
type logEntry struct {
	Time     string `json:"time"`
	Event    string `json:"event"`
	Tool     string `json:"tool,omitempty"`
	Command  string `json:"command,omitempty"`
	Decision string `json:"decision"`
}

// rmRF finds rm with both -r (or -R, --recursive) and -f among its flags.
var rmRF = regexp.MustCompile(`(^|[;&|(\s])rm\s+(-[a-zA-Z]*[rR][a-zA-Z]*f|-[a-zA-Z]*f[a-zA-Z]*[rR]|(-\S+\s+)*-[rR]\S*\s+(-\S+\s+)*-f|(-\S+\s+)*-f\S*\s+(-\S+\s+)*-[rR])`)

// decide is the team's policy.
func decide(in input) reply {
	if in.Event != "preToolCall" || in.Tool == nil || in.Tool.Name != "bash" {
		return reply{}
	}
	var args struct {
		Command string `json:"command"`
	}
	json.Unmarshal(in.Tool.Input, &args)
	if rmRF.MatchString(args.Command) {
		return reply{Action: "deny", Reason: "rm -rf is not allowed by the team policy; remove files by name"}
	}
	return reply{}
}

func main() {
	addr := flag.String("addr", "127.0.0.1:7700", "address to listen on")
	flag.Parse()
	token := os.Getenv("POLICY_TOKEN")
	var mu sync.Mutex
	logLine := json.NewEncoder(os.Stdout)
	logLine.SetEscapeHTML(false)
	http.HandleFunc("POST /hooks", func(w http.ResponseWriter, r *http.Request) {
		if token != "" && subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), []byte("Bearer "+token)) != 1 {
			http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
			return
		}
		var in input
		if err := json.NewDecoder(io.LimitReader(r.Body, 8<<20)).Decode(&in); err != nil {
			http.Error(w, "the body is not a hook input: "+err.Error(), http.StatusBadRequest)
			return
		}
		rep := decide(in)
		entry := logEntry{Time: time.Now().UTC().Format(time.RFC3339Nano), Event: in.Event, Decision: "continue"}
		if in.Tool != nil {
			entry.Tool = in.Tool.Name
			var args struct {
				Command string `json:"command"`
			}
			json.Unmarshal(in.Tool.Input, &args)
			entry.Command = args.Command
		}
		if rep.Action != "" {
			entry.Decision = rep.Action
		}
		mu.Lock()
		logLine.Encode(entry)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if rep == (reply{}) {
			return // 200 with an empty body: no decision
		}
		json.NewEncoder(w).Encode(rep)
	})
	fmt.Fprintf(os.Stderr, "policy server on http://%s/hooks\n", *addr)
	log.Fatal(http.ListenAndServe(*addr, nil))
}
