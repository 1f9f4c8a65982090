package build

import (
	"archive/tar"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"github.com/kitsmith/kitsmith/pkg/progress"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/kitsmith/kitsmith/pkg/artifact"
)

// writeOutputs writes idx to every output. Local outputs are written to
// temporary paths beside their destination first and renamed into place
// only once every output, pushes included, succeeded; on failure the
// temporary paths are removed. A push that succeeded cannot be undone.
func writeOutputs(ctx context.Context, p progress.Reporter, idx v1.ImageIndex, opts *options) ([]Written, error) {
	type pending struct {
		tmp, dest string
	}
	var renames []pending
	defer func() {
		for _, r := range renames {
			os.RemoveAll(r.tmp)
		}
	}()
	written := make([]Written, len(opts.Outputs))
	order := make([]int, 0, len(opts.Outputs))
	for i, out := range opts.Outputs { // local outputs first: they can still be withdrawn
		if out.Type != OutputRegistry {
			order = append(order, i)
		}
	}
	for i, out := range opts.Outputs {
		if out.Type == OutputRegistry {
			order = append(order, i)
		}
	}
	for _, i := range order {
		out := opts.Outputs[i]
		done := p.Step(ctx, "output-"+out.String(), "[kitsmith] write "+out.String())
		var err error
		switch out.Type {
		case OutputOCI, OutputOCIArchive:
			var tmp string
			tmp, err = writeLocal(idx, out, opts)
			if err == nil {
				renames = append(renames, pending{tmp: tmp, dest: out.Dest})
				written[i] = Written{Output: out, Reference: out.Dest}
			}
		case OutputRegistry:
			var ref string
			ref, err = push(ctx, idx, out.Dest, opts)
			written[i] = Written{Output: out, Reference: ref}
		}
		done(err)
		if err != nil {
			return nil, err
		}
	}
	for len(renames) > 0 {
		r := renames[0]
		if err := replace(r.tmp, r.dest); err != nil {
			return nil, err
		}
		renames = renames[1:]
	}
	return written, nil
}

// writeLocal writes an OCI layout or archive to a temporary path beside
// out.Dest and returns that path.
func writeLocal(idx v1.ImageIndex, out Output, opts *options) (string, error) {
	dest := out.Dest
	if err := checkDest(out); err != nil {
		return "", err
	}
	parent := filepath.Dir(dest)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("output %s: %w", out, err)
	}
	if out.Type == OutputOCI {
		tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dest)+".kitsmith-")
		if err != nil {
			return "", fmt.Errorf("output %s: %w", out, err)
		}
		if err := os.Chmod(tmp, 0o755); err != nil {
			os.RemoveAll(tmp)
			return "", fmt.Errorf("output %s: %w", out, err)
		}
		if err := writeLayout(tmp, idx, out.Tag); err != nil {
			os.RemoveAll(tmp)
			return "", fmt.Errorf("output %s: %w", out, err)
		}
		return tmp, nil
	}
	dir, err := os.MkdirTemp(opts.TempDir, "kitsmith-archive-")
	if err != nil {
		return "", fmt.Errorf("output %s: %w", out, err)
	}
	defer os.RemoveAll(dir)
	if err := writeLayout(dir, idx, out.Tag); err != nil {
		return "", fmt.Errorf("output %s: %w", out, err)
	}
	f, err := os.CreateTemp(parent, "."+filepath.Base(dest)+".kitsmith-")
	if err != nil {
		return "", fmt.Errorf("output %s: %w", out, err)
	}
	err = tarDir(f, dir, opts.epochTime())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("output %s: %w", out, err)
	}
	return f.Name(), nil
}

// checkDest refuses a destination that would destroy something that is
// not a previous output: a non-empty directory that is not an OCI layout,
// or a directory where an archive goes.
func checkDest(out Output) error {
	fi, err := os.Stat(out.Dest)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("output %s: %w", out, err)
	}
	if out.Type == OutputOCIArchive {
		if fi.IsDir() {
			return fmt.Errorf("output %s: %s is a directory; an archive is a file", out, out.Dest)
		}
		return nil
	}
	if !fi.IsDir() {
		return fmt.Errorf("output %s: %s exists and is not a directory", out, out.Dest)
	}
	entries, err := os.ReadDir(out.Dest)
	if err != nil {
		return fmt.Errorf("output %s: %w", out, err)
	}
	if len(entries) == 0 {
		return nil
	}
	if _, err := os.Stat(filepath.Join(out.Dest, "oci-layout")); err != nil {
		return fmt.Errorf("output %s: %s is a non-empty directory that is not an OCI layout; choose another directory or empty it", out, out.Dest)
	}
	return nil
}

