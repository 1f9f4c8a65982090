#!/usr/bin/env bash
# The main job, on a fresh machine with only Go: build kitsmith, then
# validate and lint the repository's two kits (kits/outside, kits/inside).
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== building kitsmith"
ldflags=""
if command -v git >/dev/null 2>&1 && rev=$(git rev-parse HEAD 2>/dev/null); then
  ver=$(git describe --tags --always --dirty 2>/dev/null || echo dev)
  ldflags="-X github.com/kitsmith/kitsmith/internal/version.version=$ver -X github.com/kitsmith/kitsmith/internal/version.revision=$rev"
fi
go build -ldflags "$ldflags" -o bin/kitsmith ./cmd/kitsmith
bin/kitsmith version

echo "== validate"
bin/kitsmith validate kits/outside kits/inside

echo "== lint"
bin/kitsmith lint --fail-level warning kits/outside kits/inside
