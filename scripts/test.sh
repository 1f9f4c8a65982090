#!/usr/bin/env bash
# shellcheck disable=SC2317 # on_exit/elapsed are called from the EXIT trap
# The project's one test command: ./scripts/test.sh [go test flags...]
#
# Installs and starts the local services (scripts/services.sh), exports their
# environment (BUILDKIT_HOST, KITSMITH_TEST_REGISTRY, PATH) plus
# KITSMITH_INTEGRATION=1 (integration tests must not skip), then runs
# 'go vet ./...' and 'go test -count=1 [args] ./...'.
# Extra arguments go to go test, e.g. ./scripts/test.sh -run TestBuild -v
# KITSMITH_TEST_PKGS overrides the package pattern (default ./...).
#
# Services this run started are stopped on exit; services that were already
# running (e.g. a developer's) are left running.
# Exit status: go test's status; if go test passed but go vet failed, 1.
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

STOP_SERVICES=""
on_exit() {
  local rc=$?
  if [[ -n $STOP_SERVICES ]]; then
    "${SERVICES[@]}" stop || true
  fi
  echo "[test] total elapsed: $(elapsed) (exit $rc)" >&2
  exit "$rc"
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"${SERVICES[@]}" install
if "${SERVICES[@]}" is-running; then
  echo "[test] services already running; leaving them running afterwards" >&2
  "${SERVICES[@]}" start
else
  STOP_SERVICES=1
  "${SERVICES[@]}" start
fi
eval "$("${SERVICES[@]}" env)"
export KITSMITH_INTEGRATION=1
echo "[test] BUILDKIT_HOST=$BUILDKIT_HOST KITSMITH_TEST_REGISTRY=$KITSMITH_TEST_REGISTRY" >&2

vet_rc=0
echo "[test] go vet $PKGS" >&2
# shellcheck disable=SC2086 # PKGS may hold several patterns
go vet $PKGS || vet_rc=$?

test_rc=0
echo "[test] go test -count=1 ${*:+$* }$PKGS" >&2
# shellcheck disable=SC2086 # PKGS may hold several patterns
go test -count=1 "$@" $PKGS || test_rc=$?

if ((test_rc == 0 && vet_rc != 0)); then
  echo "[test] go test passed but go vet failed (exit $vet_rc)" >&2
  exit 1
fi
exit "$test_rc"
