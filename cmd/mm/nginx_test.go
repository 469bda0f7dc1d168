package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// nginxPath finds nginx: on PATH, else where Debian puts it (/usr/sbin is
// not on a user's PATH).
func nginxPath() string {
	if p, err := exec.LookPath("nginx"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/sbin/nginx"); err == nil {
		return "/usr/sbin/nginx"
	}
	return ""
}

// nginxVar is a script variable in an nginx config given to cmdNginx:
// ${NAME} with braces (nginx's own variables are written without them:
// $http_host, $scheme).
var nginxVar = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// nginxFormat is the access log's line: the request, its status, the
// backend that answered it and the relay it belongs to (MM-Relay), so a
// script can count the POSTs that went through nginx and where each went.
const nginxFormat = `'$request_method $request_uri $status upstream=$upstream_addr relay=$http_mm_relay time=$request_time'`

// cmdNginx starts nginx in front of the script's backends, for the rest
// of the script:
//
//	nginx [-name NAME] CONF
//
// CONF is a file of the script holding what goes inside nginx's http {}
// block (upstream and server blocks); ${VAR} in it is the script's
// variable (an unset one is an error), nginx's variables are written
// without braces. nginx runs as one process (master_process off, so no
// worker switches user, root or not) from $WORK/NAME (default nginx),
// with its temp files there; its access log, one line per request in
// nginxFormat, is $WORK/NAME/access.log, its errors $WORK/NAME/error.log.
// The config is checked first (nginx -t: an error names the line). The
// command returns once nginx listens (its pid file is written after its
// sockets are bound), and nginx is stopped when the script ends, passed
// or failed. Needs [nginx].
func cmdNginx(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! nginx")
	}
	name := "nginx"
	if len(args) == 3 && args[0] == "-name" {
		name, args = args[1], args[2:]
	}
	if len(args) != 1 {
		ts.Fatalf("usage: nginx [-name NAME] CONF")
	}
	bin := nginxPath()
	if bin == "" {
		ts.Fatalf("nginx is not installed (apt-get install nginx-light); guard the script with [!nginx] skip")
	}
	src, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	var missing []string
	inner := nginxVar.ReplaceAllStringFunc(string(src), func(m string) string {
		v := nginxVar.FindStringSubmatch(m)[1]
		val := ts.Getenv(v)
		if val == "" {
			missing = append(missing, v)
		}
		return val
	})
	if len(missing) > 0 {
		ts.Fatalf("nginx: %s: unset variable(s) %s", args[0], strings.Join(missing, ", "))
	}
	dir := ts.MkAbs(name)
	if _, err := os.Stat(filepath.Join(dir, "nginx.pid")); err == nil {
		ts.Fatalf("nginx: %s is already running (give another -name)", name)
	}
	for _, d := range []string{"", "temp/body", "temp/proxy", "temp/fastcgi", "temp/uwsgi", "temp/scgi"} {
		ts.Check(os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	conf := fmt.Sprintf(`# written by the nginx command of mm's tests (cmd/mm/nginx_test.go)
daemon off;
master_process off;
worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log notice;
events { worker_connections 512; }
http {
    log_format mm %[2]s;
    access_log %[1]s/access.log mm;
    client_body_temp_path %[1]s/temp/body;
    proxy_temp_path %[1]s/temp/proxy;
    fastcgi_temp_path %[1]s/temp/fastcgi;
    uwsgi_temp_path %[1]s/temp/uwsgi;
    scgi_temp_path %[1]s/temp/scgi;
    include %[1]s/site.conf;
}
`, dir, nginxFormat)
	ts.Check(os.WriteFile(filepath.Join(dir, "site.conf"), []byte(inner), 0o644))
	main := filepath.Join(dir, "nginx.conf")
	ts.Check(os.WriteFile(main, []byte(conf), 0o644))
	base := []string{"-p", dir, "-c", main, "-e", filepath.Join(dir, "error.log")}
	if out, err := exec.Command(bin, append(base, "-t", "-q")...).CombinedOutput(); err != nil {
		ts.Fatalf("nginx: %s does not check: %s", args[0], bytes.TrimSpace(out))
	}
	cmd := exec.Command(bin, base...)
	out, err := os.Create(filepath.Join(dir, "stderr"))
	ts.Check(err)
	cmd.Stdout, cmd.Stderr = out, out
	ownGroup(cmd)
	ts.Check(cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait(); out.Close() }()
	ts.Defer(func() {
		cmd.Process.Signal(os.Interrupt) // nginx stops quickly on SIGINT, as on SIGTERM
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			killGroup(cmd.Process)
			<-exited
		}
	})
	pid := filepath.Join(dir, "nginx.pid")
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(pid); err == nil {
			return
		}
		select {
		case err := <-exited:
			exited <- err // for the deferred stop
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			ts.Fatalf("nginx exited at start (%v): %s", err, bytes.TrimSpace(log))
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			ts.Fatalf("nginx did not start within 20s")
		}
	}
}
