package lint

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/distribution/reference"
	"github.com/github/go-spdx/v2/spdxexp"
	"github.com/moby/buildkit/frontend/dockerfile/parser"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

var unpinnedBaseImage = &Rule{
	ID:       "unpinned-base-image",
	Severity: SeverityWarning,
	Summary:  "A recipe FROM names an image by tag, without an @sha256: digest.",
	Rationale: "A tag moves: the same recipe builds different content tomorrow, so the kit is not reproducible. " +
		"A mixin's published layers are the diff between its build and the base its final stage builds on, which " +
		"only means something against a base pinned by digest (a mixin whose final stage is FROM scratch is " +
		"exported as built, with no diff). FROM scratch and FROM <an earlier stage> are pinned.",
	Fix: "Pin the base: FROM image:tag@sha256:<digest> (crane digest image:tag, or docker buildx imagetools inspect image:tag).",
	Check: func(in *Input) []Finding {
		d := in.Recipe
		if d == nil {
			return nil
		}
		args := map[string]string{}
		stages := map[string]bool{}
		lower := overlayBase(d)
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
				written, rng, ok := d.FromImage(n)
				if !ok {
					continue
				}
				image := expandArgs(written, args)
				pinned := strings.EqualFold(image, "scratch") || stages[strings.ToLower(image)] || digested(image)
				if as := n.Next.Next; as != nil && strings.EqualFold(as.Value, "as") && as.Next != nil {
					stages[strings.ToLower(as.Next.Value)] = true
				}
				if pinned {
					continue
				}
				why := "the build is not reproducible"
				if in.Kit.Descriptor.Kind == spec.KindMixin && n == lower {
					why = "a mixin's overlay is the diff against its base, which needs a base pinned by digest"
				}
				shown := written
				if image != written {
					shown = fmt.Sprintf("%s (%s)", written, image)
				}
				out = append(out, Finding{Range: rng, Message: fmt.Sprintf("FROM %s names a tag, which moves, not a digest; %s", shown, why),
					Fix: fmt.Sprintf("pin it: FROM %s@sha256:<digest> (crane digest %s)", strings.SplitN(image, "@", 2)[0], strings.SplitN(image, "@", 2)[0])})
			}
		}
		return out
	},
}

// overlayBase returns the FROM instruction whose image a mixin's overlay
// is diffed against: the final stage's, following FROM <stage> back to
// the stage that names an image. It is nil when the chain ends in FROM
// scratch (the stage is exported as built, no diff) or the recipe has no
// FROM.
func overlayBase(d *Dockerfile) *parser.Node {
	froms := map[string]*parser.Node{} // stage name → its FROM
	var last *parser.Node
	for _, n := range d.Instructions() {
		if !strings.EqualFold(n.Value, "from") || n.Next == nil {
			continue
		}
		last = n
		if as := n.Next.Next; as != nil && strings.EqualFold(as.Value, "as") && as.Next != nil {
			froms[strings.ToLower(as.Next.Value)] = n
		}
	}
	for seen := 0; last != nil && seen <= len(froms); seen++ {
		image := strings.ToLower(last.Next.Value)
		if image == "scratch" {
			return nil
		}
		stage, ok := froms[image]
		if !ok || stage == last {
			return last
		}
		last = stage
	}
	return last
}

