package lint

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// syntaxLine is the first line missing-syntax-line's fix writes.
const syntaxLine = "# syntax=docker/sandbox-kit:3"

// syntaxLineFix returns the fix that makes line 1 the # syntax= line: it
// inserts it, and removes a # syntax= line found further down.
func (in *Input) syntaxLineFix() []Fix {
	k := in.Kit
	src := in.source(k.Path)
	if src == nil || k.Form == spec.FormComment {
		return nil
	}
	ins, ok := editAt(k.Path, src, 0, 0, syntaxLine+"\n")
	if !ok {
		return nil
	}
	edits := []TextEdit{ins}
	title := "insert " + syntaxLine + " as line 1"
	for i, line := range strings.Split(string(src), "\n") {
		if i > 0 && syntaxLineRE.MatchString(strings.TrimSuffix(line, "\r")) {
			if del, ok := in.deleteLine(k.Path, i+1); ok {
				edits = append(edits, del)
				title = fmt.Sprintf("move the # syntax= line from line %d to line 1", i+1)
				edits[0].NewText = strings.TrimSuffix(line, "\r") + "\n"
			}
			break
		}
	}
	return in.fix(title, true, edits...)
}

// replaceScalar returns an edit writing value in place of the one-line
// scalar at field, in the same quoting style.
func (t *yamlTree) replaceScalar(field, value string) (TextEdit, bool) {
	if t == nil {
		return TextEdit{}, false
	}
	_, n := t.node(field)
	if n == nil || n.Kind != yaml.ScalarNode {
		return TextEdit{}, false
	}
	return t.replaceNode(n, quoteLike(n, value))
}

// quoteLike writes value as a scalar in the quoting style of n.
func quoteLike(n *yaml.Node, value string) string {
	switch {
	case n.Style&yaml.DoubleQuotedStyle != 0:
		return strconv.Quote(value)
	case n.Style&yaml.SingleQuotedStyle != 0:
		return "'" + strings.ReplaceAll(value, "'", "''") + "'"
	}
	return value
}

// assignmentLineRE matches a line that does nothing but assign a variable
// (export NAME=value), optionally inside a comment descriptor's # block.
func assignmentLine(name string) *regexp.Regexp {
	return regexp.MustCompile(`^[ \t]*(?:#[ \t]*)?(?:export[ \t]+)?` + regexp.QuoteMeta(name) +
		`=(?:"[^"\\]*"|'[^']*'|[^\s;&|"'#]*)[ \t]*\r?$`)
}

// removeAssignmentLine returns the unsafe fix deleting the line at p when
// it only assigns name: the proxy override goes, and with it a behaviour
// the kit had.
func (in *Input) removeAssignmentLine(p spec.Pos, name string) []Fix {
	src := in.source(p.File)
	off := offsetAt(src, p.Line, 1)
	if off < 0 {
		return nil
	}
	line, _, _ := strings.Cut(string(src[off:]), "\n")
	if !assignmentLine(name).MatchString(line) {
		return nil
	}
	e, ok := in.deleteLine(p.File, p.Line)
	if !ok {
		return nil
	}
	return in.fix(fmt.Sprintf("remove the %s assignment (traffic then goes through the sandbox proxy)", name), false, e)
}

// removeEnvInstruction returns the unsafe fix deleting a one-line ENV
// instruction that sets only v.
func (in *Input) removeEnvInstruction(v RecipeVar) []Fix {
	if v.Node == nil || v.Node.StartLine != v.Node.EndLine || !v.NameRange.Start.IsValid() {
		return nil
	}
	n := 0
	for _, o := range in.Recipe.Vars() {
		if o.Node == v.Node {
			n++
		}
	}
	if n != 1 {
		return nil
	}
	e, ok := in.deleteLine(v.NameRange.Start.File, v.NameRange.Start.Line)
	if !ok {
		return nil
	}
	return in.fix(fmt.Sprintf("remove ENV %s (traffic then goes through the sandbox proxy)", v.Name), false, e)
}

