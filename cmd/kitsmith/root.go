package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kitsmith/kitsmith/internal/textsafe"
	"github.com/kitsmith/kitsmith/internal/version"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// gcPercent is the garbage collector target of a run, unless GOGC is set.
const gcPercent = 400

// memoryLimit is the soft memory limit of a run, unless GOMEMLIMIT is set:
// with gcPercent alone, reading a layer of tens of thousands of long links
// lets the heap grow to five times what is live; near the limit the
// collector runs more often than gcPercent says, keeping such a run under
// 256 MiB.
const memoryLimit = 192 << 20

// Exit codes.
const (
	exitOK       = 0
	exitFindings = 1
	exitUsage    = 2
)

// exitError is a failure with an exit code other than 2 (usage errors are
// *usageError); a nil err means "say nothing more".
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// errFindings makes the command exit 1 without printing anything more: the
// command has already reported what it found.
var errFindings = &exitError{code: exitFindings}

// usageError is a usage, configuration or I/O error: run maps it to exit 2
// by its type. A nil err means "say nothing more"; hint, when set, is
// printed on its own line after err.
type usageError struct {
	err  error
	hint string
}

func (e *usageError) Error() string {
	if e.err == nil {
		return "usage error"
	}
	return e.err.Error()
}

func (e *usageError) Unwrap() error { return e.err }

// usageErrorf reports a usage or I/O error (exit 2).
func usageErrorf(format string, args ...any) error {
	return &usageError{err: fmt.Errorf(format, args...)}
}

// asUsage makes err a usage or I/O error (exit 2) with an optional hint.
func asUsage(err error, hint string) error {
	return &usageError{err: err, hint: hint}
}

// helpHint is the hint every usage error of cmd's own syntax carries.
func helpHint(cmd *cobra.Command) string {
	return fmt.Sprintf("See '%s --help'.", cmd.CommandPath())
}

// typedArgs wraps a command's argument check so that its error is a
// *usageError with the command's help hint, like a flag error.
func typedArgs(cmd *cobra.Command) {
	check := cmd.Args
	if check == nil {
		check = cobra.ArbitraryArgs
	}
	cmd.Args = func(c *cobra.Command, args []string) error {
		if err := check(c, args); err != nil {
			return &usageError{err: err, hint: helpHint(c)}
		}
		return nil
	}
}

// env is the process environment as a map. Only cmd/kitsmith reads it.
type env map[string]string