// digested reports an image reference pinned by digest.
func digested(image string) bool {
	named, err := reference.ParseNormalizedNamed(image)
	if err != nil {
		return strings.Contains(image, "@sha256:")
	}
	_, ok := named.(reference.Digested)
	return ok
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
		"can silently pick up different content (and different permissions) than the version that was reviewed; " +
		"latest moves with every push.",
	Fix: "Pin each kit: add digest: sha256:<…> (or ref: repo:tag@sha256:<…>), and name a version tag rather than latest. A ref built from ${{ kit.args.NAME }} is judged with the arg's default.",
	Check: func(in *Input) []Finding {
		var out []Finding
		for i, k := range in.Kit.Descriptor.Kits {
			f := fmt.Sprintf("kits[%d].ref", i)
			ref, shown := in.withDefaults(k.Ref), k.Ref
			if ref != k.Ref {
				shown = fmt.Sprintf("%s (%s with the args' defaults)", k.Ref, ref)
			}
			named, err := reference.ParseNormalizedNamed(ref)
			if err != nil {
				continue // spec validation reports it; or an arg without a default
			}
			_, hasDigest := named.(reference.Digested)
			hasDigest = hasDigest || k.Digest != ""
			tagged, hasTag := named.(reference.Tagged)
			switch {
			case hasTag && tagged.Tag() == "latest":
				fd := in.at(f, "kits[%d] names %s by the latest tag, which moves with every push", i, shown)
				fd.Fix = "name a version tag (repo:1.2.3)"
				if !hasDigest {
					fd.Fix += " and pin it with digest: sha256:<…>"
				}
				out = append(out, fd)
			case !hasDigest:
				what := "its tag"
				if !hasTag {
					what = "an implicit latest tag"
				}
				fd := in.at(f, "kits[%d] names %s by %s, without a digest; rebuilding the set can pick up different content", i, shown, what)
				fd.Fix = "add digest: sha256:<…> to this entry (crane digest " + ref + ")"
				out = append(out, fd)
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
	Fix:       "State the size the volume needs in its config, e.g. size: 10GiB.",
	Check: func(in *Input) []Finding {
		var out []Finding
		for _, e := range in.Entries {
			if e.Type != spec.TypeVolume || e.Config == nil {
				continue
			}
			if s, _ := e.Config["size"].(string); s == "" {
				p, _ := e.Config["path"].(string)
				out = append(out, in.at(e.Field()+".config.path", "volume %s has no size, so the runtime gives it 512 MiB", p))
			}
		}
		return out
	},
}

var missingMetadata = &Rule{
	ID:       "missing-metadata",
	Severity: SeverityWarning,
	Summary:  "The published image would lack an org.opencontainers.image.* annotation that version, sourceUrl, licenses or description gives it.",
	Rationale: "These fields become the image's org.opencontainers.image.* annotations, which registries and kit " +
		"pickers display; without them users cannot tell which version they run, where it comes from or its license. " +
		"The version annotation comes from version:, or else from the one version every versioned provides entry " +
		"agrees on, so a kit whose provides are versioned alike is not missing it.",
	Fix: "Add the missing fields at the top of the descriptor.",
	Check: func(in *Input) []Finding {
		d := in.Kit.Descriptor
		type gap struct{ annotation, field, example string }
		var gaps []gap
		versionWhy := ""
		if d.Version == "" {
			switch versions := in.providedVersions(); len(versions) {
			case 1: // derived from the provides
			case 0:
				gaps = append(gaps, gap{"version", "version", `version: "1.0.0"`})
			default:
				versionWhy = fmt.Sprintf(" (no version: field, and the versioned provides disagree: %s)", strings.Join(versions, ", "))
				gaps = append(gaps, gap{"version", "version", `version: "<the kit's own version>"`})
			}
		}
		if d.SourceURL == "" {
			gaps = append(gaps, gap{"source", "sourceUrl", "sourceUrl: https://github.com/<org>/<repo>"})
		}
		if len(d.Licenses) == 0 {
			gaps = append(gaps, gap{"licenses", "licenses", "licenses: [Apache-2.0]"})
		}
		if d.Description == "" {
			gaps = append(gaps, gap{"description", "description", "description: <what the kit adds to a sandbox>"})
		}
		if len(gaps) == 0 {
			return nil
		}
		var absent, add []string
		for _, g := range gaps {
			a := fmt.Sprintf("org.opencontainers.image.%s (from %s)", g.annotation, g.field)
			if g.field == "version" {
				a += versionWhy
			}
			absent = append(absent, a)
			add = append(add, g.example)
		}
		return []Finding{{Range: in.Kit.KeyPosOf("kind"),
			Message: fmt.Sprintf("the published image would have no %s; registries and kit pickers display these annotations", strings.Join(absent, ", ")),
			Fix:     "add at the top level: " + strings.Join(add, "; ")}}
	},
}

// providedVersions returns the distinct versions of the versioned provides
// entries outside deb/ and apk/, as publishing would see them (arg
// references replaced by the args' defaults), in order: one means the
// version annotation is derived from them.
func (in *Input) providedVersions() []string {
	var out []string
	for _, p := range in.Kit.Descriptor.Provides {
		name, ver, ok := strings.Cut(in.withDefaults(strings.TrimSpace(p)), "@")
		if !ok || ver == "" || spec.IsDerivedName(name) || slices.Contains(out, ver) {
			continue
		}
		out = append(out, ver)
	}
	return out
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
			if ok, _ := spdxexp.ValidateLicenses([]string{l}); ok {
				continue
			}
			f := in.at(fmt.Sprintf("licenses[%d]", i), "license %q is not a valid SPDX license expression; registries and policy tools read licenses as SPDX", l)
			if id, ok := suggestLicense(l); ok {
				f.Fix = fmt.Sprintf("write %s", id)
			}
			out = append(out, f)
		}
		return out
	},
}

// suggestLicense guesses the SPDX identifier of a free-form license name
// ("Apache License 2.0" → Apache-2.0).
func suggestLicense(l string) (string, bool) {
	var words []string
	for _, w := range strings.Fields(l) {
		switch strings.ToLower(w) {
		case "license", "licence", "the", "version":
			continue
		}
		words = append(words, w)
	}
	for _, c := range []string{strings.Join(words, "-"), strings.Join(words, "")} {
		if ok, id := spdxexp.ActiveLicense(c); ok {
			return id, true
		}
	}
	return "", false
}

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
		for _, c := range in.yamlComments() {
			for _, m := range spec.FindArgRefs(c.text) {
				p := spec.Pos{File: c.pos.File, Line: c.pos.Line, Col: c.pos.Col + m.Start}
				fd := Finding{Range: rangeWidth(p, m.End-m.Start),
					Message: fmt.Sprintf("comment holds %s, which the specification counts as a reference to arg %q even in a comment", c.text[m.Start:m.End], m.Name),
					Fix:     fmt.Sprintf("write kit.args.%s without the ${{ }} in the comment, or remove it", m.Name)}
				if e, ok := in.rangeEdit(fd.Range, c.text[m.Start:m.End], "kit.args."+m.Name); ok {
					fd.Fixes = in.fix("write kit.args."+m.Name+" without the ${{ }}", true, e)
				}
				out = append(out, fd)
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

// vocabularyHit is one spelling found in the kit's sources.
type vocabularyHit struct {
	voc  int
	term string
	pos  spec.Pos
}

// vocabularyHits finds the spellings of either vocabulary in what the kit
// says, not in what it comments: the syntax line, the descriptor without
// its comments, and the recipe's instructions.
func vocabularyHits(in *Input) []vocabularyHit {
	var out []vocabularyHit
	scan := func(text string, pos func(col int) spec.Pos) {
		if !strings.Contains(text, "docker") && !strings.Contains(text, "/usr/share/") {
			return // every term holds one of these
		}
		for v, voc := range vocabularies {
			for _, t := range voc.terms {
				for from := 0; ; {
					j := strings.Index(text[from:], t)
					if j < 0 {
						break
					}
					out = append(out, vocabularyHit{v, t, pos(from + j + 1)})
					from += j + len(t)
				}
			}
		}
	}
	k := in.Kit
	if src := in.source(k.Path); src != nil {
		first, _, _ := strings.Cut(string(src), "\n")
		if strings.HasPrefix(first, "# syntax=") {
			scan(first, func(col int) spec.Pos { return spec.Pos{File: k.Path, Line: 1, Col: col} })
		}
	}
	for _, l := range in.yamlLines() {
		scan(l.code, func(col int) spec.Pos { return in.yamlPos(l.n, col) })
	}
	if d := in.Recipe; d != nil {
		for _, n := range d.Instructions() {
			for ln := n.StartLine; ln <= n.EndLine; ln++ {
				text := d.line(ln)
				if strings.HasPrefix(strings.TrimSpace(text), "#") {
					continue
				}
				scan(text, func(col int) spec.Pos { return d.Pos(ln, col) })
			}
		}
	}
	return out
}

var mixedSpecVocabulary = &Rule{
	ID:       "mixed-spec-vocabulary",
	Severity: SeverityError,
	Summary:  "The kit mixes docker/runtime-kit spellings with docker/sandbox-kit spellings.",
	Rationale: "docker/runtime-kit:3 with com.docker.runtime/* types and docker/sandbox-kit:3 with com.docker.sandbox/* " +
		"types are different contracts, not interchangeable names: a kit that mixes them is half understood by any " +
		"runtime. Mentions in comments do not count.",
	Fix: "Use one vocabulary throughout: docker/sandbox-kit:3 and com.docker.sandbox/* for Docker Sandboxes.",
	Check: func(in *Input) []Finding {
		hits := vocabularyHits(in)
		var count [2]int
		for _, h := range hits {
			count[h.voc]++
		}
		if count[0] == 0 || count[1] == 0 {
			return nil
		}
		// The syntax line decides the kit's vocabulary; without one, the
		// majority does (sandbox-kit on a tie).
		ref := 0
		if count[1] > count[0] {
			ref = 1
		}
		if len(hits) > 0 && hits[0].pos.Line == 1 && strings.HasPrefix(hits[0].term, "docker/") {
			ref = hits[0].voc
		}
		var out []Finding
		for _, h := range hits {
			if h.voc == ref {
				continue
			}
			want := vocabularies[ref].terms[indexOf(vocabularies[h.voc].terms, h.term)]
			fd := Finding{Range: rangeWidth(h.pos, len(h.term)),
				Message: fmt.Sprintf("%q belongs to the %s vocabulary, but this kit is written in %s; they are different contracts, and a runtime understands only one",
					h.term, vocabularies[h.voc].name, vocabularies[ref].name),
				Fix: fmt.Sprintf("write %q", want)}
			if e, ok := in.rangeEdit(fd.Range, h.term, want); ok {
				fd.Fixes = in.fix(fmt.Sprintf("write %s for %s", want, h.term), false, e) // another contract: behaviour changes
			}
			out = append(out, fd)
		}
		return out
	},
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return 0
}
