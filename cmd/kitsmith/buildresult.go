package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/artifact/conform"
	"github.com/kitsmith/kitsmith/pkg/build"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// buildError reports a failed build and returns the exit error: the
// kit's problems as diagnostics, a failed check as its findings.
func buildError(errOut io.Writer, k *spec.Kit, err error) error {
	var pe *build.DescriptorError
	var ce *build.CheckError
	var de *dialError
	switch {
	case errors.As(err, &pe):
		writeReport(errOut, k, pe.Report)
		return &exitError{code: exitFindings, err: fmt.Errorf("%s cannot be published (%d error%s); nothing was built", k.Path, len(pe.Report.Errors), plural(len(pe.Report.Errors)))}
	case errors.As(err, &ce):
		writeCheckFindings(errOut, ce.Report, false)
		n := ce.Report.Count(conform.SeverityFail)
		return &exitError{code: exitFindings, err: fmt.Errorf("the built kit image fails %d conformance check%s; nothing was written", n, plural(n))}
	case errors.As(err, &de), errors.Is(err, build.ErrNoSolver):
		return asUsage(err, "")
	}
	if ue := registryAccessError(err); ue != nil {
		return ue
	}
	if dest, ok := errors.AsType[*artifact.DestinationError](err); ok {
		return destinationError(destinationFlag(dest.Ref), err)
	}
	return &exitError{code: exitFindings, err: err}
}

// destinationFlag names the build flag that gave the destination ref: a
// registry reference comes from --tag, a layout or archive from --output.
func destinationFlag(ref string) string {
	if r, err := artifact.ParseReference(ref); err == nil && r.Kind != artifact.OriginRegistry {
		return "--output"
	}
	return "--tag"
}

// writeBuildResult prints what was built and where it went.
func writeBuildResult(out, errOut io.Writer, res *build.Result) {
	for _, e := range res.Warnings {
		fmt.Fprintf(errOut, "%s: warning: %s\n", e.Range.Start, e.Msg)
	}
	if res.Check != nil {
		writeCheckFindings(errOut, res.Check, false)
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
	if len(res.Written) == 0 {
		fmt.Fprintln(out, "nothing was written: name an --output or --tag with --push to keep the kit image")
	}
}
