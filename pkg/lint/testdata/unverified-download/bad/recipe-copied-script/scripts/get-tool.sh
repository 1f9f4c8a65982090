#!/usr/bin/env bash
set -euo pipefail
curl -fsSL https://get.example.org/install.sh | sh  # want: unverified-download
