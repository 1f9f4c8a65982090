package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/kitsmith/kitsmith/pkg/progress"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/moby/buildkit/client"
	// Register the builder address schemes beyond unix:// and tcp://.
	_ "github.com/moby/buildkit/client/connhelper/dockercontainer"
	_ "github.com/moby/buildkit/client/connhelper/kubepod"
	_ "github.com/moby/buildkit/client/connhelper/podmancontainer"
	_ "github.com/moby/buildkit/client/connhelper/ssh"
	gateway "github.com/moby/buildkit/frontend/gateway/client"
	"github.com/moby/buildkit/util/progress/progressui"
	"github.com/spf13/cobra"

	"github.com/kitsmith/kitsmith/internal/diag"
	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/build"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// defaultBuilder is BuildKit's default daemon address.
const defaultBuilder = "unix:///run/buildkit/buildkitd.sock"

// progressModes returns the --progress values (BuildKit's progressui
// modes).
func progressModes() []string { return []string{"auto", "plain", "tty", "quiet", "rawjson"} }

// builderFlags selects and authenticates the BuildKit daemon.
type builderFlags struct {
	addr       string
	caCert     string
	cert       string
	key        string
	serverName string
}

func (b *builderFlags) AddFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&b.addr, "builder", "", "BuildKit daemon address: unix://, tcp://, docker-container://, podman-container://, kube-pod://, ssh:// (default $BUILDKIT_HOST, else "+defaultBuilder+")")
	f.StringVar(&b.caCert, "tlscacert", "", "CA certificate to verify a tcp:// builder with")
	f.StringVar(&b.cert, "tlscert", "", "client certificate for a tcp:// builder")
	f.StringVar(&b.key, "tlskey", "", "client key for a tcp:// builder")
	f.StringVar(&b.serverName, "tlsservername", "", "server name to verify the builder's certificate against (default: the address's host)")
	_ = cmd.MarkFlagFilename("tlscacert", "pem", "crt")
	_ = cmd.MarkFlagFilename("tlscert", "pem", "crt")
	_ = cmd.MarkFlagFilename("tlskey", "pem", "key")
	_ = cmd.RegisterFlagCompletionFunc("builder", cobra.FixedCompletions(
		[]string{"unix://", "tcp://", "docker-container://", "podman-container://", "kube-pod://", "ssh://"}, cobra.ShellCompDirectiveNoSpace))
}

func (b *builderFlags) validate() error {
	if (b.cert == "") != (b.key == "") {
		return usageErrorf("--tlscert and --tlskey go together")
	}
	return nil
}

type buildOptions struct {
	builder          builderFlags
	platforms        []string
	buildArgs        []string
	outputs          []string
	tags             []string
	push             bool
	insecureRegistry bool
	metadataFile     string
	progress         string
	noCache          bool
	attest           []string
}

