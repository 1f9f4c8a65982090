package build

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/google/go-containerregistry/pkg/v1"
	"github.com/moby/buildkit/client"
	gateway "github.com/moby/buildkit/frontend/gateway/client"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/artifact/conform"
	"github.com/kitsmith/kitsmith/pkg/progress"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// Solver runs a build on a BuildKit daemon with an in-process gateway
// build function (kitsmith is the frontend). *client.Client implements it.
// Build sends progress on statusChan until it returns and may close it, as
// *client.Client does; it never sends after returning.
type Solver interface {
	Build(ctx context.Context, opt client.SolveOpt, product string, buildFunc gateway.BuildFunc, statusChan chan *client.SolveStatus) (*client.SolveResponse, error)
}

var _ Solver = (*client.Client)(nil)

// ErrNoSolver reports a build that needs a BuildKit daemon (a kit with a
// content recipe, or a provenance attestation) called without a Solver.
var ErrNoSolver = errors.New("no BuildKit daemon to build with")

// Route is how a kit is built.
type Route string

// Build routes.
const (
	// RouteInProcess is a declaration-only kit assembled with
	// go-containerregistry, without a daemon.
	RouteInProcess Route = "in-process"
	// RouteBuildKit is a kit solved through a BuildKit daemon.
	RouteBuildKit Route = "buildkit"
	// RouteSet is a kind: set merged in-process from its kits' images.
	RouteSet Route = "set"
)

// DescriptorError reports a kit whose descriptor cannot be published: the
// kit is invalid, or its published descriptor is. Nothing was built.
// errors.As finds its spec.Errors (and each *spec.Error) through it. It is
// spec.PublishError, the type review.SourceError also names.
type DescriptorError = spec.PublishError

// CheckError reports a built artifact that failed the conformance checks.
// Nothing was written to any output.
type CheckError struct {
	// Report holds every finding, failures and warnings.
	Report *conform.Report
}

// Error counts the failed checks; the findings are in Report (a command
// renders them).
func (e *CheckError) Error() string {
	n := e.Report.Count(conform.SeverityFail)
	plural := "s"
	if n == 1 {
		plural = ""
	}
	return fmt.Sprintf("the built kit image fails %d conformance check%s; nothing was exported", n, plural)
}

// Build builds the kit k, checks the artifact and writes it to
// o.Outputs. s is used only when the kit needs a BuildKit daemon (a
// content recipe, or o.Provenance); it may be nil otherwise, and Build
// then fails with ErrNoSolver if it is needed. Progress goes to ev, which
// Build closes before it returns; ev may be nil.
//
// An invalid kit fails with a *DescriptorError, a built artifact that fails
// the checks with a *CheckError; in both cases no output is written.
func Build(ctx context.Context, s Solver, k *spec.Kit, o Options, ev chan<- progress.Event) (*Result, error) {
	if ev != nil {
		defer close(ev)
	}
	p := progress.NewReporter(ev)
	opts, err := makeOptions(o)
	if err != nil {
		return nil, err
	}
	if k == nil || k.Descriptor == nil {
		return nil, errors.New("build: no kit descriptor")
	}
	tmp, err := os.MkdirTemp(opts.TempDir, "kitsmith-build-")
	if err != nil {
		return nil, fmt.Errorf("creating a temporary directory: %w", err)
	}
	defer os.RemoveAll(tmp)

	b, err := buildRoute(ctx, p, s, k, opts, tmp)
	if err != nil {
		return nil, err
	}
	res, err := b.result(opts)
	if err != nil {
		return nil, err
	}
	if res.Check, err = check(ctx, p, b, opts); err != nil {
		return nil, err
	}
	if res.Written, err = writeOutputs(ctx, p, b.index, opts); err != nil {
		return nil, err
	}
	return res, nil
}

// buildRoute builds k by the route its form asks for.
func buildRoute(ctx context.Context, p progress.Reporter, s Solver, k *spec.Kit, opts *options, tmp string) (*built, error) {
	switch {
	case k.Form == spec.FormSet || len(k.Descriptor.Kits) > 0 || k.Descriptor.Kind == spec.KindSet:
		if opts.Provenance {
			return nil, errors.New("--attest provenance is not available for a kind: set, which is merged in-process from its kits' images")
		}
		return buildSet(ctx, p, k, opts)
	case k.Recipe == nil && !opts.Provenance:
		return buildDeclarationOnly(ctx, p, k, opts)
	}
	pub, warnings, err := publishKit(ctx, p, k, opts)
	if err != nil {
		return nil, err
	}
	fe := newFrontend(k, pub, opts)
	if err := fe.precheck(); err != nil {
		return nil, err
	}
	if s == nil {
		why := "its content recipe is solved by BuildKit"
		if k.Recipe == nil {
			why = "a provenance attestation is made by BuildKit"
		}
		return nil, fmt.Errorf("building %s: %w: %s", k.Path, ErrNoSolver, why)
	}
	b, err := buildWithBuildKit(ctx, p, s, fe, tmp)
	if err != nil {
		return nil, err
	}
	b.warnings = warnings
	return b, nil
}

// check runs the conformance checks on the built artifact; a failure is a
// *CheckError.
func check(ctx context.Context, p progress.Reporter, b *built, opts *options) (*conform.Report, error) {
	done := p.Step(ctx, "check", "[kitsmith] check the kit image against SPEC-v3")
	var co []conform.Option
	if b.route == RouteSet {
		co = append(co, conform.WithKitResolver(artifact.RegistryResolver(opts.artifactOptions()...)))
	}
	rep, err := conform.Check(ctx, artifact.FromIndex(b.index), co...)
	if err != nil {
		err = fmt.Errorf("checking the built kit image: %w", err)
		done(err)
		return nil, err
	}
	if rep.Failed() {
		err := &CheckError{Report: rep}
		done(err)
		return nil, err
	}
	done(nil)
	return rep, nil
}

// built is what a route produced: the image index and what it was built
// from.
type built struct {
	route      Route
	index      v1.ImageIndex
	published  *spec.Descriptor
	yaml       []byte
	warnings   spec.Errors
	stem, kind string
}
