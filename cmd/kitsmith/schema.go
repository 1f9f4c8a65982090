package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kitsmith/kitsmith/schemas"
)

type schemaOptions struct {
	outDir string
	list   bool
}

func newSchemaCmd(_ *rootOptions) *cobra.Command {
	o := &schemaOptions{}
	cmd := &cobra.Command{
		Use:   "schema [flags] [NAME]",
		Short: "Write the embedded JSON Schema of the kit descriptor",
		Long: `Write the JSON Schema (draft 2020-12) that kitsmith validates descriptors
against, for editors and yaml-language-server.

Without arguments it prints kit.schema.json. NAME selects another file, e.g.
"capabilities/com.docker.sandbox/credential@1.schema.json" or just
"credential@1"; "config" is the schema of kitsmith lint's .kitsmith.yaml.
--output DIR writes every file, keeping the layout and without their $id,
so the relative $refs between them resolve inside DIR: editors validate
offline.

Editors pick the schema up from a modeline on line 2 of the descriptor, the
published copy of release ` + schemas.Tag + `:

  # syntax=docker/sandbox-kit:3
  # yaml-language-server: $schema=` + schemas.BaseURL + schemas.Root + `

or, offline, the files --output wrote (a path relative to the descriptor):

  # yaml-language-server: $schema=../.schemas/kit.schema.json

Exit status: 0 written, 2 usage or I/O error (no schema of that name).`,
		Example: `  kitsmith schema > kit.schema.json
  kitsmith schema credential@1
  kitsmith schema config > .schemas/kitsmith-config.schema.json
  kitsmith schema --list
  kitsmith schema --output .schemas/`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			files, err := schemaFiles()
			if err != nil {
				return err
			}
			switch {
			case o.list && (len(args) > 0 || o.outDir != ""):
				return usageErrorf("--list lists every schema file; name none and drop --output")
			case o.list:
				for _, f := range files {
					fmt.Fprintln(cmd.OutOrStdout(), f)
				}
				return nil
			case o.outDir != "":
				if len(args) > 0 {
					return usageErrorf("--output writes every schema file; do not name one")
				}
				return writeSchemas(o.outDir, files)
			}
			name := schemas.Root
			if len(args) == 1 {
				if name, err = findSchema(files, args[0]); err != nil {
					return err
				}
			}
			b, err := fs.ReadFile(schemas.FS(), name)
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(b)
			return err
		},
	}
	cmd.Flags().StringVarP(&o.outDir, "output", "o", "", "write every schema file into this directory")
	cmd.Flags().BoolVar(&o.list, "list", false, "list the embedded schema files")
	return cmd
}

func schemaFiles() ([]string, error) {
	var files []string
	err := fs.WalkDir(schemas.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".json") {
			files = append(files, p)
		}
		return nil
	})
	return files, err
}

func findSchema(files []string, name string) (string, error) {
	for _, f := range files {
		if f == name || strings.TrimSuffix(filepath.Base(f), ".schema.json") == name || filepath.Base(f) == name {
			return f, nil
		}
	}
	// A name without its version: suggest the versions there are
	// (network-policy → network-policy@1, network-policy@2).
	var versions []string
	for _, f := range files {
		base := strings.TrimSuffix(filepath.Base(f), ".schema.json")
		if stem, _, ok := strings.Cut(base, "@"); ok && (stem == name || strings.HasSuffix(name, "/"+stem)) {
			versions = append(versions, base)
		}
	}
	if len(versions) > 0 {
		return "", usageErrorf("no embedded schema named %q; capability schemas carry their version: did you mean %s?", name, strings.Join(versions, " or "))
	}
	return "", usageErrorf("no embedded schema named %q; see 'kitsmith schema --list'", name)
}

// idLine is a schema file's "$id" member on a line of its own.
var idLine = regexp.MustCompile(`(?m)^[ \t]*"\$id":[ \t]*"[^"]*",?[ \t]*\r?\n`)

// offlineSchema returns a schema file without its $id: its relative $refs
// then resolve against where the file is, not against the published URL.
func offlineSchema(b []byte) []byte { return idLine.ReplaceAll(b, nil) }

func writeSchemas(dir string, files []string) error {
	for _, f := range files {
		b, err := fs.ReadFile(schemas.FS(), f)
		if err != nil {
			return err
		}
		b = offlineSchema(b)
		dst := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return usageErrorf("writing schemas: %w", err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			return usageErrorf("writing schemas: %w", err)
		}
	}
	return nil
}
