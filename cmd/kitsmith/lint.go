package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/kitsmith/kitsmith/internal/diag"
	"github.com/kitsmith/kitsmith/internal/version"
	"github.com/kitsmith/kitsmith/pkg/lint"
	"github.com/kitsmith/kitsmith/pkg/lint/format"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// lintOptions are the flags and arguments of kitsmith lint.
type lintOptions struct {
	formatFlag
	lintReportFlags
	env       env
	failLevel string
	config    string
	enable    []string
	disable   []string
	listRules bool
	recursive bool
	files     bool
	paths     []string
	fixFlags

	fail lint.Severity // parsed --fail-level
}

func newLintCmd(ro *rootOptions) *cobra.Command {
	o := &lintOptions{formatFlag: newFormatFlag(lintFormats()...), env: ro.env}
	cmd := &cobra.Command{
		Use:   "lint [flags] PATH...",
		Short: "Find the pitfalls that make a kit fail silently in a sandbox",
		Long: `Lint reports everything validate reports (as spec/<rule> findings) plus the
pitfalls that a valid kit can still fall into: proxy variables that bypass the
sandbox proxy, host.docker.internal where the proxy only sees localhost, hook
variables the hook's env: list does not declare, literal secrets, unpinned
images, and more (kitsmith lint --list-rules).

PATH is a kit directory, a descriptor file, or with --recursive a tree to
search for kits. With --files, PATHs are changed files (as pre-commit passes
them) and the kits containing them are linted; files outside any kit are
skipped.

Configuration is read from .kitsmith.yaml, found upward from each kit (or
--config): disable, enable, severity overrides and ignored paths. --enable and
--disable apply over it. A finding is silenced inline with a comment on its
line or the line above:

  # kitsmith:ignore <rule-id>[,<rule-id>] <reason>

--fix applies the safe fixes in place (each file written atomically, its mode
kept), lints again and repeats until nothing more applies (at most
--fix-passes passes), then prints what it changed and reports what remains.
Safe fixes keep the kit's meaning and never widen its permission surface;
--unsafe-fixes adds the ones that grant authority or change behaviour
(host.docker.internal to localhost, removing a proxy override). --diff prints
the changes as a unified diff and writes nothing. Only files inside the kit
are written.


SARIF (--format sarif, --sarif-file) lists silenced findings as suppressed,
with the reason as justification. Its URIs are relative to the repository
root (uriBaseId %SRCROOT%, resolved in originalUriBaseIds) whatever the
working directory: the git repository root above it, or --sarif-base DIR.
In GitHub Actions, lint also writes a job summary (GITHUB_STEP_SUMMARY).

Exit status: 0 nothing at or above --fail-level, 1 findings at or above it
(with --diff: 1 when a fix would change a file), 2 usage, configuration or
I/O error.`,
		Example: `  kitsmith lint kits/inside
  kitsmith lint --recursive --fail-level warning .
  kitsmith lint --format sarif --recursive . > kitsmith.sarif
  kitsmith lint --recursive --sarif-file kitsmith.sarif .   # text on stdout, SARIF in the file
  kitsmith lint --format github --recursive .
  kitsmith lint --disable port-trust-boundary kits/outside
  kitsmith lint --files kits/inside/README.md   # as the pre-commit hook runs it
  kitsmith lint --fix kits/inside               # apply the safe fixes in place
  kitsmith lint --diff --unsafe-fixes kits/inside   # show every fix as a diff, write nothing
  kitsmith lint --list-rules`,
		Args: func(_ *cobra.Command, args []string) error {
			switch {
			case o.listRules && len(args) > 0:
				return errors.New("--list-rules takes no PATH")
			case o.listRules && o.format != "text":
				return errors.New("--list-rules prints a table; --format applies to a lint report")
			case len(args) == 0 && !o.files && !o.listRules:
				return errors.New("lint needs a PATH (a kit directory, descriptor file, or a tree with --recursive)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(args); err != nil {
				return err
			}
			if o.listRules {
				return listRules(cmd.OutOrStdout())
			}
			return o.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	o.AddFlags(cmd)
	return cmd
}

// AddFlags registers the lint flags and their completions on cmd.
func (o *lintOptions) AddFlags(cmd *cobra.Command) {
	o.formatFlag.AddFlags(cmd)
	o.lintReportFlags.AddFlags(cmd)
	f := cmd.Flags()
	f.StringVar(&o.failLevel, "fail-level", "error", "lowest severity that makes lint exit 1: error, warning or info")
	f.StringVar(&o.config, "config", "", "configuration file (default: .kitsmith.yaml found upward from each kit)")
	f.StringSliceVar(&o.enable, "enable", nil, `rule IDs to enable, or "all" (repeatable, comma-separated)`)
	f.StringSliceVar(&o.disable, "disable", nil, `rule IDs to disable, or "all" (repeatable, comma-separated)`)
	f.BoolVar(&o.listRules, "list-rules", false, "list the rules and exit")
	f.BoolVarP(&o.recursive, "recursive", "r", false, "search PATH directories for kits")
	f.BoolVar(&o.files, "files", false, "PATHs are changed files: lint the kits that contain them (pre-commit)")
	f.BoolVar(&o.fix, "fix", false, "apply the safe fixes in place, to a fixed point, and report what remains")
	f.BoolVar(&o.unsafeFixes, "unsafe-fixes", false, "with --fix or --diff: apply the unsafe fixes too (they grant authority or change behaviour)")
	f.BoolVar(&o.diff, "diff", false, "print the fixes as a unified diff and write nothing; exit 1 when a file would change")
	f.IntVar(&o.maxPasses, "fix-passes", lint.DefaultFixPasses, "most lint-and-fix passes of --fix and --diff")
	_ = cmd.RegisterFlagCompletionFunc("fail-level", cobra.FixedCompletions([]string{"error", "warning", "info"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("config", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"yaml", "yml"}, cobra.ShellCompDirectiveFilterFileExt
	})
	ruleIDs := func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		ids := []string{"all\tevery rule"}
		for _, r := range allRules() {
			ids = append(ids, r.ID+"\t"+r.Summary)
		}
		return ids, cobra.ShellCompDirectiveNoFileComp
	}
	_ = cmd.RegisterFlagCompletionFunc("enable", ruleIDs)
	_ = cmd.RegisterFlagCompletionFunc("disable", ruleIDs)
}

// validate checks the flags and arguments before anything is read.
func (o *lintOptions) validate(args []string) error {
	o.paths = args
	if o.listRules {
		return nil
	}
	sev, err := lint.ParseSeverity(o.failLevel)
	if err != nil {
		return usageErrorf("--fail-level must be error, warning or info, not %q", o.failLevel)
	}
	o.fail = sev
	if err := o.formatFlag.validate(); err != nil {
		return err
	}
	if err := o.lintReportFlags.validate(); err != nil {
		return err
	}
	if o.files && o.recursive {
		return usageErrorf("--files and --recursive exclude each other: --files maps changed files to their kits")
	}
	return o.fixFlags.validate()
}

// lintFormats returns the report formats, text (the default) first.
func lintFormats() []string {
	names := []string{"text"}
	for _, n := range format.Names() {
		if n != "text" {
			names = append(names, n)
		}
	}
	return names
}

// allRules are the built-in and meta rules, sorted by ID.
func allRules() []*lint.Rule {
	rules := append(lint.DefaultRules(), lint.MetaRules()...)
	slices.SortFunc(rules, func(a, b *lint.Rule) int { return strings.Compare(a.ID, b.ID) })
	return rules
}

func listRules(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RULE\tSEVERITY\tSUMMARY")
	for _, r := range allRules() {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.ID, r.Severity, r.Summary)
	}
	spec := lint.SpecRule("")
	fmt.Fprintf(tw, "spec/<rule>\t%s\t%s\n", spec.Severity, spec.Summary)
	return tw.Flush()
}

// run lints the kits the paths name and writes the report.
func (o *lintOptions) run(ctx context.Context, out, errOut io.Writer) error {
	kitPaths, err := o.kitPaths(ctx)
	if _, ok := errors.AsType[*usageError](err); ok {
		return err
	}
	if err != nil {
		return asUsage(err, "")
	}
	if o.fixFlags.enabled() {
		return o.runFix(ctx, kitPaths, out, errOut)
	}
	kits := make([]*spec.Kit, 0, len(kitPaths))
	for _, p := range kitPaths {
		if err := ctx.Err(); err != nil {
			return err
		}
		k, err := spec.LoadPath(p)
		if err != nil {
			return asUsage(err, imageAsSourceHint(p))
		}
		kits = append(kits, k)
	}
	res, err := o.lintKits(ctx, kits)
	if err != nil {
		return err
	}
	src := map[string][]byte{}
	for _, k := range kits {
		for p, b := range k.SourceFiles() {
			src[p] = b
		}
	}
	return o.report(out, res, src)
}

// formatOptions are the formatter options for the report written to out.
func (o *lintOptions) formatOptions(out io.Writer, src diag.Sources) format.Options {
	return format.Options{Sources: src, ToolVersion: version.Get().Version, BaseDir: o.base(), Color: o.useColor(out, o.env)}
}

// formatter returns the --format formatter for fo.
func (o *lintOptions) formatter(fo format.Options) (format.Formatter, error) {
	fm, err := format.ByName(o.format, fo)
	if err != nil {
		return nil, usageErrorf("--format: %v", err)
	}
	return fm, nil
}

// lintFlags are the flags that give lint's option lists.
var lintFlags = map[string]string{lint.ListWithEnable: "--enable", lint.ListWithDisable: "--disable"}

// lintRunError is a usage error for lint.Run's err: the option lists it
// names (WithEnable, WithDisable) named as the flags that gave them, and
// for an unknown rule, the hint where the rules are listed.
func lintRunError(err error) error {
	hint := ""
	if errors.Is(err, lint.ErrUnknownRule) {
		hint = "hint: kitsmith lint --list-rules lists the rules"
	}
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap() // the options' problems, joined
	}
	lines := make([]string, 0, len(errs))
	renamed := false
	for _, e := range errs {
		switch x := e.(type) {
		case *lint.UnknownRuleError:
			if f, ok := lintFlags[x.List]; ok {
				y := *x
				y.List, e, renamed = f, &y, true
			}
		case *lint.ConflictError:
			if f, ok := lintFlags[x.Enable]; ok {
				y := *x
				y.Enable, y.Disable, e, renamed = f, lintFlags[x.Disable], &y, true
			}
		}
		lines = append(lines, e.Error())
	}
	if renamed {
		err = errors.New(strings.Join(lines, "\n"))
	}
	return asUsage(err, hint)
}

// configOption is the configuration lint applies: --config for every kit,
// else each kit's .kitsmith.yaml found upward from it.
func (o *lintOptions) configOption() (lint.Option, error) {
	if o.config == "" {
		return lint.WithKitConfig(), nil
	}
	if err := checkRegularFile(o.config); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("--config: %w", err)
	}
	c, err := lint.LoadConfig(o.config)
	if err != nil {
		return nil, err
	}
	return lint.WithConfig(c), nil
}

// kitPaths turns the PATH arguments into kit paths (directories or
// descriptor files), without duplicates.
func (o *lintOptions) kitPaths(ctx context.Context) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		abs, _ := filepath.Abs(p)
		if !seen[abs] {
			seen[abs] = true
			out = append(out, p)
		}
	}
	for _, p := range o.paths {
		fi, err := os.Stat(p)
		if err != nil && !(o.files && errors.Is(err, fs.ErrNotExist)) {
			return nil, asUsage(fmt.Errorf("lint %s: %w", p, err), imageAsSourceHint(p))
		}
		switch {
		case o.files:
			// A deleted file too: its kit, if it still exists, changed.
			if kit, ok := spec.Enclosing(p, "."); ok {
				add(kit)
			}
		case fi.IsDir() && o.recursive:
			found, err := spec.Find(ctx, p)
			if err != nil {
				return nil, err
			}
			for _, k := range found {
				add(k)
			}
		default:
			add(p)
		}
	}
	if len(out) == 0 && !o.files {
		return nil, fmt.Errorf("no kit found under %s", strings.Join(o.paths, ", "))
	}
	return out, nil
}
