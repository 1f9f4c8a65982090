package build

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/moby/buildkit/client"
	"github.com/moby/buildkit/solver/pb"
	digest "github.com/opencontainers/go-digest"

	"github.com/kitsmith/kitsmith/pkg/progress"
)

// TestStatusOf: every field of BuildKit's progress that a display uses
// reaches kitsmith's progress.Status.
func TestStatusOf(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	t1 := t0.Add(time.Second)
	v, in := digest.FromString("vertex"), digest.FromString("input")
	tests := []struct {
		name string
		in   *client.SolveStatus
		want *progress.Status
	}{
		{"nil", nil, nil},
		{"empty", &client.SolveStatus{}, &progress.Status{}},
		{"nil entries are skipped", &client.SolveStatus{Vertexes: []*client.Vertex{nil}, Logs: []*client.VertexLog{nil}}, &progress.Status{}},
		{
			"every field",
			&client.SolveStatus{
				Vertexes: []*client.Vertex{{
					Digest: v, Inputs: []digest.Digest{in}, Name: "[1/2] RUN make", Started: &t0, Completed: &t1, Cached: true, Error: "exit 2",
					ProgressGroup: &pb.ProgressGroup{Id: "g", Name: "group", Weak: true},
				}},
				Statuses: []*client.VertexStatus{{ID: "sha256:layer", Vertex: v, Name: "pulling", Total: 10, Current: 4, Timestamp: t0, Started: &t0, Completed: &t1}},
				Logs:     []*client.VertexLog{{Vertex: v, Stream: 2, Data: []byte("warning: x\n"), Timestamp: t1}},
				Warnings: []*client.VertexWarning{{
					Vertex: v, Level: 1, Short: []byte("short"), Detail: [][]byte{[]byte("detail")}, URL: "https://docs.docker.com/go/dockerfile/rule/",
					SourceInfo: &pb.SourceInfo{Filename: "Dockerfile", Data: []byte("FROM x\n"), Language: "Dockerfile"},
					Range:      []*pb.Range{{Start: &pb.Position{Line: 1, Character: 2}, End: &pb.Position{Line: 1, Character: 6}}, nil, {}},
				}},
			},
			&progress.Status{
				Vertexes: []*progress.Vertex{{
					Digest: v, Inputs: []digest.Digest{in}, Name: "[1/2] RUN make", Started: &t0, Completed: &t1, Cached: true, Error: "exit 2",
					Group: &progress.Group{ID: "g", Name: "group", Weak: true},
				}},
				Statuses: []*progress.VertexStatus{{ID: "sha256:layer", Vertex: v, Name: "pulling", Total: 10, Current: 4, Timestamp: t0, Started: &t0, Completed: &t1}},
				Logs:     []*progress.VertexLog{{Vertex: v, Stream: 2, Data: []byte("warning: x\n"), Timestamp: t1}},
				Warnings: []*progress.VertexWarning{{
					Vertex: v, Level: 1, Short: []byte("short"), Detail: [][]byte{[]byte("detail")}, URL: "https://docs.docker.com/go/dockerfile/rule/",
					Source: &progress.Source{Filename: "Dockerfile", Data: []byte("FROM x\n"), Language: "Dockerfile"},
					Ranges: []progress.Range{{Start: progress.Position{Line: 1, Character: 2}, End: progress.Position{Line: 1, Character: 6}}, {}},
				}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, statusOf(tt.in)); diff != "" {
				t.Errorf("statusOf (-want +got):\n%s", diff)
			}
		})
	}
}
