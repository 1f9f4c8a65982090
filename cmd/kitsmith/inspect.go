package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/kitsmith/kitsmith/internal/textsafe"
	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// refCompletion offers the reference prefixes; registry references cannot
// be listed.
func refCompletion(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return []string{artifact.LayoutPrefix, artifact.ArchivePrefix}, cobra.ShellCompDirectiveNoSpace
}

// platformCompletion lists the platforms of the artifact already named on
// the command line, or the two kitsmith builds by default.
func (r *registryFlags) platformCompletion(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	fallback := []string{"linux/amd64", "linux/arm64"}
	if len(args) == 0 {
		return fallback, cobra.ShellCompDirectiveNoFileComp
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), 5*time.Second)
	defer cancel()
	a, err := artifact.Open(ctx, args[0], r.artifactOptions()...)
	if err != nil {
		return fallback, cobra.ShellCompDirectiveNoFileComp
	}
	in, err := a.Inspect(ctx)
	if err != nil {
		return fallback, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, m := range in.Manifests {
		out = append(out, m.Platform)
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

type inspectOptions struct {
	registryFlags
	formatFlag
	platform string
}

func newInspectCmd(_ *rootOptions) *cobra.Command {
	o := &inspectOptions{formatFlag: newFormatFlag("text", "json")}
	cmd := &cobra.Command{
		Use:   "inspect [flags] REF",
		Short: "Show what a published kit image declares and carries",
		Long: `Inspect reads a published kit image and prints what a consumer sees: its
digests and media types, its platform manifests, the kit annotations (read
from the image index, or from the platform manifest when the index lacks them,
as SPEC-v3 §9.3 has consumers fall back), the decoded descriptor with its
capabilities and permission surface, who built it, and the sources staged
under /usr/share/sandbox/kit in the selected platform's layers.

REF is a registry reference (registry/repo:tag or registry/repo@sha256:…),
oci:DIR[:tag] (an OCI image layout directory, as kitsmith build --output
writes) or oci-archive:FILE[:tag] (a tar of one). Registries on loopback
addresses are reached over plain HTTP; credentials come from Docker's
credential store.

Inspect judges nothing: use kitsmith check for that.

Exit status: 0 inspected, 2 usage or I/O error (unreachable registry, missing
tag, not a layout).`,
		Example: `  # a kit in a registry
  kitsmith inspect 127.0.0.1:5000/kits/tool:1.2.0

  # the arm64 manifest of a layout kitsmith build wrote, as JSON
  kitsmith inspect --platform linux/arm64 --format json oci:out/tool

  # a kit archive, by tag
  kitsmith inspect oci-archive:tool.tar:1.2.0`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: refCompletion,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), cmd.OutOrStdout(), args[0])
		},
	}
	cmd.Flags().StringVar(&o.platform, "platform", "", "platform manifest whose annotations and layers to read, e.g. linux/arm64 (default: the first of the index)")
	o.formatFlag.AddFlags(cmd)
	o.registryFlags.AddFlags(cmd)
	_ = cmd.RegisterFlagCompletionFunc("platform", o.platformCompletion)
	return cmd
}

func (o *inspectOptions) run(ctx context.Context, out io.Writer, ref string) error {
	if err := o.formatFlag.validate(); err != nil {
		return err
	}
	if err := checkPlatform(o.platform); err != nil {
		return err
	}
	a, err := o.open(ctx, ref)
	if err != nil {
		return err
	}
	var opts []artifact.InspectOption
	if o.platform != "" {
		opts = append(opts, artifact.WithPlatform(o.platform))
	}
	in, err := a.Inspect(ctx, opts...)
	if err != nil {
		return asUsage(fmt.Errorf("inspecting %s: %w", ref, err), openHint(err))
	}
	if o.json() {
		return writeInspectJSON(out, in)
	}
	w := textsafe.NewWriter(out)
	defer w.Flush()
	return writeInspectText(w, in)
}

