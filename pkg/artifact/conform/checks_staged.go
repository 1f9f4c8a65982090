package conform

import (
	"bytes"
	"encoding/json"
	"path"
	"slices"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/kitsmith/kitsmith/pkg/artifact/internal/kitimage"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

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

func checkLayers(s *checkState) []Finding {
	if len(s.m.Manifest.Layers) == 0 {
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
		return fail("no kit sources are staged under %s: every kit stages its published descriptor at %s/<stem>/%s (kitsmith build does)", kitimage.StagedRoot, kitimage.StagedRoot, kitimage.StagedDescriptor)
	case s.stem == "":
		return fail("none of the staged kit roots (%s) holds a %s matching the descriptor annotation: the staged sources describe other kits than this one", strings.Join(s.stems, ", "), kitimage.StagedDescriptor)
	}
	sd, err := s.fs.Descriptor(s.stem)
	if err != nil {
		return fail("the staged descriptor cannot be read: %v", err)
	}
	if !kitimage.SameDescriptor(sd, s.d) {
		return fail("%s and the descriptor annotation describe different kits (they differ in: %s); publishing stages the same descriptor it annotates",
			kitimage.StagedPath(s.stem, kitimage.StagedDescriptor), firstDifference(sd, s.d))
	}
	return nil
}

func checkStagedRecipe(s *checkState) []Finding {
	if s.fs == nil || s.stem == "" {
		return skip("no staged kit root to look in (see staged-sources)")
	}
	p := kitimage.StagedPath(s.stem, kitimage.StagedRecipe)
	n := s.fs.Lookup(p, true)
	present := n != nil && n.Type == kitimage.TypeReg
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
		own := path.Join(kitimage.StagedRoot, s.stem) + "/"
		clean := path.Clean(ac.ContentFile)
		switch {
		case clean != ac.ContentFile || !strings.HasPrefix(clean, own):
			out = append(out, fail("%s: the published contentFile is %q; publishing rewrites it to the staged body's path under %s", e.Field(), ac.ContentFile, own)...)
		case clean == own+kitimage.StagedDescriptor || clean == own+kitimage.StagedRecipe:
			out = append(out, fail("%s: contentFile %q is reserved for the kit's staged sources; rename the context file", e.Field(), clean)...)
		default:
			if n := s.fs.Lookup(clean, true); n == nil || n.Type != kitimage.TypeReg {
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
		n := s.fs.Lookup(file, true)
		switch {
		case n == nil:
			out = append(out, fail("%s: bundled skill %q does not carry %s; agent-skill@1 ships the skill's directory, SKILL.md included, in the image", e.Field(), sk.EffectiveName(), file)...)
		case n.Type != kitimage.TypeReg:
			out = append(out, fail("%s: bundled skill %s must be a regular file", e.Field(), file)...)
		}
	}
	return out
}

// imageConfig parses the manifest's config.
func (s *checkState) imageConfig() (*v1.ConfigFile, error) {
	if s.m.ConfigErr != nil {
		return nil, s.m.ConfigErr
	}
	var c v1.ConfigFile
	if err := json.Unmarshal(s.m.Config, &c); err != nil {
		return nil, err
	}
	return &c, nil
}

func checkImageConfig(s *checkState) []Finding {
	c, err := s.imageConfig()
	if err != nil {
		return fail("the image config %s does not parse: %v", s.m.Manifest.Config.Digest, err)
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
