package publish

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/kitsmith/kitsmith/pkg/artifact"
	"github.com/kitsmith/kitsmith/pkg/spec"
)

// templateFields are the placeholders a tag template may use.
var templateFields = map[string]bool{"stem": true, "name": true, "version": true, "kind": true}

var placeholderRE = regexp.MustCompile(`\{([^{}]*)\}`)

// checkTemplate refuses unknown placeholders and templates that cannot
// become a tagged reference.
func checkTemplate(tmpl string) error {
	for _, m := range placeholderRE.FindAllStringSubmatch(tmpl, -1) {
		if !templateFields[m[1]] {
			return fmt.Errorf("tag template %q: unknown placeholder {%s}; use {stem}, {name}, {version} or {kind}", tmpl, m[1])
		}
	}
	probe := placeholderRE.ReplaceAllString(tmpl, "x")
	if _, err := name.NewTag(probe, name.StrictValidation); err != nil {
		return fmt.Errorf("tag template %q does not make a registry/repository:tag reference: %w", tmpl, err)
	}
	return nil
}

// Reference returns the reference kit k is published to under the tag
// template tmpl (see Options.TagTemplate).
func Reference(tmpl string, k *spec.Kit) (string, error) {
	if err := checkTemplate(tmpl); err != nil {
		return "", err
	}
	vals := map[string]string{"stem": k.Stem, "name": filepath.Base(k.Dir)}
	if k.Descriptor != nil {
		vals["version"], vals["kind"] = k.Descriptor.Version, k.Descriptor.Kind
	}
	var missing []string
	ref := placeholderRE.ReplaceAllStringFunc(tmpl, func(p string) string {
		f := strings.Trim(p, "{}")
		if vals[f] == "" {
			missing = append(missing, p)
		}
		return vals[f]
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("kit %s has no value for %s in the tag template %q", k.Path, strings.Join(missing, ", "), tmpl)
	}
	if _, err := name.NewTag(ref, name.StrictValidation); err != nil {
		return "", fmt.Errorf("kit %s: tag template %q gives %q: %w", k.Path, tmpl, ref, err)
	}
	if err := CheckReference(ref); err != nil {
		return "", fmt.Errorf("kit %s: tag template %q gives %q: %w", k.Path, tmpl, ref, err)
	}
	return ref, nil
}

// CheckReference reports whether kits can be published to ref: a registry
// reference (REGISTRY/REPO[:TAG]) or an OCI image layout (oci:DIR[:TAG]),
// as artifact.NewTarget opens them. An archive (oci-archive:), which is
// read-only, and a reference that does not parse, or whose registry part
// is a prefix rather than a host (docker://), are *artifact.DestinationError
// values. It reads nothing and reaches no registry.
func CheckReference(ref string) error {
	r, err := artifact.ParseReference(ref)
	if err != nil {
		return err
	}
	if r.Kind == artifact.OriginArchive {
		return &artifact.DestinationError{Ref: ref, Reason: "is an archive, which is read-only: publish to a registry or to an OCI layout (" + artifact.LayoutPrefix + "DIR[:tag])"}
	}
	return nil
}
