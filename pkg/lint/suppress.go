package lint

import (
	"regexp"
	"strings"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// suppressRE matches "# kitsmith:ignore rule-a,rule-b reason…" in a YAML
// or Dockerfile comment (or a shell comment inside a hook).
var suppressRE = regexp.MustCompile(`#\s*kitsmith:ignore\b[ \t]*([^\s]*)[ \t]*(.*)$`)

// suppression is one inline suppression comment.
type suppression struct {
	pos    spec.Pos
	rules  []string
	reason string
	used   map[string]bool
}

// suppressions finds every suppression comment in the kit's source files.
func suppressions(k *spec.Kit) []*suppression {
	var out []*suppression
	for file, src := range k.SourceFiles() {
		for i, line := range strings.Split(string(src), "\n") {
			m := suppressRE.FindStringSubmatchIndex(line)
			if m == nil {
				continue
			}
			s := &suppression{
				pos:    spec.Pos{File: file, Line: i + 1, Col: m[0] + 1},
				reason: strings.TrimSpace(line[m[4]:m[5]]),
				used:   map[string]bool{},
			}
			if ids := line[m[2]:m[3]]; ids != "" {
				s.rules = strings.Split(ids, ",")
			}
			out = append(out, s)
		}
	}
	return out
}

// covers reports whether s silences rule at pos: same file, on the line of
// the comment or the line below it.
func (s *suppression) covers(rule string, pos spec.Pos) bool {
	if pos.File != s.pos.File || pos.Line != s.pos.Line && pos.Line != s.pos.Line+1 {
		return false
	}
	for _, r := range s.rules {
		if r == rule {
			return true
		}
	}
	return false
}
