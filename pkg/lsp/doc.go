// Package lsp is kitsmith's language server: the Language Server Protocol
// (3.16) over a stream, as `kitsmith lsp` serves it on stdio.
//
// It publishes the diagnostics of kitsmith lint (validation and every
// rule, at the positions, rule ids and severities the CLI reports, under
// the .kitsmith.yaml found upward from the kit) for descriptors, companion
// Dockerfiles and comment descriptors, on open, change and save: linting
// is debounced and a result is published only for the document version it
// was computed from. It offers the fixes of the findings as code actions
// (the safe ones also together as source.fixAll.kitsmith), hover for rule
// ids, capability types, descriptor keys and ${{ kit.args.NAME }}
// references, completion of capability types, keys and arg names, and
// go-to-definition from an arg reference to its declaration.
//
// The protocol types and method dispatch are github.com/tliron/glsp's;
// JSON-RPC framing is github.com/sourcegraph/jsonrpc2's.
package lsp
