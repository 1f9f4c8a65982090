#!/bin/sh
test -n "$FIXTURE_LEVEL"  # want: hook-env-undeclared
