package migrate

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// pair is one entry of a YAML mapping.
type pair struct{ key, val *yaml.Node }

// block is a v2 mapping read strictly: its known entries by key, in
// document order.
type block struct {
	node  *yaml.Node
	path  string
	order []pair
	byKey map[string]pair
}

func (b *block) has(k string) bool { _, ok := b.byKey[k]; return ok }

func (b *block) get(k string) (pair, bool) { p, ok := b.byKey[k]; return p, ok }

func (b *block) val(k string) *yaml.Node { return b.byKey[k].val }

func join(base, key string) string {
	if base == "" {
		return key
	}
	return base + "." + key
}

func index(base string, i int) string { return fmt.Sprintf("%s[%d]", base, i) }

// pos returns the v2 position of n.
func (m *migrator) pos(n *yaml.Node) spec.Pos {
	if n == nil {
		return spec.Pos{}
	}
	return spec.Pos{File: m.srcName, Line: n.Line, Col: n.Column}
}

// deref resolves a YAML alias to the node it names.
func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// mapping reads n as a v2 mapping with the given keys; unknown and
// repeated keys are reported. It returns nil when n is not a mapping.
func (m *migrator) mapping(n *yaml.Node, path string, known ...string) *block {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		m.invalid(n, path, "must be a mapping")
		return nil
	}
	b := &block{node: n, path: path, byKey: map[string]pair{}}
	allowed := map[string]bool{}
	for _, k := range known {
		allowed[k] = true
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		p := pair{n.Content[i], n.Content[i+1]}
		k := p.key.Value
		switch {
		case !allowed[k]:
			m.action(p.key, join(path, k), "v2-unknown-field",
				"is not a field of the v2 grammar (v2 decodes strictly); it was not carried over: find out what it meant")
		case b.has(k):
			m.action(p.key, join(path, k), "v2-duplicate-field", "is given twice; only the first was carried over")
		default:
			b.byKey[k] = p
			b.order = append(b.order, p)
		}
	}
	return b
}

// invalid reports a value of the wrong shape.
func (m *migrator) invalid(n *yaml.Node, path, what string) {
	m.action(n, path, "v2-invalid", what+" in the v2 grammar; it was not carried over")
}

// str reads a scalar string.
func (m *migrator) str(n *yaml.Node, path string) (string, bool) {
	n = deref(n)
	if n == nil || n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		m.invalid(n, path, "must be a string")
		return "", false
	}
	return n.Value, true
}

// boolean reads a scalar bool.
func (m *migrator) boolean(n *yaml.Node, path string) (bool, bool) {
	n = deref(n)
	if n != nil && n.Kind == yaml.ScalarNode {
		if v, err := strconv.ParseBool(n.Value); err == nil && n.Tag == "!!bool" {
			return v, true
		}
	}
	m.invalid(n, path, "must be true or false")
	return false, false
}

// strs reads a sequence of strings.
func (m *migrator) strs(n *yaml.Node, path string) ([]string, bool) {
	n = deref(n)
	if n == nil || n.Kind != yaml.SequenceNode {
		m.invalid(n, path, "must be a list of strings")
		return nil, false
	}
	out := make([]string, 0, len(n.Content))
	for i, c := range n.Content {
		s, ok := m.str(c, index(path, i))
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// seq reads a sequence.
func (m *migrator) seq(n *yaml.Node, path string) []*yaml.Node {
	n = deref(n)
	if n == nil || n.Kind != yaml.SequenceNode {
		m.invalid(n, path, "must be a list")
		return nil
	}
	return n.Content
}

// Builders for output nodes.

func scalar(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

func quoted(s string) *yaml.Node {
	n := scalar(s)
	n.Style = yaml.DoubleQuotedStyle
	return n
}

func boolNode(v bool) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(v)}
}

func mapNode(kv ...*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: kv}
}

func seqNode(items ...*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: items}
}

// add appends key: val to the mapping out and returns the key node.
func add(out *yaml.Node, key string, val *yaml.Node) *yaml.Node {
	k := scalar(key)
	out.Content = append(out.Content, k, val)
	return k
}

// rekey returns a copy of the key node k under a new name, keeping its
// comments and position.
func rekey(k *yaml.Node, name string) *yaml.Node {
	c := *k
	c.Value = name
	c.Style = 0
	c.Tag = "!!str"
	return &c
}

// clone deep-copies n without comments or anchors.
func clone(n *yaml.Node) *yaml.Node {
	if n == nil {
		return nil
	}
	c := *n
	c.HeadComment, c.LineComment, c.FootComment = "", "", ""
	c.Anchor = ""
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, x := range n.Content {
		c.Content[i] = clone(x)
	}
	return &c
}

// comment appends a line to the head comment of n.
func comment(n *yaml.Node, text string) {
	line := "# " + text
	if n.HeadComment == "" {
		n.HeadComment = line
		return
	}
	n.HeadComment += "\n" + line
}

// takeComments moves the comments of the v2 key node from onto to, so
// they are kept when from itself is not emitted.
func takeComments(to, from *yaml.Node) {
	if from == nil || to == nil {
		return
	}
	to.HeadComment = joinComments(from.HeadComment, to.HeadComment)
	if from.LineComment != "" && to.LineComment == "" {
		to.LineComment = from.LineComment
	}
	from.HeadComment, from.LineComment = "", ""
}

func joinComments(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return strings.TrimRight(a, "\n") + "\n" + b
}

// maxInlined bounds the nodes inlineAliases writes out in full.
const maxInlined = 100_000

// ErrAliasExpansion reports aliases that would expand past what Migrate
// writes out (100,000 nodes).
var ErrAliasExpansion = errors.New("the v2 document's aliases expand to too much")

// inlineAliases writes out in full every alias of doc whose anchor the
// output does not define before it: an anchor under a dropped field, or
// one the mapping moved after its alias. A kept anchor and its aliases
// stay as the author wrote them.
func inlineAliases(doc *yaml.Node) error {
	seen := map[*yaml.Node]bool{}
	budget := maxInlined
	var walk func(n *yaml.Node) error
	walk = func(n *yaml.Node) error {
		if n.Kind == yaml.AliasNode {
			if n.Alias != nil && seen[n.Alias] {
				return nil
			}
			target := deref(n)
			if target == nil {
				return nil
			}
			full, err := expand(target, &budget)
			if err != nil {
				return err
			}
			head, line, foot := n.HeadComment, n.LineComment, n.FootComment
			*n = *full
			n.HeadComment, n.LineComment, n.FootComment = head, line, foot
			return nil
		}
		if n.Anchor != "" {
			seen[n] = true
		}
		for _, c := range n.Content {
			if err := walk(c); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(doc)
}

// expand deep-copies n with its aliases resolved and its anchors dropped,
// within budget nodes.
func expand(n *yaml.Node, budget *int) (*yaml.Node, error) {
	n = deref(n)
	if *budget--; *budget < 0 {
		return nil, ErrAliasExpansion
	}
	c := *n
	c.Anchor = ""
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, x := range n.Content {
		e, err := expand(x, budget)
		if err != nil {
			return nil, err
		}
		c.Content[i] = e
	}
	return &c, nil
}

// asString returns the scalar n as a string node: v2 read every scalar
// into its string fields (0 is the host "0"), while v3's schema types
// them, so a scalar that YAML would read as a number or bool is quoted.
func asString(n *yaml.Node) *yaml.Node {
	d := deref(n)
	if d.Tag == "!!str" && n.Kind != yaml.AliasNode {
		return n
	}
	out := withComments(quoted(d.Value), n)
	return out
}
