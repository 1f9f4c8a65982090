package emulator

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kitsmith/kitsmith/internal/golden"
)

// shellKit is a workload whose hooks exercise every path of the
// emulation; tool is a mixin composed onto it.
const shellKit = `# syntax=docker/sandbox-kit:3
schemaVersion: "3"
kind: workload
args:
  greeting: {default: hi, env: DECLARED}
  other: {default: x, env: UNDECLARED}
capabilities:
  - type: com.docker.sandbox/network-policy@1
    config:
      install: {allow: ["install.example.org:80"]}
      runtime:
        allow: ["api.example.org", "denied.example.org:80"]
        deny: ["denied.example.org"]
  - type: com.docker.sandbox/lifecycle@1
    config:
      install:
        - description: environment
          command: id -u; env
          env: [DECLARED]
        - description: fails
          command: echo before; exit 3
        - description: forward allowed
          command: wget -q -O - http://install.example.org/
          env: [http_proxy]
      startup:
        - description: default user
          command: id -u
        - description: install-only host
          command: wget -q -O - http://install.example.org/ || true
          env: [http_proxy]
        - description: transparent allowed
          command: wget -q -O - http://api.example.org/
        - description: transparent refused
          command: wget -q -O - http://other.example.org/
        - description: deny beats allow
          command: wget -q -O - http://denied.example.org/
          env: [http_proxy]
        - description: direct address
          command: printf 'GET / HTTP/1.0\r\n\r\n' | nc -w 5 127.2.3.4 80 >/dev/null 2>&1 || true
        - description: declared user writes a file
          user: root
          command: echo data > /root/written && id -u
`

const toolKit = `# syntax=docker/sandbox-kit:3
schemaVersion: "3"
kind: mixin
capabilities:
  - type: com.docker.sandbox/lifecycle@1
    config:
      install:
        - description: mixin after workload
          command: echo tool
`

func TestRun(t *testing.T) {
	c := integration(t)
	shim := staticShim(t)
	o := newOrigins(t)
	members := []Member{
		{Kit: kitOf(t, "tool", toolKit), Image: emptyImage(t)},
		{Kit: kitOf(t, "shell", shellKit), Image: busyboxImage(t)},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rep, err := Run(ctx, c, members, Options{Shim: shim, Dial: o.dial, HostSentinel: "planted-host-sentinel"})
	if err != nil {
		t.Fatal(err)
	}
	byDesc := map[string]HookResult{}
	for _, h := range rep.Hooks {
		byDesc[h.Description] = h
	}
	if got, want := rep.Order, []string{"shell", "tool"}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
	var order []string
	for _, h := range rep.Hooks {
		order = append(order, h.Kit+" "+h.Phase+" "+h.Description)
	}
	wantOrder := []string{
		"shell install environment", "shell install fails", "shell install forward allowed", "tool install mixin after workload",
		"shell startup default user", "shell startup install-only host", "shell startup transparent allowed",
		"shell startup transparent refused", "shell startup deny beats allow", "shell startup direct address",
		"shell startup declared user writes a file",
	}
	if !slices.Equal(order, wantOrder) {
		t.Errorf("hooks ran in the order\n%s\nwant\n%s", strings.Join(order, "\n"), strings.Join(wantOrder, "\n"))
	}

	env := byDesc["environment"]
	if !env.Passed() || !strings.HasPrefix(env.Output, "0\n") {
		t.Errorf("environment hook: %+v", env)
	}
	if want := []string{"DECLARED", "HOME", "HOSTNAME", "PATH"}; !slices.Equal(env.Env, want) {
		t.Errorf("environment hook got names %v, want exactly %v", env.Env, want)
	}
	for _, s := range []string{"DECLARED=hi", "HOME=/root", "PATH=/bin"} {
		if !strings.Contains(env.Output, s+"\n") {
			t.Errorf("environment hook output lacks %s:\n%s", s, env.Output)
		}
	}
	for _, s := range []string{"UNDECLARED", "IMAGE_ONLY", "planted-host-sentinel", "KITSMITH"} {
		if strings.Contains(env.Output, s) {
			t.Errorf("environment hook saw %s:\n%s", s, env.Output)
		}
	}
	if f := byDesc["fails"]; f.Exit != 3 || f.Passed() || !strings.Contains(f.Output, "before") {
		t.Errorf("failing hook: %+v", f)
	}
	if f := byDesc["forward allowed"]; !f.Passed() || !strings.Contains(f.Output, "hello from install.example.org") ||
		len(f.Connections) != 1 || f.Connections[0].Path != "forward" || f.Connections[0].Entry != "install.example.org:80" {
		t.Errorf("forward allowed: %+v", f)
	}
	if f := byDesc["mixin after workload"]; !f.Passed() || f.Kit != "tool" {
		t.Errorf("mixin hook: %+v", f)
	}
	if f := byDesc["default user"]; f.User != "1000" || strings.TrimSpace(f.Output) != "1000" {
		t.Errorf("startup hook default user: %+v", f)
	}
	refused := func(desc, host, path, fix string) {
		t.Helper()
		h := byDesc[desc]
		r := h.Refused()
		if len(r) != 1 || r[0].Host != host || r[0].Path != path || !strings.Contains(r[0].Fix, fix) || h.Passed() {
			t.Errorf("%s: want one refusal of %s on the %s path naming %q, got %+v", desc, host, path, fix, h)
		}
	}
	refused("install-only host", "install.example.org", "forward", `add "install.example.org:80" to the network-policy runtime allow list`)
	if h := byDesc["install-only host"]; !strings.Contains(h.Output, "") {
		t.Errorf("install-only host: %+v", h)
	}
	if f := byDesc["transparent allowed"]; !f.Passed() || !strings.Contains(f.Output, "hello from api.example.org") ||
		len(f.Connections) != 1 || f.Connections[0].Path != "transparent" {
		t.Errorf("transparent allowed: %+v", f)
	}
	refused("transparent refused", "other.example.org", "transparent", `add "other.example.org:80" to the network-policy runtime allow list`)
	refused("deny beats allow", "denied.example.org", "forward", `deny entry "denied.example.org"`)
	refused("direct address", "127.2.3.4", "transparent", `add "127.2.3.4:80" to the network-policy runtime allow list`)
	if f := byDesc["declared user writes a file"]; f.User != "root" || strings.TrimSpace(f.Output) != "0" || !slices.Contains(f.Added, "/root/written") {
		t.Errorf("declared user: %+v", f)
	}
	if len(rep.Leaks) != 0 {
		t.Errorf("leaks: %+v", rep.Leaks)
	}
	if rep.OK() {
		t.Error("the report is OK although hooks failed")
	}
	o.mu.Lock()
	seen := slices.Clone(o.seen)
	o.mu.Unlock()
	for _, h := range seen {
		if strings.HasPrefix(h, "other.") || strings.HasPrefix(h, "denied.") {
			t.Errorf("a refused host reached its origin: %s", h)
		}
	}

	// The report's shapes, without what varies between runs.
	for i := range rep.Hooks {
		rep.Hooks[i].DurationMS = 0
	}
	var js, ju, tx bytes.Buffer
	enc := json.NewEncoder(&js)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rep); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteJUnit(&ju); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteText(&tx); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/run.json.golden", js.Bytes())
	golden.Check(t, "testdata/run.junit.golden", ju.Bytes())
	golden.Check(t, "testdata/run.txt.golden", tx.Bytes())
}

