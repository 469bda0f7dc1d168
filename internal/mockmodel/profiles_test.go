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
    toolCalls: [{name: bash, args: {command: "ls -la"}}]
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
`
	created := regexp.MustCompile(`"created": ?\d+`)
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
			for _, req := range []struct{ prompt, extra string }{
				{"stream", `"stream":true,"stream_options":{"include_usage":true}`},
				{"stream", `"stream":false`},
				{"tags", `"stream":true`},
				{"missing", `"stream":true`},
				{"long", `"stream":true`},
			} {
				body := `{"model":"qwen3:8b","messages":[{"role":"user","content":"` + req.prompt + `"}],` + req.extra + `}`
				resp, err := http.Post(base+"/chat/completions", "application/json", strings.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				out.WriteString("### " + req.prompt + " " + req.extra + "\n" + resp.Status + "\nContent-Type: " +
					resp.Header.Get("Content-Type") + "\n\n" + created.ReplaceAllString(string(b), `"created":0`) + "\n")
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
