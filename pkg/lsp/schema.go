package lsp

import (
	"encoding/json"
	"io/fs"
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/kitsmith/kitsmith/pkg/spec"
	"github.com/kitsmith/kitsmith/schemas"
)

// schemaIndex answers what the embedded JSON Schema says about a key or a
// capability type: descriptions, and the keys a mapping may hold.
type schemaIndex struct {
	files map[string]map[string]any // schema file path (in schemas.FS) → document
}

// schemaIndexOnce loads the embedded schema files once; the index is
// read-only afterwards.
var schemaIndexOnce = sync.OnceValue(func() *schemaIndex {
	idx := &schemaIndex{files: map[string]map[string]any{}}
	_ = fs.WalkDir(schemas.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".schema.json") {
			return err
		}
		b, err := fs.ReadFile(schemas.FS(), p)
		if err != nil {
			return nil
		}
		var doc map[string]any
		if json.Unmarshal(b, &doc) == nil {
			idx.files[p] = doc
		}
		return nil
	})
	return idx
})

// typeFile is the schema file of a well-known capability type's config.
func typeFile(typ string) string {
	return "capabilities/" + typ + ".schema.json"
}

// typeDescription returns the description of a capability type's config
// schema, or "".
func (x *schemaIndex) typeDescription(typ string) string {
	doc := x.files[typeFile(spec.CanonicalType(typ))]
	if doc == nil {
		return ""
	}
	d, _ := doc["description"].(string)
	return d
}

// node is a schema node and the file it is in, for resolving $refs.
type node struct {
	file string
	m    map[string]any
}

// resolve follows a node's $ref (in its file, or a relative file).
func (x *schemaIndex) resolve(n node) node {
	for range 8 {
		ref, ok := n.m["$ref"].(string)
		if !ok {
			return n
		}
		file, frag, _ := strings.Cut(ref, "#")
		if file != "" {
			file = path.Join(path.Dir(n.file), file)
		} else {
			file = n.file
		}
		doc := x.files[file]
		if doc == nil {
			return n
		}
		var cur any = doc
		for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
			if tok == "" {
				continue
			}
			m, ok := cur.(map[string]any)
			if !ok {
				return n
			}
			cur = m[tok]
		}
		m, ok := cur.(map[string]any)
		if !ok {
			return n
		}
		// keep the referring node's own description over the target's
		merged := map[string]any{}
		for k, v := range m {
			merged[k] = v
		}
		if d, ok := n.m["description"]; ok {
			merged["description"] = d
		}
		n = node{file: file, m: merged}
	}
	return n
}

// properties returns the properties a node allows, its subschemas'
// (allOf, anyOf, oneOf, then/else) included, resolved.
func (x *schemaIndex) properties(n node) map[string]node {
	out := map[string]node{}
	var walk func(n node, depth int)
	walk = func(n node, depth int) {
		if depth > 6 {
			return
		}
		n = x.resolve(n)
		if props, ok := n.m["properties"].(map[string]any); ok {
			for k, v := range props {
				if m, ok := v.(map[string]any); ok {
					if _, seen := out[k]; !seen {
						out[k] = node{file: n.file, m: m}
					}
				}
			}
		}
		for _, key := range []string{"allOf", "anyOf", "oneOf"} {
			if list, ok := n.m[key].([]any); ok {
				for _, s := range list {
					if m, ok := s.(map[string]any); ok {
						walk(node{file: n.file, m: m}, depth+1)
					}
				}
			}
		}
		for _, key := range []string{"then", "else"} {
			if m, ok := n.m[key].(map[string]any); ok {
				walk(node{file: n.file, m: m}, depth+1)
			}
		}
	}
	walk(n, 0)
	return out
}

// child returns the schema of the value under key of a mapping node:
// its property, or its additionalProperties (a map of named values, such
// as args).
func (x *schemaIndex) child(n node, key string) (node, bool) {
	if c, ok := x.properties(n)[key]; ok {
		return x.resolve(c), true
	}
	n = x.resolve(n)
	if m, ok := n.m["additionalProperties"].(map[string]any); ok {
		return x.resolve(node{file: n.file, m: m}), true
	}
	return node{}, false
}

// items returns the schema of a sequence node's items.
func (x *schemaIndex) items(n node) node {
	n = x.resolve(n)
	if m, ok := n.m["items"].(map[string]any); ok {
		return x.resolve(node{file: n.file, m: m})
	}
	return n
}

