package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/kitsmith/kitsmith/pkg/artifact"
)

type checkCmdOptions struct {
	registryFlags
	format     string
	listChecks bool
}

func newCheckCmd(_ *rootOptions) *cobra.Command {
	o := &checkCmdOptions{}
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
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.listChecks {
				if len(args) > 0 {
					return usageErrorf("--list-checks takes no REF")
				}
				return writeCheckList(cmd.OutOrStdout())
			}
			if len(args) != 1 {
				return usageErrorf("check needs exactly one REF (a registry reference, oci:DIR[:tag] or oci-archive:FILE[:tag]), got %d", len(args))
			}
			return o.run(cmd.Context(), cmd.OutOrStdout(), args[0])
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.format, "format", "text", "output format: text or json")
	f.BoolVar(&o.listChecks, "list-checks", false, "list the checks and exit")
	o.registryFlags.AddFlags(f)
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"text", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func (o *checkCmdOptions) run(ctx context.Context, out io.Writer, ref string) error {
	if o.format != "text" && o.format != "json" {
		return usageErrorf("--format must be text or json, not %q", o.format)
	}
	a, err := o.open(ctx, ref)
	if err != nil {
		return err
	}
	rep, err := a.Check(ctx, artifact.WithKitResolver(artifact.RegistryResolver(o.options()...)))
	if err != nil {
		return usageErrorf("checking %s: %v", ref, err)
	}
	if o.format == "json" {
		err = writeCheckJSON(out, rep)
	} else {
		writeCheckText(out, rep)
	}
	if err != nil {
		return err
	}
	if rep.Failed() {
		return errFindings
	}
	return nil
}

// writeCheckText prints one line per finding and a tally:
//
//	FAIL overlay-home-ownership [linux/amd64]: message (SPEC-v3 §10/overlay-home-ownership)
func writeCheckText(w io.Writer, rep *artifact.Report) {
	for _, f := range rep.Findings {
		where := f.Platform
		if where == "" {
			where = "index"
		}
		fmt.Fprintf(w, "%s %s [%s]: %s", strings.ToUpper(string(f.Severity)), f.Check, where, f.Message)
		if f.Spec != "" {
			fmt.Fprintf(w, " (%s)", f.Spec)
		}
		fmt.Fprintln(w)
	}
	verdict := "conforms"
	if rep.Failed() {
		verdict = "does not conform"
	}
	nf, nw, ns := rep.Count(artifact.SeverityFail), rep.Count(artifact.SeverityWarn), rep.Count(artifact.SeveritySkip)
	fmt.Fprintf(w, "%s: %d platform%s checked (%s): %d failure%s, %d warning%s, %d skipped; %s\n",
		rep.Reference, len(rep.Platforms), plural(len(rep.Platforms)), strings.Join(rep.Platforms, ", "),
		nf, plural(nf), nw, plural(nw), ns, verdict)
}

// The JSON output of check: a designed shape, versioned.
type checkJSON struct {
	FormatVersion int                `json:"formatVersion"`
	Reference     string             `json:"reference"`
	Platforms     []string           `json:"platforms"`
	Conforms      bool               `json:"conforms"`
	Summary       checkSummaryJSON   `json:"summary"`
	Findings      []checkFindingJSON `json:"findings"`
}

type checkSummaryJSON struct {
	Fail int `json:"fail"`
	Warn int `json:"warn"`
	Skip int `json:"skip"`
}

type checkFindingJSON struct {
	Check    string `json:"check"`
	Severity string `json:"severity"`
	Platform string `json:"platform"`
	Message  string `json:"message"`
	Spec     string `json:"spec"`
}

func writeCheckJSON(w io.Writer, rep *artifact.Report) error {
	doc := checkJSON{
		FormatVersion: 1, Reference: rep.Reference, Platforms: rep.Platforms, Conforms: !rep.Failed(),
		Summary: checkSummaryJSON{
			Fail: rep.Count(artifact.SeverityFail), Warn: rep.Count(artifact.SeverityWarn), Skip: rep.Count(artifact.SeveritySkip),
		},
		Findings: []checkFindingJSON{},
	}
	for _, f := range rep.Findings {
		doc.Findings = append(doc.Findings, checkFindingJSON{
			Check: f.Check, Severity: string(f.Severity), Platform: f.Platform, Message: f.Message, Spec: f.Spec,
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

func writeCheckList(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CHECK\tSPEC\tASSERTS")
	for _, c := range artifact.Checks() {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", c.ID, c.Spec, c.Summary)
	}
	return tw.Flush()
}
