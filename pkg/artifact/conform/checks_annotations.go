package conform

import (
	"fmt"
	"strings"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

var descriptorAnnotationInfo = CheckInfo{ID: "descriptor-annotation", Spec: "SPEC-v3 §9.3",
	Summary: "The manifest carries the vnd.docker.sandbox.kit.descriptor annotation and it decodes."}

// kitChecks lists kit-tck's artifact checks after descriptor-annotation,
// in kit-tck's order.
// The annotation keys the checks compare, as artifact.Annotations writes
// them: the org.opencontainers.image.* keys a descriptor determines, in
// the order SPEC-v3 §7.3 lists them; the ones a kit never carries; and
// the kit keys compared between an index and its manifests.
var (
	derivedOCIKeys = []string{
		artifact.AnnotationTitle, artifact.AnnotationDescription, artifact.AnnotationAuthors,
		artifact.AnnotationSource, artifact.AnnotationLicenses, artifact.AnnotationVersion,
	}
	forbiddenOCIKeys = []string{artifact.AnnotationRevision, artifact.AnnotationBaseName, artifact.AnnotationBaseDigest}
	promotedKeys     = []string{
		artifact.AnnotationDescriptor, artifact.AnnotationSchemaVersion, artifact.AnnotationCapabilities, artifact.AnnotationBuiltBy,
	}
)

func kitChecks() []check {
	return []check{
		{CheckInfo{"agent-skill-content", "Every agent-skill@1 entry's path holds a regular SKILL.md file.", "agent-skill@1/content-present"}, checkAgentSkillContent},
		{CheckInfo{"descriptor-valid", "The descriptor is a valid published descriptor.", "SPEC-v3 §9.3"}, checkDescriptorValid},
		{CheckInfo{"schema-version-annotation", "The schema-version annotation equals the descriptor's schemaVersion.", "SPEC-v3 §9.3"}, checkSchemaVersion},
		{CheckInfo{"capabilities-annotation", "The capabilities annotation lists the descriptor's capability types, and is absent when there are none.", "SPEC-v3 §9.3"}, checkCapabilities},
		{CheckInfo{"built-by-annotation", "A built-by annotation, when present, decodes with a name and a version.", "SPEC-v3 §9.3"}, checkBuiltBy},
		{CheckInfo{"oci-annotations", "The org.opencontainers.image.* annotations are derived from the descriptor, created is RFC 3339, and revision and base.* are absent.", "SPEC-v3 §9.3"}, checkOCIAnnotations},
		{CheckInfo{"at-least-one-layer", "The manifest has at least one layer, and its layers read.", "SPEC-v3 §10"}, checkLayers},
		{CheckInfo{"staged-sources", "The kit's own staged kit.yaml decodes to the descriptor annotation.", "SPEC-v3 §10"}, checkStagedSources},
		{CheckInfo{"staged-recipe", "A kit built from a recipe stages it as kit.dockerfile.", "SPEC-v3 §10"}, checkStagedRecipe},
		{CheckInfo{"agent-context-staged", "Every agent-context contentFile is staged beside the kit's sources.", "agent-context@1"}, checkAgentContextStaged},
		{CheckInfo{"image-config", "The image config parses, and a workload's has an entrypoint or cmd.", "SPEC-v3 §10"}, checkImageConfig},
		{CheckInfo{"overlay-home-ownership", "A mixin ships /home only as uid 0 and /home/agent only as uid 1000.", "SPEC-v3 §10/overlay-home-ownership"}, checkHomeOwnership},
		{CheckInfo{"overlay-links-resolve", "A mixin's symbolic links resolve within its own layers.", "SPEC-v3 §10/overlay-links-resolve"}, checkLinksResolve},
		{CheckInfo{"sbx-platform-floor", "A workload declaring sbx@1 ships /bin/sh and /bin/bash executable by a config user that resolves in /etc/passwd.", "sbx@1"}, checkSBXFloor},
		{CheckInfo{"sbx-persistent-env", "A workload declaring sbx@1 sets BASH_ENV to an absolute path it ships.", "sbx@1/bash-env-names-a-shipped-file"}, checkSBXEnv},
		{CheckInfo{"derived-provides", "deb/ and apk/ provides appear only on workloads and match the package databases.", "SPEC-v3 §9.6"}, checkDerivedProvides},
		{CheckInfo{"merged-set", "A merged set declares no recipe and stages its own sources and its kits'.", "SPEC-v3 §9.5"}, checkMergedSet},
		{CheckInfo{"merged-set-declarations", "A merged set's listed kits are valid at their digests, staged, and their provides, licenses and requires are merged by the rules.", "SPEC-v3 §9.5"}, checkMergedSetDeclarations},
		{CheckInfo{"index-annotations", "The index's kit annotations equal the manifest's; one missing from the index is a warning.", "SPEC-v3 §9.3/manifest-fallback"}, checkIndexAnnotations},
	}
}

// decodeDescriptor runs descriptor-annotation: it returns the findings
// when the annotation is missing or does not decode, and nil (with the
// descriptor decoded into s) otherwise.
func (s *checkState) decodeDescriptor() []Finding {
	raw, ok := s.ann[artifact.AnnotationDescriptor]
	if !ok || raw == "" {
		return fail("the manifest carries no %s annotation, so it is not a kit: sbx reads a kit's declarations from it. %s",
			artifact.AnnotationDescriptor, s.missingDescriptorHint())
	}
	k, err := spec.Parse(artifact.AnnotationDescriptor, []byte(raw))
	if err == nil && k.Descriptor == nil {
		err = k.Problems().Err()
		if err == nil {
			err = fmt.Errorf("it is not a mapping")
		}
	}
	if err == nil && len(k.Problems().Errors) > 0 {
		err = k.Problems().Err()
	}
	if err != nil {
		return fail("the %s annotation does not decode: %v; it must hold the published descriptor as compact JSON", artifact.AnnotationDescriptor, err)
	}
	s.raw, s.kit, s.d = raw, k, k.Descriptor
	return nil
}

func (s *checkState) missingDescriptorHint() string {
	switch {
	case hasDockerMediaTypes(s.m):
		return "Docker's classic image store dropped it (see oci-media-types)."
	case s.st.Index != nil && s.st.Index.Annotations[artifact.AnnotationDescriptor] != "":
		return "The index carries it, but every platform manifest must too (consumers fall back to the manifest); kitsmith build annotates every manifest."
	}
	return "Build with kitsmith build; with buildx, pass each kit annotation as --output annotation-manifest.<key>=<value> (and annotation-index.<key>=<value> for a multi-platform index)."
}

func checkDescriptorValid(s *checkState) []Finding {
	rep := s.kit.Validate(spec.WithMode(spec.ModePublished))
	var out []Finding
	add := func(sev Severity, e *spec.Error) {
		msg := e.Msg
		if e.Field != "" && !strings.HasPrefix(msg, e.Field) {
			msg = e.Field + ": " + msg
		}
		f := Finding{Severity: sev, Message: "published descriptor: " + msg}
		if e.Ref != "" {
			f.Spec = e.Ref
		}
		out = append(out, f)
	}
	for _, e := range rep.Errors {
		add(SeverityFail, e)
	}
	for _, e := range rep.Warnings {
		add(SeverityWarn, e)
	}
	return out
}

func checkSchemaVersion(s *checkState) []Finding {
	got, ok := s.ann[artifact.AnnotationSchemaVersion]
	switch {
	case !ok:
		return fail("%s is missing; the descriptor says schemaVersion %q", artifact.AnnotationSchemaVersion, s.d.SchemaVersion)
	case got != s.d.SchemaVersion:
		return fail("%s is %q; the descriptor says %q", artifact.AnnotationSchemaVersion, got, s.d.SchemaVersion)
	}
	return nil
}

func checkCapabilities(s *checkState) []Finding {
	got, present := s.ann[artifact.AnnotationCapabilities]
	want := strings.Join(s.d.CapabilityTypes(), ",")
	switch {
	case want == "" && present:
		return fail("%s is %q, but the kit requests no capabilities; the key is omitted when there are none", artifact.AnnotationCapabilities, got)
	case want != "" && !present:
		return fail("%s is missing; the descriptor requests %q (consumers read it to learn what the kit asks for before decoding the descriptor)", artifact.AnnotationCapabilities, want)
	case got != want:
		return fail("%s is %q; the descriptor requests %q (distinct types, group members included, sorted, joined with \",\")", artifact.AnnotationCapabilities, got, want)
	}
	return nil
}

func checkBuiltBy(s *checkState) []Finding {
	v, ok := s.ann[artifact.AnnotationBuiltBy]
	if !ok {
		return nil // kits published before the key existed carry none
	}
	if _, err := artifact.ParseBuiltBy(v); err != nil {
		return fail("%s is %q: %v; write compact JSON {\"name\":…,\"version\":…,\"revision\":…}", artifact.AnnotationBuiltBy, v, err)
	}
	return nil
}

func checkOCIAnnotations(s *checkState) []Finding {
	derived := artifact.OCIAnnotations(s.d)
	var out []Finding
	for _, k := range derivedOCIKeys {
		want, derivedHas := derived[k]
		got, present := s.ann[k]
		switch {
		case derivedHas && !present:
			out = append(out, fail("%s is missing; the descriptor derives %q", k, want)...)
		case derivedHas && got != want:
			out = append(out, fail("%s is %q; the descriptor derives %q", k, got, want)...)
		case !derivedHas && present:
			out = append(out, fail("%s is %q, but the descriptor field it derives from is empty (or, for version, its provides disagree)", k, got)...)
		}
	}
	if c, ok := s.ann[artifact.AnnotationCreated]; ok && !artifact.ValidCreated(c) {
		out = append(out, withSpec("SPEC-v3 §9.3/created-rfc3339",
			fail("%s is %q, which is not an RFC 3339 timestamp; derive it from SOURCE_DATE_EPOCH, e.g. 1970-01-01T00:00:00Z", artifact.AnnotationCreated, c))...)
	}
	for _, k := range forbiddenOCIKeys {
		if _, ok := s.ann[k]; ok {
			out = append(out, fail("%s must not be set on a kit: VCS and base-image state belong in provenance, not the descriptor's annotations", k)...)
		}
	}
	return out
}

func checkIndexAnnotations(s *checkState) []Finding {
	if s.st.Index == nil {
		return nil
	}
	idx := s.st.Index.Annotations
	var out []Finding
	for _, k := range append(append([]string{}, promotedKeys...), derivedOCIKeys...) {
		mv, onManifest := s.ann[k]
		iv, onIndex := idx[k]
		switch {
		case onIndex && !onManifest:
			out = append(out, fail("the index carries %s, which the manifest does not: a consumer reading the index would judge a kit the manifest is not", k)...)
		case !onIndex && onManifest && isKitKey(k):
			out = append(out, warn("the index carries no %s annotation; consumers fall back to the platform manifest, but kitsmith build promotes every kit annotation to the index", k)...)
		case onIndex && iv != mv:
			out = append(out, fail("the index's %s disagrees with the manifest's: a consumer reading the index would judge a different kit than the one it runs", k)...)
		}
	}
	return out
}

func isKitKey(k string) bool { return strings.HasPrefix(k, "vnd.docker.sandbox.kit.") }
