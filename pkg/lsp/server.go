package lsp

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/kitsmith/kitsmith/pkg/lint"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// DefaultDebounce is how long the server waits after a change before it
// lints, when Options.Debounce is zero.
const DefaultDebounce = 150 * time.Millisecond

// Options configure Serve.
type Options struct {
	// Name and Version are what the server reports itself as.
	Name, Version string
	// Debounce is the wait after the last change before linting; zero
	// means DefaultDebounce, a negative value lints at once.
	Debounce time.Duration
	// Log receives the server's own messages (a kit that cannot be
	// loaded, a configuration error); nil discards them.
	Log io.Writer
}

// Serve runs the language server on stream until the client sends exit,
// the stream ends, or ctx is done. It returns nil on a clean exit.
func Serve(ctx context.Context, stream io.ReadWriteCloser, o Options) error {
	s := newServer(o)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	conn := jsonrpc2.NewConn(ctx, jsonrpc2.NewBufferedStream(stream, jsonrpc2.VSCodeObjectCodec{}), jsonrpc2.HandlerWithError(s.handle))
	s.notify = func(method string, params any) {
		if err := conn.Notify(ctx, method, params); err != nil {
			s.logf("notifying %s: %v", method, err)
		}
	}
	select {
	case <-conn.DisconnectNotify():
	case <-ctx.Done():
		conn.Close()
	}
	s.stop()
	return nil
}

// server is the state of one connection.
type server struct {
	o       Options
	handler protocol.Handler
	notify  func(method string, params any)
	log     *log.Logger

	mu     sync.Mutex
	docs   map[string]*document       // open documents by absolute path
	kits   map[string]*kitState       // by kit path (the descriptor or the kit's directory)
	owner  map[string]string          // document path → kit path
	shown  map[string]map[string]bool // kit path → files it published diagnostics for
	closed bool
}

// document is an open text document.
type document struct {
	uri     string
	path    string
	version int32
	text    []byte
}

// kitState is the last lint of a kit and the pending one.
type kitState struct {
	gen    uint64 // incremented by every change to a document of the kit
	timer  *time.Timer
	result *snapshot
}

// snapshot is a lint result with the text it was computed from.
type snapshot struct {
	kit      *spec.Kit
	res      *lint.Result
	sources  map[string][]byte // display path (absolute) → text
	versions map[string]int32  // open documents' versions it saw
}

func newServer(o Options) *server {
	if o.Name == "" {
		o.Name = "kitsmith"
	}
	w := o.Log
	if w == nil {
		w = io.Discard
	}
	s := &server{o: o, log: log.New(w, "kitsmith lsp: ", 0), docs: map[string]*document{}, kits: map[string]*kitState{},
		owner: map[string]string{}, shown: map[string]map[string]bool{}}
	s.handler = protocol.Handler{
		Initialize:             s.initialize,
		Initialized:            func(*glsp.Context, *protocol.InitializedParams) error { return nil },
		Shutdown:               func(*glsp.Context) error { return nil },
		Exit:                   func(*glsp.Context) error { return nil },
		SetTrace:               func(*glsp.Context, *protocol.SetTraceParams) error { return nil },
		TextDocumentDidOpen:    s.didOpen,
		TextDocumentDidChange:  s.didChange,
		TextDocumentDidSave:    s.didSave,
		TextDocumentDidClose:   s.didClose,
		TextDocumentCodeAction: s.codeAction,
		TextDocumentHover:      s.hover,
		TextDocumentCompletion: s.completion,
		TextDocumentDefinition: s.definition,
	}
	return s
}

func (s *server) logf(format string, args ...any) { s.log.Printf(format, args...) }

