// Package schemas holds the JSON Schema (draft 2020-12) of the Docker
// Sandboxes kit descriptor, spec v3, and of every well-known capability
// config, as files embedded in the binary.
//
// policy.schema.json describes kitsmith's admission policy file (see
// Policy), config.schema.json kitsmith lint's .kitsmith.yaml (see Config). kit.schema.json describes the descriptor; each well-known capability type
// <namespace>/<name>@<version> has its config schema at
// capabilities/<namespace>/<name>@<version>.schema.json, referenced from
// kit.schema.json by a relative $ref. Every file's $id is its URL under
// BaseURL, the copy published at release tag Tag; `kitsmith schema
// --output DIR` writes the files without $id, so that their relative
// $refs resolve against the directory, offline.
package schemas

import (
	"embed"
	"io/fs"
)

// Tag is the kitsmith release whose tree publishes these files at
// BaseURL. A release that changes a schema moves it to its own tag.
const Tag = "v0.1.0"

// BaseURL is the URL every schema's $id is relative to: the repository's
// schemas directory at release Tag (never a moving branch).
const BaseURL = "https://raw.githubusercontent.com/kitsmith/kitsmith/" + Tag + "/schemas/"

// Root is the path of the descriptor schema inside FS.
const Root = "kit.schema.json"

// Policy is the path of the admission policy schema inside FS.
const Policy = "policy.schema.json"

// Config is the path of the lint configuration (.kitsmith.yaml) schema
// inside FS.
const Config = "config.schema.json"

//go:embed kit.schema.json policy.schema.json config.schema.json capabilities definitions
var files embed.FS

// FS returns the embedded schema files, rooted at this directory.
func FS() fs.FS { return files }