// at returns the schema of the mapping the context names, in the
// descriptor schema, or in the configuration schema for a .kitsmith.yaml.
func (x *schemaIndex) at(c yamlContext) (node, bool) {
	root := schemas.Root
	if c.config {
		root = schemas.Config
	}
	n := node{file: root, m: x.files[root]}
	if n.m == nil {
		return node{}, false
	}
	for i, step := range c.path {
		if step.key == "config" && i > 0 && c.path[i-1].item && c.typ != "" {
			doc := x.files[typeFile(spec.CanonicalType(c.typ))]
			if doc == nil {
				return node{}, false
			}
			n = node{file: typeFile(spec.CanonicalType(c.typ)), m: doc}
		} else {
			next, ok := x.child(n, step.key)
			if !ok {
				return node{}, false
			}
			n = next
		}
		if step.item {
			n = x.items(n)
			if step.key == "capabilities" {
				if defs, ok := x.files[schemas.Root]["$defs"].(map[string]any); ok {
					if e, ok := defs["entry"].(map[string]any); ok {
						n = node{file: schemas.Root, m: e} // an entry (a group item also takes group:)
					}
				}
			}
		}
	}
	return n, true
}

// keys returns the keys the mapping at c may hold, with their
// descriptions.
func (x *schemaIndex) keys(c yamlContext) map[string]string {
	n, ok := x.at(c)
	if !ok {
		return nil
	}
	out := map[string]string{}
	for k, v := range x.properties(n) {
		d, _ := x.resolve(v).m["description"].(string)
		out[k] = d
	}
	return out
}

// keyDescription returns the description of key in the mapping at c.
func (x *schemaIndex) keyDescription(c yamlContext, key string) string {
	return x.keys(c)[key]
}

// step is one enclosing key of a position; item marks a key whose value
// is the sequence the position is an item of.
type step struct {
	key  string
	item bool
}

// yamlContext is where a line sits in a descriptor: the keys enclosing it
// and, inside a capability entry, the entry's type.
type yamlContext struct {
	path []step
	// inItem reports that the line is inside an item of the last key's
	// sequence.
	inItem bool
	typ    string
	// config marks a position in a .kitsmith.yaml, whose schema is the
	// lint configuration's.
	config bool
}

var keyLineRE = regexp.MustCompile(`^(\s*)(-\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*:(.*)$`)

// contextAt works out, from indentation, which keys enclose line (0-based)
// of the YAML lines, reading upward for lines less indented than the
// current one. It tolerates text that does not parse, as while typing.
func contextAt(lines []string, line int) yamlContext {
	if line < 0 || line >= len(lines) {
		return yamlContext{}
	}
	indentOf := func(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }
	cur := lines[line]
	limit := indentOf(cur) // the column of the current line's key
	if t := strings.TrimLeft(cur, " "); strings.HasPrefix(t, "- ") || t == "-" {
		limit += 2
	}
	if strings.TrimSpace(cur) == "" {
		limit = len(cur)
	}
	var rev []step
	pendingItem, pendingType := false, ""
	var c yamlContext
	for i := line; i >= 0; i-- {
		l := lines[i]
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		ind := indentOf(l)
		dash := strings.HasPrefix(t, "-")
		if dash && ind < limit {
			// the item that holds the position: note it, and its type
			pendingItem, pendingType = true, itemType(lines, i, ind)
			limit = ind + 1 // a compact sequence's parent key may sit at the dash's column
			continue
		}
		m := keyLineRE.FindStringSubmatch(l)
		if i == line || m == nil || dash || ind >= limit {
			continue
		}
		rev = append(rev, step{key: m[3], item: pendingItem})
		if pendingItem && c.typ == "" && m[3] == "capabilities" {
			c.typ = pendingType
		}
		pendingItem = false
		limit = ind
		if ind == 0 {
			break
		}
	}
	for i := len(rev) - 1; i >= 0; i-- {
		c.path = append(c.path, rev[i])
	}
	if n := len(c.path); n > 0 {
		c.inItem = c.path[n-1].item
	}
	return c
}

// itemType returns the type: of the sequence item whose dash is on line
// at column col, or "".
func itemType(lines []string, line, col int) string {
	for i := line; i < len(lines); i++ {
		l := lines[i]
		if i > line && strings.TrimSpace(l) != "" && len(l)-len(strings.TrimLeft(l, " ")) <= col {
			break
		}
		if m := keyLineRE.FindStringSubmatch(l); m != nil && m[3] == "type" && len(m[1])+len(m[2]) == col+2 {
			return strings.Trim(strings.TrimSpace(stripComment(m[4])), `"'`)
		}
	}
	return ""
}

// stripComment cuts a trailing # comment from a plain value.
func stripComment(v string) string {
	if i := strings.Index(v, " #"); i >= 0 {
		return v[:i]
	}
	return v
}
