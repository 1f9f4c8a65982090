// Package migrate turns a Docker Sandboxes kit written in the v2 grammar
// (spec.yaml with schemaVersion "2", a files/ tree and an optional
// Dockerfile) into v3 kit sources: the descriptor <kit>.yaml, the recipe
// <kit>.dockerfile when an image, entrypoint, command, environment variable
// or file has to live in one, and <kit>-context.md for agent instructions.
//
// The mapping is the specification's v2 → v3 table, and the migrate-kit-to-v3
// skill of the specification repository where the table is silent. It is
// mechanical and conservative: a migration never widens authority and never
// guesses a narrowing. Network entries are kept verbatim and go into the
// runtime phase, and into the install phase too when the v2 kit has install
// hooks; hooks map one to one; credentials become optional, as they were in
// v2. Whatever cannot be mapped mechanically is never dropped silently: it is
// a Note with the v2 position and what to do, and the descriptor carries a
// "# kitsmith:migrate" comment at the spot.
//
// The v2 document is read strictly (unknown keys and values of the wrong
// type are Notes) and transformed as yaml.v3 nodes, so the author's comments
// and key order survive where the mapping allows. Migrate then validates the
// result (package spec) and lints it (package lint); Result.NeedsHuman says
// whether a person has to finish the job.
package migrate
