// Package parser stands in for BuildKit's Dockerfile parser.
package parser

// Node is a stand-in.
type Node struct{}
