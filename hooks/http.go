package hooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mm-agent/mm/internal/model"
)

// maxBody is the largest reply a URL hook may send, as a command hook's
// stdout: a policy server gone wrong costs mm no memory.
const maxBody = maxStdout

// httpClient is the one HTTP client of an mm process for URL hooks. Its
// connections are kept alive and shared by every run, concurrent ones
// included, so that a hook run against a policy server costs a request,
// not a connection (let alone a process). Redirects are not followed: a
// policy server that moved is a failure the user should see, and a guard's
// input (a tool call, a prompt) must not be re-POSTed to wherever a 3xx
// points.
var httpClient = sync.OnceValue(func() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	// Parallel tool calls run their preToolCall chains at once: keep
	// enough idle connections that the next turn reuses them all.
	t.MaxIdleConnsPerHost = 16
	t.IdleConnTimeout = 90 * time.Second
	return &http.Client{
		Transport: t,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
})

// post runs one URL hook: the input POSTed as JSON with the hook's
// headers, the reply read from the 2xx response's body (empty: no
// decision). Everything else — another status, a refused or broken
// connection, the timeout, a body over 1 MiB — is a failure whose text
// says what happened, with the status when there was one.
func post(ctx context.Context, h Hook, event Event, timeout time.Duration, body []byte) ([]byte, string, error) {
	if ctx.Err() != nil {
		return nil, "", failure("cancelled")
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(tctx, http.MethodPost, h.URL, bytes.NewReader(body))
	if err != nil {
		return nil, "", failure("request: " + err.Error())
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "mm")
	req.Header.Set("MM-Hook-Event", string(event))
	for _, hd := range h.Headers {
		req.Header.Set(hd.Name, hd.Value)
	}
	resp, err := httpClient().Do(req)
	if err != nil {
		return nil, "", httpFailure(ctx, tctx, timeout, h.URL, err)
	}
	defer resp.Body.Close()
	status := resp.Status
	if status == "" {
		status = fmt.Sprint(resp.StatusCode)
	}
	status = "status " + status
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		msg := status
		if loc := resp.Header.Get("Location"); resp.StatusCode >= 300 && resp.StatusCode < 400 && loc != "" {
			msg += " (a redirect to " + quote([]byte(loc)) + ", not followed)"
		} else {
			head, _ := readHead(resp.Body, make([]byte, 0, stderrQuote))
			if q := quote(head); q != "" {
				msg += ": " + q
			}
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // so the connection is reused
		return nil, status, failure(msg)
	}
	out, overflow, err := readLimited(resp.Body, maxBody)
	switch {
	case overflow:
		// The rest is not read: the connection is closed, not reused.
		return nil, status, failure(fmt.Sprintf("response body larger than %d bytes (%s)", maxBody, status))
	case err != nil && !errors.Is(err, io.EOF):
		f := httpFailure(ctx, tctx, timeout, h.URL, err)
		return nil, status, failure(f.Error() + " (" + status + ")")
	}
	return out, status, nil
}

// httpFailure words an error of the client: the cancel and the timeout as
// for a command, a network error as the model client words its own.
func httpFailure(ctx, tctx context.Context, timeout time.Duration, rawURL string, err error) error {
	switch {
	case ctx.Err() != nil:
		return failure("cancelled")
	case tctx.Err() != nil:
		return failure("timed out after " + timeout.String())
	}
	host := rawURL
	if u, perr := url.Parse(rawURL); perr == nil {
		host = u.Host
	}
	return failure("POST failed: " + model.NetCause(err, host))
}

// Loopback reports whether the URL's host is a loopback address or
// localhost: where plain http:// stays on the machine.
func Loopback(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
