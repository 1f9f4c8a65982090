package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kitsmith/kitsmith/internal/diag"
	"github.com/kitsmith/kitsmith/internal/textsafe"
	"github.com/kitsmith/kitsmith/pkg/lint"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

type validateOptions struct {
	formatFlag
	registryFlags
	mode      string
	kitArgs   []string
	recursive bool
	resolve   bool
}

func newValidateCmd(_ *rootOptions) *cobra.Command {
	o := &validateOptions{formatFlag: newFormatFlag("text", "json")}
	cmd := &cobra.Command{
		Use:   "validate [flags] PATH...",
		Short: "Check kit sources against the v3 specification",
		Long: `Validate checks kit sources against the Docker Sandboxes kit specification v3:
the JSON Schema of the descriptor and every rule the schema cannot express
(args, provides grammar, capability arity, inject domains within the network
policy, recipe placement...). Every independent error is reported, with its
file:line:col and the rule it breaks.

PATH is a kit directory (the descriptor is <dirname>.yaml, the single *.yaml
whose first line is "# syntax=docker/sandbox-kit:3", or a Dockerfile with a
"# kit:" comment block) or a descriptor file; with --recursive, a tree to
search for kits (hidden directories, node_modules and vendor are skipped).

Modes:
  authored   the source as written (default)
  published  the descriptor as published in a kit image (no build-phase
             references left, versioned provides, digests on listed kits)
  effective  after expanding args as 'sbx create' does (--kit-arg values,
             then defaults), judged strictly

Exit status: 0 all kits valid (warnings allowed), 1 a kit has an error,
2 usage or I/O error (missing path, unreadable file).`,
		Example: `  # validate the kit in the current directory
  kitsmith validate .

  # machine-readable output for several kits
  kitsmith validate --format json kits/outside kits/inside

  # every kit under the current directory
  kitsmith validate --recursive .

  # judge the descriptor a sandbox would see with these args
  kitsmith validate --mode effective --kit-arg port=8080 kits/inside

  # a set, resolved with the kits it lists
  kitsmith validate --resolve kits/team`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), args)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.mode, "mode", "authored", "validation mode: authored, published or effective")
	f.StringArrayVar(&o.kitArgs, "kit-arg", nil, "create-phase arg value name=value for --mode effective (repeatable)")
	f.BoolVarP(&o.recursive, "recursive", "r", false, "search PATH directories for kits")
	f.BoolVar(&o.resolve, "resolve", false, "also resolve a kind: set with the kits it lists, read from their registries (as kitsmith resolve --set)")
	o.formatFlag.AddFlags(cmd)
	o.registryFlags.AddFlags(cmd)
	_ = cmd.RegisterFlagCompletionFunc("mode", cobra.FixedCompletions([]string{"authored", "published", "effective"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func (o *validateOptions) run(ctx context.Context, out, errOut io.Writer, paths []string) error {
	mode, err := spec.ParseMode(o.mode)
	if err != nil {
		return usageErrorf("%v", err)
	}
	if err := o.formatFlag.validate(); err != nil {
		return err
	}
	kitArgs, err := parseKeyValues("--kit-arg", o.kitArgs)
	if err != nil {
		return err
	}
	if len(kitArgs) > 0 && mode != spec.ModeEffective {
		return usageErrorf("--kit-arg only applies to --mode effective")
	}
	if o.insecure && !o.resolve {
		return usageErrorf("--insecure-registry only applies to --resolve, which reads a set's kits from their registries")
	}
	if o.recursive {
		if paths, err = searchKits(ctx, paths); err != nil {
			return err
		}
	}
	var results []validateResult
	ioFailed := false
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return err
		}
		k, err := spec.LoadPath(p)
		if err != nil {
			fmt.Fprintf(errOut, "kitsmith: %s\n", textsafe.String(err.Error()))
			if hint := imageAsSourceHint(p); hint != "" {
				fmt.Fprintln(errOut, textsafe.String(hint))
			}
			ioFailed = true
			continue
		}
		if err := checkArgsDeclared("--kit-arg", k, spec.PhaseCreate, kitArgs); err != nil {
			return err
		}
		rep := k.Validate(spec.WithMode(mode), spec.WithKitArgs(kitArgs), spec.WithRecipeCheck(lint.CheckRecipe))
		if o.resolve {
			resolveSetReport(ctx, k, rep, o.artifactOptions())
		}
		results = append(results, validateResult{kit: k, report: rep})
	}
	if o.json() {
		if err := writeValidateJSON(out, results); err != nil {
			return err
		}
	} else if len(results) > 0 || !ioFailed { // "0 kits checked" adds nothing to a load error
		w := textsafe.NewWriter(out)
		writeValidateText(w, results)
		if err := w.Flush(); err != nil {
			return err
		}
	}
	if ioFailed {
		return &usageError{}
	}
	for _, r := range results {
		if !r.report.OK() {
			return errFindings
		}
	}
	return nil
}

// searchKits replaces each directory of paths with the kits found under it;
// files are kept as they are.
func searchKits(ctx context.Context, paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, usageErrorf("validate %s: %w", p, err)
		}
		if !fi.IsDir() {
			out = append(out, p)
			continue
		}
		found, err := spec.Find(ctx, p)
		if err != nil {
			return nil, asUsage(err, "")
		}
		if len(found) == 0 {
			return nil, usageErrorf("no kit found under %s", p)
		}
		out = append(out, found...)
	}
	return out, nil
}

