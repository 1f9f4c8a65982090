// Command kitsmith may use cobra and the process, but links a test harness.
package main

import (
	"fmt"
	"os"

	_ "github.com/kitsmith/kitsmith/internal/testsvc/stack"
	_ "github.com/kitsmith/kitsmith/pkg/spec"
	_ "github.com/spf13/cobra"
)

func main() {
	fmt.Println(os.Args, os.Getenv("HOME"))
	os.Exit(0)
}
