package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/spf13/cobra"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/build"
	"github.com/kitsmith/kitsmith/pkg/emulator"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

type testOptions struct {
	builderFlags
	registryFlags
	formatFlag
	with    []string
	kitArgs []string
	secrets []string
	output  string
	shim    string
}

func newTestCmd(ro *rootOptions) *cobra.Command {
	o := &testOptions{formatFlag: newFormatFlag("text", "json", "junit")}
	cmd := &cobra.Command{
		Use:   "test [flags] KIT",
		Short: "Run a kit's lifecycle hooks hermetically, under its own network policy",
		Long: `Test runs a kit's install and startup hooks the way a sandbox would, on a Linux
machine with a BuildKit daemon and no sbx: the kit (built as build builds it,
for this machine's platform only) is composed with the workloads --with names,
the composition is resolved as resolve does (its problems are exit 1 before
anything runs), and one container with no network but loopback runs every
hook in the runtime's order: install hooks, then startup hooks, providers
before the kits that require them.

Each hook runs as its user: (root for install, the agent, uid 1000, for
startup; the image's USER with sbx@1), with exactly the names its env: list
declares plus PATH, HOME and HOSTNAME, their values taken from the image, the
args' exports (--kit-arg, then defaults), the forward proxy the sandbox
announces and, for proxy-managed credentials, a sentinel: never from this
machine's environment. A hook that fails does not stop the run.

Egress leaves the container only through an enforcing proxy inside kitsmith,
on both paths a sandbox has: the forward proxy HTTP(S)_PROXY announces, and a
transparent path for direct connections (names resolve to addresses the proxy
captures). Install hooks get the install lists, startup hooks the runtime
lists; deny wins; every refusal names the allow entry to add. A direct
connection to an IP address fails.

A green run means "consistent with the specification as kitsmith reads it",
not "works in sbx": every report lists what is not emulated (header injection
for inject domains, network-policy@2 methods and paths, lifecycle files,
background hooks, the entrypoint, restarts, volumes, ssh-agent, Docker in
the sandbox).

kitsmith copies itself into the container to serve the container's side of
the network, so it must be a static build for this machine (CGO_ENABLED=0).

Exit status: 0 every hook passed, nothing was refused and nothing leaked;
1 a hook failed, egress was refused, a sentinel or secret leaked, or the
composition does not resolve; 2 usage or infrastructure problems (no builder,
a dynamically linked kitsmith).`,
		Example: `  # a workload kit on its own
  kitsmith test kits/shell

  # a mixin with the workload it extends, as JUnit for CI
  kitsmith test --with 127.0.0.1:5000/kits/shell:1.0.0 --format junit --output hooks.xml kits/inside

  # a create-phase arg and a credential's test value
  kitsmith test --with oci:out/shell --kit-arg region=eu --secret github=test-token kits/gh`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), ro, cmd.OutOrStdout(), cmd.ErrOrStderr(), args[0])
		},
	}
	o.builderFlags.AddFlags(cmd)
	o.registryFlags.AddFlags(cmd)
	o.formatFlag.AddFlags(cmd)
	f := cmd.Flags()
	f.StringArrayVar(&o.with, "with", nil, "a published kit to compose with (the workload, other mixins): REF, oci:DIR or oci-archive:FILE (repeatable)")
	f.StringArrayVar(&o.kitArgs, "kit-arg", nil, "create-phase arg value name=value (repeatable)")
	f.StringArrayVar(&o.secrets, "secret", nil, "a credential's test value SERVICE=VALUE (repeatable)")
	f.StringVarP(&o.output, "output", "o", "", "write the report to this file instead of stdout")
	f.StringVar(&o.shim, "shim", "", "the static linux kitsmith binary to run in the container (default: this one)")
	_ = f.MarkHidden("shim")
	return cmd
}

