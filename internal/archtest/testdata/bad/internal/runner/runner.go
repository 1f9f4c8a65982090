// Package runner is the one internal package allowed to run programs.
package runner

import "os/exec"

// Run runs true.
func Run() error { return exec.Command("true").Run() }
