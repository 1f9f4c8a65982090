package spec

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/distribution/reference"
	"gopkg.in/yaml.v3"
)

var (
	identRE   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	digestRE  = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
	serviceRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$`)
)

func (v *validator) checkKind() {
	switch v.d.Kind {
	case KindWorkload, KindMixin, KindSet:
	case "sandbox":
		v.errorf("kind", "kind", "SPEC-v3 §4/sandbox-spelling-not-written",
			"kind: sandbox is the legacy spelling; write kind: workload")
	case "":
		// the schema reports the missing field
	default:
		v.errorf("kind", "kind", "", "kind must be workload, mixin or set, not %q", v.d.Kind)
	}
}

func (v *validator) checkIconURL() {
	s := v.d.IconURL
	if s == "" {
		return
	}
	u, err := url.Parse(s)
	if err != nil {
		v.errorf("iconUrl", "icon-url", "", "iconUrl %q is not a URL: %v", s, err)
		return
	}
	if u.Scheme != "https" || u.Host == "" {
		v.errorf("iconUrl", "icon-url", "", "iconUrl %q must be an absolute https URL (consumers fetch and render it)", s)
	}
}

// checkNames checks version, provides, requires, integrates and conflicts.
func (v *validator) checkNames() {
	d := v.d
	if d.Version != "" && !argRef.MatchString(d.Version) {
		if err := CheckVersion(d.Version); err != nil {
			v.errorf("version", "version", "", "%v", err)
		}
	}
	for i, p := range d.Provides {
		f := field("provides", i)
		if argRef.MatchString(p) {
			continue // judged once expanded
		}
		if _, err := ParseProvide(p); err != nil {
			v.errorf(f, "provides", nameRef(err), "provides entry %q: %v", p, err)
		}
	}
	lists := []struct {
		name string
		list []string
	}{{"requires", d.Requires}, {"integrates", d.Integrates}, {"conflicts", d.Conflicts}}
	for _, l := range lists {
		for i, s := range l.list {
			f := field(l.name, i)
			if argRef.MatchString(s) {
				v.errorf(f, "requires-literal", "SPEC-v3 §5/requires-literal",
					"%s entry %q: arg references are not allowed in %s; write the name and constraint out", l.name, s, l.name)
				continue
			}
			var err error
			if l.name == "conflicts" {
				if name, ver, ok := strings.Cut(s, "@"); ok {
					v.errorf(f, "conflicts", "", "conflicts entry %q: a conflict names a capability without a version (@%s); write %q", s, ver, name)
					continue
				}
				err = CheckName(s)
			} else {
				_, err = ParseRequire(s)
			}
			if err != nil {
				v.errorf(f, l.name, nameRef(err), "%s entry %q: %v", l.name, s, err)
			}
		}
	}
}

// nameRef maps a name error to its TCK case.
func nameRef(err error) string {
	var ne *NameError
	if errors.As(err, &ne) && ne.Namespace {
		return "SPEC-v3 §5.1/namespace-reverse-dns"
	}
	return ""
}

// checkAuthoredProvides refuses authored deb/ and apk/ provides.
func (v *validator) checkAuthoredProvides() {
	for i, p := range v.d.Provides {
		if argRef.MatchString(p) {
			continue
		}
		pr, err := ParseProvide(p)
		if err != nil || !IsDerivedName(pr.Name) {
			continue
		}
		ns, _, _ := strings.Cut(pr.Name, "/")
		v.errorf(field("provides", i), "derived-namespaces-reserved", "SPEC-v3 §5.1/derived-namespaces-reserved",
			"provides entry %q is in the %s/ namespace, which publishing derives from the image's package database; remove it", p, ns)
	}
}

func (v *validator) checkArgs() {
	for _, name := range slices.Sorted(maps.Keys(v.d.Args)) {
		a := v.d.Args[name]
		f := field("args", name)
		if !identRE.MatchString(name) {
			continue // the schema reports the key
		}
		if a.Required && a.Default != nil {
			v.errorf(f, "arg-exclusive", "", "arg %q states both required and default; a required arg has no default", name)
		}
		if len(a.Enum) > 0 && a.Pattern != "" {
			v.errorf(f, "arg-exclusive", "", "arg %q states both enum and pattern; keep one", name)
		}
		if a.Pattern != "" {
			if _, err := regexp.Compile(a.Pattern); err != nil {
				v.errorf(field(f, "pattern"), "arg-pattern", "", "arg %q: pattern does not compile as an RE2 regular expression (%v); fix the expression", name, err)
			}
		}
		if a.Env != "" && a.BuildArg != "" {
			v.errorf(f, "arg-exclusive", "", "arg %q states both env and buildArg; an arg resolves in one phase: env exports it at create, buildArg passes it to the build", name)
		}
		if a.Env != "" && !identRE.MatchString(a.Env) {
			v.errorf(field(f, "env"), "arg-env", "", "arg %q: env %q is not a valid environment variable name; use letters, digits and underscores, not starting with a digit", name, a.Env)
		}
		if a.BuildArg != "" && !identRE.MatchString(a.BuildArg) {
			v.errorf(field(f, "buildArg"), "arg-build-arg", "", "arg %q: buildArg %q is not a valid build-arg name; use letters, digits and underscores, not starting with a digit", name, a.BuildArg)
		}
	}
}

// checkSchemaVersionQuoted warns of schemaVersion: 3 written unquoted:
// yaml.v3 decodes the number into the string field as "3", so kitsmith and
// the reference accept it, but the kit's JSON Schema requires the string,
// so editors using it (yaml-language-server) and JSON tools refuse the
// same file: two readers that disagree.
func (v *validator) checkSchemaVersionQuoted() {
	if v.k.doc == nil {
		return
	}
	_, n, ok := v.k.doc.find([]string{"schemaVersion"})
	if !ok || n == nil || n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || n.Value != "3" {
		return
	}
	v.warnf("schemaVersion", "schema-version-quoted", "SPEC-v3 §4/schema-version-3",
		`schemaVersion is written 3, a number: kitsmith and the reference decoder read it as the string "3", but the kit's JSON Schema, editors using it and JSON tools refuse a number; write schemaVersion: "3"`)
}