func newBuildCmd(ro *rootOptions) *cobra.Command {
	o := &buildOptions{}
	cmd := &cobra.Command{
		Use:   "build [flags] PATH",
		Short: "Build a kit into a multi-platform OCI kit image, check it and publish it",
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
environment, else from the last git commit of the kit directory, else 0.
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
	o.builder.AddFlags(cmd)
	f := cmd.Flags()
	f.StringSliceVar(&o.platforms, "platform", build.DefaultPlatforms(), "platforms to build (comma-separated or repeated)")
	f.StringArrayVar(&o.buildArgs, "build-arg", nil, "build-phase kit arg value name=value, by kit arg name (repeatable)")
	f.StringArrayVarP(&o.outputs, "output", "o", nil, "write the kit image: oci:DIR (OCI layout) or oci-archive:FILE (repeatable)")
	f.StringArrayVarP(&o.tags, "tag", "t", nil, "registry reference to push to with --push, e.g. registry.example.com/kits/gh:1.2 (repeatable)")
	f.BoolVar(&o.push, "push", false, "push the kit image to every --tag")
	f.BoolVar(&o.insecureRegistry, "insecure-registry", false, "allow plain HTTP and unverified TLS for every registry (loopback registries use HTTP anyway)")
	f.StringVar(&o.metadataFile, "metadata-file", "", "write the index and manifest digests and the pushed references as JSON to this file")
	f.StringVar(&o.progress, "progress", "auto", "progress output on stderr: "+strings.Join(progressModes(), ", "))
	f.BoolVar(&o.noCache, "no-cache", false, "solve the recipe without BuildKit's cache")
	f.StringSliceVar(&o.attest, "attest", nil, "attestations to add: provenance (BuildKit SLSA provenance, mode=max)")
	_ = cmd.RegisterFlagCompletionFunc("platform", cobra.FixedCompletions(
		[]string{"linux/amd64", "linux/arm64", "linux/arm/v7", "linux/riscv64", "linux/ppc64le", "linux/s390x"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("progress", cobra.FixedCompletions(progressModes(), cobra.ShellCompDirectiveNoFileComp))
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
	if err := o.builder.validate(); err != nil {
		return bo, err
	}
	if !contains(progressModes(), o.progress) {
		return bo, usageErrorf("--progress must be one of %s, not %q", strings.Join(progressModes(), ", "), o.progress)
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
	bo.Platforms = o.platforms
	bo.NoCache = o.noCache
	bo.InsecureRegistry = o.insecureRegistry
	tag := ""
	if len(o.tags) == 1 {
		if r, err := name.NewTag(o.tags[0]); err == nil {
			tag = r.TagStr()
		}
	}
	for _, s := range o.outputs {
		out, err := build.ParseOutput(s)
		if err != nil {
			return bo, usageErrorf("--output: %v", err)
		}
		if out.Type == build.OutputRegistry {
			return bo, usageErrorf("--output %s: push with --tag REF --push", s)
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
	if v, ok := ro.env["SOURCE_DATE_EPOCH"]; ok && v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return bo, usageErrorf("SOURCE_DATE_EPOCH=%q is not a number of seconds since 1970-01-01", v)
		}
		bo.SourceDateEpoch = &n
	}
	return bo, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (o *buildOptions) run(ctx context.Context, ro *rootOptions, out, errOut io.Writer, path string) error {
	bo, err := o.options(ro)
	if err != nil {
		return err
	}
	k, err := spec.LoadPath(path)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	if bo.SourceDateEpoch == nil {
		bo.SourceDateEpoch = gitCommitTime(ctx, k.Dir)
	}
	solver := &lazySolver{flags: o.builder, env: ro.env}
	defer solver.close()

	disp, err := progressui.NewDisplay(errOut, progressui.DisplayMode(o.progress))
	if err != nil {
		return usageErrorf("--progress %s: %v", o.progress, err)
	}
	events := make(chan progress.Event)
	statuses := make(chan *client.SolveStatus)
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(statuses)
		for e := range events {
			statuses <- e.SolveStatus()
		}
	})
	wg.Go(func() {
		// The display ends when statuses is closed; its error (a closed
		// terminal) is no reason to fail the build.
		_, _ = disp.UpdateFrom(context.WithoutCancel(ctx), statuses)
	})
	res, err := build.Build(ctx, solver, k, bo, events)
	wg.Wait()
	if err != nil {
		return buildError(errOut, k, err)
	}
	writeBuildResult(out, errOut, res)
	if o.metadataFile != "" {
		if err := writeMetadataFile(o.metadataFile, res.Metadata()); err != nil {
			return &exitError{code: exitUsage, err: fmt.Errorf("--metadata-file: %w", err)}
		}
	}
	return nil
}

// buildError reports a failed build and returns the exit error: the
// kit's problems as diagnostics, a failed check as its findings.
func buildError(errOut io.Writer, k *spec.Kit, err error) error {
	var pe *build.PublishError
	var ce *build.CheckError
	var de *dialError
	switch {
	case errors.As(err, &pe):
		src := diag.Sources(k.SourceFiles())
		for _, e := range pe.Report.Errors {
			writeDiagnostic(errOut, src, "error", e)
		}
		for _, e := range pe.Report.Warnings {
			writeDiagnostic(errOut, src, "warning", e)
		}
		return &exitError{code: exitFindings, err: fmt.Errorf("%s cannot be published (%d error%s); nothing was built", k.Path, len(pe.Report.Errors), plural(len(pe.Report.Errors)))}
	case errors.As(err, &ce):
		writeFindings(errOut, ce.Report)
		return &exitError{code: exitFindings, err: fmt.Errorf("the built kit image fails %d conformance check%s; nothing was written", ce.Report.Count(artifact.SeverityFail), plural(ce.Report.Count(artifact.SeverityFail)))}
	case errors.As(err, &de), errors.Is(err, build.ErrNoSolver):
		return &exitError{code: exitUsage, err: err}
	}
	return &exitError{code: exitFindings, err: err}
}

// writeFindings prints check findings, one per line.
func writeFindings(w io.Writer, rep *artifact.Report) {
	for _, f := range rep.Findings {
		if f.Severity == artifact.SeveritySkip {
			continue
		}
		where := ""
		if f.Platform != "" {
			where = f.Platform + ": "
		}
		fmt.Fprintf(w, "%s%s: %s: %s", where, f.Severity, f.Check, f.Message)
		if f.Spec != "" {
			fmt.Fprintf(w, " [%s]", f.Spec)
		}
		fmt.Fprintln(w)
	}
}

// writeBuildResult prints what was built and where it went.
func writeBuildResult(out, errOut io.Writer, res *build.Result) {
	for _, e := range res.Warnings {
		fmt.Fprintf(errOut, "%s: warning: %s\n", e.Range.Start, e.Msg)
	}
	if res.Check != nil {
		writeFindings(errOut, res.Check)
	}
	fmt.Fprintf(out, "built %s (%s, %s): %s\n", res.Stem, res.Kind, res.Route, res.Index.Digest)
	for _, m := range res.Manifests {
		fmt.Fprintf(out, "  %-16s %s\n", m.Platform, m.Digest)
	}
	if res.Attestations > 0 {
		fmt.Fprintf(out, "  %d attestation manifest%s\n", res.Attestations, plural(res.Attestations))
	}
	for _, w := range res.Written {
		switch w.Output.Type {
		case build.OutputRegistry:
			fmt.Fprintf(out, "pushed %s\n", w.Reference)
		default:
			fmt.Fprintf(out, "wrote %s\n", w.Output)
		}
	}
}

// writeMetadataFile writes the metadata JSON through a temporary file
// renamed into place.
func writeMetadataFile(file string, m build.Metadata) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".tmp-")
	if err != nil {
		return err
	}
	_, err = tmp.Write(append(b, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), file)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// gitCommitTime returns the time of the last commit touching dir, or nil
// when dir is not in a git work tree (or git is missing).
func gitCommitTime(ctx context.Context, dir string) *int64 {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "-C", dir, "log", "-1", "--format=%ct", "--", ".")
	b, err := cmd.Output()
	if err != nil {
		return nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return nil
	}
	return &n
}

// lazySolver connects to the builder on first use, so that a kit built
// in-process needs no daemon.
type lazySolver struct {
	flags builderFlags
	env   env
	c     *client.Client
}

var _ build.Solver = (*lazySolver)(nil)

// dialError reports a builder that cannot be reached.
type dialError struct {
	addr string
	err  error
}

func (e *dialError) Error() string {
	return fmt.Sprintf("no BuildKit daemon reachable at %s: %v\n"+
		"This kit has a content recipe, which BuildKit builds. Start a daemon (buildkitd, or\n"+
		"'docker buildx create --driver docker-container --name kitsmith' and\n"+
		"--builder docker-container://buildx_buildkit_kitsmith0), or point --builder or\n"+
		"BUILDKIT_HOST at one (unix://, tcp://, docker-container://, kube-pod://)", e.addr, e.err)
}

func (e *dialError) Unwrap() error { return e.err }

func (l *lazySolver) address() string {
	switch {
	case l.flags.addr != "":
		return l.flags.addr
	case l.env["BUILDKIT_HOST"] != "":
		return l.env["BUILDKIT_HOST"]
	}
	return defaultBuilder
}

func (l *lazySolver) connect(ctx context.Context) error {
	if l.c != nil {
		return nil
	}
	addr := l.address()
	var copts []client.ClientOpt
	if l.flags.caCert != "" {
		sn := l.flags.serverName
		if sn == "" {
			if u, err := url.Parse(addr); err == nil {
				sn = u.Hostname()
			}
		}
		copts = append(copts, client.WithServerConfig(sn, l.flags.caCert))
	}
	if l.flags.cert != "" {
		copts = append(copts, client.WithCredentials(l.flags.cert, l.flags.key))
	}
	c, err := client.New(ctx, addr, copts...)
	if err != nil {
		return &dialError{addr: addr, err: err}
	}
	pctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if _, err := c.Info(pctx); err != nil {
		c.Close()
		return &dialError{addr: addr, err: err}
	}
	l.c = c
	return nil
}

// Build connects on first use and runs the build.
func (l *lazySolver) Build(ctx context.Context, opt client.SolveOpt, product string, fn gateway.BuildFunc, ch chan *client.SolveStatus) (*client.SolveResponse, error) {
	if err := l.connect(ctx); err != nil {
		return nil, err
	}
	return l.c.Build(ctx, opt, product, fn, ch)
}

func (l *lazySolver) close() {
	if l.c != nil {
		l.c.Close()
	}
}
