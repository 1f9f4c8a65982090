package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kitsmith/kitsmith/internal/version"
)

func newVersionCmd(_ *rootOptions) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:     "version",
		Short:   "Print kitsmith's version",
		Args:    cobra.NoArgs,
		Example: "  kitsmith version\n  kitsmith version --format json",
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := version.Get()
			switch format {
			case "text":
				fmt.Fprintf(cmd.OutOrStdout(), "%s %s", v.Name, v.Version)
				if v.Revision != "" {
					fmt.Fprintf(cmd.OutOrStdout(), " (%s)", v.Revision)
				}
				fmt.Fprintln(cmd.OutOrStdout())
				return nil
			case "json":
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(v)
			}
			return usageErrorf("--format must be text or json, not %q", format)
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"text", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}
