package spec

import (
	"bytes"
	"errors"
	"io"
	"strings"

	"gopkg.in/yaml.v3"
)

// maxRelocateLines and maxRelocateBytes bound how far past the construct
// yaml.v3 names the offending line is looked for, and how much text is
// parsed again on the way.
const (
	maxRelocateLines = 400
	maxRelocateBytes = 4 << 20
)

// offendingLine returns the line a yaml.v3 parser error is really about.
// yaml.v3 names the line where the construct it was parsing starts (the
// "- type:" a mis-indented key belongs under), not the line that broke it:
// the first prefix of src, from that line on, that fails with the same
// message ends at the offending line. It returns line when none does.
func offendingLine(src []byte, line int, msg string) int {
	lines := bytes.SplitAfter(src, []byte("\n"))
	parsed := 0
	for n := line; n <= len(lines) && n < line+maxRelocateLines && parsed < maxRelocateBytes; n++ {
		prefix := bytes.Join(lines[:n], nil)
		parsed += len(prefix)
		if err := decodeYAML(prefix); err != nil {
			if m := yamlErrLine.FindStringSubmatch(err.Error()); m != nil && m[2] == msg {
				return n
			}
		}
	}
	return line
}

func decodeYAML(src []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(src))
	var n yaml.Node
	for {
		if err := dec.Decode(&n); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// tabIndent returns the 1-based column of a tab in the indentation of
// line (1-based) of src, or 0.
func tabIndent(src []byte, line int) int {
	lines := bytes.Split(src, []byte("\n"))
	if line < 1 || line > len(lines) {
		return 0
	}
	l := lines[line-1]
	indent := l[:len(l)-len(bytes.TrimLeft(l, " \t"))]
	if i := bytes.IndexByte(indent, '\t'); i >= 0 {
		return i + 1
	}
	// A tab after a sequence dash or a key's colon indents too ("-\tkey").
	rest := bytes.TrimLeft(l, " ")
	if bytes.HasPrefix(rest, []byte("-\t")) {
		return len(l) - len(rest) + 2
	}
	return 0
}

// tabMessages are yaml.v3's messages for a tab where indentation is read.
var tabMessages = []string{"found character that cannot start any token", "found a tab character that violates indentation",
	"found a tab character where an indentation space is expected"}

// isTabMessage reports a yaml.v3 message that a tab in the indentation
// explains.
func isTabMessage(msg string) bool {
	for _, m := range tabMessages {
		if strings.HasPrefix(msg, m) {
			return true
		}
	}
	return false
}

// firstNonBlank returns the 1-based column of the first character of line
// (1-based) of src that is not a space or tab; 1 for a blank line.
func firstNonBlank(src []byte, line int) int {
	lines := bytes.Split(src, []byte("\n"))
	if line < 1 || line > len(lines) {
		return 1
	}
	l := lines[line-1]
	if t := bytes.TrimLeft(l, " \t"); len(t) > 0 {
		return len(l) - len(t) + 1
	}
	return 1
}
