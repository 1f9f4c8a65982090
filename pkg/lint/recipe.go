package lint

import (
	"strings"

	"github.com/moby/buildkit/frontend/dockerfile/parser"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// BuildKit's parser keeps lines but not columns; the helpers here find the
// exact column of a name or value in the instruction's source lines.

// cursor is a place in the recipe text: a 1-based line and a 0-based byte
// offset in it.
type cursor struct{ line, off int }

// RecipeVar is a NAME=value pair of an ENV or ARG instruction.
type RecipeVar struct {
	// Instruction is "ENV" or "ARG".
	Instruction string
	// Name is the variable's name.
	Name string
	// Value is the value as written (quotes kept).
	Value string
	// HasValue is false for an ARG without a default.
	HasValue bool
	// NameRange and ValueRange locate the name and the value in the file.
	NameRange, ValueRange spec.Range
	// Node is the instruction.
	Node *parser.Node
}

// line returns recipe line n without its line terminator.
func (d *Dockerfile) line(n int) string {
	if n < 1 || n > len(d.lines) {
		return ""
	}
	return strings.TrimRight(d.lines[n-1], "\r")
}

// start returns the cursor just after the instruction keyword of n.
func (d *Dockerfile) start(n *parser.Node) cursor {
	text := d.line(n.StartLine)
	i := len(text) - len(strings.TrimLeft(text, " \t"))
	for i < len(text) && text[i] != ' ' && text[i] != '\t' {
		i++
	}
	return cursor{n.StartLine, i}
}

// find returns where tok next occurs at or after c, within n's lines, at
// the start of a word (after a blank, a quote or "=").
func (d *Dockerfile) find(n *parser.Node, tok string, c cursor) (cursor, bool) {
	if tok == "" {
		return c, false
	}
	for ln := c.line; ln <= n.EndLine; ln++ {
		text := d.line(ln)
		from := 0
		if ln == c.line {
			from = min(c.off, len(text))
		}
		for {
			i := strings.Index(text[from:], tok)
			if i < 0 {
				break
			}
			i += from
			if i == 0 || strings.IndexByte(" \t\"'=", text[i-1]) >= 0 {
				return cursor{ln, i}, true
			}
			from = i + 1
		}
	}
	return c, false
}

// rng returns the file range of width bytes at c.
func (d *Dockerfile) rng(c cursor, width int) spec.Range {
	return spec.Range{Start: d.pos(c.line, c.off+1), End: d.pos(c.line, c.off+1+width)}
}

// skipBlanks moves c past blanks and line continuations.
func (d *Dockerfile) skipBlanks(n *parser.Node, c cursor) cursor {
	for c.line <= n.EndLine {
		text := d.line(c.line)
		for c.off < len(text) && (text[c.off] == ' ' || text[c.off] == '\t') {
			c.off++
		}
		if c.off < len(text) && !(text[c.off] == '\\' && strings.TrimSpace(text[c.off+1:]) == "") {
			return c
		}
		c = cursor{c.line + 1, 0}
	}
	return c
}

// Vars returns the NAME=value pairs of every ENV and ARG instruction, in
// order, with the position of each name and value. The slice is shared: do
// not modify it.
func (d *Dockerfile) Vars() []RecipeVar {
	if !d.done {
		d.done = true
		d.vars = d.findVars()
	}
	return d.vars
}

func (d *Dockerfile) findVars() []RecipeVar {
	var out []RecipeVar
	for _, n := range d.Instructions() {
		switch strings.ToLower(n.Value) {
		case "env":
			// The parser yields (name, value, separator) triples.
			c := d.start(n)
			for kv := n.Next; kv != nil && kv.Next != nil; {
				v := RecipeVar{Instruction: "ENV", Name: kv.Value, Value: kv.Next.Value, HasValue: true, Node: n}
				c = d.locate(n, &v, c)
				out = append(out, v)
				kv = kv.Next.Next
				if kv != nil {
					kv = kv.Next
				}
			}
		case "arg":
			c := d.start(n)
			for a := n.Next; a != nil; a = a.Next {
				name, value, ok := strings.Cut(a.Value, "=")
				v := RecipeVar{Instruction: "ARG", Name: name, Value: value, HasValue: ok, Node: n}
				c = d.locate(n, &v, c)
				out = append(out, v)
			}
		}
	}
	return out
}

// locate fills in the ranges of v, searching from c, and returns the
// cursor after it.
func (d *Dockerfile) locate(n *parser.Node, v *RecipeVar, c cursor) cursor {
	at, ok := d.find(n, v.Name, c)
	if !ok {
		r := spec.Range{Start: d.pos(n.StartLine, 1)}
		v.NameRange, v.ValueRange = r, r
		return c
	}
	v.NameRange = d.rng(at, len(v.Name))
	vc := cursor{at.line, at.off + len(v.Name)}
	if text := d.line(vc.line); vc.off < len(text) && text[vc.off] == '=' {
		vc.off++
	} else {
		vc = d.skipBlanks(n, vc)
	}
	v.ValueRange = d.rng(vc, len(v.Value))
	return cursor{vc.line, vc.off + len(v.Value)}
}

// FromImage returns the image a FROM instruction names and its range, or
// false for a FROM without one.
func (d *Dockerfile) FromImage(n *parser.Node) (string, spec.Range, bool) {
	if n.Next == nil {
		return "", spec.Range{}, false
	}
	image := n.Next.Value
	c := d.start(n)
	for _, f := range n.Flags {
		if fc, ok := d.find(n, f, c); ok {
			c = cursor{fc.line, fc.off + len(f)}
		}
	}
	at, ok := d.find(n, image, c)
	if !ok {
		return image, spec.Range{Start: d.pos(n.StartLine, 1)}, true
	}
	return image, d.rng(at, len(image)), true
}
