#!/bin/sh
set -eu
ssh-add -l