// handle dispatches one JSON-RPC request to the glsp protocol handler.
func (s *server) handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
	gc := glsp.Context{Method: req.Method, Notify: s.notify, Call: func(method string, params, result any) {
		if err := conn.Call(ctx, method, params, result); err != nil {
			s.logf("calling %s: %v", method, err)
		}
	}}
	if req.Params != nil {
		gc.Params = *req.Params
	}
	r, validMethod, validParams, err := s.handler.Handle(&gc)
	if req.Method == protocol.MethodExit {
		conn.Close()
		return nil, nil
	}
	switch {
	case !validMethod:
		if req.Notif {
			return nil, nil // unknown notifications are ignored
		}
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "method not supported: " + req.Method}
	case !validParams:
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: fmt.Sprintf("invalid params for %s: %v", req.Method, err)}
	case err != nil:
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: err.Error()}
	}
	return r, nil
}

// stop cancels pending lints.
func (s *server) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for _, k := range s.kits {
		if k.timer != nil {
			k.timer.Stop()
		}
	}
}

// fixAllKind is the code action kind of "apply every safe fix".
const fixAllKind = "source.fixAll.kitsmith"

func (s *server) initialize(_ *glsp.Context, _ *protocol.InitializeParams) (any, error) {
	caps := s.handler.CreateServerCapabilities()
	full := protocol.TextDocumentSyncKindFull
	caps.TextDocumentSync = &protocol.TextDocumentSyncOptions{OpenClose: &protocol.True, Change: &full,
		Save: &protocol.SaveOptions{IncludeText: &protocol.False}}
	caps.CodeActionProvider = &protocol.CodeActionOptions{CodeActionKinds: []protocol.CodeActionKind{protocol.CodeActionKindQuickFix, fixAllKind}}
	caps.CompletionProvider = &protocol.CompletionOptions{TriggerCharacters: []string{".", ":", " ", "/"}}
	caps.HoverProvider = true
	caps.DefinitionProvider = true
	version := s.o.Version
	return protocol.InitializeResult{Capabilities: caps, ServerInfo: &protocol.InitializeResultServerInfo{Name: s.o.Name, Version: &version}}, nil
}

// uriPath turns a file: URI into an absolute path.
func uriPath(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", fmt.Errorf("document URI %q: %w", uri, err)
	}
	if u.Scheme != "file" {
		return "", fmt.Errorf("document URI %q is not a file: URI", uri)
	}
	return filepath.Clean(filepath.FromSlash(u.Path)), nil
}

// pathURI turns an absolute path into a file: URI.
func pathURI(p string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String()
}

func (s *server) didOpen(_ *glsp.Context, p *protocol.DidOpenTextDocumentParams) error {
	path, err := uriPath(p.TextDocument.URI)
	if err != nil {
		return nil // not a file: nothing to lint
	}
	s.mu.Lock()
	s.docs[path] = &document{uri: p.TextDocument.URI, path: path, version: p.TextDocument.Version, text: []byte(p.TextDocument.Text)}
	s.mu.Unlock()
	s.schedule(path, true)
	return nil
}

func (s *server) didChange(_ *glsp.Context, p *protocol.DidChangeTextDocumentParams) error {
	path, err := uriPath(p.TextDocument.URI)
	if err != nil {
		return nil
	}
	s.mu.Lock()
	d := s.docs[path]
	if d == nil {
		s.mu.Unlock()
		return nil
	}
	for _, c := range p.ContentChanges {
		switch c := c.(type) {
		case protocol.TextDocumentContentChangeEventWhole:
			d.text = []byte(c.Text)
		case protocol.TextDocumentContentChangeEvent:
			d.text = applyChange(d.text, c)
		}
	}
	d.version = p.TextDocument.Version
	s.mu.Unlock()
	s.schedule(path, false)
	return nil
}

func (s *server) didSave(_ *glsp.Context, p *protocol.DidSaveTextDocumentParams) error {
	path, err := uriPath(p.TextDocument.URI)
	if err != nil {
		return nil
	}
	if filepath.Base(path) == lint.ConfigFile {
		s.relintAll() // a saved configuration applies to every kit below it
		return nil
	}
	s.schedule(path, true)
	return nil
}

