package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/template"

	"github.com/spf13/cobra"
)

// initOptions are the flags and argument of kitsmith init.
type initOptions struct {
	kind string
	dir  string
}

func newInitCmd(_ *rootOptions) *cobra.Command {
	o := &initOptions{}
	cmd := &cobra.Command{
		Use:   "init [flags] DIR",
		Short: "Write a lint-clean starting kit into a new directory",
		Long: `Init writes a starting kit into DIR, named after DIR: the descriptor
DIR/<name>.yaml with the syntax line, metadata, a network policy and one
lifecycle hook with its env: list, and for a workload the companion recipe
DIR/<name>.dockerfile. kitsmith lint finds nothing in it; edit it from there
(docs/authoring.md walks through every part).

DIR must not exist or be empty: init never overwrites.

Exit status: 0 written, 2 usage error (a non-empty DIR, a name that is not
a valid kit name) or I/O error.`,
		Example: `  kitsmith init kits/notes                     # a mixin; then: kitsmith lint kits/notes
  kitsmith init --kind workload kits/notes-agent`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.dir = args[0]
			if err := o.validate(); err != nil {
				return err
			}
			return o.run(cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&o.kind, "kind", "mixin", "kind of kit: mixin (adds to a sandbox) or workload (an agent image with its recipe)")
	_ = cmd.RegisterFlagCompletionFunc("kind", cobra.FixedCompletions([]string{"mixin", "workload"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// kitNameRE is what init accepts as a kit name: the DIR's base name.
var kitNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*[a-z0-9]$|^[a-z0-9]$`)

func (o *initOptions) validate() error {
	if o.kind != "mixin" && o.kind != "workload" {
		return usageErrorf("--kind must be mixin or workload, not %q", o.kind)
	}
	name := filepath.Base(filepath.Clean(o.dir))
	if !kitNameRE.MatchString(name) {
		return usageErrorf("%q is not a kit name: the directory's name becomes the kit's, in lower case letters, digits and dashes (kits/notes)", name)
	}
	entries, err := os.ReadDir(o.dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return usageErrorf("init %s: %w", o.dir, err)
	case len(entries) > 0:
		return &usageError{err: fmt.Errorf("%s is not empty (%d entries): init writes a kit into a new or empty directory and never overwrites", o.dir, len(entries)),
			hint: "Choose a new directory, e.g. kitsmith init " + filepath.Join(filepath.Dir(filepath.Clean(o.dir)), name+"-kit")}
	}
	return nil
}

// initTemplates are the files init writes, by kind: name → template.
func initTemplates(kind string) map[string]string {
	files := map[string]string{"{{.Name}}.yaml": initDescriptor}
	if kind == "workload" {
		files["{{.Name}}.dockerfile"] = initRecipe
	}
	return files
}

func (o *initOptions) run(out io.Writer) error {
	name := filepath.Base(filepath.Clean(o.dir))
	data := struct{ Name, Kind, Title string }{Name: name, Kind: o.kind, Title: titleOf(name)}
	if err := os.MkdirAll(o.dir, 0o755); err != nil {
		return usageErrorf("init: %w", err)
	}
	var written []string
	for pathTmpl, bodyTmpl := range initTemplates(o.kind) {
		var p, body bytes.Buffer
		if err := template.Must(template.New("path").Parse(pathTmpl)).Execute(&p, data); err != nil {
			return err
		}
		if err := template.Must(template.New("body").Delims("[[", "]]").Parse(bodyTmpl)).Execute(&body, data); err != nil {
			return err
		}
		file := filepath.Join(o.dir, p.String())
		f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return usageErrorf("init: %w", err)
		}
		_, err = f.Write(body.Bytes())
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return usageErrorf("init: %w", err)
		}
		written = append(written, file)
	}
	slices.Sort(written)
	for _, f := range written {
		fmt.Fprintf(out, "wrote %s\n", f)
	}
	fmt.Fprintf(out, "next: kitsmith lint %s (then see docs/authoring.md)\n", o.dir)
	return nil
}

// titleOf turns notes-agent into "Notes agent".
func titleOf(name string) string {
	t := strings.ReplaceAll(name, "-", " ")
	return strings.ToUpper(t[:1]) + t[1:]
}

// initDescriptor is the starting descriptor ([[ ]] delimiters: the kit's
// own ${{ }} references pass through).
const initDescriptor = `# syntax=docker/sandbox-kit:3
# A starting [[.Kind]] kit written by kitsmith init. docs/authoring.md explains
# every field; the specification: https://github.com/docker/sandbox-kit-spec
schemaVersion: "3"
kind: [[.Kind]]
displayName: [[.Title]]
description: Say in one sentence what [[.Name]] gives an agent in its sandbox.
version: "0.1.0"
sourceUrl: https://example.com/kits/[[.Name]]
licenses: [Apache-2.0]
provides: [[printf "[%s]" .Name]]

args:
  greeting:
    description: What the startup hook prints
    default: hello
    env: KIT_GREETING

capabilities:
  # What the agent may reach, by phase: install (image build) and runtime.
  - type: com.docker.sandbox/network-policy@2
    config:
      runtime:
        allow: [api.example.com:443]
  # Hooks see only the variables their env: list names.
  - type: com.docker.sandbox/lifecycle@1
    config:
      startup:
        - command: echo "$KIT_GREETING from [[.Name]]"
          env: [KIT_GREETING]
`

// initRecipe is a workload's starting recipe: a pinned base and a command.
const initRecipe = `# syntax=docker/dockerfile:1
FROM debian:bookworm-slim@sha256:2bc5c236e9b262645a323e9088dfa3bb1ecb16cc75811daf40a23a824d665be9
RUN useradd -m -u 1000 agent
USER agent
CMD ["bash"]
`
