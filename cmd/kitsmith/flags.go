package main

// Flag groups and usage errors shared by the commands.
//
// A command embeds the groups it takes in its xOptions, registers them in
// newXCmd with the group's AddFlags(cmd) and checks them in its own validate
// with the group's validate() (each returns a *usageError):
//
//	type signOptions struct {
//		registryFlags // --insecure-registry: r.artifactOptions(), r.open(ctx, ref)
//		formatFlag    // --format: f.json() after f.validate()
//		progressFlag  // --progress: wait, err := p.start(ctx, errOut, events)
//	}
//
//	o := &signOptions{formatFlag: newFormatFlag("text", "json")}
//	o.registryFlags.AddFlags(cmd); o.formatFlag.AddFlags(cmd); o.progressFlag.AddFlags(cmd)
//
// builderFlags (--builder, --tls*, builder.go) selects the BuildKit daemon;
// b.newSolver(env) turns it into a build.Solver that connects on first use
// (close it when done).
//
// progressFlag.start renders a <-chan progress.Event (build, sign, publish)
// through BuildKit's progressui until the producer closes it; call wait()
// before printing results.
//
// Destinations (dest.go, metadata.go): check every one before the first
// write with artifact.CheckDestination(out.Reference()) (its refusal
// through destinationError("--output", err)), checkMetadataDest(path) and,
// for a file to read, checkRegularFile(path); write JSON files with
// writeFileAtomic. Text results go through textsafe.NewWriter (flush it);
// JSON is written exact. Check findings print with writeCheckFindings.
//
// Errors: return usageErrorf(...) (or wrap with asUsage(err, hint)) for a
// usage, configuration or I/O error, which run maps to exit 2 by type, with
// its hint on a line of its own; errFindings for "exit 1, already reported";
// &exitError{code: exitFindings, err: err} for a failure to print. Argument
// count and unknown-flag errors from cobra become *usageError with the same
// "See 'kitsmith X --help'." hint, for every command newRootCmd adds
// (typedArgs wraps its Args). A registry that is unreachable, refuses the
// credentials or denies the operation is exit 2 with openHint's hint in
// every command (registryAccessError). A reference that failed to read
// gets refHint(ref, err) (dest.go): the oci: form of a local path, a
// reference without its URL scheme, openHint's cause. An interrupted
// command (ctx done) exits 2.

import (
	"context"
	"errors"
	"fmt"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"slices"
	"strings"
	"time"

	"github.com/containerd/platforms"
	"github.com/spf13/cobra"

	"github.com/kitsmith/kitsmith/internal/textsafe"
	"github.com/kitsmith/kitsmith/pkg/artifact"
)

// registryFlags is the flag group of commands that read or write registries.
type registryFlags struct {
	insecure bool
	// cmd is the command the flags belong to: its stderr gets the notice
	// of a registry that is slow to answer.
	cmd *cobra.Command
}

// slowRegistryAfter is how long a registry read waits before saying so.
const slowRegistryAfter = 2 * time.Second

// waiting prints, once an open or head of ref has taken slowRegistryAfter,
// that kitsmith is still waiting and what it tries; the returned function
// ends the wait. Local references (oci:, oci-archive:) say nothing.
func (r *registryFlags) waiting(ref string) (done func()) {
	if r.cmd == nil || strings.HasPrefix(ref, "oci:") || strings.HasPrefix(ref, "oci-archive:") {
		return func() {}
	}
	w := r.cmd.ErrOrStderr()
	t := time.AfterFunc(slowRegistryAfter, func() {
		fmt.Fprintf(w, "kitsmith: waiting for the registry of %s: no answer after %s over HTTPS (a loopback registry is tried over plain HTTP next; each try gives up after its timeout)\n",
			textsafe.Inline(ref), slowRegistryAfter)
	})
	return func() { t.Stop() }
}

// AddFlags registers --insecure-registry on cmd.
func (r *registryFlags) AddFlags(cmd *cobra.Command) {
	r.cmd = cmd
	cmd.Flags().BoolVar(&r.insecure, "insecure-registry", false,
		"bypass: reach a non-loopback registry over plain HTTP or unverified TLS (loopback registries use HTTP anyway)")
}

// artifactOptions returns the artifact options the flags select.
func (r *registryFlags) artifactOptions() []artifact.Option {
	if r.insecure {
		return []artifact.Option{artifact.WithInsecureRegistry()}
	}
	return nil
}

// open reads the artifact at ref; failing to is a usage or I/O error
// (exit 2), with a hint when the cause is a known one.
func (r *registryFlags) open(ctx context.Context, ref string) (*artifact.Artifact, error) {
	if hint := localRefHint(ref); hint != "" {
		return nil, &usageError{err: fmt.Errorf("%s is read as a registry reference (on Docker Hub), but it is a local path", ref), hint: hint}
	}
	done := r.waiting(ref)
	a, err := artifact.Open(ctx, ref, r.artifactOptions()...)
	done()
	if err != nil {
		return nil, asUsage(err, registryRefHint(ref, err)) // not a local path: checked above
	}
	return a, nil
}

