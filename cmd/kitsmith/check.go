package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/kitsmith/kitsmith/internal/textsafe"
	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/artifact/conform"
)

type checkCmdOptions struct {
	registryFlags
	formatFlag
	listChecks bool
}

func newCheckCmd(_ *rootOptions) *cobra.Command {
	o := &checkCmdOptions{formatFlag: newFormatFlag("text", "json")}
	cmd := &cobra.Command{
		Use:   "check [flags] REF",
		Short: "Judge a published kit image against the specification",
		Long: `Check judges a published kit image as the specification's conformance kit
(kit-tck validate) does, reporting under the same check ids: the descriptor
annotation, published-form validity, the schema-version, capabilities,
built-by and derived OCI annotations, the layers, the staged sources, recipe
and agent-context bodies, the image config, a mixin's /home ownership and
dangling links, the sbx@1 platform floor, derived deb/apk provides, merged
sets, and the index annotations. kitsmith adds oci-media-types, which catches
images pushed with Docker media types (Docker's default build driver), with
an artifactType, or with layers that are not filesystems.

Every platform manifest is judged, and the index. Each finding names its
check, the platform, what is wrong with how to fix it, and the specification
reference. Attestation manifests are skipped. The kits a merged set lists are
read from their registries.

REF is a registry reference (registry/repo:tag or registry/repo@sha256:…),
oci:DIR[:tag] or oci-archive:FILE[:tag], as for kitsmith inspect.

Exit status: 0 the kit conforms (warnings allowed), 1 a check failed,
2 usage or I/O error (unreachable registry, missing tag, not a layout).`,
		Example: `  # a kit pushed to a registry
  kitsmith check 127.0.0.1:5000/kits/tool:1.2.0

  # what kitsmith build --output oci:out/tool wrote, as JSON
  kitsmith check --format json oci:out/tool

  # a registry on another host that serves plain HTTP
  kitsmith check --insecure-registry registry.lan:5000/kits/tool:1.2.0

  # the checks, their ids and specification references
  kitsmith check --list-checks`,
		ValidArgsFunction: refCompletion,
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case o.listChecks && len(args) > 0:
				return fmt.Errorf("--list-checks takes no REF")
			case o.listChecks && o.format != "text":
				return fmt.Errorf("--list-checks prints a table; --format applies to a check's findings")
			case !o.listChecks && len(args) != 1:
				return fmt.Errorf("accepts 1 arg (a registry reference, oci:DIR[:tag] or oci-archive:FILE[:tag]), received %d", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.listChecks {
				return writeCheckList(cmd.OutOrStdout())
			}
			return o.run(cmd.Context(), cmd.OutOrStdout(), args[0])
		},
	}
	cmd.Flags().BoolVar(&o.listChecks, "list-checks", false, "list the checks and exit")
	o.formatFlag.AddFlags(cmd)
	o.registryFlags.AddFlags(cmd)
	return cmd
}

func (o *checkCmdOptions) run(ctx context.Context, out io.Writer, ref string) error {
	if err := o.formatFlag.validate(); err != nil {
		return err
	}
	a, err := o.open(ctx, ref)
	if err != nil {
		return err
	}
	rep, err := conform.Check(ctx, a, conform.WithKitResolver(artifact.RegistryResolver(o.artifactOptions()...)))
	if err != nil {
		return asUsage(fmt.Errorf("checking %s: %w", ref, err), openHint(err))
	}
	if o.json() {
		err = writeCheckJSON(out, rep)
	} else {
		w := textsafe.NewWriter(out)
		writeCheckText(w, rep)
		err = w.Flush()
	}
	if err != nil {
		return err
	}
	if rep.Failed() {
		return errFindings
	}
	return nil
}

func writeCheckList(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CHECK\tSPEC\tASSERTS")
	for _, c := range conform.Checks() {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", c.ID, c.Spec, c.Summary)
	}
	return tw.Flush()
}