// removeArgEnv returns the unsafe fix deleting the env: key of arg name
// when it sits on a line of its own in a block mapping with other keys.
func (in *Input) removeArgEnv(name string) []Fix {
	t := in.tree()
	if t == nil {
		return nil
	}
	_, m := t.node("args." + name)
	k, v := t.node("args." + name + ".env")
	if m == nil || k == nil || m.Style&yaml.FlowStyle != 0 || len(m.Content) < 4 || k.Line != v.Line {
		return nil
	}
	off := t.offset(k.Line, 1)
	if off < 0 {
		return nil
	}
	p := posAt(t.file, t.src, off)
	line, _, _ := strings.Cut(string(t.src[off:]), "\n")
	if !regexp.MustCompile(`^[ \t]*(?:#[ \t]*)?env:[ \t]*[A-Za-z_"'][^#]*(?:#.*)?\r?$`).MatchString(line) {
		return nil
	}
	e, ok := in.deleteLine(p.File, p.Line)
	if !ok {
		return nil
	}
	return in.fix(fmt.Sprintf("stop exporting arg %s as a proxy variable", name), false, e)
}

// specFix returns the fix a specification error proposes: the key or type
// its did-you-mean names, true or false for a YAML 1.1 word in a group's
// optional, or schemaVersion "3" for a value that means 3.
func (in *Input) specFix(e *spec.Error) []Fix {
	t := in.tree()
	if t == nil || e.Field == "" {
		return nil
	}
	switch {
	case e.Code == "unknown-field" && e.Suggest != "":
		parent := e.Field[:max(strings.LastIndexAny(e.Field, ".["), 0)]
		if parent != "" {
			if _, exists := t.node(parent + "." + e.Suggest); exists != nil {
				return nil // the right key is there too: which one is meant needs a judgement
			}
		} else if _, exists := t.node(e.Suggest); exists != nil {
			return nil
		}
		k, _ := t.node(e.Field)
		if k == nil {
			return nil
		}
		if ed, ok := t.replaceNode(k, quoteLike(k, e.Suggest)); ok {
			return in.fix(fmt.Sprintf("rename %s to %s", k.Value, e.Suggest), true, ed)
		}
	case (e.Code == "unknown-sandbox-type" || e.Code == "type-grammar") && e.Suggest != "":
		if ed, ok := t.replaceScalar(e.Field, e.Suggest); ok {
			return in.fix("write type "+e.Suggest, true, ed)
		}
	case e.Code == "wrong-type" && strings.HasSuffix(e.Field, ".group.optional"):
		// A YAML 1.1 boolean word, which the reference refuses in a group.
		_, v := t.node(e.Field)
		if v == nil || v.Kind != yaml.ScalarNode {
			return nil
		}
		b, word := yaml11Words[strings.ToLower(v.Value)]
		if !word {
			return nil
		}
		if ed, ok := t.replaceNode(v, strconv.FormatBool(b)); ok {
			return in.fix(fmt.Sprintf("write %t for %s", b, v.Value), true, ed)
		}
	case e.Field == "schemaVersion":
		_, v := t.node("schemaVersion")
		if v == nil || v.Kind != yaml.ScalarNode || !meansThree(v.Value) {
			return nil
		}
		if ed, ok := t.replaceNode(v, `"3"`); ok {
			return in.fix(`write schemaVersion: "3"`, true, ed)
		}
	}
	return nil
}

// meansThree reports a schemaVersion written as 3 in another form: 3.0,
// 03, v3.
func meansThree(s string) bool {
	s = strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(s), "v"), "V")
	f, err := strconv.ParseFloat(s, 64)
	return err == nil && f == 3
}

// suppressionFix returns the safe fix deleting a suppression comment that
// names one rule and silences nothing: the whole line when the comment is
// alone on it, else the comment and the blanks before it.
func suppressionFix(k *spec.Kit, s *suppression) []Fix {
	if len(s.rules) != 1 {
		return nil
	}
	src := k.SourceFiles()[s.pos.File]
	start := offsetAt(src, s.pos.Line, s.pos.Col)
	lineStart := offsetAt(src, s.pos.Line, 1)
	if start < 0 || start+s.width > len(src) {
		return nil
	}
	end := start + s.width
	before := strings.TrimRight(string(src[lineStart:start]), " \t")
	var e TextEdit
	var ok bool
	if before == "" || before == "#" && k.Form == spec.FormComment && s.pos.File == k.Path {
		lineEnd := end
		if lineEnd < len(src) && src[lineEnd] == '\r' {
			lineEnd++
		}
		if lineEnd < len(src) && src[lineEnd] == '\n' {
			lineEnd++
		}
		e, ok = editAt(s.pos.File, src, lineStart, lineEnd, "")
	} else {
		e, ok = editAt(s.pos.File, src, lineStart+len(before), end, "")
	}
	if !ok {
		return nil
	}
	return []Fix{{Title: "remove the unused kitsmith:ignore " + s.rules[0], Safe: true, Edits: []TextEdit{e}}}
}
