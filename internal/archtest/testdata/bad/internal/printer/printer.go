// Package printer is an internal package that writes to the process's streams.
package printer

import (
	_ "github.com/spf13/cobra"
	"os"
)

var out = os.Stdout
