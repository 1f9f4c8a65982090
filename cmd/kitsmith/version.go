package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/kitsmith/kitsmith/internal/version"
)

func newVersionCmd(_ *rootOptions) *cobra.Command {
	f := newFormatFlag("text", "json")
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print kitsmith's version",
		Long: `Print kitsmith's version, the commit it was built from and that commit's date
(when known), and the Go version and platform it was built with. A release
binary carries the values GoReleaser stamped; a go install or go build binary
reports what Go recorded in it (the module version, vcs.revision, vcs.time).
kitsmith --version prints the same text.

Exit status: 0 printed, 2 usage error.`,
		Args:    cobra.NoArgs,
		Example: "  kitsmith version\n  kitsmith version --format json",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.validate(); err != nil {
				return err
			}
			v := version.Get()
			if !f.json() {
				writeVersion(cmd.OutOrStdout(), v)
				return nil
			}
			enc := json.NewEncoder(cmd.OutOrStdout())
			enc.SetIndent("", "  ")
			return enc.Encode(v.Document())
		},
	}
	f.AddFlags(cmd)
	return cmd
}

// writeVersion prints the text of kitsmith version and --version:
//
//	kitsmith v1.2.0
//	  commit:  0123abcd… (modified)
//	  date:    2026-11-30T10:00:00Z
//	  go:      go1.26.8 linux/amd64
func writeVersion(w io.Writer, v version.Info) {
	fmt.Fprintf(w, "%s %s\n", v.Name, v.Version)
	commit := v.Revision
	if commit == "" {
		commit = "unknown"
	}
	if v.Modified {
		commit += " (modified)"
	}
	date := v.Date
	if date == "" {
		date = "unknown"
	}
	goVersion := v.Go
	if goVersion == "" {
		goVersion = "unknown"
	}
	fmt.Fprintf(w, "  commit:  %s\n  date:    %s\n  go:      %s %s/%s\n", commit, date, goVersion, runtime.GOOS, runtime.GOARCH)
}