// writeInspectText prints an inspection for people. Values from the image
// are printed through textsafe.Inline, so none can start a line of its own,
// and w escapes any other control character.
func writeInspectText(w io.Writer, in *artifact.Inspection) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "Reference:\t%s\n", in.Reference)
	fmt.Fprintf(tw, "Digest:\t%s\n", in.Digest)
	fmt.Fprintf(tw, "Media type:\t%s\n", in.MediaType)
	tw.Flush()

	fmt.Fprintln(w, "\nPlatforms:")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, m := range in.Manifests {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%d layer%s\n", m.Platform, m.Digest, m.MediaType, len(m.Layers), plural(len(m.Layers)))
	}
	for _, a := range in.Attestations {
		fmt.Fprintf(tw, "  attestation\t%s\t%s\t\n", a.Digest, a.MediaType)
	}
	tw.Flush()
	if len(in.Referrers) > 0 {
		fmt.Fprintln(w, "\nReferrers:")
		for _, r := range in.Referrers {
			fmt.Fprintf(w, "  %s  %s\n", r.Digest, textsafe.Inline(firstNonEmpty(r.ArtifactType, r.MediaType)))
		}
	}

	writeInspectKit(w, in)
	if in.Descriptor != nil {
		writeList(w, "Capabilities", in.Capabilities)
		writeList(w, "Permission surface", strings.Split(strings.TrimSuffix(in.Surface.String(), "\n"), "\n"))
	}
	fmt.Fprintf(w, "\nStaged files (%s):\n", in.Platform)
	if len(in.StagedFiles) == 0 {
		fmt.Fprintln(w, "  none")
	}
	width, sizeWidth := 0, 0
	for _, f := range in.StagedFiles {
		width, sizeWidth = max(width, len(f.Path)), max(sizeWidth, len(fmt.Sprint(f.Size)))
	}
	for _, f := range in.StagedFiles {
		fmt.Fprintf(w, "  %-*s  %*d B  %04o\n", width, textsafe.Inline(f.Path), sizeWidth, f.Size, f.Mode)
	}

	fmt.Fprintf(w, "\nAnnotations (%s):\n", annotationSource(in))
	if len(in.Annotations) == 0 {
		fmt.Fprintln(w, "  none")
	}
	for _, k := range slices.Sorted(maps.Keys(in.Annotations)) {
		v := in.Annotations[k]
		if k == artifact.AnnotationDescriptor {
			v = "(the descriptor below)"
		}
		fmt.Fprintf(w, "  %s: %s\n", textsafe.Inline(k), textsafe.Inline(v))
	}
	if in.Descriptor != nil {
		fmt.Fprintln(w, "\nDescriptor:")
		var buf bytes.Buffer
		if err := writeDescriptorYAML(&buf, in.DescriptorJSON()); err != nil {
			return err
		}
		for _, line := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
			fmt.Fprintf(w, "  %s\n", line)
		}
	}
	return nil
}

// writeInspectKit prints the descriptor's headline fields.
func writeInspectKit(w io.Writer, in *artifact.Inspection) {
	fmt.Fprintf(w, "\nKit (annotations from the %s, layers of %s):\n", annotationSource(in), in.Platform)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if in.Descriptor == nil {
		fmt.Fprintf(tw, "  Descriptor:\tnone (%s)\n", textsafe.Inline(in.DescriptorError))
	} else {
		d := in.Descriptor
		for _, row := range [][2]string{
			{"Kind", d.Kind}, {"Title", d.DisplayName}, {"Description", d.Description}, {"Author", d.Author},
			{"Version", artifact.DescriptorVersion(d)}, {"Licenses", strings.Join(d.Licenses, ", ")}, {"Source", d.SourceURL},
			{"Provides", strings.Join(d.Provides, ", ")}, {"Requires", strings.Join(d.Requires, ", ")},
			{"Kits", kitRefs(d.Kits)}, {"Stem", in.Stem},
		} {
			if row[1] != "" {
				fmt.Fprintf(tw, "  %s:\t%s\n", row[0], textsafe.Inline(row[1]))
			}
		}
	}
	if b := in.BuiltBy; b != nil {
		fmt.Fprintf(tw, "  Built by:\t%s\n", textsafe.Inline(b.Name+" "+b.Version+parenthesized(b.Revision)))
	}
	tw.Flush()

}

func annotationSource(in *artifact.Inspection) string {
	if in.AnnotationSource == "index" {
		return "index"
	}
	return in.Platform + " manifest"
}

func writeList(w io.Writer, title string, items []string) {
	fmt.Fprintf(w, "\n%s:\n", title)
	if len(items) == 0 || len(items) == 1 && items[0] == "" {
		fmt.Fprintln(w, "  none")
		return
	}
	for _, it := range items {
		fmt.Fprintf(w, "  %s\n", textsafe.Inline(it))
	}
}

func kitRefs(kits []spec.KitRef) string {
	var out []string
	for _, k := range kits {
		out = append(out, k.Ref+"@"+k.Digest)
	}
	return strings.Join(out, ", ")
}

func parenthesized(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

func firstNonEmpty(list ...string) string {
	for _, s := range list {
		if s != "" {
			return s
		}
	}
	return ""
}

// writeDescriptorYAML renders the descriptor's JSON as block YAML, keeping
// the published field order.
func writeDescriptorYAML(w io.Writer, descriptor []byte) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(descriptor, &doc); err != nil {
		return fmt.Errorf("rendering the descriptor: %w", err)
	}
	var block func(n *yaml.Node)
	block = func(n *yaml.Node) {
		n.Style &^= yaml.FlowStyle
		if n.Kind == yaml.ScalarNode && n.Tag == "!!str" {
			n.Style &^= yaml.DoubleQuotedStyle
		}
		for _, c := range n.Content {
			block(c)
		}
	}
	block(&doc)
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return fmt.Errorf("rendering the descriptor: %w", err)
	}
	return enc.Close()
}

func writeInspectJSON(w io.Writer, in *artifact.Inspection) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(in.Document())
}
