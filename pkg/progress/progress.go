// Package progress is the one shape of progress kitsmith's long operations
// report: build, sign and publish send Events on a caller's channel, and the
// command renders them once, through BuildKit's progressui.
//
// It is a leaf: it imports no other kitsmith package, so every package that
// does long work can report through it without depending on another.
package progress

import (
	"context"
	"time"

	"github.com/moby/buildkit/client"
	digest "github.com/opencontainers/go-digest"
)

// Event is one progress update. Exactly one of Status and Step is set.
type Event struct {
	// Status is BuildKit's own progress (vertexes, statuses, logs,
	// warnings) for the part of a build that runs in the daemon.
	Status *client.SolveStatus
	// Step is one of kitsmith's own steps (publishing the descriptor,
	// checking, pushing, signing): first sent when it starts, again when it
	// completes.
	Step *Step
}

// Step is one of kitsmith's own steps.
type Step struct {
	// ID identifies the step within the operation; its start and completion
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

// Reporter sends events to a caller's channel without blocking past the
// context. The zero Reporter (nil channel) drops every event.
type Reporter struct {
	ch chan<- Event
}

// NewReporter returns a Reporter that sends on ch; nil ch drops events.
func NewReporter(ch chan<- Event) Reporter { return Reporter{ch: ch} }

// Enabled reports whether events reach a channel, so that a producer can
// skip work whose only purpose is progress.
func (r Reporter) Enabled() bool { return r.ch != nil }

// Send sends e, or gives up when ctx is done.
func (r Reporter) Send(ctx context.Context, e Event) {
	if r.ch == nil {
		return
	}
	select {
	case r.ch <- e:
	case <-ctx.Done():
	}
}

// Step reports the start of a step and returns the function that reports
// its end, with the error it ended with (nil for success).
func (r Reporter) Step(ctx context.Context, id, name string) func(error) {
	if r.ch == nil {
		return func(error) {}
	}
	s := Step{ID: id, Name: name, Started: time.Now()}
	start := s
	r.Send(ctx, Event{Step: &start})
	return func(err error) {
		done := s
		done.Completed = time.Now()
		if err != nil {
			done.Err = err.Error()
		}
		r.Send(ctx, Event{Step: &done})
	}
}

// Forward relays BuildKit progress from ch until it is closed, or until
// returned is closed (the solver returned without closing ch).
func (r Reporter) Forward(ctx context.Context, ch <-chan *client.SolveStatus, returned <-chan struct{}) {
	for {
		select {
		case s, ok := <-ch:
			if !ok {
				return
			}
			r.Send(ctx, Event{Status: s})
		case <-returned:
			return
		}
	}
}
