package spec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// Limits that keep hostile documents bounded in time and memory. A real
// descriptor is far inside all of them.
const (
	// MaxDescriptorBytes is the descriptor size budget (SPEC-v3: an error
	// above 512 KiB). Larger descriptors are not parsed at all.
	MaxDescriptorBytes = 512 * 1024
	// WarnDescriptorBytes is the size above which a descriptor draws a
	// warning (SPEC-v3: 64 KiB).
	WarnDescriptorBytes = 64 * 1024
	// maxDepth bounds the nesting of mappings and sequences.
	maxDepth = 64
	// maxAliasNodes bounds how many nodes alias expansion may add.
	maxAliasNodes = 100_000
)

// document is a parsed YAML descriptor that can map a path in the decoded
// value back to its source position.
type document struct {
	file string
	src  []byte
	root *yaml.Node // top-level value node, never a DocumentNode
	// lines maps a line of src (1-based) to a file line and a column
	// offset; nil means identity. Comment descriptors use it.
	lines []lineMap
}

type lineMap struct{ line, colOff int }

var yamlErrLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parserErrors are the yaml.v3 parser's messages (as opposed to its
// scanner's).
var parserErrors = []string{
	"did not find expected <document start>", "did not find expected node content", "did not find expected key",
	"did not find expected '-' indicator", "did not find expected ',' or ']'", "did not find expected ',' or '}'",
}

// parseDocument parses src as one YAML document. The error, if any, is a
// positioned *Error.
func parseDocument(file string, src []byte, lines []lineMap) (*document, *Error) {
	d := &document{file: file, src: src, lines: lines}
	if !utf8.Valid(src) {
		off := firstInvalidUTF8(src)
		line := 1 + bytes.Count(src[:off], []byte("\n"))
		col := off - bytes.LastIndexByte(src[:off], '\n')
		return nil, &Error{Range: Range{Start: d.mapPos(line, col)}, Code: "not-utf8",
			Msg: fmt.Sprintf("descriptor is not valid UTF-8 (byte 0x%02x at offset %d); save the file as UTF-8", src[off], off)}
	}
	if i := bytes.IndexByte(src, 0); i >= 0 {
		line := 1 + bytes.Count(src[:i], []byte("\n"))
		return nil, &Error{Range: Range{Start: d.mapPos(line, 1)}, Code: "yaml-syntax",
			Msg: "descriptor contains a NUL byte; it is not a text file"}
	}
	if off, r, ok := firstControl(src); ok {
		line := 1 + bytes.Count(src[:off], []byte("\n"))
		col := off - bytes.LastIndexByte(src[:off], '\n')
		return nil, &Error{Range: Range{Start: d.mapPos(line, col)}, Code: "yaml-syntax",
			Msg: fmt.Sprintf("descriptor holds the control character %U, which YAML does not allow; remove it or write it as an escape in a double-quoted string (\"\\x%02x\")", r, r)}
	}
	dec := yaml.NewDecoder(bytes.NewReader(src))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &Error{Range: Range{Start: d.mapPos(1, 1)}, Code: "empty-descriptor",
				Msg: "descriptor is empty; a kit needs at least schemaVersion and kind"}
		}
		return nil, d.yamlError(err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, &Error{Range: Range{Start: d.mapPos(extra.Line, 1)}, Code: "yaml-syntax",
			Msg: "descriptor holds more than one YAML document; remove the extra '---' section"}
	} else if !errors.Is(err, io.EOF) {
		return nil, d.yamlError(err)
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind != yaml.MappingNode {
		return nil, &Error{Range: d.rangeOf(root), Code: "wrong-type",
			Msg: "descriptor must be a YAML mapping of fields (schemaVersion, kind, …)"}
	}
	d.root = root
	return d, nil
}

// firstControl returns the byte offset of the first character YAML does
// not allow in a stream (C0 controls other than tab, line feed and carriage
// return, DEL, C1 controls other than NEL, U+FFFE and U+FFFF), as yaml.v3
// would refuse it without a position. src is valid UTF-8 without NUL.
func firstControl(src []byte) (int, rune, bool) {
	for i := 0; i < len(src); {
		r, n := utf8.DecodeRune(src[i:])
		switch {
		case r == '\t' || r == '\n' || r == '\r':
		case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f && r != 0x85 || r == 0xfffe || r == 0xffff:
			return i, r, true
		}
		i += n
	}
	return 0, 0, false
}

func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return 0
}

