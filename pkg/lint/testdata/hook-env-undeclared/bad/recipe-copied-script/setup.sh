#!/bin/sh
set -eu
mkdir -p "$WORKSPACE_DIR/.fixture"
echo "port ${FIXTURE_PORT}" > "$WORKSPACE_DIR/.fixture/port"  # want: hook-env-undeclared
