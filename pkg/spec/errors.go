package spec

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Error is one problem found in a kit source: where it is, which field it is
// about, which rule it breaks and what to change.
type Error struct {
	// Range is the source extent of the offending value (or of its key when
	// the key itself is the problem). Zero when the problem has no place,
	// such as a missing file.
	Range Range
	// Field is the dotted path of the offending value in the descriptor,
	// e.g. "capabilities[2].config.apiKey.inject[0].domain". Empty for
	// problems about the whole file.
	Field string
	// Code is kitsmith's stable kebab-case identifier of the rule, e.g.
	// "references-declared" or "unknown-field". Lint reports it as
	// "spec/<Code>".
	Code string
	// Ref is the conformance (TCK) case id of the rule when the
	// specification names one, e.g. "SPEC-v3 §6/references-declared".
	Ref string
	// Msg says what is wrong and what to change.
	Msg string
	// Suggest is the text the message proposes writing in place of the
	// key or value at Field (a did-you-mean key or type); "" when it
	// proposes none.
	Suggest string
	// Err is the underlying error, if any.
	Err error
}

// Error formats e as "file:line:col: msg".
func (e *Error) Error() string {
	pos := e.Range.Start.String()
	if pos == "" {
		return e.Msg
	}
	return pos + ": " + e.Msg
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Rule returns the identifier to show for e: its TCK case id when the
// specification names one, else its Code.
func (e *Error) Rule() string {
	if e.Ref != "" {
		return e.Ref
	}
	return e.Code
}

// Errors is a list of problems. As an error it prints one problem per line.
type Errors []*Error

// Error joins the problems one per line.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap exposes the individual problems to errors.Is and errors.As.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// Sort orders the problems by position, then by message, and removes exact
// duplicates (same position, field and message).
func (es Errors) Sort() Errors {
	sort.SliceStable(es, func(i, j int) bool {
		a, b := es[i].Range.Start, es[j].Range.Start
		if a != b {
			return a.Before(b)
		}
		if es[i].Field != es[j].Field {
			return es[i].Field < es[j].Field
		}
		return es[i].Msg < es[j].Msg
	})
	out := es[:0]
	for i, e := range es {
		if i > 0 {
			p := es[i-1]
			if p.Range.Start == e.Range.Start && p.Field == e.Field && p.Msg == e.Msg {
				continue
			}
		}
		out = append(out, e)
	}
	return out
}

// Report is the outcome of validating a kit: errors make it invalid,
// warnings do not.
type Report struct {
	Errors   Errors
	Warnings Errors
}

// OK reports whether the kit has no errors. Warnings do not count.
func (r *Report) OK() bool { return r == nil || len(r.Errors) == 0 }

// Err returns the errors as an error, or nil when there are none.
func (r *Report) Err() error {
	if r.OK() {
		return nil
	}
	return r.Errors
}

func (r *Report) add(warn bool, e *Error) {
	if warn {
		r.Warnings = append(r.Warnings, e)
	} else {
		r.Errors = append(r.Errors, e)
	}
}

func (r *Report) merge(o *Report) {
	if o == nil {
		return
	}
	r.Errors = append(r.Errors, o.Errors...)
	r.Warnings = append(r.Warnings, o.Warnings...)
}

func (r *Report) sort() {
	r.Errors = r.Errors.Sort()
	r.Warnings = r.Warnings.Sort()
}

// ErrNoKit is returned by Locate and Load when a directory holds no kit
// descriptor.
var ErrNoKit = errors.New("no kit descriptor found")

// ErrAmbiguousKit is returned by Locate and Load when a directory holds
// several candidate descriptors and none is named after the directory.
var ErrAmbiguousKit = errors.New("several kit descriptors found")

// newErrorf is a shorthand for building an Error at a range.
func newErrorf(r Range, field, code, ref, format string, args ...any) *Error {
	return &Error{Range: r, Field: field, Code: code, Ref: ref, Msg: fmt.Sprintf(format, args...)}
}