func (v *validator) checkRecipe() {
	d := v.d
	if d.Build != "" && d.Dockerfile != "" {
		v.suppress("")
		v.errorf("dockerfile", "one-recipe", "",
			"build: and dockerfile: are both declared; a kit's content recipe lives in exactly one place")
	}
	if len(d.Kits) > 0 && d.Build != "" {
		v.suppress("")
		v.errorf("build", "set-declares-no-recipe", "SPEC-v3 §3.4/set-declares-no-recipe",
			"kits: and build: are both declared; a set's content is the kits it lists, so it has no recipe")
	}
	if len(d.Kits) > 0 && d.Dockerfile != "" {
		v.suppress("")
		v.errorf("dockerfile", "set-declares-no-recipe", "SPEC-v3 §3.4/set-declares-no-recipe",
			"kits: and dockerfile: are both declared; a set's content is the kits it lists, so it has no recipe")
	}
	if d.Dockerfile != "" {
		if _, ok := cleanRel(d.Dockerfile); !ok {
			v.errorf("dockerfile", "dockerfile-inside-context", "SPEC-v3 §4/dockerfile-inside-context",
				"dockerfile: %q must be a relative path inside the kit directory, which is the build's context; move the recipe into it", d.Dockerfile)
		}
	}
}

func (v *validator) checkKits() {
	d := v.d
	if d.Kind == KindSet && len(d.Kits) == 0 {
		r := v.k.PosOf("kits")
		if !v.has("kits") {
			r = v.k.PosOf("kind")
		}
		v.semantic.add(false, newErrorf(r, "kits", "set-has-kits", "SPEC-v3 §3.4/set-has-kits",
			"kind: set lists no kits; a set's content is the kits it lists, so add a kits: list of published kit references"))
	} else if d.Kits != nil && len(d.Kits) == 0 {
		v.errorf("kits", "set-has-kits", "SPEC-v3 §3.4/set-has-kits", "kits: is present but empty; list the kits this one is merged from, or remove the field")
	}
	seen := map[string]int{}
	for i, kit := range d.Kits {
		at := field("kits", i)
		ref := kit.Ref
		if strings.TrimSpace(ref) == "" {
			v.errorf(field(at, "ref"), "kit-ref", "SPEC-v3 §3.4/kit-published-reference", "kits[%d]: ref is required; write the registry reference the kit is published at", i)
		}
		if kit.Digest != "" && !digestRE.MatchString(kit.Digest) {
			v.errorf(field(at, "digest"), "kit-digest", "", "kits[%d]: digest %q is not a sha256 manifest digest; write sha256: and 64 lowercase hex digits, or remove it", i, kit.Digest)
		}
		if argRef.MatchString(ref) {
			for _, m := range argRef.FindAllStringSubmatch(ref, -1) {
				if a, ok := d.Args[m[1]]; ok && a.BuildArg == "" {
					v.errorf(field(at, "ref"), "kit-ref-build-phase", "",
						"kits[%d]: ref uses arg %q, which resolves at create, but a set's kits are resolved at build; give the arg a buildArg or write the reference out", i, m[1])
				}
			}
		} else if strings.TrimSpace(ref) != "" {
			v.checkKitRef(i, kit)
		}
		if strings.TrimSpace(ref) != "" {
			if j, dup := seen[ref]; dup {
				v.errorf(field(at, "ref"), "kit-duplicate", "", "kits[%d]: %q is already listed at kits[%d]; remove one", i, ref, j)
			} else {
				seen[ref] = i
			}
		}
		for _, name := range slices.Sorted(maps.Keys(kit.Args)) {
			if !identRE.MatchString(name) {
				v.errorf(field(at, "args"), "kit-args", "", "kits[%d]: %q is not a valid arg name; use letters, digits and underscores, not starting with a digit", i, name)
			}
		}
	}
}

