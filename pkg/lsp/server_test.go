package lsp

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sourcegraph/jsonrpc2"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/kitsmith/kitsmith/pkg/lint"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// client is an in-process LSP client connected to a server over a pipe.
type client struct {
	t     testing.TB
	conn  *jsonrpc2.Conn
	mu    sync.Mutex
	diags []publishParams
	got   chan publishParams
	// forget drops notifications once read, for long runs.
	forget bool
}

// publishParams is a publishDiagnostics notification as a client reads it.
type publishParams struct {
	URI         string       `json:"uri"`
	Version     *int         `json:"version"`
	Diagnostics []diagnostic `json:"diagnostics"`
}

type diagnostic struct {
	Range    protocol.Range `json:"range"`
	Severity int            `json:"severity"`
	Code     string         `json:"code"`
	Message  string         `json:"message"`
}

// lspDiagnostic is the diagnostic as the code actions request sends it back.
func (d diagnostic) lspDiagnostic() protocol.Diagnostic {
	sev := protocol.DiagnosticSeverity(d.Severity)
	return protocol.Diagnostic{Range: d.Range, Severity: &sev, Code: &protocol.IntegerOrString{Value: d.Code}, Message: d.Message}
}

// newClient starts a server with o and an initialized client on it.
func newClient(t testing.TB, o Options) *client {
	t.Helper()
	a, b := net.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, b, o) }()
	c := &client{t: t, got: make(chan publishParams, 1024)}
	c.conn = jsonrpc2.NewConn(ctx, jsonrpc2.NewBufferedStream(a, jsonrpc2.VSCodeObjectCodec{}), jsonrpc2.HandlerWithError(
		func(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
			if req.Method == protocol.ServerTextDocumentPublishDiagnostics && req.Params != nil {
				var p publishParams
				if err := json.Unmarshal(*req.Params, &p); err == nil {
					c.mu.Lock()
					if !c.forget {
						c.diags = append(c.diags, p)
					}
					c.mu.Unlock()
					c.got <- p
				}
			}
			return nil, nil
		}))
	t.Cleanup(func() {
		c.conn.Close()
		cancel()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("server did not stop within 5s")
		}
	})
	var res protocol.InitializeResult
	c.call(protocol.MethodInitialize, protocol.InitializeParams{}, &res)
	c.notify(protocol.MethodInitialized, protocol.InitializedParams{})
	return c
}

func (c *client) call(method string, params, result any) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.conn.Call(ctx, method, params, result); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

func (c *client) notify(method string, params any) {
	c.t.Helper()
	if err := c.conn.Notify(context.Background(), method, params); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

// waitDiagnostics waits for the diagnostics of uri at version.
func (c *client) waitDiagnostics(uri string, version int) publishParams {
	c.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case p := <-c.got:
			if p.URI == uri && p.Version != nil && *p.Version == version {
				return p
			}
		case <-deadline:
			c.t.Fatalf("no diagnostics for %s version %d within 10s", uri, version)
		}
	}
}

func (c *client) open(path, text string, version int) string {
	uri := pathURI(path)
	c.notify(protocol.MethodTextDocumentDidOpen, protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
		URI: uri, LanguageID: "yaml", Version: protocol.Integer(version), Text: text}})
	return uri
}

func (c *client) change(uri, text string, version int) {
	c.notify(protocol.MethodTextDocumentDidChange, map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": version},
		"contentChanges": []map[string]any{{"text": text}},
	})
}

