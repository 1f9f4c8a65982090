package artifact

import (
	"testing"

	"github.com/kitsmith/kitsmith/pkg/artifact/internal/kitimage"
)

// TestModelNames: the names artifact exports are the ones the image
// reader (internal/kitimage) applies.
func TestModelNames(t *testing.T) {
	for _, c := range []struct{ name, got, want string }{
		{"AnnotationReferenceType", AnnotationReferenceType, kitimage.AnnotationReferenceType},
		{"ReferenceTypeAttestation", ReferenceTypeAttestation, kitimage.ReferenceTypeAttestation},
		{"StagedRoot", StagedRoot, kitimage.StagedRoot},
		{"StagedDescriptor", StagedDescriptor, kitimage.StagedDescriptor},
		{"StagedRecipe", StagedRecipe, kitimage.StagedRecipe},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q; the image reader uses %q", c.name, c.got, c.want)
		}
	}
	if ErrMalformed != kitimage.ErrMalformed || ErrDigestMismatch != kitimage.ErrDigestMismatch {
		t.Error("the sentinels are not the image reader's")
	}
}
