// Package review judges the authority a kit asks for before anyone runs
// it: what an update widens (Diff), whether a composition of kits holds
// together the way a runtime will judge it (Resolve), and whether a kit
// stays within a team's permission ceiling (LoadPolicy, CheckCeiling).
//
// Every judgement works on the permission surface spec.SurfaceOf computes
// (SPEC-v3 §7.4) and on the composition rules pkg/spec shares with the set
// builder (spec.CheckRelations, spec.CapabilityMerger). A Kit is a
// descriptor plus where it came from: a kit source, which gives
// file:line:col positions, or a published artifact read through
// pkg/artifact.
package review
