#!/bin/sh
set -eu
wget -q https://get.example.org/setup -O /tmp/setup
echo "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08  /tmp/setup" | sha256sum -c
bash /tmp/setup --yes
