package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/review"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

type resolveOptions struct {
	kitInputFlags
	formatFlag
	groups []string
	set    bool
}

func newResolveCmd(_ *rootOptions) *cobra.Command {
	o := &resolveOptions{formatFlag: newFormatFlag(review.FormatText, review.FormatJSON, review.FormatMarkdown)}
	cmd := &cobra.Command{
		Use:   "resolve [flags] KIT...",
		Short: "Judge a composition of kits the way the runtime will",
		Long: `Resolve judges the composition 'sbx create W --kit A --kit B' would build, before
anyone runs it (SPEC-v3 §5.3 and the set merge rules of §9.5): exactly one
workload, every requires satisfied inside the set (with its version
constraints), no conflicts, no integrates violation by a present provider, one
provider per normalized name, and capability entries that merge: matching
volume requests merge by cleaned path, size and mode, a host mount never shares
a path with another kit's host mount or volume, one interactive tail, one
writer per lifecycle file, one acp command per agent, network-policy @1 and @2
unioned as @2. It prints the composition order by the dependency graph, the
problems with their conformance ids, and the merged permission surface.

Kits are judged in their effective form (create-phase args from --kit-arg,
then defaults). Optional capability groups are not selected unless
--select-groups names them, or all; problems only the selected groups cause
are marked, since a runtime refuses rather than drop them (SPEC-v3
§7.1.1/conflicts).

KIT is a kit directory or descriptor file, oci:DIR[:tag], oci-archive:FILE[:tag]
or a registry reference, as for diff.

Exit status: 0 the composition resolves, 1 it does not (or a kit source does
not validate), 2 usage or I/O error.`,
		Example: `  # a workload and two mixins
  kitsmith resolve 127.0.0.1:5000/kits/shell:1.0.0 kits/inside kits/outside

  # with every optional group selected, as JSON
  kitsmith resolve --select-groups all --format json oci:out/shell kits/tool

  # the kits of a set, which need no workload
  kitsmith resolve --set oci:out/claude-mixin oci:out/claude-acp`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), cmd.OutOrStdout(), args)
		},
	}
	o.kitInputFlags.AddFlags(cmd)
	o.formatFlag.AddFlags(cmd)
	f := cmd.Flags()
	f.StringSliceVar(&o.groups, "select-groups", nil, "optional groups to select: all, none, or group names (comma-separated or repeated)")
	f.BoolVar(&o.set, "set", false, "judge the kits of a set: a workload among them is optional")
	return cmd
}

func (o *resolveOptions) selection() (review.Selection, error) {
	var s review.Selection
	for _, g := range o.groups {
		switch g {
		case "all":
			s.All = true
		case "none":
			if len(o.groups) > 1 {
				return s, usageErrorf("--select-groups none selects nothing; do not combine it")
			}
		default:
			s.Names = append(s.Names, g)
		}
	}
	if s.All && len(s.Names) > 0 {
		return s, usageErrorf("--select-groups all selects every group; do not name groups besides")
	}
	return s, nil
}

func (o *resolveOptions) run(ctx context.Context, out io.Writer, inputs []string) error {
	if err := o.formatFlag.validate(); err != nil {
		return err
	}
	sel, err := o.selection()
	if err != nil {
		return err
	}
	lo, err := o.loadOptions(true)
	if err != nil {
		return err
	}
	kits := make([]*review.Kit, len(inputs))
	for i, in := range inputs {
		if kits[i], err = o.load(ctx, in, lo); err != nil {
			return err
		}
	}
	if err := checkKitArgs(lo, kits...); err != nil {
		return err
	}
	opts := []review.ResolveOption{review.WithSelection(sel)}
	if o.set {
		opts = append(opts, review.WithoutWorkload())
	}
	r, err := review.Resolve(kits, opts...)
	if ge := (*review.UnknownGroupError)(nil); errors.As(err, &ge) {
		return usageErrorf("--select-groups %s: %w", ge.Name, review.ErrUnknownGroup)
	}
	if err != nil {
		return err
	}
	if err := review.WriteResolution(out, r, o.format); err != nil {
		return fmt.Errorf("writing the resolution: %w", err)
	}
	if !r.OK() {
		return errFindings
	}
	return nil
}

// resolveSetReport judges a kind: set source with the kits it lists
// (validate --resolve): the problems are errors at its kits: list; a
// listed kit that cannot be read is a warning, and the set goes
// unresolved.
func resolveSetReport(ctx context.Context, k *spec.Kit, rep *spec.Report, opts []artifact.Option) {
	if k.Descriptor == nil || k.Descriptor.Kind != spec.KindSet || !rep.OK() {
		return
	}
	at := k.KeyPosOf("kits")
	r, err := review.ResolveSet(ctx, k, review.LoadOptions{Artifact: opts})
	if err != nil {
		rep.Warnings = append(rep.Warnings, &spec.Error{Range: at, Field: "kits", Code: "set-unresolved", Err: err,
			Msg: fmt.Sprintf("the set was not resolved: %v", err)})
		return
	}
	for _, p := range r.Problems {
		_, code, _ := strings.Cut(p.ID, "/")
		rep.Errors = append(rep.Errors, &spec.Error{Range: at, Field: "kits", Code: code, Ref: p.ID, Msg: p.Message})
	}
}
