package main

import (
	"context"
	"encoding/json"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

// yamlLS is a headless yaml-language-server session: the server started
// on stdio, a JSON-RPC client on it, and the diagnostics it published.
type yamlLS struct {
	t    *testing.T
	conn *jsonrpc2.Conn
	mu   sync.Mutex
	diag map[string][]lsDiagnostic
	got  chan string
}

type lsDiagnostic struct {
	Message  string `json:"message"`
	Severity int    `json:"severity"`
	Range    struct {
		Start struct{ Line, Character int } `json:"start"`
	} `json:"range"`
}

// stdioConn joins a process's stdout and stdin into one stream.
type stdioConn struct {
	io.ReadCloser
	io.WriteCloser
}

func (c stdioConn) Close() error {
	c.WriteCloser.Close()
	return c.ReadCloser.Close()
}

// yamlSettings are yaml-language-server's settings: validate, complete,
// and never reach the schema store (the test is offline).
var yamlSettings = map[string]any{"validate": true, "completion": true, "hover": true,
	"schemaStore": map[string]any{"enable": false}, "schemas": map[string]any{}}

func startYamlLS(t *testing.T, bin, root string) *yamlLS {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	cmd := exec.CommandContext(ctx, bin, "--stdio")
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ls := &yamlLS{t: t, diag: map[string][]lsDiagnostic{}, got: make(chan string, 64)}
	ls.conn = jsonrpc2.NewConn(ctx, jsonrpc2.NewBufferedStream(stdioConn{out, in}, jsonrpc2.VSCodeObjectCodec{}), jsonrpc2.HandlerWithError(ls.handle))
	t.Cleanup(func() {
		ls.conn.Close()
		cancel()
		_ = cmd.Wait()
	})
	var res json.RawMessage
	ls.call("initialize", map[string]any{"processId": nil, "rootUri": fileURI(root),
		"capabilities": map[string]any{"workspace": map[string]any{"configuration": true},
			"textDocument": map[string]any{"publishDiagnostics": map[string]any{}, "completion": map[string]any{}}}}, &res)
	ls.notify("initialized", map[string]any{})
	ls.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"yaml": yamlSettings}})
	return ls
}

// handle answers the server's requests (its configuration, capability
// registration, progress) and records its diagnostics.
func (ls *yamlLS) handle(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
	switch req.Method {
	case "workspace/configuration":
		var p struct {
			Items []struct {
				Section string `json:"section"`
			} `json:"items"`
		}
		if req.Params != nil {
			_ = json.Unmarshal(*req.Params, &p)
		}
		out := make([]any, len(p.Items))
		for i, it := range p.Items {
			if it.Section == "yaml" {
				out[i] = yamlSettings
			}
		}
		return out, nil
	case "textDocument/publishDiagnostics":
		var p struct {
			URI         string         `json:"uri"`
			Diagnostics []lsDiagnostic `json:"diagnostics"`
		}
		if req.Params != nil && json.Unmarshal(*req.Params, &p) == nil {
			ls.mu.Lock()
			ls.diag[p.URI] = p.Diagnostics
			ls.mu.Unlock()
			ls.got <- p.URI
		}
	}
	return nil, nil
}

func (ls *yamlLS) call(method string, params, result any) {
	ls.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := ls.conn.Call(ctx, method, params, result); err != nil {
		ls.t.Fatalf("%s: %v", method, err)
	}
}

func (ls *yamlLS) notify(method string, params any) {
	ls.t.Helper()
	if err := ls.conn.Notify(context.Background(), method, params); err != nil {
		ls.t.Fatalf("%s: %v", method, err)
	}
}

// diagnostics opens a document and returns its diagnostics: the first
// publication, then whatever arrives within a settle period (the server
// may publish again once its schemas are loaded).
func (ls *yamlLS) diagnostics(path, text string) []string {
	ls.t.Helper()
	uri := fileURI(path)
	ls.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "yaml", "version": 1, "text": text}})
	deadline := time.After(60 * time.Second)
	settle := (<-chan time.Time)(nil)
	for {
		select {
		case u := <-ls.got:
			if u == uri {
				settle = time.After(1500 * time.Millisecond)
			}
		case <-settle:
			ls.mu.Lock()
			defer ls.mu.Unlock()
			var out []string
			for _, d := range ls.diag[uri] {
				out = append(out, d.Message)
			}
			return out
		case <-deadline:
			ls.t.Fatalf("no diagnostics for %s within 60s", path)
		}
	}
}

func fileURI(p string) string { return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String() }

