package remote

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// The card's url is where clients send their calls. Behind a proxy or a
// load balancer the address a request reached (its Host) is not the one
// clients must use: the server is told it (--public-url), or the proxy
// says it on each request (X-Forwarded-Proto, X-Forwarded-Host,
// X-Forwarded-Prefix), as the contract says ("Remote agents behind a load
// balancer").

// legacyCardPath is where A2A clients before 0.3 (and some 1.0 SDKs'
// fallbacks) look for the card.
const legacyCardPath = "/.well-known/agent.json"

// ParsePublicURL checks the URL mm -a2a is reached at from outside
// (--public-url) and returns it as the card gives it: http or https, a
// host, no query, fragment or user, its path ending with "/" (with or
// without it, the same URL: the JSON-RPC endpoint is the path itself).
func ParsePublicURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, fmt.Errorf("%q is not a URL: %w", raw, errors.Unwrap(err))
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("%q is not an http:// or https:// URL: write it as clients reach the agent, e.g. https://agents.example.com/team/reviewer/", raw)
	case u.Host == "" || u.Hostname() == "":
		return nil, fmt.Errorf("%q has no host: write it as clients reach the agent, e.g. https://agents.example.com/team/reviewer/", raw)
	case u.User != nil:
		return nil, fmt.Errorf("%q holds a user name or password: the card is public, put none in its URL", raw)
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return nil, fmt.Errorf("%q has a query or a fragment: the agent's URL is a scheme, a host and a path", raw)
	}
	if !validHost(u.Host) {
		return nil, fmt.Errorf("%q has a bad host or port %q: a name of letters, digits, dots and hyphens, or an IP address, then :port if any", raw, u.Host)
	}
	if strings.Contains(strings.ToLower(u.RawPath), "%2f") || (u.Path != "" && !validPrefix(u.Path)) {
		return nil, fmt.Errorf("%q has a path a client cannot use as it is (a dot segment, an encoded /): write the path clients send", raw)
	}
	u.Path = withSlash(u.Path)
	u.RawPath = ""
	return u, nil
}

// cardURL is the url the card fetched by r gives: the public URL when
// there is one; else the request's own scheme and Host, each replaced by
// what a proxy in front said in X-Forwarded-Proto, X-Forwarded-Host and
// X-Forwarded-Prefix (a value that cannot be part of a URL is ignored).
func cardURL(public *url.URL, r *http.Request) string {
	if public != nil {
		return public.String()
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if p := strings.ToLower(firstValue(r.Header.Get("X-Forwarded-Proto"))); p == "http" || p == "https" {
		scheme = p
	}
	host := r.Host
	if h := firstValue(r.Header.Get("X-Forwarded-Host")); validHost(h) {
		host = h
	}
	prefix := "/"
	if p := firstValue(r.Header.Get("X-Forwarded-Prefix")); validPrefix(p) {
		prefix = withSlash(p)
	}
	return (&url.URL{Scheme: scheme, Host: host, Path: prefix}).String()
}

// firstValue is the first of a header's comma-separated values: the one
// the proxy nearest to the client set, when several proxies appended
// theirs.
func firstValue(v string) string {
	first, _, _ := strings.Cut(v, ",")
	return strings.TrimSpace(first)
}

// validHost says h is a host[:port] and nothing more: a DNS name (letters,
// digits, dots, hyphens, underscores), an IPv4 address or a bracketed IPv6
// one, then a port if a colon says so. A card's url is read by programs
// that may put it in HTML or a shell: nothing else gets in.
func validHost(h string) bool {
	name, port := h, ""
	if strings.HasPrefix(h, "[") {
		end := strings.Index(h, "]")
		if end < 0 || strings.Trim(h[1:end], "0123456789abcdefABCDEF:.") != "" || end == 1 {
			return false
		}
		name, port = h[:end+1], h[end+1:]
		if port != "" {
			if port[0] != ':' {
				return false
			}
			port = port[1:]
			if !validPort(port) {
				return false
			}
		}
		return true
	}
	if i := strings.LastIndexByte(h, ':'); i >= 0 {
		name, port = h[:i], h[i+1:]
		if !validPort(port) {
			return false
		}
	}
	if name == "" || len(name) > 253 {
		return false
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// validPrefix says p is an absolute path a URL can carry as it is: not
// "//host" (which a client would read as another host), no query, no
// fragment, no dot segment.
func validPrefix(p string) bool {
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.ContainsAny(p, "?#\\ \t") {
		return false
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "." || seg == ".." {
			return false
		}
	}
	u, err := url.Parse(p)
	return err == nil && u.Path == p
}

func validPort(p string) bool {
	n := 0
	for _, c := range p {
		if c < '0' || c > '9' {
			return false
		}
		n = n*10 + int(c-'0')
		if n > 65535 {
			return false
		}
	}
	return p != "" && n > 0
}

func withSlash(p string) string {
	if !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return p
}

// underPublicPath serves next at the public URL's path too: a proxy that
// passes the path as it came (nginx's proxy_pass with no URI) sends
// /team/reviewer/ and /team/reviewer/.well-known/agent-card.json, one that
// strips the prefix sends / — both reach the agent.
func underPublicPath(public *url.URL, next http.Handler) http.Handler {
	if public == nil || public.Path == "/" {
		return next
	}
	prefix := strings.TrimSuffix(public.Path, "/")
	strip := http.StripPrefix(prefix, next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, prefix+"/") {
			strip.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}
