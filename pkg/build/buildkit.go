package build

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/moby/buildkit/client"
	"github.com/tonistiigi/fsutil"
)

// product is the frontend name BuildKit records for kitsmith's builds.
const product = "kitsmith"

// buildWithBuildKit solves the kit through s with kitsmith's gateway
// build function and exports the result as an OCI layout under tmp.
func buildWithBuildKit(ctx context.Context, p progress, s Solver, fe *frontend, tmp string) (*built, error) {
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
		FrontendAttrs: map[string]string{},
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
	if p.ch != nil {
		status = make(chan *client.SolveStatus)
		wg.Go(func() { p.forward(ctx, status, returned) })
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
	dir := filepath.Join(tmp, "export")
	if err := untar(archive, dir); err != nil {
		return nil, fmt.Errorf("unpacking the exported image: %w", err)
	}
	idx, err := exportedIndex(dir)
	if err != nil {
		return nil, err
	}
	return &built{route: RouteBuildKit, index: idx, published: fe.final, yaml: fe.finalYAML, stem: k.Stem, kind: fe.final.Kind}, nil
}

// untar unpacks the OCI archive file into dir, refusing entries that are
// not plain files and directories inside it.
func untar(file, dir string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	root, err := mkRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := path.Clean(h.Name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := root.MkdirAll(name, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := root.MkdirAll(path.Dir(name), 0o755); err != nil {
				return err
			}
			w, err := root.Create(name)
			if err != nil {
				return err
			}
			_, err = io.Copy(w, tr)
			if cerr := w.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		default:
			return fmt.Errorf("%s: unexpected entry type %q", h.Name, h.Typeflag)
		}
	}
}

// mkRoot creates dir and opens it as an os.Root, so that no archive entry
// can be written outside it.
func mkRoot(dir string) (*os.Root, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return os.OpenRoot(dir)
}

// exportedIndex opens the image index BuildKit exported into the OCI
// layout dir: index.json names it.
func exportedIndex(dir string) (v1.ImageIndex, error) {
	lp, err := layout.FromPath(dir)
	if err != nil {
		return nil, fmt.Errorf("opening the exported layout: %w", err)
	}
	top, err := lp.ImageIndex()
	if err != nil {
		return nil, fmt.Errorf("opening the exported layout: %w", err)
	}
	im, err := top.IndexManifest()
	if err != nil {
		return nil, fmt.Errorf("opening the exported layout: %w", err)
	}
	if len(im.Manifests) != 1 || !im.Manifests[0].MediaType.IsIndex() {
		return nil, fmt.Errorf("the exported layout holds %d descriptors, not one image index", len(im.Manifests))
	}
	idx, err := top.ImageIndex(im.Manifests[0].Digest)
	if err != nil {
		return nil, fmt.Errorf("opening the exported index: %w", err)
	}
	return idx, nil
}
