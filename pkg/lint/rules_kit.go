package lint

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/distribution/reference"
	"github.com/github/go-spdx/v2/spdxexp"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

var unpinnedBaseImage = &Rule{
	ID:       "unpinned-base-image",
	Severity: SeverityWarning,
	Summary:  "A recipe FROM names an image by tag, without an @sha256: digest.",
	Rationale: "A tag moves: the same recipe builds different content tomorrow, so the kit is not reproducible. " +
		"A mixin's published layers are the diff between its build and its base, which only means something " +
		"against a base pinned by digest.",
	Fix: "Pin the base: FROM image:tag@sha256:<digest> (crane digest image:tag, or docker buildx imagetools inspect).",
	Check: func(in *Input) []Finding {
		d := in.Recipe
		if d == nil {
			return nil
		}
		args := map[string]string{}
		stages := map[string]bool{}
		var out []Finding
		seenFrom := false
		for _, n := range d.Instructions() {
			switch strings.ToLower(n.Value) {
			case "arg":
				if seenFrom {
					continue
				}
				for a := n.Next; a != nil; a = a.Next {
					k, v, _ := strings.Cut(a.Value, "=")
					args[k] = strings.Trim(v, `"'`)
				}
			case "from":
				seenFrom = true
				if n.Next == nil {
					continue
				}
				image := expandArgs(n.Next.Value, args)
				pinned := image == "scratch" || stages[strings.ToLower(image)] || strings.Contains(image, "@sha256:")
				if as := n.Next.Next; as != nil && strings.EqualFold(as.Value, "as") && as.Next != nil {
					stages[strings.ToLower(as.Next.Value)] = true
				}
				if pinned {
					continue
				}
				why := "the build is not reproducible"
				if in.Kit.Descriptor.Kind == spec.KindMixin {
					why = "a mixin's overlay is the diff against its base, which needs a base pinned by digest"
				}
				out = append(out, Finding{Range: rangeAt(d.Pos(n.StartLine, 1)),
					Message: fmt.Sprintf("FROM %s is not pinned by digest; %s", n.Next.Value, why)})
			}
		}
		return out
	},
}

var argUseRE = regexp.MustCompile(`\$\{?([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}?`)

// expandArgs substitutes Dockerfile ${NAME} and $NAME with the global ARG
// defaults (or the ${NAME:-default} default).
func expandArgs(s string, args map[string]string) string {
	return argUseRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := argUseRE.FindStringSubmatch(m)
		if v, ok := args[sub[1]]; ok && v != "" {
			return v
		}
		return sub[2]
	})
}

var unpinnedSetKit = &Rule{
	ID:       "unpinned-set-kit",
	Severity: SeverityWarning,
	Summary:  "A set lists a kit by a moving reference: no digest, or the latest tag.",
	Rationale: "A set is built from the kits it lists as they are at build time. Without a digest, rebuilding the set " +
		"can silently pick up different content (and different permissions) than the version that was reviewed.",
	Fix: "Pin each kit: add digest: sha256:<…> (or ref: repo:tag@sha256:<…>), and name a version tag rather than latest.",
	Check: func(in *Input) []Finding {
		var out []Finding
		for i, k := range in.Kit.Descriptor.Kits {
			f := fmt.Sprintf("kits[%d].ref", i)
			named, err := reference.ParseNormalizedNamed(k.Ref)
			if err != nil {
				continue // spec validation reports it
			}
			_, digested := named.(reference.Digested)
			if tagged, ok := named.(reference.Tagged); ok && tagged.Tag() == "latest" || !ok && !digested {
				out = append(out, in.at(f, "kits[%d] names %s by the latest tag, which moves; name a version", i, k.Ref))
				continue
			}
			if !digested && k.Digest == "" {
				out = append(out, in.at(f, "kits[%d] %s is not pinned by digest; add digest: sha256:<…>", i, k.Ref))
			}
		}
		return out
	},
}

var unsizedVolume = &Rule{
	ID:        "unsized-volume",
	Severity:  SeverityInfo,
	Summary:   "A volume@1 entry has no size, so the runtime gives it 512 MiB.",
	Rationale: "A volume without a size gets the runtime's default of 512 MiB, which caches and package stores outgrow; the failure shows up later as a full disk.",
	Fix:       "State size: (e.g. size: 10GiB).",
	Check: func(in *Input) []Finding {
		var out []Finding
		for _, e := range in.Entries {
			if e.Type != spec.TypeVolume || e.Config == nil {
				continue
			}
			if s, _ := e.Config["size"].(string); s == "" {
				p, _ := e.Config["path"].(string)
				out = append(out, in.at(e.Field()+".config", "volume %s has no size; the runtime gives it 512 MiB", p))
			}
		}
		return out
	},
}

