package artifact

import (
	"encoding/json"
	"fmt"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

// FormatVersion is the formatVersion of the JSON documents of this
// package's results (InspectionDocument).
const FormatVersion = 1

// InspectionDocument is the JSON document of an Inspection, as kitsmith
// inspect --format json prints it: a designed shape, pinned by golden
// files, not the Inspection struct itself.
type InspectionDocument struct {
	// FormatVersion is FormatVersion.
	FormatVersion    int                 `json:"formatVersion"`
	Reference        string              `json:"reference"`
	Digest           string              `json:"digest"`
	MediaType        string              `json:"mediaType"`
	Size             int64               `json:"size"`
	IndexAnnotations map[string]string   `json:"indexAnnotations,omitempty"`
	Manifests        []InspectedManifest `json:"manifests"`
	Attestations     []InspectedBlob     `json:"attestations,omitempty"`
	Referrers        []InspectedBlob     `json:"referrers,omitempty"`
	ReferrersError   string              `json:"referrersError,omitempty"`
	Kit              InspectedKit        `json:"kit"`
}

// InspectedManifest is a platform manifest in an InspectionDocument.
type InspectedManifest struct {
	Platform    string            `json:"platform"`
	Digest      string            `json:"digest"`
	MediaType   string            `json:"mediaType"`
	Size        int64             `json:"size"`
	Config      InspectedBlob     `json:"config"`
	Layers      []InspectedBlob   `json:"layers"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// InspectedBlob is a config, layer, attestation or referrer in an
// InspectionDocument.
type InspectedBlob struct {
	Digest       string `json:"digest"`
	MediaType    string `json:"mediaType"`
	Size         int64  `json:"size"`
	ArtifactType string `json:"artifactType,omitempty"`
}

// InspectedKit is what an InspectionDocument says of the kit.
type InspectedKit struct {
	Platform         string            `json:"platform"`
	AnnotationSource string            `json:"annotationSource"`
	Annotations      map[string]string `json:"annotations"`
	// Descriptor is the descriptor annotation's JSON as published; null
	// when it does not decode (DescriptorError says why).
	Descriptor      json.RawMessage `json:"descriptor"`
	DescriptorError string          `json:"descriptorError,omitempty"`
	Kind            string          `json:"kind,omitempty"`
	Version         string          `json:"version,omitempty"`
	Capabilities    []string        `json:"capabilities"`
	Surface         *spec.Surface   `json:"permissionSurface,omitempty"`
	BuiltBy         *BuiltBy        `json:"builtBy,omitempty"`
	Stem            string          `json:"stem,omitempty"`
	StagedFiles     []InspectedFile `json:"stagedFiles"`
}

// InspectedFile is a staged file in an InspectionDocument; Mode is octal
// ("0644").
type InspectedFile struct {
	Path string `json:"path"`
	Size int64  `json:"size"`
	Mode string `json:"mode"`
}

func inspectedBlobs(list []BlobInfo) []InspectedBlob {
	out := make([]InspectedBlob, 0, len(list))
	for _, b := range list {
		out = append(out, InspectedBlob(b))
	}
	return out
}

// Document returns in's JSON document.
func (in *Inspection) Document() *InspectionDocument {
	doc := &InspectionDocument{
		FormatVersion: FormatVersion, Reference: in.Reference, Digest: in.Digest, MediaType: in.MediaType, Size: in.Size,
		IndexAnnotations: in.IndexAnnotations, Manifests: []InspectedManifest{},
		Attestations: inspectedBlobs(in.Attestations), Referrers: inspectedBlobs(in.Referrers), ReferrersError: in.ReferrersError,
		Kit: InspectedKit{
			Platform: in.Platform, AnnotationSource: in.AnnotationSource, Annotations: in.Annotations,
			Descriptor: json.RawMessage("null"), DescriptorError: in.DescriptorError,
			Capabilities: []string{}, Surface: in.Surface, BuiltBy: in.BuiltBy, Stem: in.Stem,
			StagedFiles: []InspectedFile{},
		},
	}
	for _, m := range in.Manifests {
		doc.Manifests = append(doc.Manifests, InspectedManifest{
			Platform: m.Platform, Digest: m.Digest, MediaType: m.MediaType, Size: m.Size,
			Config: InspectedBlob(m.Config), Layers: inspectedBlobs(m.Layers), Annotations: m.Annotations,
		})
	}
	if d := in.Descriptor; d != nil {
		doc.Kit.Descriptor = in.DescriptorJSON()
		doc.Kit.Kind, doc.Kit.Version = d.Kind, DescriptorVersion(d)
		doc.Kit.Capabilities = append(doc.Kit.Capabilities, in.Capabilities...)
	}
	for _, f := range in.StagedFiles {
		doc.Kit.StagedFiles = append(doc.Kit.StagedFiles, InspectedFile{Path: f.Path, Size: f.Size, Mode: fmt.Sprintf("%04o", f.Mode)})
	}
	return doc
}
