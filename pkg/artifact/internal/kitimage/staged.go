package kitimage

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// Staged sources (SPEC-v3 §7.4): every kit stages its published
// descriptor, and its recipe when it has one, under StagedRoot/<stem>/.
const (
	StagedRoot       = spec.StagedRoot
	StagedDescriptor = "kit.yaml"
	StagedRecipe     = "kit.dockerfile"
)

func StagedPath(stem, file string) string { return path.Join(StagedRoot, stem, file) }

// Stems lists the staged kit roots: the directories under StagedRoot.
func (f *FS) Stems() []string {
	root := f.Lookup(StagedRoot, true)
	if root == nil || !root.IsDir() {
		return nil
	}
	var out []string
	for name := range root.Children {
		if n := f.Lookup(path.Join(StagedRoot, name), true); n != nil && n.IsDir() {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// Descriptor decodes the kit.yaml staged under stem.
func (f *FS) Descriptor(stem string) (*spec.Descriptor, error) {
	p := StagedPath(stem, StagedDescriptor)
	b, err := f.ReadFile(p)
	if err != nil {
		return nil, err
	}
	k, err := spec.Parse(p, b)
	if err != nil {
		return nil, err
	}
	if k.Descriptor == nil || len(k.Problems().Errors) > 0 {
		return nil, fmt.Errorf("%s does not decode: %w", p, k.Problems().Err())
	}
	return k.Descriptor, nil
}

var (
	ErrNoFile      = errors.New("not in the image")
	ErrNotRegular  = spec.ErrNotRegular // one sentinel for every file that is not regular
	ErrFileTooBig  = errors.New("larger than kitsmith reads")
	ErrNotCaptured = errors.New("not read")
)

// ReadFile returns a captured file's content, following links.
func (f *FS) ReadFile(p string) ([]byte, error) {
	n := f.Lookup(p, true)
	switch {
	case n == nil:
		return nil, fmt.Errorf("%s: %w", p, ErrNoFile)
	case n.Type != TypeReg:
		return nil, fmt.Errorf("%s: %w", p, ErrNotRegular)
	case n.TooLarge:
		return nil, fmt.Errorf("%s: %w", p, ErrFileTooBig)
	case !n.Captured:
		return nil, fmt.Errorf("%s: %w", p, ErrNotCaptured)
	}
	return n.Content, nil
}

// SameDescriptor compares two decoded descriptors as documents: the
// annotation is compact JSON and the staged file YAML, so they are
// compared re-encoded.
func SameDescriptor(a, b *spec.Descriptor) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(ja, jb)
}

// OwnStem picks the staged root holding this kit's sources: the only one,
// or the one whose kit.yaml is the annotation's descriptor.
func OwnStem(f *FS, d *spec.Descriptor, stems []string) string {
	if len(stems) == 1 {
		return stems[0]
	}
	for _, stem := range stems {
		if sd, err := f.Descriptor(stem); err == nil && SameDescriptor(sd, d) {
			return stem
		}
	}
	return ""
}
