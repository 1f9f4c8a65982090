package lint

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// yamlTree is the kit's descriptor parsed again with yaml.v3 for edits:
// node positions, mapped to byte offsets of the file the descriptor is in.
type yamlTree struct {
	root    *yaml.Node
	lines   [][]byte // the descriptor YAML's lines
	origins []spec.LineOrigin
	file    string
	src     []byte // the text of file
}

// tree returns the descriptor's yaml tree, or nil when it does not parse.
func (in *Input) tree() *yamlTree {
	if in.once("tree") {
		in.ytree = in.parseTree()
	}
	return in.ytree
}

func (in *Input) parseTree() *yamlTree {
	k := in.Kit
	src := in.source(k.Path)
	if src == nil || k.Source == nil {
		return nil
	}
	t := &yamlTree{lines: bytes.Split(k.Source, []byte("\n")), file: k.Path, src: src}
	if k.Form == spec.FormComment {
		_, t.origins, _ = spec.ExtractComment(src)
		if t.origins == nil {
			return nil
		}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(k.Source, &doc); err != nil || doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil
	}
	t.root = doc.Content[0]
	if t.root.Kind != yaml.MappingNode {
		return nil
	}
	return t
}

// node returns the key and value nodes at a dotted field path, or nils.
// Aliases and merge keys are not followed: a fix edits only what is
// written where the finding is.
func (t *yamlTree) node(field string) (key, val *yaml.Node) {
	val = t.root
	for _, tok := range fieldTokens(field) {
		switch val.Kind {
		case yaml.MappingNode:
			key = nil
			for i := 0; i+1 < len(val.Content); i += 2 {
				if val.Content[i].Value == tok && val.Content[i].Tag != "!!merge" {
					key = val.Content[i]
					break
				}
			}
			if key == nil {
				return nil, nil
			}
			val = val.Content[slices.Index(val.Content, key)+1]
		case yaml.SequenceNode:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(val.Content) {
				return nil, nil
			}
			key, val = nil, val.Content[i]
		default:
			return nil, nil
		}
		if val.Kind == yaml.AliasNode {
			return nil, nil
		}
	}
	return key, val
}

// fieldTokens splits a dotted field path (capabilities[2].config.env)
// into its keys and indexes.
func fieldTokens(field string) []string {
	var out []string
	for _, part := range strings.Split(field, ".") {
		for part != "" {
			i := strings.IndexByte(part, '[')
			if i < 0 {
				out = append(out, part)
				break
			}
			if i > 0 {
				out = append(out, part[:i])
			}
			j := strings.IndexByte(part[i:], ']')
			if j < 0 {
				out = append(out, part[i+1:])
				break
			}
			out = append(out, part[i+1:i+j])
			part = part[i+j+1:]
		}
	}
	return out
}

// offset returns the byte offset in the file of a yaml.v3 line and column
// of the descriptor YAML, or -1.
func (t *yamlTree) offset(line, col int) int {
	if line < 1 || line > len(t.lines) {
		return -1
	}
	bcol := runeCol(t.lines[line-1], col)
	if t.origins != nil {
		if line > len(t.origins) {
			return -1
		}
		o := t.origins[line-1]
		return offsetAt(t.src, o.Line, bcol+o.Offset)
	}
	return offsetAt(t.src, line, bcol)
}

// prefix returns what a new line inserted next to YAML line line must
// start with in the file: "" for a YAML file, the comment marker of a
// comment descriptor ("# ").
func (t *yamlTree) prefix(line int) string {
	if t.origins == nil || line < 1 || line > len(t.origins) {
		return ""
	}
	o := t.origins[line-1]
	off := offsetAt(t.src, o.Line, 1)
	if off < 0 || off+o.Offset > len(t.src) {
		return ""
	}
	return string(t.src[off : off+o.Offset])
}

// indent returns YAML line line's indentation: its leading spaces.
func (t *yamlTree) indent(line int) string {
	if line < 1 || line > len(t.lines) {
		return ""
	}
	l := t.lines[line-1]
	return string(l[:len(l)-len(bytes.TrimLeft(l, " "))])
}

// span returns the file offsets of a node written on one line: a plain or
// quoted scalar, or a flow sequence or mapping.
func (t *yamlTree) span(n *yaml.Node) (start, end int, ok bool) {
	start = t.offset(n.Line, n.Column)
	if start < 0 {
		return 0, 0, false
	}
	lineEnd := bytes.IndexByte(t.src[start:], '\n')
	if lineEnd < 0 {
		lineEnd = len(t.src) - start
	}
	line := t.src[start : start+lineEnd]
	switch {
	case n.Kind == yaml.ScalarNode && n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0:
		q := line[0]
		for i := 1; i < len(line); i++ {
			switch {
			case q == '"' && line[i] == '\\':
				i++
			case q == '\'' && line[i] == '\'' && i+1 < len(line) && line[i+1] == '\'':
				i++
			case line[i] == q:
				return start, start + i + 1, true
			}
		}
		return 0, 0, false
	case n.Kind == yaml.ScalarNode && n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) == 0:
		if n.Tag == "!!null" && n.Value == "" || !bytes.HasPrefix(line, []byte(n.Value)) || n.Value == "" {
			return 0, 0, false
		}
		return start, start + len(n.Value), true
	case n.Style&yaml.FlowStyle != 0 && (n.Kind == yaml.SequenceNode || n.Kind == yaml.MappingNode):
		depth := 0
		var quote byte
		for i := 0; i < len(line); i++ {
			c := line[i]
			switch {
			case quote == '"' && c == '\\':
				i++
			case quote != 0 && c == quote:
				quote = 0
			case quote != 0:
			case c == '"' || c == '\'':
				quote = c
			case c == '[' || c == '{':
				depth++
			case c == ']' || c == '}':
				depth--
				if depth == 0 {
					return start, start + i + 1, true
				}
			}
		}
	}
	return 0, 0, false
}

