package spec

import (
	"fmt"
	"strings"
)

// PublishError reports a kit source that does not validate or whose
// descriptor cannot be published (Kit.Publish): Report holds every problem
// with its position. It unwraps to Report.Errors, so errors.As finds the
// Errors (and each *Error) through it: build.DescriptorError and
// review.SourceError are this type.
type PublishError struct {
	// Kit is the kit's display path.
	Kit string
	// Report holds the errors (and warnings) with their positions.
	Report *Report
}

// Error names the kit and lists its errors with their positions.
func (e *PublishError) Error() string {
	n := 0
	if e.Report != nil {
		n = len(e.Report.Errors)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "kit %s cannot be published (%d error", e.Kit, n)
	if n != 1 {
		b.WriteString("s")
	}
	b.WriteString(")")
	if n > 0 {
		b.WriteString(":")
	}
	for _, x := range e.Report.Errors {
		b.WriteString("\n  ")
		b.WriteString(x.Error())
	}
	return b.String()
}

// Unwrap returns Report.Errors (as one error, an Errors); nil without any.
func (e *PublishError) Unwrap() []error {
	if e.Report == nil || len(e.Report.Errors) == 0 {
		return nil
	}
	return []error{e.Report.Errors}
}
