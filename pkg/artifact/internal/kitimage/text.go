package kitimage

import (
	"strings"

	"github.com/google/go-containerregistry/pkg/v1/types"
)

// ListOrNone joins list for a message, or says "none".
func ListOrNone(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}

// MediaTypeOrNone names a media type for a message, or its absence.
func MediaTypeOrNone(mt types.MediaType) string {
	if mt == "" {
		return "without a media type"
	}
	return string(mt)
}