// relintAll lints every open kit again at once.
func (s *server) relintAll() {
	s.mu.Lock()
	paths := make([]string, 0, len(s.owner))
	for p := range s.owner {
		if _, open := s.docs[p]; open {
			paths = append(paths, p)
		}
	}
	s.mu.Unlock()
	for _, p := range paths {
		s.schedule(p, true)
	}
}

func (s *server) didClose(_ *glsp.Context, p *protocol.DidCloseTextDocumentParams) error {
	path, err := uriPath(p.TextDocument.URI)
	if err != nil {
		return nil
	}
	s.mu.Lock()
	delete(s.docs, path)
	s.mu.Unlock()
	s.schedule(path, true) // the disk's text now stands
	return nil
}

// kitPathOf returns the path to load the kit a document belongs to: the
// document itself for a YAML descriptor (one whose first line names the
// kit frontend, or the descriptor its directory's kit is found by) or a
// comment descriptor, else the directory whose kit reads it as its
// recipe; "" when it belongs to none (a compose file, .kitsmith.yaml).
func kitPathOf(path string, text []byte) string {
	base := filepath.Base(path)
	ext := strings.ToLower(filepath.Ext(base))
	switch {
	case base == lint.ConfigFile:
		return ""
	case ext == ".yaml" || ext == ".yml":
		first, _, _ := strings.Cut(string(text), "\n")
		if strings.HasPrefix(first, "# syntax=") && strings.Contains(first, "-kit") {
			return path
		}
		dir := filepath.Dir(path)
		if found, err := spec.Locate(os.DirFS(dir), ".", filepath.Base(dir)); err == nil && found == base {
			return path
		}
		return ""
	case isCommentDescriptor(text):
		return path
	}
	dir := filepath.Dir(path)
	if _, err := os.Stat(dir); err != nil {
		return ""
	}
	return dir
}

// isCommentDescriptor reports a Dockerfile carrying a "# kit:" block.
func isCommentDescriptor(text []byte) bool {
	_, _, ok := spec.ExtractComment(text)
	return ok
}

// schedule lints the kit of the document at path after the debounce (at
// once when now is set: open, save and close).
func (s *server) schedule(path string, now bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	var text []byte
	if d := s.docs[path]; d != nil {
		text = d.text
	}
	kp := kitPathOf(path, text)
	if kp == "" {
		return
	}
	s.owner[path] = kp
	ks := s.kits[kp]
	if ks == nil {
		ks = &kitState{}
		s.kits[kp] = ks
	}
	ks.gen++
	gen := ks.gen
	if ks.timer != nil {
		ks.timer.Stop()
	}
	wait := s.o.Debounce
	if wait == 0 {
		wait = DefaultDebounce
	}
	if now || wait < 0 {
		wait = 0
	}
	ks.timer = time.AfterFunc(wait, func() { s.lintKit(kp, gen) })
}

// overlay returns the text of every open document, and their versions.
func (s *server) overlay() (map[string][]byte, map[string]int32) {
	files := make(map[string][]byte, len(s.docs))
	versions := make(map[string]int32, len(s.docs))
	for p, d := range s.docs {
		files[p] = d.text
		versions[p] = d.version
	}
	return files, versions
}

