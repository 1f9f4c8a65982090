// Command kitsmith takes a Docker Sandboxes kit (spec v3) from source to a
// signed, published artifact: validate, lint, build, check.
//
// Exit codes: 0 success; 1 findings at or above the fail level, an invalid
// kit, or a failed build, check or verification; 2 usage, configuration or
// I/O error, or interrupted (Ctrl-C, SIGTERM).
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// After the first signal, a second one kills at once.
		<-ctx.Done()
		stop()
	}()
	code := run(ctx, os.Args[1:], envOf(os.Environ()), os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
