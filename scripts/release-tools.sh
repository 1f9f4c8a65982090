#!/usr/bin/env bash
# Installs the release tools (goreleaser and syft, the versions pinned in
# scripts/lib/install.sh) into the version-keyed tool cache, with progress
# on stderr, and prints the directories to put on PATH, one per line
# (scripts/release-tools.sh >> "$GITHUB_PATH" in a workflow). Cached: a
# second when warm; cold, each builds in a few minutes.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
# shellcheck source=lib/common.sh
. "$ROOT/scripts/lib/common.sh"
# shellcheck source=lib/install.sh
. "$ROOT/scripts/lib/install.sh"
command -v go >/dev/null 2>&1 || die "go not found in PATH"
for entry in "${GO_TOOLS[@]}"; do
  case $entry in goreleaser\|* | syft\|*) install_go_tool "$entry" ;; esac
done
dirname "$GORELEASER_BIN"
dirname "$SYFT_BIN"
