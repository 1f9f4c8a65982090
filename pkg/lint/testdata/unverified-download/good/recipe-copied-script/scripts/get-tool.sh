#!/usr/bin/env bash
set -euo pipefail
curl -fsSL https://get.example.org/install.sh -o /tmp/install.sh
curl -fsSL https://get.example.org/install.sh.sha256 -o /tmp/install.sh.sha256
(cd /tmp && sha256sum -c install.sh.sha256)
sh /tmp/install.sh
