package main

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/moby/buildkit/client"
	// Register the builder address schemes beyond unix:// and tcp://.
	_ "github.com/moby/buildkit/client/connhelper/dockercontainer"
	_ "github.com/moby/buildkit/client/connhelper/kubepod"
	_ "github.com/moby/buildkit/client/connhelper/podmancontainer"
	_ "github.com/moby/buildkit/client/connhelper/ssh"
	gateway "github.com/moby/buildkit/frontend/gateway/client"
	"github.com/spf13/cobra"

	"github.com/kitsmith/kitsmith/pkg/build"
)

// defaultBuilder is BuildKit's default daemon address.
const defaultBuilder = "unix:///run/buildkit/buildkitd.sock"

// builderFlags is the flag group that selects and authenticates the
// BuildKit daemon: --builder and --tls*. newSolver turns it into a
// build.Solver.
type builderFlags struct {
	addr       string
	caCert     string
	cert       string
	key        string
	serverName string
}

// AddFlags registers the group's flags and completions on cmd.
func (b *builderFlags) AddFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&b.addr, "builder", "", "BuildKit daemon address: "+strings.Join(builderSchemes(), ", ")+" (default $BUILDKIT_HOST, else "+defaultBuilder+")")
	f.StringVar(&b.caCert, "tlscacert", "", "CA certificate to verify a tcp:// builder with")
	f.StringVar(&b.cert, "tlscert", "", "client certificate for a tcp:// builder")
	f.StringVar(&b.key, "tlskey", "", "client key for a tcp:// builder")
	f.StringVar(&b.serverName, "tlsservername", "", "server name to verify the builder's certificate against (default: the address's host)")
	_ = cmd.MarkFlagFilename("tlscacert", "pem", "crt")
	_ = cmd.MarkFlagFilename("tlscert", "pem", "crt")
	_ = cmd.MarkFlagFilename("tlskey", "pem", "key")
	_ = cmd.RegisterFlagCompletionFunc("builder", cobra.FixedCompletions(builderSchemes(), cobra.ShellCompDirectiveNoSpace))
}

func (b *builderFlags) validate() error {
	if (b.cert == "") != (b.key == "") {
		return usageErrorf("--tlscert and --tlskey go together")
	}
	if u, err := url.Parse(b.addr); b.addr != "" && (err != nil || !slices.Contains(builderSchemes(), u.Scheme+"://")) {
		return usageErrorf("--builder %q is not a BuildKit address: write %s, e.g. %s", b.addr, orList(builderSchemes()), defaultBuilder)
	}
	return nil
}

// builderSchemes are the address schemes --builder takes.
func builderSchemes() []string {
	return []string{"unix://", "tcp://", "docker-container://", "podman-container://", "kube-pod://", "ssh://"}
}

// newSolver returns a solver that connects to the builder the flags (or
// BUILDKIT_HOST in e) name on first use, so that a kit built in-process
// needs no daemon. Close it when done.
func (b *builderFlags) newSolver(e env) *lazySolver {
	return &lazySolver{flags: *b, env: e}
}

// lazySolver connects to the builder on first use.
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
