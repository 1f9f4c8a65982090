#!/bin/bash
nohup python3 -m http.server 8080 >/tmp/serve.log 2>&1 &  # want: background-without-long-running
