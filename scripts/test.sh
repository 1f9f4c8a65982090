#!/usr/bin/env bash
# shellcheck disable=SC2317 # on_exit/elapsed are called from the EXIT trap
# The project's one test command: ./scripts/test.sh [go test flags...]
#
# Installs the pinned tools (scripts/services.sh install: cached, so seconds
# when warm; about 7 min cold on an idle 2-core machine, up to 25 under load), starts the local services
# (buildkitd, the registry and the Sigstore stack), exports their
# environment (BUILDKIT_HOST, KITSMITH_TEST_REGISTRY, PATH and the
# KITSMITH_TEST_* variables of the Sigstore stack) plus KITSMITH_INTEGRATION=1
# (integration tests must not skip), then runs 'go vet ./...' and
# 'go test -count=1 [args] ./...'.
# Extra arguments go to go test, e.g. ./scripts/test.sh -run TestBuild -v
# KITSMITH_TEST_PKGS overrides the package pattern (default ./...).
# A static kitsmith (CGO_ENABLED=0), which kitsmith test copies into its
# container, is built once into a temporary directory and exported as
# KITSMITH_TEST_STATIC_KITSMITH.
#
# Services this run started are stopped on exit; services that were already
# running (a developer's, or the machine's one Sigstore stack) are left
# running. Exit status: go test's status; if go test passed but go vet
# failed, 1.
set -euo pipefail

T0=${EPOCHREALTIME/,/.}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cd "$ROOT"
SERVICES=(bash "$ROOT/scripts/services.sh")
PKGS=${KITSMITH_TEST_PKGS:-./...}

elapsed() {
  local s=${T0/./} e=${EPOCHREALTIME/[.,]/}
  local d=$(((e - s) / 100000))
  printf '%d.%ds' $((d / 10)) $((d % 10))
}

STOP=()
STOP_DIRS=()
on_exit() {
  local rc=$? part
  for part in "${STOP[@]}"; do
    "${SERVICES[@]}" stop "$part" || true
  done
  ((${#STOP_DIRS[@]} == 0)) || rm -rf "${STOP_DIRS[@]}"
  echo "[test] total elapsed: $(elapsed) (exit $rc)" >&2
  exit "$rc"
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"${SERVICES[@]}" install
# Sigstore first in STOP, so it stops before the base services.
for part in sigstore base; do
  if "${SERVICES[@]}" is-running "$part"; then
    echo "[test] $part services already running; leaving them running afterwards" >&2
  else
    STOP+=("$part")
  fi
done
for part in base sigstore; do
  "${SERVICES[@]}" start "$part"
done
eval "$("${SERVICES[@]}" env)"
export KITSMITH_INTEGRATION=1
echo "[test] BUILDKIT_HOST=$BUILDKIT_HOST KITSMITH_TEST_REGISTRY=$KITSMITH_TEST_REGISTRY" >&2
echo "[test] Sigstore: fulcio $KITSMITH_TEST_FULCIO_URL, rekor $KITSMITH_TEST_REKOR_URL, trusted root $KITSMITH_TEST_TRUSTED_ROOT" >&2

# The test tools under internal/cmd build only with this tag (it keeps them
# out of the pre-commit hook's `go install ./...`).
TAGS=(-tags kitsmith_testtools)

# kitsmith test copies a static kitsmith into its container: build one
# for the tests that run it, once, instead of once per test binary.
STATIC_DIR=$(mktemp -d)
STOP_DIRS=("$STATIC_DIR")
echo "[test] building a static kitsmith for kitsmith test" >&2
CGO_ENABLED=0 go build -o "$STATIC_DIR/kitsmith" ./cmd/kitsmith
export KITSMITH_TEST_STATIC_KITSMITH=$STATIC_DIR/kitsmith

vet_rc=0
echo "[test] go vet ${TAGS[*]} $PKGS" >&2
# shellcheck disable=SC2086 # PKGS may hold several patterns
go vet "${TAGS[@]}" $PKGS || vet_rc=$?

test_rc=0
echo "[test] go test -count=1 ${TAGS[*]} ${*:+$* }$PKGS" >&2
# shellcheck disable=SC2086 # PKGS may hold several patterns
go test -count=1 "${TAGS[@]}" "$@" $PKGS || test_rc=$?

if ((test_rc == 0 && vet_rc != 0)); then
  echo "[test] go test passed but go vet failed (exit $vet_rc)" >&2
  exit 1
fi
exit "$test_rc"
