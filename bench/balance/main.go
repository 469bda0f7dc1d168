// Command balance measures remote agents behind a load balancer, the way a
// team runs them: N asks at once (`mm --ask pool`, one process each)
// through Debian's nginx to one `mm -a2a` backend, then to three. Each
// backend has a scripted model of its own that answers one request at a
// time, in -delay (a machine with one GPU: Ollama's OLLAMA_NUM_PARALLEL=1),
// so one backend answers N asks in about N × delay and three in a third of
// that — if the balancer spreads the relays. nginx keeps each relay on one
// backend by hashing its MM-Relay header (`hash $http_mm_relay
// consistent`), the configuration docs/how-to/ask-an-agent-on-another-
// machine.md gives; the benchmark prints how many asks each backend
// answered, the two times and their ratio (one run: the delays dwarf the
// machine's noise).
//
//	go run ./bench/balance [-asks 32] [-delay 500ms] [-backends 3]
//
// Run from the repository root; it needs nginx on PATH or in /usr/sbin.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mm-agent/mm/bench/internal/runs"
	"github.com/mm-agent/mm/internal/mockmodel"
)

func main() {
	asks := flag.Int("asks", 32, "asks at once")
	delay := flag.Duration("delay", 500*time.Millisecond, "what each backend's model takes to answer one request")
	backends := flag.Int("backends", 3, "backends of the second run")
	flag.Parse()
	if *asks < 1 || *backends < 2 || *delay <= 0 {
		fail(errors.New("-asks must be >= 1, -backends >= 2, -delay > 0"))
	}
	nginx, err := findNginx()
	if err != nil {
		fail(err)
	}
	bins, err := runs.Build(".", false)
	if err != nil {
		fail(err)
	}
	defer bins.Close()
	var took [2]time.Duration
	for i, k := range []int{1, *backends} {
		r, err := run(bins.MM, nginx, filepath.Join(bins.Dir, fmt.Sprint("run", k)), k, *asks, *delay)
		if err != nil {
			bins.Close()
			fail(err)
		}
		took[i] = r.took
		fmt.Printf("%d asks through nginx to %d backend(s): %.2fs (asks answered by each backend: %v)\n", *asks, k, r.took.Seconds(), r.answered)
	}
	fmt.Printf("%d backends against 1: %.2fx faster (each model answers one request at a time in %s)\n", *backends, took[0].Seconds()/took[1].Seconds(), *delay)
}

type result struct {
	took     time.Duration
	answered []int // by backend: the chat requests its model answered
}

// run starts k backends, each with its own model, behind nginx, and times
// n asks through it.
func run(mm, nginx, dir string, k, n int, delay time.Duration) (result, error) {
	if err := os.MkdirAll(filepath.Join(dir, "tmp"), 0o755); err != nil {
		return result{}, err
	}
	var (
		models   []*mockmodel.Server
		backends []string
		procs    []*exec.Cmd
	)
	defer func() {
		for _, p := range procs {
			p.Process.Kill()
			p.Wait()
		}
		for _, m := range models {
			m.Close()
		}
	}()
	served := filepath.Join(dir, "served.yaml")
	if err := os.WriteFile(served, []byte("model: llmman/served\nyolo: true\n"), 0o644); err != nil {
		return result{}, err
	}
	for range k {
		m := mockmodel.New(&mockmodel.Script{Slots: 1, Replies: []mockmodel.Reply{{Repeat: true, Delay: delay, Text: "answered"}}}, "")
		if _, err := m.Start("127.0.0.1:0"); err != nil {
			return result{}, err
		}
		models = append(models, m)
		addr, err := runs.FreeAddr()
		if err != nil {
			return result{}, err
		}
		p := exec.Command(mm, "-c", served, "-a2a", addr)
		p.Dir = dir
		p.Env = append(os.Environ(), "LLMMAN_HOST="+m.Addr(), "XDG_STATE_HOME="+filepath.Join(dir, "state"))
		if err := p.Start(); err != nil {
			return result{}, err
		}
		procs = append(procs, p)
		backends = append(backends, addr)
	}
	front, err := runs.FreeAddr()
	if err != nil {
		return result{}, err
	}
	conf := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(conf, []byte(nginxConf(dir, front, backends)), 0o644); err != nil {
		return result{}, err
	}
	ng := exec.Command(nginx, "-p", dir, "-c", conf)
	var ngErr bytes.Buffer
	ng.Stderr = &ngErr
	if err := ng.Start(); err != nil {
		return result{}, err
	}
	procs = append(procs, ng)
	for _, a := range append(backends, front) {
		if err := runs.WaitPort(a, "mm -a2a or nginx"); err != nil {
			return result{}, fmt.Errorf("%w (nginx: %s)", err, ngErr.String())
		}
	}
	asking := filepath.Join(dir, "asking.yaml")
	if err := os.WriteFile(asking, []byte(fmt.Sprintf("model: llmman/asking\nmmConfigs:\n  pool: {url: \"http://%s/\"}\n", front)), 0o644); err != nil {
		return result{}, err
	}
	start := time.Now()
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			c := exec.Command(mm, "-c", asking, "--ask", "pool", fmt.Sprint("question ", i))
			c.Dir = dir
			c.Env = append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(dir, "state"))
			out, err := c.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "answered") {
				errs[i] = fmt.Errorf("ask %d: %v: %s", i, err, out)
			}
		})
	}
	wg.Wait()
	r := result{took: time.Since(start)}
	if err := errors.Join(errs...); err != nil {
		return r, err
	}
	for _, m := range models {
		r.answered = append(r.answered, len(m.Requests()))
	}
	return r, nil
}

// nginxConf is the documented configuration (docs/how-to/ask-an-agent-on-
// another-machine.md), in one process, its files in dir.
func nginxConf(dir, front string, backends []string) string {
	var servers strings.Builder
	for _, b := range backends {
		fmt.Fprintf(&servers, "    server %s;\n", b)
	}
	return fmt.Sprintf(`daemon off;
master_process off;
pid %[1]s/nginx.pid;
error_log stderr error;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path %[1]s/tmp/body;
  proxy_temp_path %[1]s/tmp/proxy;
  fastcgi_temp_path %[1]s/tmp/fastcgi;
  uwsgi_temp_path %[1]s/tmp/uwsgi;
  scgi_temp_path %[1]s/tmp/scgi;
  upstream mm_pool {
    hash $http_mm_relay consistent;
%[3]s    keepalive 16;
  }
  server {
    listen %[2]s;
    location / {
      proxy_pass http://mm_pool;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header X-Forwarded-Host $http_host;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_buffering off;
      proxy_read_timeout 120s;
      proxy_next_upstream error timeout;
    }
  }
}
`, dir, front, servers.String())
}

func findNginx() (string, error) {
	if p, err := exec.LookPath("nginx"); err == nil {
		return p, nil
	}
	if _, err := os.Stat("/usr/sbin/nginx"); err == nil {
		return "/usr/sbin/nginx", nil
	}
	return "", errors.New("nginx not found (Debian: apt-get install nginx-light)")
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "balance:", err)
	os.Exit(1)
}
