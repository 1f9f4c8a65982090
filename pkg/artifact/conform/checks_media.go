package conform

import (
	"fmt"
	"strings"

	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/artifact/internal/kitimage"
)

var mediaTypesInfo = CheckInfo{ID: "oci-media-types", Spec: "SPEC-v3 §10",
	Summary: "The kit is a plain OCI image: OCI index, manifest, image config and layer media types, no artifactType, filesystem layers only."}

// dockerClassicFix is how a kit pushed by Docker's classic image store is
// rebuilt.
const dockerClassicFix = "It was pushed by Docker's default `docker` driver (the classic image store), " +
	"which writes Docker media types and drops annotations; sbx refuses such an image. " +
	"Build with `kitsmith build --push`, or with buildx on a docker-container builder and oci-mediatypes=true " +
	"(docker buildx create --driver docker-container --use; docker buildx build --output type=image,oci-mediatypes=true,push=true,annotation-manifest.<key>=<value> …)."

// indexMediaTypeFindings judges the index itself and what it lists.
func indexMediaTypeFindings(st *kitimage.Structure) []Finding {
	if st.Index == nil {
		return nil
	}
	var out []Finding
	add := func(fs []Finding) {
		for _, f := range fs {
			f.Check, f.Spec = mediaTypesInfo.ID, mediaTypesInfo.Spec
			out = append(out, f)
		}
	}
	if st.IndexType == types.DockerManifestList {
		msg := fmt.Sprintf("the index is a Docker manifest list (%s), not an OCI image index", st.IndexType)
		if len(st.Index.Annotations) == 0 {
			msg += ", and it carries no annotations"
		}
		add(fail("%s. %s", msg, dockerClassicFix))
	}
	if st.Index.ArtifactType != "" {
		add(fail("the index declares artifactType %q: a kit is a plain OCI image with no artifactType, so it was pushed as an OCI artifact (oras push or similar); publish the kit image itself with kitsmith build --push", st.Index.ArtifactType))
	}
	for _, d := range st.Index.Manifests {
		if d.ArtifactType != "" {
			add(warn("the index entry of %s carries artifactType %q: a kit's index lists plain images, and its entries carry no artifactType (BuildKit writes none; go-containerregistry's index builder copies the config media type there). Rebuild with kitsmith build", d.Digest, d.ArtifactType))
		}
	}
	for _, d := range st.Others {
		if kitimage.UnknownPlatform(d) && !d.MediaType.IsIndex() {
			add(fail("the index lists %s for platform unknown/unknown without %s: %s: it is neither a platform image a runtime can select nor an attestation manifest as BuildKit marks them; rebuild with kitsmith build, or mark it",
				d.Digest, artifact.AnnotationReferenceType, artifact.ReferenceTypeAttestation))
			continue
		}
		if d.MediaType.IsIndex() {
			add(fail("the index lists a nested index %s: a kit's index lists its platform manifests directly", d.Digest))
			continue
		}
		add(fail("the index lists %s of media type %s, which is neither a platform image manifest nor an attestation manifest", d.Digest, kitimage.MediaTypeOrNone(d.MediaType)))
	}
	return out
}

// dockerLayerTypes are the Docker layer media types.
var dockerLayerTypes = map[types.MediaType]bool{
	types.DockerLayer: true, types.DockerUncompressedLayer: true, types.DockerForeignLayer: true,
}

func hasDockerMediaTypes(m *kitimage.Manifest) bool {
	if kitimage.ManifestType(m) == types.DockerManifestSchema2 || m.Manifest.Config.MediaType == types.DockerConfigJSON {
		return true
	}
	for _, l := range m.Manifest.Layers {
		if dockerLayerTypes[l.MediaType] {
			return true
		}
	}
	return false
}

// manifestMediaTypeFindings judges one platform manifest's media types.
func manifestMediaTypeFindings(s *checkState) []Finding {
	m := s.m
	var out []Finding
	if hasDockerMediaTypes(m) {
		var parts []string
		if mt := kitimage.ManifestType(m); mt == types.DockerManifestSchema2 {
			parts = append(parts, fmt.Sprintf("a Docker v2 manifest (%s)", mt))
		}
		if mt := m.Manifest.Config.MediaType; mt == types.DockerConfigJSON {
			parts = append(parts, fmt.Sprintf("a Docker image config (%s)", mt))
		}
		n, mt := 0, types.MediaType("")
		for _, l := range m.Manifest.Layers {
			if dockerLayerTypes[l.MediaType] {
				n, mt = n+1, l.MediaType
			}
		}
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d Docker layer%s (%s)", n, plural(n), mt))
		}
		msg := "the image has " + joinAnd(parts) + ", where a kit has OCI media types"
		if len(m.Manifest.Annotations) == 0 {
			msg += ", and its manifest carries no annotations, so the kit descriptor is gone too"
		}
		out = append(out, fail("%s. %s", msg, dockerClassicFix)...)
	}
	if m.Manifest.ArtifactType != "" {
		out = append(out, fail("the manifest declares artifactType %q: a kit is a plain OCI image with no artifactType, so it was pushed as an OCI artifact (oras push or similar) and sbx does not read it as a kit; publish the kit image itself with kitsmith build --push", m.Manifest.ArtifactType)...)
	}
	switch mt := m.Manifest.Config.MediaType; mt {
	case types.OCIConfigJSON, types.DockerConfigJSON:
	case types.OCIEmptyJSON:
		out = append(out, fail("the config is the OCI empty descriptor (%s): a kit's config is an image config (application/vnd.oci.image.config.v1+json), even a declaration-only mixin's, which holds its platform", mt)...)
	default:
		out = append(out, fail("the config has media type %s, which is not an image config: a kit's config is application/vnd.oci.image.config.v1+json", kitimage.MediaTypeOrNone(mt))...)
	}
	for i, l := range m.Manifest.Layers {
		if !kitimage.TarLayerTypes[l.MediaType] {
			out = append(out, fail("layer %d (%s) has media type %s, which is not a filesystem layer: a runtime cannot unpack it into the sandbox", i, l.Digest, kitimage.MediaTypeOrNone(l.MediaType))...)
		}
	}
	return out
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// joinAnd joins a list as prose: "a", "a and b", "a, b and c".
func joinAnd(list []string) string {
	if len(list) < 2 {
		return strings.Join(list, "")
	}
	return strings.Join(list[:len(list)-1], ", ") + " and " + list[len(list)-1]
}
