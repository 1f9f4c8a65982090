package spec

import (
	"strconv"
	"strings"
)

// parseField splits a dotted field path such as
// `capabilities[2].config.apiKey.inject[0]` or `args["a.b"]` into tokens.
func parseField(field string) []string {
	var toks []string
	for i := 0; i < len(field); {
		switch field[i] {
		case '.':
			i++
		case '[':
			end := strings.IndexByte(field[i:], ']')
			if end < 0 {
				return append(toks, field[i+1:])
			}
			inner := field[i+1 : i+end]
			if s, err := strconv.Unquote(inner); err == nil {
				inner = s
			}
			toks = append(toks, inner)
			i += end + 1
		default:
			j := i
			for j < len(field) && field[j] != '.' && field[j] != '[' {
				j++
			}
			toks = append(toks, field[i:j])
			i = j
		}
	}
	return toks
}

// fieldOf formats JSON-pointer tokens as a dotted field path, using v (the
// document in the JSON data model) to tell sequence indexes from keys.
func fieldOf(v any, toks []string) string {
	var b strings.Builder
	for _, t := range toks {
		switch cur := v.(type) {
		case []any:
			b.WriteString("[" + t + "]")
			if i, err := strconv.Atoi(t); err == nil && i >= 0 && i < len(cur) {
				v = cur[i]
			} else {
				v = nil
			}
			continue
		case map[string]any:
			v = cur[t]
		default:
			v = nil
		}
		writeKey(&b, t)
	}
	return b.String()
}

func writeKey(b *strings.Builder, k string) {
	if isIdent(k) {
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(k)
		return
	}
	b.WriteString("[" + strconv.Quote(k) + "]")
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		ok := r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9'
		if !ok {
			return false
		}
	}
	return true
}

// field extends the formatted path base with raw keys (string) and
// sequence indexes (int): field("capabilities[2]", "config", "inject", 0).
func field(base string, parts ...any) string {
	var b strings.Builder
	b.WriteString(base)
	for _, p := range parts {
		switch p := p.(type) {
		case int:
			b.WriteString("[" + strconv.Itoa(p) + "]")
		case string:
			writeKey(&b, p)
		}
	}
	return b.String()
}