func (v *validator) checkKitRef(i int, kit KitRef) {
	ref := kit.Ref
	f := field("kits", i, "ref")
	const tck = "SPEC-v3 §3.4/kit-published-reference"
	switch {
	case ref != strings.TrimSpace(ref) || strings.ContainsAny(ref, " \t\n"):
		v.errorf(f, "kit-ref", tck, "kits[%d]: ref %q contains whitespace; remove it", i, ref)
	case strings.HasPrefix(ref, "git+"):
		v.errorf(f, "kit-ref", tck, "kits[%d]: ref %q is a git reference; a set lists published kit images, so publish the kit and write its registry reference", i, ref)
	case strings.HasPrefix(ref, ".") || strings.HasPrefix(ref, "/"):
		v.errorf(f, "kit-ref", tck, "kits[%d]: ref %q is a local path; a set lists published kit images, so it builds the same anywhere: publish the kit and write its registry reference", i, ref)
	default:
		named, err := reference.ParseNormalizedNamed(ref)
		if err != nil {
			v.errorf(f, "kit-ref", tck, "kits[%d]: ref %q is not an image reference (%v); write registry/repository:tag or registry/repository@sha256:…", i, ref, err)
			return
		}
		if dg, ok := named.(reference.Digested); ok && kit.Digest != "" && dg.Digest().String() != kit.Digest {
			v.errorf(field("kits", i, "digest"), "kit-digest", "", "kits[%d]: ref pins %s but digest: says %s; one kit has one pin, so make them agree or drop one", i, dg.Digest(), kit.Digest)
		}
	}
}

// checkSource checks what only an authored source has: the recipe form and
// the files it names.
func (v *validator) checkSource() {
	k, d := v.k, v.d
	if k.Form == FormComment {
		for _, f := range []string{"build", "dockerfile", "kits"} {
			if v.has(f) {
				v.keyErrorf(f, "comment-descriptor-no-content", "SPEC-v3 §3.3/comment-descriptor-no-content",
					"a # kit: comment descriptor must not declare %s: the Dockerfile carrying it is already the content recipe", f)
			}
		}
	}
	if d.Kind == KindWorkload && k.Recipe == nil && len(d.Kits) == 0 && d.Dockerfile == "" && !k.unreadRecipe {
		if k.nearMissRecipe != "" {
			v.errorf("kind", "workload-has-content", "SPEC-v3 §3.5/workload-has-content",
				"workload kit %s has no content: %s is beside it, but a companion recipe is found only by the exact name %s.dockerfile; rename it", k.Stem, k.nearMissRecipe, k.Stem)
		} else {
			v.errorf("kind", "workload-has-content", "SPEC-v3 §3.5/workload-has-content",
				"workload kit %s has no content: a workload's layers are its root filesystem, so add a build: recipe or a companion %s.dockerfile", k.Stem, k.Stem)
		}
	}
	v.checkNearMissRecipe()
	if r := k.Recipe; r != nil {
		first, _, _ := strings.Cut(strings.TrimSpace(string(r.Text)), "\n")
		if strings.HasPrefix(first, "# syntax=") && (strings.Contains(first, "sandbox-kit") || strings.Contains(first, "sbx-kit") || strings.Contains(first, "runtime-kit")) {
			f := ""
			if r.Inline {
				f = "build"
			}
			v.semantic.add(false, &Error{Range: Range{Start: r.Pos(1, 1)}, Field: f, Code: "recipe-syntax",
				Msg: "the content recipe names the kit frontend in its # syntax= line; a recipe is an ordinary Dockerfile, so remove that line or name a Dockerfile frontend"})
		}
		v.checkRecipeParses(r)
	}
	for _, e := range d.Entries() {
		if e.Type != TypeAgentContext || e.Config == nil {
			continue
		}
		cf, ok := e.Config["contentFile"].(string)
		if !ok || cf == "" || hasRef(cf) {
			continue
		}
		f := field(e.Field(), "config", "contentFile")
		if _, ok := cleanRel(cf); !ok {
			v.errorf(f, "content-file-inside-context", "", "contentFile %q must be a relative path inside the kit directory; move the file into it", cf)
			continue
		}
		if base := path.Base(cf); !e.InGroup && (base == "kit.yaml" || base == "kit.dockerfile") {
			v.errorf(f, "content-file-reserved", "", "contentFile %q would be staged as %s, which is reserved for the kit's own sources; rename it", cf, base)
		}
	}
}

