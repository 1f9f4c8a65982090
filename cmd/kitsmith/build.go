package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/containerd/platforms"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/spf13/cobra"

	"github.com/kitsmith/kitsmith/internal/textsafe"
	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/build"
	"github.com/kitsmith/kitsmith/pkg/progress"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

type buildOptions struct {
	builderFlags
	registryFlags
	progressFlag
	platforms    []string
	buildArgs    []string
	outputs      []string
	tags         []string
	push         bool
	metadataFile string
	noCache      bool
	attest       []string
}

func newBuildCmd(ro *rootOptions) *cobra.Command {
	o := &buildOptions{}
	cmd := &cobra.Command{
		Use:   "build [flags] PATH",
		Short: "Build a kit into a multi-platform OCI kit image, check it, and write or push it",
		Long: `Build turns a kit source into the published kit image of the specification:
an OCI image index with one image per platform, the kit annotations on every
manifest and on the index, and the kit's sources staged under
/usr/share/sandbox/kit/<stem>/. The image is checked against the
specification's artifact rules before anything is written; a failing check
writes nothing.

PATH is a kit directory or descriptor file, in any authoring form: a YAML
descriptor with a companion <stem>.dockerfile or a dockerfile: recipe, an
inline build: recipe, a Dockerfile with a "# kit:" comment block, or a
kind: set listing published kits.

How a kit is built:
  declaration-only mixin  in-process; no BuildKit daemon needed
  kit with a recipe       through a BuildKit daemon (--builder, $BUILDKIT_HOST);
                          kitsmith is the frontend, no frontend image is pulled
  kind: set               in-process; the listed kits are read from their
                          registries and their layers reused as they are

Builds are reproducible: every timestamp is SOURCE_DATE_EPOCH, taken from the
environment, else from the last git commit of the kit directory, else 0 with
no created annotation (a different digest from SOURCE_DATE_EPOCH=0's).
Registry credentials come from the docker credential store and helpers
(docker login). Loopback registries are reached over plain HTTP.

Exit status: 0 built (and written); 1 an invalid kit, a failed build or a
failed check; 2 usage, configuration or I/O error (no builder reachable).`,
		Example: `  # a declaration-only mixin, no daemon needed
  kitsmith build --output oci:out/gh kits/gh

  # a kit with a recipe, through the local BuildKit daemon, pushed
  kitsmith build --builder unix:///run/buildkit/buildkitd.sock \
    --tag registry.example.com/kits/gh:1.2.0 --push kits/gh

  # one platform, a build-phase arg, an archive and a metadata file
  kitsmith build --platform linux/amd64 --build-arg version=1.2.0 \
    --output oci-archive:gh.tar --metadata-file gh.json kits/gh

  # a remote builder over TLS, with provenance
  kitsmith build --builder tcp://buildkit.internal:1234 --tlscacert ca.pem \
    --tlscert cert.pem --tlskey key.pem --attest provenance --tag r.example/k:1 --push kits/gh`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), ro, cmd.OutOrStdout(), cmd.ErrOrStderr(), args[0])
		},
	}
	o.builderFlags.AddFlags(cmd)
	o.registryFlags.AddFlags(cmd)
	o.progressFlag.AddFlags(cmd)
	f := cmd.Flags()
	f.StringSliceVar(&o.platforms, "platform", build.DefaultPlatforms(), "platforms to build (comma-separated or repeated)")
	f.StringArrayVar(&o.buildArgs, "build-arg", nil, "build-phase kit arg value name=value, by kit arg name (repeatable)")
	f.StringArrayVarP(&o.outputs, "output", "o", nil, "write the kit image: oci:DIR (OCI layout) or oci-archive:FILE (repeatable)")
	f.StringArrayVarP(&o.tags, "tag", "t", nil, "registry reference to push to with --push, e.g. registry.example.com/kits/gh:1.2 (repeatable)")
	f.BoolVar(&o.push, "push", false, "push the kit image to every --tag")
	f.StringVar(&o.metadataFile, "metadata-file", "", "write the index and manifest digests and the pushed references as JSON to this file")
	f.BoolVar(&o.noCache, "no-cache", false, "solve the recipe without BuildKit's cache")
	f.StringSliceVar(&o.attest, "attest", nil, "attestations to add: provenance (BuildKit SLSA provenance, mode=max)")
	_ = cmd.RegisterFlagCompletionFunc("platform", platformCompletion)
	_ = cmd.RegisterFlagCompletionFunc("attest", cobra.FixedCompletions([]string{"provenance"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"oci:", "oci-archive:"}, cobra.ShellCompDirectiveNoSpace))
	_ = cmd.RegisterFlagCompletionFunc("build-arg", func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		return buildArgCompletions(args), cobra.ShellCompDirectiveNoSpace | cobra.ShellCompDirectiveNoFileComp
	})
	_ = cmd.MarkFlagFilename("metadata-file", "json")
	return cmd
}