// schemaEditorKits are descriptors with a modeline naming the schema
// files kitsmith schema --output wrote, and what yaml-language-server must
// report on each, offline.
var schemaEditorKits = []struct {
	name, body string
	want       []string // substrings, one diagnostic each
}{
	{"valid", `schemaVersion: "3"
kind: mixin
description: A valid kit.
capabilities:
  - type: com.docker.sandbox/network-policy@1
    config:
      runtime:
        allow: [api.example.com]
`, nil},
	{"mistakes", `schemaVersion: "3"
kind: sandbox
description: A kit with mistakes.
capabilites: []
capabilities:
  - type: com.docker.sandbox/network-policy@1
    config:
      runtime:
        alow: [api.example.com]
`, []string{`capabilites`, `alow`, `"workload", "mixin", "set"`}},
}

// TestSchemaOfflineYamlLanguageServer: the files kitsmith schema --output
// writes resolve among themselves, offline: yaml-language-server, driven
// headless, reports the kits' real mistakes (an unknown key, a key
// unknown to a capability's config schema, which only a resolved
// cross-file $ref knows, a wrong kind) and no reference it could not
// load, and nothing on a valid kit; type: completes the known types.
func TestSchemaOfflineYamlLanguageServer(t *testing.T) {
	bin := os.Getenv("KITSMITH_TEST_YAML_LS")
	if os.Getenv("KITSMITH_INTEGRATION") == "" {
		t.Skip("KITSMITH_INTEGRATION is not set")
	}
	if bin == "" {
		t.Fatal("KITSMITH_INTEGRATION=1 but KITSMITH_TEST_YAML_LS is not set (scripts/services.sh env)")
	}
	root := t.TempDir()
	files, err := schemaFiles()
	if err != nil {
		t.Fatal(err)
	}
	if err := writeSchemas(filepath.Join(root, ".schemas"), files); err != nil {
		t.Fatal(err)
	}
	ls := startYamlLS(t, bin, root)
	for _, k := range schemaEditorKits {
		t.Run(k.name, func(t *testing.T) {
			dir := filepath.Join(root, k.name)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, k.name+".yaml")
			text := "# syntax=docker/sandbox-kit:3\n# yaml-language-server: $schema=../.schemas/kit.schema.json\n" + k.body
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			got := ls.diagnostics(path, text)
			t.Logf("yaml-language-server on %s: %q", k.name, got)
			for _, d := range got {
				if strings.Contains(d, "Problems loading reference") || strings.Contains(d, "Unable to load schema") {
					t.Errorf("the schema did not resolve offline: %s", d)
				}
			}
			if len(got) != len(k.want) {
				t.Errorf("%d diagnostics, want %d: %q", len(got), len(k.want), got)
			}
			for _, w := range k.want {
				if !slices.ContainsFunc(got, func(d string) bool { return strings.Contains(d, w) }) {
					t.Errorf("no diagnostic about %q in %q", w, got)
				}
			}
		})
	}
	t.Run("type completion", func(t *testing.T) {
		path := filepath.Join(root, "valid", "valid.yaml")
		var res json.RawMessage
		ls.call("textDocument/completion", map[string]any{"textDocument": map[string]any{"uri": fileURI(path)},
			"position": map[string]any{"line": 6, "character": len("  - type: ")}}, &res)
		for _, want := range []string{"com.docker.sandbox/network-policy@2", "com.docker.sandbox/credential@1"} {
			if !strings.Contains(string(res), want) {
				t.Errorf("completion at type: lacks %s: %.400s", want, res)
			}
		}
	})
}

// TestSchemaOutputOffline: kitsmith schema --output writes every file
// without $id, as valid JSON, and every relative $ref names a file it
// wrote, so nothing points back at the published copy.
func TestSchemaOutputOffline(t *testing.T) {
	dir := t.TempDir()
	if _, stderr, code := runCLI(t, "schema", "--output", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	files, err := schemaFiles()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if id, ok := doc["$id"]; ok {
			t.Errorf("%s keeps $id %v", f, id)
		}
		for _, ref := range refsIn(doc) {
			file, _, _ := strings.Cut(ref, "#")
			if file == "" {
				continue
			}
			if strings.Contains(file, "://") {
				t.Errorf("%s refers to %s, not a local file", f, ref)
				continue
			}
			if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(filepath.Dir(f)), filepath.FromSlash(file))); err != nil {
				t.Errorf("%s: $ref %s does not resolve in the output: %v", f, ref, err)
			}
		}
	}
}

// refsIn returns every $ref in a JSON document.
func refsIn(v any) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && k == "$ref" {
				out = append(out, s)
			}
			out = append(out, refsIn(x)...)
		}
	case []any:
		for _, x := range v {
			out = append(out, refsIn(x)...)
		}
	}
	return out
}