// TestRunFindsLeaks proves the leak checks can fail: a hook that prints
// the host sentinel, and one that writes a proxy-managed secret to a file.
func TestRunFindsLeaks(t *testing.T) {
	c := integration(t)
	shim := staticShim(t)
	k := kitOf(t, "leaky", `# syntax=docker/sandbox-kit:3
schemaVersion: "3"
kind: workload
capabilities:
  - type: com.docker.sandbox/credential@1
    config:
      service: github
      phase: [install]
      apiKey: {name: GH_TOKEN}
  - type: com.docker.sandbox/lifecycle@1
    config:
      install:
        - command: echo "$GH_TOKEN"; echo planted-host-sentinel
          env: [GH_TOKEN]
        - command: echo the-real-secret > /tmp/copied
`)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rep, err := Run(ctx, c, []Member{{Kit: k, Image: busyboxImage(t)}}, Options{Shim: shim, HostSentinel: "planted-host-sentinel",
		Secrets: map[string]string{"github": "the-real-secret"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Hooks) != 2 || !strings.Contains(rep.Hooks[0].Output, SentinelPrefix+"github") {
		t.Fatalf("the proxy-managed credential's variable should hold its sentinel: %+v", rep.Hooks)
	}
	got := map[string]bool{}
	for _, l := range rep.Leaks {
		got[l.What+" in "+l.Where] = true
	}
	for _, want := range []string{"host sentinel in output", "secret of github in /tmp/copied"} {
		if !got[want] {
			t.Errorf("leak %q not reported; got %+v", want, rep.Leaks)
		}
	}
	if rep.OK() {
		t.Error("a run with leaks is OK")
	}
}

// TestRunCancel: cancelling a run while a hook runs stops it promptly and
// releases the container, so the next run starts.
func TestRunCancel(t *testing.T) {
	c := integration(t)
	shim := staticShim(t)
	k := kitOf(t, "slow", `# syntax=docker/sandbox-kit:3
schemaVersion: "3"
kind: workload
capabilities:
  - type: com.docker.sandbox/lifecycle@1
    config:
      install:
        - command: echo started; sleep 120
`)
	m := Member{Kit: k, Image: busyboxImage(t)}
	ctx, cancel := context.WithCancel(context.Background())
	px := make(chan struct{})
	var cancelled time.Time
	go func() {
		defer close(px)
		time.Sleep(8 * time.Second) // the container is up and the hook sleeping
		cancelled = time.Now()
		cancel()
	}()
	_, err := Run(ctx, c, []Member{m}, Options{Shim: shim})
	<-px
	took := time.Since(cancelled)
	if err == nil {
		t.Fatal("a cancelled run returned no error")
	}
	if took > 2*time.Second {
		t.Errorf("the run returned %s after it was cancelled", took)
	}
	t.Logf("returned %s after cancel: %v", took, err)
}
