package artifact

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
)

// Reference prefixes besides registry references.
const (
	LayoutPrefix  = "oci:"
	ArchivePrefix = "oci-archive:"
)

// Ref is a parsed reference, the one grammar Open reads and Write writes:
//
//	oci:DIR[:TAG]            an OCI image layout directory
//	oci-archive:FILE[:TAG]   a tar archive of one
//	REGISTRY/REPO[:TAG|@DIGEST]  a registry reference (a bare name means Docker Hub)
//
// In a layout or archive reference, the text after the last colon is the
// tag when it is a valid tag ([A-Za-z0-9_][A-Za-z0-9._-]{0,127}) and
// something precedes it: "oci:out/gh:1.2.0" is directory out/gh, tag
// 1.2.0. A trailing colon ends the path and gives no tag, so
// "oci:dir:x:" names the directory "dir:x".
type Ref struct {
	// Kind is OriginLayout, OriginArchive or OriginRegistry.
	Kind Origin
	// Path is the layout directory or archive file; empty for a registry.
	Path string
	// Tag selects (reading) or records (writing) a layout entry's
	// org.opencontainers.image.ref.name; empty for none, and always empty
	// for a registry (its tag is part of Name).
	Tag string
	// Name is the registry reference as given; empty for a layout or
	// archive.
	Name string
}

var tagRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$`)

// ParseReference parses ref by the grammar Ref describes. A registry
// reference must parse as one (go-containerregistry's name grammar).
func ParseReference(ref string) (Ref, error) {
	for _, p := range []struct {
		prefix string
		kind   Origin
	}{{LayoutPrefix, OriginLayout}, {ArchivePrefix, OriginArchive}} {
		rest, ok := strings.CutPrefix(ref, p.prefix)
		if !ok {
			continue
		}
		r := Ref{Kind: p.kind, Path: rest}
		if i := strings.LastIndex(rest, ":"); i >= 0 {
			switch tag := rest[i+1:]; {
			case tag == "":
				r.Path = rest[:i]
			case tagRE.MatchString(tag):
				r.Path, r.Tag = rest[:i], tag
			}
		}
		if r.Path == "" {
			return Ref{}, &DestinationError{Ref: ref, Reason: fmt.Sprintf("names no path: write %sPATH[:tag]", p.prefix)}
		}
		return r, nil
	}
	if ref == "" {
		return Ref{}, &DestinationError{Ref: ref, Reason: "is empty: write REGISTRY/REPO[:tag], " + LayoutPrefix + "DIR[:tag] or " + ArchivePrefix + "FILE[:tag]"}
	}
	if err := checkRegistryHost(ref); err != nil {
		return Ref{}, err
	}
	if _, err := name.ParseReference(ref); err != nil {
		return Ref{}, &DestinationError{Ref: ref, Reason: fmt.Sprintf("is not a registry reference, %sDIR[:tag] or %sFILE[:tag]", LayoutPrefix, ArchivePrefix), Err: err}
	}
	return Ref{Kind: OriginRegistry, Name: ref}, nil
}

var portRE = regexp.MustCompile(`^[0-9]+$`)

// checkRegistryHost refuses a reference whose registry part has a colon
// not followed by a port number ("docker://host/repo", "dir:/tmp/kit",
// "oci-layout:out/kit"): such a prefix is another tool's transport or a
// misspelt scheme, and read as a host it would be looked up in DNS.
func checkRegistryHost(ref string) error {
	host, _, ok := strings.Cut(ref, "/")
	if !ok || !strings.Contains(host, ":") || strings.HasSuffix(host, "]") {
		return nil
	}
	if portRE.MatchString(host[strings.LastIndex(host, ":")+1:]) {
		return nil
	}
	scheme, _, _ := strings.Cut(host, ":")
	return &DestinationError{Ref: ref, Reason: fmt.Sprintf("starts with %q, which is neither a registry host[:port] nor a prefix kitsmith reads: write %sDIR[:tag], %sFILE[:tag] or REGISTRY[:PORT]/REPO[:tag]",
		scheme+":", LayoutPrefix, ArchivePrefix)}
}

// String returns the reference as ParseReference reads it.
func (r Ref) String() string {
	switch r.Kind {
	case OriginLayout, OriginArchive:
		prefix := LayoutPrefix
		if r.Kind == OriginArchive {
			prefix = ArchivePrefix
		}
		if r.Tag != "" {
			return prefix + r.Path + ":" + r.Tag
		}
		if strings.Contains(r.Path, ":") {
			return prefix + r.Path + ":"
		}
		return prefix + r.Path
	}
	return r.Name
}

// ErrNotRegistry reports a layout or archive reference where only a
// registry reference will do.
var ErrNotRegistry = errors.New("not a registry reference")

// Pinned returns the reference to the manifest with digest in r's
// repository, "REGISTRY/REPO@sha256:…", dropping any tag or digest r
// carries: what opens exactly the kit a tag pointed to when it was
// verified or listed. A layout or archive reference has no such form:
// Pinned returns it unchanged with an error wrapping ErrNotRegistry.
func (r Ref) Pinned(digest string) (string, error) {
	if r.Kind != OriginRegistry {
		return r.String(), fmt.Errorf("%w: %s names a local %s", ErrNotRegistry, r, r.Kind)
	}
	n, err := name.ParseReference(r.Name)
	if err != nil {
		return "", err
	}
	d, err := name.NewDigest(n.Context().Name() + "@" + digest)
	if err != nil {
		return "", fmt.Errorf("pinning %s to %s: %w", r.Name, digest, err)
	}
	return d.String(), nil
}

// registryRef parses a registry reference with the options' scheme rules.
func (o *options) registryRef(ref string) (name.Reference, error) {
	r, err := name.ParseReference(ref, o.nameOptions()...)
	if err != nil {
		return nil, &DestinationError{Ref: ref, Reason: fmt.Sprintf("is not a registry reference, %sDIR[:tag] or %sFILE[:tag]", LayoutPrefix, ArchivePrefix), Err: err}
	}
	return r, nil
}
