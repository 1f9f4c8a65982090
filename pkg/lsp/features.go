package lsp

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/kitsmith/kitsmith/pkg/lint"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// workspaceEdit turns text edits into an LSP workspace edit, converting
// byte offsets with the text each file had when the fix was computed.
func workspaceEdit(snap *snapshot, edits []lint.TextEdit) *protocol.WorkspaceEdit {
	changes := map[protocol.DocumentUri][]protocol.TextEdit{}
	for _, e := range edits {
		src := snap.sources[e.File]
		uri := pathURI(e.File)
		changes[uri] = append(changes[uri], protocol.TextEdit{
			Range:   protocol.Range{Start: offsetPosition(src, e.Offset), End: offsetPosition(src, e.EndOffset)},
			NewText: e.NewText,
		})
	}
	return &protocol.WorkspaceEdit{Changes: changes}
}

// wants reports whether a code action request asks for kind: every kind
// when only is empty, else kind or a parent of it.
func wants(only []protocol.CodeActionKind, kind string) bool {
	if len(only) == 0 {
		return true
	}
	for _, o := range only {
		if kind == o || strings.HasPrefix(kind, o+".") {
			return true
		}
	}
	return false
}

func overlaps(a, b protocol.Range) bool {
	before := func(p, q protocol.Position) bool {
		return p.Line < q.Line || p.Line == q.Line && p.Character < q.Character
	}
	return !before(a.End, b.Start) && !before(b.End, a.Start)
}