type validateResult struct {
	kit    *spec.Kit
	report *spec.Report
}

func parseKeyValues(flag string, list []string) (map[string]string, error) {
	m := map[string]string{}
	for _, kv := range list {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, usageErrorf("%s %q: write name=value", flag, kv)
		}
		m[k] = v
	}
	return m, nil
}

func kindOf(k *spec.Kit) string {
	if k.Descriptor == nil {
		return ""
	}
	return k.Descriptor.Kind
}

// writeReport prints a kit's validation errors, then its warnings, as
// compiler-style diagnostics with source excerpts.
func writeReport(w io.Writer, k *spec.Kit, rep *spec.Report) {
	src := diag.Sources(k.SourceFiles())
	for _, e := range rep.Errors {
		writeDiagnostic(w, src, "error", e)
	}
	for _, e := range rep.Warnings {
		writeDiagnostic(w, src, "warning", e)
	}
}

// writeValidateText prints compiler-style diagnostics and a summary line.
func writeValidateText(w io.Writer, results []validateResult) {
	var nErr, nWarn, invalid int
	for _, r := range results {
		writeReport(w, r.kit, r.report)
		nErr += len(r.report.Errors)
		nWarn += len(r.report.Warnings)
		if !r.report.OK() {
			invalid++
		}
	}
	fmt.Fprintf(w, "%d kit%s checked: %d valid, %d invalid (%d error%s, %d warning%s)\n",
		len(results), plural(len(results)), len(results)-invalid, invalid, nErr, plural(nErr), nWarn, plural(nWarn))
}

// ruleID is the rule id of a specification error, the one kitsmith lint
// reports it under: spec/<code>.
func ruleID(e *spec.Error) string {
	if e.Code == "" {
		return ""
	}
	return lint.SpecPrefix + e.Code
}

func writeDiagnostic(w io.Writer, src diag.Sources, sev string, e *spec.Error) {
	pos := e.Range.Start.String()
	if pos == "" {
		pos = "kitsmith"
	}
	fmt.Fprintf(w, "%s: %s: %s", pos, sev, e.Msg)
	if id := ruleID(e); id != "" {
		fmt.Fprintf(w, " [%s]", id)
	}
	if e.Ref != "" {
		fmt.Fprintf(w, " (%s)", e.Ref)
	}
	fmt.Fprintln(w)
	if line, ok := src.Line(e.Range.Start.File, e.Range.Start.Line); ok {
		width := 0
		if e.Range.End.Line == e.Range.Start.Line {
			width = e.Range.End.Col - e.Range.Start.Col
		}
		diag.Excerpt(w, line, e.Range.Start.Col, width)
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func writeValidateJSON(w io.Writer, results []validateResult) error {
	doc := spec.NewReportDocument()
	for _, r := range results {
		doc.Add(r.kit, r.report)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
