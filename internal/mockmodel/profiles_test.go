package mockmodel

import (
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of the profiles")

// TestProfileGolden pins each profile's bytes — stream, whole reply, error
// body, with their statuses and content types — against golden files read
// next to the servers' source (profiles.go names the files), so a change in
// what a profile writes is a reviewed change. The one varying field,
// "created", is written as 0.
func TestProfileGolden(t *testing.T) {
	script := `
replies:
  - match: '^stream$'
    reasoning: "Think <first> & \"then\" answer."
    text: "Héllo <b>world</b>.\n"
    toolCalls: [{name: bash, args: {command: "ls -la"}}, {name: read, args: {path: go.mod}}]
    repeat: true
  - match: '^tags$'
    reasoning: "In tags."
    thinkTags: true
    text: "Tagged."
    repeat: true
  - match: '^missing$'
    serverError: modelNotFound
    repeat: true
  - match: '^long$'
    serverError: contextExceeded
    promptTokens: 9412
    repeat: true
  - match: '^died$'
    text: "This reply dies in its middle."
    cut: true
    repeat: true
  - match: ''
    text: "Answered."
    repeat: true
models:
  - {id: qwen3:8b, contextLength: 40960, arch: qwen3}
  - {id: tiny, contextLength: 2048, window: 64, noTools: true}
`
	created := regexp.MustCompile(`"created": ?\d+`)
	modified := regexp.MustCompile(`"modified_at":"[^"]+"`)
	for _, name := range ProfileNames() {
		t.Run(name, func(t *testing.T) {
			s, err := ParseScript([]byte(script))
			if err != nil {
				t.Fatal(err)
			}
			srv := New(s, "")
			srv.SetProfile(name)
			base, err := srv.Start("")
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			var out strings.Builder
			long := strings.Repeat("many words ", 40)
			for _, req := range []struct{ prompt, extra string }{
				{"stream", `"stream":true,"stream_options":{"include_usage":true}`},
				{"stream", `"stream":false`},
				{"tags", `"stream":true`},
				{"missing", `"stream":true`},
				{"long", `"stream":true`},
				{"died", `"stream":true`},
				{"GET /v1/models", ""},
				{"POST /api/show qwen3:8b", ""},
				{"POST /api/show tiny", ""},
				{"POST /api/show absent", ""},
				{"tools", `"model":"tiny","stream":true,"tools":[{"type":"function","function":{"name":"bash","parameters":{}}}]`},
				{long, `"model":"tiny","stream":true,"stream_options":{"include_usage":true}`},
				{"refused", `"messages":[],"stream":true`},
			} {
				var resp *http.Response
				var err error
				switch {
				case req.prompt == "GET /v1/models":
					resp, err = http.Get(base + "/models")
				case strings.HasPrefix(req.prompt, "POST /api/show "):
					name := strings.TrimPrefix(req.prompt, "POST /api/show ")
					resp, err = http.Post(strings.TrimSuffix(base, "/v1")+"/api/show", "application/json", strings.NewReader(`{"model":"`+name+`"}`))
				default:
					body := `{"model":"qwen3:8b","messages":[{"role":"user","content":"` + req.prompt + `"}],` + req.extra + `}`
					// (the extra fields come last: Go's decoder keeps a key's last value)
					resp, err = http.Post(base+"/chat/completions", "application/json", strings.NewReader(body))
				}
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				label := req.prompt
				if len(label) > 20 {
					label = label[:20] + "…"
				}
				out.WriteString("### " + label + " " + req.extra + "\n" + resp.Status + "\nContent-Type: " +
					resp.Header.Get("Content-Type") + "\n\n" + modified.ReplaceAllString(created.ReplaceAllString(string(b), `"created":0`), `"modified_at":"0"`) + "\n")
			}
			golden := filepath.Join("testdata", "profiles", name+".txt")
			if *update {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				if err := os.WriteFile(golden, []byte(out.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test ./internal/mockmodel -run TestProfileGolden -update writes it)", err)
			}
			if out.String() != string(want) {
				t.Errorf("%s differs from what the profile writes now:\n%s", golden, out.String())
			}
		})
	}
}