// replace renames tmp to dest, replacing a previous layout directory or
// file at dest.
func replace(tmp, dest string) error {
	fi, err := os.Stat(dest)
	if err != nil || !fi.IsDir() {
		if err := os.Rename(tmp, dest); err != nil {
			return fmt.Errorf("moving the output into place: %w", err)
		}
		return nil
	}
	old := tmp + ".old"
	if err := os.Rename(dest, old); err != nil {
		return fmt.Errorf("moving the previous %s aside: %w", dest, err)
	}
	if err := os.Rename(tmp, dest); err != nil {
		_ = os.Rename(old, dest)
		return fmt.Errorf("moving the output into place: %w", err)
	}
	if err := os.RemoveAll(old); err != nil {
		return fmt.Errorf("removing the previous %s: %w", dest, err)
	}
	return nil
}

// writeLayout writes idx as the one image index of a new OCI layout dir.
// A non-empty tag is recorded as its org.opencontainers.image.ref.name.
func writeLayout(dir string, idx v1.ImageIndex, tag string) error {
	lp, err := layout.Write(dir, empty.Index)
	if err != nil {
		return err
	}
	var lo []layout.Option
	if tag != "" {
		lo = append(lo, layout.WithAnnotations(map[string]string{artifact.AnnotationRefName: tag}))
	}
	return lp.AppendIndex(idx, lo...)
}

// tarDir writes the files under dir to w as a tar archive, in path order,
// with every timestamp set to mtime.
func tarDir(w io.Writer, dir string, mtime time.Time) error {
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	slices.Sort(paths)
	tw := tar.NewWriter(w)
	for _, p := range paths {
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		h := &tar.Header{Name: filepath.ToSlash(rel), ModTime: mtime, Format: tar.FormatPAX}
		switch {
		case fi.IsDir():
			h.Typeflag, h.Name, h.Mode = tar.TypeDir, h.Name+"/", 0o755
		case fi.Mode().IsRegular():
			h.Typeflag, h.Mode, h.Size = tar.TypeReg, 0o644, fi.Size()
		default:
			return fmt.Errorf("%s is not a regular file", p)
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if h.Typeflag == tar.TypeReg {
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			_, err = io.Copy(tw, f)
			f.Close()
			if err != nil {
				return err
			}
		}
	}
	return tw.Close()
}

// push writes idx to the registry reference dest and returns the
// reference pinned by digest.
func push(ctx context.Context, idx v1.ImageIndex, dest string, opts *options) (string, error) {
	ref, err := name.ParseReference(dest, nameOptions(opts)...)
	if err != nil {
		return "", fmt.Errorf("pushing to %s: %w", dest, err)
	}
	if err := remote.WriteIndex(ref, idx, remoteOptions(ctx, opts)...); err != nil {
		return "", fmt.Errorf("pushing to %s: %w", dest, err)
	}
	d, err := idx.Digest()
	if err != nil {
		return "", err
	}
	return ref.Name() + "@" + d.String(), nil
}

// nameOptions are the reference parsing options: plain HTTP allowed with
// InsecureRegistry (loopback and private addresses always allow it).
func nameOptions(opts *options) []name.Option {
	if opts.InsecureRegistry {
		return []name.Option{name.Insecure}
	}
	return nil
}

// remoteOptions are the registry client options: context, credentials and
// transport.
func remoteOptions(ctx context.Context, opts *options) []remote.Option {
	ro := []remote.Option{remote.WithContext(ctx), remote.WithAuthFromKeychain(opts.keychain)}
	t := opts.Transport
	if t == nil && opts.InsecureRegistry {
		tr := remote.DefaultTransport.(*http.Transport).Clone()
		tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // --insecure-registry asks for it
		t = tr
	}
	if t != nil {
		ro = append(ro, remote.WithTransport(t))
	}
	return ro
}
