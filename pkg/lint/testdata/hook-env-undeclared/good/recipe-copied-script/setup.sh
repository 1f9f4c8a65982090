#!/bin/sh
set -eu
mode="${FIXTURE_MODE:-dev}"
echo "port ${FIXTURE_PORT} $mode" > "$WORKSPACE_DIR/.fixture"
