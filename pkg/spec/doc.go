// Package spec reads, validates and transforms Docker Sandboxes kit
// descriptors, specification v3.
//
// A kit source is loaded with Load (from any fs.FS) or LoadPath (from an
// operating-system path, through an os.Root so nothing outside the kit
// directory can be read). All four authoring forms are understood: a YAML
// descriptor with a companion <stem>.dockerfile or an explicit dockerfile:,
// an inline build: recipe, a Dockerfile carrying its descriptor in a
// "# kit:" comment block, and a kind: set listing published kits. Locate
// finds a directory's descriptor, Find the kits of a tree and Enclosing the
// kit a file belongs to, as kitsmith lint --recursive and --files do.
//
// Decoding is strict and keeps the source position of every value:
// Kit.Validate reports every independent problem as an *Error with the
// dotted field path, file, line and column, the rule it breaks (the
// specification's conformance case id when there is one) and a message
// that says what to change. Warnings are kept apart from errors. The
// embedded JSON Schema (package schemas) judges the shape of the document;
// Go code judges what a schema cannot express.
//
// Validation has three modes: ModeAuthored (the source as written),
// ModePublished (the descriptor a kit image carries) and ModeEffective
// (after create-time arg expansion). Kit.Publish produces the published
// descriptor a build stages and annotates, and SurfaceOf the permission
// surface a user approves, which Surface.Widenings compares. A source
// that does not publish is a *PublishError, which unwraps to its Errors.
// ReportDocument is the JSON document of validation reports.
//
// The compiled schema is built once per process and shared read-only;
// nothing else in the package holds state.
package spec
