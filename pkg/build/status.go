package build

import (
	"context"

	"github.com/moby/buildkit/client"
	"github.com/moby/buildkit/solver/pb"

	"github.com/kitsmith/kitsmith/pkg/progress"
)

// forward relays BuildKit progress from ch to p, as kitsmith's own
// progress.Status, until ch is closed, or until returned is closed (the
// solver returned without closing ch).
func forward(ctx context.Context, p progress.Reporter, ch <-chan *client.SolveStatus, returned <-chan struct{}) {
	for {
		select {
		case s, ok := <-ch:
			if !ok {
				return
			}
			p.Send(ctx, progress.Event{Status: statusOf(s)})
		case <-returned:
			return
		}
	}
}

// statusOf converts BuildKit's progress into kitsmith's; nil stays nil.
func statusOf(s *client.SolveStatus) *progress.Status {
	if s == nil {
		return nil
	}
	out := &progress.Status{}
	for _, v := range s.Vertexes {
		if v == nil {
			continue
		}
		pv := &progress.Vertex{
			Digest: v.Digest, Inputs: v.Inputs, Name: v.Name, Started: v.Started, Completed: v.Completed,
			Cached: v.Cached, Error: v.Error,
		}
		if g := v.ProgressGroup; g != nil {
			pv.Group = &progress.Group{ID: g.Id, Name: g.Name, Weak: g.Weak}
		}
		out.Vertexes = append(out.Vertexes, pv)
	}
	for _, st := range s.Statuses {
		if st == nil {
			continue
		}
		out.Statuses = append(out.Statuses, &progress.VertexStatus{
			ID: st.ID, Vertex: st.Vertex, Name: st.Name, Total: st.Total, Current: st.Current,
			Timestamp: st.Timestamp, Started: st.Started, Completed: st.Completed,
		})
	}
	for _, l := range s.Logs {
		if l == nil {
			continue
		}
		out.Logs = append(out.Logs, &progress.VertexLog{Vertex: l.Vertex, Stream: l.Stream, Data: l.Data, Timestamp: l.Timestamp})
	}
	for _, w := range s.Warnings {
		if w == nil {
			continue
		}
		pw := &progress.VertexWarning{Vertex: w.Vertex, Level: w.Level, Short: w.Short, Detail: w.Detail, URL: w.URL}
		if si := w.SourceInfo; si != nil {
			pw.Source = &progress.Source{Filename: si.Filename, Data: si.Data, Language: si.Language}
		}
		for _, r := range w.Range {
			if r != nil {
				pw.Ranges = append(pw.Ranges, progress.Range{Start: position(r.Start), End: position(r.End)})
			}
		}
		out.Warnings = append(out.Warnings, pw)
	}
	return out
}

func position(p *pb.Position) progress.Position {
	if p == nil {
		return progress.Position{}
	}
	return progress.Position{Line: p.Line, Character: p.Character}
}
