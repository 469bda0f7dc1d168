package model

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// ModelInfo is one model a server has, with what the server says of it.
type ModelInfo struct {
	ID string
	// ContextLength is the model's context length as the server says it
	// (Ollama's model_info "<arch>.context_length", vLLM's max_model_len);
	// 0 when it does not say.
	ContextLength int
	// NumCtx is the context Ollama runs the model with when the model's
	// parameters set it (num_ctx); 0 otherwise (Ollama's default then,
	// or OLLAMA_CONTEXT_LENGTH).
	NumCtx int
	// Tools says whether the model takes tools; nil when the server does
	// not say.
	Tools *bool
}

// Models lists the server's models (GET <base>/models), in the server's
// order. Its errors are *Error, one line like Chat's.
func (c *Client) Models(ctx context.Context) ([]ModelInfo, error) {
	base, err := c.base()
	if err != nil {
		return nil, err
	}
	data, err := c.get(ctx, base, http.MethodGet, base+"/models", nil)
	if err != nil {
		return nil, err
	}
	var list struct {
		Data []struct {
			ID          string `json:"id"`
			MaxModelLen int    `json:"max_model_len"` // vLLM
		} `json:"data"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, newError(0, "model server at "+base+" sent a model list that is not JSON ("+jsonReason(err)+")")
	}
	out := make([]ModelInfo, 0, len(list.Data))
	for _, m := range list.Data {
		out = append(out, ModelInfo{ID: m.ID, ContextLength: m.MaxModelLen})
	}
	return out, nil
}

// OllamaShow adds to m what Ollama's own API says of it (POST
// <host>/api/show, beside the /v1 endpoint): the context length of its
// metadata, the num_ctx of its parameters, and whether its template takes
// tools (the "tools" capability).
func (c *Client) OllamaShow(ctx context.Context, m *ModelInfo) error {
	base, err := c.base()
	if err != nil {
		return err
	}
	root := strings.TrimSuffix(base, "/v1")
	body, _ := json.Marshal(map[string]string{"model": m.ID})
	data, err := c.get(ctx, base, http.MethodPost, root+"/api/show", body)
	if err != nil {
		return err
	}
	var show struct {
		Parameters   string                     `json:"parameters"`
		ModelInfo    map[string]json.RawMessage `json:"model_info"`
		Capabilities []string                   `json:"capabilities"`
	}
	if err := json.Unmarshal(data, &show); err != nil {
		return newError(0, "model server at "+root+" sent a model description that is not JSON ("+jsonReason(err)+")")
	}
	var arch string
	json.Unmarshal(show.ModelInfo["general.architecture"], &arch)
	var n int
	if json.Unmarshal(show.ModelInfo[arch+".context_length"], &n) == nil && n > 0 {
		m.ContextLength = n
	}
	// parameters is the Modelfile's PARAMETER lines: "num_ctx    8192".
	for _, line := range strings.Split(show.Parameters, "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "num_ctx" {
			if v, err := strconv.Atoi(f[1]); err == nil && v > 0 {
				m.NumCtx = v
			}
		}
	}
	if show.Capabilities != nil {
		tools := slices.Contains(show.Capabilities, "tools")
		m.Tools = &tools
	}
	return nil
}

// base is the checked base URL without its trailing slash.
func (c *Client) base() (string, error) {
	base := strings.TrimRight(c.BaseURL, "/")
	if u, err := url.Parse(base); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", newError(0, "invalid model server URL "+strconv.Quote(c.BaseURL)+": it must look like http://host:port/v1")
	}
	return base, nil
}

// get makes one request of the server's other endpoints and returns the
// body of a 2xx answer (at most 8 MiB).
func (c *Client) get(ctx context.Context, base, method, u string, body []byte) ([]byte, error) {
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	idle := newIdleWatch(c.IdleTimeout, cancel)
	defer idle.stop()
	resp, err := c.do(ctx, rctx, idle, base, method, u, body, "application/json")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(idle.reader(resp.Body), 8<<20))
	if err != nil {
		if idle.fired() {
			return nil, c.idleError(base, "the server stopped sending")
		}
		return nil, kindError(ErrCut, 0, "model server at "+base+": "+shortCause(err), shortCause(err))
	}
	if resp.StatusCode >= 300 {
		msg := "model server at " + base + " answered " + strconv.Itoa(resp.StatusCode)
		if t := http.StatusText(resp.StatusCode); t != "" {
			msg += " " + t
		}
		msg += " to " + method + " " + strings.TrimPrefix(u, strings.TrimSuffix(base, "/v1"))
		if m := bodyMessage(data); m != "" {
			msg += ": " + m
		}
		msg += c.keyHint(resp.StatusCode)
		return nil, kindError(ErrStatus, resp.StatusCode, msg, "")
	}
	return data, nil
}