func (d *document) yamlError(err error) *Error {
	msg := err.Error()
	line, relocated := 1, false
	if m := yamlErrLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
		// yaml.v3 numbers a parser error's line from 0 (the line of the
		// construct it was parsing); scanner errors are numbered from 1.
		for _, p := range parserErrors {
			if strings.HasPrefix(msg, p) {
				line++
				if at := offendingLine(d.src, line, msg); at != line && (p == "did not find expected key" || p == "did not find expected '-' indicator") {
					line, relocated = at, true
				}
				break
			}
		}
		line = min(line, 1+bytes.Count(d.src, []byte("\n")))
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
	}
	if isTabMessage(msg) {
		if col := tabIndent(d.src, line); col > 0 {
			return &Error{Range: Range{Start: d.mapPos(line, col)}, Code: "yaml-syntax", Err: err,
				Msg: "invalid YAML: tabs cannot indent YAML; use spaces"}
		}
	}
	col := 1
	if relocated {
		col = firstNonBlank(d.src, line)
		msg += "; the indentation of this line matches no key or list above it"
	}
	return &Error{Range: Range{Start: d.mapPos(line, col)}, Code: "yaml-syntax", Err: err,
		Msg: "invalid YAML: " + msg}
}

// mapPos turns a line and column of d.src into a file position.
func (d *document) mapPos(line, col int) Pos {
	if line <= 0 {
		return Pos{File: d.file}
	}
	if d.lines != nil && line <= len(d.lines) {
		m := d.lines[line-1]
		return Pos{File: d.file, Line: m.line, Col: col + m.colOff}
	}
	return Pos{File: d.file, Line: line, Col: col}
}

// rangeOf returns the source range of n. The end is known for scalars that
// sit on one line.
func (d *document) rangeOf(n *yaml.Node) Range {
	if n == nil {
		return Range{Start: Pos{File: d.file}}
	}
	r := Range{Start: d.mapPos(n.Line, n.Column)}
	if n.Kind == yaml.ScalarNode && !strings.Contains(n.Value, "\n") {
		w := len(n.Value)
		switch n.Style {
		case yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle:
			w += 2
		case yaml.LiteralStyle, yaml.FoldedStyle:
			return r
		}
		r.End = d.mapPos(n.Line, n.Column+w)
	}
	return r
}

// value converts the document into the JSON data model (map[string]any,
// []any, string, json.Number, bool, nil) that JSON Schema validates,
// expanding aliases and merge keys within the package limits.
func (d *document) value() (any, Errors) {
	c := converter{d: d}
	v := c.convert(d.root, 0)
	return v, c.errs
}

type converter struct {
	d       *document
	errs    Errors
	aliased int
	failed  bool
}

func (c *converter) fail(n *yaml.Node, code, format string, args ...any) {
	c.errs = append(c.errs, &Error{Range: c.d.rangeOf(n), Code: code, Msg: fmt.Sprintf(format, args...)})
}

func (c *converter) convert(n *yaml.Node, depth int) any {
	if c.failed {
		return nil
	}
	if depth > maxDepth {
		c.fail(n, "too-deep", "YAML nesting is deeper than %d levels; a kit descriptor never needs that", maxDepth)
		c.failed = true
		return nil
	}
	switch n.Kind {
	case yaml.AliasNode:
		c.aliased += countNodes(n.Alias, maxAliasNodes+1)
		if c.aliased > maxAliasNodes {
			c.fail(n, "excessive-aliasing", "YAML aliases expand to more than %d nodes; write the values out instead of nesting aliases", maxAliasNodes)
			c.failed = true
			return nil
		}
		return c.convert(n.Alias, depth+1)
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil
		}
		return c.convert(n.Content[0], depth)
	case yaml.MappingNode:
		c.explicitTag(n)
		return c.mapping(n, depth)
	case yaml.SequenceNode:
		c.explicitTag(n)
		out := make([]any, 0, len(n.Content))
		for _, e := range n.Content {
			out = append(out, c.convert(e, depth+1))
		}
		return out
	case yaml.ScalarNode:
		return c.scalar(n)
	}
	return nil
}

func countNodes(n *yaml.Node, limit int) int {
	count := 1
	for _, ch := range n.Content {
		if count > limit {
			break
		}
		if ch.Kind == yaml.AliasNode {
			count += countNodes(ch.Alias, limit-count)
		} else {
			count += countNodes(ch, limit-count)
		}
	}
	return count
}

func (c *converter) mapping(n *yaml.Node, depth int) map[string]any {
	out := make(map[string]any, len(n.Content)/2)
	seen := make(map[string]*yaml.Node, len(n.Content)/2)
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			merges = append(merges, v)
			continue
		}
		if k.Kind != yaml.ScalarNode {
			c.fail(k, "wrong-type", "mapping keys must be plain strings")
			continue
		}
		if first, dup := seen[k.Value]; dup {
			c.fail(k, "duplicate-key", "key %q is already defined at line %d; remove one of them", k.Value, c.d.mapPos(first.Line, first.Column).Line)
			continue
		}
		seen[k.Value] = k
		out[k.Value] = c.convert(v, depth+1)
	}
	for _, m := range merges {
		for _, src := range mergeSources(m) {
			mv, ok := c.convert(src, depth+1).(map[string]any)
			if !ok {
				c.fail(m, "wrong-type", "a YAML merge key (<<) must name a mapping")
				continue
			}
			for k, v := range mv {
				if _, explicit := out[k]; !explicit {
					out[k] = v
				}
			}
		}
	}
	return out
}

