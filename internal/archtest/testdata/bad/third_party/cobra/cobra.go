// Package cobra stands in for the real one.
package cobra

// Command is a stand-in.
type Command struct{}
