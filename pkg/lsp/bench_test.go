package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bigKit returns a descriptor of about lines lines: args, a network
// policy and lifecycle hooks, some of them with findings.
func bigKit(lines int) string {
	var b strings.Builder
	b.WriteString("# syntax=docker/sandbox-kit:3\nschemaVersion: \"3\"\nkind: mixin\ndisplayName: Big\ndescription: A large kit for the benchmark.\n")
	b.WriteString("version: \"1.0.0\"\nsourceUrl: https://example.com/kits/big\nlicenses: [Apache-2.0]\nargs:\n")
	for i := range 20 {
		fmt.Fprintf(&b, "  arg%d:\n    description: Arg %d.\n    default: \"v%d\"\n", i, i, i)
	}
	b.WriteString("capabilities:\n  - type: com.docker.sandbox/network-policy@1\n    config:\n      runtime:\n        allow:\n")
	for i := range 40 {
		fmt.Fprintf(&b, "          - api%d.example.com:443\n", i)
	}
	b.WriteString("  - type: com.docker.sandbox/lifecycle@1\n    config:\n      startup:\n")
	for i := 0; strings.Count(b.String(), "\n") < lines-4; i++ {
		fmt.Fprintf(&b, "        - command: |\n            echo \"start %d ${{ kit.args.arg%d }}\"\n            echo \"$HOME $VAR%d\"\n          env: [HOME]\n", i, i%20, i)
	}
	return b.String()
}

// startBig opens a 300-line kit on a server that lints at once.
func startBig(t testing.TB) (*client, string, string) {
	dir := t.TempDir()
	path := filepath.Join(dir, "big.yaml")
	text := bigKit(300)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, Options{Debounce: -1})
	c.forget = true
	uri := c.open(path, text, 1)
	c.waitDiagnostics(uri, 1)
	return c, uri, text
}

// BenchmarkChangeToDiagnostics measures a change to a 300-line kit until
// its diagnostics are published (no debounce): load, validate, lint and
// publish, over the protocol.
func BenchmarkChangeToDiagnostics(b *testing.B) {
	c, uri, text := startBig(b)
	if n := strings.Count(text, "\n"); n < 295 || n > 305 {
		b.Fatalf("kit has %d lines", n)
	}
	v := 1
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		v++
		c.change(uri, strings.Replace(text, "start 0 ", fmt.Sprintf("start %d ", v), 1), v)
		c.waitDiagnostics(uri, v)
	}
	b.StopTimer()
	// CPU time of the whole process (server and client) per change: the
	// figure that does not depend on how loaded the machine is.
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
}

// cpuTime returns the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestMemoryFlat: 1000 edits do not grow the heap: what the server keeps
// is the open documents and the last lint of each kit.
func TestMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("1000 edits")
	}
	c, uri, text := startBig(t)
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	v := 1
	edit := func(n int) {
		for range n {
			v++
			c.change(uri, strings.Replace(text, "start 0 ", fmt.Sprintf("start %d ", v), 1), v)
			c.waitDiagnostics(uri, v)
		}
	}
	start := time.Now()
	edit(100)
	after100 := heap()
	edit(900)
	after1000 := heap()
	t.Logf("heap after 100 edits %d KiB, after 1000 edits %d KiB; %v per edit", after100/1024, after1000/1024, time.Since(start)/1000)
	if after1000 > after100+4<<20 {
		t.Errorf("heap grew from %d KiB to %d KiB over 900 edits", after100/1024, after1000/1024)
	}
}
