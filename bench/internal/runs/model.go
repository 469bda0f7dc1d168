package runs

import (
	"io"
	"net/http"
	"strings"

	"github.com/mm-agent/mm/internal/mockmodel"
)

// Model is the scripted model the start-up benchmarks run mm against: it
// answers "ok" at once, so that what is timed is mm.
type Model struct {
	*mockmodel.Server
	Base string // its base URL
}

// StartModel starts it on loopback; Close stops it.
func StartModel() (*Model, error) {
	script, err := mockmodel.ParseScript([]byte("replies:\n  - repeat: true\n    text: ok\n"))
	if err != nil {
		return nil, err
	}
	srv := mockmodel.New(script, "")
	base, err := srv.Start("127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	return &Model{Server: srv, Base: base}, nil
}

// Chat is one request like an asked agent's one-shot turn makes: the
// model's round trip, which the benchmarks take off what they time.
func (m *Model) Chat() error {
	body := `{"model":"expert","stream":true,"messages":[{"role":"user","content":"hello"}]}`
	resp, err := http.Post(m.Base+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return err
}
