package emulator

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/kitsmith/kitsmith/internal/textsafe"
)

// FormatVersion is the version of the JSON report; it changes only when a
// field is removed or changes meaning.
const FormatVersion = 1

// Scope is what a green run means, printed in every report.
const Scope = "consistent with the specification as kitsmith reads it; not a run under sbx"

// NotEmulated lists what the emulation does not reproduce, in every
// report.
var NotEmulated = []string{
	"header injection for credential inject domains (the connection is tunnelled unmodified; the hook sends the sentinel)",
	"network-policy@2 method and path rules (a bounded entry allows its hosts)",
	"lifecycle files",
	"background hooks (started, not awaited)",
	"the entrypoint",
	"restarts (install-once, startup-every-boot)",
	"volumes and host mounts",
	"ssh-agent",
	"Docker in the sandbox",
	"UDP and ports other than 80, 443 and those the policy names on the transparent path",
}

// Report is the result of one run.
type Report struct {
	// Platform is the platform the hooks ran on.
	Platform string `json:"platform"`
	// Order is the composition order the hooks ran in.
	Order []string `json:"order"`
	// Hooks are every hook's result, install hooks first.
	Hooks []HookResult `json:"hooks"`
	// Leaks are sentinels or secrets found where they must not be.
	Leaks []Leak `json:"leaks"`
	// Scope and NotEmulated say what a green run means.
	Scope       string   `json:"scope"`
	NotEmulated []string `json:"notEmulated"`
}

// HookResult is one hook's run.
type HookResult struct {
	Kit         string `json:"kit"`
	Phase       string `json:"phase"`
	Index       int    `json:"index"`
	Description string `json:"description,omitempty"`
	User        string `json:"user"`
	// Background reports a hook started and not awaited.
	Background bool `json:"background,omitempty"`
	// Exit is the hook's exit code (-1: it could not run); Error why.
	Exit       int    `json:"exit"`
	Error      string `json:"error,omitempty"`
	DurationMS int64  `json:"durationMs"`
	// Env lists the names the hook was given.
	Env         []string     `json:"env"`
	Connections []Connection `json:"connections"`
	Added       []string     `json:"added"`
	Changed     []string     `json:"changed"`
	Removed     []string     `json:"removed"`
	// FilesTruncated reports a file list cut at its bound.
	FilesTruncated bool `json:"filesTruncated,omitempty"`
	// Output is the tail of the hook's standard output and error.
	Output string `json:"output"`
}

// Refused returns the connections the policy refused.
func (h HookResult) Refused() []Connection {
	var out []Connection
	for _, c := range h.Connections {
		if !c.Allowed {
			out = append(out, c)
		}
	}
	return out
}

// Passed reports a hook that exited 0 with nothing refused.
func (h HookResult) Passed() bool {
	return h.Exit == 0 && h.Error == "" && len(h.Refused()) == 0
}

// Leak is a sentinel or a secret seen where it must not be.
type Leak struct {
	// What is "host sentinel" or "secret of SERVICE".
	What string `json:"what"`
	// Where is "env", "output" or a file path, with the hook.
	Where string `json:"where"`
	Kit   string `json:"kit"`
	Phase string `json:"phase"`
	Index int    `json:"index"`
}

// OK reports a run in which every hook passed and nothing leaked.
func (r *Report) OK() bool {
	if len(r.Leaks) > 0 {
		return false
	}
	for _, h := range r.Hooks {
		if !h.Passed() {
			return false
		}
	}
	return true
}

// MarshalJSON writes the versioned report document.
func (r *Report) MarshalJSON() ([]byte, error) {
	type plain Report
	return json.Marshal(struct {
		FormatVersion int  `json:"formatVersion"`
		OK            bool `json:"ok"`
		*plain
	}{FormatVersion, r.OK(), (*plain)(r)})
}

// WriteText writes the report for a terminal: one line per hook, its
// refusals with the fix, leaks, and what was not emulated.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	for _, h := range r.Hooks {
		verdict := "ok"
		switch {
		case h.Background:
			verdict = "started (background, not awaited)"
		case h.Error != "":
			verdict = "failed: " + h.Error
		case h.Exit != 0:
			verdict = fmt.Sprintf("failed: exit %d", h.Exit)
		case len(h.Refused()) > 0:
			verdict = "egress refused"
		}
		label := fmt.Sprintf("%s %s[%d]", h.Kit, h.Phase, h.Index)
		if h.Description != "" {
			label += " (" + h.Description + ")"
		}
		fmt.Fprintf(&b, "%s as %s: %s in %d ms\n", textsafe.Inline(label), textsafe.Inline(h.User), verdict, h.DurationMS)
		for _, c := range h.Refused() {
			fmt.Fprintf(&b, "  refused %s:%d (%s): %s\n", textsafe.Inline(c.Host), c.Port, c.Path, textsafe.Inline(c.Fix))
		}
		if !h.Passed() && h.Output != "" {
			for _, l := range strings.Split(strings.TrimRight(h.Output, "\n"), "\n") {
				fmt.Fprintf(&b, "  | %s\n", textsafe.Inline(l))
			}
		}
	}
	for _, l := range r.Leaks {
		fmt.Fprintf(&b, "leak: the %s appears in %s of %s %s[%d]\n", l.What, textsafe.Inline(l.Where), textsafe.Inline(l.Kit), l.Phase, l.Index)
	}
	passed := 0
	for _, h := range r.Hooks {
		if h.Passed() {
			passed++
		}
	}
	fmt.Fprintf(&b, "%d hook%s run on %s: %d passed, %d failed; %s\n", len(r.Hooks), plural(len(r.Hooks)), r.Platform, passed, len(r.Hooks)-passed, r.Scope)
	fmt.Fprintf(&b, "not emulated: %s\n", strings.Join(r.NotEmulated, "; "))
	_, err := io.WriteString(w, b.String())
	return err
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// JUnit shapes: one testsuite per phase, one testcase per hook.
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the report as JUnit XML.
func (r *Report) WriteJUnit(w io.Writer) error {
	var doc junitSuites
	for _, phase := range []string{PhaseInstall, PhaseStartup} {
		s := junitSuite{Name: phase}
		var ms int64
		for _, h := range r.Hooks {
			if h.Phase != phase {
				continue
			}
			c := junitCase{Name: fmt.Sprintf("%s[%d]", phase, h.Index), Classname: h.Kit, Time: seconds(h.DurationMS), SystemOut: h.Output}
			if h.Description != "" {
				c.Name += " " + h.Description
			}
			if !h.Passed() {
				var why []string
				if h.Error != "" {
					why = append(why, h.Error)
				} else if h.Exit != 0 {
					why = append(why, fmt.Sprintf("exit %d", h.Exit))
				}
				for _, x := range h.Refused() {
					why = append(why, fmt.Sprintf("refused %s:%d (%s): %s", x.Host, x.Port, x.Path, x.Fix))
				}
				c.Failure = &junitFailure{Message: why[0], Text: strings.Join(why, "\n")}
				s.Failures++
			}
			s.Tests++
			ms += h.DurationMS
			s.Cases = append(s.Cases, c)
		}
		s.Time = seconds(ms)
		doc.Suites = append(doc.Suites, s)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func seconds(ms int64) string { return fmt.Sprintf("%.3f", float64(ms)/1000) }
