package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/kitsmith/kitsmith/internal/diag"
	"github.com/kitsmith/kitsmith/internal/textsafe"
	"github.com/kitsmith/kitsmith/pkg/lint"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// fixFlags are lint's fix flags.
type fixFlags struct {
	fix, unsafeFixes, diff bool
	maxPasses              int
}

func (o *fixFlags) enabled() bool { return o.fix || o.diff }

// validate checks the fix flags against each other.
func (o *fixFlags) validate() error {
	switch {
	case o.unsafeFixes && !o.enabled():
		return usageErrorf("--unsafe-fixes applies with --fix or --diff")
	case o.maxPasses < 1:
		return usageErrorf("--fix-passes must be at least 1, not %d", o.maxPasses)
	}
	return nil
}

func (o *fixFlags) selection() lint.FixSelection {
	if o.unsafeFixes {
		return lint.AllFixes
	}
	return lint.SafeFixes
}

// runFix lints the kits at kitPaths, applies their fixes to a fixed point
// in memory, and then writes the files (--fix) or prints the diff
// (--diff). It reports what it changed on errOut (or out for a text
// report) and what remains as the lint report.
func (o *lintOptions) runFix(ctx context.Context, kitPaths []string, out, errOut io.Writer) error {
	var last map[string][]byte
	var kitDirs []string
	lintf := func(ctx context.Context, overlay map[string][]byte) (*lint.Result, map[string][]byte, error) {
		kits := make([]*spec.Kit, 0, len(kitPaths))
		for _, p := range kitPaths {
			k, err := spec.LoadPath(p, spec.WithOverlay(overlay))
			if err != nil {
				return nil, nil, asUsage(err, imageAsSourceHint(p))
			}
			kits = append(kits, k)
		}
		if kitDirs == nil {
			for _, k := range kits {
				kitDirs = append(kitDirs, k.Dir)
			}
		}
		res, err := o.lintKits(ctx, kits)
		if err != nil {
			return nil, nil, err
		}
		srcs := map[string][]byte{}
		for _, k := range kits {
			for p, b := range k.SourceFiles() {
				srcs[p] = b
			}
		}
		last = srcs
		return res, srcs, nil
	}
	res, err := lint.FixLoop(ctx, lintf, lint.FixOptions{Select: o.selection(), MaxPasses: o.maxPasses,
		Writable: func(file string) bool { return insideKit(file, kitDirs) }})
	if err != nil {
		if ue := (*usageError)(nil); errors.As(err, &ue) {
			return err
		}
		return asUsage(err, "")
	}
	report := errOut
	if o.format == "text" && !o.diff {
		report = out
	}
	if o.diff {
		if err := writeFixDiff(out, res); err != nil {
			return err
		}
	} else {
		for _, f := range res.Changed() {
			if err := writeKeepingMode(f, res.After[f]); err != nil {
				return usageErrorf("%v", err)
			}
		}
	}
	describeFixes(report, res, o.diff)
	if o.diff {
		if len(res.After) > 0 {
			return errFindings
		}
		return nil
	}
	return o.report(out, res.Remaining, last)
}

// lintKits lints kits under the configuration that applies to each.
func (o *lintOptions) lintKits(ctx context.Context, kits []*spec.Kit) (*lint.Result, error) {
	cfg, err := o.configOption()
	if err != nil {
		return nil, asUsage(err, "")
	}
	res, err := lint.Run(ctx, kits, cfg, lint.WithEnable(o.enable...), lint.WithDisable(o.disable...))
	if err != nil {
		return nil, lintRunError(err)
	}
	return res, nil
}

// insideKit reports whether file is a regular file (no symbolic link)
// inside one of the kit directories.
func insideKit(file string, dirs []string) bool {
	fi, err := os.Lstat(file)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return false
	}
	for _, d := range dirs {
		dabs, err := filepath.Abs(d)
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(dabs, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return true
		}
	}
	return false
}

// writeKeepingMode replaces file with b atomically, keeping its mode.
func writeKeepingMode(file string, b []byte) error {
	fi, err := os.Stat(file)
	if err != nil {
		return fmt.Errorf("writing %s: %w", file, err)
	}
	if err := writeFileAtomic(file, b, fi.Mode().Perm()); err != nil {
		return fmt.Errorf("writing %s: %w", file, err)
	}
	return nil
}

// writeFixDiff prints the changes as a unified diff.
func writeFixDiff(out io.Writer, res *lint.FixResult) error {
	for _, f := range res.Changed() {
		text, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
			A: difflib.SplitLines(string(res.Before[f])), B: difflib.SplitLines(string(res.After[f])),
			FromFile: "a/" + filepath.ToSlash(f), ToFile: "b/" + filepath.ToSlash(f), Context: 3,
		})
		if err != nil {
			return fmt.Errorf("diffing %s: %w", f, err)
		}
		if _, err := io.WriteString(out, text); err != nil {
			return err
		}
	}
	return nil
}

// describeFixes says what was (or, with --diff, would be) changed.
func describeFixes(w io.Writer, res *lint.FixResult, dry bool) {
	tw := textsafe.NewWriter(w)
	defer tw.Flush()
	verb := "fixed"
	if dry {
		verb = "would fix"
	}
	for _, p := range res.Applied {
		fmt.Fprintf(tw, "%s %s: %s [%s]\n", verb, p.Finding.Range.Start, p.Fix.Title, p.Finding.RuleID)
	}
	files := "files"
	if len(res.After) == 1 {
		files = "file"
	}
	switch {
	case len(res.Applied) == 0:
		fmt.Fprintf(tw, "nothing to fix\n")
	case dry:
		fmt.Fprintf(tw, "%d %s would change (%d fixes, %d passes)\n", len(res.After), files, len(res.Applied), res.Passes)
	default:
		fmt.Fprintf(tw, "%d %s changed (%d fixes, %d passes)\n", len(res.After), files, len(res.Applied), res.Passes)
	}
	if !res.Converged {
		fmt.Fprintf(tw, "stopped after %d passes with fixes still applying; run --fix again\n", res.Passes)
	}
}

// report formats a lint result with the given source texts.
func (o *lintOptions) report(out io.Writer, res *lint.Result, sources map[string][]byte) error {
	fo := o.formatOptions(out, diag.Sources(sources))
	fm, err := o.formatter(fo)
	if err != nil {
		return err
	}
	if err := fm.Format(out, res); err != nil {
		return asUsage(fmt.Errorf("writing the report: %w", err), "")
	}
	if err := o.writeExtras(res, fo, o.env); err != nil {
		return err
	}
	if res.Fails(o.fail) {
		return errFindings
	}
	return nil
}
