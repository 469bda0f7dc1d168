package remote

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/a2aproject/a2a-go/a2a"
)

// endpoint is where the JSON-RPC calls of the agent whose card is card go,
// as A2A 0.3 §5.6.3 has a client choose: the card's url when its preferred
// transport is JSON-RPC (or unsaid: JSON-RPC is 0.3's default), else the
// first JSON-RPC interface of additionalInterfaces. JSON-RPC is the one
// transport mm speaks: a card without it is an error naming what it
// offers. A relative URL is read against base, the configured URL, taken
// as a directory whether or not it ends with "/".
func (a *Agent) endpoint(card *a2a.AgentCard, base *url.URL) (string, error) {
	ep, offered := "", []string{}
	add := func(t a2a.TransportProtocol, u string) {
		name := strings.TrimSpace(string(t))
		if name == "" {
			name = string(a2a.TransportProtocolJSONRPC)
		}
		if ep == "" && strings.EqualFold(name, string(a2a.TransportProtocolJSONRPC)) {
			ep = u
			if ep == "" {
				ep = a.URL
			}
		}
		name = oneLine(clean(name), 40)
		if !slices.Contains(offered, name) {
			offered = append(offered, name)
		}
	}
	add(card.PreferredTransport, card.URL)
	for _, in := range card.AdditionalInterfaces {
		add(in.Transport, in.URL)
	}
	if ep == "" {
		return "", fmt.Errorf("the agent card at %s offers %s, not JSON-RPC, the transport mm speaks (A2A's additionalInterfaces list none)", a.URL, strings.Join(offered, ", "))
	}
	u, err := url.Parse(ep)
	if err != nil {
		return "", fmt.Errorf("the agent card at %s names %q for its calls, not a URL", a.URL, oneLine(clean(ep), 200))
	}
	return asDir(base).ResolveReference(u).String(), nil
}

// asDir is u with a path that ends with "/": a URL written with or
// without it names the same agent.
func asDir(u *url.URL) *url.URL {
	d := *u
	if !strings.HasSuffix(d.Path, "/") {
		d.Path += "/"
		if d.RawPath != "" {
			d.RawPath += "/"
		}
	}
	return &d
}

// slashTwin reports whether a and b are one URL but for a trailing "/" on
// the path: a server that redirects from one spelling to the other (Go's
// ServeMux, nginx's location /prefix/) names the same endpoint.
func slashTwin(a, b *url.URL) bool {
	if originOf(a) != originOf(b) || a.RawQuery != b.RawQuery {
		return false
	}
	pa, pb := a.EscapedPath(), b.EscapedPath()
	return pa != pb && strings.TrimSuffix(pa, "/") == strings.TrimSuffix(pb, "/")
}
