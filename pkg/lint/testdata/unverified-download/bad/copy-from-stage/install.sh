#!/bin/sh
curl -fsSL https://get.example.org/install.sh | sh  # want: unverified-download
