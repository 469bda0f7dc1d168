package config

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Provider is one OpenAI-compatible endpoint a model reference can name.
type Provider struct {
	BaseURL   string // ".../v1"
	APIKeyEnv string // the variable holding the API key, "" for none
	Stream    *bool  // nil: stream (the default)
	// IdleTimeout is the longest wait for the next byte of a reply; nil:
	// DefaultIdleTimeout.
	IdleTimeout *time.Duration
	// Hint says what to start when the server cannot be reached.
	Hint string
}

// DefaultIdleTimeout is the contract's default idleTimeout: long enough for
// a local model to load and read a long prompt, short enough that a server
// that hangs does not hold a turn for ever.
const DefaultIdleTimeout = 5 * time.Minute

// Endpoint is a resolved model reference: where to send requests and how.
type Endpoint struct {
	Provider string
	Model    string // the model name, everything after the first "/"
	BaseURL  string
	APIKey   string
	// APIKeyEnv is the variable the key comes from; APIKeyMissing says it
	// is not set (the start-up warning names it).
	APIKeyEnv     string
	APIKeyMissing bool
	Stream        bool
	IdleTimeout   time.Duration // 0: no limit
	Hint          string
}

// builtinProviders are the contract's providers; hosts from LLMMAN_HOST and
// OLLAMA_HOST are honoured as their own clients do.
func builtinProviders() map[string]Provider {
	return map[string]Provider{
		"llmman": {
			BaseURL: hostURL(os.Getenv("LLMMAN_HOST"), "127.0.0.1:17434"),
			Hint:    "start llmman, or set LLMMAN_HOST to where it listens",
		},
		"ollama": {
			BaseURL: hostURL(os.Getenv("OLLAMA_HOST"), "127.0.0.1:11434"),
			Hint:    "start Ollama (ollama serve), or set OLLAMA_HOST to where it listens",
		},
		"llamacpp": {
			BaseURL: "http://127.0.0.1:8080/v1",
			Hint:    "start llama.cpp's server (llama-server -m <model.gguf> --jinja)",
		},
		"openai": {
			BaseURL:   "https://api.openai.com/v1",
			APIKeyEnv: "OPENAI_API_KEY",
			Hint:      "check the network connection",
		},
	}
}

// hostURL turns a host setting ("host", "host:port", "http://host:port")
// into a base URL ending in /v1.
func hostURL(host, def string) string {
	host = strings.TrimSpace(host)
	if host == "" {
		host = def
	}
	scheme := "http://"
	if i := strings.Index(host, "://"); i >= 0 {
		scheme, host = host[:i+3], host[i+3:]
	}
	host = strings.TrimRight(host, "/")
	path := ""
	if i := strings.Index(host, "/"); i >= 0 {
		host, path = host[:i], host[i:]
	}
	if _, _, err := net.SplitHostPort(host); err != nil {
		_, port, _ := net.SplitHostPort(def)
		host = net.JoinHostPort(strings.Trim(host, "[]"), port)
	}
	if path == "" {
		path = "/v1"
	}
	return scheme + host + path
}

var providerKeys = []string{"baseURL", "apiKeyEnv", "stream", "idleTimeout"}

// parseProviders reads providers:. A provider named like a built-in one
// without a baseURL changes that one (its address stays): that is how
// `providers: {ollama: {idleTimeout: 10m}}` gives Ollama a longer wait.
func (c *Config) parseProviders(v *yaml.Node) error {
	c.Providers = map[string]Provider{}
	builtin := builtinProviders()
	return eachKey(v, "providers: ", nil, func(name string, pv *yaml.Node) error {
		var p Provider
		prefix := "providers." + name
		err := eachKey(pv, prefix+": ", providerKeys, func(key string, kv *yaml.Node) error {
			switch key {
			case "baseURL":
				return decode(kv, prefix+".baseURL", &p.BaseURL)
			case "apiKeyEnv":
				return decode(kv, prefix+".apiKeyEnv", &p.APIKeyEnv)
			case "stream":
				var b bool
				if err := decode(kv, prefix+".stream", &b); err != nil {
					return err
				}
				p.Stream = &b
			case "idleTimeout":
				var s string
				if err := decode(kv, prefix+".idleTimeout", &s); err != nil {
					return err
				}
				d, err := parseIdle(s)
				if err != nil {
					return fmt.Errorf("%s.idleTimeout: line %d: %v", prefix, kv.Line, err)
				}
				p.IdleTimeout = &d
			}
			return nil
		})
		if err != nil {
			return err
		}
		if b, ok := builtin[name]; ok && p.BaseURL == "" {
			b.IdleTimeout = p.IdleTimeout
			if p.APIKeyEnv != "" {
				b.APIKeyEnv = p.APIKeyEnv
			}
			if p.Stream != nil {
				b.Stream = p.Stream
			}
			c.Providers[name] = b
			return nil
		}
		if p.BaseURL == "" {
			return fmt.Errorf("%s: baseURL is required", prefix)
		}
		if err := httpURL(prefix+".baseURL", p.BaseURL); err != nil {
			return err
		}
		p.BaseURL = strings.TrimRight(p.BaseURL, "/")
		p.Hint = fmt.Sprintf("start the server of provider %q, or fix providers.%s.baseURL", name, name)
		c.Providers[name] = p
		return nil
	})
}

// parseIdle reads an idleTimeout: a Go duration ("5m", "90s"), or 0 for
// no limit.
func parseIdle(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "0" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return 0, fmt.Errorf("%q is not a duration (write e.g. 5m, 90s, or 0 for no limit)", s)
	case d < 0:
		return 0, fmt.Errorf("%q must not be negative", s)
	}
	return d, nil
}

// Resolve turns a model reference ("<provider>/<model>") into an endpoint,
// using the config's providers on top of the built-in ones.
func (c *Config) Resolve(ref string) (Endpoint, error) {
	prov, name, ok := strings.Cut(ref, "/")
	if !ok || prov == "" || name == "" {
		return Endpoint{}, fmt.Errorf("model: want <provider>/<model>, got %q", ref)
	}
	all := builtinProviders()
	for n, p := range c.Providers {
		all[n] = p
	}
	p, ok := all[prov]
	if !ok {
		names := make([]string, 0, len(all))
		for n := range all {
			names = append(names, n)
		}
		sort.Strings(names)
		return Endpoint{}, fmt.Errorf("model: unknown provider %q (want one of %s, or add it under providers:)", prov, strings.Join(names, ", "))
	}
	e := Endpoint{Provider: prov, Model: name, BaseURL: p.BaseURL, Stream: p.Stream == nil || *p.Stream, Hint: p.Hint,
		IdleTimeout: DefaultIdleTimeout, APIKeyEnv: p.APIKeyEnv}
	if p.IdleTimeout != nil {
		e.IdleTimeout = *p.IdleTimeout
	}
	if p.APIKeyEnv != "" {
		key, ok := os.LookupEnv(p.APIKeyEnv)
		e.APIKey, e.APIKeyMissing = key, !ok || key == ""
	}
	return e, nil
}

// httpURL checks the value of key is an http:// or https:// URL.
func httpURL(key, value string) error {
	if u, err := url.Parse(value); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%s: want an http:// or https:// URL, got %q", key, value)
	}
	return nil
}
