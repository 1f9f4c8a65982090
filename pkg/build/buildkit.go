package build

import (
	"context"
	"fmt"
	"github.com/kitsmith/kitsmith/pkg/progress"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/moby/buildkit/client"
	"github.com/tonistiigi/fsutil"

	"github.com/kitsmith/kitsmith/pkg/artifact"
)

// product is the frontend name BuildKit records for kitsmith's builds.
const product = "kitsmith"

// buildWithBuildKit solves the kit through s with kitsmith's gateway
// build function and exports the result as an OCI archive under tmp,
// read in place.
func buildWithBuildKit(ctx context.Context, p progress.Reporter, s Solver, fe *frontend, tmp string) (*built, error) {
	k, opts := fe.k, fe.opts
	archive := filepath.Join(tmp, "export.tar")
	so := client.SolveOpt{
		Exports: []client.ExportEntry{{
			Type: client.ExporterOCI,
			Output: func(map[string]string) (io.WriteCloser, error) {
				return os.Create(archive)
			},
			Attrs: map[string]string{
				"oci-mediatypes":    "true",
				"rewrite-timestamp": "true",
				"source-date-epoch": strconv.FormatInt(opts.epoch, 10),
			},
		}},
		// The requested platforms, so that BuildKit's exporter does not
		// warn that the result's platforms do not match its default one.
		// The frontend ignores the attribute (it builds opts.ids).
		FrontendAttrs: map[string]string{"platform": strings.Join(opts.ids, ",")},
	}
	if opts.Provenance {
		so.FrontendAttrs["attest:provenance"] = "mode=max"
	}
	if k.Recipe != nil {
		ctxFS, err := fsutil.NewFS(k.Dir)
		if err != nil {
			return nil, fmt.Errorf("opening the build context %s: %w", k.Dir, err)
		}
		so.LocalMounts = map[string]fsutil.FS{"context": ctxFS}
	}
	var status chan *client.SolveStatus // nil: BuildKit streams no progress
	returned := make(chan struct{})
	var wg sync.WaitGroup
	if p.Enabled() {
		status = make(chan *client.SolveStatus)
		wg.Go(func() { forward(ctx, p, status, returned) })
	}
	_, err := s.Build(ctx, so, product, fe.run, status)
	close(returned)
	wg.Wait()
	if fe.err != nil {
		// The build function's own error, without the daemon's wrapping.
		return nil, fe.err
	}
	if err != nil {
		return nil, fmt.Errorf("building %s: %w", k.Path, err)
	}
	a, err := artifact.Open(ctx, artifact.ArchivePrefix+archive)
	if err != nil {
		return nil, fmt.Errorf("reading the exported kit image: %w", err)
	}
	idx, ok := a.Index()
	if !ok {
		return nil, fmt.Errorf("reading the exported kit image: BuildKit exported a single manifest, not an index")
	}
	return &built{route: RouteBuildKit, index: idx, published: fe.final, yaml: fe.finalYAML, stem: k.Stem, kind: fe.final.Kind}, nil
}
