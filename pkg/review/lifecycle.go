package review

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// lifecycleChanges compares two lifecycle@1 configs: each hook by phase
// and position (its command, user and env), each file by cleaned path
// (content, mode, overwrite), and the interactive tail.
func lifecycleChanges(o, n keyed, old, new *Kit) []Change {
	var out []Change
	for _, phase := range []string{"install", "startup"} {
		oh, _ := o.Config[phase].([]any)
		nh, _ := n.Config[phase].([]any)
		for i := range max(len(oh), len(nh)) {
			ov, nv := hookAt(oh, i), hookAt(nh, i)
			field := fmt.Sprintf("%s.config.%s[%d]", n.Field(), phase, i)
			at := new.pos(field + ".command")
			if nv == nil {
				at = old.pos(fmt.Sprintf("%s.config.%s[%d]", o.Field(), phase, i))
			}
			for _, attr := range []string{"command", "user", "env", "background"} {
				a, b := hookAttr(ov, attr), hookAttr(nv, attr)
				if a == b {
					continue
				}
				detail := fmt.Sprintf("hook %s[%d]", phase, i) // numbered as field paths and lint number it
				if attr != "command" {
					detail += " " + attr
					at = new.pos(field + "." + attr)
				}
				out = append(out, Change{Kind: KindChange, Category: "lifecycle." + phase, Detail: detail, Old: a, New: b, At: at})
				if ov == nil || nv == nil {
					break // an added or removed hook is one change
				}
			}
		}
	}
	out = append(out, fileChanges(o, n, old, new)...)
	if a, b := compactOrEmpty(o.Config["interactive"]), compactOrEmpty(n.Config["interactive"]); a != b {
		out = append(out, Change{Kind: KindChange, Category: "lifecycle.interactive", Detail: "interactive", Old: a, New: b,
			At: either(old, new, n.Field()+".config.interactive", b == "")})
	}
	return out
}

func hookAt(list []any, i int) map[string]any {
	if i >= len(list) {
		return nil
	}
	m, _ := list[i].(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	return m
}

// hookAttr renders one attribute of a hook: a shell command as written,
// an argv joined by spaces, other values as JSON.
func hookAttr(h map[string]any, attr string) string {
	if h == nil {
		return ""
	}
	v, ok := h[attr]
	if !ok {
		return ""
	}
	if attr == "command" {
		if s, ok := v.(string); ok {
			return s
		}
		if argv, ok := v.([]any); ok {
			parts := make([]string, len(argv))
			for i, a := range argv {
				parts[i] = fmt.Sprint(a)
			}
			return strings.Join(parts, " ")
		}
	}
	return compact(v)
}

func compactOrEmpty(v any) string {
	if v == nil {
		return ""
	}
	return compact(v)
}

type lcFile struct {
	field string
	m     map[string]any
}

func filesOf(e keyed) map[string]lcFile {
	out := map[string]lcFile{}
	list, _ := e.Config["files"].([]any)
	for i, f := range list {
		m, _ := f.(map[string]any)
		p, _ := m["path"].(string)
		out[path.Clean(p)] = lcFile{field: fmt.Sprintf("%s.config.files[%d]", e.Field(), i), m: m}
	}
	return out
}

func fileChanges(o, n keyed, old, new *Kit) []Change {
	of, nf := filesOf(o), filesOf(n)
	var out []Change
	for _, p := range sortedKeys(nf, of) {
		a, inOld := of[p]
		b, inNew := nf[p]
		switch {
		case !inOld:
			out = append(out, Change{Kind: KindChange, Category: "lifecycle.files", Detail: p, New: fmt.Sprint(orEmpty(b.m["content"])), At: new.pos(b.field)})
		case !inNew:
			out = append(out, Change{Kind: KindChange, Category: "lifecycle.files", Detail: p, Old: fmt.Sprint(orEmpty(a.m["content"])), At: old.pos(a.field)})
		default:
			for _, attr := range []string{"content", "mode", "overwrite"} {
				x, y := compactOrEmpty(a.m[attr]), compactOrEmpty(b.m[attr])
				if attr == "content" {
					x, y = fmt.Sprint(orEmpty(a.m[attr])), fmt.Sprint(orEmpty(b.m[attr]))
				}
				if x != y {
					out = append(out, Change{Kind: KindChange, Category: "lifecycle.files", Detail: p + " " + attr, Old: x, New: y, At: new.pos(b.field + "." + attr)})
				}
			}
		}
	}
	return out
}

func sortedKeys[V any](maps ...map[string]V) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range maps {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	slices.Sort(out)
	return out
}
