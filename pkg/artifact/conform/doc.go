// Package conform judges kit images against the v3 specification's
// artifact rules, as the specification's conformance kit (kit-tck
// validate) does: Check runs every check on every platform manifest of an
// artifact opened with pkg/artifact (Open, FromIndex, FromImage) and on
// its index, under kit-tck's check ids, plus kitsmith's own
// oci-media-types check, and returns a Report of Findings that say what
// is wrong, how it happened and how to fix it. json.Marshal of a Report is
// the document kitsmith check --format json prints (FormatVersion).
//
// Checks lists the checks in the order Check runs them. A merged set's
// listed kits are read through an artifact.KitResolver (WithKitResolver;
// by default the artifact's own, for one opened from a registry).
//
// The package also derives a workload's provides from its package
// databases (SPEC-v3 §7.6): ReadDpkgStatus and ReadApkInstalled parse
// them, DerivedProvides turns them into deb/ and apk/ entries and
// IntersectProvides keeps what every platform has, as a build stamps it.
//
// Every layer read is bounded by one memory budget per Check, shared with
// pkg/artifact's reading of the image.
package conform
