#!/bin/sh
set -eu
mode="${FIXTURE_MODE:-dev}"
echo "port ${FIXTURE_PORT} $mode" > "$WORKSPACE_DIR/.fixture"
# kitsmith:ignore hook-env-undeclared the image's profile exports FIXTURE_HOME for every process
echo "home $FIXTURE_HOME" >> "$WORKSPACE_DIR/.fixture"