// buildArgCompletions offers the build-phase args of the kit named on the
// command line.
func buildArgCompletions(args []string) []string {
	if len(args) == 0 {
		return nil
	}
	k, err := spec.LoadPath(args[0])
	if err != nil || k.Descriptor == nil {
		return nil
	}
	var out []string
	for n, a := range k.Descriptor.Args {
		if a.BuildArg != "" {
			out = append(out, n+"=\t"+a.Description)
		}
	}
	return out
}

// options checks the flags and turns them into build.Options.
func (o *buildOptions) options(ro *rootOptions) (build.Options, error) {
	var bo build.Options
	if err := o.builderFlags.validate(); err != nil {
		return bo, err
	}
	if err := o.progressFlag.validate(); err != nil {
		return bo, err
	}
	if err := checkMetadataDest(o.metadataFile); err != nil {
		return bo, err
	}
	for _, a := range o.attest {
		switch strings.TrimSpace(a) {
		case "provenance", "type=provenance":
			bo.Provenance = true
		default:
			return bo, usageErrorf("--attest %q: kitsmith adds provenance only (an SBOM needs a scanner image)", a)
		}
	}
	if o.push && len(o.tags) == 0 {
		return bo, usageErrorf("--push needs a --tag naming where to push")
	}
	if len(o.tags) > 0 && !o.push && len(o.outputs) == 0 {
		return bo, usageErrorf("--tag names where --push sends the kit image; add --push (or write it with --output)")
	}
	args, err := parseKeyValues("--build-arg", o.buildArgs)
	if err != nil {
		return bo, err
	}
	bo.BuildArgs = args
	bo.NoCache = o.noCache
	bo.InsecureRegistry = o.insecure
	tag := ""
	if len(o.tags) == 1 {
		if r, err := name.NewTag(o.tags[0]); err == nil {
			tag = r.TagStr()
		}
	}
	for _, s := range o.outputs {
		out, err := build.ParseOutput(s)
		if err != nil {
			ue := destinationError("--output", err)
			ue.hint = outputHint(s)
			return bo, ue
		}
		if out.Type == build.OutputRegistry {
			return bo, usageErrorf("--output %s: push with --tag REF --push", s)
		}
		if err := artifact.CheckDestination(out.Reference()); err != nil {
			return bo, destinationError("--output", err)
		}
		if out.Tag == "" {
			out.Tag = tag
		}
		bo.Outputs = append(bo.Outputs, out)
	}
	if o.push {
		for _, t := range o.tags {
			if _, err := name.ParseReference(t); err != nil {
				return bo, usageErrorf("--tag %q: %v", t, err)
			}
			bo.Outputs = append(bo.Outputs, build.Output{Type: build.OutputRegistry, Dest: t})
		}
	}
	// Checked before the kit is read; resolved with the kit in run.
	if _, err := build.ParseSourceDateEpoch(ro.env["SOURCE_DATE_EPOCH"]); err != nil {
		return bo, usageErrorf("%v", err)
	}
	return bo, nil
}

// outputHint suggests the --output a bare path meant: an archive for a
// .tar file, else a layout directory; "" when s names a type.
func outputHint(s string) string {
	if strings.Contains(s, ":") {
		return ""
	}
	if strings.HasSuffix(s, ".tar") {
		return "hint: did you mean --output " + artifact.ArchivePrefix + s + "? (an OCI archive; " + artifact.LayoutPrefix + s + " writes a layout directory)"
	}
	return "hint: did you mean --output " + artifact.LayoutPrefix + s + "? (an OCI layout directory; " + artifact.ArchivePrefix + s + ".tar writes an archive)"
}