// has reports whether the document states a top-level key.
func (v *validator) has(key string) bool {
	m, ok := v.value.(map[string]any)
	if !ok {
		return false
	}
	_, ok = m[key]
	return ok
}

// checkPublished applies the published-form rules (SPEC-v3 §9).
func (v *validator) checkPublished() {
	d := v.d
	for _, e := range d.Entries() {
		if e.Type != TypeAgentSkill || e.Config == nil {
			continue
		}
		if p, ok := e.Config["path"].(string); ok && hasRef(p) {
			v.errorf(field(e.Field(), "config", "path"), "skill-source-literal", "agent-skill@1/source-literal",
				"a published agent-skill path must be literal; use a build-phase arg for image content")
		}
	}
	if argRef.MatchString(d.Version) {
		v.errorf("version", "published-refs", "", "published version %q still holds an arg reference; build-phase expansion did not run", d.Version)
	}
	for i, p := range d.Provides {
		if argRef.MatchString(p) {
			v.errorf(field("provides", i), "published-refs", "", "published provides entry %q still holds an arg reference; build-phase expansion did not run", p)
		}
	}
	if d.Version == "" {
		for i, p := range d.Provides {
			if argRef.MatchString(p) {
				continue
			}
			if pr, err := ParseProvide(p); err == nil && pr.Version == "" {
				v.errorf(field("provides", i), "versioned-provides", "SPEC-v3 §9.2/versioned-provides",
					"provides entry %q has no version: add @<version> here or a top-level version: field", p)
			}
		}
	}
	for _, ref := range v.refs() {
		a, ok := d.Args[ref.name]
		if !ok || a.BuildArg == "" {
			continue
		}
		if ref.field == "version" || strings.HasPrefix(ref.field, "provides[") || strings.HasPrefix(ref.field, "kits[") {
			continue
		}
		v.semantic.add(false, &Error{Range: ref.rng, Field: ref.field, Code: "published-refs",
			Msg: fmt.Sprintf("published descriptor still references ${{ kit.args.%s }}, a build-phase arg; build-phase expansion did not reach it", ref.name)})
	}
	if d.Kind == KindSet {
		v.errorf("kind", "set-kind-never-published", "SPEC-v3 §3.4/set-kind-never-published",
			"a published descriptor never has kind: set; the merged kit is published as workload or mixin")
	}
	for i, kit := range d.Kits {
		if argRef.MatchString(kit.Ref) {
			v.errorf(field("kits", i, "ref"), "published-refs", "", "published kits[%d].ref %q still holds an arg reference; build-phase expansion did not run", i, kit.Ref)
		}
		if kit.Digest == "" {
			v.semantic.add(false, newErrorf(v.k.PosOf(field("kits", i)), field("kits", i, "digest"), "published-kit-digest", "",
				"published descriptor lists %s with no digest; the build pins every kit of a set to the manifest it resolved, so add digest: sha256:…", kit.Ref))
		}
	}
}
