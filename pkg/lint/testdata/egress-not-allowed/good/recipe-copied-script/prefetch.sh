#!/bin/sh
curl -fsSL https://mirror.example.net/cache.tar.gz -o /tmp/cache.tar.gz
