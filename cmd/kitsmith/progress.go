package main

import (
	"context"
	"fmt"
	"io"

	"github.com/moby/buildkit/client"
	"github.com/moby/buildkit/solver/pb"
	"github.com/moby/buildkit/util/progress/progressui"
	digest "github.com/opencontainers/go-digest"

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
			statuses <- solveStatus(e)
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

// solveStatus returns the event as BuildKit progress, so that a progressui
// display renders kitsmith's steps beside a build's vertexes: a build's
// own Status as it came from BuildKit, a Step as one vertex.
func solveStatus(e progress.Event) *client.SolveStatus {
	switch {
	case e.Status != nil:
		return buildkitStatus(e.Status)
	case e.Step == nil:
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

// buildkitStatus is s in BuildKit's types, the inverse of pkg/build's
// conversion.
func buildkitStatus(s *progress.Status) *client.SolveStatus {
	out := &client.SolveStatus{}
	for _, v := range s.Vertexes {
		cv := &client.Vertex{
			Digest: v.Digest, Inputs: v.Inputs, Name: v.Name, Started: v.Started, Completed: v.Completed,
			Cached: v.Cached, Error: v.Error,
		}
		if g := v.Group; g != nil {
			cv.ProgressGroup = &pb.ProgressGroup{Id: g.ID, Name: g.Name, Weak: g.Weak}
		}
		out.Vertexes = append(out.Vertexes, cv)
	}
	for _, st := range s.Statuses {
		out.Statuses = append(out.Statuses, &client.VertexStatus{
			ID: st.ID, Vertex: st.Vertex, Name: st.Name, Total: st.Total, Current: st.Current,
			Timestamp: st.Timestamp, Started: st.Started, Completed: st.Completed,
		})
	}
	for _, l := range s.Logs {
		out.Logs = append(out.Logs, &client.VertexLog{Vertex: l.Vertex, Stream: l.Stream, Data: l.Data, Timestamp: l.Timestamp})
	}
	for _, w := range s.Warnings {
		cw := &client.VertexWarning{Vertex: w.Vertex, Level: w.Level, Short: w.Short, Detail: w.Detail, URL: w.URL}
		if src := w.Source; src != nil {
			cw.SourceInfo = &pb.SourceInfo{Filename: src.Filename, Data: src.Data, Language: src.Language}
		}
		for _, r := range w.Ranges {
			cw.Range = append(cw.Range, &pb.Range{
				Start: &pb.Position{Line: r.Start.Line, Character: r.Start.Character},
				End:   &pb.Position{Line: r.End.Line, Character: r.End.Character},
			})
		}
		out.Warnings = append(out.Warnings, cw)
	}
	return out
}