// platformCompletion completes --platform with the common platforms.
var platformCompletion = cobra.FixedCompletions(
	[]string{"linux/amd64", "linux/arm64", "linux/arm/v7", "linux/riscv64", "linux/ppc64le", "linux/s390x"}, cobra.ShellCompDirectiveNoFileComp)

// run builds the kit at path: flags are checked and every destination
// vetted before anything is built or written.
func (o *buildOptions) run(ctx context.Context, ro *rootOptions, out, errOut io.Writer, path string) error {
	bo, err := o.options(ro)
	if err != nil {
		return err
	}
	if bo.Platforms, err = o.parsePlatforms(errOut); err != nil {
		return err
	}
	k, err := spec.LoadPath(path)
	if err != nil {
		return asUsage(err, "")
	}
	if err := checkArgsDeclared("--build-arg", k, spec.PhaseBuild, bo.BuildArgs); err != nil {
		return err
	}
	if bo.SourceDateEpoch, err = build.SourceDateEpoch(ctx, k, ro.env["SOURCE_DATE_EPOCH"]); err != nil {
		return err
	}
	solver := o.newSolver(ro.env)
	defer solver.close()

	events := make(chan progress.Event)
	wait, err := o.progressFlag.start(ctx, errOut, events)
	if err != nil {
		return err
	}
	res, err := build.Build(ctx, solver, k, bo, events)
	wait()
	if err != nil {
		sErr := textsafe.NewWriter(errOut)
		defer sErr.Flush()
		return buildError(sErr, k, err)
	}
	if o.metadataFile != "" {
		if err := writeMetadataFile(o.metadataFile, res.Metadata()); err != nil {
			return usageErrorf("--metadata-file: %w", err)
		}
	}
	sOut, sErr := textsafe.NewWriter(out), textsafe.NewWriter(errOut)
	writeBuildResult(sOut, sErr, res)
	return errors.Join(sOut.Flush(), sErr.Flush())
}

// parsePlatforms checks --platform: every value a platform, none empty; a
// platform no sandbox runs is built with a warning.
func (o *buildOptions) parsePlatforms(errOut io.Writer) ([]string, error) {
	sandboxPlatforms := build.DefaultPlatforms() // what sandboxes run, so what is built by default
	if len(o.platforms) == 0 {
		return nil, usageErrorf("--platform is empty: name at least one platform, e.g. %s", strings.Join(sandboxPlatforms, ","))
	}
	out := make([]string, 0, len(o.platforms))
	for _, s := range o.platforms {
		p, err := platforms.Parse(strings.TrimSpace(s))
		if strings.TrimSpace(s) == "" || err != nil {
			return nil, platformError(s)
		}
		norm := platforms.Format(platforms.Normalize(p))
		if !slices.Contains(sandboxPlatforms, norm) {
			fmt.Fprintf(errOut, "kitsmith: warning: --platform %s: sandboxes run %s only; a kit image for %s is never pulled\n",
				norm, strings.Join(sandboxPlatforms, " and "), norm)
		}
		out = append(out, norm)
	}
	return out, nil
}

// checkArgsDeclared reports a supplied arg value the kit does not declare,
// or declares for the other phase, as a usage error naming flag.
func checkArgsDeclared(flag string, k *spec.Kit, phase spec.ArgPhase, supplied map[string]string) error {
	if k.Descriptor == nil {
		return nil
	}
	var declared []string
	for _, n := range slices.Sorted(maps.Keys(k.Descriptor.Args)) {
		if k.Descriptor.Args[n].Phase() == phase {
			declared = append(declared, n)
		}
	}
	for _, n := range slices.Sorted(maps.Keys(supplied)) {
		a, ok := k.Descriptor.Args[n]
		switch {
		case !ok:
			list := "none"
			if len(declared) > 0 {
				list = strings.Join(declared, ", ")
			}
			return usageErrorf("%s %s: %s declares no arg %q (its %s-phase args: %s)", flag, n, k.Path, n, phase, list)
		case a.Phase() != phase:
			other := "--kit-arg"
			if a.Phase() == spec.PhaseBuild {
				other = "--build-arg"
			}
			return usageErrorf("%s %s: kit arg %q is resolved in the %s phase; pass it with %s", flag, n, n, a.Phase(), other)
		}
	}
	return nil
}
