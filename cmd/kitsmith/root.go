package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// gcPercent is the garbage collector target of a run, unless GOGC is set.
const gcPercent = 400

// Exit codes.
const (
	exitOK       = 0
	exitFindings = 1
	exitUsage    = 2
)

// exitError carries an exit code; a nil err means "say nothing more".
type exitError struct {
	code int
	err  error
	hint string // printed on its own line after err
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

// usageErrorf reports a usage or I/O error (exit 2).
func usageErrorf(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
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
published artifact. It validates descriptors against the specification, lints
them for the pitfalls that fail silently inside a sandbox, and builds the kit
image through BuildKit.

Exit codes: 0 ok; 1 an invalid kit, findings at or above the fail level, or a
failed build/check; 2 usage, configuration or I/O error.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &exitError{code: exitUsage, err: err, hint: fmt.Sprintf("See '%s --help'.", c.CommandPath())}
	})
	root.AddCommand(
		newValidateCmd(ro),
		newLintCmd(ro),
		newBuildCmd(ro),
		newInspectCmd(ro),
		newCheckCmd(ro),
		newSchemaCmd(ro),
		newDiffCmd(ro),
		newResolveCmd(ro),
		newVersionCmd(ro),
	)
	return root
}

// run executes the command line args and returns the exit code.
func run(ctx context.Context, args []string, e env, stdout, stderr io.Writer) int {
	if _, set := e["GOGC"]; !set {
		// A kitsmith run is short and its heap small: collecting less often
		// saves about a third of a cold validate or lint run's CPU time.
		defer debug.SetGCPercent(debug.SetGCPercent(gcPercent))
	}
	ro := &rootOptions{env: e}
	root := newRootCmd(ro)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintf(stderr, "kitsmith: %v\n", ee.err)
		}
		if ee.hint != "" {
			fmt.Fprintln(stderr, ee.hint)
		}
		return ee.code
	}
	fmt.Fprintf(stderr, "kitsmith: %v\n", err)
	if isUsageError(err) {
		fmt.Fprintf(stderr, "Run 'kitsmith --help' for usage.\n")
		return exitUsage
	}
	return exitFindings
}

// isUsageError recognises cobra's argument and command errors, which it
// returns as plain errors.
func isUsageError(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand", "accepts ", "requires at least", "requires at most", "invalid argument", "flag needs an argument"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}
