#!/bin/sh
export HTTPS_PROXY=http://10.0.0.1:3128  # want: proxy-env-override
curl -fsS https://api.example.org/v1/login
