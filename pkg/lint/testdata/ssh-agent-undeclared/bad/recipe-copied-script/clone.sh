#!/bin/sh
set -eu
ssh-add -l  # want: ssh-agent-undeclared