// mergeSources lists the mappings a merge key's value names, in priority
// order.
func mergeSources(v *yaml.Node) []*yaml.Node {
	if v.Kind == yaml.SequenceNode {
		return v.Content
	}
	return []*yaml.Node{v}
}

// explicitTag reports a node whose tag is written out in the source (!!binary,
// !!int, a local !tag …). Only !!str, which spells the default reading of a
// quoted string, is accepted: a kit descriptor holds plain values, and a tag
// silently changes what a field holds (!!binary keeps the base64 text).
func (c *converter) explicitTag(n *yaml.Node) bool {
	if n.Style&yaml.TaggedStyle == 0 || n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" {
		return false
	}
	c.fail(n, "yaml-tag", "explicit YAML tag %s is not allowed in a kit descriptor; write the plain value without the tag", n.Tag)
	return true
}

func (c *converter) scalar(n *yaml.Node) any {
	if c.explicitTag(n) {
		return n.Value
	}
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		return strings.EqualFold(n.Value, "true")
	case "!!int":
		s := strings.ReplaceAll(n.Value, "_", "")
		if i, err := strconv.ParseInt(s, 0, 64); err == nil {
			return json.Number(strconv.FormatInt(i, 10))
		}
		if u, err := strconv.ParseUint(s, 0, 64); err == nil {
			return json.Number(strconv.FormatUint(u, 10))
		}
		return n.Value
	case "!!float":
		f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return n.Value
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
	case "!!str", "!!timestamp", "!!binary":
		return n.Value
	}
	c.fail(n, "wrong-type", "unsupported YAML tag %s; write a plain value", n.Tag)
	return n.Value
}

// find walks tokens from the root and returns the key node and the value
// node of the deepest element it reaches, and whether it reached the last
// token. A token indexes a sequence when the node there is a sequence.
func (d *document) find(tokens []string) (key, val *yaml.Node, complete bool) {
	val = d.root
	for i, tok := range tokens {
		val = deref(val)
		switch val.Kind {
		case yaml.MappingNode:
			k, v := lookupKey(val, tok, 0)
			if v == nil {
				return key, val, false
			}
			key, val = k, v
		case yaml.SequenceNode:
			idx, err := strconv.Atoi(tok)
			if err != nil || idx < 0 || idx >= len(val.Content) {
				return key, val, false
			}
			key, val = nil, val.Content[idx]
		default:
			return key, val, i == len(tokens)
		}
	}
	return key, deref(val), true
}

func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && i < maxDepth; i++ {
		switch n.Kind {
		case yaml.AliasNode:
			n = n.Alias
		case yaml.DocumentNode:
			if len(n.Content) == 0 {
				return n
			}
			n = n.Content[0]
		default:
			return n
		}
	}
	return n
}

func lookupKey(m *yaml.Node, name string, depth int) (key, val *yaml.Node) {
	if depth > maxDepth {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := m.Content[i]; k.Tag != "!!merge" && k.Value == name {
			return k, m.Content[i+1]
		}
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Tag == "!!merge" {
			for _, src := range mergeSources(m.Content[i+1]) {
				if src = deref(src); src.Kind == yaml.MappingNode {
					if k, v := lookupKey(src, name, depth+1); v != nil {
						return k, v
					}
				}
			}
		}
	}
	return nil, nil
}

// scalarLines maps the lines of a string scalar's value to lines of the
// file: line by line for literal block scalars (|); the first line's
// columns for plain and quoted scalars; every other line (and folded
// scalars) to the scalar's start.
func scalarLines(d *document, n *yaml.Node) []LineOrigin {
	count := strings.Count(n.Value, "\n") + 1
	out := make([]LineOrigin, count)
	start := d.mapPos(n.Line, n.Column)
	for i := range out {
		out[i] = LineOrigin{Line: start.Line, Offset: start.Col - 1}
	}
	switch n.Style {
	case yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle:
		out[0].Offset = start.Col // the opening quote
		return out
	case yaml.LiteralStyle:
	default:
		return out
	}
	src := strings.Split(string(d.src), "\n")
	indent := -1
	for i := 0; i < count; i++ {
		ln := n.Line + 1 + i // block content starts below the indicator
		if ln-1 >= len(src) {
			break
		}
		text := src[ln-1]
		if indent < 0 && strings.TrimSpace(text) != "" {
			indent = len(text) - len(strings.TrimLeft(text, " "))
		}
		p := d.mapPos(ln, 1)
		out[i] = LineOrigin{Line: p.Line, Offset: p.Col - 1 + max(indent, 0)}
	}
	return out
}
