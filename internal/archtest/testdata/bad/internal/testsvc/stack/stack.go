// Package stack stands in for the test services' harness.
package stack
