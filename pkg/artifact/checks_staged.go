package artifact

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// Staged sources (SPEC-v3 §7.4): every kit stages its published
// descriptor, and its recipe when it has one, under StagedRoot/<stem>/.
const (
	StagedRoot       = spec.StagedRoot
	StagedDescriptor = "kit.yaml"
	StagedRecipe     = "kit.dockerfile"
)

func stagedPath(stem, file string) string { return path.Join(StagedRoot, stem, file) }

// stems lists the staged kit roots: the directories under StagedRoot.
func (f *layerFS) stems() []string {
	root := f.lookup(StagedRoot, true)
	if root == nil || !root.isDir() {
		return nil
	}
	var out []string
	for name := range root.children {
		if n := f.lookup(path.Join(StagedRoot, name), true); n != nil && n.isDir() {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// stagedDescriptor decodes the kit.yaml staged under stem.
func (f *layerFS) stagedDescriptor(stem string) (*spec.Descriptor, error) {
	p := stagedPath(stem, StagedDescriptor)
	b, err := f.readFile(p)
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
	errNoFile      = errors.New("not in the image")
	errNotRegular  = spec.ErrNotRegular // one sentinel for every file that is not regular
	errFileTooBig  = errors.New("larger than kitsmith reads")
	errNotCaptured = errors.New("not read")
)

// readFile returns a captured file's content, following links.
func (f *layerFS) readFile(p string) ([]byte, error) {
	n := f.lookup(p, true)
	switch {
	case n == nil:
		return nil, fmt.Errorf("%s: %w", p, errNoFile)
	case n.typ != typeReg:
		return nil, fmt.Errorf("%s: %w", p, errNotRegular)
	case n.tooLarge:
		return nil, fmt.Errorf("%s: %w", p, errFileTooBig)
	case !n.captured:
		return nil, fmt.Errorf("%s: %w", p, errNotCaptured)
	}
	return n.content, nil
}

// sameDescriptor compares two decoded descriptors as documents: the
// annotation is compact JSON and the staged file YAML, so they are
// compared re-encoded.
func sameDescriptor(a, b *spec.Descriptor) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(ja, jb)
}

// firstDifference names the first top-level field two descriptors differ
// in, for a message.
func firstDifference(a, b *spec.Descriptor) string {
	var ma, mb map[string]json.RawMessage
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if json.Unmarshal(ja, &ma) != nil || json.Unmarshal(jb, &mb) != nil {
		return ""
	}
	keys := map[string]bool{}
	for k := range ma {
		keys[k] = true
	}
	for k := range mb {
		keys[k] = true
	}
	var list []string
	for k := range keys {
		if !bytes.Equal(ma[k], mb[k]) {
			list = append(list, k)
		}
	}
	slices.Sort(list)
	return strings.Join(list, ", ")
}

// ownStem picks the staged root holding this kit's sources: the only one,
// or the one whose kit.yaml is the annotation's descriptor.
func ownStem(f *layerFS, d *spec.Descriptor, stems []string) string {
	if len(stems) == 1 {
		return stems[0]
	}
	for _, stem := range stems {
		if sd, err := f.stagedDescriptor(stem); err == nil && sameDescriptor(sd, d) {
			return stem
		}
	}
	return ""
}

func checkLayers(s *checkState) []Finding {
	if len(s.m.manifest.Layers) == 0 {
		return fail("the manifest has no layers: the OCI image-manifest schema requires at least one, and every kit stages its sources in one (a declaration-only mixin is scratch plus one staged layer)")
	}
	if s.fsErr != nil {
		return fail("the layers do not read as filesystem tars: %v", s.fsErr)
	}
	return nil
}

func checkStagedSources(s *checkState) []Finding {
	if f := s.noFS(); f != nil {
		return f
	}
	switch {
	case len(s.stems) == 0:
		return fail("no kit sources are staged under %s: every kit stages its published descriptor at %s/<stem>/%s (kitsmith build does)", StagedRoot, StagedRoot, StagedDescriptor)
	case s.stem == "":
		return fail("none of the staged kit roots (%s) holds a %s matching the descriptor annotation: the staged sources describe other kits than this one", strings.Join(s.stems, ", "), StagedDescriptor)
	}
	sd, err := s.fs.stagedDescriptor(s.stem)
	if err != nil {
		return fail("the staged descriptor cannot be read: %v", err)
	}
	if !sameDescriptor(sd, s.d) {
		return fail("%s and the descriptor annotation describe different kits (they differ in: %s); publishing stages the same descriptor it annotates",
			stagedPath(s.stem, StagedDescriptor), firstDifference(sd, s.d))
	}
	return nil
}

func checkStagedRecipe(s *checkState) []Finding {
	if s.fs == nil || s.stem == "" {
		return skip("no staged kit root to look in (see staged-sources)")
	}
	p := stagedPath(s.stem, StagedRecipe)
	n := s.fs.lookup(p, true)
	present := n != nil && n.typ == typeReg
	switch {
	case (s.d.Build != "" || s.d.Dockerfile != "") && !present:
		return fail("the descriptor declares a recipe (build: or dockerfile:) but %s is not staged; publishing stages the recipe text beside kit.yaml", p)
	case s.d.Kind == spec.KindWorkload && len(s.d.Kits) == 0 && !present:
		return fail("a workload is always built from a recipe, but %s is not staged; publishing stages the recipe text beside kit.yaml", p)
	}
	return nil
}

func checkAgentContextStaged(s *checkState) []Finding {
	var out []Finding
	for _, e := range s.d.Entries() {
		if e.Type != spec.TypeAgentContext {
			continue
		}
		var ac spec.AgentContext
		if err := spec.DecodeConfig(e.Config, &ac); err != nil {
			out = append(out, fail("%s: the agent-context config does not decode: %v", e.Field(), err)...)
			continue
		}
		if ac.ContentFile == "" {
			continue
		}
		if s.fs == nil || s.stem == "" {
			return skip("no staged kit root to resolve contentFile %q against (see staged-sources)", ac.ContentFile)
		}
		own := path.Join(StagedRoot, s.stem) + "/"
		clean := path.Clean(ac.ContentFile)
		switch {
		case clean != ac.ContentFile || !strings.HasPrefix(clean, own):
			out = append(out, fail("%s: the published contentFile is %q; publishing rewrites it to the staged body's path under %s", e.Field(), ac.ContentFile, own)...)
		case clean == own+StagedDescriptor || clean == own+StagedRecipe:
			out = append(out, fail("%s: contentFile %q is reserved for the kit's staged sources; rename the context file", e.Field(), clean)...)
		default:
			if n := s.fs.lookup(clean, true); n == nil || n.typ != typeReg {
				out = append(out, fail("%s: contentFile points at %q, which the image does not carry as a file", e.Field(), clean)...)
			}
		}
	}
	return out
}

func checkAgentSkillContent(s *checkState) []Finding {
	var out []Finding
	for _, e := range s.d.Entries() {
		if e.Type != spec.TypeAgentSkill {
			continue
		}
		var sk spec.AgentSkill
		if err := spec.DecodeConfig(e.Config, &sk); err != nil {
			out = append(out, fail("%s: the agent-skill config does not decode: %v", e.Field(), err)...)
			continue
		}
		if f := s.noFS(); f != nil {
			return f
		}
		file := path.Join("/", sk.Path, "SKILL.md")
		n := s.fs.lookup(file, true)
		switch {
		case n == nil:
			out = append(out, fail("%s: bundled skill %q does not carry %s; agent-skill@1 ships the skill's directory, SKILL.md included, in the image", e.Field(), sk.EffectiveName(), file)...)
		case n.typ != typeReg:
			out = append(out, fail("%s: bundled skill %s must be a regular file", e.Field(), file)...)
		}
	}
	return out
}

// imageConfig parses the manifest's config.
func (s *checkState) imageConfig() (*v1.ConfigFile, error) {
	if s.m.cfgErr != nil {
		return nil, s.m.cfgErr
	}
	var c v1.ConfigFile
	if err := json.Unmarshal(s.m.config, &c); err != nil {
		return nil, err
	}
	return &c, nil
}

func checkImageConfig(s *checkState) []Finding {
	c, err := s.imageConfig()
	if err != nil {
		return fail("the image config %s does not parse: %v", s.m.manifest.Config.Digest, err)
	}
	if s.d.Kind != spec.KindWorkload {
		return nil
	}
	argv := append(append([]string{}, c.Config.Entrypoint...), c.Config.Cmd...)
	if len(argv) == 0 || argv[0] == "" {
		return fail("the workload's image config has no ENTRYPOINT or CMD: a workload runs under a bare docker run, so its config needs a runnable entrypoint or cmd; set one in the recipe")
	}
	return nil
}
