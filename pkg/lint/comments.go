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
	// n is the 1-based line number in the YAML.
	n int
}

// yamlLines splits the kit's descriptor YAML into content and comments: a
// comment is text after a # that starts a line or follows whitespace,
// outside quoted scalars and outside block scalar (| >) bodies.
func (in *Input) yamlLines() []yamlLine {
	if !in.once("yaml") {
		return in.yaml
	}
	k := in.Kit
	if k.Form == spec.FormComment {
		if src := in.source(k.Path); src != nil {
			_, in.yamlOrigins, _ = spec.ExtractComment(src)
		}
	}
	lines := strings.Split(string(k.Source), "\n")
	out := make([]yamlLine, 0, len(lines))
	blockIndent := -1 // indentation of the key owning a block scalar
	for i, raw := range lines {
		line := strings.TrimRight(raw, "\r")
		yl := yamlLine{code: line, n: i + 1}
		indent := len(line) - len(strings.TrimLeft(line, " "))
		if blockIndent >= 0 {
			if strings.TrimSpace(line) == "" || indent > blockIndent {
				out = append(out, yl)
				continue
			}
			blockIndent = -1
		}
		if strings.IndexByte(line, '#') >= 0 {
			if col := commentStart(line); col >= 0 {
				yl.code, yl.comment = line[:col], line[col:]
			}
		}
		if opensBlock(strings.TrimRight(yl.code, " \t")) {
			blockIndent = indent
		}
		out = append(out, yl)
	}
	in.yaml = out
	return out
}

// yamlPos maps a 1-based line and byte column of the descriptor YAML to
// the file it is in.
func (in *Input) yamlPos(line, col int) spec.Pos {
	if o := in.yamlOrigins; o != nil && line <= len(o) {
		return spec.Pos{File: in.Kit.Path, Line: o[line-1].Line, Col: col + o[line-1].Offset}
	}
	return spec.Pos{File: in.Kit.Path, Line: line, Col: col}
}

// yamlComments returns the comments of the kit's descriptor YAML.
func (in *Input) yamlComments() []yamlComment {
	var out []yamlComment
	for _, l := range in.yamlLines() {
		if l.comment != "" {
			out = append(out, yamlComment{text: l.comment, pos: in.yamlPos(l.n, len(l.code)+1)})
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
