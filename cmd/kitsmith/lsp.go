package main

import (
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/kitsmith/kitsmith/internal/version"
	"github.com/kitsmith/kitsmith/pkg/lsp"
)

// lspOptions are the flags of kitsmith lsp.
type lspOptions struct {
	stdio    bool
	debounce time.Duration
	verbose  bool
}

func newLspCmd(_ *rootOptions) *cobra.Command {
	o := &lspOptions{}
	cmd := &cobra.Command{
		Use:   "lsp",
		Short: "Run the kit language server on stdin and stdout",
		Long: `Run kitsmith's language server (the Language Server Protocol, on stdin and
stdout) for editors: lint diagnostics as you type, for kit descriptors,
companion Dockerfiles and comment descriptors, under the .kitsmith.yaml found
upward from each kit; code actions from lint's fixes (the safe ones together
as source.fixAll.kitsmith); hover for rule ids, capability types, descriptor
keys and ${{ kit.args.NAME }}; completion of capability types, keys and arg
names; go to definition from an arg reference to its declaration.

docs/editors.md shows how to configure Neovim, VS Code, Helix and Zed.

Exit status: 0 when the client disconnects, 2 usage error.`,
		Example: `  kitsmith lsp                 # what an editor starts
  kitsmith lsp --debounce 50ms`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.debounce < 0 {
				return usageErrorf("--debounce must not be negative, not %s", o.debounce)
			}
			var logw io.Writer
			if o.verbose {
				logw = cmd.ErrOrStderr()
			}
			stream := stdio{r: cmd.InOrStdin(), w: cmd.OutOrStdout()}
			return lsp.Serve(cmd.Context(), stream, lsp.Options{Name: "kitsmith", Version: version.Get().Version, Debounce: o.debounce, Log: logw})
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.stdio, "stdio", true, "serve on stdin and stdout (the only transport; accepted for clients that pass it)")
	f.DurationVar(&o.debounce, "debounce", lsp.DefaultDebounce, "wait this long after the last change before linting")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "log the server's messages to stderr")
	return cmd
}

// stdio is the server's stream: the command's input and output.
type stdio struct {
	r io.Reader
	w io.Writer
}

func (s stdio) Read(p []byte) (int, error)  { return s.r.Read(p) }
func (s stdio) Write(p []byte) (int, error) { return s.w.Write(p) }
func (s stdio) Close() error                { return nil }