func (o *testOptions) run(ctx context.Context, ro *rootOptions, stdout, stderr io.Writer, input string) error {
	if err := o.formatFlag.validate(); err != nil {
		return err
	}
	if err := o.builderFlags.validate(); err != nil {
		return err
	}
	kitArgs, err := parseKeyValues("--kit-arg", o.kitArgs)
	if err != nil {
		return err
	}
	secrets, err := parseKeyValues("--secret", o.secrets)
	if err != nil {
		return err
	}
	if o.output != "" {
		if err := checkMetadataDest(o.output); err != nil {
			return err
		}
	}
	shim := o.shim
	if shim == "" {
		if shim, err = os.Executable(); err != nil {
			return &exitError{code: exitUsage, err: fmt.Errorf("finding kitsmith's own binary: %w", err)}
		}
	}
	platform := v1.Platform{OS: "linux", Architecture: runtime.GOARCH}
	solver := o.builderFlags.newSolver(ro.env)
	defer solver.close()

	tmp, err := os.MkdirTemp("", "kitsmith-test-kit-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	kit, err := o.member(ctx, solver, stderr, input, platform, tmp)
	if err != nil {
		return err
	}
	members := []emulator.Member{kit}
	for _, ref := range o.with {
		a, err := o.registryFlags.open(ctx, ref)
		if err != nil {
			return err
		}
		m, err := emulator.MemberOf(ctx, a, ref, platform)
		if err != nil {
			return &exitError{code: exitUsage, err: fmt.Errorf("--with %s: %w", ref, err)}
		}
		members = append(members, m)
	}
	if err := checkKitArgNames(kitArgs, members); err != nil {
		return err
	}
	// A value planted in kitsmith's own environment, which no hook may see.
	sentinel := "kitsmith-host-sentinel-" + randomToken()
	os.Setenv("KITSMITH_TEST_HOST_SENTINEL", sentinel)
	defer os.Unsetenv("KITSMITH_TEST_HOST_SENTINEL")

	fmt.Fprintf(stderr, "kitsmith test: running the hooks of %d kit(s) on %s/%s\n", len(members), platform.OS, platform.Architecture)
	rep, err := emulator.Run(ctx, solver, members, emulator.Options{
		Shim: shim, Platform: platform, KitArgs: kitArgs, Secrets: secrets, HostSentinel: sentinel,
	})
	var ce *emulator.CompositionError
	switch {
	case errors.As(err, &ce):
		return &exitError{code: exitFindings, err: err}
	case errors.Is(err, emulator.ErrShim), errors.Is(err, build.ErrNoSolver):
		return &exitError{code: exitUsage, err: err}
	case err != nil:
		return &exitError{code: exitUsage, err: err}
	}
	if err := o.write(stdout, rep); err != nil {
		return err
	}
	if !rep.OK() {
		return errFindings
	}
	return nil
}

// member builds a kit source for platform into a layout under tmp, or
// opens a published kit.
func (o *testOptions) member(ctx context.Context, s build.Solver, errOut io.Writer, input string, platform v1.Platform, tmp string) (emulator.Member, error) {
	if _, err := os.Stat(input); err != nil {
		a, err := o.registryFlags.open(ctx, input)
		if err != nil {
			return emulator.Member{}, err
		}
		return emulator.MemberOf(ctx, a, input, platform)
	}
	k, err := spec.LoadPath(input)
	if err != nil {
		return emulator.Member{}, err
	}
	out, err := build.ParseOutput(artifact.LayoutPrefix + filepath.Join(tmp, "kit"))
	if err != nil {
		return emulator.Member{}, err
	}
	if _, err := build.Build(ctx, s, k, build.Options{Platforms: []string{platform.OS + "/" + platform.Architecture}, Outputs: []build.Output{out}}, nil); err != nil {
		return emulator.Member{}, buildError(errOut, k, err)
	}
	a, err := artifact.Open(ctx, out.Reference())
	if err != nil {
		return emulator.Member{}, err
	}
	return emulator.MemberOf(ctx, a, k.Path, platform)
}

// checkKitArgNames refuses a --kit-arg no kit of the composition declares.
func checkKitArgNames(args map[string]string, members []emulator.Member) error {
	for n := range args {
		found := false
		for _, m := range members {
			if _, ok := m.Kit.Descriptor.Args[n]; ok {
				found = true
			}
		}
		if !found {
			return usageErrorf("--kit-arg %s: no kit of the composition declares an arg %q", n, n)
		}
	}
	return nil
}

func (o *testOptions) write(stdout io.Writer, rep *emulator.Report) error {
	w := stdout
	var f *os.File
	if o.output != "" {
		var err error
		if f, err = os.Create(o.output); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		defer f.Close()
		w = f
	}
	var err error
	switch o.format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		err = enc.Encode(rep)
	case "junit":
		err = rep.WriteJUnit(w)
	default:
		err = rep.WriteText(w)
	}
	if err == nil && f != nil {
		err = f.Close()
	}
	return err
}

func randomToken() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}