// writeKit copies a lint fixture into a temporary directory and returns
// the descriptor's path and text.
func writeKit(t testing.TB, fixture, name string) (string, string) {
	t.Helper()
	src := filepath.Join("..", "lint", "testdata", fixture)
	dir := filepath.Join(t.TempDir(), "kit")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() || e.Name() == "findings.golden" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		target := e.Name()
		if strings.HasSuffix(target, ".yaml") && !strings.HasSuffix(name, ".dockerfile") {
			target = name
		}
		if err := os.WriteFile(filepath.Join(dir, target), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := filepath.Join(dir, name)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return p, string(b)
}

// cliDiagnostics is what kitsmith lint reports for the kit at path, as
// LSP diagnostics of path (range, code, severity).
func cliDiagnostics(t *testing.T, path string) []string {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	k, err := spec.LoadPath(kitPathOf(path, text))
	if err != nil {
		t.Fatal(err)
	}
	var cfg *lint.Config
	if p, err := lint.FindConfig(k.Dir); err == nil && p != "" {
		if cfg, err = lint.LoadConfig(p); err != nil {
			t.Fatal(err)
		}
	}
	res, err := lint.Run(context.Background(), []*spec.Kit{k}, lint.WithConfig(cfg))
	if err != nil {
		t.Fatal(err)
	}
	src := k.SourceFiles()[path]
	var out []string
	for _, f := range res.Findings {
		if f.Range.Start.File != path {
			continue
		}
		r := lspRange(src, f.Range)
		out = append(out, describeDiag(r, f.RuleID, severities[f.Severity]))
	}
	return out
}

func describeDiag(r protocol.Range, code string, sev protocol.DiagnosticSeverity) string {
	return strings.Join([]string{code, string(rune('0' + sev)), posString(r.Start), posString(r.End)}, " ")
}

func posString(p protocol.Position) string {
	b, _ := json.Marshal(p)
	return string(b)
}

func published(p publishParams) []string {
	var out []string
	for _, d := range p.Diagnostics {
		out = append(out, describeDiag(d.Range, d.Code, protocol.DiagnosticSeverity(d.Severity)))
	}
	return out
}

// TestDiagnosticsMatchCLI: what the server publishes on open is what
// kitsmith lint reports, rule ids, severities and ranges alike, under the
// kit's .kitsmith.yaml.
func TestDiagnosticsMatchCLI(t *testing.T) {
	tests := []struct{ name, fixture, file, config string }{
		{"descriptor", "hook-env-undeclared/bad/example", "kit.yaml", ""},
		{"config honoured", "hook-env-undeclared/bad/example", "kit.yaml", "disable: [hook-env-undeclared]\n"},
		{"proxy and host", "host-docker-internal/bad/example", "kit.yaml", ""},
		{"comment descriptor", "proxy-env-override/bad/comment-form", "Dockerfile", ""},
		{"companion Dockerfile", "proxy-env-override/bad/recipe-env", "recipe-env.dockerfile", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path, text := writeKit(t, tc.fixture, tc.file)
			if tc.config != "" {
				if err := os.WriteFile(filepath.Join(filepath.Dir(path), ".kitsmith.yaml"), []byte(tc.config), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want := cliDiagnostics(t, path)
			c := newClient(t, Options{Debounce: 10 * time.Millisecond})
			uri := c.open(path, text, 1)
			got := published(c.waitDiagnostics(uri, 1))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("diagnostics (-CLI +LSP):\n%s", diff)
			}
			if tc.config != "" && slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, "hook-env-undeclared ") }) {
				t.Error("a rule the configuration disables was published")
			}
			if tc.config == "" && len(got) == 0 {
				t.Error("no diagnostics for a bad fixture")
			}
		})
	}
}

