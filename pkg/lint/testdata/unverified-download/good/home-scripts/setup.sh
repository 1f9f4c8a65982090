#!/bin/sh
set -eu
wget -qO /tmp/setup.sh https://get.example.org/setup.sh
cosign verify-blob --key /opt/keys/cosign.pub --signature /tmp/setup.sh.sig /tmp/setup.sh
sh /tmp/setup.sh