func (s *server) codeAction(_ *glsp.Context, p *protocol.CodeActionParams) (any, error) {
	path, err := uriPath(p.TextDocument.URI)
	if err != nil {
		return nil, nil
	}
	snap, _ := s.current(path)
	if snap == nil {
		return []protocol.CodeAction{}, nil
	}
	actions := []protocol.CodeAction{}
	quick := protocol.CodeActionKindQuickFix
	var mine []*lint.Finding
	for _, f := range snap.res.Findings {
		if f.Range.Start.File != path || len(f.Fixes) == 0 {
			continue
		}
		mine = append(mine, f)
		d := s.diagnostic(snap, f)
		if !wants(p.Context.Only, quick) || !overlaps(d.Range, p.Range) {
			continue
		}
		for i, fx := range f.Fixes {
			title := fx.Title
			if !fx.Safe {
				title += " (unsafe)"
			}
			preferred := fx.Safe && i == 0
			actions = append(actions, protocol.CodeAction{Title: title, Kind: &quick, Diagnostics: []protocol.Diagnostic{d},
				IsPreferred: &preferred, Edit: workspaceEdit(snap, fx.Edits)})
		}
	}
	if wants(p.Context.Only, fixAllKind) && len(mine) > 0 {
		edits, chosen := lint.PlanFixes(&lint.Result{Findings: mine}, lint.SafeFixes)
		if len(chosen) > 0 {
			var all []lint.TextEdit
			for _, file := range sortedKeys(edits) {
				all = append(all, edits[file]...)
			}
			kind := fixAllKind
			actions = append(actions, protocol.CodeAction{Title: fmt.Sprintf("Apply the %d safe kitsmith fixes", len(chosen)), Kind: &kind,
				Edit: workspaceEdit(snap, all)})
		}
	}
	return actions, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// yamlLine returns the YAML text of file line line (0-based) of a
// document: the line itself, or for a comment descriptor the line without
// its comment marker, and how many bytes were cut.
func yamlLine(text []byte, line int) (string, int) {
	lines := strings.Split(string(text), "\n")
	if line < 0 || line >= len(lines) {
		return "", 0
	}
	l := strings.TrimSuffix(lines[line], "\r")
	if _, origins, ok := spec.ExtractComment(text); ok {
		for _, o := range origins {
			if o.Line == line+1 && o.Offset <= len(l) {
				return l[o.Offset:], o.Offset
			}
		}
	}
	return l, 0
}

// yamlLines returns every line of a document as YAML text (see yamlLine).
func yamlLines(text []byte) []string {
	lines := strings.Split(string(text), "\n")
	out := make([]string, len(lines))
	_, origins, ok := spec.ExtractComment(text)
	for i, l := range lines {
		out[i] = strings.TrimSuffix(l, "\r")
		if !ok {
			continue
		}
		out[i] = ""
	}
	if ok {
		for _, o := range origins {
			if i := o.Line - 1; i >= 0 && i < len(lines) && o.Offset <= len(lines[i]) {
				out[i] = strings.TrimSuffix(lines[i][o.Offset:], "\r")
			}
		}
	}
	return out
}

var wordRE = regexp.MustCompile(`[A-Za-z0-9_./@:-]+`)

// wordAt returns the word of line around byte column col, trimmed of a
// trailing colon (a key), and whether the word is a key.
func wordAt(line string, col int) (string, bool) {
	for _, m := range wordRE.FindAllStringIndex(line, -1) {
		if m[0] <= col && col <= m[1] {
			w := line[m[0]:m[1]]
			isKey := strings.HasSuffix(w, ":") || strings.HasPrefix(strings.TrimLeft(line[m[1]:], " "), ":")
			return strings.TrimSuffix(w, ":"), isKey
		}
	}
	return "", false
}

// argRefAt returns the arg a ${{ kit.args.NAME }} reference at byte
// column col of line names.
func argRefAt(line string, col int) (string, bool) {
	for _, m := range spec.FindArgRefs(line) {
		if m.Start <= col && col <= m.End {
			return m.Name, true
		}
	}
	return "", false
}

// ruleDoc renders a rule's documentation as Markdown.
func ruleDoc(id string) (string, bool) {
	var r *lint.Rule
	if lint.IsSpecRule(id) {
		r = lint.SpecRule(strings.TrimPrefix(id, lint.SpecPrefix))
	} else {
		for _, c := range append(lint.DefaultRules(), lint.MetaRules()...) {
			if c.ID == id {
				r = c
			}
		}
	}
	if r == nil {
		return "", false
	}
	return fmt.Sprintf("**%s** (%s)\n\n%s\n\n%s\n\n**Fix:** %s\n\n[Documentation](%s)", id, r.Severity, r.Summary, r.Rationale, r.Fix, lint.HelpURI(id)), true
}

// cursor returns the open document at uri with its latest lint snapshot,
// and the YAML line under pos with pos's byte column in it (a comment
// descriptor's "# " prefix cut); d is nil for a document not open.
func (s *server) cursor(uri protocol.DocumentUri, pos protocol.Position) (snap *snapshot, d *document, line string, col int) {
	path, err := uriPath(uri)
	if err != nil {
		return nil, nil, "", 0
	}
	snap, d = s.current(path)
	if d == nil {
		return nil, nil, "", 0
	}
	line, cut := yamlLine(d.text, int(pos.Line))
	return snap, d, line, byteOffset(d.text, pos) - lineStart(d.text, int(pos.Line)+1) - cut
}

func markdown(s string) protocol.MarkupContent {
	return protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: s}
}

func (s *server) hover(_ *glsp.Context, p *protocol.HoverParams) (*protocol.Hover, error) {
	snap, d, line, col := s.cursor(p.TextDocument.URI, p.Position)
	if d == nil {
		return nil, nil
	}
	if name, ok := argRefAt(line, col); ok {
		if snap == nil || snap.kit.Descriptor == nil {
			return nil, nil
		}
		a, declared := snap.kit.Descriptor.Args[name]
		if !declared {
			return &protocol.Hover{Contents: markdown(fmt.Sprintf("arg **%s** is not declared under args:", name))}, nil
		}
		return &protocol.Hover{Contents: markdown(argDoc(name, a))}, nil
	}
	word, isKey := wordAt(line, col)
	if word == "" {
		return nil, nil
	}
	if doc, ok := ruleDoc(word); ok {
		return &protocol.Hover{Contents: markdown(doc)}, nil
	}
	idx := schemaIndexOnce()
	if t := spec.CanonicalType(word); slices.Contains(spec.KnownTypes(), t) {
		return &protocol.Hover{Contents: markdown(fmt.Sprintf("**%s**\n\n%s", t, idx.typeDescription(t)))}, nil
	}
	if isKey {
		ctx := contextAt(yamlLines(d.text), int(p.Position.Line))
		ctx.config = filepath.Base(d.path) == lint.ConfigFile
		if desc := idx.keyDescription(ctx, word); desc != "" {
			return &protocol.Hover{Contents: markdown(fmt.Sprintf("**%s**\n\n%s", word, desc))}, nil
		}
	}
	return nil, nil
}

