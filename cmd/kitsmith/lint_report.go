package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/kitsmith/kitsmith/pkg/lint"
	"github.com/kitsmith/kitsmith/pkg/lint/format"
)

// lintReportFlags are lint's report options beyond --format: where SARIF
// URIs are relative to, a SARIF file written besides the report, colour.
type lintReportFlags struct {
	sarifBase string
	sarifFile string
	color     string
}

// AddFlags registers the report flags on cmd.
func (f *lintReportFlags) AddFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.sarifBase, "sarif-base", "", "directory SARIF URIs are relative to (%SRCROOT%) (default: the git repository root above the working directory, else the working directory)")
	fl.StringVar(&f.sarifFile, "sarif-file", "", "also write the report as SARIF 2.1.0 to this file (for code-scanning upload)")
	fl.StringVar(&f.color, "color", "auto", "colour the text report: auto (on a terminal, unless NO_COLOR is set), always or never")
	_ = cmd.RegisterFlagCompletionFunc("color", cobra.FixedCompletions([]string{"auto", "always", "never"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.MarkFlagDirname("sarif-base")
}

// validate checks the flag values.
func (f *lintReportFlags) validate() error {
	switch f.color {
	case "auto", "always", "never":
	default:
		return usageErrorf("--color must be auto, always or never, not %q", f.color)
	}
	if f.sarifBase != "" {
		fi, err := os.Stat(f.sarifBase)
		if err != nil {
			return usageErrorf("--sarif-base: %w", err)
		}
		if !fi.IsDir() {
			return usageErrorf("--sarif-base %s is not a directory", f.sarifBase)
		}
	}
	return nil
}

// useColor decides colour for the text report on out: --color always or
// never; auto colours a terminal unless NO_COLOR is set (to anything).
func (f *lintReportFlags) useColor(out io.Writer, e env) bool {
	switch f.color {
	case "always":
		return true
	case "never":
		return false
	}
	if _, set := e["NO_COLOR"]; set {
		return false
	}
	file, ok := out.(*os.File)
	return ok && term.IsTerminal(int(file.Fd()))
}

// base is the absolute directory SARIF URIs are relative to: --sarif-base,
// else the root of the git repository the working directory is in (the
// nearest directory above it holding .git), else the working directory;
// "" when the working directory is unknown.
func (f *lintReportFlags) base() string {
	if f.sarifBase != "" {
		if abs, err := filepath.Abs(f.sarifBase); err == nil {
			return abs
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for dir := wd; ; {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return wd
		}
		dir = parent
	}
}

// writeExtras writes what lint writes besides its report: the --sarif-file
// and, in GitHub Actions, the job summary (GITHUB_STEP_SUMMARY).
func (f *lintReportFlags) writeExtras(res *lint.Result, o format.Options, e env) error {
	if f.sarifFile != "" {
		var b bytes.Buffer
		if err := (&format.SARIF{ToolVersion: o.ToolVersion, BaseDir: o.BaseDir, Sources: o.Sources}).Format(&b, res); err != nil {
			return usageErrorf("--sarif-file: %w", err)
		}
		if err := writeFileAtomic(f.sarifFile, b.Bytes(), 0o644); err != nil {
			return usageErrorf("--sarif-file: %w", err)
		}
	}
	if e["GITHUB_ACTIONS"] == "true" && e["GITHUB_STEP_SUMMARY"] != "" {
		file, err := os.OpenFile(e["GITHUB_STEP_SUMMARY"], os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return usageErrorf("writing GITHUB_STEP_SUMMARY: %w", err)
		}
		err = format.Markdown{}.Format(file, res)
		if cerr := file.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return usageErrorf("writing GITHUB_STEP_SUMMARY: %w", err)
		}
	}
	return nil
}
