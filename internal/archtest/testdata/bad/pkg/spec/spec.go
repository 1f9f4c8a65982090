// Package spec is clean.
package spec

// Kit is a stand-in.
type Kit struct{}
