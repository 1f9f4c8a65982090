package spec

import (
	"bytes"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// argUse is one ${{ kit.args.NAME }} occurrence in the raw descriptor.
type argUse struct {
	name  string
	rng   Range
	field string // "" when it is in a comment or the syntax line
}

// refs returns every arg reference in the raw descriptor bytes, comments
// included (SPEC-v3 §6: the scan covers the raw bytes).
func (v *validator) refs() []argUse {
	src := v.k.Source
	var out []argUse
	for _, m := range argRef.FindAllSubmatchIndex(src, -1) {
		line := 1 + bytes.Count(src[:m[0]], []byte("\n"))
		col := m[0] - bytes.LastIndexByte(src[:m[0]], '\n')
		u := argUse{name: string(src[m[2]:m[3]])}
		if v.k.doc != nil {
			start := v.k.doc.mapPos(line, col)
			end := v.k.doc.mapPos(line, col+m[1]-m[0])
			u.rng = Range{Start: start, End: end}
			u.field = v.k.doc.fieldAtLine(line, string(src[m[0]:m[1]]))
		} else {
			u.rng = Range{Start: Pos{File: v.k.Path, Line: line, Col: col}}
		}
		out = append(out, u)
	}
	return out
}

// fieldAtLine returns the dotted path of the scalar (key or value) that
// holds text and starts at or before line, the nearest one; "" if none
// (the text is in a comment).
func (d *document) fieldAtLine(line int, text string) string {
	var best string
	bestLine := 0
	var walk func(n *yaml.Node, p string, depth int)
	walk = func(n *yaml.Node, p string, depth int) {
		if n == nil || depth > maxDepth {
			return
		}
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, val := n.Content[i], n.Content[i+1]
				child := field(p, k.Value)
				if strings.Contains(k.Value, text) && k.Line <= line && k.Line >= bestLine && k.Line == line {
					best, bestLine = child, k.Line
				}
				walk(val, child, depth+1)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, p+"["+strconv.Itoa(i)+"]", depth+1)
			}
		case yaml.ScalarNode:
			if strings.Contains(n.Value, text) && n.Line <= line && n.Line >= bestLine && n.Line+strings.Count(n.Value, "\n")+1 >= line {
				best, bestLine = p, n.Line
			}
		}
	}
	walk(d.root, "", 0)
	return best
}

// checkReferences reports references to undeclared args and placeholders
// that look like references but are not.
func (v *validator) checkReferences() {
	for _, u := range v.refs() {
		if _, ok := v.d.Args[u.name]; ok {
			continue
		}
		msg := "the descriptor references ${{ kit.args." + u.name + " }} but declares no arg " + strconv.Quote(u.name)
		if u.field == "" {
			msg += " (the reference is in a comment, which counts: remove or rephrase it)"
		} else {
			if hint := argHint(u.name, v.d.Args); hint != "" {
				msg += hint + " declare it under args:"
			} else {
				msg += "; declare it under args: or fix the name"
			}
		}
		v.semantic.add(false, &Error{Range: u.rng, Field: u.field, Code: "references-declared", Ref: "SPEC-v3 §6/references-declared", Msg: msg})
	}
	src := v.k.Source
	for _, m := range anyRef.FindAllIndex(src, -1) {
		text := src[m[0]:m[1]]
		if argRef.Match(text) || envRef.Match(text) {
			continue
		}
		line := 1 + bytes.Count(src[:m[0]], []byte("\n"))
		col := m[0] - bytes.LastIndexByte(src[:m[0]], '\n')
		if v.k.doc == nil {
			continue
		}
		f := v.k.doc.fieldAtLine(line, string(text))
		if f == "" {
			continue // in a comment: literal text that nothing expands
		}
		pos := v.k.doc.mapPos(line, col)
		v.semantic.add(true, &Error{Range: Range{Start: pos}, Field: f, Code: "malformed-reference",
			Msg: "placeholder " + strconv.Quote(string(text)) + " is neither ${{ kit.args.NAME }} nor ${{ kit.env.NAME }}; it is kept as literal text"})
	}
}
