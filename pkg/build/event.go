package build

import (
	"context"
	"time"

	"github.com/moby/buildkit/client"
	digest "github.com/opencontainers/go-digest"
)

// Event is one progress update of a build. Exactly one of Status and Step
// is set.
type Event struct {
	// Status is BuildKit's own progress (vertexes, statuses, logs,
	// warnings) for the part of the build that runs in the daemon.
	Status *client.SolveStatus
	// Step is one of kitsmith's own steps (publishing the descriptor,
	// assembling in-process, checking, writing an output): first sent when
	// it starts, again when it completes.
	Step *Step
}

// Step is one of kitsmith's own build steps.
type Step struct {
	// ID identifies the step within the build; its start and completion
	// carry the same ID.
	ID string
	// Name is what the step does, e.g. "[kitsmith] check the artifact".
	Name string
	// Started is when the step started.
	Started time.Time
	// Completed is when it completed, or zero while it runs.
	Completed time.Time
	// Err is why it failed, or "" when it succeeded or still runs.
	Err string
}

// SolveStatus returns the event as BuildKit progress, so that a progressui
// display renders kitsmith's steps beside BuildKit's vertexes.
func (e Event) SolveStatus() *client.SolveStatus {
	if e.Status != nil {
		return e.Status
	}
	if e.Step == nil {
		return &client.SolveStatus{}
	}
	s := e.Step
	started := s.Started
	v := &client.Vertex{Digest: digest.FromString("kitsmith:" + s.ID), Name: s.Name, Started: &started, Error: s.Err}
	if !s.Completed.IsZero() {
		completed := s.Completed
		v.Completed = &completed
	}
	return &client.SolveStatus{Vertexes: []*client.Vertex{v}}
}

// progress sends events to the caller's channel, if any, without blocking
// past ctx.
type progress struct {
	ch chan<- Event
}

func (p progress) send(ctx context.Context, e Event) {
	if p.ch == nil {
		return
	}
	select {
	case p.ch <- e:
	case <-ctx.Done():
	}
}

// step reports the start of a step and returns the function that reports
// its end (with the error it ended with, nil for success).
func (p progress) step(ctx context.Context, id, name string) func(error) {
	if p.ch == nil {
		return func(error) {}
	}
	s := Step{ID: id, Name: name, Started: time.Now()}
	start := s
	p.send(ctx, Event{Step: &start})
	return func(err error) {
		done := s
		done.Completed = time.Now()
		if err != nil {
			done.Err = err.Error()
		}
		p.send(ctx, Event{Step: &done})
	}
}

// forward relays BuildKit progress from ch until it is closed, or until
// returned is closed (the solver returned without closing ch).
func (p progress) forward(ctx context.Context, ch <-chan *client.SolveStatus, returned <-chan struct{}) {
	for {
		select {
		case s, ok := <-ch:
			if !ok {
				return
			}
			p.send(ctx, Event{Status: s})
		case <-returned:
			return
		}
	}
}
