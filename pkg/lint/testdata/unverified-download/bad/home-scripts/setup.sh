#!/bin/sh
set -eu
wget -qO- https://get.example.org/setup.sh | sh  # want: unverified-download