// TestNotAKit: a YAML file that is no descriptor (a compose file beside
// a kit) gets no diagnostics, while the kit's descriptor does.
func TestNotAKit(t *testing.T) {
	path, text := writeKit(t, "hook-env-undeclared/bad/example", "kit.yaml")
	compose := filepath.Join(filepath.Dir(path), "compose.yaml")
	if err := os.WriteFile(compose, []byte("services:\n  app: {image: alpine}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := kitPathOf(compose, []byte("services:\n")); got != "" {
		t.Errorf("kitPathOf(compose.yaml) = %q, want none", got)
	}
	c := newClient(t, Options{Debounce: 10 * time.Millisecond})
	c.open(compose, "services:\n  app: {image: alpine}\n", 1)
	uri := c.open(path, text, 1)
	if len(c.waitDiagnostics(uri, 1).Diagnostics) == 0 {
		t.Error("the descriptor has no diagnostics")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.diags {
		if p.URI == pathURI(compose) && len(p.Diagnostics) > 0 {
			t.Errorf("diagnostics for a compose file: %v", published(p))
		}
	}
}

// TestConfigHoverCompletion: in a .kitsmith.yaml, keys hover with the
// configuration schema's descriptions, rule ids with their docs, and the
// top-level keys complete.
func TestConfigHoverCompletion(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".kitsmith.yaml")
	text := "disable: [port-trust-boundary]\nseverity:\n  unsized-volume: warning\n\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, Options{Debounce: 10 * time.Millisecond})
	uri := c.open(path, text, 1)
	if got := hoverText(t, c, uri, protocol.Position{Line: 0, Character: 2}); !strings.Contains(got, "Rule IDs not to run") {
		t.Errorf("hover on disable: %q", got)
	}
	if got := hoverText(t, c, uri, protocol.Position{Line: 0, Character: 14}); !strings.Contains(got, "trust boundary") {
		t.Errorf("hover on a rule id: %q", got)
	}
	got := completions(t, c, uri, protocol.Position{Line: 3, Character: 0})
	for _, want := range []string{"enable", "disable", "severity", "ignore", "egress"} {
		if !slices.Contains(got, want) {
			t.Errorf("configuration key completions %v lack %s", got, want)
		}
	}
}

// TestConfigSaveRelints: saving .kitsmith.yaml lints the open kits again
// under it.
func TestConfigSaveRelints(t *testing.T) {
	path, text := writeKit(t, "hook-env-undeclared/bad/example", "kit.yaml")
	c := newClient(t, Options{Debounce: 10 * time.Millisecond})
	uri := c.open(path, text, 1)
	if len(c.waitDiagnostics(uri, 1).Diagnostics) == 0 {
		t.Fatal("no diagnostics before the configuration")
	}
	cfg := filepath.Join(filepath.Dir(path), ".kitsmith.yaml")
	if err := os.WriteFile(cfg, []byte("disable: [hook-env-undeclared, missing-metadata]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.notify(protocol.MethodTextDocumentDidSave, protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: pathURI(cfg)}})
	after := c.waitDiagnostics(uri, 1)
	for _, d := range after.Diagnostics {
		if d.Code == "hook-env-undeclared" {
			t.Errorf("a rule the saved configuration disables is still shown: %v", published(after))
		}
	}
}

// TestBrokenText: text that does not parse, as while typing, gets the
// YAML error as a diagnostic, and requests on it answer.
func TestBrokenText(t *testing.T) {
	path, text := writeKit(t, "hook-env-undeclared/bad/example", "kit.yaml")
	c := newClient(t, Options{Debounce: 10 * time.Millisecond})
	uri := c.open(path, text, 1)
	c.waitDiagnostics(uri, 1)
	broken := "# syntax=docker/sandbox-kit:3\nschemaVersion: \"3\"\nkind: [mixin\ncapabilities:\n  - type: com.docker.sandbox/lif\n"
	c.change(uri, broken, 2)
	got := published(c.waitDiagnostics(uri, 2))
	if !slices.ContainsFunc(got, func(d string) bool { return strings.HasPrefix(d, "spec/yaml-syntax ") }) {
		t.Errorf("diagnostics of broken YAML: %v", got)
	}
	var actions []protocol.CodeAction
	c.call(protocol.MethodTextDocumentCodeAction, protocol.CodeActionParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}}, &actions)
	if got := completions(t, c, uri, protocol.Position{Line: 4, Character: uint32(len("  - type: com.docker.sandbox/lif"))}); !slices.Contains(got, spec.TypeLifecycle) {
		t.Errorf("type completion in broken text: %v", got)
	}
}

// TestStaleResultsNeverShown: changes in quick succession are linted
// once, for the last version; no diagnostics of an older version are
// published after a newer one was received, and an unsaved edit is
// linted as typed.
func TestStaleResultsNeverShown(t *testing.T) {
	path, text := writeKit(t, "hook-env-undeclared/bad/example", "kit.yaml")
	c := newClient(t, Options{Debounce: 80 * time.Millisecond})
	uri := c.open(path, text, 1)
	c.waitDiagnostics(uri, 1)
	fixed := strings.Replace(text, "        - command: |", "        - env: [RESHAPR_PORT, RESHAPR_API_KEY]\n          command: |", 1)
	for v := 2; v <= 5; v++ {
		body := text
		if v == 5 {
			body = fixed
		}
		c.change(uri, body, v)
	}
	last := c.waitDiagnostics(uri, 5)
	if len(last.Diagnostics) != 0 {
		t.Errorf("the fixed text still has diagnostics: %v", published(last))
	}
	time.Sleep(200 * time.Millisecond)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.diags {
		if p.URI == uri && p.Version != nil && *p.Version > 1 && *p.Version < 5 {
			t.Errorf("stale diagnostics of version %d were published", *p.Version)
		}
	}
}

// applyEdits applies an LSP workspace edit's changes for uri to text.
func applyEdits(t *testing.T, text string, edits []protocol.TextEdit) string {
	t.Helper()
	b := []byte(text)
	slices.SortFunc(edits, func(a, b protocol.TextEdit) int {
		if a.Range.Start.Line != b.Range.Start.Line {
			return int(b.Range.Start.Line) - int(a.Range.Start.Line)
		}
		return int(b.Range.Start.Character) - int(a.Range.Start.Character)
	})
	for _, e := range edits { // last first, so earlier offsets stay valid
		start, end := byteOffset(b, e.Range.Start), byteOffset(b, e.Range.End)
		b = append(b[:start:start], append([]byte(e.NewText), b[end:]...)...)
	}
	return string(b)
}

// TestCodeActions: a quick fix per fixable diagnostic, the safe ones
// preferred, and source.fixAll.kitsmith applying every safe fix: the
// result is what lint --fix writes.
func TestCodeActions(t *testing.T) {
	path, text := writeKit(t, "hook-env-undeclared/bad/example", "kit.yaml")
	c := newClient(t, Options{Debounce: 10 * time.Millisecond})
	uri := c.open(path, text, 1)
	diags := c.waitDiagnostics(uri, 1)
	if len(diags.Diagnostics) == 0 {
		t.Fatal("no diagnostics")
	}
	var actions []protocol.CodeAction
	d := diags.Diagnostics[0]
	c.call(protocol.MethodTextDocumentCodeAction, protocol.CodeActionParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri},
		Range: d.Range, Context: protocol.CodeActionContext{Diagnostics: []protocol.Diagnostic{d.lspDiagnostic()}, Only: []string{"quickfix"}}}, &actions)
	if len(actions) == 0 || actions[0].Edit == nil || actions[0].IsPreferred == nil || !*actions[0].IsPreferred {
		t.Fatalf("quick fixes %+v", actions)
	}
	one := applyEdits(t, text, actions[0].Edit.Changes[uri])
	if !strings.Contains(one, "- env: [RESHAPR_PORT]\n          command: |") {
		t.Errorf("quick fix gave:\n%s", one)
	}

	var all []protocol.CodeAction
	c.call(protocol.MethodTextDocumentCodeAction, protocol.CodeActionParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri},
		Context: protocol.CodeActionContext{Only: []string{"source.fixAll"}}}, &all)
	if len(all) != 1 || all[0].Kind == nil || *all[0].Kind != fixAllKind {
		t.Fatalf("fix-all actions %+v", all)
	}
	fixedAll := applyEdits(t, text, all[0].Edit.Changes[uri])
	res, err := lint.FixLoop(context.Background(), func(ctx context.Context, overlay map[string][]byte) (*lint.Result, map[string][]byte, error) {
		k, err := spec.LoadPath(path, spec.WithOverlay(overlay))
		if err != nil {
			return nil, nil, err
		}
		r, err := lint.Run(ctx, []*spec.Kit{k})
		return r, k.SourceFiles(), err
	}, lint.FixOptions{MaxPasses: 1})
	if err != nil {
		t.Fatal(err)
	}
	if want := string(res.After[path]); fixedAll != want {
		t.Errorf("source.fixAll.kitsmith gave (-lint --fix, one pass +LSP):\n%s", cmp.Diff(want, fixedAll))
	}
}