func envOf(list []string) env {
	m := env{}
	for _, kv := range list {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}

// rootOptions holds what every command shares.
type rootOptions struct {
	env env
}

func newRootCmd(ro *rootOptions) *cobra.Command {
	root := &cobra.Command{
		Use:   "kitsmith",
		Short: "Validate, lint, build and publish Docker Sandboxes kits (spec v3)",
		Long: `kitsmith takes a Docker Sandboxes kit (descriptor spec v3) from source to a
signed, published kit image.

  kit sources   validate, lint (--fix); migrate (a v2 kit); schema, lsp (for editors)
  kit images    build (from sources); inspect; check (against the specification)
  signatures    sign, verify (Sigstore, as cosign v3 does)
  release       publish: validate, lint, build, check, push, sign, verify, tag
  review        diff (what an update widens); resolve (a composition of kits)

A first run, on a kit directory:
  kitsmith validate kits/tool && kitsmith lint kits/tool
  kitsmith build --output oci:out/tool kits/tool
  kitsmith check oci:out/tool

Exit codes: 0 ok; 1 an invalid kit, findings at or above the fail level, or a
failed build, check or verification; 2 usage, configuration or I/O error (an
unreachable or refusing registry too), or interrupted.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &usageError{err: err, hint: helpHint(c)}
	})
	// The root runs so that an unknown command is a typed usage error
	// rather than cobra's plain one.
	root.SuggestionsMinimumDistance = 2
	root.Args = func(c *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		msg := fmt.Sprintf("unknown command %q for %q", args[0], c.CommandPath())
		if s := c.SuggestionsFor(args[0]); len(s) > 0 {
			msg += "; did you mean " + strings.Join(s, " or ") + "?"
		}
		return &usageError{err: errors.New(msg), hint: helpHint(c)}
	}
	// --version prints what kitsmith version prints (cobra's own Version
	// field would print one line only).
	showVersion := root.Flags().Bool("version", false, "print kitsmith's version, commit, date and Go version")
	root.RunE = func(c *cobra.Command, _ []string) error {
		if *showVersion {
			writeVersion(c.OutOrStdout(), version.Get())
			return nil
		}
		return c.Help()
	}
	root.AddCommand(
		newInitCmd(ro),
		newValidateCmd(ro),
		newLintCmd(ro),
		newBuildCmd(ro),
		newInspectCmd(ro),
		newCheckCmd(ro),
		newSignCmd(ro),
		newVerifyCmd(ro),
		newPublishCmd(ro),
		newMigrateCmd(ro),
		newSchemaCmd(ro),
		newLspCmd(ro),
		newDiffCmd(ro),
		newResolveCmd(ro),
		newVersionCmd(ro),
		newTestCmd(ro),
		newShimCmd(ro),
	)
	for _, c := range root.Commands() {
		typedArgs(c)
	}
	return root
}

// gcDefaults sets the collector's defaults for a run, gcPercent and
// memoryLimit, where e sets no GOGC or GOMEMLIMIT, and returns the
// function that restores the previous settings.
func gcDefaults(e env) (restore func()) {
	var undo []func()
	if _, set := e["GOGC"]; !set {
		// A kitsmith run is short and its heap small: collecting less often
		// saves about a third of a cold validate or lint run's CPU time.
		prev := debug.SetGCPercent(gcPercent)
		undo = append(undo, func() { debug.SetGCPercent(prev) })
	}
	if _, set := e["GOMEMLIMIT"]; !set {
		prev := debug.SetMemoryLimit(memoryLimit)
		undo = append(undo, func() { debug.SetMemoryLimit(prev) })
	}
	return func() {
		for _, f := range undo {
			f()
		}
	}
}

// run executes the command line args and returns the exit code.
func run(ctx context.Context, args []string, e env, stdout, stderr io.Writer) int {
	defer gcDefaults(e)()
	ro := &rootOptions{env: e}
	root := newRootCmd(ro)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err != nil && ctx.Err() != nil {
		// Interrupted: whatever failed, it failed because of the signal.
		fmt.Fprintln(stderr, "kitsmith: interrupted; nothing more was written")
		return exitUsage
	}
	if err == nil {
		return exitOK
	}
	var ue *usageError
	var ee *exitError
	switch {
	case errors.As(err, &ue):
		if ue.err != nil {
			fmt.Fprintf(stderr, "kitsmith: %s\n", textsafe.String(ue.err.Error()))
		}
		if ue.hint != "" {
			fmt.Fprintln(stderr, ue.hint)
		}
		printArgHint(stderr, err)
		return exitUsage
	case errors.As(err, &ee):
		if ee.err != nil {
			fmt.Fprintf(stderr, "kitsmith: %s\n", textsafe.String(ee.err.Error()))
		}
		printArgHint(stderr, err)
		return ee.code
	}
	fmt.Fprintf(stderr, "kitsmith: %s\n", textsafe.String(err.Error()))
	printArgHint(stderr, err)
	return exitFindings
}

// printArgHint names the flag that supplies the value a kit arg lacks
// (a *spec.ArgValueError, whose text names none): --kit-arg for a
// create-phase arg, --build-arg for a build-phase one.
func printArgHint(w io.Writer, err error) {
	var ae *spec.ArgValueError
	if !errors.As(err, &ae) {
		return
	}
	flag := "--kit-arg"
	if ae.Phase == spec.PhaseBuild {
		flag = "--build-arg"
	}
	fmt.Fprintf(w, "Pass it with %s %s=….\n", flag, textsafe.String(ae.Name))
}
