package lint

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// suppressRE matches "# kitsmith:ignore rule-a,rule-b reason…" in a YAML
// or Dockerfile comment (or a shell comment inside a hook): group 1 is the
// rule list, group 2 the reason.
var suppressRE = regexp.MustCompile(`#\s*kitsmith:ignore\b[ \t]*([^\s]*)[ \t]*(.*)$`)

// suppressIDRE is the shape of a rule ID in a suppression.
var suppressIDRE = regexp.MustCompile(`^(?:spec/)?[a-z][a-z0-9]*(?:-[a-z0-9]+)*$`)

// suppression is one inline suppression comment.
type suppression struct {
	pos    spec.Pos
	width  int
	rules  []string
	reason string
	used   map[string]bool
}

// suppressions finds every suppression comment in the kit's source files.
func suppressions(k *spec.Kit) []*suppression {
	var out []*suppression
	files := k.SourceFiles()
	for _, file := range slices.Sorted(maps.Keys(files)) {
		src := string(files[file])
		if !strings.Contains(src, "kitsmith:ignore") {
			continue
		}
		for i, line := range strings.Split(src, "\n") {
			line = strings.TrimRight(line, "\r")
			m := suppressRE.FindStringSubmatchIndex(line)
			if m == nil {
				continue
			}
			s := &suppression{
				pos:    spec.Pos{File: file, Line: i + 1, Col: m[0] + 1},
				width:  m[1] - m[0],
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

// problem says what is wrong with a malformed suppression, or "".
func (s *suppression) problem() string {
	if len(s.rules) == 0 {
		return "kitsmith:ignore names no rule"
	}
	for _, id := range s.rules {
		if id == "" {
			return "kitsmith:ignore has an empty rule ID in its list; write rule-a,rule-b with no space after the comma"
		}
		if !suppressIDRE.MatchString(id) {
			return fmt.Sprintf("kitsmith:ignore names %q, which is not a rule ID (kebab-case, comma-separated, no spaces)", id)
		}
	}
	if s.reason == "" {
		return fmt.Sprintf("kitsmith:ignore %s gives no reason", strings.Join(s.rules, ","))
	}
	return ""
}

// valid reports a well-formed suppression, which silences findings.
func (s *suppression) valid() bool { return s.problem() == "" }

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
