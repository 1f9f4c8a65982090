#!/usr/bin/env bash
# Builds the full release matrix locally, as the release workflow does but
# unsigned and unpublished: goreleaser release --snapshot --clean in a clone
# of HEAD (committed sources only, as CI sees them, and a remote, without
# which GoReleaser stamps no commit or date), then copies its dist/ to
# dist/ here (or $KITSMITH_DIST) and lists the archives with their sizes and
# the time it took. Installs goreleaser and syft into the tool cache first
# (scripts/release-tools.sh). Extra arguments go to goreleaser, e.g.
#   scripts/release-snapshot.sh --skip=sbom
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cd "$ROOT"
while read -r dir; do PATH=$dir:$PATH; done < <(scripts/release-tools.sh)
export PATH
dist=${KITSMITH_DIST:-$ROOT/dist}
work=$(mktemp -d "${TMPDIR:-/tmp}/kitsmith-release.XXXXXX")
trap 'rm -rf "$work"' EXIT
git clone --quiet --shared "$ROOT" "$work/kitsmith"
t0=$SECONDS
echo "[release-snapshot] goreleaser release --snapshot --clean at $(git rev-parse --short HEAD) (6 targets) ..." >&2
(cd "$work/kitsmith" && goreleaser release --snapshot --clean "$@" >&2)
secs=$((SECONDS - t0))
rm -rf "$dist"
mv "$work/kitsmith/dist" "$dist"
echo "[release-snapshot] done in ${secs}s; in $dist:" >&2
cd "$dist"
for f in *.tar.gz *.zip checksums.txt *.spdx.json; do
  [[ -f $f ]] && printf '%10s  %s\n' "$(du -h --apparent-size "$f" | cut -f1)" "$f"
done
