package main

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/moby/buildkit/client"
	"github.com/moby/buildkit/solver/pb"
	digest "github.com/opencontainers/go-digest"

	"github.com/kitsmith/kitsmith/pkg/progress"
)

// TestSolveStatus: kitsmith's steps render as one BuildKit vertex each,
// and a build's progress.Status as the BuildKit progress it came from, as
// the rawjson display prints it.
func TestSolveStatus(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	t1 := t0.Add(time.Second)
	v := digest.FromString("vertex")
	step := digest.FromString("kitsmith:kit/push")
	tests := []struct {
		name string
		in   progress.Event
		want *client.SolveStatus
	}{
		{"nothing", progress.Event{}, &client.SolveStatus{}},
		{"a step starts", progress.Event{Step: &progress.Step{ID: "kit/push", Name: "[kit] push", Started: t0}},
			&client.SolveStatus{Vertexes: []*client.Vertex{{Digest: step, Name: "[kit] push", Started: &t0}}}},
		{"a step fails", progress.Event{Step: &progress.Step{ID: "kit/push", Name: "[kit] push", Started: t0, Completed: t1, Err: "denied"}},
			&client.SolveStatus{Vertexes: []*client.Vertex{{Digest: step, Name: "[kit] push", Started: &t0, Completed: &t1, Error: "denied"}}}},
		{
			"a build's status",
			progress.Event{Status: &progress.Status{
				Vertexes: []*progress.Vertex{{Digest: v, Inputs: []digest.Digest{step}, Name: "RUN make", Started: &t0, Completed: &t1, Cached: true, Error: "exit 2",
					Group: &progress.Group{ID: "g", Name: "group", Weak: true}}},
				Statuses: []*progress.VertexStatus{{ID: "layer", Vertex: v, Name: "pulling", Total: 10, Current: 4, Timestamp: t0, Started: &t0, Completed: &t1}},
				Logs:     []*progress.VertexLog{{Vertex: v, Stream: 2, Data: []byte("x\n"), Timestamp: t1}},
				Warnings: []*progress.VertexWarning{{Vertex: v, Level: 1, Short: []byte("short"), Detail: [][]byte{[]byte("detail")}, URL: "https://example.org/rule",
					Source: &progress.Source{Filename: "Dockerfile", Data: []byte("FROM x\n"), Language: "Dockerfile"},
					Ranges: []progress.Range{{Start: progress.Position{Line: 1, Character: 2}, End: progress.Position{Line: 1, Character: 6}}}}},
			}},
			&client.SolveStatus{
				Vertexes: []*client.Vertex{{Digest: v, Inputs: []digest.Digest{step}, Name: "RUN make", Started: &t0, Completed: &t1, Cached: true, Error: "exit 2",
					ProgressGroup: &pb.ProgressGroup{Id: "g", Name: "group", Weak: true}}},
				Statuses: []*client.VertexStatus{{ID: "layer", Vertex: v, Name: "pulling", Total: 10, Current: 4, Timestamp: t0, Started: &t0, Completed: &t1}},
				Logs:     []*client.VertexLog{{Vertex: v, Stream: 2, Data: []byte("x\n"), Timestamp: t1}},
				Warnings: []*client.VertexWarning{{Vertex: v, Level: 1, Short: []byte("short"), Detail: [][]byte{[]byte("detail")}, URL: "https://example.org/rule",
					SourceInfo: &pb.SourceInfo{Filename: "Dockerfile", Data: []byte("FROM x\n"), Language: "Dockerfile"},
					Range:      []*pb.Range{{Start: &pb.Position{Line: 1, Character: 2}, End: &pb.Position{Line: 1, Character: 6}}}}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.MarshalIndent(solveStatus(tt.in), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			want, err := json.MarshalIndent(tt.want, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("solveStatus as rawjson prints it (-want +got):\n%s", diff)
			}
		})
	}
}
