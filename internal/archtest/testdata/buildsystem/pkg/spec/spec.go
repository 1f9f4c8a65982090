// Package spec reaches nothing: no violation.
package spec

// Kit is a kit.
type Kit struct{}
