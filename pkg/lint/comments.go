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

// yamlLine is one line of the descriptor YAML split into its content and
// its comment.
type yamlLine struct {
	// code is the line without its comment; comment is the comment from
	// its #, or "".
	code, comment string
	// pos maps a 1-based byte column of the line to the file.
	pos func(col int) spec.Pos
}

// yamlLines splits the kit's descriptor YAML into content and comments: a
// comment is text after a # that starts a line or follows whitespace,
// outside quoted scalars and outside block scalar (| >) bodies.
func yamlLines(k *spec.Kit) []yamlLine {
	lines := strings.Split(string(k.Source), "\n")
	var origins []spec.LineOrigin
	if k.Form == spec.FormComment {
		if src, ok := k.SourceFiles()[k.Path]; ok {
			_, origins, _ = spec.ExtractComment(src)
		}
	}
	out := make([]yamlLine, 0, len(lines))
	blockIndent := -1 // indentation of the key owning a block scalar
	for i, raw := range lines {
		line := strings.TrimRight(raw, "\r")
		n := i + 1
		yl := yamlLine{code: line, pos: func(col int) spec.Pos {
			if origins != nil && n <= len(origins) {
				o := origins[n-1]
				return spec.Pos{File: k.Path, Line: o.Line, Col: col + o.Offset}
			}
			return spec.Pos{File: k.Path, Line: n, Col: col}
		}}
		indent := len(line) - len(strings.TrimLeft(line, " "))
		if blockIndent >= 0 {
			if strings.TrimSpace(line) == "" || indent > blockIndent {
				out = append(out, yl)
				continue
			}
			blockIndent = -1
		}
		if col := commentStart(line); col >= 0 {
			yl.code, yl.comment = line[:col], line[col:]
		}
		if opensBlock(strings.TrimRight(yl.code, " \t")) {
			blockIndent = indent
		}
		out = append(out, yl)
	}
	return out
}

// yamlComments returns the comments of the kit's descriptor YAML.
func yamlComments(k *spec.Kit) []yamlComment {
	var out []yamlComment
	for _, l := range yamlLines(k) {
		if l.comment != "" {
			out = append(out, yamlComment{text: l.comment, pos: l.pos(len(l.code) + 1)})
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