// hoverKit is a descriptor for hover, completion and definition.
const hoverKit = `# syntax=docker/sandbox-kit:3
schemaVersion: "3"
kind: mixin
description: A kit for the language server tests.
args:
  port:
    description: The port the service listens on.
    default: "8080"
capabilities:
  # kitsmith:ignore port-trust-boundary the service is ours
  - type: com.docker.sandbox/network-policy@1
    config:
      runtime:
        allow: ["localhost:${{ kit.args.port }}"]
  - type: com.docker.sandbox/lifecycle@1
    config:
      startup:
        - command: echo ${{ kit.args.
`

// position finds the 0-based position of the first occurrence of needle
// in text, plus offset bytes.
func position(t *testing.T, text, needle string, offset int) protocol.Position {
	t.Helper()
	i := strings.Index(text, needle)
	if i < 0 {
		t.Fatalf("%q not in the text", needle)
	}
	return offsetPosition([]byte(text), i+offset)
}

func hoverText(t *testing.T, c *client, uri string, p protocol.Position) string {
	t.Helper()
	var h *protocol.Hover
	c.call(protocol.MethodTextDocumentHover, protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: p}}, &h)
	if h == nil {
		return ""
	}
	b, _ := json.Marshal(h.Contents)
	return string(b)
}