// replaceNode returns an edit that writes text in place of the one-line
// node n.
func (t *yamlTree) replaceNode(n *yaml.Node, text string) (TextEdit, bool) {
	start, end, ok := t.span(n)
	if !ok {
		return TextEdit{}, false
	}
	return editAt(t.file, t.src, start, end, text)
}

// insertAt returns an edit inserting text at a file offset.
func (t *yamlTree) insertAt(off int, text string) (TextEdit, bool) {
	return editAt(t.file, t.src, off, off, text)
}

// newLines returns text, whose lines after the first are new lines of the
// descriptor YAML, with the file's line prefix (a comment descriptor's #)
// at the start of each new line.
func (t *yamlTree) newLines(text string, line int) string {
	p := t.prefix(line)
	if p == "" {
		return text
	}
	return strings.ReplaceAll(text, "\n", "\n"+p)
}

// addToList returns an edit adding names to the sequence at field (a
// hook's env:), or creating the key in the mapping at owner when it is
// absent: a flow list gets ", NAME", a block list a "- NAME" line per
// name, and a missing key "env: [NAME]" as the mapping's first key.
func (t *yamlTree) addToList(owner, key string, names []string) (TextEdit, bool) {
	if t == nil || len(names) == 0 {
		return TextEdit{}, false
	}
	_, m := t.node(owner)
	if m == nil || m.Kind != yaml.MappingNode || len(m.Content) < 2 {
		return TextEdit{}, false
	}
	_, seq := t.node(owner + "." + key)
	if seq == nil {
		first := m.Content[0]
		off := t.offset(first.Line, first.Column)
		if off < 0 {
			return TextEdit{}, false
		}
		entry := key + ": [" + strings.Join(names, ", ") + "]"
		if m.Style&yaml.FlowStyle != 0 {
			return t.insertAt(off, entry+", ")
		}
		col := runeCol(t.lines[first.Line-1], first.Column)
		return t.insertAt(off, t.newLines(entry+"\n"+strings.Repeat(" ", col-1), first.Line))
	}
	if seq.Kind != yaml.SequenceNode {
		return TextEdit{}, false
	}
	if seq.Style&yaml.FlowStyle != 0 {
		start, end, ok := t.span(seq)
		if !ok {
			return TextEdit{}, false
		}
		if len(seq.Content) == 0 {
			return editAt(t.file, t.src, start, end, "["+strings.Join(names, ", ")+"]")
		}
		_, lastEnd, ok := t.span(seq.Content[len(seq.Content)-1])
		if !ok || lastEnd > end {
			return TextEdit{}, false
		}
		return t.insertAt(lastEnd, ", "+strings.Join(names, ", "))
	}
	last := seq.Content[len(seq.Content)-1]
	if last.Kind != yaml.ScalarNode || last.Line > len(t.lines) {
		return TextEdit{}, false
	}
	_, end, ok := t.span(last)
	if !ok {
		return TextEdit{}, false
	}
	lineEnd := bytes.IndexByte(t.src[end:], '\n')
	if lineEnd < 0 {
		lineEnd = len(t.src) - end
	}
	// "      - " before the last item, as written.
	text := t.lines[last.Line-1]
	dash := string(text[:runeCol(text, last.Column)-1])
	if strings.TrimSpace(dash) != "-" {
		return TextEdit{}, false
	}
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "\n%s%s", dash, n)
	}
	return t.insertAt(end+lineEnd, t.newLines(b.String(), last.Line))
}

// renameKey returns an edit writing name in place of the key at field.
func (t *yamlTree) renameKey(field, name string) (TextEdit, bool) {
	if t == nil {
		return TextEdit{}, false
	}
	k, _ := t.node(field)
	if k == nil || k.Kind != yaml.ScalarNode {
		return TextEdit{}, false
	}
	return t.replaceNode(k, name)
}

// replaceValue returns an edit writing text in place of the one-line
// scalar value at field.
func (t *yamlTree) replaceValue(field, text string) (TextEdit, bool) {
	if t == nil {
		return TextEdit{}, false
	}
	_, v := t.node(field)
	if v == nil || v.Kind != yaml.ScalarNode {
		return TextEdit{}, false
	}
	return t.replaceNode(v, text)
}

// envFix returns the fix adding names to hook h's env: list; none for a
// lifecycle file's script (its env is the hook's that runs it) or a hook
// the tree cannot edit.
func (in *Input) envFix(h *Hook, safe bool, names ...string) []Fix {
	if h.Via != "" && h.Source == "" {
		return nil
	}
	var add []string
	for _, n := range names {
		if isVarName(n) && !h.Declares(n) && !slices.Contains(add, n) {
			add = append(add, n)
		}
	}
	e, ok := in.tree().addToList(h.Field, "env", add)
	if !ok {
		return nil
	}
	return in.fix(fmt.Sprintf("add %s to the env: list of %s", strings.Join(add, " and "), h.Label()), safe, e)
}
