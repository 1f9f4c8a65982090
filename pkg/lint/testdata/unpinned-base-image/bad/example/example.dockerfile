# The tag moves: the mixin's overlay is a diff against whatever it is today.
# want: unpinned-base-image
FROM ubuntu:24.04
RUN apt-get update && apt-get install -y --no-install-recommends jq
