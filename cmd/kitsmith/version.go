package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kitsmith/kitsmith/internal/version"
)

func newVersionCmd(_ *rootOptions) *cobra.Command {
	f := newFormatFlag("text", "json")
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print kitsmith's version",
		Long: `Print kitsmith's version, the VCS revision it was built from when known and,
with --format json, the Go version.

Exit status: 0 printed, 2 usage error.`,
		Args:    cobra.NoArgs,
		Example: "  kitsmith version\n  kitsmith version --format json",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.validate(); err != nil {
				return err
			}
			v := version.Get()
			if !f.json() {
				fmt.Fprintf(cmd.OutOrStdout(), "%s %s", v.Name, v.Version)
				if v.Revision != "" {
					fmt.Fprintf(cmd.OutOrStdout(), " (%s)", v.Revision)
				}
				fmt.Fprintln(cmd.OutOrStdout())
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