func completions(t *testing.T, c *client, uri string, p protocol.Position) []string {
	t.Helper()
	var items []protocol.CompletionItem
	c.call(protocol.MethodTextDocumentCompletion, protocol.CompletionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: p}}, &items)
	var out []string
	for _, it := range items {
		out = append(out, it.Label)
	}
	return out
}

// TestHoverCompletionDefinition covers hover (rule id, capability type,
// key, arg reference), completion (types, keys, arg names) and
// go-to-definition from an arg reference.
func TestHoverCompletionDefinition(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "kit.yaml")
	if err := os.WriteFile(path, []byte(hoverKit), 0o644); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, Options{Debounce: 10 * time.Millisecond})
	uri := c.open(path, hoverKit, 1)
	c.waitDiagnostics(uri, 1)

	hovers := []struct {
		name, needle string
		offset       int
		want         string
	}{
		{"rule id", "port-trust-boundary", 3, "trust boundary"},
		{"capability type", "network-policy@1", 2, "Egress policy per phase"},
		{"key", "schemaVersion", 2, "Descriptor grammar version"},
		{"config key", "runtime:", 2, "Egress of the running workload"},
		{"arg reference", "${{ kit.args.port }}", 5, "The port the service listens on"},
	}
	for _, h := range hovers {
		t.Run("hover "+h.name, func(t *testing.T) {
			if got := hoverText(t, c, uri, position(t, hoverKit, h.needle, h.offset)); !strings.Contains(got, h.want) {
				t.Errorf("hover %q, want it to contain %q", got, h.want)
			}
		})
	}

	t.Run("complete type", func(t *testing.T) {
		got := completions(t, c, uri, position(t, hoverKit, "type: com.docker.sandbox/lifecycle", len("type: ")))
		if !slices.Contains(got, spec.TypeNetworkPolicy2) || !slices.Contains(got, spec.TypeCredential) {
			t.Errorf("type completions %v", got)
		}
	})
	t.Run("complete arg name", func(t *testing.T) {
		got := completions(t, c, uri, position(t, hoverKit, "${{ kit.args.\n", len("${{ kit.args.")))
		if diff := cmp.Diff([]string{"port"}, got); diff != "" {
			t.Errorf("arg completions (-want +got):\n%s", diff)
		}
	})
	t.Run("complete keys", func(t *testing.T) {
		text := hoverKit + "  - type: com.docker.sandbox/network-policy@1\n    config:\n      runtime:\n        \n"
		c.change(uri, text, 2)
		top := completions(t, c, uri, protocol.Position{Line: protocol.UInteger(strings.Count(hoverKit, "\n") - 1), Character: 0})
		_ = top
		inRules := completions(t, c, uri, protocol.Position{Line: protocol.UInteger(strings.Count(text, "\n") - 1), Character: 8})
		if !slices.Contains(inRules, "allow") || !slices.Contains(inRules, "deny") {
			t.Errorf("completions inside runtime: %v, want allow and deny", inRules)
		}
		c.change(uri, "# syntax=docker/sandbox-kit:3\nsch\n", 3)
		if got := completions(t, c, uri, protocol.Position{Line: 1, Character: 3}); !slices.Contains(got, "schemaVersion") || !slices.Contains(got, "capabilities") {
			t.Errorf("top-level completions %v", got)
		}
		c.change(uri, hoverKit, 4)
	})
	t.Run("definition", func(t *testing.T) {
		var loc protocol.Location
		c.call(protocol.MethodTextDocumentDefinition, protocol.DefinitionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: position(t, hoverKit, "${{ kit.args.port }}", 14)}}, &loc)
		want := position(t, hoverKit, "port:", 0)
		if loc.URI != uri || loc.Range.Start != want {
			t.Errorf("definition %+v, want %s at %+v", loc, uri, want)
		}
	})
}
