package artifact

import "github.com/kitsmith/kitsmith/pkg/artifact/internal/kitimage"

// Staged sources (SPEC-v3 §7.4): every kit stages its published
// descriptor, and its recipe when it has one, under StagedRoot/<stem>/.
const (
	StagedRoot       = kitimage.StagedRoot
	StagedDescriptor = kitimage.StagedDescriptor
	StagedRecipe     = kitimage.StagedRecipe
)
