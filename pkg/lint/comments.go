package lint

import (
	"strings"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// yamlComment is the text of one YAML comment and where it starts.
type yamlComment struct {
	text string
	pos  spec.Pos
}

// yamlComments finds the comments of the kit's descriptor YAML: text
// after a # that starts a line or follows whitespace, outside quoted
// scalars and outside block scalar (| >) bodies.
func yamlComments(k *spec.Kit) []yamlComment {
	lines := strings.Split(string(k.Source), "\n")
	var origins []spec.LineOrigin
	if k.Form == spec.FormComment {
		if src, ok := k.SourceFiles()[k.Path]; ok {
			_, origins, _ = spec.ExtractComment(src)
		}
	}
	filePos := func(line, col int) spec.Pos {
		if origins != nil && line <= len(origins) {
			o := origins[line-1]
			return spec.Pos{File: k.Path, Line: o.Line, Col: col + o.Offset}
		}
		return spec.Pos{File: k.Path, Line: line, Col: col}
	}
	var out []yamlComment
	blockIndent := -1 // indentation of the key owning a block scalar
	for i, raw := range lines {
		line := strings.TrimRight(raw, "\r")
		indent := len(line) - len(strings.TrimLeft(line, " "))
		if blockIndent >= 0 {
			if strings.TrimSpace(line) == "" || indent > blockIndent {
				continue
			}
			blockIndent = -1
		}
		col := commentStart(line)
		if col >= 0 {
			out = append(out, yamlComment{text: line[col:], pos: filePos(i+1, col+1)})
			line = strings.TrimRight(line[:col], " \t")
		}
		if opensBlock(line) {
			blockIndent = indent
		}
	}
	return out
}

// commentStart returns the byte index of a comment's # in line, or -1.
func commentStart(line string) int {
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == quote {
				if quote == '\'' && i+1 < len(line) && line[i+1] == '\'' {
					i++
					continue
				}
				quote = 0
			} else if c == '\\' && quote == '"' {
				i++
			}
		case c == '"' || c == '\'':
			if i == 0 || line[i-1] == ' ' || line[i-1] == ':' || line[i-1] == '[' || line[i-1] == '{' || line[i-1] == ',' || line[i-1] == '-' {
				quote = c
			}
		case c == '#':
			if i == 0 || line[i-1] == ' ' || line[i-1] == '\t' {
				return i
			}
		}
	}
	return -1
}

// opensBlock reports a line ending in a block scalar indicator.
func opensBlock(line string) bool {
	t := strings.TrimSpace(line)
	i := strings.LastIndexAny(t, "|>")
	if i < 0 || i == 0 && !strings.HasPrefix(t, "|") && !strings.HasPrefix(t, ">") {
		return false
	}
	rest := t[i+1:]
	for _, r := range rest {
		if !(r == '-' || r == '+' || r >= '1' && r <= '9') {
			return false
		}
	}
	before := strings.TrimSpace(t[:i])
	return before == "" || before == "-" || strings.HasSuffix(before, ":")
}