var missingMetadata = &Rule{
	ID:       "missing-metadata",
	Severity: SeverityWarning,
	Summary:  "The descriptor lacks version, sourceUrl, licenses or description.",
	Rationale: "These fields become the image's org.opencontainers.image.* annotations, which registries and kit " +
		"pickers display; without them users cannot tell which version they run, where it comes from or its license.",
	Fix: "Add the missing fields at the top of the descriptor.",
	Check: func(in *Input) []Finding {
		d := in.Kit.Descriptor
		var missing []string
		if d.Version == "" {
			missing = append(missing, "version")
		}
		if d.SourceURL == "" {
			missing = append(missing, "sourceUrl")
		}
		if len(d.Licenses) == 0 {
			missing = append(missing, "licenses")
		}
		if d.Description == "" {
			missing = append(missing, "description")
		}
		if len(missing) == 0 {
			return nil
		}
		return []Finding{{Range: in.Kit.KeyPosOf("kind"), Message: fmt.Sprintf("the descriptor has no %s; they feed the OCI annotations registries display", strings.Join(missing, ", "))}}
	},
}

var licenseNotSPDX = &Rule{
	ID:        "license-not-spdx",
	Severity:  SeverityWarning,
	Summary:   "A licenses entry is not a valid SPDX license expression.",
	Rationale: "licenses becomes org.opencontainers.image.licenses, which tools read as an SPDX expression; a free-form name cannot be checked against a policy.",
	Fix:       "Use an SPDX identifier or expression, e.g. Apache-2.0, MIT, (MIT OR Apache-2.0), or LicenseRef-<name> for a custom license.",
	Check: func(in *Input) []Finding {
		var out []Finding
		for i, l := range in.Kit.Descriptor.Licenses {
			if ok, _ := spdxexp.ValidateLicenses([]string{l}); !ok {
				out = append(out, in.at(fmt.Sprintf("licenses[%d]", i), "license %q is not a valid SPDX expression", l))
			}
		}
		return out
	},
}

var argRefRE = regexp.MustCompile(`\$\{\{\s*kit\.args\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)

var argRefInComment = &Rule{
	ID:       "arg-ref-in-comment",
	Severity: SeverityWarning,
	Summary:  "A ${{ kit.args.NAME }} placeholder sits in a YAML comment, where it still counts as a reference.",
	Rationale: "The specification scans the raw descriptor for arg references, comments included: a placeholder in a " +
		"comment must name a declared arg, and build-phase expansion rewrites it. Commented-out examples break " +
		"validation or change on every build.",
	Fix: "Write the placeholder without its braces in comments (kit.args.NAME), or remove it.",
	Check: func(in *Input) []Finding {
		var out []Finding
		for _, c := range yamlComments(in.Kit) {
			for _, m := range argRefRE.FindAllStringIndex(c.text, -1) {
				out = append(out, Finding{Range: rangeAt(spec.Pos{File: c.pos.File, Line: c.pos.Line, Col: c.pos.Col + m[0]}),
					Message: fmt.Sprintf("comment holds %s, which counts as an arg reference", c.text[m[0]:m[1]])})
			}
		}
		return out
	},
}

// vocabularies are the two spellings of the kit contract.
var vocabularies = [2]struct {
	name  string
	terms []string
}{
	{"docker/sandbox-kit", []string{"docker/sandbox-kit", "com.docker.sandbox/", "/usr/share/sandbox/kit"}},
	{"docker/runtime-kit", []string{"docker/runtime-kit", "com.docker.runtime/", "/usr/share/runtime/kit"}},
}

var mixedSpecVocabulary = &Rule{
	ID:       "mixed-spec-vocabulary",
	Severity: SeverityError,
	Summary:  "The kit mixes docker/runtime-kit spellings with docker/sandbox-kit spellings.",
	Rationale: "docker/runtime-kit:3 with com.docker.runtime/* types and docker/sandbox-kit:3 with com.docker.sandbox/* " +
		"types are different contracts, not interchangeable names: a kit that mixes them is half understood by any runtime.",
	Fix: "Use one vocabulary throughout: docker/sandbox-kit:3 and com.docker.sandbox/* for Docker Sandboxes.",
	Check: func(in *Input) []Finding {
		type hit struct {
			pos  spec.Pos
			term string
		}
		var hits [2][]hit
		for file, src := range in.Kit.SourceFiles() {
			for i, line := range strings.Split(string(src), "\n") {
				for v, voc := range vocabularies {
					for _, t := range voc.terms {
						if j := strings.Index(line, t); j >= 0 {
							hits[v] = append(hits[v], hit{spec.Pos{File: file, Line: i + 1, Col: j + 1}, t})
						}
					}
				}
			}
		}
		if len(hits[0]) == 0 || len(hits[1]) == 0 {
			return nil
		}
		minority, other := 1, 0
		if len(hits[0]) < len(hits[1]) {
			minority, other = 0, 1
		}
		var out []Finding
		for _, h := range hits[minority] {
			out = append(out, Finding{Range: rangeAt(h.pos), Message: fmt.Sprintf("%q belongs to the %s vocabulary, but this kit otherwise uses %s; they are different contracts",
				h.term, vocabularies[minority].name, vocabularies[other].name)})
		}
		return out
	},
}
