package spec

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// header is prepended by kitSrc: the syntax line and schemaVersion take
// lines 1 and 2, so a case body starts on line 3.
const header = "# syntax=docker/sandbox-kit:3\nschemaVersion: \"3\"\n"

// kitSrc builds a descriptor from a body that starts on line 3.
func kitSrc(body string) string { return header + strings.TrimPrefix(body, "\n") }

// companion is the recipe loadKit stages beside workloads.
const companion = "FROM scratch\nCMD [\"/bin/true\"]\n"

// loadKit loads src as k/k.yaml from an in-memory file system. A workload
// gets a companion recipe unless it names its own; extra files are added
// under k/.
func loadKit(t *testing.T, src string, extra map[string]string) *Kit {
	t.Helper()
	fsys := fstest.MapFS{"k/k.yaml": {Data: []byte(src)}}
	if strings.Contains(src, "kind: workload") && !strings.Contains(src, "\nbuild:") && !strings.Contains(src, "\ndockerfile:") {
		fsys["k/k.dockerfile"] = &fstest.MapFile{Data: []byte(companion)}
	}
	for name, body := range extra {
		fsys["k/"+name] = &fstest.MapFile{Data: []byte(body)}
	}
	k, err := Load(fsys, "k")
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return k
}

// diagnostic is the part of an Error a rule test asserts: Code, Ref,
// Field, position and whether it is a warning, plus Fix, a fragment the
// message must contain (the remedy it names).
type diagnostic struct {
	Code  string
	Ref   string
	Field string
	Pos   string // "line:col"
	Fix   string
	Warn  bool
}

func (d diagnostic) String() string {
	return fmt.Sprintf("{Code: %q, Ref: %q, Field: %q, Pos: %q, Fix: %q, Warn: %v}", d.Code, d.Ref, d.Field, d.Pos, d.Fix, d.Warn)
}

// diagnostics flattens a report for comparison; Fix is copied from want
// when the message contains it, so a missing remedy shows up as a diff.
func diagnostics(r *Report, want []diagnostic) ([]diagnostic, []string) {
	var got []diagnostic
	var msgs []string
	add := func(list Errors, warn bool) {
		for _, e := range list {
			d := diagnostic{Code: e.Code, Ref: e.Ref, Field: e.Field, Warn: warn,
				Pos: fmt.Sprintf("%d:%d", e.Range.Start.Line, e.Range.Start.Col)}
			i := len(got)
			if i < len(want) && want[i].Fix != "" && strings.Contains(e.Msg, want[i].Fix) {
				d.Fix = want[i].Fix
			}
			got = append(got, d)
			msgs = append(msgs, e.Msg)
		}
	}
	add(r.Errors, false)
	add(r.Warnings, true)
	return got, msgs
}

// ruleCase is one table case of a rule test: a descriptor and every
// diagnostic it must produce, no more and no fewer.
type ruleCase struct {
	rule  string // the rule as the specification or the checklist names it
	desc  string // what the case shows
	src   string // body starting on line 3 (see kitSrc), or a whole file starting with "#"
	opts  []Option
	files map[string]string // extra files in the kit directory
	want  []diagnostic
}

func runRuleCases(t *testing.T, cases []ruleCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.rule+" "+tc.desc, func(t *testing.T) {
			src := tc.src
			if !strings.HasPrefix(src, "#") {
				src = kitSrc(src)
			}
			k := loadKit(t, src, tc.files)
			got, msgs := diagnostics(k.Validate(tc.opts...), tc.want)
			if os.Getenv("KITSMITH_DUMP_WANT") != "" && !cmp.Equal(tc.want, got) {
				dumpWant(t, got, msgs)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s\nmessages:\n  %s", diff, strings.Join(msgs, "\n  "))
			}
		})
	}
}

// dumpWant prints got as a Go literal, with a suggested Fix (the clause
// after the message's last ';'), for writing new cases.
func dumpWant(t *testing.T, got []diagnostic, msgs []string) {
	t.Helper()
	var b strings.Builder
	b.WriteString("want: []diagnostic{\n")
	for i, d := range got {
		fix := msgs[i]
		if j := strings.LastIndex(fix, "; "); j >= 0 {
			fix = fix[j+2:]
		}
		if len(fix) > 60 {
			fix = fix[:60]
		}
		fmt.Fprintf(&b, "\t{Code: %q, Ref: %q, Field: %q, Pos: %q, Fix: %q", d.Code, d.Ref, d.Field, d.Pos, fix)
		if d.Warn {
			b.WriteString(", Warn: true")
		}
		b.WriteString("},\n")
	}
	b.WriteString("},")
	t.Logf("DUMP %s\n%s\n# %s", t.Name(), b.String(), strings.Join(msgs, "\n# "))
}
