package build

import (
	"archive/tar"
	"bytes"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/moby/buildkit/client/llb"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// Staged file names under a kit's staged directory (SPEC-v3 §9.4).
const (
	stagedDescriptor = "kit.yaml"
	stagedRecipe     = "kit.dockerfile"
)

// Modes of staged entries.
const (
	stagedDirMode  = 0o755
	stagedFileMode = 0o644
)

// stagedFile is one file of the staged-sources layer.
type stagedFile struct {
	// Path is absolute, e.g. /usr/share/sandbox/kit/gh/kit.yaml.
	Path string
	Data []byte
}

// stagedFiles lists what a kit stages: the published descriptor, the
// recipe when there is one, and the agent-context bodies at the paths the
// published descriptor names. The list is sorted by path.
func stagedFiles(k *spec.Kit, pub *spec.Published, descriptorYAML []byte) ([]stagedFile, error) {
	dir := spec.StagedDir(k.Stem)
	files := []stagedFile{{Path: path.Join(dir, stagedDescriptor), Data: descriptorYAML}}
	if k.Recipe != nil && len(k.Recipe.Text) > 0 {
		files = append(files, stagedFile{Path: path.Join(dir, stagedRecipe), Data: k.Recipe.Text})
	}
	for dst, rel := range pub.Staged {
		body, ok := k.Files[rel]
		if !ok {
			return nil, fmt.Errorf("staging %s: the kit's file %s was not loaded", dst, rel)
		}
		files = append(files, stagedFile{Path: dst, Data: body})
	}
	slices.SortFunc(files, func(a, b stagedFile) int { return strings.Compare(a.Path, b.Path) })
	for i := 1; i < len(files); i++ {
		if files[i].Path == files[i-1].Path {
			return nil, fmt.Errorf("staging: two files would be staged as %s", files[i].Path)
		}
	}
	return files, nil
}

// stagedDirs returns every directory the files need, parents first,
// without "/".
func stagedDirs(files []stagedFile) []string {
	seen := map[string]bool{}
	var dirs []string
	for _, f := range files {
		var chain []string
		for d := path.Dir(f.Path); d != "/" && d != "." && !seen[d]; d = path.Dir(d) {
			seen[d] = true
			chain = append(chain, d)
		}
		slices.Reverse(chain)
		dirs = append(dirs, chain...)
	}
	slices.Sort(dirs) // a parent sorts before its children
	return dirs
}

// stagedTar returns the staged-sources layer as an uncompressed tar: root
// owned, directories 0755, files 0644, every mtime set to epoch.
func stagedTar(files []stagedFile, epoch time.Time) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, d := range stagedDirs(files) {
		h := &tar.Header{Typeflag: tar.TypeDir, Name: strings.TrimPrefix(d, "/") + "/", Mode: stagedDirMode, ModTime: epoch, Format: tar.FormatPAX}
		if err := tw.WriteHeader(h); err != nil {
			return nil, fmt.Errorf("writing the staged layer: %w", err)
		}
	}
	for _, f := range files {
		h := &tar.Header{Typeflag: tar.TypeReg, Name: strings.TrimPrefix(f.Path, "/"), Mode: stagedFileMode, Size: int64(len(f.Data)), ModTime: epoch, Format: tar.FormatPAX}
		if err := tw.WriteHeader(h); err != nil {
			return nil, fmt.Errorf("writing the staged layer: %w", err)
		}
		if _, err := tw.Write(f.Data); err != nil {
			return nil, fmt.Errorf("writing the staged layer: %w", err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("writing the staged layer: %w", err)
	}
	return buf.Bytes(), nil
}

// stagedState returns the staged-sources layer as LLB on scratch, with the
// same modes, owner and timestamps as stagedTar. There is always at least
// one file (kit.yaml).
func stagedState(files []stagedFile, epoch time.Time, stem string) llb.State {
	created := llb.WithCreatedTime(epoch)
	root := llb.WithUIDGID(0, 0)
	var fa *llb.FileAction
	for _, d := range stagedDirs(files) {
		if fa == nil {
			fa = llb.Mkdir(d, stagedDirMode, created, root)
		} else {
			fa = fa.Mkdir(d, stagedDirMode, created, root)
		}
	}
	for _, f := range files {
		fa = fa.Mkfile(f.Path, stagedFileMode, f.Data, created, root)
	}
	return llb.Scratch().File(fa, llb.WithCustomName("[kitsmith] stage the sources of "+stem))
}
