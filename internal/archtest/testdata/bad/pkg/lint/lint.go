// Package lint plants process-level calls, through an aliased import too.
package lint

import (
	"fmt"
	"log"
	sys "os"
	"os/exec"

	_ "github.com/kitsmith/kitsmith/pkg/spec"
)

func home() string {
	return sys.Getenv("HOME")
}

func noisy() {
	fmt.Println("hello")
	log.Printf("hello")
}

func run() error {
	return exec.Command("true").Run()
}