// head resolves ref to the kit's descriptor and opens the store its
// signatures live in (the registry repository or the layout), as sign and
// verify need; failing to is a usage or I/O error with its hint.
func (r *registryFlags) head(ctx context.Context, ref string) (v1.Descriptor, artifact.Target, error) {
	t, err := artifact.NewTarget(ctx, ref, r.artifactOptions()...)
	if err != nil {
		return v1.Descriptor{}, nil, asUsage(err, openHint(err))
	}
	done := r.waiting(ref)
	kit, err := t.Head(ctx)
	done()
	if err != nil {
		return v1.Descriptor{}, nil, asUsage(err, refHint(ref, err))
	}
	return kit, t, nil
}

// openHint returns the hint for an error reading or writing an artifact
// whose cause is a known one (the registry unreachable, unauthorized or
// denying the operation; a path that is not a layout), else "".
func openHint(err error) string {
	switch {
	case errors.Is(err, artifact.ErrUnreachable):
		return "hint: check the registry host and port; a registry on another host that serves plain HTTP or a self-signed certificate needs --insecure-registry"
	case errors.Is(err, artifact.ErrUnauthorized):
		return "hint: log in with 'docker login <registry>'; kitsmith reads Docker's credential store"
	case errors.Is(err, artifact.ErrDenied):
		return "hint: the registry knows these credentials but refuses them this operation (pushing to a repository they may only read?); log in as an account that may, with 'docker login <registry>'"
	case errors.Is(err, artifact.ErrNotLayout):
		return "hint: oci:DIR reads an OCI layout directory (kitsmith build --output oci:DIR writes one), oci-archive:FILE a tar of one"
	}
	return ""
}

// registryAccessError returns err as a usage or I/O error (exit 2) with
// its hint when its cause is a registry that is unreachable, refuses the
// credentials or denies the operation; otherwise nil.
func registryAccessError(err error) error {
	if !errors.Is(err, artifact.ErrUnreachable) && !errors.Is(err, artifact.ErrUnauthorized) && !errors.Is(err, artifact.ErrDenied) {
		return nil
	}
	return asUsage(err, openHint(err))
}

// accessHint returns openHint's hint when every one of errs is a registry
// access failure (registryAccessError) with the same hint, else "": a run
// that failed only because a registry could not be used is an I/O error.
func accessHint(errs []error) string {
	hint := ""
	for i, err := range errs {
		if registryAccessError(err) == nil || i > 0 && openHint(err) != hint {
			return ""
		}
		hint = openHint(err)
	}
	return hint
}

// destinationError returns err, a refusal of the destination flag names
// (an *artifact.DestinationError), as a usage error naming the flag; any
// other error is an I/O error (exit 2) naming it too.
func destinationError(flag string, err error) *usageError {
	if de, ok := errors.AsType[*artifact.DestinationError](err); ok && de == err {
		return &usageError{err: fmt.Errorf("%s %w", flag, err)}
	}
	return &usageError{err: fmt.Errorf("%s: %w", flag, err)}
}

// checkPlatform refuses a --platform value that is not a platform; ""
// (none given) is accepted.
func checkPlatform(s string) error {
	if s == "" {
		return nil
	}
	if _, err := platforms.Parse(strings.TrimSpace(s)); err != nil || strings.TrimSpace(s) == "" {
		return platformError(s)
	}
	return nil
}

// platformError is the usage error of a --platform value that is not a
// platform.
func platformError(s string) error {
	return usageErrorf("--platform %q is not a platform (os/arch[/variant], e.g. linux/arm64)", s)
}

// formatFlag is --format, one of a command's output formats.
type formatFlag struct {
	format  string
	choices []string
}

// newFormatFlag returns the group with its choices; the first is the default.
func newFormatFlag(choices ...string) formatFlag {
	return formatFlag{choices: choices}
}

// AddFlags registers --format and its completion on cmd.
func (f *formatFlag) AddFlags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.format, "format", f.choices[0], "output format: "+strings.Join(f.choices, ", "))
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(f.choices, cobra.ShellCompDirectiveNoFileComp))
}

func (f *formatFlag) validate() error {
	if !slices.Contains(f.choices, f.format) {
		return usageErrorf("--format must be %s, not %q", orList(f.choices), f.format)
	}
	return nil
}

// orList joins choices as "a, b or c".
func orList(choices []string) string {
	if len(choices) < 2 {
		return strings.Join(choices, "")
	}
	return strings.Join(choices[:len(choices)-1], ", ") + " or " + choices[len(choices)-1]
}

// json reports whether --format json was chosen.
func (f *formatFlag) json() bool { return f.format == "json" }

// progressFlag is --progress: how progress is rendered on stderr.
type progressFlag struct {
	mode string
}

// progressModes returns the --progress values (BuildKit's progressui
// modes).
func progressModes() []string { return []string{"auto", "plain", "tty", "quiet", "rawjson"} }

// AddFlags registers --progress and its completion on cmd.
func (p *progressFlag) AddFlags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&p.mode, "progress", "auto", "progress output on stderr: "+strings.Join(progressModes(), ", "))
	_ = cmd.RegisterFlagCompletionFunc("progress", cobra.FixedCompletions(progressModes(), cobra.ShellCompDirectiveNoFileComp))
}

func (p *progressFlag) validate() error {
	if !slices.Contains(progressModes(), p.mode) {
		return usageErrorf("--progress must be %s, not %q", orList(progressModes()), p.mode)
	}
	return nil
}
