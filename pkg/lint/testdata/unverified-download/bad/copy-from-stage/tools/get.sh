#!/bin/bash
set -eu
# want: unverified-download
curl -fsSLo /tmp/get.sh https://get.example.org/get.sh
bash /tmp/get.sh