// argDoc renders an arg's declaration.
func argDoc(name string, a spec.Arg) string {
	var b strings.Builder
	fmt.Fprintf(&b, "arg **%s**", name)
	if a.Description != "" {
		fmt.Fprintf(&b, "\n\n%s", a.Description)
	}
	if a.Required {
		b.WriteString("\n\nrequired")
	}
	if a.Default != nil {
		fmt.Fprintf(&b, "\n\ndefault: `%s`", *a.Default)
	}
	if a.Env != "" {
		fmt.Fprintf(&b, "\n\nexported as `%s`", a.Env)
	}
	return b.String()
}

var (
	typeValueRE = regexp.MustCompile(`^\s*(?:-\s+)?type:\s*\S*$`)
	keyStartRE  = regexp.MustCompile(`^\s*(?:-\s+)?[A-Za-z_]*$`)
	argPrefixRE = regexp.MustCompile(`\$\{\{\s*kit\.args\.([A-Za-z0-9_]*)$`)
)

func (s *server) completion(_ *glsp.Context, p *protocol.CompletionParams) (any, error) {
	snap, d, line, col := s.cursor(p.TextDocument.URI, p.Position)
	if d == nil {
		return nil, nil
	}
	col = min(max(col, 0), len(line))
	before := line[:col]
	items := []protocol.CompletionItem{}
	switch {
	case argPrefixRE.MatchString(before):
		kind := protocol.CompletionItemKindVariable
		if snap != nil && snap.kit.Descriptor != nil {
			for _, name := range sortedKeys(snap.kit.Descriptor.Args) {
				doc := argDoc(name, snap.kit.Descriptor.Args[name])
				items = append(items, protocol.CompletionItem{Label: name, Kind: &kind, Documentation: markdown(doc)})
			}
		}
	case typeValueRE.MatchString(before):
		kind := protocol.CompletionItemKindEnumMember
		idx := schemaIndexOnce()
		for _, t := range spec.KnownTypes() {
			detail := "capability type"
			items = append(items, protocol.CompletionItem{Label: t, Kind: &kind, Detail: &detail, Documentation: markdown(idx.typeDescription(t))})
		}
	case keyStartRE.MatchString(before):
		kind := protocol.CompletionItemKindProperty
		ctx := contextAt(yamlLines(d.text), int(p.Position.Line))
		ctx.config = filepath.Base(d.path) == lint.ConfigFile
		keys := schemaIndexOnce().keys(ctx)
		for _, k := range sortedKeys(keys) {
			insert := k + ": "
			items = append(items, protocol.CompletionItem{Label: k, Kind: &kind, InsertText: &insert, Documentation: markdown(keys[k])})
		}
	}
	return items, nil
}

func (s *server) definition(_ *glsp.Context, p *protocol.DefinitionParams) (any, error) {
	snap, d, line, col := s.cursor(p.TextDocument.URI, p.Position)
	if d == nil || snap == nil || snap.kit.Descriptor == nil {
		return nil, nil
	}
	name, ok := argRefAt(line, col)
	if !ok {
		return nil, nil
	}
	if _, declared := snap.kit.Descriptor.Args[name]; !declared {
		return nil, nil
	}
	r := snap.kit.KeyPosOf("args." + name)
	src := snap.sources[r.Start.File]
	return protocol.Location{URI: pathURI(r.Start.File), Range: lspRange(src, r)}, nil
}
