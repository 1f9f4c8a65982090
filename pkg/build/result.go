package build

import (
	"fmt"
	"maps"

	"github.com/containerd/platforms"
	"github.com/google/go-containerregistry/pkg/v1"
	ocispecs "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/artifact/conform"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// Result describes a built, checked kit image.
type Result struct {
	// Route is how the kit was built.
	Route Route
	// Stem is the kit's staged name (/usr/share/sandbox/kit/<stem>/).
	Stem string
	// Kind is the published kind: workload or mixin.
	Kind string
	// Descriptor is the published descriptor, derived provides included.
	Descriptor *spec.Descriptor
	// DescriptorYAML is the published descriptor as staged in kit.yaml.
	DescriptorYAML []byte
	// Annotations are the kit annotations on every manifest and the index.
	Annotations map[string]string
	// Index is the image index's descriptor (digest, size, media type).
	Index v1.Descriptor
	// Manifests are the platform manifests, in index order; attestation
	// manifests are left out.
	Manifests []Manifest
	// Attestations counts the attestation manifests in the index.
	Attestations int
	// Warnings are the publish warnings (e.g. a descriptor over the soft
	// size budget).
	Warnings spec.Errors
	// Check is the conformance check's report; it holds no failure, but
	// may hold warnings.
	Check *conform.Report
	// Written lists the outputs written, in the order of Options.Outputs.
	Written []Written
}

// Manifest is one platform manifest of the index.
type Manifest struct {
	// Platform is e.g. "linux/arm64/v8".
	Platform string
	// Digest is the manifest digest.
	Digest v1.Hash
	// Size is the manifest size in bytes.
	Size int64
}

// Written is an output that was written.
type Written struct {
	// Output is the output as requested.
	Output Output
	// Reference is where the index now is: the registry reference pinned
	// by digest (repo:tag@sha256:…), or the layout directory or archive
	// path.
	Reference string
}

// result describes b.
func (b *built) result(opts *options) (*Result, error) {
	digest, err := b.index.Digest()
	if err != nil {
		return nil, fmt.Errorf("reading the built index: %w", err)
	}
	size, err := b.index.Size()
	if err != nil {
		return nil, fmt.Errorf("reading the built index: %w", err)
	}
	mt, err := b.index.MediaType()
	if err != nil {
		return nil, fmt.Errorf("reading the built index: %w", err)
	}
	im, err := b.index.IndexManifest()
	if err != nil {
		return nil, fmt.Errorf("reading the built index: %w", err)
	}
	r := &Result{
		Route: b.route, Stem: b.stem, Kind: b.kind, Descriptor: b.published, DescriptorYAML: b.yaml,
		Annotations: maps.Clone(im.Annotations), Warnings: b.warnings,
		Index: v1.Descriptor{MediaType: mt, Digest: digest, Size: size},
	}
	for _, d := range im.Manifests {
		if artifact.IsAttestation(d) {
			r.Attestations++
			continue
		}
		p := ""
		if d.Platform != nil {
			p = platforms.Format(ocispecs.Platform{OS: d.Platform.OS, Architecture: d.Platform.Architecture, Variant: d.Platform.Variant})
		}
		r.Manifests = append(r.Manifests, Manifest{Platform: p, Digest: d.Digest, Size: d.Size})
	}
	return r, nil
}

// FormatVersion is the version of Metadata's JSON shape (its
// formatVersion).
const FormatVersion = 1

// Metadata is the build's record in the shape of kitsmith's metadata file
// (--metadata-file): the digests a publishing pipeline needs.
type Metadata struct {
	// FormatVersion is FormatVersion, under the key every JSON document
	// kitsmith writes carries.
	FormatVersion int `json:"formatVersion"`
	// SchemaVersion is FormatVersion's old key.
	//
	// Deprecated: read formatVersion; schemaVersion is written one more
	// release.
	SchemaVersion int `json:"schemaVersion"`
	// Kit is the kit's stem.
	Kit string `json:"kit"`
	// Kind is its published kind, workload or mixin.
	Kind string `json:"kind"`
	// Index is the image index.
	Index MetadataDescriptor `json:"index"`
	// Manifests are the platform manifests.
	Manifests []MetadataManifest `json:"manifests"`
	// References are the registry references pushed, pinned by digest.
	References []string `json:"references"`
	// Outputs are the layout directories and archives written.
	Outputs []string `json:"outputs"`
}

// MetadataDescriptor is a content descriptor in Metadata.
type MetadataDescriptor struct {
	// MediaType is the content's media type.
	MediaType string `json:"mediaType"`
	// Digest is its digest (sha256:…).
	Digest string `json:"digest"`
	// Size is its size in bytes.
	Size int64 `json:"size"`
}

// MetadataManifest is a platform manifest in Metadata.
type MetadataManifest struct {
	// Platform is e.g. "linux/amd64".
	Platform string `json:"platform"`
	// Digest is the manifest digest.
	Digest string `json:"digest"`
	// Size is the manifest size in bytes.
	Size int64 `json:"size"`
}

// Metadata returns the result in the metadata file's shape.
func (r *Result) Metadata() Metadata {
	m := Metadata{
		FormatVersion: FormatVersion, SchemaVersion: FormatVersion, Kit: r.Stem, Kind: r.Kind,
		Index:      MetadataDescriptor{MediaType: string(r.Index.MediaType), Digest: r.Index.Digest.String(), Size: r.Index.Size},
		Manifests:  []MetadataManifest{},
		References: []string{},
		Outputs:    []string{},
	}
	for _, x := range r.Manifests {
		m.Manifests = append(m.Manifests, MetadataManifest{Platform: x.Platform, Digest: x.Digest.String(), Size: x.Size})
	}
	for _, w := range r.Written {
		if w.Output.Type == OutputRegistry {
			m.References = append(m.References, w.Reference)
		} else {
			m.Outputs = append(m.Outputs, w.Output.String())
		}
	}
	return m
}
