#!/bin/sh
export GITHUB_TOKEN=ghp_U8JZpDE0iGXlD6gNCFbaEPFjbD0kH8Oool8D  # want: literal-secret
curl -fsS --header "x-fixture-key: c17149d439536b3216fdaeeb975729fa" https://api.example.org/v1/login  # want: literal-secret
