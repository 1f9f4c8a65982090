#!/bin/sh
exec fixture-server --dir "$WORKSPACE_DIR" --token "$FIXTURE_TOKEN"  # want: hook-env-undeclared
