package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/kitsmith/kitsmith/internal/shim"
)

// newShimCmd is the hidden command kitsmith test runs inside its
// container: `__shim serve` (name resolution and the two egress paths)
// and `__shim exec` (the hook wrapper). It is not for people.
func newShimCmd(_ *rootOptions) *cobra.Command {
	return &cobra.Command{
		Use:                "__shim",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runShim(cmd.Context(), args, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
}

func runShim(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageErrorf("__shim needs serve or exec")
	}
	fs := flag.NewFlagSet("__shim "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	switch args[0] {
	case "serve":
		socket := fs.String("socket", "", "the enforcing proxy's unix socket")
		ports := fs.String("ports", "80,443", "transparent ports")
		if err := fs.Parse(args[1:]); err != nil {
			return usageErrorf("%v", err)
		}
		c := shim.ServeConfig{Socket: *socket, Forward: "127.0.0.1:3128", DNS: "127.0.0.1:53"}
		for _, p := range strings.Split(*ports, ",") {
			n, err := strconv.Atoi(p)
			if err != nil {
				return usageErrorf("--ports: %v", err)
			}
			c.Ports = append(c.Ports, n)
		}
		return shim.Serve(ctx, c, func() { fmt.Fprintln(stdout, "ready") })
	case "exec":
		nonce := fs.String("nonce", "", "the run's nonce")
		var walk multiFlag
		fs.Var(&walk, "walk", "a tree to compare before and after (repeatable)")
		if err := fs.Parse(args[1:]); err != nil {
			return usageErrorf("%v", err)
		}
		if fs.NArg() == 0 {
			return usageErrorf("__shim exec needs a command after --")
		}
		// The hook's environment is this process's own, passed through.
		sctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM)
		defer stop()
		shim.Exec(sctx, *nonce, walk, fs.Args(), os.Stdout)
		return nil
	}
	return usageErrorf("__shim: unknown %q", args[0])
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }
