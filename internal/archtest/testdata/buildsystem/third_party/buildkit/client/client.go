// Package client stands in for BuildKit's client.
package client

// SolveStatus is a stand-in.
type SolveStatus struct{}
