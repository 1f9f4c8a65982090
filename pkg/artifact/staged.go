package artifact

import "github.com/kitsmith/kitsmith/pkg/spec"

// Staged sources (SPEC-v3 §7.4): every kit stages its published
// descriptor, and its recipe when it has one, under StagedRoot/<stem>/.
const (
	StagedRoot       = spec.StagedRoot
	StagedDescriptor = "kit.yaml"
	StagedRecipe     = "kit.dockerfile"
)
