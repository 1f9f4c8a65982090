#!/bin/sh
echo "mode=$FIXTURE_MODE" > /etc/fixture.conf  # want: hook-env-undeclared
