#!/bin/sh
export GITHUB_TOKEN="$FIXTURE_TOKEN"
curl -fsS --header "x-fixture-key: ${FIXTURE_TOKEN}" https://api.example.org/v1/login
