#!/bin/bash
git -C /opt/fixture/src checkout --detach "v1.2.3"
python3 -m http.server 8080 --help >/dev/null
