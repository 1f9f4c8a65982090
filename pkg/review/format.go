package review

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Output formats of the Write functions.
const (
	FormatText     = "text"
	FormatJSON     = "json"
	FormatMarkdown = "markdown"
)

// FormatVersion is the formatVersion of every JSON document this package
// writes; it changes only when a document changes incompatibly.
const FormatVersion = 1

// ErrFormat is returned for an output format a result has no renderer for.
var ErrFormat = errors.New("unknown output format")

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

type diffJSON struct {
	FormatVersion int `json:"formatVersion"`
	*DiffResult
	Widened bool `json:"widened"`
}

// WriteDiff renders a diff as text, JSON or markdown (a pull-request
// comment).
func WriteDiff(w io.Writer, r *DiffResult, format string) error {
	switch format {
	case FormatJSON:
		return writeJSON(w, diffJSON{FormatVersion: FormatVersion, DiffResult: r, Widened: r.Widened()})
	case FormatText:
		return diffText(w, r)
	case FormatMarkdown:
		return diffMarkdown(w, r)
	}
	return fmt.Errorf("%w %q: use text, json or markdown", ErrFormat, format)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

func summary(r *DiffResult) string {
	return plural(len(r.Widenings), "widening", "widenings") + ", " + plural(len(r.Narrowings), "narrowing", "narrowings") +
		", " + plural(len(r.Changes), "other change", "other changes")
}

// oneLine shortens a value to its first line.
func oneLine(s string) string {
	first, rest, more := strings.Cut(strings.TrimRight(s, "\n"), "\n")
	if more && rest != "" {
		return first + " …"
	}
	return first
}

func at(c Change) string {
	out := ""
	if len(c.Platforms) > 0 {
		out = "  [" + strings.Join(c.Platforms, ", ") + "]"
	}
	if c.At == nil {
		return out
	}
	return out + "  (" + c.At.String() + ")"
}

func diffText(w io.Writer, r *DiffResult) error {
	var b strings.Builder
	fmt.Fprintf(&b, "kitsmith diff %s → %s\n%s\n", r.Old, r.New, summary(r))
	if len(r.Platforms) > 0 {
		fmt.Fprintf(&b, "Judged on %s; a change on some platforms only names them.\n", strings.Join(r.Platforms, ", "))
	}
	if len(r.Widenings) > 0 {
		b.WriteString("\nWidenings (a runtime stops these for approval):\n")
		for _, c := range r.Widenings {
			fmt.Fprintf(&b, "  + %s: %s%s\n", c.Category, c.Detail, at(c))
		}
	}
	if len(r.Narrowings) > 0 {
		b.WriteString("\nNarrowings:\n")
		for _, c := range r.Narrowings {
			fmt.Fprintf(&b, "  - %s: %s%s\n", c.Category, c.Detail, at(c))
		}
	}
	if len(r.Changes) > 0 {
		b.WriteString("\nOther changes (no authority):\n")
		for _, c := range r.Changes {
			fmt.Fprintf(&b, "  %s%s\n", changeLine(c, oneLine), at(c))
			for _, l := range multiLineDiff(c) {
				fmt.Fprintf(&b, "      %s\n", l)
			}
		}
	}
	for _, g := range r.Groups {
		if len(g.Adds) == 0 {
			fmt.Fprintf(&b, "\nOptional group %q (%s) adds nothing to the surface\n", g.Group, g.Field)
			continue
		}
		fmt.Fprintf(&b, "\nOptional group %q (%s), when selected, adds:\n", g.Group, g.Field)
		for _, c := range g.Adds {
			fmt.Fprintf(&b, "  + %s: %s%s\n", c.Category, c.Detail, at(c))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// changeLine renders a non-authority change: "+" added, "-" removed, "~"
// changed, values through short.
func changeLine(c Change, short func(string) string) string {
	switch {
	case c.Old == "":
		return fmt.Sprintf("+ %s: %s", c.Category, detailOrValue(c, short(c.New)))
	case c.New == "":
		return fmt.Sprintf("- %s: %s", c.Category, detailOrValue(c, short(c.Old)))
	}
	if multiLineDiff(c) != nil {
		return fmt.Sprintf("~ %s changed", subject(c))
	}
	return fmt.Sprintf("~ %s: %s → %s", subject(c), short(c.Old), short(c.New))
}

// subject is what changeLine names: the category, and the detail unless
// the category already ends with it (metadata.version: version).
func subject(c Change) string {
	if c.Detail == "" || strings.HasSuffix(c.Category, "."+c.Detail) {
		return c.Category
	}
	return c.Category + ": " + c.Detail
}

// multiLineDiff returns the lines removed ("- ") and added ("+ ") by a
// change of a multi-line value, or nil for one-line values.
func multiLineDiff(c Change) []string {
	if c.Old == "" || c.New == "" || !strings.Contains(c.Old+c.New, "\n") {
		return nil
	}
	a := strings.Split(strings.TrimRight(c.Old, "\n"), "\n")
	b := strings.Split(strings.TrimRight(c.New, "\n"), "\n")
	// lcs[i][j]: length of the longest common subsequence of a[i:], b[j:]
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []string
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			out = append(out, "- "+a[i])
			i++
		default:
			out = append(out, "+ "+b[j])
			j++
		}
	}
	return out
}

func detailOrValue(c Change, v string) string {
	if v == c.Detail || v == "" {
		return c.Detail
	}
	return c.Detail + ": " + v
}

func mdEscape(s string) string {
	r := strings.NewReplacer("|", `\|`, "`", "'", "\n", " ")
	return r.Replace(s)
}

func mdAt(c Change) string {
	out := ""
	if len(c.Platforms) > 0 {
		out = mdEscape(strings.Join(c.Platforms, ", ")) + " "
	}
	if c.At == nil {
		return strings.TrimSpace(out)
	}
	return out + "`" + c.At.String() + "`"
}

func diffMarkdown(w io.Writer, r *DiffResult) error {
	var b strings.Builder
	verdict := "does not widen"
	if r.Widened() {
		verdict = "**widens** the permission surface"
	}
	fmt.Fprintf(&b, "### kitsmith diff: `%s` → `%s`\n\nThis update %s: %s.\n", mdEscape(r.Old), mdEscape(r.New), verdict, summary(r))
	for _, sec := range []struct {
		title string
		list  []Change
	}{{"Widenings (a runtime stops these for approval)", r.Widenings}, {"Narrowings", r.Narrowings}} {
		if len(sec.list) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n#### %s\n\n| | category | grant | declared at |\n|---|---|---|---|\n", sec.title)
		mark := "➕"
		if sec.list[0].Kind == KindNarrowing {
			mark = "➖"
		}
		for _, c := range sec.list {
			fmt.Fprintf(&b, "| %s | %s | `%s` | %s |\n", mark, c.Category, mdEscape(c.Detail), mdAt(c))
		}
	}
	if len(r.Changes) > 0 {
		b.WriteString("\n<details><summary>Other changes (no authority): " + plural(len(r.Changes), "change", "changes") + "</summary>\n\n")
		for _, c := range r.Changes {
			fmt.Fprintf(&b, "- %s", mdEscape(changeLine(c, oneLine)))
			if c.At != nil {
				fmt.Fprintf(&b, " (%s)", mdAt(c))
			}
			b.WriteString("\n")
			if d := multiLineDiff(c); len(d) > 0 {
				b.WriteString("\n  ```diff\n")
				for _, l := range d {
					fmt.Fprintf(&b, "  %s\n", strings.ReplaceAll(l, "```", "'''"))
				}
				b.WriteString("  ```\n")
			}
		}
		b.WriteString("\n</details>\n")
	}
	for _, g := range r.Groups {
		fmt.Fprintf(&b, "\n#### Optional group %q (`%s`)\n\n", g.Group, g.Field)
		if len(g.Adds) == 0 {
			b.WriteString("Selecting it adds nothing to the surface.\n")
			continue
		}
		b.WriteString("Selecting it adds:\n\n")
		for _, c := range g.Adds {
			fmt.Fprintf(&b, "- %s `%s`\n", c.Category, mdEscape(c.Detail))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

type resolutionJSON struct {
	FormatVersion int  `json:"formatVersion"`
	OK            bool `json:"ok"`
	*Resolution
}

// WriteResolution renders a resolution as text, JSON or markdown.
func WriteResolution(w io.Writer, r *Resolution, format string) error {
	switch format {
	case FormatJSON:
		return writeJSON(w, resolutionJSON{FormatVersion: FormatVersion, OK: r.OK(), Resolution: r})
	case FormatText, FormatMarkdown:
		return resolutionText(w, r, format == FormatMarkdown)
	}
	return fmt.Errorf("%w %q: use text, json or markdown", ErrFormat, format)
}

func resolutionText(w io.Writer, r *Resolution, md bool) error {
	var b strings.Builder
	bullet, code := "  ", func(s string) string { return s }
	if md {
		bullet, code = "- ", func(s string) string { return "`" + mdEscape(s) + "`" }
		b.WriteString("### kitsmith resolve\n\n")
	}
	if r.OK() {
		b.WriteString("The composition resolves.\n")
	} else {
		fmt.Fprintf(&b, "The composition does not resolve: %s.\n", plural(len(r.Problems), "problem", "problems"))
	}
	section := func(title string) {
		if md {
			fmt.Fprintf(&b, "\n#### %s\n\n", title)
		} else {
			fmt.Fprintf(&b, "\n%s:\n", title)
		}
	}
	if len(r.Problems) > 0 {
		section("Problems")
		for _, p := range r.Problems {
			fmt.Fprintf(&b, "%s%s [%s]\n", bullet, p.Message, p.ID)
		}
	}
	if len(r.Order) > 0 {
		section("Composition order")
		for i, k := range r.Order {
			fmt.Fprintf(&b, "%s%d. %s\n", bullet, i+1, code(k))
		}
	}
	if len(r.Groups) > 0 {
		section("Optional groups selected")
		for _, g := range r.Groups {
			fmt.Fprintf(&b, "%s%s\n", bullet, g)
		}
	}
	if len(r.Notes) > 0 {
		section("Notes")
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "%s%s\n", bullet, n)
		}
	}
	section("Merged permission surface")
	lines := strings.Split(strings.TrimSuffix(r.Surface.String(), "\n"), "\n")
	if lines[0] == "" {
		fmt.Fprintf(&b, "%s(nothing)\n", bullet)
	}
	for _, l := range lines {
		if l != "" {
			fmt.Fprintf(&b, "%s%s\n", bullet, code(l))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

type ceilingJSON struct {
	FormatVersion int  `json:"formatVersion"`
	OK            bool `json:"ok"`
	*CeilingResult
}

// WriteCeiling renders a ceiling verdict as text or JSON.
func WriteCeiling(w io.Writer, r *CeilingResult, format string) error {
	switch format {
	case FormatJSON:
		return writeJSON(w, ceilingJSON{FormatVersion: FormatVersion, OK: r.OK(), CeilingResult: r})
	case FormatText:
		var b strings.Builder
		if r.OK() {
			fmt.Fprintf(&b, "%s stays within the permission ceiling\n", r.Kit)
		} else {
			if len(r.Refusals) > 0 {
				fmt.Fprintf(&b, "%s is refused: what it grants cannot be judged, so it is not within the permission ceiling\n", r.Kit)
			} else {
				fmt.Fprintf(&b, "%s is beyond the permission ceiling: %s\n", r.Kit, plural(len(r.Violations), "violation", "violations"))
			}
		}
		for _, why := range r.Refusals {
			fmt.Fprintf(&b, "  refused: %s\n", why)
		}
		for _, v := range r.Violations {
			on := ""
			if len(v.Platforms) > 0 {
				on = " (on " + strings.Join(v.Platforms, ", ") + ")"
			}
			fmt.Fprintf(&b, "  %s [%s]%s\n", v, v.Rule, on)
		}
		_, err := io.WriteString(w, b.String())
		return err
	}
	return fmt.Errorf("%w %q: use text or json", ErrFormat, format)
}
