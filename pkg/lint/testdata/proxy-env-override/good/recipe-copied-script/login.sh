#!/bin/sh
export HTTPS_PROXY="$HTTPS_PROXY"
curl -fsS https://api.example.org/v1/login
