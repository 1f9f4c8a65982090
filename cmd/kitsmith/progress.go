package main

import (
	"context"
	"fmt"
	"io"

	"github.com/moby/buildkit/client"
	"github.com/moby/buildkit/util/progress/progressui"

	"github.com/kitsmith/kitsmith/pkg/progress"
)

// start renders events on w in the mode --progress chose, through
// BuildKit's progressui, until the producer closes events. wait returns
// once the display has drawn the last event. A display that cannot be made
// (tty on a non-terminal) is a usage error, reported before anything runs.
//
// Build, sign and publish all report on a channel of progress.Event, so
// every command renders progress with this one function.
func (p *progressFlag) start(ctx context.Context, w io.Writer, events <-chan progress.Event) (wait func(), err error) {
	disp, err := progressui.NewDisplay(w, progressui.DisplayMode(p.mode))
	if err != nil {
		if p.mode == "tty" {
			return nil, &usageError{err: fmt.Errorf("--progress tty: %v", err), hint: "stderr is not a terminal here: use --progress plain (or auto, which picks plain when there is no terminal)."}
		}
		return nil, usageErrorf("--progress %s: %v", p.mode, err)
	}
	statuses := make(chan *client.SolveStatus)
	done := make(chan struct{})
	go func() {
		defer close(statuses)
		for e := range events {
			statuses <- e.SolveStatus()
		}
	}()
	go func() {
		defer close(done)
		// The display ends when statuses is closed; its error (a closed
		// terminal) is no reason to fail the command.
		_, _ = disp.UpdateFrom(context.WithoutCancel(ctx), statuses)
		for range statuses { // keep the producer unblocked if the display stopped early
		}
	}()
	return func() { <-done }, nil
}
