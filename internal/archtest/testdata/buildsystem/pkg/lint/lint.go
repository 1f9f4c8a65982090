// Package lint reads Dockerfiles with BuildKit's parser: allowed.
package lint

import "github.com/moby/buildkit/frontend/dockerfile/parser"

// Recipe is a parsed recipe.
type Recipe struct{ AST *parser.Node }
