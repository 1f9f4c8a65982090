// Package progress is the one shape of progress kitsmith's long operations
// report: build, sign and publish send Events on a caller's channel, and the
// command renders them once.
//
// It is a leaf: it imports no other kitsmith package and no build system,
// so every package that does long work can report through it without
// depending on another (signing does not link BuildKit). Its Status and
// Vertex types are kitsmith's own; pkg/build converts BuildKit's progress
// into them, and cmd/kitsmith renders them through BuildKit's progressui.
package progress

import (
	"context"
	"time"

	digest "github.com/opencontainers/go-digest"
)

// Event is one progress update. Exactly one of Status and Step is set.
type Event struct {
	// Status is a build system's own progress (vertexes, statuses, logs,
	// warnings) for the part of a build that runs in the daemon.
	Status *Status
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

// Status is a build daemon's progress update: the vertexes (operations)
// of its build graph that changed, their progress, their output and the
// warnings they raised. It carries what BuildKit's client.SolveStatus
// carries for display, without the LLB definition of a warning's source.
type Status struct {
	Vertexes []*Vertex
	Statuses []*VertexStatus
	Logs     []*VertexLog
	Warnings []*VertexWarning
}

// Vertex is one operation of a build graph.
type Vertex struct {
	// Digest identifies the vertex; Inputs are the vertexes it depends on.
	Digest digest.Digest
	Inputs []digest.Digest
	// Name is what it does, as the daemon names it.
	Name string
	// Started and Completed are nil until it started, or completed.
	Started, Completed *time.Time
	// Cached reports a result taken from the cache.
	Cached bool
	// Error is why it failed, or "".
	Error string
	// Group gathers vertexes displayed as one; nil for none.
	Group *Group
}

// Group is a display group of vertexes.
type Group struct {
	ID, Name string
	// Weak groups are shown as their members when those run apart.
	Weak bool
}

// VertexStatus is the progress of one task of a vertex (a layer pulled, a
// file copied).
type VertexStatus struct {
	ID     string
	Vertex digest.Digest
	Name   string
	// Current of Total units (bytes, usually); Total is 0 when unknown.
	Total, Current int64
	Timestamp      time.Time
	// Started and Completed are nil until it started, or completed.
	Started, Completed *time.Time
}

// VertexLog is output a vertex wrote: Stream 1 is stdout, 2 stderr.
type VertexLog struct {
	Vertex    digest.Digest
	Stream    int
	Data      []byte
	Timestamp time.Time
}

// VertexWarning is a warning a vertex raised.
type VertexWarning struct {
	Vertex digest.Digest
	Level  int
	Short  []byte
	Detail [][]byte
	URL    string
	// Source is the file the warning is about, nil for none; Ranges are
	// where in it.
	Source *Source
	Ranges []Range
}

// Source is a file a build reads, as a warning quotes it.
type Source struct {
	Filename string
	Data     []byte
	Language string
}

// Range is a span of a Source, from Start to End.
type Range struct{ Start, End Position }

// Position is a line and column (character) in a Source.
type Position struct{ Line, Character int32 }

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
