// Package schemas holds the JSON Schema (draft 2020-12) of the Docker
// Sandboxes kit descriptor, spec v3, and of every well-known capability
// config, as files embedded in the binary.
//
// policy.schema.json describes kitsmith's admission policy file (see
// Policy), config.schema.json kitsmith lint's .kitsmith.yaml (see Config). kit.schema.json describes the descriptor; each well-known capability type
// <namespace>/<name>@<version> has its config schema at
// capabilities/<namespace>/<name>@<version>.schema.json, referenced from
// kit.schema.json by a relative $ref. Every file's $id is its URL under
// BaseURL, so editors (yaml-language-server) resolve the references.
package schemas

import (
	"embed"
	"io/fs"
)

// BaseURL is the URL every schema's $id is relative to.
const BaseURL = "https://raw.githubusercontent.com/kitsmith/kitsmith/main/schemas/"

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