// lintKit lints the kit at kp as of generation gen and publishes the
// diagnostics, unless a newer change came in meanwhile (then its own lint
// publishes).
func (s *server) lintKit(kp string, gen uint64) {
	s.mu.Lock()
	if s.closed || s.kits[kp].gen != gen {
		s.mu.Unlock()
		return
	}
	files, versions := s.overlay()
	s.mu.Unlock()

	snap, err := lintSnapshot(kp, files, versions)
	if err != nil {
		s.logf("%v", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ks := s.kits[kp]
	if s.closed || ks.gen != gen {
		return // stale: a newer lint is scheduled
	}
	ks.result = snap
	s.publish(kp, snap)
}

// lintSnapshot loads and lints the kit at kp with files over the disk.
func lintSnapshot(kp string, files map[string][]byte, versions map[string]int32) (*snapshot, error) {
	k, err := spec.LoadPath(kp, spec.WithOverlay(files))
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", kp, err)
	}
	res, err := lint.Run(context.Background(), []*spec.Kit{k}, lint.WithKitConfig())
	if err != nil {
		return nil, fmt.Errorf("linting %s: %w", kp, err)
	}
	return &snapshot{kit: k, res: res, sources: k.SourceFiles(), versions: versions}, nil
}

// publish sends the diagnostics of snap, per file, with the version of
// the document they were computed from; files that had diagnostics and
// have none now are cleared. s.mu is held.
func (s *server) publish(kp string, snap *snapshot) {
	byFile := map[string][]protocol.Diagnostic{}
	if snap != nil {
		for p := range snap.sources {
			byFile[p] = []protocol.Diagnostic{}
		}
		for _, f := range snap.res.Findings {
			file := f.Range.Start.File
			if file == "" {
				file = f.Kit
			}
			byFile[file] = append(byFile[file], s.diagnostic(snap, f))
		}
	}
	prev := s.shown[kp]
	now := map[string]bool{}
	for file, diags := range byFile {
		if len(diags) == 0 && !prev[file] {
			if _, open := s.docs[file]; !open {
				continue
			}
		}
		params := protocol.PublishDiagnosticsParams{URI: pathURI(file), Diagnostics: diags}
		if v, ok := snap.versions[file]; ok {
			uv := protocol.UInteger(v)
			params.Version = &uv
		}
		if len(diags) > 0 {
			now[file] = true
		}
		s.notify(protocol.ServerTextDocumentPublishDiagnostics, params)
	}
	for file := range prev {
		if _, ok := byFile[file]; !ok {
			s.notify(protocol.ServerTextDocumentPublishDiagnostics, protocol.PublishDiagnosticsParams{URI: pathURI(file), Diagnostics: []protocol.Diagnostic{}})
		}
	}
	s.shown[kp] = now
}

var severities = map[lint.Severity]protocol.DiagnosticSeverity{
	lint.SeverityError: protocol.DiagnosticSeverityError, lint.SeverityWarning: protocol.DiagnosticSeverityWarning,
	lint.SeverityInfo: protocol.DiagnosticSeverityInformation,
}

// diagnostic turns a finding into an LSP diagnostic.
func (s *server) diagnostic(snap *snapshot, f *lint.Finding) protocol.Diagnostic {
	src := snap.sources[f.Range.Start.File]
	sev := severities[f.Severity]
	source := "kitsmith"
	msg := f.Message
	if f.Fix != "" {
		msg += "\nfix: " + f.Fix
	}
	return protocol.Diagnostic{Range: lspRange(src, f.Range), Severity: &sev, Code: &protocol.IntegerOrString{Value: f.RuleID},
		CodeDescription: &protocol.CodeDescription{HRef: lint.HelpURI(f.RuleID)}, Source: &source, Message: msg}
}

// current returns the snapshot of the kit of the document at path when it
// was computed from the document's current text, linting now if it was
// not.
func (s *server) current(path string) (*snapshot, *document) {
	s.mu.Lock()
	d := s.docs[path]
	kp := s.owner[path]
	var snap *snapshot
	if ks := s.kits[kp]; ks != nil {
		snap = ks.result
	}
	if d == nil || kp == "" {
		s.mu.Unlock()
		return nil, d
	}
	fresh := snap != nil
	if fresh {
		for p, doc := range s.docs {
			if v, ok := snap.versions[p]; !ok && s.owner[p] == kp || ok && v != doc.version {
				fresh = false
			}
		}
	}
	if fresh {
		s.mu.Unlock()
		return snap, d
	}
	files, versions := s.overlay()
	s.mu.Unlock()
	snap, err := lintSnapshot(kp, files, versions)
	if err != nil {
		s.logf("%v", err)
		return nil, d
	}
	return snap, d
}
