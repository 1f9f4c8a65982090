// Package format renders lint results: text for people, JSON for tools,
// SARIF 2.1.0 for code-scanning services, and GitHub Actions workflow
// commands. Formatters know nothing of individual rules.
package format

import (
	"fmt"
	"io"
	"sort"

	"github.com/kitsmith/kitsmith/pkg/lint"
)

// Formatter writes a lint result.
type Formatter interface {
	Format(w io.Writer, r *lint.Result) error
}

// Sources gives formatters the text of source files, for excerpts.
type Sources interface {
	Line(file string, n int) (string, bool)
}

// Options configures the formatters that need more than the result.
type Options struct {
	// Sources provides source lines for text excerpts; nil omits them.
	Sources Sources
	// ToolVersion is kitsmith's version, for SARIF.
	ToolVersion string
	// BaseDir is the absolute directory SARIF artifact URIs are relative
	// to (uriBaseId %SRCROOT%), normally the repository root; "" keeps
	// paths as they are.
	BaseDir string
	// Color colours the text report with terminal escape sequences.
	Color bool
}

// Names lists the available formats.
func Names() []string {
	names := make([]string, 0, len(constructors))
	for n := range constructors {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

var constructors = map[string]func(Options) Formatter{
	"text": func(o Options) Formatter { return &Text{Sources: o.Sources, Color: o.Color} },
	"json": func(Options) Formatter { return JSON{} },
	"sarif": func(o Options) Formatter {
		return &SARIF{ToolVersion: o.ToolVersion, BaseDir: o.BaseDir, Sources: o.Sources}
	},
	"github": func(Options) Formatter { return GitHub{} },
}

// ByName returns the formatter for a format name.
func ByName(name string, o Options) (Formatter, error) {
	c, ok := constructors[name]
	if !ok {
		return nil, fmt.Errorf("unknown format %q: use one of %v", name, Names())
	}
	return c(o), nil
}
