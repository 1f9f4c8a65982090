package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/kitsmith/kitsmith/pkg/review"
)

// kitInputFlags is the flag group of commands that read kits given as
// sources or published references (diff, resolve).
type kitInputFlags struct {
	registryFlags
	buildArgs []string
	kitArgs   []string
	platform  string
}

// AddFlags registers the group's flags on cmd.
func (k *kitInputFlags) AddFlags(cmd *cobra.Command) {
	k.registryFlags.AddFlags(cmd)
	f := cmd.Flags()
	f.StringArrayVar(&k.buildArgs, "build-arg", nil, "build-phase kit arg value name=value a kit source is published with (repeatable)")
	f.StringArrayVar(&k.kitArgs, "kit-arg", nil, "create-phase kit arg value name=value; judges the effective form (repeatable)")
	f.StringVar(&k.platform, "platform", "", "judge only this platform of a published kit, e.g. linux/arm64 (default: every platform, and the index)")
}

// loadOptions parses the flags; effective forces the effective form even
// without --kit-arg.
func (k *kitInputFlags) loadOptions(effective bool) (review.LoadOptions, error) {
	if err := checkPlatform(k.platform); err != nil {
		return review.LoadOptions{}, err
	}
	ba, err := parseKeyValues("--build-arg", k.buildArgs)
	if err != nil {
		return review.LoadOptions{}, err
	}
	ka, err := parseKeyValues("--kit-arg", k.kitArgs)
	if err != nil {
		return review.LoadOptions{}, err
	}
	return review.LoadOptions{BuildArgs: ba, KitArgs: ka, Effective: effective || len(ka) > 0,
		Platform: k.platform, Artifact: k.artifactOptions()}, nil
}

// checkKitArgs refuses a --kit-arg that no kit declares: a misspelt name
// would otherwise change nothing, silently.
func checkKitArgs(o review.LoadOptions, kits ...*review.Kit) error {
	for n := range o.KitArgs {
		declared := false
		for _, k := range kits {
			_, ok := k.Descriptor.Args[n]
			declared = declared || ok
		}
		if !declared {
			return usageErrorf("--kit-arg %s: no kit declares the arg %q", n, n)
		}
	}
	return nil
}

// load reads one kit; a source that does not publish and a published
// kit that is refused are findings (exit 1), any other failure a usage
// or I/O error (exit 2).
func (k *kitInputFlags) load(ctx context.Context, input string, o review.LoadOptions) (*review.Kit, error) {
	kits, err := k.loadAll(ctx, input, o, false)
	if err != nil {
		return nil, err
	}
	return kits[0], nil
}

// loadAll reads every platform of a published kit (review.LoadAll); with
// all false, platforms that disagree are refused (review.Load).
func (k *kitInputFlags) loadAll(ctx context.Context, input string, o review.LoadOptions, all bool) ([]*review.Kit, error) {
	var kits []*review.Kit
	var err error
	if all {
		kits, err = review.LoadAll(ctx, input, o)
	} else {
		var kit *review.Kit
		if kit, err = review.Load(ctx, input, o); err == nil {
			kits = []*review.Kit{kit}
		}
	}
	var se *review.SourceError
	var re *review.RefusalError
	switch {
	case err == nil:
		return kits, nil
	case errors.Is(err, review.ErrPlatformsDiffer):
		return nil, &exitError{code: exitFindings, err: fmt.Errorf("%w\nhint: --platform judges one platform", err)}
	case errors.As(err, &se), errors.As(err, &re):
		return nil, &exitError{code: exitFindings, err: err}
	}
	hint := sourcePathHint(input) // a bare path is read as a kit source here
	if hint == "" {
		hint = registryRefHint(input, err)
	}
	return nil, asUsage(err, hint)
}

type diffOptions struct {
	kitInputFlags
	formatFlag
	failOn string
}

func newDiffCmd(_ *rootOptions) *cobra.Command {
	o := &diffOptions{formatFlag: newFormatFlag(review.FormatText, review.FormatJSON, review.FormatMarkdown)}
	cmd := &cobra.Command{
		Use:   "diff [flags] OLD NEW",
		Short: "Show what a kit update changes in the authority it asks for",
		Long: `Diff compares two versions of a kit and reports every change of its permission
surface (SPEC-v3 §7.4), classified as a widening (a new allow entry, bounded
method or path, a removed deny entry, a new credential or one in a new phase, a
wider SSH agent grant, a new volume or host-mount path, a volume path becoming
host-shared, a new port or USB match, privileged, a read-only skills path
becoming read-write, any config change of an opaque request) or a narrowing,
and apart from them the changes that grant nothing: metadata, provides,
requires, integrates, conflicts, args, hook commands and files, agent context.
It also shows what selecting each optional group of NEW would add.

OLD and NEW are kit directories or descriptor files (validated and published
first, with --build-arg), oci:DIR[:tag] or oci-archive:FILE[:tag] references,
or registry references. Both are judged in their effective form, the one a
runtime gates: create-phase args expanded with their defaults, then the
--kit-arg values. A published kit is judged on every descriptor a consumer can
be served (the index's and each platform manifest's, or the one platform
--platform names), each validated in published and effective mode first; a
descriptor that does not validate, or a platform manifest that disagrees with
the index, is refused (exit 1). A change on only some platforms names them.

Exit status: 0 compared (or no widening with --fail-on widening), 1 a widening
with --fail-on widening, a kit source that does not validate, or a published
kit that is refused, 2 usage or I/O error.`,
		Example: `  # what the working tree changes against the published kit
  kitsmith diff 127.0.0.1:5000/kits/tool:1.0.0 kits/tool

  # a pull-request comment, failing the check on any widening
  kitsmith diff --format markdown --fail-on widening oci:base/tool kits/tool

  # the effective form a sandbox would gate
  kitsmith diff --kit-arg apiHost=api.example.org oci:v1 oci:v2`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), cmd.OutOrStdout(), args[0], args[1])
		},
	}
	o.kitInputFlags.AddFlags(cmd)
	o.formatFlag.AddFlags(cmd)
	cmd.Flags().StringVar(&o.failOn, "fail-on", "none", "exit 1 on: widening, or none")
	_ = cmd.RegisterFlagCompletionFunc("fail-on", cobra.FixedCompletions([]string{"widening", "none"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func (o *diffOptions) validate() error {
	if err := o.formatFlag.validate(); err != nil {
		return err
	}
	if o.failOn != "widening" && o.failOn != "none" {
		return usageErrorf("--fail-on must be widening or none, not %q", o.failOn)
	}
	return nil
}

func (o *diffOptions) run(ctx context.Context, out io.Writer, oldRef, newRef string) error {
	if err := o.validate(); err != nil {
		return err
	}
	// Both kits are judged in their effective form: an arg default is
	// what a sandbox created without --kit-arg is granted.
	lo, err := o.loadOptions(true)
	if err != nil {
		return err
	}
	old, err := o.loadAll(ctx, oldRef, lo, true)
	if err != nil {
		return err
	}
	new, err := o.loadAll(ctx, newRef, lo, true)
	if err != nil {
		return err
	}
	if err := checkKitArgs(lo, append(append([]*review.Kit(nil), old...), new...)...); err != nil {
		return err
	}
	r := review.DiffAll(old, new)
	if err := review.WriteDiff(out, r, o.format); err != nil {
		return fmt.Errorf("writing the diff: %w", err)
	}
	if o.failOn == "widening" && r.Widened() {
		return errFindings
	}
	return nil
}
