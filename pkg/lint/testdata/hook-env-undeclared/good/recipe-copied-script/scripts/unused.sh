#!/bin/sh
echo "$FIXTURE_UNDECLARED"
